"""The phone loop: pocketsphinx's ``allphone`` search, decoded beside the grammar.

``SphinxRecognizer`` scores each game word against the best any English-like
sound could score over the same frames (the phone loop; see
``companion.referee.sphinx_backend``). The phone loop does not depend on the
vocabulary, so one decoder serves every recognizer in the process, and it
runs in a worker process of its own: on a machine with two cores or more
(a Pi 4 or 5 has four) it decodes at the same time as the grammar, and a
ruling waits for one decode instead of two (its latency and memory:
bench/RESULTS.md, "Where the ear's constants came from").

If the worker cannot start or dies (out of memory, killed), the phone loop is
decoded in this process from then on, with a one-line notice on standard
error; the decoder and its settings are the same either way, only slower.
"""

from __future__ import annotations

import atexit
import math
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

Seg = tuple[str, int, int, float, float]
"""One entry of a pocketsphinx best path (a word, or a phone of the loop):
``(name, first frame, last frame, acoustic score in nats, posterior)``;
frames are pocketsphinx's 10 ms steps from the utterance's first sample."""

PHONE_LM = "en-us/en-us-phone.lm.bin"
"""The bundled phone language model the loop searches with (pocketsphinx's
``en-us`` model folder)."""

SEARCH = "phones"
"""The name of the phone loop's search in its decoder."""


SILENCE_FILLERS = "<s> SIL\n</s> SIL\n<sil> SIL\n"
"""A filler dictionary (pocketsphinx's ``-fdict``) with silence only: the
bundled model's also has ``[NOISE]`` and ``[SPEECH]``, which a grammar
search adds at every state of the grammar and its lattice holds at every
frame, though at their insertion probability they hardly ever win a path;
the lattice's cost grows with them (bench/RESULTS.md, "The grammar
decoder's lattice without the noise fillers")."""


def one_word_decoder(fillers: str | None = None, **config: Any) -> Any:
    """A pocketsphinx decoder (``config``: more of its settings) with a
    one-word dictionary instead of the bundled CMU one, for a decoder that
    needs no words of its own (the phone loop) or adds the few it listens
    for (``SphinxRecognizer``): less resident memory (bench/RESULTS.md).
    ``fillers``: the filler dictionary's text (e.g. ``SILENCE_FILLERS``;
    None: the model's own). Raises what ``pocketsphinx.Decoder`` raises."""
    import pocketsphinx

    with tempfile.TemporaryDirectory(prefix="companion-") as folder:
        words = Path(folder) / "one.dict"
        words.write_text("a AH\n", encoding="ascii")
        if fillers is not None:
            noise = Path(folder) / "fillers.dict"
            noise.write_text(fillers, encoding="ascii")
            config["fdict"] = str(noise)
        return pocketsphinx.Decoder(lm=None, dict=str(words), loglevel="FATAL", **config)


def new_decoder() -> Any:
    """A pocketsphinx decoder with the phone loop as its active search. The
    loop needs the acoustic model's phones, not words, so it gets a one-word
    dictionary (``one_word_decoder``), the same best path as with the whole
    one (``tests/test_phone_loop.py``)."""
    d = one_word_decoder()
    add_search(d)
    d.activate_search(SEARCH)
    return d


def add_search(d: Any) -> None:
    """Add the phone loop to decoder ``d`` as a search named ``SEARCH``
    (activate it before each decode if ``d`` has others). The loop's best
    path does not depend on the decoder's dictionary, fillers or word
    settings (``tests/test_phone_loop.py``), so a grammar decoder can hold
    it too. Raises what ``pocketsphinx.Decoder`` raises."""
    import pocketsphinx

    d.add_allphone_file(SEARCH, pocketsphinx.get_model_path(PHONE_LM))


def best_path(d: Any, pcm: bytes) -> list[Seg]:
    """Decoder ``d``'s best path over one whole utterance of 16-bit mono PCM
    at 16,000 Hz, with its active search (batch cepstral mean)."""
    logmath = d.get_logmath()
    d.start_utt()
    d.process_raw(pcm, False, True)
    d.end_utt()
    out: list[Seg] = []
    for seg in d.seg() or ():
        score = logmath.log(seg.ascore) if seg.ascore > 0 else -(10 ** 9)
        out.append((seg.word, seg.start_frame, seg.end_frame, score * math.log(1.0001),
                    float(seg.prob)))
    return out


def _serve(inbox: Connection, outbox: Connection) -> None:
    """The worker process: decode each utterance that arrives on ``inbox``
    and send ``(tag, best path, CPU seconds used so far, peak resident memory
    in MB)`` on ``outbox``, until the pipe closes (the companion stopped)."""
    d = new_decoder()
    while True:
        try:
            tag, pcm = inbox.recv()
        except (EOFError, OSError):
            return
        path = best_path(d, pcm)
        outbox.send((tag, path, time.process_time(), peak_mb()))


