"""Finger Guns (``rules/finger-guns.md``): the countdown and the round's arithmetic.

Every round is played at once by everybody in two steps, each ended by a
countdown the companion calls: point a finger gun at another player (the
*target*), and point at a card (one of your own life cards, or a card in the
centre). The table's phones enter each player's two picks privately; the
``lock`` at the end of each countdown makes that step's picks final and
public. After the second lock the round is resolved in seat (clockwise) order:

- an **attack** card deals its value to the target;
- a **shield** card deals nothing and reduces the damage its holder takes
  this round by its value, except the damage from the player it points at;
- each player loses as many life cards as the damage they take; a chosen own
  card must be among the cards lost (a player who takes no damage keeps it);
  lost cards go to the centre; a chosen centre card leaves the game.

Modes and variants (all options, see ``FingerGunsOptions``): Quickshot (the
default), Longshot, Gun Gang and the Flipping Fingers expansion.

The published card list is not known, so the cards are entered at setup as
short codes: ``"A3"`` is an attack card of 3, ``"S2"`` a shield card of 2.
Special actions printed on some cards are not modelled.

Rules decisions where the rulebook is silent (each documented where it acts):

- A shield reduces the *total* damage from the players it covers, taken
  attacker by attacker in seat order; several shields on one player add up.
- A player who has not entered both picks when the second countdown ends
  holds fire for the round (no attack, no shield).
- The Quickshot tie-break "highest possible damage on their own cards" is the
  highest attack card among the player's remaining life cards (face-down ones
  included); if that ties too, the tied players share the win.
- Longshot: a dead player's attack is reduced by the damage the *living*
  players' attacks deal them this round; if every remaining player dies in the
  same round, those players share the win.
- Flipping Fingers: the later half of each player's cards (as entered) start
  face down; a face-down card turns face up when it is used and stays so. The
  step order is reversed in every even round (card first, then target).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Annotated, Any, ClassVar, Literal

import msgspec
from msgspec.structs import replace

from companion.errors import IllegalEventError, OptionError
from companion.events import Event
from companion.games.base import Game, Options
from companion.rulings import Ruling, Scores, Winner

CardCode = Annotated[str, msgspec.Meta(pattern=r"^[AS](0|[1-9][0-9]?)$")]
"""A card as entered at setup: ``A`` (attack) or ``S`` (shield) and its value, 0-99."""

DEFAULT_CARDS: tuple[str, ...] = ("A1", "A1", "A2", "A2", "A3", "S1", "S2", "S3")
"""The default eight life cards per player: five attacks and three shields.
A sensible stand-in; the published deck list is not known."""

Pick = Literal["target", "card"]


# --- options ----------------------------------------------------------------


class FingerGunsOptions(Options, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """How a table plays Finger Guns.

    ``mode``: ``"quickshot"`` (default; the game ends after the round in which
    a player dies, most lives wins) or ``"longshot"`` (play until one player is
    left alive; the dead still fire, limited).
    ``cards``: every player's life cards, as codes (default ``DEFAULT_CARDS``).
    ``hands``: per-player overrides of ``cards`` (player name -> codes).
    ``gun_gang``: shields are shared with the player pointed at instead of
    exempting them (default False).
    ``gun_gang_point_back``: with ``gun_gang``, the rulebook's optional
    exception: if the player pointed at points back with an attack card, the
    shield is not shared and they attack at full force (default False).
    ``flipping_fingers``: the expansion: half of each player's cards start face
    down, and every even round picks the card first (default False).
    ``pick_discards``: players name the life cards they lose with a
    ``discard`` event; when False (default) the companion removes them: the
    chosen own card first, then the lowest values.
    ``face_down_seed``: with ``flipping_fingers``, the face-down cards' ids
    are labels drawn from this seed (``"Abby-d417"``), so an id says nothing
    of which card lies there; the page gives every new game a seed from the
    operating system's randomness (``web/control.py``). None (logs from
    before issue 20): ids by position (``"Abby-5"``), which a phone could map
    to the public ``cards`` list.
    """

    mode: Literal["quickshot", "longshot"] = "quickshot"
    cards: tuple[CardCode, ...] = DEFAULT_CARDS
    hands: dict[str, tuple[CardCode, ...]] = msgspec.field(default_factory=dict)
    gun_gang: bool = False
    gun_gang_point_back: bool = False
    flipping_fingers: bool = False
    pick_discards: bool = False
    face_down_seed: int | None = None


# --- events -----------------------------------------------------------------


class CountdownStart(Event, frozen=True, kw_only=True, tag="countdown_start"):
    """The companion starts calling the countdown of the round's next step."""


