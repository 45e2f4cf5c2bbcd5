"""Freed memory handed back to the system between utterances.

Each utterance the ear decodes builds arrays of a few MB (its cepstra against
every take, the DTW step costs, the recognizers' lattices) and frees them.
glibc's allocator keeps freed pages inside its heap for the next request,
and with the sizes of one utterance and the next never the same, those holes
add up over an evening into resident memory that holds nothing
(bench/RESULTS.md, "Peak memory of the ear"). ``release`` asks glibc to give
every free page back (``malloc_trim(0)``, glibc 2.8 and later, which also
returns free pages inside the heap, not only at its top); elsewhere (another
C library) it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
from typing import Any


@functools.cache
def _trim() -> Any:
    """glibc's ``malloc_trim``, or None where the C library has none."""
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        return ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):
        return None


def release() -> bool:
    """Give the allocator's free pages back to the system; whether the C
    library could (False where it has no ``malloc_trim``). Its CPU per
    utterance is measured in bench/RESULTS.md."""
    trim = _trim()
    if trim is None:
        return False
    trim(0)
    return True
