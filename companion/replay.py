"""Running a session through the same engine as the live table.

``replay(session)`` yields every ruling in order. ``audio`` events are turned
into ``say`` events by an audio handler (``companion.referee``) and merged
with the session's own events in time order, as at the live table.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from companion.audio.array import seating_from_header
from companion.errors import EventError, SessionError
from companion.events import Audio, Event
from companion.games.base import Match
from companion.games.lexicon import Lexicon
from companion.referee.enrollment import takes_from_header
from companion.rulings import Ruling
from companion.session import Session, parse_header
from companion.store import Store, state_dir

AudioHandler = Callable[[Audio, Session, Match[Any]], list[Event]]
"""Turns an ``audio`` event into the events heard in it (``say`` with onsets)."""


@dataclass
class Replayed:
    """What a replay produced: the final match and every ruling in order."""

    match: Match[Any]
    rulings: list[Ruling]


def replay(session: Session, *, on_audio: AudioHandler | None = None,
           match: Match[Any] | None = None) -> Iterator[Ruling]:
    """Apply a session's events in time order to ``match`` (a new one if
    None); yield the rulings.

    Raises ``SessionError`` naming the line (and field) of an event the engine
    refuses, and for an ``audio`` event when no ``on_audio`` handler is given."""
    if match is None:
        match = Match(session.game)
    # (t, order, line, event): events heard in audio are merged by time, after
    # the session's own events at the same time.
    queue: list[tuple[float, int, int, Event]] = [
        (ev.t, i * 2, session.line_of(i), ev) for i, ev in enumerate(session.events)]
    heapq.heapify(queue)
    order = len(queue) * 2 + 1
    while queue:
        _, _, line, event = heapq.heappop(queue)
        if isinstance(event, Audio):
            if on_audio is None:
                raise SessionError("audio events need the speech referee", line=line,
                                   field="path")
            try:
                heard = on_audio(event, session, match)
            except (OSError, ValueError) as exc:
                raise SessionError(str(exc), line=line, field="path") from None
            for ev in heard:
                heapq.heappush(queue, (ev.t, order, line, ev))
                order += 2
            continue
        try:
            rulings = match.apply(event)
        except EventError as exc:
            raise SessionError(str(exc), line=line, field=exc.field) from None
        yield from rulings


def stored_session(store: Store, game_id: int, *,
                   lexicon_for: Callable[[dict[str, Any]], Lexicon] | None = None,
                   limit: int | None = None) -> Session:
    """A stored game of the event log as a session (what ``companion replay
    --game`` replays): its header and its first ``limit`` events (all when
    None); line numbers count events from 1. The header's ``enrollment``
    paths are relative to the companion's state directory (where ``companion
    run`` keeps the players' takes: ``store.state_dir``), which is the
    session's ``base_dir``. Raises ``UnknownStoredGameError`` and
    ``SessionError`` (a stored event the engine cannot read, naming its
    number), ``ArrayError`` or ``EnrollmentError`` (a bad header field)."""
    header = store.header(game_id)
    game = parse_header(header, lexicon_for=lexicon_for)
    events: list[Event] = []
    for number, obj in enumerate(store.event_objects(game_id), start=1):
        if limit is not None and number > limit:
            break
        try:
            events.append(game.parse_event(obj))
        except EventError as exc:
            raise SessionError(str(exc), line=number, field=exc.field) from None
    return Session(game=game, events=events, lines=list(range(1, len(events) + 1)),
                   base_dir=state_dir(store.path),
                   seating=seating_from_header(header, game.players),
                   enrollment=takes_from_header(header, game.players))


def replay_all(session: Session, *, on_audio: AudioHandler | None = None) -> Replayed:
    """Replay a whole session; return the final match and all rulings."""
    match: Match[Any] = Match(session.game)
    rulings = list(replay(session, on_audio=on_audio, match=match))
    return Replayed(match=match, rulings=rulings)
