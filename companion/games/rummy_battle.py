"""Rummy Battle (``rules/rummy-battle.md``): the score of each round and the total.

The companion keeps the score sheet. At the end of a round the table enters,
per player, the cards they played (their points count for them) and the cards
left in their hand (their points count against them), either as card lists
(``["A", "K", "7", "joker", "action"]``) or as counts per category. Card
points, from the rulebook's table: aces 15; tens, jacks, queens and kings 10;
twos to nines 5; action cards 5; jokers 20.

The player who went out first gets -100 if the Marker card had not been
revealed yet, +10 if it had. If a Lucky Day card put several players out at
once before the Marker, each of them gets -50 instead. After five rounds (an
option) the highest total wins.

Rules decisions where the rulebook is silent: several players out at once
after the Marker each get the +10; a tie for the win plays one more round.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

import msgspec
from msgspec.structs import replace

from companion.errors import IllegalEventError
from companion.events import Event
from companion.games.base import Game, Options
from companion.rulings import Ruling, Scores, Winner

CardName = Literal["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K",
                   "joker", "action"]
"""A card as entered in a list: a rank, ``joker`` or ``action``."""

CARD_POINTS: dict[str, int] = {
    "A": 15, **{str(n): 5 for n in range(2, 10)}, "10": 10, "J": 10, "Q": 10, "K": 10,
    "joker": 20, "action": 5,
}
"""Points of each card (the rulebook's scoring table)."""

OUT_BEFORE_MARKER = -100
"""The one player who went out first before the Marker card was revealed."""
OUT_TOGETHER_BEFORE_MARKER = -50
"""Each of several players a Lucky Day card put out at once before the Marker."""
OUT_AFTER_MARKER = 10
"""The first player out after the Marker card was revealed."""

Count = Annotated[int, msgspec.Meta(ge=0)]


class Counts(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Cards counted per scoring category (each 0 or more)."""

    aces: Count = 0
    tens_to_kings: Count = 0
    twos_to_nines: Count = 0
    action: Count = 0
    jokers: Count = 0

    @property
    def points(self) -> int:
        return (15 * self.aces + 10 * self.tens_to_kings + 5 * self.twos_to_nines
                + 5 * self.action + 20 * self.jokers)


Tally = list[CardName] | Counts
"""Cards entered as a list of card names or as counts per category."""


def points(tally: Tally) -> int:
    """The points of a tally of cards (see ``CARD_POINTS``)."""
    if isinstance(tally, Counts):
        return tally.points
    return sum(CARD_POINTS[c] for c in tally)


def card_count(tally: Tally) -> int:
    """How many cards a tally holds."""
    if isinstance(tally, Counts):
        return (tally.aces + tally.tens_to_kings + tally.twos_to_nines + tally.action
                + tally.jokers)
    return len(tally)


class RummyBattleOptions(Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """How a table plays Rummy Battle. ``rounds``: rounds in a game (default 5,
    as the rulebook says)."""

    rounds: Annotated[int, msgspec.Meta(ge=1)] = 5


class RoundEnd(Event, frozen=True, kw_only=True, tag="round_end"):
    """A round is over. ``played``: player -> the cards they have down;
    ``in_hand``: player -> the cards left in their hand (a player not named has
    none); ``out``: who went out first (several only by a Lucky Day card);
    ``marker_revealed``: whether the Marker card had been turned up by then."""

    played: dict[str, Tally] = msgspec.field(default_factory=dict)
    in_hand: dict[str, Tally] = msgspec.field(default_factory=dict)
    out: list[str]
    marker_revealed: bool


class RoundScores(Ruling, frozen=True, kw_only=True, tag="round_scores"):
    """Round ``round`` scored: ``scores`` per player = ``played`` - ``in_hand``
    + ``bonus`` (the going-out penalty or bonus)."""

    round: int
    scores: dict[str, int]
    played: dict[str, int]
    in_hand: dict[str, int]
    bonus: dict[str, int]


class ExtraRound(Ruling, frozen=True, kw_only=True, tag="extra_round"):
    """``players`` are tied for the win: one more round is played."""

    players: list[str]


class RummyBattleState(msgspec.Struct, frozen=True, kw_only=True):
    """The score sheet: each finished round's scores (seat order), and the end."""

    rounds: tuple[tuple[int, ...], ...] = ()
    over: bool = False
    winner: str | None = None

    def totals(self, players: int) -> tuple[int, ...]:
        """Each player's total: the sum of their round scores."""
        return tuple(sum(r[s] for r in self.rounds) for s in range(players))


class RummyBattle(Game[RummyBattleState]):
    """The Rummy Battle score sheet for 2-8 players.

    Raises ``IllegalEventError`` naming the field for a name nobody at the
    table has (``played``, ``in_hand``, ``out``), nobody or the same player
    twice in ``out``, cards in the hand of a player who went out, and any event
    after the game is over."""

    name: ClassVar[str] = "rummy_battle"
    title: ClassVar[str] = "Rummy Battle"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 8
    options_type: ClassVar[type[Options]] = RummyBattleOptions
    event_types: ClassVar[tuple[type[Event], ...]] = (RoundEnd,)

    @property
    def opts(self) -> RummyBattleOptions:
        assert isinstance(self.options, RummyBattleOptions)
        return self.options

    def start(self) -> RummyBattleState:
        return RummyBattleState()

    def listen_words(self, state: RummyBattleState) -> list[str]:
        """Scores are entered on the page; nothing is judged by ear."""
        return []

    def bonus(self, out: int, marker_revealed: bool) -> int:
        """What each of ``out`` players who went out together gets."""
        if marker_revealed:
            return OUT_AFTER_MARKER
        return OUT_BEFORE_MARKER if out == 1 else OUT_TOGETHER_BEFORE_MARKER

    def apply(self, state: RummyBattleState,
              event: Event) -> tuple[RummyBattleState, list[Ruling]]:
        if event.type in ("tick", "say", "hearing"):
            return state, []
        if state.over:
            raise IllegalEventError("the game is over", field="type")
        if not isinstance(event, RoundEnd):
            raise IllegalEventError(f"{event.type!r} events are not part of Rummy Battle",
                                    field="type")
        n = len(self.players)
        played, in_hand, bonus = [0] * n, [0] * n, [0] * n
        for name, tally in event.played.items():
            played[self.player_index(name, field="played")] = points(tally)
        for name, tally in event.in_hand.items():
            in_hand[self.player_index(name, field="in_hand")] = points(tally)
        out = [self.player_index(name, field="out") for name in event.out]
        if not out:
            raise IllegalEventError("someone must have gone out to end the round",
                                    field="out")
        if len(set(out)) != len(out):
            raise IllegalEventError(f"a player is named twice: {event.out!r}", field="out")
        held = {self.players[s].casefold() for s in out}
        for name, tally in event.in_hand.items():
            if name.strip().casefold() in held and card_count(tally):
                raise IllegalEventError(f"{name!r} went out and holds no cards", field="in_hand")
        for seat in out:
            bonus[seat] = self.bonus(len(out), event.marker_revealed)
        scores = tuple(p - h + b for p, h, b in zip(played, in_hand, bonus, strict=True))
        state = replace(state, rounds=(*state.rounds, scores))
        names, t = self.players, event.t

        def by_name(values: list[int] | tuple[int, ...]) -> dict[str, int]:
            return dict(zip(names, values, strict=True))

        totals = state.totals(n)
        rulings: list[Ruling] = [
            RoundScores(t=t, round=len(state.rounds), scores=by_name(scores),
                        played=by_name(played), in_hand=by_name(in_hand), bonus=by_name(bonus)),
            Scores(t=t, scores=by_name(totals), label="points"),
        ]
        if len(state.rounds) >= self.opts.rounds:
            best = max(totals)
            leaders = [p for p, v in zip(names, totals, strict=True) if v == best]
            if len(leaders) == 1:
                state = replace(state, over=True, winner=leaders[0])
                rulings.append(Winner(t=t, player=leaders[0]))
            else:
                rulings.append(ExtraRound(t=t, players=leaders))
        return state, rulings

    def winner(self, state: RummyBattleState) -> str | None:
        return state.winner

    def view(self, state: RummyBattleState) -> dict[str, Any]:
        """The score sheet for the page: rounds so far, totals, the end."""
        names = self.players
        return {
            "round": len(state.rounds) + 1, "rounds": self.opts.rounds,
            "scores": [dict(zip(names, r, strict=True)) for r in state.rounds],
            "totals": dict(zip(names, state.totals(len(names)), strict=True)),
            "over": state.over, "winner": state.winner,
        }


GAME = RummyBattle
