"""The event log: every game's header and events in one SQLite file.

The log is the truth: a game's state is the fold of its events (``Match``).
The file uses WAL journaling with ``synchronous=FULL``, so an event that
``append`` returned from survives a power cut. One ``Store`` may be shared by
threads; writes are serialised by a lock.

A new log file is created with mode 0600 (owner only).

Default location: ``$COMPANION_DB``, else
``$XDG_DATA_HOME/companion/companion.sqlite3`` (``~/.local/share`` when unset).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from companion.errors import StoreError, UnknownStoredGameError
from companion.events import Event

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    header TEXT NOT NULL,
    created REAL NOT NULL,
    winner TEXT
);
CREATE TABLE IF NOT EXISTS events (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    t REAL NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
"""


def default_path() -> Path:
    """Where the log lives unless told otherwise (see the module docstring)."""
    if env := os.environ.get("COMPANION_DB"):
        return Path(env)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "companion" / "companion.sqlite3"


def state_dir(db: Path | str | None = None) -> Path:
    """The companion's state directory (the table PIN, the page's secret
    key, the players' enrolled voices): ``$STATE_DIRECTORY`` (systemd's
    ``StateDirectory=``), else the folder of the event log ``db`` (default
    ``default_path()``)."""
    env = os.environ.get("STATE_DIRECTORY", "").split(":")[0]
    if env:
        return Path(env)
    return Path(db).parent if db is not None else default_path().parent


@dataclass(frozen=True)
class StoredGame:
    """One row of ``companion games``. ``created``: wall-clock seconds since the epoch."""

    id: int
    game: str
    players: list[str]
    created: float
    events: int
    winner: str | None
    header: dict[str, Any]


class Store:
    """The SQLite event log at ``path`` (created with its folder if missing).

    Raises ``StoreError`` (an ``OSError``) if the file cannot be opened."""

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else default_path()
        self._lock = threading.Lock()
        try:
            if str(self.path) != ":memory:":
                self.path.parent.mkdir(parents=True, exist_ok=True)
                # Created readable by its owner only; SQLite gives its -wal and
                # -shm files the mode of the database file.
                with contextlib.suppress(FileExistsError):  # an existing log keeps its mode
                    os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
            self._db = sqlite3.connect(str(self.path), check_same_thread=False,
                                       isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(SCHEMA)
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"cannot open the event log {str(self.path)!r}: {exc}") from None

    def close(self) -> None:
        """Close the file; later calls raise ``StoreError``."""
        with self._lock:
            self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _write(self, sql: str, args: tuple[Any, ...]) -> int:
        with self._lock:
            try:
                cur = self._db.execute(sql, args)
            except sqlite3.Error as exc:
                raise StoreError(f"cannot write the event log {str(self.path)!r}: {exc}") from None
            return int(cur.lastrowid or 0)

    def new_game(self, header: dict[str, Any]) -> int:
        """Store a new game's header; return its id."""
        return self._write("INSERT INTO games (game, header, created) VALUES (?, ?, ?)",
                           (str(header["game"]), msgspec.json.encode(header).decode(), time.time()))

    def append(self, game_id: int, seq: int, event: Event) -> None:
        """Append event number ``seq`` (0-based) of a game; durable on return."""
        self._write("INSERT INTO events (game_id, seq, t, body) VALUES (?, ?, ?, ?)",
                    (game_id, seq, event.t, event.to_json().decode()))

    def set_winner(self, game_id: int, winner: str | None) -> None:
        """Record (or clear, after an undo) a game's winner."""
        self._write("UPDATE games SET winner = ? WHERE id = ?", (winner, game_id))

    def set_header_fields(self, game_id: int, fields: dict[str, Any]) -> None:
        """Add or replace fields of a stored game's header (the seats learnt at
        setup: ``microphones`` and ``seats``). Raises ``UnknownStoredGameError``."""
        header = self.header(game_id) | fields
        self._write("UPDATE games SET header = ? WHERE id = ?",
                    (msgspec.json.encode(header).decode(), game_id))

    def header(self, game_id: int) -> dict[str, Any]:
        """A stored game's header. Raises ``UnknownStoredGameError``."""
        if not -2**63 <= game_id < 2**63:  # beyond SQLite's integers: no such game
            raise UnknownStoredGameError(f"no stored game has id {game_id!r}"[:60])
        with self._lock:
            row = self._db.execute("SELECT header FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise UnknownStoredGameError(f"no stored game has id {game_id!r}")
        out = msgspec.json.decode(row[0])
        assert isinstance(out, dict)
        return out

    def event_objects(self, game_id: int) -> Iterator[dict[str, Any]]:
        """A stored game's events as JSON objects, in log order."""
        self.header(game_id)
        with self._lock:
            rows = self._db.execute("SELECT body FROM events WHERE game_id = ? ORDER BY seq",
                                    (game_id,)).fetchall()
        for (body,) in rows:
            yield msgspec.json.decode(body)

    def games(self) -> list[StoredGame]:
        """Every stored game, newest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT g.id, g.game, g.header, g.created, g.winner, "
                "(SELECT COUNT(*) FROM events e WHERE e.game_id = g.id) "
                "FROM games g ORDER BY g.id DESC").fetchall()
        out = []
        for gid, game, header, created, winner, n in rows:
            h = msgspec.json.decode(header)
            out.append(StoredGame(id=gid, game=game, players=list(h.get("players", [])),
                                  created=created, events=n, winner=winner, header=h))
        return out
