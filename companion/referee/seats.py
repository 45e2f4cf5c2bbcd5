"""Who spoke: the seat an utterance came from, heard by the array.

For an utterance with onset ``t``, an MVDR beam (``companion.referee.beam``)
is steered at every seat with the interference of the ``BEFORE_S`` seconds
before the onset, and the power of each beam over the ``AFTER_S`` seconds
from the onset is compared with its power before: the seat whose beam rose
most is the speaker's. Talk that went on through the onset rises in no beam;
a new voice rises most in the beam toward it, which passes it unchanged,
while the beams toward other seats are held to the old level by their nulls.
Each frequency bin's rise (dB) counts alike, so the high bins, where a small
array is most directive, are not drowned by the loud low ones.

``confidence`` is the margin between the best seat's rise and the next
one's, in dB, over ``SURE_DB`` (capped at 1): a scale, not a probability.
Only a seat estimate at least ``SURE_DB`` ahead is given to the engines
(``SeatEstimate.sure``); a closer call says nothing about the seat.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from companion.referee.beam import (
    Beamformer,
    apply_weights,
    covariance,
    mvdr_weights,
    steering_vectors,
)

BEFORE_S = 1.0
"""Seconds before the onset: the interference the beams are steered
against, and the level each beam's rise is measured from."""

GAP_S = 0.05
"""Seconds just before the onset left out of the 'before' audio (the onset
is known to about a frame)."""

AFTER_S = 0.5
"""Seconds from the onset over which each beam's power is measured (a call
word is 0.3-0.6 s)."""

SURE_DB = 1.5
"""A seat is given only when its rise beats every other seat's by this many
dB (chosen on the room simulation of bench/roomsim.py, seeds 500-504, the
dev speakers: the margins measured are in bench/RESULTS.md)."""


@dataclass(frozen=True)
class SeatEstimate:
    """The seat an utterance came from. ``player``: the best seat's player.
    ``confidence``: 0..1, the margin over the next seat on the ``SURE_DB``
    scale. ``rises``: per player, the beam's power rise at the onset, dB."""

    player: str
    confidence: float
    rises: Mapping[str, float]

    @property
    def sure(self) -> bool:
        """Whether the margin reaches ``SURE_DB``."""
        return self.confidence >= 1.0


def estimate_seat(beam: Beamformer, seats: Mapping[str, float], onset: float
                  ) -> SeatEstimate | None:
    """The seat of the utterance starting at ``onset`` (table seconds), from
    the frames ``beam`` kept, for ``seats`` (player -> azimuth in degrees).
    None when the frames around the onset are no longer (or not yet) kept,
    or fewer than two seats are known."""
    if len(seats) < 2:
        return None
    before = beam.recent(onset - BEFORE_S, onset - GAP_S)
    after = beam.recent(onset, onset + AFTER_S)
    if len(before.spectra) < 4 or len(after.spectra) < 2:
        return None
    band = beam.band
    pre, post = before.spectra[:, band], after.spectra[:, band]
    names = list(seats)
    d = steering_vectors(beam.positions, [seats[n] for n in names], beam.freqs[band])
    weights = mvdr_weights(covariance(pre), d)  # (S, F, M)
    rises: dict[str, float] = {}
    for name, w in zip(names, weights, strict=True):
        p0 = np.mean(np.abs(apply_weights(w, pre)) ** 2, axis=0) + 1e-12  # per bin
        p1 = np.mean(np.abs(apply_weights(w, post)) ** 2, axis=0) + 1e-12
        rises[name] = float(np.mean(10 * np.log10(p1 / p0)))  # each bin counts alike
    order = sorted(names, key=lambda n: rises[n], reverse=True)
    margin = rises[order[0]] - rises[order[1]]
    return SeatEstimate(player=order[0], confidence=min(1.0, max(0.0, margin / SURE_DB)),
                        rises=rises)


LOCATE_STEP_DEG = 5.0
"""Azimuth grid, degrees, on which ``locate`` looks for a voice."""


def locate(beam: Beamformer, onset: float, step_deg: float = LOCATE_STEP_DEG) -> float | None:
    """The azimuth (degrees, counter-clockwise from x) of the voice starting
    at ``onset``: the direction on a ``step_deg`` grid whose beam rose most
    (as ``estimate_seat``, every direction a candidate seat). Used at setup,
    when each player in turn speaks. None when the frames are not kept."""
    grid = {f"{a:g}": float(a) for a in np.arange(0.0, 360.0, step_deg)}
    found = estimate_seat(beam, grid, onset)
    return None if found is None else grid[found.player]
