"""Cheap Shot (``rules/cheap-shot.md``): insults, blocks and the score per hand.

The companion keeps the score sheet. Each insult laid down is entered with
its shape: how many cards (2-6), how many green subject cards (exactly one)
and how many "and" connectors (at most two). Its points follow the position
sum of the rulebook's chart: 2 cards 3, 3 cards 6, 4 cards 10, 5 cards 15,
6 cards 21. A red block card scores one point for whoever plays it; blocks and
counter-blocks alternate between the targeted player and the insult's owner,
and the insult stands when the last block was a counter (an even number of
blocks) and falls when it was a block. Rummying adds cards to one's own
standing insult; if the rummy falls, the whole insult goes back to the hand.

At the end of a hand every player loses one point per card left in hand, and a
hand never scores below zero. The game goes to 100 points with 2-3 players
and 75 with 4-6 (the first to reach it after a hand wins; the highest if
several do), or, with the three-hand option, the highest total after three
hands wins. Rules decision where the rulebook is silent: a tie for the win
plays one more hand.

An insult of an illegal shape is refused with ``IllegalEventError`` naming the
field and the reason; whether it makes sense is the table's call (``reject``).
"""

from __future__ import annotations

from typing import Any, ClassVar

import msgspec
from msgspec.structs import replace

from companion.errors import IllegalEventError
from companion.events import Event
from companion.games.base import Game, Options
from companion.rulings import Ruling, Scores, Winner

POINTS: dict[int, int] = {2: 3, 3: 6, 4: 10, 5: 15, 6: 21}
"""Points of an insult by its number of cards (1 + 2 + ... + n, the rulebook's chart)."""

MAX_CONNECTORS = 2
"""At most two "and" connector cards in one insult."""


