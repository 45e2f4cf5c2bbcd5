"""Reading a recorded or scripted session: the public JSON Lines format.

Line 1 is the header ``{"game": ..., "players": [...], "options": {...}}``;
every further line is one event (``companion.events`` and the game's own), in
time order. Blank lines are skipped. The format is documented in docs/session-format.md.

Every error is a ``SessionError`` naming the 1-based line and the field.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from companion import jsonin
from companion.audio.array import ArrayError, Seating, seating_from_header
from companion.errors import CompanionError, EventError, JSONInputError, SessionError
from companion.events import Event
from companion.games import make_game
from companion.games.base import Game
from companion.games.lexicon import ENGLISH, Lexicon
from companion.referee.enrollment import EnrollmentError, Takes, check_files, takes_from_header

PLAYER_FIELDS = ("player", "by", "target", "targets", "seat")
"""Event fields that name players; checked against the header's players."""


@dataclass
class Session:
    """A parsed session: the set-up game, its events and their line numbers."""

    game: Game[Any]
    events: list[Event]
    lines: list[int]
    base_dir: Path = field(default_factory=Path.cwd)
    seating: Seating | None = None
    """The header's microphone array and seat azimuths, if it gives them."""
    enrollment: Takes | None = None
    """The header's enrolled takes (``{player: {word: [WAV path, ...]}}``,
    paths relative to ``base_dir``), if it gives them."""

    def line_of(self, event_index: int) -> int:
        """The 1-based line number of event number ``event_index``."""
        return self.lines[event_index]


def check_players(game: Game[Any], event: Event) -> None:
    """Raise ``IllegalEventError`` if a player field names nobody at the table."""
    for name in PLAYER_FIELDS:
        value = getattr(event, name, None)
        if isinstance(value, str):
            game.player_index(value, field=name)
        elif isinstance(value, list | tuple):
            for v in value:
                if isinstance(v, str):
                    game.player_index(v, field=name)


def parse_header(obj: Any, *, lexicon_for: Callable[[dict[str, Any]], Lexicon] | None = None,
                 line: int = 1) -> Game[Any]:
    """The game a header object sets up. Raises ``SessionError``."""
    if not isinstance(obj, dict):
        raise SessionError("the header must be a JSON object", line=line)
    for key in ("game", "players"):
        if key not in obj:
            raise SessionError(f"the header needs {key!r}", line=line, field=key)
    unknown = set(obj) - {"game", "players", "options", "voice", "microphones", "seats",
                             "enrollment"}
    if unknown:
        name = str(sorted(unknown)[0])
        raise SessionError(f"unknown header field {jsonin.short(name)}", line=line,
                           field=name[:jsonin.SHORT])
    if not isinstance(obj["players"], list) or not all(isinstance(p, str) for p in obj["players"]):
        raise SessionError("players must be a list of names", line=line, field="players")
    options = obj.get("options", {})
    if not isinstance(options, dict):
        raise SessionError("options must be a JSON object", line=line, field="options")
    lexicon = lexicon_for(obj) if lexicon_for else ENGLISH
    try:
        return make_game(str(obj["game"]), obj["players"], options, lexicon=lexicon)
    except CompanionError as exc:
        fld = getattr(exc, "field", None) or ("game" if "game" in str(exc) else None)
        if fld and fld not in ("game", "players"):
            fld = f"options.{fld}"
        raise SessionError(str(exc), line=line, field=fld) from None


def parse_lines(lines: Iterable[str | bytes], *, base_dir: Path | None = None,
                lexicon_for: Callable[[dict[str, Any]], Lexicon] | None = None) -> Session:
    """Parse a session from its lines (text, or bytes that must be UTF-8).
    Raises ``SessionError``."""
    game: Game[Any] | None = None
    seating: Seating | None = None
    enrollment: Takes | None = None
    events: list[Event] = []
    numbers: list[int] = []
    last_t = float("-inf")
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            obj = jsonin.loads(raw)
        except JSONInputError as exc:
            raise SessionError(str(exc), line=number, field=exc.field) from None
        if game is None:
            game = parse_header(obj, lexicon_for=lexicon_for, line=number)
            try:
                seating = seating_from_header(obj, game.players)
                enrollment = takes_from_header(obj, game.players)
                if enrollment is not None and base_dir is not None:
                    check_files(enrollment, base_dir)
            except (ArrayError, EnrollmentError) as exc:
                raise SessionError(str(exc), line=number, field=exc.field) from None
            continue
        try:
            event = game.parse_event(obj)
            check_players(game, event)
        except EventError as exc:
            raise SessionError(str(exc), line=number, field=exc.field) from None
        if event.t < last_t:
            raise SessionError(
                f"events must be in time order: t={event.t!r} comes after t={last_t!r}",
                line=number, field="t")
        last_t = event.t
        events.append(event)
        numbers.append(number)
    if game is None:
        raise SessionError("the session is empty: it needs a header line", line=1)
    return Session(game=game, events=events, lines=numbers, base_dir=base_dir or Path.cwd(),
                   seating=seating, enrollment=enrollment)


def load_session(path: Path, *,
                 lexicon_for: Callable[[dict[str, Any]], Lexicon] | None = None) -> Session:
    """Parse a session file. Raises ``SessionError`` (bad content) or ``OSError``."""
    with path.open("rb") as fh:  # each line is checked as UTF-8 on its own (jsonin)
        return parse_lines(fh, base_dir=path.resolve().parent, lexicon_for=lexicon_for)


def dump_session(game: Game[Any], events: Iterable[Event], *,
                 seating: Seating | None = None) -> str:
    """A session's text: the header (with ``seating``'s microphones and
    seats, if given) and one line per event."""
    header = game.header() | (seating.header() if seating is not None else {})
    out = [msgspec.json.encode(header).decode()]
    out.extend(ev.to_json().decode() for ev in events)
    return "\n".join(out) + "\n"
