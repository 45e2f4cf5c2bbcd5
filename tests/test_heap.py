"""``companion.referee.heap``: freed heap pages go back to the system (real
glibc, nothing mocked)."""

from __future__ import annotations

import platform

import pytest

from companion.referee import heap


def resident_mb() -> float:
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * 4096 / 2**20


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")
def test_pages_freed_below_a_live_block_go_back() -> None:
    """80 MB of 60 kB blocks (each below glibc's mmap threshold, so in the
    heap) freed under one block still alive stay resident: the heap cannot
    shrink past the live block. ``release`` returns them."""
    blocks = [bytearray(60_000) for _ in range(1400)]
    for b in blocks:
        b[::4096] = b"\x01" * len(b[::4096])  # touched: resident
    pinned = bytearray(60_000)
    del blocks
    before = resident_mb()
    assert heap.release()
    after = resident_mb()
    assert before - after > 40, (before, after)
    assert len(pinned) == 60_000