class CheapShotOptions(Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """How a table plays Cheap Shot.

    ``target_points``: points that end the game; None (default) means the
    rulebook's 100 for 2-3 players and 75 for 4-6.
    ``three_hands``: the rulebook's short game: the highest total after three
    hands wins, whatever the points (default False).
    """

    target_points: int | None = msgspec.field(default=None)
    three_hands: bool = False


# --- events -----------------------------------------------------------------


class Insult(Event, frozen=True, kw_only=True, tag="insult"):
    """``player`` lays down a new insult aimed at ``target``: ``cards`` in all
    (2-6), of which ``subjects`` green subject cards (must be 1) and
    ``connectors`` "and" cards (0-2)."""

    player: str
    target: str
    cards: int
    subjects: int = 1
    connectors: int = 0


class Rummy(Event, frozen=True, kw_only=True, tag="rummy"):
    """``player`` adds ``cards`` cards (``connectors`` of them "and" cards, and
    ``subjects`` subject cards, which must be 0) to their own standing insult
    number ``insult`` (default: their latest), aimed now at ``target``."""

    player: str
    target: str
    cards: int
    connectors: int = 0
    subjects: int = 0
    insult: int | None = None


class Block(Event, frozen=True, kw_only=True, tag="block"):
    """``player`` plays a red block card on the insult just played: first the
    targeted player, then the owner to counter, and so on in turn."""

    player: str


class Reject(Event, frozen=True, kw_only=True, tag="reject"):
    """A majority objected that the insult just played makes no sense: it goes
    back to the hand (a rummy takes back only the added cards). Only before
    any block."""


class EndHand(Event, frozen=True, kw_only=True, tag="end_hand"):
    """The hand is over. ``cards_left``: player -> cards still in hand (a
    player not named has none)."""

    cards_left: dict[str, int] = msgspec.field(default_factory=dict)


# --- rulings ----------------------------------------------------------------


class InsultDown(Ruling, frozen=True, kw_only=True, tag="insult"):
    """``player``'s insult number ``insult`` at ``target``: ``cards`` cards, worth
    ``points`` if it stands. ``rummy``: cards were added to an insult."""

    player: str
    target: str
    insult: int
    cards: int
    points: int
    rummy: bool


class Blocked(Ruling, frozen=True, kw_only=True, tag="blocked"):
    """``player`` plays a block (``kind`` ``block``) or counter-block
    (``counter``) on ``owner``'s insult, which now ``outcome``: ``stands`` or
    ``falls``. The block card is a point for ``player``."""

    player: str
    owner: str
    kind: str
    outcome: str


class Withdrawn(Ruling, frozen=True, kw_only=True, tag="insult_withdrawn"):
    """The table rejected ``player``'s last insult; it goes back to the hand."""

    player: str


class HandScores(Ruling, frozen=True, kw_only=True, tag="hand_scores"):
    """Hand ``hand`` is scored: ``scores`` per player (insults standing +
    block cards - cards left, never below 0), with its parts ``insults``,
    ``blocks`` and ``penalties``."""

    hand: int
    scores: dict[str, int]
    insults: dict[str, int]
    blocks: dict[str, int]
    penalties: dict[str, int]


class ExtraHand(Ruling, frozen=True, kw_only=True, tag="extra_hand"):
    """``players`` are tied for the win: one more hand is played."""

    players: list[str]


# --- state ------------------------------------------------------------------


class Laid(msgspec.Struct, frozen=True, kw_only=True):
    """An insult on the table: its owner and target (seats), its cards and
    connectors, and whether it stands."""

    owner: int
    target: int
    cards: int
    connectors: int
    standing: bool = True


class CheapShotState(msgspec.Struct, frozen=True, kw_only=True):
    """The score sheet between events.

    ``hand``: from 1. ``insults``: this hand's insults in order (number n is
    ``insults[n-1]``). ``open``: the number of the insult that can still be
    blocked (or None); ``open_blocks``: blocks played on it so far;
    ``before``: that insult before a rummy (for a reject or a fall).
    ``blocks``: block cards each player played this hand. ``totals``: points
    per player. ``hands``: each finished hand's scores.
    """

    hand: int = 1
    insults: tuple[Laid, ...] = ()
    open: int | None = None
    open_blocks: int = 0
    before: Laid | None = None
    blocks: tuple[int, ...] = ()
    totals: tuple[int, ...] = ()
    hands: tuple[tuple[int, ...], ...] = ()
    over: bool = False
    winner: str | None = None


class CheapShot(Game[CheapShotState]):
    """The Cheap Shot score sheet for 2-6 players.

    Raises ``IllegalEventError`` naming the field for an insult of illegal
    shape (``cards`` not 2-6, ``subjects`` not 1, ``connectors`` over 2 or not
    fitting), a block out of turn, a rummy onto no standing insult of one's
    own, a negative card count, and any event after the game is over."""

    name: ClassVar[str] = "cheap_shot"
    title: ClassVar[str] = "Cheap Shot"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 6
    options_type: ClassVar[type[Options]] = CheapShotOptions
    event_types: ClassVar[tuple[type[Event], ...]] = (Insult, Rummy, Block, Reject, EndHand)

    @property
    def opts(self) -> CheapShotOptions:
        assert isinstance(self.options, CheapShotOptions)
        return self.options

    @property
    def goal(self) -> int:
        """Points that win: the option, else 100 for 2-3 players and 75 for 4-6."""
        if self.opts.target_points is not None:
            return self.opts.target_points
        return 100 if len(self.players) <= 3 else 75

    def start(self) -> CheapShotState:
        n = len(self.players)
        return CheapShotState(blocks=(0,) * n, totals=(0,) * n)

    def listen_words(self, state: CheapShotState) -> list[str]:
        """Scores are entered on the page; nothing is judged by ear."""
        return []

    def apply(self, state: CheapShotState,
              event: Event) -> tuple[CheapShotState, list[Ruling]]:
        if event.type in ("tick", "say", "hearing"):
            return state, []
        if state.over:
            raise IllegalEventError("the game is over", field="type")
        if isinstance(event, Insult):
            return self._insult(state, event)
        if isinstance(event, Rummy):
            return self._rummy(state, event)
        if isinstance(event, Block):
            return self._block(state, event)
        if isinstance(event, Reject):
            return self._reject(state, event)
        if isinstance(event, EndHand):
            return self._end_hand(state, event)
        raise IllegalEventError(f"{event.type!r} events are not part of Cheap Shot",
                                field="type")

    # -- insults -----------------------------------------------------------------

    @staticmethod
    def check_shape(cards: int, subjects: int, connectors: int) -> None:
        """Raise ``IllegalEventError`` naming the field if an insult of that
        shape cannot be laid: 2-6 cards, exactly one subject card, at most two
        connectors, and room for them all."""
        if cards < 2:
            raise IllegalEventError(f"an insult needs at least 2 cards, not {cards!r}",
                                    field="cards")
        if cards > 6:
            raise IllegalEventError(f"an insult has at most 6 cards, not {cards!r}",
                                    field="cards")
        if subjects > 1:
            raise IllegalEventError(
                f"an insult holds only one green subject card, not {subjects!r}",
                field="subjects")
        if subjects < 1:
            raise IllegalEventError("an insult must begin with a green subject card",
                                    field="subjects")
        if connectors > MAX_CONNECTORS:
            raise IllegalEventError(
                f"an insult has at most {MAX_CONNECTORS} connectors, not {connectors!r}",
                field="connectors")
        if connectors < 0 or subjects + connectors >= cards:
            raise IllegalEventError(
                f"{connectors!r} connectors and a subject leave no room in {cards!r} cards",
                field="connectors")

    def _aim(self, player: str, target: str) -> tuple[int, int]:
        seat = self.player_index(player)
        aim = self.player_index(target, field="target")
        if aim == seat:
            raise IllegalEventError(f"{player!r} cannot insult themself", field="target")
        return seat, aim

    def _insult(self, state: CheapShotState,
                event: Insult) -> tuple[CheapShotState, list[Ruling]]:
        seat, aim = self._aim(event.player, event.target)
        self.check_shape(event.cards, event.subjects, event.connectors)
        laid = Laid(owner=seat, target=aim, cards=event.cards, connectors=event.connectors)
        state = replace(state, insults=(*state.insults, laid), open=len(state.insults) + 1,
                        open_blocks=0, before=None)
        return state, [InsultDown(t=event.t, player=event.player, target=event.target,
                                  insult=len(state.insults), cards=event.cards,
                                  points=POINTS[event.cards], rummy=False)]

    def _rummy(self, state: CheapShotState,
               event: Rummy) -> tuple[CheapShotState, list[Ruling]]:
        seat, aim = self._aim(event.player, event.target)
        mine = [i + 1 for i, x in enumerate(state.insults) if x.owner == seat and x.standing]
        number = event.insult if event.insult is not None else (mine[-1] if mine else None)
        if number is None or number not in mine:
            which = "no such" if event.insult is not None else "no"
            raise IllegalEventError(
                f"{event.player!r} has {which} standing insult to rummy onto "
                f"(insult {event.insult!r}); their standing insults: {mine!r}", field="insult")
        if event.cards < 1:
            raise IllegalEventError(f"a rummy adds at least 1 card, not {event.cards!r}",
                                    field="cards")
        if event.subjects:
            raise IllegalEventError("the insult already has its subject card",
                                    field="subjects")
        old = state.insults[number - 1]
        new = replace(old, target=aim, cards=old.cards + event.cards,
                      connectors=old.connectors + event.connectors)
        try:
            self.check_shape(new.cards, 1, new.connectors)
        except IllegalEventError as exc:
            raise IllegalEventError(f"after the rummy: {exc}", field=exc.field) from None
        insults = list(state.insults)
        insults[number - 1] = new
        state = replace(state, insults=tuple(insults), open=number, open_blocks=0, before=old)
        return state, [InsultDown(t=event.t, player=event.player, target=event.target,
                                  insult=number, cards=new.cards, points=POINTS[new.cards],
                                  rummy=True)]

    def _block(self, state: CheapShotState,
               event: Block) -> tuple[CheapShotState, list[Ruling]]:
        seat = self.player_index(event.player)
        if state.open is None:
            raise IllegalEventError("there is no insult to block now", field="type")
        laid = state.insults[state.open - 1]
        due = laid.target if state.open_blocks % 2 == 0 else laid.owner
        if seat != due:
            raise IllegalEventError(
                f"only {self.players[due]!r} may play the next block, not {event.player!r}",
                field="player")
        count = state.open_blocks + 1
        stands = count % 2 == 0
        insults = list(state.insults)
        insults[state.open - 1] = replace(laid, standing=stands)
        blocks = list(state.blocks)
        blocks[seat] += 1
        state = replace(state, insults=tuple(insults), open_blocks=count, blocks=tuple(blocks))
        return state, [Blocked(t=event.t, player=event.player, owner=self.players[laid.owner],
                               kind="counter" if stands else "block",
                               outcome="stands" if stands else "falls")]

    def _reject(self, state: CheapShotState,
                event: Reject) -> tuple[CheapShotState, list[Ruling]]:
        if state.open is None or state.open_blocks:
            raise IllegalEventError("only an insult just played, before any block, can be "
                                    "rejected", field="type")
        insults = list(state.insults)
        owner = insults[state.open - 1].owner
        if state.before is not None:
            insults[state.open - 1] = state.before
        else:
            insults.pop(state.open - 1)
        state = replace(state, insults=tuple(insults), open=None, open_blocks=0, before=None)
        return state, [Withdrawn(t=event.t, player=self.players[owner])]

    # -- end of a hand -------------------------------------------------------------

    def hand_parts(self, state: CheapShotState,
                   cards_left: dict[int, int]) -> tuple[list[int], list[int], list[int]]:
        """Per seat: points of standing insults, block cards, cards left."""
        n = len(self.players)
        insults = [0] * n
        for laid in state.insults:
            if laid.standing:
                insults[laid.owner] += POINTS[laid.cards]
        return insults, list(state.blocks), [cards_left.get(s, 0) for s in range(n)]

    def _end_hand(self, state: CheapShotState,
                  event: EndHand) -> tuple[CheapShotState, list[Ruling]]:
        left: dict[int, int] = {}
        for name, count in event.cards_left.items():
            seat = self.player_index(name, field="cards_left")
            if count < 0:
                raise IllegalEventError(f"{name!r} cannot hold {count!r} cards",
                                        field="cards_left")
            left[seat] = count
        insults, blocks, penalties = self.hand_parts(state, left)
        scores = [max(0, i + b - p) for i, b, p in zip(insults, blocks, penalties, strict=True)]
        totals = tuple(a + b for a, b in zip(state.totals, scores, strict=True))
        t, names = event.t, self.players

        def by_name(values: list[int] | tuple[int, ...]) -> dict[str, int]:
            return dict(zip(names, values, strict=True))

        rulings: list[Ruling] = [
            HandScores(t=t, hand=state.hand, scores=by_name(scores), insults=by_name(insults),
                       blocks=by_name(blocks), penalties=by_name(penalties)),
            Scores(t=t, scores=by_name(totals), label="points"),
        ]
        n = len(self.players)
        state = CheapShotState(hand=state.hand + 1, blocks=(0,) * n, totals=totals,
                               hands=(*state.hands, tuple(scores)))
        finished = len(state.hands) >= 3 if self.opts.three_hands else max(totals) >= self.goal
        if finished:
            best = max(totals)
            leaders = [p for p, v in zip(names, totals, strict=True) if v == best]
            if len(leaders) == 1:
                state = replace(state, over=True, winner=leaders[0])
                rulings.append(Winner(t=t, player=leaders[0]))
            else:
                rulings.append(ExtraHand(t=t, players=leaders))
        return state, rulings

    # -- reading -------------------------------------------------------------------

    def winner(self, state: CheapShotState) -> str | None:
        return state.winner

    def view(self, state: CheapShotState) -> dict[str, Any]:
        """The score sheet for the page: totals, this hand's insults and blocks,
        the insult open to blocks and who blocks next, past hands."""
        names = self.players
        next_blocker = None
        if state.open is not None:
            laid = state.insults[state.open - 1]
            next_blocker = names[laid.target if state.open_blocks % 2 == 0 else laid.owner]
        return {
            "hand": state.hand, "goal": None if self.opts.three_hands else self.goal,
            "three_hands": self.opts.three_hands,
            "totals": dict(zip(names, state.totals, strict=True)),
            "blocks": dict(zip(names, state.blocks, strict=True)),
            "insults": [{"number": i + 1, "owner": names[x.owner], "target": names[x.target],
                         "cards": x.cards, "connectors": x.connectors,
                         "points": POINTS[x.cards], "standing": x.standing}
                        for i, x in enumerate(state.insults)],
            "open": state.open, "open_blocks": state.open_blocks, "next_blocker": next_blocker,
            "hands": [dict(zip(names, h, strict=True)) for h in state.hands],
            "over": state.over, "winner": state.winner,
        }


GAME = CheapShot