class Choose(Event, frozen=True, kw_only=True, tag="choose"):
    """``player`` enters a pick on their phone: ``target`` (another player)
    and/or ``card`` (the id of one of their own life cards, e.g. ``"Abby-3"``,
    or of a card in the centre). A later pick replaces an earlier one until
    that step is locked."""

    player: str
    target: str | None = None
    card: str | None = None


class Lock(Event, frozen=True, kw_only=True, tag="lock"):
    """The running countdown has ended: the picks of its step are final."""


class Discard(Event, frozen=True, kw_only=True, tag="discard"):
    """With ``pick_discards``: ``player`` names the life cards (ids) they lose
    this round; exactly as many as the damage taken."""

    player: str
    cards: list[str]


# --- rulings ----------------------------------------------------------------


class Countdown(Ruling, frozen=True, kw_only=True, tag="countdown"):
    """The shell counts down now ("three, two, one") for step ``step`` (1 or 2)
    of round ``round``; ``pick``: what is chosen in it, ``target`` or ``card``."""

    round: int
    step: int
    pick: str


class Locked(Ruling, frozen=True, kw_only=True, tag="locked"):
    """Step ``step`` is locked; ``missing``: players who entered no ``pick``."""

    round: int
    step: int
    pick: str
    missing: list[str]


class Revealed(Ruling, frozen=True, kw_only=True, tag="revealed"):
    """A face-down ``card`` (id) was used and turned face up: ``code``, that is
    ``kind`` (``attack``/``shield``) and ``value``."""

    player: str
    card: str
    code: str
    kind: str
    value: int


class Attack(Ruling, frozen=True, kw_only=True, tag="attack"):
    """``player`` attacks ``target`` with ``card`` for ``value`` (before shields)."""

    player: str
    target: str
    card: str
    value: int


class Shield(Ruling, frozen=True, kw_only=True, tag="shield"):
    """``player`` raises a shield of ``value``; ``exempt``: the player whose
    attacks it does not reduce; ``shared_with``: the player it also covers
    (Gun Gang)."""

    player: str
    card: str
    value: int
    exempt: str | None
    shared_with: str | None


class HoldsFire(Ruling, frozen=True, kw_only=True, tag="holds_fire"):
    """``player`` does nothing this round. ``reason``: ``no_pick`` (a pick was
    missing at the lock), ``same_card`` (a dead player's card was also picked by
    another player), ``spent`` (a dead player's attack was used up by the damage
    dealt to them)."""

    player: str
    reason: str


class Damage(Ruling, frozen=True, kw_only=True, tag="damage"):
    """``player`` takes ``damage`` this round and has ``lives`` life cards left."""

    player: str
    damage: int
    lives: int


class CardsLost(Ruling, frozen=True, kw_only=True, tag="cards_lost"):
    """``player``'s life ``cards`` (ids) go to the centre."""

    player: str
    cards: list[str]


class DiscardNeeded(Ruling, frozen=True, kw_only=True, tag="discard_needed"):
    """``player`` must name ``count`` life cards to lose (``pick_discards``);
    ``including``: the card they used, which must be among them, if any."""

    player: str
    count: int
    including: str | None


class CardRetired(Ruling, frozen=True, kw_only=True, tag="card_retired"):
    """A centre ``card`` (id) was used and leaves the game."""

    card: str


class Dead(Ruling, frozen=True, kw_only=True, tag="dead"):
    """``player`` has no life cards left."""

    player: str


class SharedWin(Ruling, frozen=True, kw_only=True, tag="shared_win"):
    """The game is over and ``players`` share the win (a tie the rules cannot break)."""

    players: list[str]


