"""The ear's native maths on one thread, for the whole process.

The ear's matrix products are small: a take's power spectrum against a
40-band filterbank, its cepstra against a take's, the speech embedding's
convolutions, an array's 4x4 to 6x6 covariances, Silero VAD's network on
32 ms of audio. On work this small a second OpenBLAS or OpenMP thread saves
no time and spins while it waits: CPU the recognizer and the rest of the
table could use (bench/RESULTS.md, "The ear's maths on one thread"; first
seen in "Peak memory: the speech embedding without ONNX Runtime"). The
limit is threadpoolctl's, and it is kept.
"""

from __future__ import annotations

from threadpoolctl import threadpool_limits


def one_thread() -> None:
    """Hold every BLAS and OpenMP library loaded in this process so far
    (numpy's OpenBLAS is loaded here first) to one thread from now on. A
    library loaded later keeps its default until this is called again:
    the ear calls it when it starts and when it loads Silero VAD. Costs
    about a millisecond (threadpoolctl lists the loaded libraries)."""
    import numpy  # noqa: F401  (loads numpy's OpenBLAS, so that the limit reaches it)

    threadpool_limits(limits=1)
