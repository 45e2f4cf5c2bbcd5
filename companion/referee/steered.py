"""The array stage of the ear: steer at the expected speaker, tell who spoke.

``SteeredEar`` sits between a multi-channel microphone (or a multi-channel
recording) and the ``Listener``::

    ear = SteeredEar(seating, rate)
    ear.steer_at(game.speaker(state))            # before each call window
    mono, t_mono = ear.feed(block, t)             # (n, M) int16 -> beam, mono
    for heard in listener.feed(mono, t_mono):
        table.submit(ear.say(heard))              # the say, with its seat if sure

The live table and ``companion replay`` use it alike. The beam is
``companion.referee.beam`` (MVDR, interference from the second before the
steer); the seat is ``companion.referee.seats`` (per-seat beam power rise at
the utterance's onset).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from companion.audio.array import Seating
from companion.events import Say
from companion.referee.beam import Beamformer
from companion.referee.seats import SeatEstimate, estimate_seat
from companion.referee.stream import Heard


class SteeredEar:
    """A ``Beamformer`` and a seat estimate for one table's ``seating``, on
    audio at ``rate`` Hz with one channel per microphone (``channels``: which
    of the capture device's channels carry them, ``MicArray.channels``)."""

    def __init__(self, seating: Seating, rate: int,
                 channels: Sequence[int] | None = None) -> None:
        self.seating = seating
        self.beam = Beamformer(np.asarray(seating.positions), rate)
        self.target: str | None = None
        self.select = tuple(channels) if channels is not None else None

    @property
    def channels(self) -> int:
        """Channels a block must have: one per microphone."""
        return self.beam.mics

    def steer_at(self, player: str | None, now: float | None = None) -> None:
        """Listen toward ``player``'s seat from now on (table seconds ``now``;
        default the newest audio), against the interference heard in the
        second before. An unknown player or None leaves the beam as it is."""
        if player is None or player not in self.seating.seats:
            return
        self.beam.steer(self.seating.seats[player], now)
        self.target = player

    def feed(self, block: npt.ArrayLike, t: float | None = None
             ) -> tuple[npt.NDArray[np.int16], float | None]:
        """Multi-channel int16 ``(n, M)`` heard from ``t`` -> the beam's
        output so far (int16 mono) and the table time of its first sample.
        With ``channels`` given, the block may hold all the device's
        channels: those that carry the microphones are taken, in order."""
        x = np.asarray(block)
        if self.select is not None and x.ndim == 2 and x.shape[1] != self.beam.mics:
            if max(self.select) >= x.shape[1]:
                raise ValueError(f"the array needs channels {list(self.select)}; "
                                 f"the device gave {x.shape[1]}")
            x = x[:, self.select]
        return self.beam.process(x, t)

    def seat_of(self, onset: float) -> SeatEstimate | None:
        """Where the utterance starting at ``onset`` came from (None: unknown)."""
        return estimate_seat(self.beam, self.seating.seats, onset)

    def say(self, heard: Heard) -> Say:
        """``heard`` as a ``say`` event, with ``seat`` when the estimate is sure
        (taken at the first game word's start, else at the utterance's onset)."""
        say = heard.to_say()
        # The words' own start: in talk the utterance's onset is often the talk's.
        onset = heard.words[0].start if heard.words else heard.onset
        estimate = self.seat_of(onset)
        if estimate is None or not estimate.sure:
            return say
        return Say(t=say.t, text=say.text, confidence=say.confidence, end=say.end,
                   seat=estimate.player)