# --- state ------------------------------------------------------------------


class Card(msgspec.Struct, frozen=True, kw_only=True):
    """A card on the table: ``id`` (``"<owner>-<n>"``, n from 1 in setup order),
    ``kind`` (``attack``/``shield``), ``value`` and whether it is face up."""

    id: str
    kind: str
    value: int
    face_up: bool = True

    @property
    def code(self) -> str:
        return ("A" if self.kind == "attack" else "S") + str(self.value)


class Picks(msgspec.Struct, frozen=True, kw_only=True):
    """One player's picks this round (ids and names; None until entered)."""

    target: str | None = None
    card: str | None = None


class FingerGunsState(msgspec.Struct, frozen=True, kw_only=True):
    """The table between events. Per-player tuples are in seat order.

    ``round``: from 1. ``locked``: steps of this round already locked (0-2).
    ``counting``: a countdown is running. ``lives``: each player's life cards.
    ``centre``: cards in the centre. ``retired``: ids out of the game.
    ``lost``: life cards each player has lost in all. ``owed``: cards each
    player still has to name with ``discard``. ``dead``: per player.
    ``last_damage``: damage per player in the last resolved round.
    ``over``/``winners``: the end of the game.
    """

    round: int
    locked: int
    counting: bool
    lives: tuple[tuple[Card, ...], ...]
    centre: tuple[Card, ...]
    retired: tuple[str, ...]
    picks: tuple[Picks, ...]
    lost: tuple[int, ...]
    owed: tuple[int, ...]
    dead: tuple[bool, ...]
    last_damage: tuple[int, ...]
    over: bool = False
    winners: tuple[str, ...] = ()


def _card(card_id: str, code: str, face_up: bool) -> Card:
    return Card(id=card_id, kind="attack" if code[0] == "A" else "shield",
                value=int(code[1:]), face_up=face_up)


# --- the engine ---------------------------------------------------------------


