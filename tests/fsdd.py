"""FSDD takes of ``../shared/human-calls`` for tests: where the recordings
are (beside the checkout, as in CI, or beside its worktree folder) and one
take read at the recognizer's rate."""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np
import pytest
import soxr

REPO = Path(__file__).resolve().parents[1]
FSDD = next((p for p in (REPO / ".." / "shared" / "human-calls" / "raw" / "fsdd",
                         REPO / ".." / ".." / "shared" / "human-calls" / "raw" / "fsdd")
             if p.is_dir()), REPO / ".." / "shared" / "human-calls" / "raw" / "fsdd")
RATE = 16000
"""Hz: the rate takes are given at (the recognizer's and the templates')."""

needs_fsdd = pytest.mark.skipif(not FSDD.is_dir(), reason="../shared/human-calls is not here")


def take(digit: int, voice: str, k: int, pad_s: float = 0.0) -> np.ndarray:
    """FSDD take ``k`` of ``voice`` saying ``digit``, int16 at ``RATE``, with
    ``pad_s`` seconds of digital silence added each side before resampling."""
    with wave.open(str(FSDD / f"{digit}_{voice}_{k}.wav"), "rb") as wf:
        pcm = np.frombuffer(wf.readframes(wf.getnframes()), dtype=np.int16)
        rate = wf.getframerate()
    pad = np.zeros(round(pad_s * rate), dtype=np.int16)
    return soxr.resample(np.concatenate([pad, pcm, pad]), rate, RATE).astype(np.int16)
