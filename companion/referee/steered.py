"""The array stage of the ear: steer at the expected speaker, tell who spoke.

``SteeredEar`` sits between a multi-channel microphone (or a multi-channel
recording) and the ``Listener``::

    ear = SteeredEar(seating, rate)
    ear.steer_at(game.speaker(state))            # before each call window
    mono, t_mono = ear.feed(block, t)             # (n, M) int16 -> beam, mono
    for heard in listener.feed(mono, t_mono, copy=ear.masked):
        for say in ear.says(heard):               # one per voice, its seat if sure
            table.submit(say)

The live table and ``companion replay`` use it alike. The beam is
``companion.referee.beam`` (MVDR, interference from the second before the
steer; ``masked``, the same samples with the seat mask, is the ear's second
hearing of an utterance the beam left unsure); the seat is
``companion.referee.seats`` (per-seat beam power rise at
a little before the first game word's start, and each later word's).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

import msgspec
import numpy as np
import numpy.typing as npt

from companion.audio.array import Seating
from companion.events import Say
from companion.referee.beam import Beamformer
from companion.referee.recognizer import Word
from companion.referee.seats import SeatEstimate, estimate_seat
from companion.referee.stream import Heard

WORD_LEAD_S = 0.1
"""Seconds before a word's start, as the recognizer places it, at which its
seat is measured. The recognizer may place a word's start after the
voice's; measured there, the voice's own beginning falls in the audio the
rise is measured from, and the rise shrinks. Chosen on the room simulation
of bench/roomsim.py (seeds 500-504, the dev speakers, both shipped arrays,
every condition, true onsets shifted by -0.1 to +0.15 s); the figures are
in bench/RESULTS.md, "Microphone arrays (issue 18)"."""


TURNS_KEPT = 64
"""Steers remembered for ``SteeredEar.expected_at`` (a Nasty 7 round of
13 flips several times over)."""


class SteeredEar:
    """A ``Beamformer`` and a seat estimate for one table's ``seating``, on
    audio at ``rate`` Hz with one channel per microphone (``channels``: which
    of the capture device's channels carry them, ``MicArray.channels``)."""

    def __init__(self, seating: Seating, rate: int,
                 channels: Sequence[int] | None = None) -> None:
        self.seating = seating
        self.beam = Beamformer(np.asarray(seating.positions), rate,
                               seats=list(seating.seats.values()))
        self.select = tuple(channels) if channels is not None else None
        self._turns: deque[tuple[float, str]] = deque(maxlen=TURNS_KEPT)

    @property
    def target(self) -> str | None:
        """The player the beam is steered at now (None before any steer)."""
        return self._turns[-1][1] if self._turns else None

    @property
    def masked(self) -> npt.NDArray[np.int16] | None:
        """The last ``feed``'s output with the seat mask (``Beamformer.masked``):
        int16 mono, as long as that output; None with fewer than two seats."""
        return self.beam.masked if len(self.seating.seats) > 1 else None

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
        # (the seats the mask tells apart: the live table may have learnt or
        # moved them since, ``seating`` replaced)
        self.beam.seats = np.asarray(list(self.seating.seats.values()), dtype=np.float64)
        self.beam.steer(self.seating.seats[player], now)
        self._turns.append((now if now is not None else self.beam.last_time() or 0.0, player))

    def expected_at(self, t: float) -> str | None:
        """The player steered at, at table time ``t`` seconds: whose turn it
        was then (an utterance is decided after it ends, when the turn may
        have moved on). None before the first steer that is still kept."""
        for since, player in reversed(self._turns):
            if since <= t:
                return player
        return None

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
        """Where the utterance starting at ``onset`` came from (None:
        unknown); the player steered at then is the one expected to speak."""
        return estimate_seat(self.beam, self.seating.seats, onset, self.expected_at(onset))

    def says(self, heard: Heard) -> list[Say]:
        """``heard`` as ``say`` events (at least one), each with its ``seat``
        when the estimate is sure. The seat is taken ``WORD_LEAD_S`` before
        the first game word's start, or before the utterance's onset when
        the recognizer starts the word earlier (without words, at the
        onset; in talk the onset is often the talk's). A later word surely
        from another seat than the words before it starts a new say at its
        own start (seconds, table clock): a player's word followed at once
        by the caller's (no pause the segmenter could end the utterance at)
        becomes two says, each with its speaker, instead of one with the
        first voice's seat. Each say keeps the utterance's confidence (its
        least confident word's: the decision gives all the words of an
        utterance judged against a call owed the same, and the recognizer's
        own confidence of a word no call was owed for is no sure word
        alone); a word whose seat is unsure stays with the words before it
        (a voice going on rises in no beam, so its later words rarely have
        a sure seat of their own). When the voice at the utterance's onset
        is surely from another seat than its first word, that voice is a
        say of its own with no words, and the first word's say starts at
        the word (``_opener``): the caller's onset is not the other
        player's. Words from a hearing that may be another player's voice
        (``Heard.unseated``) stand only when every one of them is surely
        from the seat of the player steered at, at the onset; otherwise the
        utterance is taken as it was judged without that hearing."""
        # (the recognizer may start the first word in the quiet before the
        # voice, where nothing rises yet)
        seats = [self._sure_seat(max(word.start, heard.sound_onset) - WORD_LEAD_S)
                 for word in heard.words]
        if heard.unseated is not None:
            caller = self.expected_at(heard.onset)
            if caller is None or not seats or any(seat != caller for seat in seats):
                return self.says(heard.unseated)
        say = heard.to_say()
        if not heard.words:
            return [self._seated(say, self.seat_of(heard.sound_onset))]
        groups: list[tuple[str | None, list[Word]]] = []
        for i, (word, seat) in enumerate(zip(heard.words, seats, strict=True)):
            if i == 0 or (seat is not None and seat != groups[-1][0]):
                groups.append((seat, [word]))
            else:
                groups[-1][1].append(word)
        out = []
        opener = self._opener(heard, groups[0][0])
        if opener is not None:
            out.append(msgspec.structs.replace(say, text="", confidence=0.0,
                                               end=heard.words[0].start, seat=opener))
        for k, (seat, words) in enumerate(groups):
            first, last = k == 0 and opener is None, k == len(groups) - 1
            out.append(Say(t=say.t if first else words[0].start,
                           text=" ".join(w.text for w in words),
                           confidence=say.confidence,
                           end=say.end if last else words[-1].end, seat=seat))
        return out

    def _sure_seat(self, at: float) -> str | None:
        """The player whose seat a voice at table time ``at`` surely came
        from (``seat_of``), or None when the estimate is unsure or unknown."""
        estimate = self.seat_of(at)
        return estimate.player if estimate is not None and estimate.sure else None

    def _opener(self, heard: Heard, first_seat: str | None) -> str | None:
        """The seat of the voice that opened ``heard`` when it is surely
        another than its first word's (``first_seat``, sure): another
        player's voice (a number said just before the caller's, no pause
        between) that the recognizer heard no game word in. None otherwise:
        the first word's say then starts at the utterance's onset."""
        start = heard.words[0].start
        if first_seat is None or start - WORD_LEAD_S <= heard.sound_onset:
            return None  # (the word's seat was taken at the onset itself)
        estimate = self.seat_of(heard.sound_onset)
        if estimate is None or not estimate.sure or estimate.player == first_seat:
            return None
        return estimate.player

    @staticmethod
    def _seated(say: Say, estimate: SeatEstimate | None) -> Say:
        if estimate is None or not estimate.sure:
            return say
        return msgspec.structs.replace(say, seat=estimate.player)