def peak_mb() -> float:
    """This process's peak resident memory, MB: ``VmHWM`` in
    ``/proc/self/status``, which starts afresh at exec; else ``ru_maxrss``,
    which getrusage(2) keeps across an exec, so a worker started by
    fork and exec would report its parent's peak if that was higher."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class PhoneLoop:
    """Phone-loop decodes, in a worker process when ``parallel`` (and the
    machine has more than one core), else in this process.

    ``submit(pcm)`` starts a decode and returns a function that waits for its
    ``Seg`` list; the caller decodes the grammar in between. The request
    goes down a pipe from the calling thread itself: pocketsphinx holds
    Python's global lock while it decodes, so a hand-off through a helper
    thread (``concurrent.futures``' process pool) would wait for the grammar
    decode to finish before the worker even began. The worker is a fresh
    ``python -m companion.referee.phone_loop``: a ``multiprocessing`` child
    would import the caller's main module again (the benchmark's, the CLI's)
    and hold all it imports. Thread safe.
    """

    def __init__(self, parallel: bool = True) -> None:
        self._lock = threading.Lock()
        self._conn: tuple[Connection, Connection] | None = None  # (to it, from it)
        self._process: subprocess.Popen[bytes] | None = None
        self._tag = 0
        self._done: dict[int, list[Seg]] = {}  # results read while waiting for another
        self._here: Any = None  # this process's decoder, made when first needed
        self.parallel = parallel and (os.cpu_count() or 1) > 1
        self.worker_cpu_s = 0.0
        """CPU seconds the worker processes have used (as of their last decode)."""
        self.worker_peak_mb = 0.0
        """The largest peak resident memory of a worker process, MB."""
        self._cpu_base = 0.0  # CPU seconds of the workers before the current one

    def start(self) -> None:
        """Start the worker now (it loads its model, about 0.3 s, while the
        caller goes on), so the first decode does not wait for it."""
        with self._lock:
            self._start()

    def share(self, decoder: Any) -> None:
        """Decode the loop in this process with ``decoder`` (a pocketsphinx
        decoder that also serves another search, e.g. a twin recognizer's
        grammar) instead of a decoder of its own: one acoustic model in
        memory instead of two, and one noise estimate (``-remove_noise``)
        carried through both searches' decodes. Only for a loop that is not
        ``parallel``; raises ``ValueError`` otherwise, and what
        ``add_search`` raises."""
        if self.parallel:
            raise ValueError("a parallel phone loop decodes in its worker")
        with self._lock:
            add_search(decoder)
            self._here = decoder

    def _decode_here(self, pcm: bytes) -> list[Seg]:
        with self._lock:
            if self._here is None:
                self._here = new_decoder()
            self._here.activate_search(SEARCH)
            return best_path(self._here, pcm)

    def _start(self) -> tuple[Connection, Connection] | None:
        if not self.parallel or self._conn is not None:
            return self._conn
        if not sys.executable:
            self._fall_back(OSError("no Python executable to start it with"))
            return None
        to_r, to_w = os.pipe()
        from_r, from_w = os.pipe()
        package_root = str(Path(__file__).resolve().parents[2])
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            p for p in (package_root, os.environ.get("PYTHONPATH")) if p)}
        try:
            process = subprocess.Popen(
                [sys.executable, "-m", "companion.referee.phone_loop", str(to_r), str(from_w)],
                pass_fds=(to_r, from_w), env=env, stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL)
        except OSError as exc:
            for fd in (to_r, to_w, from_r, from_w):
                os.close(fd)
            self._fall_back(exc)
            return None
        os.close(to_r)
        os.close(from_w)
        self._process = process
        self._conn = (Connection(to_w, readable=False), Connection(from_r, writable=False))
        return self._conn

    def _fall_back(self, exc: BaseException) -> None:
        print(f"companion: the phone-loop worker stopped ({exc or type(exc).__name__}); "
              "decoding it in this process", file=sys.stderr)
        self.parallel = False
        self._stop()

    def _stop(self) -> None:
        conn, process, self._conn, self._process = self._conn, self._process, None, None
        self._done.clear()
        self._cpu_base = self.worker_cpu_s
        if conn is not None:
            for end in conn:
                end.close()
        if process is not None:
            try:
                process.wait(timeout=2.0)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def submit(self, pcm: bytes) -> Callable[[], list[Seg]]:
        """Start the phone loop on ``pcm`` (16-bit mono, 16,000 Hz); the
        returned function gives its best path (waiting for it if needed)."""
        with self._lock:
            conn = self._start()
            if conn is not None:
                self._tag += 1
                tag = self._tag
                try:
                    conn[0].send((tag, pcm))
                except OSError as exc:
                    self._fall_back(exc)
                    conn = None
        if conn is None:
            return lambda: self._decode_here(pcm)

        def result() -> list[Seg]:
            with self._lock:
                try:
                    while tag not in self._done:
                        if self._conn is not conn:
                            raise EOFError("the worker was replaced")
                        got, path, cpu_s, peak_mb = conn[1].recv()
                        self._done[got] = path
                        self.worker_cpu_s = self._cpu_base + cpu_s
                        self.worker_peak_mb = max(self.worker_peak_mb, peak_mb)
                    return self._done.pop(tag)
                except (EOFError, OSError) as exc:
                    if self._conn is conn:
                        self._fall_back(exc)
            return self._decode_here(pcm)

        return result

    def close(self) -> None:
        """Stop the worker process (a later decode starts a new one)."""
        with self._lock:
            self._stop()


_shared: PhoneLoop | None = None
_shared_lock = threading.Lock()


def shared() -> PhoneLoop:
    """The process's one ``PhoneLoop`` (parallel; made on first call, its
    worker stopped when this process exits)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = PhoneLoop()
            atexit.register(_shared.close)
        return _shared


if __name__ == "__main__":  # the worker: python -m companion.referee.phone_loop IN OUT
    # A terminal's Ctrl-C reaches the whole process group; the worker leaves
    # stopping to the companion, which ends it by closing the pipe.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _serve(Connection(int(sys.argv[1]), writable=False),
           Connection(int(sys.argv[2]), readable=False))
