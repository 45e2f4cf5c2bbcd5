"""The table: one ordered stream of events, logged, then applied.

Inputs (buttons, the page, the recognizer, timer ticks) all call
``Table.submit``. Under one lock, the event is checked against the engine,
appended to the SQLite log, and only then made the new state; listeners (the
voice, the LEDs, the page) are told of the rulings after the lock is released.
An event the engine refuses is neither logged nor applied: the state is
untouched and the caller gets the ``EventError``.

Time passing is not an event: a ``tick`` is logged and applied only when it
changes the game (a deadline fired, ``Game.deadline``); one that would change
nothing but the state's time is dropped, so the state stays the fold of the
log. Logs written before this rule hold a tick every tenth of a second; they
still resume exactly, and quickly: a tick that cannot fire a deadline and is
followed by another event changes nothing that event does not overwrite, so
``Table.resume`` steps over it without running the engine.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import msgspec

from companion.events import Event, Tick
from companion.games import make_game
from companion.games.base import Game, Match
from companion.games.lexicon import ENGLISH, Lexicon
from companion.rulings import Ruling
from companion.store import Store

Listener = Callable[["Table", Event, list[Ruling]], None]
"""Called after each applied event with the table, the event and its rulings."""


class Table:
    """A game in play, backed by the event log.

    Use ``Table.new`` to start a game or ``Table.resume`` to rebuild one from
    the log (the fold of its events)."""

    def __init__(self, store: Store, game_id: int, game: Game[Any]) -> None:
        self.store = store
        self.game_id = game_id
        self.game = game
        self.match: Match[Any] = Match(game)
        self.rulings: list[Ruling] = []
        self._seq = 0
        self._lock = threading.RLock()
        self._listeners: list[Listener] = []

    @classmethod
    def new(cls, store: Store, game: Game[Any]) -> Table:
        """Start a new game and store its header."""
        return cls(store, store.new_game(game.header()), game)

    @classmethod
    def resume(cls, store: Store, game_id: int, *, lexicon: Lexicon = ENGLISH) -> Table:
        """Rebuild a stored game by folding its log. Raises ``UnknownStoredGameError``."""
        header = store.header(game_id)
        game = make_game(header["game"], header["players"], header.get("options"),
                         lexicon=lexicon)
        table = cls(store, game_id, game)
        objects = list(store.event_objects(game_id))
        last = len(objects) - 1
        match = table.match
        deadline = game.deadline(match.state)  # changes only when an event is applied
        for i, obj in enumerate(objects):
            table._seq += 1
            if i < last and obj.get("type") == "tick" and len(obj) == 2:
                t = obj.get("t")
                # Idle: not before the match (it would be refused), before the
                # pending deadline if any (a tick at the deadline is applied).
                if isinstance(t, float | int) and not isinstance(t, bool) and \
                        match.clock <= t and (deadline is None or t < deadline):
                    continue
            table.rulings.extend(match.apply(game.parse_event(obj)))
            deadline = game.deadline(match.state)
        return table

    @property
    def events(self) -> int:
        """How many events the log holds for this game."""
        return self._seq

    def subscribe(self, listener: Listener) -> None:
        """Call ``listener`` after every applied event."""
        self._listeners.append(listener)

    def submit(self, event: Event) -> list[Ruling]:
        """Log and apply one event; return its rulings. A ``tick`` that would
        change nothing but the time is neither logged nor applied (and no
        listener is told): it returns no rulings.

        Raises ``EventError`` (state and log untouched) if the engine refuses
        the event, ``StoreError`` if the log cannot be written (state untouched)."""
        with self._lock:
            trial = self.match.copy()
            rulings = trial.apply(event)
            if isinstance(event, Tick) and not rulings and \
                    not _changed_beyond_time(self.match.state, trial.state):
                return []  # only time passed: not an event, nothing to log
            self.store.append(self.game_id, self._seq, event)
            self._seq += 1
            self.match = trial
            self.rulings.extend(rulings)
            winner = self.match.winner
            if winner is not None or event.type == "undo":
                self.store.set_winner(self.game_id, winner)
            listeners = list(self._listeners)
        for listener in listeners:
            listener(self, event, rulings)
        return rulings

    def logged_event(self, kind: str, t: float) -> dict[str, Any] | None:
        """The last logged event of type ``kind`` at time ``t`` (seconds on
        the table clock), as its JSON object; None if the log has none. An
        ``undone`` ruling names its event this way (``what``, ``at``), and
        the page and the voice say it in words."""
        found = None
        for body in self.store.event_objects(self.game_id):
            if body.get("type") == kind and body.get("t") == t:
                found = body
        return found

    @property
    def state(self) -> Any:
        """The current state (immutable; safe to read from any thread)."""
        return self.match.state

    def view(self) -> dict[str, Any]:
        """The current state as JSON-able builtins, with the game and players.

        ``clock``: the time of the last event; ``deadline``: when the pending
        timeout fires (``Game.deadline``), both seconds on the table clock."""
        with self._lock:
            state = self.match.state
            return {"game_id": self.game_id, "game": self.game.name,
                    "players": list(self.game.players), "clock": self.match.clock,
                    "deadline": self.game.deadline(state),
                    "winner": self.match.winner, "state": self.game.view(state)}


def _changed_beyond_time(before: Any, after: Any) -> bool:
    """Whether two states differ in more than their time ``t`` (if they have one)."""
    if before is after:
        return False
    if isinstance(after, msgspec.Struct) and "t" in after.__struct_fields__:
        after = msgspec.structs.replace(after, t=getattr(before, "t", after.t))
    return bool(after != before)

