"""The running companion: the event log, the table in play, and its listeners.

One ``Hub`` lives in the ``companion run`` process. The board, the microphone,
the voice and the control page all share it: inputs call ``hub.submit``,
outputs ``hub.subscribe``. Starting a new game (from the page's setup) swaps
the table; listeners stay subscribed across games.

The table clock (``Hub.now``) is the process's clock (``time.monotonic`` unless
injected) plus an offset set when a game becomes the table in play: zero for
a new game, and for a resumed one whatever makes the clock continue from the
game's last logged event. The stored times come from an earlier process,
perhaps an earlier boot whose monotonic clock had run far longer (or far
less) than this one's; without the offset a resumed game would refuse or hold
back every event until this process's clock caught up with the log.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from companion.errors import IllegalEventError
from companion.events import Event
from companion.games import game_class, make_game
from companion.rulings import Ruling
from companion.store import Store
from companion.table import Table
from companion.voice.pack import VoicePack, load_pack

HubListener = Callable[[Table, Event | None, list[Ruling]], None]
"""Called with the table, the event (None when a game starts) and its rulings."""

NOTICES_KEPT = 20
"""Notices the hub remembers for the page's log (the newest are kept)."""


SEED_BITS = 31
"""Bits of operating-system randomness in a seed the companion picks."""


def with_seed(game: str, options: Mapping[str, Any] | None) -> dict[str, Any]:
    """``options`` with ``seed`` set from ``secrets`` when the game has a
    ``seed`` option and it is absent or null; otherwise unchanged. Raises
    ``UnknownGameError`` for an unknown game."""
    out = dict(options or {})
    fields = getattr(game_class(game).options_type, "__struct_fields__", ())
    if "seed" in fields and out.get("seed") is None:
        out["seed"] = secrets.randbits(SEED_BITS)
    return out


class Hub:
    """The companion's shared state. ``pack``: the voice pack in use.
    ``clock``: the process's clock, seconds (``time.monotonic`` by default);
    the table clock is ``clock() + offset`` (see the module docstring)."""

    def __init__(self, store: Store, pack: VoicePack | None = None, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        self.pack = pack or load_pack("en")
        self.clock = clock
        self.offset = 0.0
        self.table: Table | None = None
        self._listeners: list[HubListener] = []
        self._notice_listeners: list[Callable[[], None]] = []
        self.notices: deque[tuple[float, str]] = deque(maxlen=NOTICES_KEPT)
        self._lock = threading.Lock()

    def notice(self, text: str, t: float | None = None) -> None:
        """Tell the page what the terminal says (a press with no card tapped,
        the microphone unplugged, speech checking off): kept in ``notices``
        as ``(t, text)``, ``t`` in seconds on the table clock (``now()`` when
        the hub has one, else ``time.monotonic()``), and every notice
        listener is called."""
        if t is None:
            clock = getattr(self, "now", None)
            t = float(clock()) if callable(clock) else time.monotonic()
        self.notices.append((t, text))
        for listener in list(self._notice_listeners):
            listener()

    def subscribe_notices(self, listener: Callable[[], None]) -> None:
        """Call ``listener`` (no arguments) after every ``notice``."""
        self._notice_listeners.append(listener)

    def subscribe(self, listener: HubListener) -> None:
        """Tell ``listener`` of every game started and every event applied."""
        self._listeners.append(listener)

    def _relay(self, table: Table, event: Event, rulings: list[Ruling]) -> None:
        for listener in list(self._listeners):
            listener(table, event, rulings)

    def now(self) -> float:
        """The table clock: seconds, never earlier than the table's last event
        when the game was installed."""
        return self.clock() + self.offset

    def to_table(self, t: float) -> float:
        """A time on the process's clock (a button edge, a sample) on the table clock."""
        return t + self.offset

    def _install(self, table: Table) -> Table:
        with self._lock:
            # A resumed game's clock goes on from its last event; a new game's
            # clock is the process's own.
            self.offset = table.match.clock - self.clock() if table.events else 0.0
            self.table = table
        table.subscribe(self._relay)
        for listener in list(self._listeners):
            listener(table, None, [])
        return table

    def new_game(self, game: str, players: Sequence[str],
                 options: Mapping[str, Any] | None = None) -> Table:
        """Start a new game (it becomes the table in play). A game with a
        ``seed`` option not given (absent or null) gets one from the operating
        system's randomness (``with_seed``); the header stores it, so
        ``companion replay --game`` deals the same cards. Raises
        ``UnknownGameError``, ``IllegalEventError`` (players) or ``OptionError``."""
        engine = make_game(game, players, with_seed(game, options), lexicon=self.pack.lexicon)
        return self._install(Table.new(self.store, engine))

    def resume(self, game_id: int) -> Table:
        """Make a stored game the table in play, rebuilt from its log."""
        return self._install(Table.resume(self.store, game_id, lexicon=self.pack.lexicon))

    def submit(self, event: Event) -> list[Ruling]:
        """Apply an event to the table in play. Raises ``IllegalEventError``
        when no game is set up, and whatever ``Table.submit`` raises."""
        table = self.table
        if table is None:
            raise IllegalEventError("no game is set up yet")
        return table.submit(event)