class FingerGuns(Game[FingerGunsState]):
    """The Finger Guns countdown and scorekeeper for 2-8 players.

    Raises ``IllegalEventError`` naming the field for a pick after its lock, a
    card that is neither the player's own nor in the centre, a target that is
    the player themself or nobody at the table, a ``lock`` with no countdown
    running, and any event after the game is over."""

    name: ClassVar[str] = "finger_guns"
    title: ClassVar[str] = "Finger Guns"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 8
    options_type: ClassVar[type[Options]] = FingerGunsOptions
    event_types: ClassVar[tuple[type[Event], ...]] = (CountdownStart, Choose, Lock, Discard)

    @property
    def opts(self) -> FingerGunsOptions:
        assert isinstance(self.options, FingerGunsOptions)
        return self.options

    def check_options(self) -> None:
        """Every ``hands`` key must be a player; every player needs a card."""
        for name, codes in self.opts.hands.items():
            if name not in self.players:
                raise OptionError(f"hands names {name!r}, who is not at the table; "
                                  f"players are {list(self.players)!r}", field="hands")
            if not codes:
                raise OptionError(f"{name!r} needs at least one card", field="hands")
        if not self.opts.cards:
            raise OptionError("cards must list at least one card", field="cards")

    # -- setup -----------------------------------------------------------------

    def start(self) -> FingerGunsState:
        lives = []
        for player in self.players:
            codes = self.opts.hands.get(player, self.opts.cards)
            face_down_from = len(codes) - len(codes) // 2 if self.opts.flipping_fingers \
                else len(codes)
            labels = [str(i + 1) for i in range(len(codes))]
            if self.opts.face_down_seed is not None and face_down_from < len(codes):
                rng = random.Random(f"{self.opts.face_down_seed}:{player}")
                hidden = rng.sample(range(100, 1000), len(codes) - face_down_from)
                labels[face_down_from:] = [f"d{n}" for n in hidden]
            lives.append(tuple(_card(f"{player}-{label}", code, i < face_down_from)
                               for i, (label, code) in enumerate(zip(labels, codes,
                                                                     strict=True))))
        n = len(self.players)
        return FingerGunsState(
            round=1, locked=0, counting=False, lives=tuple(lives), centre=(), retired=(),
            picks=tuple(Picks() for _ in range(n)), lost=(0,) * n, owed=(0,) * n,
            dead=(False,) * n, last_damage=(0,) * n)

    def step_pick(self, round_no: int, step: int) -> Pick:
        """What step ``step`` (1 or 2) of round ``round_no`` picks: the target
        first, except in even rounds of Flipping Fingers (card first)."""
        reverse = self.opts.flipping_fingers and round_no % 2 == 0
        first: Pick = "card" if reverse else "target"
        second: Pick = "target" if reverse else "card"
        return first if step == 1 else second

    def listen_words(self, state: FingerGunsState) -> list[str]:
        """Nothing is judged by ear in Finger Guns."""
        return []

    # -- events ------------------------------------------------------------------

    def apply(self, state: FingerGunsState,
              event: Event) -> tuple[FingerGunsState, list[Ruling]]:
        if event.type in ("tick", "say", "hearing"):
            return state, []
        if state.over:
            raise IllegalEventError("the game is over", field="type")
        if isinstance(event, Discard):
            return self._discard(state, event)
        if any(state.owed):
            waiting = [p for p, n in zip(self.players, state.owed, strict=True) if n]
            raise IllegalEventError(f"waiting for discards from {waiting!r}", field="type")
        if isinstance(event, CountdownStart):
            if state.counting:
                raise IllegalEventError("a countdown is already running", field="type")
            step = state.locked + 1
            return replace(state, counting=True), [Countdown(
                t=event.t, round=state.round, step=step, pick=self.step_pick(state.round, step))]
        if isinstance(event, Choose):
            return self._choose(state, event), []
        if isinstance(event, Lock):
            return self._lock(state, event)
        raise IllegalEventError(f"{event.type!r} events are not part of Finger Guns",
                                field="type")

    def _locked_picks(self, state: FingerGunsState) -> set[str]:
        return {self.step_pick(state.round, s) for s in range(1, state.locked + 1)}

    def _find(self, state: FingerGunsState, card_id: str) -> tuple[Card, int | None]:
        """A card in front of a player (with their seat) or in the centre (None)."""
        for seat, cards in enumerate(state.lives):
            for card in cards:
                if card.id == card_id:
                    return card, seat
        for card in state.centre:
            if card.id == card_id:
                return card, None
        raise IllegalEventError(f"no card {card_id!r} is on the table", field="card")

    def _choose(self, state: FingerGunsState, event: Choose) -> FingerGunsState:
        seat = self.player_index(event.player)
        if event.target is None and event.card is None:
            raise IllegalEventError("a pick needs a target or a card", field="target")
        locked = self._locked_picks(state)
        picks = state.picks[seat]
        if event.target is not None:
            if "target" in locked:
                raise IllegalEventError("the target was locked when the countdown ended",
                                        field="target")
            target = self.player_index(event.target, field="target")
            if target == seat:
                raise IllegalEventError(f"{event.player!r} cannot point at themself",
                                        field="target")
            picks = replace(picks, target=self.players[target])
        if event.card is not None:
            if "card" in locked:
                raise IllegalEventError("the card was locked when the countdown ended",
                                        field="card")
            card, owner = self._find(state, event.card.strip())
            if owner is not None and owner != seat:
                raise IllegalEventError(
                    f"{card.id!r} lies in front of {self.players[owner]!r}: pick one of "
                    "your own cards or a centre card", field="card")
            if state.dead[seat] and (owner is not None or card.kind != "attack"
                                     or not card.face_up):
                raise IllegalEventError(
                    f"{event.player!r} is dead and may pick only a face-up attack card "
                    "from the centre", field="card")
            picks = replace(picks, card=card.id)
        all_picks = list(state.picks)
        all_picks[seat] = picks
        return replace(state, picks=tuple(all_picks))

    def _in_play(self, state: FingerGunsState, seat: int) -> bool:
        """Whether a player picks this round (the dead do only in Longshot)."""
        return not state.dead[seat] or self.opts.mode == "longshot"

    def _lock(self, state: FingerGunsState,
              event: Lock) -> tuple[FingerGunsState, list[Ruling]]:
        if not state.counting:
            raise IllegalEventError("no countdown is running to end", field="type")
        step = state.locked + 1
        pick = self.step_pick(state.round, step)
        missing = [self.players[s] for s in range(len(self.players))
                   if self._in_play(state, s) and getattr(state.picks[s], pick) is None]
        state = replace(state, locked=step, counting=False)
        rulings: list[Ruling] = [Locked(t=event.t, round=state.round, step=step, pick=pick,
                                        missing=missing)]
        if step == 2:
            state, more = self._resolve(state, event.t)
            rulings += more
        return state, rulings

    # -- resolution ----------------------------------------------------------------

    def _resolve(self, state: FingerGunsState,
                 t: float) -> tuple[FingerGunsState, list[Ruling]]:
        n = len(self.players)
        rulings: list[Ruling] = []
        used: dict[int, Card] = {}
        targets: dict[int, int] = {}
        for seat in range(n):
            picks = state.picks[seat]
            if not self._in_play(state, seat):
                continue
            if picks.target is None or picks.card is None:
                rulings.append(HoldsFire(t=t, player=self.players[seat], reason="no_pick"))
                continue
            used[seat] = self._find(state, picks.card)[0]
            targets[seat] = self.players.index(picks.target)
        # Face-down cards used are turned up.
        flipped = {c.id for c in used.values() if not c.face_up}
        for seat, card in used.items():
            if card.id in flipped:
                rulings.append(Revealed(t=t, player=self.players[seat], card=card.id,
                                        code=card.code, kind=card.kind, value=card.value))
        if flipped:
            state = _turn_up(state, flipped)
            used = {s: replace(c, face_up=True) for s, c in used.items()}

        # attacks[defender][attacker] = damage before shields
        attacks: list[dict[int, int]] = [{} for _ in range(n)]
        shields: list[tuple[int, int, int | None, tuple[int, ...]]] = []
        dead_attacks: list[tuple[int, int, Card]] = []
        for seat in sorted(used):
            card, target = used[seat], targets[seat]
            player = self.players[seat]
            if state.dead[seat]:
                if any(c.id == card.id for s, c in used.items() if s != seat):
                    rulings.append(HoldsFire(t=t, player=player, reason="same_card"))
                else:
                    dead_attacks.append((seat, target, card))
                continue
            if card.kind == "attack":
                attacks[target][seat] = attacks[target].get(seat, 0) + card.value
                rulings.append(Attack(t=t, player=player, target=self.players[target],
                                      card=card.id, value=card.value))
                continue
            exempt: int | None = target
            covers: tuple[int, ...] = (seat,)
            if self.opts.gun_gang:
                back = (targets.get(target) == seat and target in used
                        and used[target].kind == "attack")
                if not (self.opts.gun_gang_point_back and back):
                    exempt, covers = None, (seat, target)
            shields.append((seat, card.value, exempt, covers))
            rulings.append(Shield(
                t=t, player=player, card=card.id, value=card.value,
                exempt=None if exempt is None else self.players[exempt],
                shared_with=self.players[target] if len(covers) == 2 else None))
        # Longshot: a dead player's attack is cut by what the living dealt them.
        for seat, target, card in dead_attacks:
            taken = sum(attacks[seat].values())
            value = max(0, card.value - taken)
            if value == 0:
                rulings.append(HoldsFire(t=t, player=self.players[seat], reason="spent"))
                continue
            attacks[target][seat] = attacks[target].get(seat, 0) + value
            rulings.append(Attack(t=t, player=self.players[seat],
                                  target=self.players[target], card=card.id, value=value))
        damage = [_after_shields(attacks[d], [s for s in shields if d in s[3]])
                  for d in range(n)]
        return self._take_damage(state, used, damage, t, rulings)

    def _take_damage(self, state: FingerGunsState, used: dict[int, Card], damage: list[int],
                     t: float, rulings: list[Ruling]) -> tuple[FingerGunsState, list[Ruling]]:
        n = len(self.players)
        # Centre cards that were used leave the game.
        centre_used = list(dict.fromkeys(
            c.id for c in used.values() if any(c.id == k.id for k in state.centre)))
        for card_id in centre_used:
            rulings.append(CardRetired(t=t, card=card_id))
        state = replace(state,
                        centre=tuple(c for c in state.centre if c.id not in centre_used),
                        retired=state.retired + tuple(centre_used),
                        last_damage=tuple(damage))
        owed = [0] * n
        for seat in range(n):
            if damage[seat] == 0:
                continue
            lives = state.lives[seat]
            count = min(damage[seat], len(lives))
            rulings.append(Damage(t=t, player=self.players[seat], damage=damage[seat],
                                  lives=len(lives) - count))
            own = used.get(seat)
            own_id = own.id if own is not None and any(c.id == own.id for c in lives) else None
            if self.opts.pick_discards and count < len(lives):
                owed[seat] = count
                rulings.append(DiscardNeeded(t=t, player=self.players[seat], count=count,
                                             including=own_id))
                continue
            order = sorted(lives, key=lambda c: (c.id != own_id, c.value))
            state, ruling = self._lose(state, seat, [c.id for c in order[:count]], t)
            rulings.append(ruling)
        state = replace(state, owed=tuple(owed))
        if any(owed):
            return state, rulings
        return self._end_round(state, t, rulings)

    def _lose(self, state: FingerGunsState, seat: int, ids: Sequence[str],
              t: float) -> tuple[FingerGunsState, Ruling]:
        gone = [c for c in state.lives[seat] if c.id in ids]
        lives = list(state.lives)
        lives[seat] = tuple(c for c in state.lives[seat] if c.id not in ids)
        lost = list(state.lost)
        lost[seat] += len(gone)
        state = replace(state, lives=tuple(lives), lost=tuple(lost),
                        centre=state.centre + tuple(gone))
        return state, CardsLost(t=t, player=self.players[seat], cards=[c.id for c in gone])

    def _discard(self, state: FingerGunsState,
                 event: Discard) -> tuple[FingerGunsState, list[Ruling]]:
        seat = self.player_index(event.player)
        count = state.owed[seat]
        if not count:
            raise IllegalEventError(f"{event.player!r} has no cards to discard now",
                                    field="player")
        ids = [c.strip() for c in event.cards]
        own = {c.id for c in state.lives[seat]}
        if len(set(ids)) != len(ids) or len(ids) != count:
            raise IllegalEventError(f"{event.player!r} must name {count} different cards, "
                                    f"not {event.cards!r}", field="cards")
        if not set(ids) <= own:
            raise IllegalEventError(f"{sorted(set(ids) - own)!r} are not {event.player!r}'s "
                                    "life cards", field="cards")
        chosen = state.picks[seat].card
        if chosen in own and chosen not in ids:
            raise IllegalEventError(f"the card {event.player!r} used, {chosen!r}, must be "
                                    "among the cards lost", field="cards")
        state, ruling = self._lose(state, seat, ids, event.t)
        owed = list(state.owed)
        owed[seat] = 0
        state = replace(state, owed=tuple(owed))
        if any(owed):
            return state, [ruling]
        return self._end_round(state, event.t, [ruling])

    def _end_round(self, state: FingerGunsState, t: float,
                   rulings: list[Ruling]) -> tuple[FingerGunsState, list[Ruling]]:
        dead = list(state.dead)
        died = []
        for seat, cards in enumerate(state.lives):
            if not cards and not dead[seat]:
                dead[seat] = True
                died.append(seat)
                rulings.append(Dead(t=t, player=self.players[seat]))
        state = replace(state, dead=tuple(dead))
        rulings.append(Scores(t=t, scores={p: len(c) for p, c in
                                           zip(self.players, state.lives, strict=True)},
                              label="lives"))
        winners = self._winners(state, died)
        if winners:
            state = replace(state, over=True, winners=tuple(winners))
            rulings.append(Winner(t=t, player=winners[0]) if len(winners) == 1
                           else SharedWin(t=t, players=winners))
            return state, rulings
        n = len(self.players)
        return replace(state, round=state.round + 1, locked=0, counting=False,
                       picks=tuple(Picks() for _ in range(n))), rulings

    def _winners(self, state: FingerGunsState, died: list[int]) -> list[str]:
        alive = [s for s in range(len(self.players)) if not state.dead[s]]
        if self.opts.mode == "longshot":
            if len(alive) == 1:
                return [self.players[alive[0]]]
            if not alive:
                return [self.players[s] for s in died]
            return []
        if not any(state.dead):
            return []
        best = max(len(c) for c in state.lives)
        leaders = [s for s in range(len(self.players)) if len(state.lives[s]) == best]
        power = {s: max((c.value for c in state.lives[s] if c.kind == "attack"), default=0)
                 for s in leaders}
        top = max(power.values())
        return [self.players[s] for s in leaders if power[s] == top]

    # -- reading -------------------------------------------------------------------

    def winner(self, state: FingerGunsState) -> str | None:
        return state.winners[0] if len(state.winners) == 1 else None

    def phase(self, state: FingerGunsState) -> str:
        """``over``, ``discarding`` (waiting for ``discard`` events),
        ``countdown`` (a countdown is running) or ``picking``."""
        if state.over:
            return "over"
        if any(state.owed):
            return "discarding"
        return "countdown" if state.counting else "picking"

    def view(self, state: FingerGunsState) -> dict[str, Any]:
        """The table for every phone: lives, public cards, who has picked.

        A pick is shown only once its step is locked; before that only whether
        the player has picked. Face-down cards show as ``"?"``."""
        locked = self._locked_picks(state)
        step = None if state.locked >= 2 or state.over else state.locked + 1
        players = []
        for seat, name in enumerate(self.players):
            picks = state.picks[seat]
            entry: dict[str, Any] = {
                "name": name, "lives": len(state.lives[seat]), "dead": state.dead[seat],
                "lost": state.lost[seat], "owed": state.owed[seat],
                "last_damage": state.last_damage[seat],
                # Face-down cards in the order of their ids, not of the deal.
                "cards": [_shown(c) for c in state.lives[seat] if c.face_up] + sorted(
                    (_shown(c) for c in state.lives[seat] if not c.face_up),
                    key=lambda shown: shown["id"]),
                "picked": {"target": picks.target is not None, "card": picks.card is not None},
            }
            for pick in ("target", "card"):
                if pick in locked:
                    entry[pick] = getattr(picks, pick)
            players.append(entry)
        return {
            "round": state.round, "phase": self.phase(state), "step": step,
            "pick": None if step is None else self.step_pick(state.round, step),
            "counting": state.counting, "mode": self.opts.mode, "players": players,
            "centre": [_shown(c) for c in state.centre], "retired": len(state.retired),
            "winners": list(state.winners),
        }

    def private_view(self, state: FingerGunsState, player: str) -> dict[str, Any]:
        """``view`` plus what only ``player``'s own phone may show: their own
        picks this round. Raises ``IllegalEventError`` for an unknown player."""
        seat = self.player_index(player)
        out = self.view(state)
        picks = state.picks[seat]
        out["you"] = {"name": self.players[seat], "target": picks.target, "card": picks.card,
                      "dead": state.dead[seat]}
        return out


def _shown(card: Card) -> dict[str, Any]:
    return {"id": card.id, "code": card.code if card.face_up else "?"}


def _turn_up(state: FingerGunsState, ids: set[str]) -> FingerGunsState:
    def up(cards: tuple[Card, ...]) -> tuple[Card, ...]:
        return tuple(replace(c, face_up=True) if c.id in ids else c for c in cards)

    return replace(state, lives=tuple(up(c) for c in state.lives), centre=up(state.centre))


def _after_shields(attacks: dict[int, int],
                   shields: list[tuple[int, int, int | None, tuple[int, ...]]]) -> int:
    """Damage a defender takes: each shield (in its holder's seat order) takes
    its value off the attackers it does not exempt, attacker by attacker in
    seat order."""
    left = dict(attacks)
    for _, value, exempt, _ in sorted(shields):
        for attacker in sorted(left):
            if attacker == exempt or value == 0:
                continue
            cut = min(value, left[attacker])
            left[attacker] -= cut
            value -= cut
    return sum(left.values())


GAME = FingerGuns
