"""The table: one ordered stream of events, logged, then applied.

Inputs (buttons, the page, the recognizer, timer ticks) all call
``Table.submit``. Under one lock, the event is checked against the engine,
appended to the SQLite log, and only then made the new state; listeners (the
voice, the LEDs, the page) are told of the rulings after the lock is released.
An event the engine refuses is neither logged nor applied: the state is
untouched and the caller gets the ``EventError``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from companion.events import Event
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
        for obj in store.event_objects(game_id):
            event = game.parse_event(obj)
            table.rulings.extend(table.match.apply(event))
            table._seq += 1
        return table

    def subscribe(self, listener: Listener) -> None:
        """Call ``listener`` after every applied event."""
        self._listeners.append(listener)

    def submit(self, event: Event) -> list[Ruling]:
        """Log and apply one event; return its rulings.

        Raises ``EventError`` (state and log untouched) if the engine refuses
        the event, ``StoreError`` if the log cannot be written (state untouched)."""
        with self._lock:
            trial = self.match.copy()
            rulings = trial.apply(event)
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
        """The current state as JSON-able builtins, with the game and players."""
        with self._lock:
            return {"game_id": self.game_id, "game": self.game.name,
                    "players": list(self.game.players), "clock": self.match.clock,
                    "winner": self.match.winner, "state": self.game.view(self.match.state)}
