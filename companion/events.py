"""Events: everything that happens at the table, as typed, tagged structs.

Every event has a ``type`` tag and a time ``t`` in seconds on the table clock
(at the live table ``time.monotonic()`` plus the offset that makes a resumed
game's clock go on from its last event, ``Hub.now``; any origin in a
recorded session).
Events round-trip through JSON exactly (``to_json`` / ``Game.parse_event``);
that JSON is the public session format documented in docs/session-format.md.

This module holds the events every game shares. Each game module adds its own
(``companion.games.nasty7.Flip`` and so on).
"""

from __future__ import annotations

import enum
import math
import re
import types
import typing
from typing import Annotated, Any

import msgspec

Seconds = Annotated[float, msgspec.Meta(ge=0.0)]
"""A time on the table clock, in seconds, never negative."""

Confidence = Annotated[float, msgspec.Meta(ge=0.0, le=1.0)]
"""A recognizer's confidence in a word, 0.0 (a guess) to 1.0 (certain)."""


class Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type",
            forbid_unknown_fields=True):
    """Base of all events. ``t``: seconds on the table clock."""

    t: Seconds

    @property
    def type(self) -> str:
        """The event's tag, as written in the session format."""
        return str(type(self).__struct_config__.tag)

    def to_json(self) -> bytes:
        """The event as one line of session JSON (no newline)."""
        return msgspec.json.encode(self)

    def to_dict(self) -> dict[str, Any]:
        """The event as plain JSON-able builtins, ``type`` included."""
        out = msgspec.to_builtins(self)
        assert isinstance(out, dict)
        return out

    def __post_init__(self) -> None:
        if not math.isfinite(self.t):
            raise ValueError(f"t must be a finite number of seconds, not {self.t!r}")


class Say(Event, frozen=True, kw_only=True, tag="say"):
    """Words heard, with the onset of the first word at ``t``.

    ``text``: the words as the recognizer produced them (or scripted), space
    separated. ``confidence``: the recognizer's confidence, 0..1 (1.0 when
    scripted); below the game's ``min_confidence`` the words are weak evidence
    and never make a mistake ruling on their own. ``end``: the end of the last
    word, seconds on the table clock, if known.
    """

    text: str
    confidence: Confidence = 1.0
    end: Seconds | None = None


class Audio(Event, frozen=True, kw_only=True, tag="audio"):
    """A recording whose sample 0 is at time ``t``.

    ``path``: a WAV file (16-bit PCM, mono or stereo, any rate), relative to
    the session file. The referee recognizes it into ``say`` events.
    """

    path: str


class Tick(Event, frozen=True, kw_only=True, tag="tick"):
    """Time passes; lets timeouts (the hesitation limit, a challenge window)
    fire when nothing else happens. The live table logs one only once a
    deadline (``Game.deadline``) has passed; older logs hold one every 0.1 s."""


class Hearing(Event, frozen=True, kw_only=True, tag="hearing"):
    """Whether the companion can hear the table from ``t`` on.

    ``on`` is false while no microphone works: calls are then not judged by
    ear (no hesitation, no word rulings; an accusation of an unheard call is
    not ruled). The live table logs one when the microphone goes or comes
    back, so a replay of the log knows it too."""

    on: bool


class Undo(Event, frozen=True, kw_only=True, tag="undo"):
    """Remove the effect of the last event that had one (see ``Match.apply``)."""


SHARED_EVENTS: tuple[type[Event], ...] = (Say, Audio, Tick, Hearing, Undo)
"""Events every game accepts."""


def choices(event_type: type[Event], field: str) -> list[str]:
    """The values a field of ``event_type`` may take when its type is a fixed
    set (a ``Literal`` or an ``Enum``, optionally ``| None``), in the order
    declared; an empty list for any other field or an unknown one."""
    hints = typing.get_type_hints(event_type, include_extras=True)
    values: list[str] = []
    pending = [hints[field]] if field in hints else []
    while pending:
        kind = pending.pop(0)
        origin = typing.get_origin(kind)
        if origin in (typing.Union, types.UnionType, typing.Annotated):
            pending[:0] = list(typing.get_args(kind))
        elif origin is typing.Literal:
            values.extend(str(v) for v in typing.get_args(kind))
        elif isinstance(kind, type) and issubclass(kind, enum.Enum):
            values.extend(str(m.value) for m in kind)
    return values


def explain_invalid(message: str, obj: dict[str, Any],
                    event_types: tuple[type[Event], ...]) -> str:
    """msgspec's ``Invalid enum value 'joker' - at `$.card```, for the event
    ``obj``, as ``unknown card 'joker'; one of: racketeer, ...``. Any
    other message is returned as it is."""
    match = re.fullmatch(r"Invalid enum value (.+) - at `\$\.(\w+)`", message)
    if match is None:
        return message
    value, field = match.groups()
    for event_type in event_types:
        if event_type.__struct_config__.tag == obj.get("type"):
            allowed = choices(event_type, field)
            if allowed:
                return f"unknown {field} {value}; one of: {', '.join(allowed)}"
    return message
