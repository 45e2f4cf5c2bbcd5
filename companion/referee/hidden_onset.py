"""The start of a word that a steady noise floor hides, found from the caller's takes.

Over a steady floor (a fan, a hiss) the segmenter finds a call where its
level first stands clearly over the floor. In "three", "two" and "six"
that is the vowel: the soft sound before it (the th, the t and its breath,
the s) is quieter than the noise, and the onset comes late by as much
(bench/RESULTS.md, "Measured, nothing changed: where the onset errors come
from"). The 3-second rule counts from the word's start.

The caller's own takes of the word heard, recorded at setup in a quiet
room, show how much of the word comes before the point where, said as loud
as the call, it would first stand ``SHOWS_DB`` over this floor: the onset
is moved back by that much (``hidden_lead``, the median over the takes).
In a quiet room nothing moves, since the word stands over the floor from
its start.

Audio is 16-bit mono PCM; levels are powers (mean square, int16 scale) of
10 ms frames.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

FRAME_S = 0.010
"""The frame levels are measured on, seconds."""

START_DB = 25.0
"""A take starts at its first frame within this many dB of its loudest:
where the ear finds a word's onset in a quiet room
(``stream.WORD_ONSET_DB``)."""

SHOWS_DB = 6.0
"""A frame of the call shows over the floor when the call's power and the
floor's together stand this many dB above the floor's. Chosen on the
human development split in white noise at 10 dB, where the segmenter's
onsets were measured against the words' starts (bench/RESULTS.md, "The
start of a word the hiss hides")."""

LONGEST_S = 0.25
"""The onset is never moved back by more than this, seconds. In the
development speakers' takes (3 each of 10 words), a word runs at most
0.14 s from its start to its first frame within 15 dB of its loudest,
but for one "three" (0.29 s)."""


def frame_powers(pcm: npt.ArrayLike, rate: int) -> npt.NDArray[np.float64]:
    """Mean square of each whole 10 ms frame of ``pcm`` (mono samples,
    16-bit scale, at ``rate`` Hz), shape ``(frames,)``."""
    x = np.asarray(pcm, dtype=np.float64).reshape(-1)
    n = round(FRAME_S * rate)
    count = len(x) // n
    return np.mean(x[:count * n].reshape(count, n) ** 2, axis=1)


def hidden_lead(takes: Sequence[npt.ArrayLike], peak: float, floor: float, rate: int) -> float:
    """Seconds of a word said before it first shows over a steady floor.

    Per take (mono samples at the takes' own ``rate``, Hz), scaled so its
    loudest frame has the call's power ``peak`` (over the floor; mean
    square, int16 scale): the time from its start (``START_DB``) to its
    first frame that, with the floor's power ``floor`` added, stands
    ``SHOWS_DB`` over the floor (0 for a take that would never show). The
    median over the takes, at most ``LONGEST_S``; 0.0 with no take a whole
    frame long, or a ``peak`` or ``floor`` not above zero."""
    if peak <= 0.0 or floor <= 0.0:
        return 0.0
    shows = floor * (10 ** (SHOWS_DB / 10) - 1.0)
    leads: list[float] = []
    for take in takes:
        power = frame_powers(take, rate)
        if not len(power) or power.max() <= 0.0:
            continue
        start = int(np.argmax(power >= power.max() * 10 ** (-START_DB / 10)))
        scaled = power[start:] * (peak / power.max())
        above = np.flatnonzero(scaled >= shows)
        leads.append(float(above[0]) * FRAME_S if len(above) else 0.0)
    if not leads:
        return 0.0
    return min(LONGEST_S, float(np.median(leads)))
