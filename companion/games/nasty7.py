"""The Nasty 7: the rules engine (pure: state + event -> state + rulings).

Source: ``rules/nasty7.md`` (the rulebook) and the decisions of DESIGN.md
where it is silent. In short:

* The count runs 1..7, then down to 1, then up again: after 7 comes 6, after
  1 comes 2. A round starts at one.
* Each card carries racketeers: racketeer 1, twin racketeer 2, phone 1,
  twin phone 2, gun 1. Every racketeer moves the count, whatever the card.
* The call: a racketeer card says its number, a twin racketeer the next two
  numbers; a phone card says the round's phone sound once per racketeer
  (instead of the numbers); a gun card is silence. After a twin card the next
  player skips their turn.
* A mistake (wrong number, wrong word, wrong sound, a flip out of turn, no
  call within ``hesitation`` seconds of the flip) ends the round: the
  offender takes the pile to the bottom of their stack and starts the next
  round at one.
* An accusation accuses the last caller. If the caller was wrong they take
  the pile; if not, the accusers do, split as evenly as possible, dealt one
  card at a time in seat order from the accused player's left, and whoever
  gets the last card starts.
* The first player whose stack is empty after a correct call wins.

Judging words: a ``say`` event carries the words heard and its onset ``t``.
A call is right once every word it needs has been heard; a right start whose
rest was never heard is left unsure (a missing word is weak evidence).
Only game words are judged (count words and phone sounds of the lexicon,
and this round's sound); other words are table talk and ignored, although
other speech heard surely counts as the onset of a call. Words with ``confidence`` below
``min_confidence`` are weak evidence: they may confirm a call but never
make a mistake on their own; the call is then left *unsure*, and an
accusation is ruled from the count against what was heard. Words below
``talk_confidence`` (table talk, as the ear marks it) are no evidence of a
mistake at all and do not pick the round's sound; nor are they the onset
of the call (DESIGN.md: the hesitation limit runs from the flip to the
onset of the call, not of other players' chatter), unless the array heard
them from the caller's own seat (``seat``): that voice is the caller's, so
it is the call's onset, though its words stay no evidence of a mistake.
Nor, unless from the caller's seat, is a voice with no word at or above
``min_confidence`` in it (noise the ear could not make out, a word it was
unsure of): it is not known to be the call (bench/RESULTS.md, "A voice
the ear could not make out is not the call's onset"). After talk or
such voices alone, a call's window stays open ``hesitation`` past them: a
sure call that then starts after the limit is a hesitation, and a window
that closes on them alone is unsure (the call may have been lost in
them), never a hesitation; so is a window that speech from before the
flip ran into.

A call's window runs from its flip to the next flip by the right player:
a call missing when the next card is flipped is ruled a hesitation.

Cards inferred from the call (a physical deck nobody taps): a ``flip``
without ``card`` (and without ``virtual_deck``) is judged as a referee who
cannot see the cards would, from the call alone (section "Cards inferred
from the call" below): the next number is a racketeer, the next two a twin
racketeer, the round's sound once or twice a phone or twin phone, silence a
gun. A word no card allows (a wrong number, a wrong sound) is a mistake at
once. What the call cannot settle is settled by a ``card`` event naming the
card (a tap, or the table's answer to the question an accusation raises).

While the companion cannot hear (a ``hearing`` event with ``on`` false: no
working microphone), calls are left unheard: no hesitation and no word
rulings; the count, turns, skips and accusations' piles are still kept.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Literal

import msgspec

from companion.errors import IllegalEventError, OptionError
from companion.events import Event, Hearing, Say
from companion.games.base import Game, Options
from companion.games.lexicon import spoken_words
from companion.rulings import Ruling, Scores, Winner

Card = Literal["racketeer", "twin_racketeer", "phone", "twin_phone", "gun"]
CARDS: tuple[Card, ...] = ("racketeer", "twin_racketeer", "phone", "twin_phone", "gun")
RACKETEERS: dict[str, int] = {
    "racketeer": 1, "twin_racketeer": 2, "phone": 1, "twin_phone": 2, "gun": 1}
"""How many racketeers each card shows: how far it moves the count."""
TWINS = frozenset({"twin_racketeer", "twin_phone"})
NUMBER_WORDS = range(0, 13)
"""The numbers the ear listens for: the count runs 1..7, but any number word
a player says instead (zero, eight .. twelve) is a wrong number."""
PHONES = frozenset({"phone", "twin_phone"})

MistakeKind = Literal["wrong_number", "wrong_word", "wrong_sound", "out_of_turn",
                      "hesitation", "false_accusation"]
CallStatus = Literal["pending", "ok", "mistake", "unsure", "settled", "asked"]
CardFrom = Literal["seen", "named", "inferred", "unknown"]
"""How the companion knows a call's card: ``seen`` in the flip (tapped, or
the virtual deck), ``named`` by a later ``card`` event, ``inferred`` from
the call, or ``unknown`` (not yet inferred)."""


# --- options ------------------------------------------------------------------

MAX_DECK = 1000
"""Most cards a composition may hold (the default deck has 110)."""


class Composition(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """How many cards of each kind the deck holds.

    The published counts are not known; this default makes 110 cards with
    racketeers the large majority and the special cards a steady spice:
    60 racketeers, 14 twin racketeers, 14 phones, 8 twin phones, 14 guns."""

    racketeer: int = 60
    twin_racketeer: int = 14
    phone: int = 14
    twin_phone: int = 8
    gun: int = 14

    def counts(self, *, younger: bool) -> dict[str, int]:
        """Cards per kind; the version for younger players leaves out the twins."""
        out = {card: int(getattr(self, card)) for card in CARDS}
        if younger:
            out["twin_racketeer"] = out["twin_phone"] = 0
        return out


class Nasty7Options(Options, frozen=True, kw_only=True):
    """House settings of The Nasty 7, with their defaults.

    ``hesitation``: seconds from the flip to the onset of the call before it
    is a hesitation (rulebook: 3 seconds). ``nasty``: the nasty rules (from
    the second round on, the round's first phone player picks the sound).
    ``even_more_nasty``: a starting player whose first card of the round is a
    mistake also takes one card from the top of each opponent's stack.
    ``younger``: the version for younger players (no twin cards).
    ``composition``: the deck. ``virtual_deck``: the companion deals and knows
    every card (a flip without ``card`` flips the top one), shuffled with
    ``seed`` (none given: 0 in a session file; the live table picks one from
    the operating system's randomness and stores it in the game's header);
    without ``virtual_deck`` a flip without ``card`` has its card inferred from
    the call. ``wait_for_tap``: live table with a physical deck only, a
    button press waits up to 10 s for its card from the tap pad instead of
    being the flip at once (the engine does not use it). ``min_confidence``:
    words heard with less confidence (0..1) are weak evidence (0.8: on
    generated speech in white noise at 10 dB SNR,
    pocketsphinx's wrong words reached 0.72 while 0.8 kept none of them;
    right words below it still confirm a call). ``talk_confidence``: game
    words below this (0..1) are not evidence of a mistake at all, not even
    doubt an accusation could rule on: the ear gives table talk around a call
    ``companion.referee.decision.TALK`` (0.1), and on generated table talk
    such words made a silent gun card unsure and would have let an accuser
    win on someone else's chatter; they may confirm a call (only the whole
    of what is still owed: not the first number of a twin), and they keep a
    window from closing as a hesitation, but they are not the call's onset
    [0.15]. ``first_player``: who starts (rulebook:
    the youngest; default the first seat)."""

    hesitation: float = 3.0
    nasty: bool = False
    even_more_nasty: bool = False
    younger: bool = False
    composition: Composition = msgspec.field(default_factory=Composition)
    virtual_deck: bool = False
    wait_for_tap: bool = False
    seed: int | None = None
    min_confidence: float = 0.8
    talk_confidence: float = 0.15
    first_player: str | None = None


# --- events -------------------------------------------------------------------


class Flip(Event, frozen=True, kw_only=True, tag="flip"):
    """``player`` flipped the top card of their stack onto the pile at ``t``.

    ``card``: its kind; left out, the virtual deck's top card, or (physical
    deck) a card inferred from the call."""

    player: str
    card: Card | None = None


class CardShown(Event, frozen=True, kw_only=True, tag="card"):
    """``player``'s last flip showed ``card``: a tap after the press, or the
    table's answer to "Which card did Beth flip?". Only the card of the call
    being judged (the last flip) can be named; raises ``IllegalEventError``
    (field ``player``) otherwise, and (field ``card``) when that card was
    seen and was another."""

    player: str
    card: Card


class Accuse(Event, frozen=True, kw_only=True, tag="accuse"):
    """The players ``by`` accuse the last caller of a mistake."""

    by: list[str]


class PhoneWord(Event, frozen=True, kw_only=True, tag="phone_word"):
    """Nasty rules: the sound the round's first phone player chose."""

    text: str


