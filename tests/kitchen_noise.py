"""The real kitchen noise of ``../shared/human-calls`` for tests, read as the
human set's generator (``bench/humanset.py``) reads it."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from fsdd import RATE

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import humanset

KITCHEN = humanset.DEFAULT_RAW / "talk" / "kitchen.wav"
needs_kitchen = pytest.mark.skipif(
    not KITCHEN.is_file() or not (humanset.DEFAULT_RAW / "fsdd").is_dir(),
    reason="no human-calls raw material here")


def kitchen(seconds: float) -> np.ndarray:
    """The first ``seconds`` of the kitchen noise's development half, int16
    at ``RATE`` (as the human set's generator reads it)."""
    x = humanset.Raw(humanset.DEFAULT_RAW).kitchen("dev")[:round(seconds * RATE)]
    return np.clip(np.rint(x * 32768.0), -32768, 32767).astype(np.int16)
