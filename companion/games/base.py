"""The shape every game engine shares, and ``Match``: a game being folded.

A game engine is pure: ``apply(state, event) -> (state, rulings)`` with no
GPIO, web, SQLite, audio or clock inside (python-chess's board is the model).
Each game subclasses ``Game`` and fills in the named hooks: ``start``,
``apply``, ``view``, ``winner``, and optionally ``on_undo``.

``Match`` folds events into a state and implements ``undo`` once for every
game, so the state after a restart, an undo or a replay is the fold of the log.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar, Generic, TypeVar

import msgspec

from companion import jsonin
from companion.errors import (
    IllegalEventError,
    InvalidEventError,
    JSONInputError,
    OptionError,
    OutOfOrderError,
)
from companion.events import SHARED_EVENTS, Event, Tick, Undo, explain_invalid
from companion.games.lexicon import ENGLISH, Lexicon
from companion.rulings import Ruling, Undone

S = TypeVar("S")


MAX_NAME = 40
"""Most characters in a player's name (it is shown on phones and spoken)."""


class Options(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Base of every game's options. Defaults are documented next to each field.

    Every game's options are also held to ``companion.jsonin``'s limits
    (finite numbers, integers within 64 bits, Unicode text, shallow nesting)
    and text options to ``MAX_OPTION_TEXT`` characters."""


MAX_OPTION_TEXT = 200
"""Most characters in one text option (a sound, a card name)."""


def _check_option_values(options: Options) -> None:
    """Raise ``OptionError`` naming the option (``composition.gun``) whose
    value breaks ``jsonin``'s limits or is text over ``MAX_OPTION_TEXT``."""
    values = msgspec.to_builtins(options)
    try:
        jsonin.check_value(values)
    except JSONInputError as exc:
        raise OptionError(str(exc), field=exc.field) from None
    stack: list[tuple[Any, str]] = [(values, "")]
    while stack:
        value, path = stack.pop()
        if isinstance(value, str) and len(value) > MAX_OPTION_TEXT:
            raise OptionError(f"text of {len(value)} characters is too long "
                              f"(at most {MAX_OPTION_TEXT})", field=path or None)
        if isinstance(value, dict):
            stack.extend((v, f"{path}.{k}" if path else str(k)) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((v, f"{path}[{i}]") for i, v in enumerate(value))


def _clip(message: str) -> str:
    """A msgspec message with any quoted value cut to ``jsonin.SHORT`` characters."""
    return re.sub(rf"'([^']{{{jsonin.SHORT}}})[^']+'", r"'\1…'", message)


def _field_from_validation(message: str) -> str | None:
    """The field a msgspec validation message points at (``$.player`` -> ``player``)."""
    if "`$." in message:
        path = message.rsplit("`$.", 1)[1].rstrip("`")
        return path.split("[")[0].split(".")[0]
    for marker in ("required field `", "unknown field `"):
        if marker in message:
            return message.split(marker, 1)[1].split("`", 1)[0]
    if "`$`" in message or message.startswith("Invalid value"):
        return "type"
    return None


class Game(ABC, Generic[S]):
    """A game's rules, set up for one table: players in seat order and options.

    Subclasses set ``name`` (the session header's ``game``), ``title``,
    ``min_players``/``max_players``, ``options_type`` and ``event_types``.

    Raises ``IllegalEventError`` (a ``ValueError``) for a bad player list and
    ``OptionError`` for a bad option, naming the option.
    """

    name: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    options_type: ClassVar[type[Options]]
    event_types: ClassVar[tuple[type[Event], ...]]

    def __init__(
        self,
        players: Sequence[str],
        options: Mapping[str, Any] | Options | None = None,
        *,
        lexicon: Lexicon = ENGLISH,
    ) -> None:
        names = [str(p).strip() for p in players]
        for name in names:
            if len(name) > MAX_NAME:
                raise IllegalEventError(f"a player's name has at most {MAX_NAME} characters, "
                                        f"not {len(name)} ({jsonin.short(name)})",
                                        field="players")
            try:
                name.encode("utf-8")
            except UnicodeEncodeError:
                raise IllegalEventError("a player's name holds a lone surrogate (not Unicode)",
                                        field="players") from None
        if not self.min_players <= len(names) <= self.max_players:
            raise IllegalEventError(
                f"{self.title} takes {self.min_players}-{self.max_players} players, "
                f"not {len(names)}", field="players")
        if any(not n for n in names):
            raise IllegalEventError("a player's name is empty", field="players")
        if len({n.casefold() for n in names}) != len(names):
            raise IllegalEventError(f"player names must differ: {jsonin.short(names, 200)}",
                                    field="players")
        self.players: tuple[str, ...] = tuple(names)
        self.lexicon = lexicon
        if isinstance(options, Options):
            self.options = options
        else:
            try:
                self.options = msgspec.convert(dict(options or {}), self.options_type)
            except msgspec.ValidationError as exc:
                raise OptionError(f"bad option: {_clip(str(exc))}",
                                  field=_field_from_validation(str(exc))) from None
        _check_option_values(self.options)
        self.check_options()

    # -- hooks ---------------------------------------------------------------

    def check_options(self) -> None:
        """Cross-field option checks; raise ``OptionError``. Default: none."""

    @abstractmethod
    def start(self) -> S:
        """The state before the first event (cards dealt, first player set)."""

    @abstractmethod
    def apply(self, state: S, event: Event) -> tuple[S, list[Ruling]]:
        """The state after ``event`` and the rulings it causes.

        Never mutates ``state``. Raises ``IllegalEventError`` for an event that
        cannot happen now (state untouched); a player's mistake is a ruling.
        """

    def on_undo(self, state: S, t: float) -> S:
        """Adjust a state rebuilt by an undo at time ``t`` (default: unchanged).

        Lets an engine waive a timeout that has already passed, so an undone
        timeout ruling is not ruled again at once."""
        return state

    def deadline(self, state: S) -> float | None:
        """When the pending timeout of ``state`` fires: any event later than
        this (seconds on the table clock) rules it, a ``tick`` included.
        None when nothing is pending. Default: None, for games whose
        ``apply`` rules nothing on a tick; a game with timeouts must say when
        they fire, since the live table ticks only then and a resume skips
        the stored ticks before it."""
        return None

    def listen_words(self, state: S) -> list[str]:
        """The spoken words that can matter now, for the recognizer's grammar.

        Default: every count word, phone sound and cheat word of the lexicon.
        Engines narrow it to what the current turn allows."""
        lex = self.lexicon
        words = [w for w in lex.numbers if not w.isdigit()]
        words += [*lex.sounds, *lex.cheat]
        return list(dict.fromkeys(words))

    def utterance_items(self, state: S) -> int | None:
        """The most words or phrases of ``listen_words`` one utterance can
        hold now, for the recognizer's search (None: the recognizer's own
        default, three for pocketsphinx: a twin call and room for padding)."""
        return None

    def early_endpoint(self, state: S) -> bool:
        """Whether an utterance heard now should end as soon as it is quiet
        and already a sure call (``companion.referee.stream.EARLY_S``): for
        calls whose ruling must come at once. It costs an extra decode of
        most utterances, so games with a heavy grammar leave it off."""
        return False

    def winner(self, state: S) -> str | None:
        """The winner, once the game is over; None before."""
        return None

    def view(self, state: S) -> dict[str, Any]:
        """The state as JSON-able builtins for the control page."""
        out = msgspec.to_builtins(state)
        assert isinstance(out, dict)
        return out

    # -- shared --------------------------------------------------------------

    def check_time_and_end(self, state_t: float, event: Event, winner: str | None) -> None:
        """Refuse (``IllegalEventError``) an event earlier than the state's
        time ``state_t``, and, once ``winner`` has won, any event but those
        that only report the table (tick, say, hearing)."""
        if event.t < state_t:
            raise IllegalEventError(f"t={event.t!r} is before the table's time {state_t!r}",
                                    field="t")
        if winner is not None and event.type not in ("tick", "say", "hearing"):
            raise IllegalEventError(f"the game is over: {winner} has won", field="type")

    def header(self) -> dict[str, Any]:
        """The session header that sets up this game."""
        return {"game": self.name, "players": list(self.players),
                "options": msgspec.to_builtins(self.options)}

    def player_index(self, name: str, field: str = "player") -> int:
        """Seat index of ``name`` (case-insensitive); ``IllegalEventError`` naming
        ``field`` if nobody sits there by that name."""
        for i, p in enumerate(self.players):
            if p.casefold() == name.strip().casefold():
                return i
        raise IllegalEventError(f"unknown player {jsonin.short(name)}; players are "
                                f"{list(self.players)!r}", field=field)

    @cached_property
    def _event_union(self) -> Any:
        types = (*SHARED_EVENTS, *self.event_types)
        return types[0] if len(types) == 1 else _union(types)

    def parse_event(self, obj: Any) -> Event:
        """An event from its JSON object form.

        Raises ``InvalidEventError`` naming the field for a missing or mistyped
        field, an unknown field, or an unknown ``type``."""
        if not isinstance(obj, dict):
            raise InvalidEventError(f"an event is a JSON object, not {jsonin.short(obj)}")
        if "type" not in obj:
            raise InvalidEventError("an event needs a 'type'", field="type")
        known = {str(e.__struct_config__.tag) for e in (*SHARED_EVENTS, *self.event_types)}
        kind = obj["type"]
        if not isinstance(kind, str) or kind not in known:
            raise InvalidEventError(
                f"unknown event type {jsonin.short(kind)} for {self.name}; known: "
                f"{sorted(known)}", field="type")
        try:
            jsonin.check_value(obj)
            event = msgspec.convert(obj, self._event_union)
        except JSONInputError as exc:
            raise InvalidEventError(str(exc), field=exc.field) from None
        except msgspec.ValidationError as exc:
            message = explain_invalid(str(exc), obj, (*SHARED_EVENTS, *self.event_types))
            raise InvalidEventError(_clip(message),
                                    field=_field_from_validation(str(exc))) from None
        except ValueError as exc:  # __post_init__ checks
            raise InvalidEventError(str(exc), field="t") from None
        assert isinstance(event, Event)
        return event


def _union(types: tuple[type[Event], ...]) -> Any:
    from typing import Union

    return Union[types]  # noqa: UP007 - built at run time from a tuple


@dataclass
class Match(Generic[S]):
    """A game in progress: its engine, its state and the events in effect.

    Pure: it holds no I/O. ``apply`` is the one way in, and implements
    ``undo`` for every game: an undo removes the last event that had an effect
    (events that left the state as it was and ruled nothing, and ticks that
    ruled nothing, are skipped) and rebuilds the state by folding
    the events that remain, then lets the engine adjust it (``on_undo``).
    """

    game: Game[S]
    state: S = field(init=False)
    effective: list[Event] = field(init=False, default_factory=list)
    clock: float = field(init=False, default=0.0)
    _started: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        self.state = self.game.start()

    def apply(self, event: Event) -> list[Ruling]:
        """Apply one event; return its rulings.

        Raises ``OutOfOrderError`` if ``event.t`` is earlier than the previous
        event's, ``IllegalEventError`` if the engine refuses it. On any error
        the match is unchanged."""
        if self._started and event.t < self.clock:
            raise OutOfOrderError(
                f"event at t={event.t!r} comes before the previous one at t={self.clock!r}",
                field="t")
        if isinstance(event, Undo):
            rulings = self._undo(event)
        else:
            state, rulings = self.game.apply(self.state, event)
            changed = bool(rulings) or state != self.state
            self.state = state
            if changed and not (isinstance(event, Tick) and not rulings):
                self.effective.append(event)
        self.clock = event.t
        self._started = True
        return rulings

    def _undo(self, undo: Undo) -> list[Ruling]:
        if not self.effective:
            raise IllegalEventError("there is nothing to undo")
        undone = self.effective[-1]
        remaining = self.effective[:-1]
        state = self.game.start()
        for ev in remaining:
            state, _ = self.game.apply(state, ev)
        self.state = self.game.on_undo(state, undo.t)
        self.effective = remaining
        return [Undone(t=undo.t, what=undone.type, at=undone.t)]

    def copy(self) -> Match[S]:
        """A copy that can be applied to without changing this one (states are
        immutable, so only the list of events is copied)."""
        other: Match[S] = object.__new__(Match)
        other.game, other.state, other.effective = self.game, self.state, list(self.effective)
        other.clock, other._started = self.clock, self._started
        return other

    def fold(self, events: Sequence[Event]) -> list[Ruling]:
        """Apply events in order; return all their rulings."""
        out: list[Ruling] = []
        for ev in events:
            out.extend(self.apply(ev))
        return out

    @property
    def winner(self) -> str | None:
        """The winner, or None while the game goes on."""
        return self.game.winner(self.state)