# --- rulings ------------------------------------------------------------------


class CallOk(Ruling, frozen=True, kw_only=True, tag="call_ok"):
    """``player``'s call was right; the count now stands at ``count``."""

    player: str
    count: int


class Mistake(Ruling, frozen=True, kw_only=True, tag="mistake"):
    """``player`` made a mistake of ``kind``. ``expected``: the right call's
    words; ``heard``: the game words heard; ``accused``: for a false
    accusation, whom they accused."""

    player: str
    kind: MistakeKind
    expected: list[str]
    heard: list[str]
    accused: str | None = None


class Pile(Ruling, frozen=True, kw_only=True, tag="pile"):
    """``player`` takes ``cards`` cards of the pile to the bottom of their stack."""

    player: str
    cards: int


class PenaltyCards(Ruling, frozen=True, kw_only=True, tag="penalty_cards"):
    """Even more nasty: ``player`` takes ``cards`` cards, one from the top of
    each opponent's stack."""

    player: str
    cards: int


class Round(Ruling, frozen=True, kw_only=True, tag="round"):
    """A new round starts at one with ``starter``."""

    starter: str


class SoundSet(Ruling, frozen=True, kw_only=True, tag="sound_set"):
    """Nasty rules: ``player`` chose ``sound`` as this round's phone sound."""

    player: str
    sound: str


class CardQuestion(Ruling, frozen=True, kw_only=True, tag="card_question"):
    """``by`` accused ``player``, whose card the companion only inferred: the
    table is asked which card ``player`` flipped (a ``card`` event answers)."""

    player: str
    by: list[str]


class AccusationUnheard(Ruling, frozen=True, kw_only=True, tag="accusation_unheard"):
    """An accusation of ``player``, whose call the companion did not hear:
    no ruling, play goes on."""

    player: str


# --- state --------------------------------------------------------------------


class Call(msgspec.Struct, frozen=True, kw_only=True):
    """The call owed for one flip.

    ``expected``: tokens of the right call (``"#5"`` for the number five, a
    sound's words otherwise; empty for a gun card). ``heard``: game tokens
    heard that fit so far; ``doubt``: weak game tokens that did not fit.
    ``words``: everything heard in the window, as said. ``onset``: the onset
    of the first speech in the window that was not table talk (seconds).
    ``talk_end``: the end of the last table talk heard before that onset
    (seconds; None if none). ``opening``: the starter's
    first card of the round. ``choose_sound``: nasty rules, this call picks
    the round's sound. For a card not seen at the flip: ``card_from`` (see
    ``CardFrom``; ``card`` is then the inference, a placeholder gun while
    ``unknown``), ``before`` (the count's ``last`` and ``direction`` before
    the flip), ``tokens`` (game tokens heard, each with whether it was sure),
    ``accused_by`` (accusers waiting for the card to be named),
    ``asked_open`` (they accused before the call's window closed) and
    ``ok_count`` (the count a ``call_ok`` was last ruled for).
    ``tentative``: some of ``heard`` came from a voice the ear was unsure
    of; a sure voice that starts the call again then replaces them."""

    player: int
    card: Card
    flip_t: float
    count: int
    expected: tuple[str, ...]
    heard: tuple[str, ...] = ()
    doubt: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    onset: float | None = None
    last_word: float | None = None
    talk_end: float | None = None
    status: CallStatus = "pending"
    opening: bool = False
    choose_sound: bool = False
    last_card: bool = False
    card_from: CardFrom = "seen"
    before: tuple[int, int] = (0, 1)
    tokens: tuple[tuple[str, bool], ...] = ()
    accused_by: tuple[int, ...] = ()
    asked_open: bool = False
    ok_count: int | None = None
    tentative: bool = False


StackCard = Card | None
"""A card in a stack: its kind, or None when the companion does not know it."""


class Nasty7State(msgspec.Struct, frozen=True, kw_only=True):
    """The whole table: stacks (index 0 is the top card), the pile, whose
    turn it is, the count and the call in progress. ``last``: the last
    number counted this round (0 before the first card); ``direction``:
    +1 counting up, -1 counting down. ``speech_end``: the end of the last
    speech heard (seconds on the table clock; None before any)."""

    t: float = 0.0
    stacks: tuple[tuple[StackCard, ...], ...]
    pile: tuple[StackCard, ...] = ()
    set_aside: int = 0
    turn: int = 0
    starter: int = 0
    round_no: int = 1
    last: int = 0
    direction: int = 1
    sound: str | None = None
    call: Call | None = None
    winner: int | None = None
    hearing: bool = True
    speech_end: float | None = None


# --- pure helpers -------------------------------------------------------------


