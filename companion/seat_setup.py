"""Learning where the players sit around a microphone array, at setup.

The page asks each player in turn to say their name (or "here");
``SeatSetup.listen(player)`` makes the live table take the next utterance's
direction (``companion.referee.seats.locate``) as that player's azimuth
(``heard``). A player can also drag their seat on the page (``place``).
The seats, with the array's microphone positions, are stored in the header
of the game in play (``Store.set_header_fields``), so ``companion replay
--game`` steers the same way.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable

from companion.audio.array import ArrayError, Positions, Seating


class SeatSetup:
    """Seat azimuths (degrees, counter-clockwise from x) for an array with
    microphones at ``positions``. ``on_change(seating)`` is called with every
    player's seat once they change (to store them with the game)."""

    def __init__(self, positions: Positions,
                 on_change: Callable[[dict[str, float]], None] | None = None) -> None:
        self.positions = positions
        self.seats: dict[str, float] = {}
        self.listening: str | None = None
        self.on_change = on_change
        self._lock = threading.Lock()

    def listen(self, player: str | None) -> None:
        """Take the next voice heard as ``player``'s seat (None: stop)."""
        with self._lock:
            self.listening = player

    def heard(self, azimuth: float) -> str | None:
        """A voice came from ``azimuth`` degrees: the listened-for player's
        seat, who is returned (None if nobody was listened for)."""
        with self._lock:
            player, self.listening = self.listening, None
        if player is not None:
            self.place(player, azimuth)
        return player

    def place(self, player: str, azimuth: float) -> None:
        """Put ``player`` at ``azimuth`` degrees. Raises ``ArrayError`` for a
        non-finite azimuth."""
        if not isinstance(azimuth, int | float) or isinstance(azimuth, bool) \
                or not math.isfinite(azimuth):
            raise ArrayError(f"azimuth must be degrees, not {azimuth!r}", field="azimuth")
        with self._lock:
            self.seats[player] = round(float(azimuth) % 360.0, 1)
            seats = dict(self.seats)
        if self.on_change is not None:
            self.on_change(seats)

    def seating(self, players: list[str]) -> Seating:
        """The array and the seats known of ``players`` (those not yet
        placed are left out: the ear does not steer at them)."""
        with self._lock:
            return Seating(positions=self.positions,
                           seats={p: self.seats[p] for p in players if p in self.seats})
