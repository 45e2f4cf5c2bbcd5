"""The countdown caller: the shell half of Finger Guns' simultaneous rounds.

The engine only rules ``countdown`` (round, step, pick); this listener on the
``Hub`` then does what a person at the table would: says the beats ("three",
"two", "one", the count words of the voice pack's lexicon), lights the LEDs on
each beat, and when the count is over submits the ``lock`` event that makes
the step's picks final. So the lock time is the table clock's, not a tap on a
phone.

Speech and LEDs are injected (``say``: e.g. ``Speaker.say``; ``leds``: e.g. a
function lighting every player's LED on a beat and clearing them at the lock),
so the caller runs the same with a real speaker and board, with mock pins, or
with neither. One worker thread per countdown; a countdown is cancelled when
the table changes game or the countdown itself is undone (an undone pick
during the count leaves it running).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from companion.errors import EventError
from companion.events import Event
from companion.games.finger_guns import Countdown, Lock
from companion.hub import Hub
from companion.rulings import Ruling
from companion.table import Table

log = logging.getLogger(__name__)

BEATS = 3
"""Beats in one countdown: three, two, one."""

BEAT_SECONDS = 1.0
"""Seconds between beats (and from the last beat to the lock)."""


class CountdownCaller:
    """Calls each Finger Guns countdown aloud and locks it when it ends.

    ``hub``: the table to listen to and submit ``lock`` to. ``say``: speaks one
    word (default: nothing). ``leds``: called with True on each beat and False
    at the lock (default: nothing). ``beat``: seconds per beat (default
    ``BEAT_SECONDS``). ``clock``: the table clock (default ``hub.now``, which
    goes on from a resumed game's last event).
    """

    def __init__(self, hub: Hub, *, say: Callable[[str], Any] | None = None,
                 leds: Callable[[bool], Any] | None = None, beat: float = BEAT_SECONDS,
                 clock: Callable[[], float] | None = None) -> None:
        if beat <= 0:
            raise ValueError(f"beat must be a positive number of seconds, not {beat!r}")
        self.hub = hub
        self.say = say or (lambda word: None)
        self.leds = leds or (lambda on: None)
        self.beat = beat
        self.clock = clock or hub.now
        self.locks: list[Ruling] = []
        self._cancel = threading.Event()
        self._worker: threading.Thread | None = None
        self._guard = threading.Lock()
        hub.subscribe(self._heard)

    def words(self) -> list[str]:
        """The beats as the voice pack says them: ``three``, ``two``, ``one``."""
        lexicon = self.hub.pack.lexicon
        return [lexicon.number_word(n) for n in range(BEATS, 0, -1)]

    def _heard(self, table: Table, event: Event | None, rulings: list[Ruling]) -> None:
        if event is None:  # a new game
            self.cancel()
        elif event.type == "undo" and not getattr(table.state, "counting", False):
            self.cancel()  # the countdown itself was undone
        for ruling in rulings:
            if isinstance(ruling, Countdown):
                self._start(table, ruling)

    def _start(self, table: Table, ruling: Countdown) -> None:
        with self._guard:
            self.cancel()
            self._cancel = threading.Event()
            worker = threading.Thread(target=self._run, args=(table, ruling, self._cancel),
                                      name="companion-countdown", daemon=True)
            self._worker = worker
        worker.start()

    def _run(self, table: Table, ruling: Countdown, cancel: threading.Event) -> None:
        for word in self.words():
            if cancel.is_set():
                return
            self.leds(True)
            self.say(word)
            if cancel.wait(self.beat):
                self.leds(False)
                return
        self.leds(False)
        if self.hub.table is not table:
            return
        try:
            self.locks.extend(self.hub.submit(Lock(t=max(self.clock(), table.match.clock))))
        except EventError as exc:  # locked by hand already, or the game moved on
            log.info("countdown of round %s step %s not locked: %s", ruling.round,
                     ruling.step, exc)

    def cancel(self) -> None:
        """Stop the countdown in progress, if any (no lock is submitted)."""
        self._cancel.set()

    def join(self, timeout: float | None = None) -> None:
        """Wait for the countdown in progress to end (for tests and shutdown)."""
        worker = self._worker
        if worker is not None and worker is not threading.current_thread():
            worker.join(timeout)
