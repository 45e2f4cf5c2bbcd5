"""The caller's own stretch of an utterance, from the beam and its
seat-masked copy (``companion.referee.stretch``). The sounds are noise
bursts standing for voices: what is tested is how the two hearings' powers
place the stretch; real rooms and voices are in tests/test_array_ear.py."""

from __future__ import annotations

import numpy as np
import pytest

from companion.referee.stretch import MARGIN_S, caller_stretch

RATE = 16000


def _burst(rng: np.random.Generator, start: float, end: float, seconds: float = 2.0,
           level: float = 3000.0) -> np.ndarray:
    out = np.zeros(round(seconds * RATE))
    out[round(start * RATE):round(end * RATE)] = rng.normal(0, level, round((end - start) * RATE))
    return out


def _hearings(talk: np.ndarray, call: np.ndarray, rng: np.random.Generator,
              talk_gain: float = 0.2) -> tuple[np.ndarray, np.ndarray]:
    """The beam (talk, call and hiss) and its masked copy (talk held to
    ``talk_gain``, the call whole)."""
    hiss = rng.normal(0, 30, len(talk))
    beam = np.round(talk + call + hiss).astype(np.int16)
    masked = np.round(talk_gain * talk + call + 0.5 * hiss).astype(np.int16)
    return beam, masked


def test_the_stretch_is_the_callers_voice_after_talk_from_another_seat() -> None:
    rng = np.random.default_rng(1)
    beam, masked = _hearings(_burst(rng, 0.0, 0.8), _burst(rng, 0.9, 1.4), rng)
    found = caller_stretch(beam, masked, RATE)
    assert found is not None
    start, end = found
    margin = MARGIN_S * RATE
    assert abs(start - (0.9 * RATE - margin)) <= 0.03 * RATE
    assert abs(end - (1.4 * RATE + margin)) <= 0.03 * RATE


def test_talk_after_the_call_is_cut_off_too() -> None:
    rng = np.random.default_rng(2)
    beam, masked = _hearings(_burst(rng, 0.7, 1.9), _burst(rng, 0.2, 0.65), rng)
    found = caller_stretch(beam, masked, RATE)
    assert found is not None
    assert found[1] <= round((0.65 + MARGIN_S) * RATE) + 0.03 * RATE


def test_no_stretch_when_every_loud_frame_is_the_callers() -> None:
    # The copy is the beam scaled alike everywhere: no other voice to cut away.
    rng = np.random.default_rng(3)
    beam, _ = _hearings(np.zeros(2 * RATE), _burst(rng, 0.5, 1.0), rng)
    assert caller_stretch(beam, np.round(beam * 0.5).astype(np.int16), RATE) is None


def test_no_stretch_longer_than_a_word() -> None:
    rng = np.random.default_rng(4)
    beam, masked = _hearings(_burst(rng, 0.0, 0.3, 3.0), _burst(rng, 0.4, 2.0, 3.0), rng)
    assert caller_stretch(beam, masked, RATE) is None


def test_hearings_of_other_lengths_are_refused() -> None:
    with pytest.raises(ValueError, match="1599 samples, not 1600"):
        caller_stretch(np.zeros(1600, np.int16), np.zeros(1599, np.int16), RATE)