def advance_count(last: int, direction: int, steps: int) -> tuple[list[int], int, int]:
    """The numbers said for ``steps`` racketeers after ``last`` (0 = round
    start), and the new ``(last, direction)``. 7 turns down, 1 turns up."""
    numbers = []
    for _ in range(steps):
        if last == 0:
            last, direction = 1, 1
        else:
            nxt = last + direction
            if nxt > 7:
                nxt, direction = 6, -1
            elif nxt < 1:
                nxt, direction = 2, 1
            last = nxt
        numbers.append(last)
    return numbers, last, direction


class Nasty7(Game[Nasty7State]):
    """The Nasty 7 for 2-6 players in seat order (clockwise)."""

    name = "nasty7"
    title = "The Nasty 7"
    min_players = 2
    max_players = 6
    options_type = Nasty7Options
    event_types = (Flip, Accuse, PhoneWord, CardShown)
    options: Nasty7Options

    def check_options(self) -> None:
        o = self.options
        if not 0 < o.hesitation <= 60:
            raise OptionError(f"hesitation must be above 0 and at most 60 seconds, "
                              f"not {o.hesitation!r}",
                              field="hesitation")
        for name in ("min_confidence", "talk_confidence"):
            value = getattr(o, name)
            if not 0.0 <= value <= 1.0:
                raise OptionError(f"{name} must be 0..1, not {value!r}", field=name)
        if o.talk_confidence > o.min_confidence:
            raise OptionError(f"talk_confidence ({o.talk_confidence!r}) cannot be above "
                              f"min_confidence ({o.min_confidence!r})", field="talk_confidence")
        counts = o.composition.counts(younger=o.younger)
        if any(v < 0 for v in counts.values()):
            raise OptionError(f"card counts cannot be negative: {counts!r}", field="composition")
        if sum(counts.values()) > MAX_DECK:
            raise OptionError(f"a deck of {sum(counts.values())} cards is more than a table "
                              f"can hold (at most {MAX_DECK})", field="composition")
        if sum(counts.values()) < len(self.players):
            raise OptionError(f"a deck of {sum(counts.values())} cards is too small for "
                              f"{len(self.players)} players", field="composition")
        if o.first_player is not None:
            try:
                self.player_index(o.first_player, field="first_player")
            except IllegalEventError as exc:
                raise OptionError(str(exc), field="first_player") from None

    # -- tokens ------------------------------------------------------------

    def _token(self, word: str) -> str:
        n = self.lexicon.number(word)
        return f"#{n}" if n is not None else word

    def _tokens(self, text: str) -> tuple[str, ...]:
        return tuple(self._token(w) for w in spoken_words(text))

    def _say_token(self, token: str) -> str:
        return self.lexicon.number_word(int(token[1:])) if token.startswith("#") else token

    def _sound_tokens(self, state: Nasty7State) -> set[str]:
        sounds = [self.lexicon.default_sound, *self.lexicon.sounds]
        if state.sound:
            sounds.append(state.sound)
        return {tok for s in sounds for tok in self._tokens(s)}

    def _is_game_token(self, token: str, state: Nasty7State) -> bool:
        return token.startswith("#") or token in self._sound_tokens(state)

    # -- setup -------------------------------------------------------------

    def start(self) -> Nasty7State:
        o = self.options
        counts = o.composition.counts(younger=o.younger)
        total = sum(counts.values())
        n = len(self.players)
        per = total // n
        if o.virtual_deck:
            deck: list[StackCard] = [c for c in CARDS for _ in range(counts[c])]
            random.Random(0 if o.seed is None else o.seed).shuffle(deck)
            stacks = tuple(tuple(deck[i::n][:per]) for i in range(n))
        else:
            stacks = tuple(tuple([None] * per) for _ in range(n))
        first = self.player_index(o.first_player) if o.first_player else 0
        return Nasty7State(stacks=stacks, set_aside=total - per * n, turn=first, starter=first,
                           sound=self.lexicon.default_sound)

    def deck_size(self) -> int:
        """Cards in play plus those set aside: what the stacks and pile always add up to."""
        return sum(self.options.composition.counts(younger=self.options.younger).values())

    # -- the fold ------------------------------------------------------------

    def apply(self, state: Nasty7State, event: Event) -> tuple[Nasty7State, list[Ruling]]:
        self.check_time_and_end(state.t, event, self.winner(state))
        rulings: list[Ruling] = []
        state = self._advance(state, event.t, rulings)
        state = msgspec.structs.replace(state, t=event.t)
        if state.winner is not None:
            return state, rulings
        if isinstance(event, Flip):
            state = self._flip(state, event, rulings)
        elif isinstance(event, Say):
            state = self._say(state, event, rulings)
        elif isinstance(event, Accuse):
            state = self._accuse(state, event, rulings)
        elif isinstance(event, PhoneWord):
            state = self._phone_word(state, event, rulings)
        elif isinstance(event, CardShown):
            state = self._card_shown(state, event, rulings)
        elif isinstance(event, Hearing):
            state = msgspec.structs.replace(state, hearing=event.on)
            if not event.on and state.call is not None and state.call.status == "pending":
                state = self._set_call(state, status="unsure", rulings=rulings, t=event.t)
        return state, rulings

    def on_undo(self, state: Nasty7State, t: float) -> Nasty7State:
        """An undo waives a call's deadline that has already passed: the call
        is left unsure (accusable) instead of being ruled again at once."""
        call = state.call
        if call is not None and call.status == "pending" and t > self._deadline(call):
            if call.card_from in ("unknown", "inferred"):
                # As the window's close would have left it (a tick that ruled
                # nothing is not kept); a last card's win is ruled again.
                return self._close_inferred(state, self._deadline(call), [])
            return msgspec.structs.replace(state, call=msgspec.structs.replace(call,
                                                                               status="unsure"))
        return state

    # -- time ----------------------------------------------------------------

    def deadline(self, state: Nasty7State) -> float | None:
        """The end of the pending call's window (the hesitation limit past
        the flip, or past the last word heard), or None."""
        call = state.call
        if call is None or call.status != "pending":
            return None
        return self._deadline(call)

    def _deadline(self, call: Call) -> float:
        limit = self.options.hesitation
        if call.onset is None:
            if call.talk_end is not None and (call.expected or call.choose_sound
                                              or call.card_from == "unknown"):
                # Only talk so far: the call may be in it, or still to come
                # (late). Wait a limit past the talk to hear which.
                return max(call.flip_t + limit, call.talk_end) + limit
            return call.flip_t + limit
        return max(call.flip_t, call.last_word or call.onset) + limit

    def _advance(self, state: Nasty7State, t: float, rulings: list[Ruling]) -> Nasty7State:
        """Resolve a pending call whose deadline has passed by time ``t``."""
        call = state.call
        if call is None or call.status != "pending" or t <= self._deadline(call):
            return state
        return self._close(state, self._deadline(call), rulings)

    def _close(self, state: Nasty7State, t: float, rulings: list[Ruling]) -> Nasty7State:
        """End a pending call's window at ``t`` (deadline or next flip)."""
        call = state.call
        assert call is not None and call.status == "pending"
        if call.card_from in ("unknown", "inferred"):
            return self._close_inferred(state, t, rulings)
        if not call.expected and not call.doubt and not call.choose_sound:
            return self._call_ok(state, t, rulings)  # a gun card kept silent
        if call.onset is None and call.talk_end is None:
            return self._mistake(state, t, call.player, "hesitation", rulings)
        # Only table talk (the call may be in it), speech without sure game
        # words, or a right start with the rest not heard: a missing word is
        # weak evidence, so never a mistake by itself.
        return self._set_call(state, status="unsure", rulings=rulings, t=t)

    # -- events --------------------------------------------------------------

    def _flip(self, state: Nasty7State, event: Flip, rulings: list[Ruling]) -> Nasty7State:
        p = self.player_index(event.player)
        stack = state.stacks[p]
        if not stack:
            raise IllegalEventError(f"{self.players[p]} has no cards to flip", field="player")
        top = stack[0]
        card = event.card
        if self.options.younger and card in TWINS:
            raise IllegalEventError(f"the younger version has no twin cards, not {card!r}",
                                    field="card")
        if self.options.virtual_deck:
            if card is not None and card != top:
                raise IllegalEventError(f"{self.players[p]}'s top card is {top!r}, not {card!r}",
                                        field="card")
            card = top
        if state.call is not None and state.call.status == "asked":
            raise IllegalEventError(f"first answer which card {self.players[state.call.player]} "
                                    "flipped", field="type")
        if p != state.turn:
            # Played out of turn, or instead of skipping: the card joins the pile
            # and the round ends on it. A pending call of the previous player is
            # dropped with the round.
            state = self._take_top(state, p, card)
            return self._mistake(state, event.t, p, "out_of_turn", rulings,
                                 expected=[self.players[state.turn]])
        state = self._take_top(state, p, card)
        if state.call is not None and state.call.status == "pending":
            # The next card closes the previous call's window. If that call was
            # a mistake, this card is already on the pile the offender takes.
            round_no = state.round_no
            state = self._close(state, event.t, rulings)
            if state.winner is not None or state.round_no != round_no:
                return state
        opening = len(state.pile) == 1 and p == state.starter
        if card is None:
            return self._flip_unseen(state, p, event.t, opening, rulings)
        numbers, last, direction = advance_count(state.last, state.direction, RACKETEERS[card])
        choose = False
        if card == "gun":
            expected: tuple[str, ...] = ()
        elif card in PHONES:
            if state.sound is None:
                choose, expected = True, ()
            else:
                expected = self._tokens(state.sound) * RACKETEERS[card]
        else:
            expected = tuple(f"#{n}" for n in numbers)
        # Speech heard from before the flip and running into it: the call may be
        # inside it, so its window is treated as one that began with talk.
        running = state.speech_end if (state.speech_end or 0.0) > event.t else None
        call = Call(player=p, card=card, flip_t=event.t, count=last, expected=expected,
                    opening=opening, choose_sound=choose, last_card=not state.stacks[p],
                    talk_end=running)
        skip = 2 if card in TWINS else 1
        state = msgspec.structs.replace(state, last=last, direction=direction, call=call,
                                        turn=(p + skip) % len(self.players))
        if not state.hearing:  # nothing can be judged by ear: the call is unheard
            state = self._set_call(state, status="unsure", rulings=rulings, t=event.t)
        return state

    def _say(self, state: Nasty7State, event: Say, rulings: list[Ruling]) -> Nasty7State:
        if state.hearing:
            heard_to = event.end if event.end is not None else event.t
            state = msgspec.structs.replace(
                state, speech_end=max(heard_to, state.speech_end or heard_to))
        call = state.call
        if call is None or not state.hearing:
            return state
        if event.t < call.flip_t:
            return state
        if event.seat is not None and event.seat != self.players[call.player]:
            return self._other_seat(state, event)
        words = spoken_words(event.text)
        strong = event.confidence >= self.options.min_confidence
        talk = event.confidence < self.options.talk_confidence
        end = event.end if event.end is not None else event.t
        late = False
        if call.onset is not None:
            onset, talk_end = call.onset, call.talk_end
        elif event.seat is None and not strong:
            # Table talk (below talk_confidence, never above min_confidence),
            # or a voice with no sure word in it: not known to be the call,
            # so not its onset (the limit runs to the call's onset).
            onset, talk_end = None, max(end, call.talk_end or end)
        else:
            onset, talk_end = event.t, call.talk_end
            late = talk_end is not None and event.t > call.flip_t + self.options.hesitation
        call = msgspec.structs.replace(call, words=call.words + tuple(words), onset=onset,
                                       talk_end=talk_end,
                                       last_word=max(end, call.last_word or end))
        state = msgspec.structs.replace(state, call=call)
        if call.status == "pending" and call.card_from in ("unknown", "inferred"):
            return self._infer_from_words(state, event, words, strong=strong, talk=talk,
                                          late=late, rulings=rulings)
        if call.status != "pending":
            return state
        if late and strong:
            # Only table talk before it, and this sure call began after the limit.
            return self._mistake(state, event.t, call.player, "hesitation", rulings,
                                 heard=words)
        if call.choose_sound:
            if talk:
                return state  # table talk does not pick the round's sound
            return self._choose_sound(state, words, event.t, rulings)
        tokens = [tok for tok in self._tokens(event.text) if self._is_game_token(tok, state)]
        if talk and not _holds(tokens, call.expected[len(call.heard):]):
            # Table talk confirms a call only whole: the first number of a twin
            # said in talk would make the caller's own first number, said
            # after it, a second one (a wrong number).
            return state
        for token in tokens:
            call = state.call
            assert call is not None
            position = len(call.heard)
            fits = position < len(call.expected) and call.expected[position] == token
            if not fits and strong and call.tentative and call.expected[:1] == (token,):
                # The numbers heard so far came with words the ear was unsure
                # of (talk, or a garbled hearing); this sure voice starts the
                # call again instead of repeating its first number.
                call = msgspec.structs.replace(call, heard=(), tentative=False)
                state = msgspec.structs.replace(state, call=call)
                position, fits = 0, True
            if fits:
                state = self._set_call(state, heard=(*call.heard, token),
                                       tentative=call.tentative or not strong)
                if len(call.heard) + 1 == len(call.expected):
                    return self._call_ok(state, event.t, rulings)
                continue
            if talk:
                continue  # no evidence of a mistake at all
            if not strong:
                state = self._set_call(state, doubt=(*call.doubt, token))
                continue
            kind = self._kind(call, token)
            return self._mistake(state, event.t, call.player, kind, rulings,
                                 heard=[*map(self._say_token, call.heard), self._say_token(token)])
        return state

    def _other_seat(self, state: Nasty7State, event: Say) -> Nasty7State:
        """A voice the array heard from another player's seat is not the
        caller's call: not its onset, not its words, no evidence of a
        mistake. Like table talk, it keeps the window open while the caller
        is talked over (a call after it is not a hesitation)."""
        call = state.call
        assert call is not None
        if call.onset is not None or call.status != "pending":
            return state
        end = event.end if event.end is not None else event.t
        call = msgspec.structs.replace(call, talk_end=max(end, call.talk_end or end))
        return msgspec.structs.replace(state, call=call)

    def speaker(self, state: Nasty7State) -> str | None:
        """The player whose call is awaited (the last flip's), else whose turn it is."""
        if state.call is not None and state.call.status == "pending":
            return self.players[state.call.player]
        return self.players[state.turn] if self.players else None

    def _kind(self, call: Call, token: str) -> MistakeKind:
        if not call.expected:
            return "wrong_word"  # any game word on a gun card
        want = call.expected[min(len(call.heard), len(call.expected) - 1)]
        if want.startswith("#"):
            return "wrong_number" if token.startswith("#") else "wrong_word"
        return "wrong_word" if token.startswith("#") else "wrong_sound"

    def _choose_sound(self, state: Nasty7State, words: list[str], t: float,
                      rulings: list[Ruling]) -> Nasty7State:
        call = state.call
        assert call is not None
        if not words:
            return state
        reps = RACKETEERS[call.card]
        half = len(words) // 2
        if reps == 2 and len(words) % 2 == 0 and words[:half] == words[half:]:
            sound_words = words[:half]
        else:
            sound_words = words
        sound = " ".join(sound_words)
        rulings.append(SoundSet(t=t, player=self.players[call.player], sound=sound))
        expected = self._tokens(sound) * reps
        heard = tuple(self._token(w) for w in words)[: len(expected)]
        state = msgspec.structs.replace(state, sound=sound)
        state = self._set_call(state, expected=expected, heard=heard, choose_sound=False)
        if len(heard) == len(expected):
            return self._call_ok(state, t, rulings)
        return state

    def _phone_word(self, state: Nasty7State, event: PhoneWord,
                    rulings: list[Ruling]) -> Nasty7State:
        sound = " ".join(spoken_words(event.text))
        if not sound:
            raise IllegalEventError("the phone sound is empty", field="text")
        if state.sound is not None:
            if sound == state.sound:
                return state
            raise IllegalEventError(f"this round's sound is already {state.sound!r}",
                                    field="text")
        call = state.call
        player = self.players[call.player] if call is not None else self.players[state.turn]
        rulings.append(SoundSet(t=event.t, player=player, sound=sound))
        state = msgspec.structs.replace(state, sound=sound)
        if call is not None and call.choose_sound:
            expected = self._tokens(sound) * RACKETEERS[call.card]
            state = self._set_call(state, expected=expected, choose_sound=False)
        return state

    def _accuse(self, state: Nasty7State, event: Accuse, rulings: list[Ruling]) -> Nasty7State:
        call = state.call
        if not event.by:
            raise IllegalEventError("an accusation needs at least one accuser", field="by")
        accusers = sorted({self.player_index(b, field="by") for b in event.by})
        if call is None or call.status in ("mistake", "settled"):
            raise IllegalEventError("there is no call to accuse in this round", field="type")
        if call.player in accusers:
            raise IllegalEventError(f"{self.players[call.player]} cannot accuse themself",
                                    field="by")
        t = event.t
        if call.card_from != "seen":
            return self._accuse_unseen(state, t, accusers, rulings)
        if call.status == "ok" or (call.card == "gun" and not call.doubt):
            wrong = False
        elif call.doubt:
            wrong = True
        else:  # nothing judgeable heard, or only the right start of the call
            rulings.append(AccusationUnheard(t=t, player=self.players[call.player]))
            return state
        if wrong:
            token = call.doubt[0]
            kind = self._kind(call, token)
            heard = [*map(self._say_token, call.heard), *map(self._say_token, call.doubt)]
            return self._mistake(state, t, call.player, kind, rulings, heard=heard)
        return self._false_accusation(state, t, accusers, rulings)

    def _false_accusation(self, state: Nasty7State, t: float, accusers: list[int],
                          rulings: list[Ruling]) -> Nasty7State:
        call = state.call
        assert call is not None
        for a in accusers:
            rulings.append(Mistake(t=t, player=self.players[a], kind="false_accusation",
                                   expected=[self._say_token(x) for x in call.expected],
                                   heard=[self._say_token(x) for x in call.heard],
                                   accused=self.players[call.player]))
        return self._split_pile(state, t, call.player, accusers, rulings)

    # -- cards inferred from the call -------------------------------------------
    #
    # A physical deck nobody taps: the companion hears the call but cannot
    # see the card, and judges as a referee at the table would. The call
    # names its card: the next number is a racketeer, the next two numbers a
    # twin racketeer, the round's sound once or twice a phone or twin phone,
    # silence a gun. Every card moves the count by one except the twins, so
    # until a twin is heard the count moves one and the next player is up.
    # A word that no card allows here is a mistake whatever the card. What
    # the call cannot settle (a number said on a gun card, one number on a
    # twin card, silence on a racketeer) waits for the card to be named: an
    # accusation asks the table (``CardQuestion``), a ``card`` event answers.

    def _flip_unseen(self, state: Nasty7State, p: int, t: float, opening: bool,
                     rulings: list[Ruling]) -> Nasty7State:
        """A flip whose card is inferred from the call: provisionally one
        racketeer (the count moves one, the next player is up)."""
        _numbers, last, direction = advance_count(state.last, state.direction, 1)
        call = Call(player=p, card="gun", flip_t=t, count=last, expected=(), opening=opening,
                    last_card=not state.stacks[p], card_from="unknown",
                    before=(state.last, state.direction))
        state = msgspec.structs.replace(state, last=last, direction=direction, call=call,
                                        turn=(p + 1) % len(self.players))
        if not state.hearing:
            state = self._set_call(state, status="unsure", rulings=rulings, t=t)
        return state

    def _expected_for(self, state: Nasty7State, call: Call, card: Card) -> tuple[str, ...] | None:
        """The right call's tokens for ``card`` on ``call``'s flip; None for a
        phone while the round's sound is still to be chosen."""
        if card == "gun":
            return ()
        if card in PHONES:
            return self._tokens(state.sound) * RACKETEERS[card] if state.sound else None
        numbers, _last, _direction = advance_count(*call.before, RACKETEERS[card])
        return tuple(f"#{n}" for n in numbers)

    def _candidates(self, state: Nasty7State, call: Call) -> dict[Card, tuple[str, ...]]:
        """Every card this flip can be, with its right call (shortest first)."""
        out: dict[Card, tuple[str, ...]] = {}
        for card in CARDS:
            if self.options.younger and card in TWINS:
                continue
            expected = self._expected_for(state, call, card)
            if expected is not None:
                out[card] = expected
        return out

    def _infer_from_words(self, state: Nasty7State, event: Say, words: list[str], *,
                          strong: bool, talk: bool, late: bool,
                          rulings: list[Ruling]) -> Nasty7State:
        call = state.call
        assert call is not None
        if talk or not words:
            return state  # table talk says nothing about the card
        if state.sound is None and not call.tokens \
                and not any(self.lexicon.number(w) is not None for w in words):
            return self._infer_chosen_sound(state, words, event.t, rulings)
        tokens = [tok for tok in self._tokens(event.text) if self._is_game_token(tok, state)]
        if tokens and late and strong:
            # Only table talk before it, and this sure call began after the
            # limit: too slow whatever the card (on a gun card, wrong anyway).
            return self._mistake(state, event.t, call.player, "hesitation", rulings,
                                 expected=[], heard=[self._say_token(x) for x in tokens])
        ok_before = call.ok_count
        for token in tokens:
            call = state.call
            assert call is not None
            if call.status != "pending":
                break
            candidates = self._candidates(state, call)
            position = len(call.heard)
            going = [e for e in candidates.values()
                     if e[:position] == call.heard and len(e) > position]
            state = self._set_call(state, tokens=(*call.tokens, (token, strong)))
            if any(e[position] == token for e in going):
                heard = (*call.heard, token)
                state = self._set_call(state, heard=heard)
                done = [card for card, e in candidates.items() if e == heard]
                if done:
                    state = self._settle_inferred(state, done[0])
                continue
            if not strong:
                state = self._set_call(state, doubt=(*call.doubt, token))
                continue
            return self._inferred_mistake(state, token, going, candidates, event.t, rulings)
        if state.call is not None and state.call.ok_count != ok_before:
            return self._inferred_ok(state, event.t, rulings)
        return state

    def _inferred_mistake(self, state: Nasty7State, token: str, going: list[tuple[str, ...]],
                          candidates: dict[Card, tuple[str, ...]], t: float,
                          rulings: list[Ruling]) -> Nasty7State:
        """A sure word no card allows after what was heard: a mistake."""
        call = state.call
        assert call is not None
        position = len(call.heard)
        said_number = token.startswith("#")
        if going:
            # What was wanted next: a number if any card goes on with one here.
            wants = [e[position] for e in going]
            same = [w for w in wants if w.startswith("#") == said_number]
            want = same[0] if same else wants[0]
            expected = next(e for e in going if e[position] == want)
            if said_number:
                kind: MistakeKind = "wrong_number" if want.startswith("#") else "wrong_word"
            else:
                kind = "wrong_sound" if not want.startswith("#") else "wrong_word"
        else:  # the call was already complete: nothing more may be said
            expected = next(e for e in candidates.values() if e == call.heard)
            kind = "wrong_number" if said_number else "wrong_word"
        if position == 0 and said_number:
            expected = candidates.get("racketeer", expected)
        return self._mistake(state, t, call.player, kind, rulings,
                             expected=[self._say_token(x) for x in expected],
                             heard=[*map(self._say_token, call.heard), self._say_token(token)])

    def _infer_chosen_sound(self, state: Nasty7State, words: list[str], t: float,
                            rulings: list[Ruling]) -> Nasty7State:
        """Nasty rules, no sound yet this round: words that are no number
        choose the sound, so the card is a phone (the sound said twice: a
        twin phone)."""
        call = state.call
        assert call is not None
        half = len(words) // 2
        twice = len(words) % 2 == 0 and words[:half] == words[half:] \
            and not self.options.younger
        sound = " ".join(words[:half] if twice else words)
        rulings.append(SoundSet(t=t, player=self.players[call.player], sound=sound))
        state = msgspec.structs.replace(state, sound=sound)
        tokens = tuple(self._token(w) for w in words)
        state = self._set_call(state, heard=tokens, tokens=tuple((x, True) for x in tokens))
        state = self._settle_inferred(state, "twin_phone" if twice else "phone")
        return self._inferred_ok(state, t, rulings)

    def _settle_inferred(self, state: Nasty7State, card: Card) -> Nasty7State:
        """The call heard so far is ``card``'s right call: move the count and
        the turn for it. A twin's call is complete; a single one's window
        stays open, as the second number of a twin may still come."""
        call = state.call
        assert call is not None
        _numbers, last, direction = advance_count(*call.before, RACKETEERS[card])
        skip = 2 if card in TWINS else 1
        call = msgspec.structs.replace(call, card=card, card_from="inferred", count=last,
                                       expected=call.heard, ok_count=last,
                                       status="ok" if card in TWINS else "pending")
        return msgspec.structs.replace(state, call=call, last=last, direction=direction,
                                       turn=(call.player + skip) % len(self.players))

    def _inferred_ok(self, state: Nasty7State, t: float, rulings: list[Ruling]) -> Nasty7State:
        """Rule the inferred call right, at the count it now stands at."""
        call = state.call
        assert call is not None
        rulings.append(CallOk(t=t, player=self.players[call.player], count=call.count))
        if call.last_card:
            return self._win(state, t, call.player, rulings)
        return state

    def _close_inferred(self, state: Nasty7State, t: float, rulings: list[Ruling]) -> Nasty7State:
        """The window of a call judged by inference closes at ``t``."""
        call = state.call
        assert call is not None
        if call.card_from == "inferred":
            return self._set_call(state, status="ok")  # a single card's call, heard right
        if not call.heard and not call.doubt and call.onset is None and call.talk_end is None:
            # Silence: a gun card, or a racketeer forgotten. Only the card can
            # tell, so nothing is ruled until it is named.
            return self._set_call(state, card="gun", card_from="inferred", status="unsure",
                                  rulings=rulings, t=t)
        return self._set_call(state, status="unsure", rulings=rulings, t=t)

    def _accuse_unseen(self, state: Nasty7State, t: float, accusers: list[int],
                       rulings: list[Ruling]) -> Nasty7State:
        """An accusation of a call whose card was not seen at the flip."""
        call = state.call
        assert call is not None
        if call.status == "asked":  # more accusers while the table is asked
            by = tuple(sorted({*call.accused_by, *accusers}))
            return self._set_call(state, accused_by=by)
        if not state.hearing:
            rulings.append(AccusationUnheard(t=t, player=self.players[call.player]))
            return state
        state = self._set_call(state, accused_by=tuple(accusers), status="asked",
                               asked_open=call.status == "pending")
        if call.card_from == "named":
            return self._judge_named(state, call.card, t, rulings, was_pending=False)
        rulings.append(CardQuestion(t=t, player=self.players[call.player],
                                    by=[self.players[a] for a in accusers]))
        return state

    def _card_shown(self, state: Nasty7State, event: CardShown,
                    rulings: list[Ruling]) -> Nasty7State:
        p = self.player_index(event.player)
        call = state.call
        if call is None or call.player != p:
            raise IllegalEventError(f"{self.players[p]}'s card can be named only while their "
                                    "flip is the last one", field="player")
        if self.options.younger and event.card in TWINS:
            raise IllegalEventError(f"the younger version has no twin cards, not {event.card!r}",
                                    field="card")
        if call.card_from in ("seen", "named"):
            if event.card == call.card:
                return state
            raise IllegalEventError(f"{self.players[p]}'s card is already known: "
                                    f"{call.card.replace('_', ' ')}", field="card")
        if call.status in ("mistake", "settled"):
            # The round already ended on this call (a wrong number is wrong
            # whatever the card): the card is noted, nothing else changes.
            return self._set_call(state, card=event.card, card_from="named")
        return self._judge_named(state, event.card, event.t, rulings,
                                 was_pending=call.status == "pending")

    def _judge_named(self, state: Nasty7State, card: Card, t: float, rulings: list[Ruling], *,
                     was_pending: bool) -> Nasty7State:
        """Judge the call again now that its card is known: the count and the
        turn follow the card, and the words heard are held against its right
        call. An open window (no accusation) stays open; an accusation is
        ruled at once."""
        call = state.call
        assert call is not None
        p = call.player
        _numbers, last, direction = advance_count(*call.before, RACKETEERS[card])
        expected = self._expected_for(state, call, card)
        choose = expected is None
        want = expected or ()
        heard: list[str] = []
        doubt: list[str] = []
        wrong: str | None = None
        for token, strong in call.tokens:
            if len(heard) < len(want) and want[len(heard)] == token:
                heard.append(token)
            elif strong:
                wrong = token
                break
            else:
                doubt.append(token)
        skip = 2 if card in TWINS else 1
        pile = state.pile
        if pile and pile[-1] is None:
            pile = (*pile[:-1], card)
        named = msgspec.structs.replace(call, card=card, card_from="named", expected=want,
                                        heard=tuple(heard), doubt=tuple(doubt), count=last,
                                        choose_sound=choose)
        state = msgspec.structs.replace(state, call=named, last=last, direction=direction,
                                        turn=(p + skip) % len(self.players), pile=pile)
        accusers = list(call.accused_by)
        if wrong is not None:
            return self._mistake(state, t, p, self._kind(named, wrong), rulings,
                                 heard=[*map(self._say_token, heard), self._say_token(wrong)])
        if not choose and len(heard) == len(want):
            if was_pending and not want:
                return state  # a gun: silence is right only once the window closes
            if call.ok_count != last:
                rulings.append(CallOk(t=t, player=self.players[p], count=last))
            state = self._set_call(state, status="ok" if not was_pending or want else "pending",
                                   ok_count=last)
            if call.last_card and call.ok_count != last:
                return self._win(state, t, p, rulings)
            if accusers:
                return self._false_accusation(state, t, accusers, rulings)
            return state
        if was_pending:
            return self._set_call(state, status="pending")  # the rest may still come
        if accusers and call.asked_open and not doubt:
            # Accused before the call was due in full: what was heard is right
            # so far, and the rest may not have been said yet.
            rulings.append(AccusationUnheard(t=t, player=self.players[p]))
            return self._set_call(state, status="unsure", accused_by=())
        silent = not heard and not doubt and call.onset is None and call.talk_end is None
        if silent and state.hearing and not choose:
            return self._mistake(state, t, p, "hesitation", rulings)  # silence on a called card
        if not accusers:
            return self._set_call(state, status="unsure", rulings=rulings, t=t)
        if doubt:
            return self._mistake(state, t, p, self._kind(named, doubt[0]), rulings,
                                 heard=[*map(self._say_token, (*heard, *doubt))])
        if heard and not choose and state.hearing:
            # A right start and nothing more (one number on a twin card, the
            # sound once on a twin phone): the call fell short.
            kind: MistakeKind = "wrong_number" if want[0].startswith("#") else "wrong_sound"
            return self._mistake(state, t, p, kind, rulings)
        rulings.append(AccusationUnheard(t=t, player=self.players[p]))
        return self._set_call(state, status="unsure", accused_by=())

    # -- outcomes -------------------------------------------------------------

    def _set_call(self, state: Nasty7State, *, rulings: list[Ruling] | None = None,
                  t: float | None = None, **changes: Any) -> Nasty7State:
        assert state.call is not None
        call = msgspec.structs.replace(state.call, **changes)
        state = msgspec.structs.replace(state, call=call)
        if changes.get("status") == "unsure" and call.last_card and rulings is not None:
            # Nobody could prove the last call wrong: the benefit of the doubt.
            assert t is not None
            return self._win(state, t, call.player, rulings)
        return state

    def _call_ok(self, state: Nasty7State, t: float, rulings: list[Ruling]) -> Nasty7State:
        call = state.call
        assert call is not None
        rulings.append(CallOk(t=t, player=self.players[call.player], count=call.count))
        state = self._set_call(state, status="ok")
        if call.last_card:
            return self._win(state, t, call.player, rulings)
        return state

    def _win(self, state: Nasty7State, t: float, p: int, rulings: list[Ruling]) -> Nasty7State:
        rulings.append(Winner(t=t, player=self.players[p]))
        rulings.append(Scores(t=t, label="cards left",
                              scores={n: len(s) for n, s in zip(self.players, state.stacks,
                                                                strict=True)}))
        return msgspec.structs.replace(state, winner=p)

    def _take_top(self, state: Nasty7State, p: int, card: StackCard) -> Nasty7State:
        stacks = list(state.stacks)
        stacks[p] = stacks[p][1:]
        return msgspec.structs.replace(state, stacks=tuple(stacks), pile=(*state.pile, card))

    def _mistake(self, state: Nasty7State, t: float, p: int, kind: MistakeKind,
                 rulings: list[Ruling], *, expected: list[str] | None = None,
                 heard: list[str] | None = None) -> Nasty7State:
        call = state.call
        on_call = call is not None and call.player == p and kind != "out_of_turn"
        if expected is None:
            expected = [self._say_token(x) for x in call.expected] if on_call and call else []
        if heard is None:
            heard = [self._say_token(x) for x in call.heard] if on_call and call else []
        rulings.append(Mistake(t=t, player=self.players[p], kind=kind, expected=expected,
                               heard=heard))
        if call is not None and on_call:
            state = self._set_call(state, status="mistake")
        opening = bool(on_call and call is not None and call.opening)
        stacks = list(state.stacks)
        stacks[p] = stacks[p] + state.pile
        rulings.append(Pile(t=t, player=self.players[p], cards=len(state.pile)))
        if self.options.even_more_nasty and opening and p == state.starter:
            taken: list[StackCard] = []
            for i in range(len(stacks)):
                if i != p and stacks[i]:
                    taken.append(stacks[i][0])
                    stacks[i] = stacks[i][1:]
            stacks[p] = stacks[p] + tuple(taken)
            rulings.append(PenaltyCards(t=t, player=self.players[p], cards=len(taken)))
        state = msgspec.structs.replace(state, stacks=tuple(stacks), pile=())
        return self._new_round(state, t, p, rulings)

    def _split_pile(self, state: Nasty7State, t: float, accused: int, accusers: list[int],
                    rulings: list[Ruling]) -> Nasty7State:
        n = len(self.players)
        order = [(accused + k) % n for k in range(1, n) if (accused + k) % n in accusers]
        shares: dict[int, list[StackCard]] = {a: [] for a in order}
        for i, card in enumerate(state.pile):
            shares[order[i % len(order)]].append(card)
        last = order[(len(state.pile) - 1) % len(order)]
        stacks = list(state.stacks)
        for a in order:
            stacks[a] = stacks[a] + tuple(shares[a])
            rulings.append(Pile(t=t, player=self.players[a], cards=len(shares[a])))
        state = msgspec.structs.replace(state, stacks=tuple(stacks), pile=())
        state = self._set_call(state, status="settled")
        return self._new_round(state, t, last, rulings)

    def _new_round(self, state: Nasty7State, t: float, starter: int,
                   rulings: list[Ruling]) -> Nasty7State:
        rulings.append(Round(t=t, starter=self.players[starter]))
        sound = None if self.options.nasty else self.lexicon.default_sound
        call = state.call
        if call is not None and call.status == "pending":
            call = msgspec.structs.replace(call, status="settled")
        return msgspec.structs.replace(state, turn=starter, starter=starter,
                                       round_no=state.round_no + 1, last=0, direction=1,
                                       sound=sound, call=call)

    # -- for the shell ----------------------------------------------------------

    def top_card(self, state: Nasty7State, player: str) -> Card | None:
        """The kind of ``player``'s top card, if the companion knows it
        (virtual deck), else None. Raises ``IllegalEventError`` for an
        unknown player."""
        stack = state.stacks[self.player_index(player)]
        return stack[0] if stack else None

    def expected_call(self, state: Nasty7State) -> list[str]:
        """The words the pending call needs (empty for silence or no call).
        For a card inferred from the call (a real deck, no tap): every word
        of any card's right call, since any of them can be right. For a call
        that picks the round's sound (nasty rules): every offered sound's
        words."""
        call = state.call
        if call is None or call.status != "pending":
            return []
        if call.choose_sound:
            return sorted(self._sound_tokens(state))
        if call.card_from != "seen":
            tokens = [x for e in self._candidates(state, call).values() for x in e]
            return list(dict.fromkeys(self._say_token(x) for x in tokens))
        return [self._say_token(x) for x in call.expected]

    def expected_calls(self, state: Nasty7State) -> list[list[str]]:
        """The calls that can still be right for the pending call, each the
        words still owed in order (what was heard of a twin already left
        out): the seen card's call; for a card inferred from the call, each
        possible card's call that what was heard so far begins; for a call
        that picks the sound, each offered sound; and the whole call again
        when what was heard of it came with words the ear was unsure of
        (``Call.tentative``). Empty with no call pending, or for a silent
        card."""
        call = state.call
        if call is None or call.status != "pending":
            return []
        if call.choose_sound:
            return [[tok] for tok in sorted(self._sound_tokens(state))]
        if call.card_from != "seen":
            heard = tuple(tok for tok, _ in call.tokens)
            options = self._candidates(state, call).values()
        else:
            heard, options = call.heard, [call.expected]
        out = []
        for expected in options:
            if expected[:len(heard)] == heard and len(expected) > len(heard):
                rest = [self._say_token(x) for x in expected[len(heard):]]
                if rest not in out:
                    out.append(rest)
        if call.card_from == "seen" and call.tentative:
            out.append([self._say_token(x) for x in call.expected])  # a sure start again
        return out

    def early_endpoint(self, state: Nasty7State) -> bool:
        """Always: a call is a word or two of a small grammar, and its ruling
        (or the next flip's) should follow it at once."""
        return True

    def listen_words(self, state: Nasty7State) -> list[str]:
        """Every number word the lexicon has from zero to twelve (a number
        outside the count, "eight" or "zero", is a wrong number and must be
        heard as one, issue 17) and the phone sounds that can be heard now
        (this round's sound, or every offered sound while it is unchosen)."""
        lex = self.lexicon
        words = [lex.number_word(n) for n in NUMBER_WORDS]
        words = [w for w in words if not w.isdigit()]  # a number the pack cannot say
        if state.sound is not None:
            words.append(state.sound)
        else:
            words += [lex.default_sound, *lex.sounds]
        return list(dict.fromkeys(words))

    def winner(self, state: Nasty7State) -> str | None:
        return None if state.winner is None else self.players[state.winner]

    def view(self, state: Nasty7State) -> dict[str, Any]:
        """The table for the page: players with stack sizes, whose turn, the
        count, pile size, round sound and the call (words heard, onset after
        the flip in seconds). The call's ``card_from`` says how its ``card``
        is known: ``seen`` (tapped or dealt), ``named`` (a ``card`` event),
        ``inferred`` from the call, or ``unknown`` (``card`` None).
        ``question``: while an accusation waits for the accused card, who is
        accused and by whom (``{"player": "Beth", "by": ["Abby"]}``), else None."""
        call = state.call
        call_view = None
        question = None
        if call is not None:
            if call.status == "asked":
                question = {"player": self.players[call.player],
                            "by": [self.players[a] for a in call.accused_by]}
            call_view = {
                "player": self.players[call.player],
                "card": None if call.card_from == "unknown" else call.card,
                "card_from": call.card_from, "flip_t": call.flip_t,
                "expected": [self._say_token(x) for x in call.expected],
                "heard": list(call.words), "status": call.status,
                "onset_after_flip": None if call.onset is None else call.onset - call.flip_t,
            }
        return {
            "players": [{"name": name, "stack": len(stack), "turn": i == state.turn,
                         "starter": i == state.starter}
                        for i, (name, stack) in enumerate(zip(self.players, state.stacks,
                                                              strict=True))],
            "turn": self.players[state.turn], "count": state.last,
            "direction": "up" if state.direction > 0 else "down",
            "pile": len(state.pile), "set_aside": state.set_aside, "round": state.round_no,
            "sound": state.sound, "call": call_view, "question": question,
            "cards": list(CARDS if not self.options.younger else
                          [c for c in CARDS if c not in TWINS]),
            "hesitation": self.options.hesitation,
            "winner": self.winner(state),
        }


GAME = Nasty7


def _holds(tokens: Sequence[str], rest: Sequence[str]) -> bool:
    """Whether ``tokens`` hold all of ``rest`` in order (other tokens between)."""
    it = iter(tokens)
    return all(any(tok == want for tok in it) for want in rest)
