"""The caller's own stretch of an utterance, told apart by the seat mask.

In table talk an utterance the segmenter cuts often holds more than the
call: talk from other seats before it or after it, joined to it in one
stretch of sound, which the recognizer then decodes as several words (and
the decision takes as talk). With a microphone array the ear has two
hearings of every sample: the beam steered at the caller's seat, and its
seat-masked copy, where each frequency bin is scaled by the caller's share
of the power of beams at every seat (``companion.referee.beam``,
``Beamformer.masked``). The copy's power over the beam's, frame by frame,
is then the caller's share of the sound: high while the caller speaks, low
while another seat does.

``caller_stretch`` finds the run of frames around the loudest of the
caller's, so the ear can hear that stretch alone (``stream.Listener``'s
second hearing). It is the same cue the seat mask applies per bin, applied
to time: direction tells whose the sound is (Yilmaz and Rickard 2004).

Audio is 16-bit mono PCM; frames are 10 ms, their powers smoothed over
50 ms (``frame_power``).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

FRAME_S = 0.010
"""The frame the share is measured on, seconds."""

SHARE = 0.5
"""A frame is the caller's when its share (the copy's power over the
beam's) is at least this part of the utterance's largest share among its
loud frames. Chosen on the room simulation's dev seeds (bench/roomsim.py,
seeds 500-504, the dev speakers): 0.35 ruled fewer calls right, 0.65 two
more but took two more wrong calls as right (bench/RESULTS.md, "The
caller's own stretch"). The other settings here are the first tried."""

LOUD_DB = 6.0
"""A loud frame stands this many dB over the quietest tenth of the
utterance's frames ..."""

RANGE_DB = 25.0
"""... and within this many dB of its loudest frame."""

BRIDGE_S = 0.1
"""Frames not the caller's for less than this (seconds) inside the stretch
do not end it (the stop of "two", the gap in "six")."""

MARGIN_S = 0.1
"""The stretch is widened by this many seconds each side (a word's weak
edges fall under the loud frames' bar)."""

SHORTEST_S, LONGEST_S = 0.15, 1.2
"""No stretch shorter or longer than these, seconds: no count word is that
short, and a word that long is talk (as ``stream.SPOT_MIN_S``,
``SPOT_MAX_S``)."""

MOST = 0.8
"""A stretch longer than this part of the utterance is not cut out: the
whole was heard already."""


def frame_power(pcm: npt.NDArray[np.int16], rate: int) -> npt.NDArray[np.float64]:
    """Mean power of each whole 10 ms frame of ``pcm`` (``rate`` in Hz),
    smoothed over 50 ms; an incomplete last frame is left out. (The ear's
    level measures in ``companion.referee.stream`` use it too.)"""
    frame = round(FRAME_S * rate)
    x = pcm[:len(pcm) // frame * frame].astype(np.float64).reshape(-1, frame)
    return np.convolve(np.mean(x * x, axis=1), np.ones(5) / 5, mode="same")


def _loud(power: npt.NDArray[np.float64]) -> npt.NDArray[np.bool_]:
    """Which frames are loud (``LOUD_DB``, ``RANGE_DB``)."""
    bar = max(float(np.percentile(power, 10)) * 10 ** (LOUD_DB / 10),
              float(power.max()) * 10 ** (-RANGE_DB / 10))
    return power >= bar


def caller_stretch(beam: npt.NDArray[np.int16], masked: npt.NDArray[np.int16],
                   rate: int) -> tuple[int, int] | None:
    """The caller's stretch of an utterance heard by the ``beam`` and in its
    seat-masked copy ``masked`` (as many samples, ``rate`` Hz): sample
    indexes ``(start, end)`` into both, widened by ``MARGIN_S``. The
    stretch is the run of the caller's frames (``SHARE``) around the
    copy's loudest such frame, bridged over ``BRIDGE_S`` gaps. None when
    the utterance holds no loud sound that is not the caller's (nothing to
    cut away but silence), the utterance is shorter than twice
    ``SHORTEST_S``, or the run is shorter than ``SHORTEST_S``, longer than
    ``LONGEST_S`` or ``MOST`` of the utterance. Raises
    ``ValueError`` when the two differ in length."""
    if len(beam) != len(masked):
        raise ValueError(f"the masked copy has {len(masked)} samples, not {len(beam)}")
    pb, pm = frame_power(beam, rate), frame_power(masked, rate)
    if len(pb) < 2 * round(SHORTEST_S / FRAME_S):
        return None
    share = pm / (pb + 1e-9)
    heard, loud = _loud(pb), _loud(pm)
    if not loud.any():
        return None
    bar = SHARE * float(share[loud].max())
    caller = loud & (share >= bar)
    if not (heard & (share < bar)).any():
        return None  # every loud frame is the caller's: nothing to cut
    peak = int(np.argmax(np.where(caller, pm, 0.0)))
    # The caller's frames, split where more than a bridge of others lies between.
    at = np.flatnonzero(caller)
    runs = np.split(at, np.flatnonzero(np.diff(at) > round(BRIDGE_S / FRAME_S)) + 1)
    run = next(r for r in runs if r[0] <= peak <= r[-1])
    first, last = int(run[0]), int(run[-1])
    frames = last - first + 1
    if not (SHORTEST_S <= frames * FRAME_S <= LONGEST_S) or frames > MOST * len(pb):
        return None
    frame, margin = round(FRAME_S * rate), round(MARGIN_S * rate)
    return max(0, first * frame - margin), min(len(beam), (last + 1) * frame + margin)
