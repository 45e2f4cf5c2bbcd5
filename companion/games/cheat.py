"""Cheat: the arbiter's rules engine (pure: state + event -> state + rulings).

Source: ``rules/cheat.md`` (the rulebook) and the Cheat decisions of
DESIGN.md where it is silent. In short:

* 3-10 players in seat order (each player's left is the next seat). One deck
  for 3-6 players, two for 7-10 (6 players may use either: ``decks``). The
  cards are dealt one at a time from the first seat, so the first seats may
  hold one card more. The first seat makes the first claim.
* A claim puts 1-4 cards face down on the pile and names their count and one
  rank. The first claim of a pile may name any rank; each later claim names
  the same rank as the last, or one up or one down, wrapping King-Ace-2.
* A claim opens a challenge window. It closes when the next claim starts or
  ``challenge_window`` seconds after the claim, whichever comes first (the
  table notices on the next event, a ``tick`` included). The first challenge
  in the window stands; later ones are ruled ignored.
* A challenge is settled by the reveal of the claim's cards. A bluff (any
  card not of the claimed rank): the claimant takes the whole pile and the
  challenger plays next. A true claim: the challenger takes the pile and play
  goes on from the claimant's left. Either way the next claim is free.
* A player whose hand is empty after a claim wins when the window on that
  claim closes without a won challenge.
* A misheard claim can be fixed (``fix_claim``) while it is the last claim
  on the pile and not yet revealed: the challenge says the claim it checks
  aloud, so the table hears it before the cards are shown.
  A hand count the table knows to be wrong is set (``set_hand``), the
  difference going to or from the pile.

The companion never sees the cards, only counts: hands and the pile always
add up to 52 (or 104). What it knows of a card's rank it learns from reveals.

Spoken words: a ``say`` is parsed with the lexicon. A correction word
before a claim ("no, one seven") fixes the last claim (``FixClaim``) while
its window is open, if the companion said that claim back. While a claim is
awaited (the turn player's, or a ``claim`` event without ``count``/``rank``),
a count word (or an article, "a six") followed by a rank word is the claim; words
holding two different claims are a mishearing and the claim is asked again. A cheat
word during an open window opens a challenge whose challenger is unknown
until a ``challenge`` event names them. While a reveal is awaited, rank words
("four, four, six"; "two fours and a six") are the reveal. Words with
``confidence`` below ``min_confidence`` never make a challenge or a reveal,
and a claim needs ``claim_confidence``. A claim heard with less (but at
least ``ask_confidence``) is asked again, cards down or not: the player
plainly made one, and a silent companion would let the next claim be taken
as theirs. Weaker words ask again only once cards are down. A claim by ear
that breaks a rule (illegal rank, too many cards) is ruled only at
``breach_confidence``, and asked again below it.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Annotated, Any, Literal

import msgspec

from companion.errors import IllegalEventError, OptionError
from companion.events import Event, Say
from companion.games.base import Game, Options
from companion.games.lexicon import spoken_words
from companion.rulings import Ruling, Scores, Winner

Rank = Literal["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
"""The ranks in order; King and Ace are neighbours (the order wraps)."""
CARDS_PER_DECK = 52
MAX_CLAIM = 4
"""A claim is 1-4 cards (rulebook)."""

ClaimCount = Annotated[int, msgspec.Meta(ge=1, le=MAX_CLAIM)]


CLAIM_ITEMS = 2
"""The most phrases an utterance is heard in while a claim is awaited. A
claim is said alone, but room for a second phrase lets table talk around it
come out as a second claim, which is asked again, instead of being forced
into the one claim; 3 was too slow to keep up (bench/cheat_claims.py;
figures in bench/RESULTS.md, "Where the ear's constants came from")."""

CORRECTION_S = 2.0
"""Seconds after a correction word heard alone ("no") in which a claim heard
corrects the last claim instead of being the next player's. Said with a
comma ("no, one seven"), the two parts often come as two utterances (the
pause is longer than the voice activity detector's end silence)."""

REVEAL_ITEMS = 3
"""The most words or phrases a spoken reveal is heard in ("four, four, six";
"two fours, two sixes"); a larger search spreads the lattice's
probability, so no more (bench/RESULTS.md, "Where the ear's constants
came from")."""


def legal_ranks(after: str | None) -> list[str]:
    """The ranks a claim may name after a claim of rank ``after``: one down,
    the same, one up, wrapping King-Ace-2 (``["K", "A", "2"]`` after an ace).
    Every rank when ``after`` is None (the first claim of a pile)."""
    if after is None:
        return list(RANKS)
    i = RANKS.index(after)
    return [RANKS[(i - 1) % len(RANKS)], after, RANKS[(i + 1) % len(RANKS)]]


# --- options ------------------------------------------------------------------


class CheatOptions(Options, frozen=True, kw_only=True):
    """House settings of Cheat, with their defaults.

    ``decks``: 1 or 2 decks of 52 cards; None (the default) means 1 for 3-6
    players and 2 for 7-10 (rulebook); 6 players may choose either, 3-5 must
    use one and 7-10 two. ``challenge_window``: seconds after a claim during
    which it can be challenged, unless the next claim comes first (default
    5.0). ``min_confidence``: recognized words with less confidence (0..1,
    default 0.5) are not acted on (see the module docstring).
    ``claim_confidence``: the confidence a claim by ear needs (default 0.7):
    a misheard claim misleads the whole table. ``breach_confidence``: the
    confidence a claim by ear needs to be ruled a breach (an illegal rank,
    or more cards than the hand holds; default 0.95); below it, the claim is
    asked again. Telling a player who claimed rightly that they broke a
    rule is the worst ruling, and a misheard rank is far likelier than an
    illegal claim. ``ask_confidence``: a claim heard with at least this
    confidence (default 0.3) but less than ``claim_confidence`` is asked
    again, cards down or not; below it, the words are taken for talk. A
    claim left unanswered is worse than a question: the next claim heard
    would be taken as that player's. ``echo_confidence``: a claim by ear
    taken with less than this confidence (default 0.9) is said back ("Beth:
    three aces."). Where these were chosen: bench/RESULTS.md, "Where the
    ear's constants came from"."""

    decks: int | None = None
    challenge_window: float = 5.0
    min_confidence: float = 0.5
    claim_confidence: float = 0.7
    breach_confidence: float = 0.95
    ask_confidence: float = 0.3
    echo_confidence: float = 0.9


# --- events -------------------------------------------------------------------


class Claim(Event, frozen=True, kw_only=True, tag="claim"):
    """``player`` puts cards on the pile at ``t`` and claims ``count`` (1-4)
    cards of ``rank`` (``"A"``, ``"2"`` .. ``"10"``, ``"J"``, ``"Q"``, ``"K"``).

    Give both or neither: without them the claim is awaited in a following
    ``say`` (or a second ``claim`` event by the same player, from the page)."""

    player: str
    count: ClaimCount | None = None
    rank: Rank | None = None


class Challenge(Event, frozen=True, kw_only=True, tag="challenge"):
    """``player`` calls cheat on the last claim at ``t`` (a button's press
    edge, or a tap on the page). Also names the challenger of a cheat that
    was only heard."""

    player: str


class Reveal(Event, frozen=True, kw_only=True, tag="reveal"):
    """The challenged claim's cards are shown: ``cards`` are their ranks, as
    many as the claim's count, e.g. ``["4", "4", "6"]``."""

    cards: Annotated[list[Rank], msgspec.Meta(min_length=1, max_length=MAX_CLAIM)]


class FixClaim(Event, frozen=True, kw_only=True, tag="fix_claim"):
    """The last claim was really ``count`` cards of ``rank``: the companion
    misheard it (a said-back claim, the claim named when it was challenged,
    or the rank an illegal-claim ruling names, was not what the player
    said). Allowed while it is the last claim on the pile (no later claim
    taken, its window open or not) and its cards are not yet revealed. The
    claimant's hand and the pile change by the difference in count; the
    claim it becomes must be one the rules allowed then (at most the cards
    the claimant held, a rank legal after the claim before it). A fix that
    empties the hand after the claim's window closed is a win."""

    count: ClaimCount
    rank: Rank


class SetHand(Event, frozen=True, kw_only=True, tag="set_hand"):
    """``player`` holds ``cards`` cards, by the table's count, where the
    companion's differs (it never sees the cards: a claim's count misheard
    and never challenged leaves its count wrong). The difference goes to or
    from the pile, so the cards are conserved; the cards of the claim still
    on the pile (the last claim, or the one challenged) cannot come back
    from it this way (``FixClaim`` mends that claim). A hand set to 0 is a
    player out of cards: they win, unless the window on their own last
    claim is still open or that claim awaits its reveal (it then rules, as
    always)."""

    player: str
    cards: Annotated[int, msgspec.Meta(ge=0)]


# --- rulings ------------------------------------------------------------------


class ClaimOk(Ruling, frozen=True, kw_only=True, tag="claim_ok"):
    """``player``'s claim of ``count`` cards of ``rank`` is on the pile;
    ``next`` claims next. ``hand``: cards left in ``player``'s hand.
    ``reason`` is ``"unsure"`` and ``said`` the claim in the pack's words
    ("three aces") when it was taken by ear with less than
    ``echo_confidence``, or ``"last"`` when a claim taken by ear empties the
    hand (the claim a win can follow): the companion says it back, so a
    misheard claim is caught at once ("no, two eights", or the page);
    otherwise both are None."""

    player: str
    count: int
    rank: str
    hand: int
    next: str
    reason: Literal["unsure", "last"] | None = None
    said: str | None = None


class ClaimFixed(Ruling, frozen=True, kw_only=True, tag="claim_fixed"):
    """``player``'s last claim is now ``count`` cards of ``rank`` (``said``:
    in the pack's words), not the ``was_count`` of ``was_rank`` heard;
    ``hand``: the cards left in their hand."""

    player: str
    count: int
    rank: str
    said: str
    was_count: int
    was_rank: str
    hand: int


class HandSet(Ruling, frozen=True, kw_only=True, tag="hand_set"):
    """``player``'s hand is now ``cards`` cards (was ``was``); ``pile``: the
    cards on the pile after the change."""

    player: str
    cards: int
    was: int
    pile: int


class ClaimIllegal(Ruling, frozen=True, kw_only=True, tag="claim_illegal"):
    """``player`` claimed ``rank``, which may not follow a claim of ``after``;
    ``legal``: the ranks they may claim. The claim is awaited again."""

    player: str
    count: int
    rank: str
    after: str
    legal: list[str]


class ClaimTooMany(Ruling, frozen=True, kw_only=True, tag="claim_too_many"):
    """``player`` claimed ``count`` cards, but may put down at most ``most``
    (four, or their whole hand if smaller). The claim is awaited again."""

    player: str
    count: int
    most: int


class AskClaim(Ruling, frozen=True, kw_only=True, tag="ask_claim"):
    """``player`` has put cards down but their claim was not understood:
    they should say it again (or it is entered on the page)."""

    player: str


class ChallengeOpened(Ruling, frozen=True, kw_only=True, tag="challenge"):
    """``player`` challenges ``claimant``'s claim of ``count`` ``rank``: the
    cards are to be revealed. ``said``: the claim in the pack's words ("one
    king"), said aloud so the table hears what the reveal is checked
    against, and can fix a misheard claim first (``fix_claim``)."""

    player: str
    claimant: str
    count: int
    rank: str
    said: str = ""


class ChallengeHeard(Ruling, frozen=True, kw_only=True, tag="challenge_heard"):
    """A cheat was heard against ``claimant``'s claim of ``count`` ``rank``,
    but not who called it: a ``challenge`` event (a button, the page) names them."""

    claimant: str
    count: int
    rank: str


class ChallengeTie(Ruling, frozen=True, kw_only=True, tag="challenge_tie"):
    """``players`` challenged at the same instant; ``player``, the nearest to
    the claimant's left, is the challenger."""

    player: str
    players: list[str]


IgnoredReason = Literal["not_first", "own_claim", "no_window"]


class ChallengeIgnored(Ruling, frozen=True, kw_only=True, tag="challenge_ignored"):
    """``player``'s challenge does not count. ``reason``: ``not_first``
    (another challenge came first), ``own_claim`` (the claimant themself) or
    ``no_window`` (no claim can be challenged now: the window has closed or
    the claim is not known yet)."""

    player: str
    reason: IgnoredReason


class AskReveal(Ruling, frozen=True, kw_only=True, tag="ask_reveal"):
    """Ranks were heard for the reveal of ``claimant``'s claim, but not
    ``count`` of them: the reveal is asked again."""

    claimant: str
    count: int
    heard: list[str]


class ChallengeWon(Ruling, frozen=True, kw_only=True, tag="challenge_won"):
    """``player`` was right: ``claimant`` bluffed (``cards``: the ranks shown,
    ``rank``: the rank claimed). ``claimant`` takes the pile (a ``pile``
    ruling follows); ``next`` (the challenger) plays next, any rank."""

    player: str
    claimant: str
    cards: list[str]
    rank: str
    next: str


class ChallengeLost(Ruling, frozen=True, kw_only=True, tag="challenge_lost"):
    """``player`` was wrong: ``claimant``'s claim of ``rank`` was true
    (``cards``: the ranks shown). ``player`` takes the pile (a ``pile``
    ruling follows); ``next`` (the claimant's left) plays next, any rank, or
    None when ``claimant`` has just won with an empty hand."""

    player: str
    claimant: str
    cards: list[str]
    rank: str
    next: str | None


class WindowClosed(Ruling, frozen=True, kw_only=True, tag="window_closed"):
    """The challenge window on ``player``'s claim ran out unchallenged at
    ``t`` (the claim time plus ``challenge_window``); ruled on the first
    event at or after it. Not ruled when the next claim closes the window."""

    player: str


class Pile(Ruling, frozen=True, kw_only=True, tag="pile"):
    """``player`` takes the whole pile: ``cards`` cards."""

    player: str
    cards: int


class Turn(Ruling, frozen=True, kw_only=True, tag="turn"):
    """After a challenge is settled (and the game goes on): ``player``
    makes the next claim, of any rank."""

    player: str


class CheatScores(Scores, frozen=True, kw_only=True, tag="scores"):
    """The end of the game: ``scores`` are the cards left per player
    (``label`` "cards left"); ``stats`` per player are the figures of
    ``PlayerStats``."""

    stats: dict[str, dict[str, int]]


class Tally(Ruling, frozen=True, kw_only=True, tag="tally"):
    """The end of the game, to be said aloud after the scores: per figure of
    ``PlayerStats``, the players whose count is not zero (player -> count;
    an empty mapping when nobody's is). ``bluffs_caught`` always equals
    ``challenges_won``; both are kept so each figure can be said by name."""

    bluffs: dict[str, int]
    bluffs_caught: dict[str, int]
    challenges_won: dict[str, int]
    challenges_lost: dict[str, int]


# --- state --------------------------------------------------------------------


class PlayerStats(msgspec.Struct, frozen=True, kw_only=True):
    """One player's figures. ``claims``: claims made. ``bluffs``: own claims
    shown to be bluffs (the companion only sees challenged claims, so a bluff
    nobody challenged is never counted). ``truths``: own claims challenged
    and shown true. ``bluffs_caught``: other players' bluffs this player
    exposed. ``challenges_won`` / ``challenges_lost``: challenges made that
    were right / wrong (a challenge always exposes a bluff or a truth, so
    ``bluffs_caught`` equals ``challenges_won``). ``cards_taken``: cards
    picked up from piles."""

    claims: int = 0
    bluffs: int = 0
    truths: int = 0
    bluffs_caught: int = 0
    challenges_won: int = 0
    challenges_lost: int = 0
    cards_taken: int = 0


class LastClaim(msgspec.Struct, frozen=True, kw_only=True):
    """A claim on the pile: who, how many, which rank, when (seconds), the
    rank of the claim it followed (None for the free first claim of a pile),
    and whether the companion said it back (taken by ear unsurely)."""

    player: int
    count: int
    rank: str
    t: float
    after: str | None = None
    said_back: bool = False


class Contest(msgspec.Struct, frozen=True, kw_only=True):
    """A challenge awaiting its reveal. ``challenger``: None while only a
    spoken cheat was heard. ``cards``: the reveal, once given."""

    claim: LastClaim
    challenger: int | None
    t: float
    cards: tuple[str, ...] | None = None


class CheatState(msgspec.Struct, frozen=True, kw_only=True):
    """The table. ``hands``: cards per player; ``pile``: cards on the pile.
    ``turn``: who claims next. ``last``: the last claim on this pile (None
    once a challenge clears it). ``closes_at``: when the window on ``last``
    closes (seconds), None once closed. ``placing``: a player who has put
    cards down but whose claim is not yet known. ``contest``: a challenge
    awaiting its reveal. ``correcting``: until when (seconds) a claim heard
    corrects the last claim (a correction word was heard alone, "no", and
    the claim follows in its own utterance); None otherwise. ``t``: the time
    of the last event."""

    t: float = 0.0
    hands: tuple[int, ...]
    pile: int = 0
    turn: int = 0
    last: LastClaim | None = None
    closes_at: float | None = None
    placing: int | None = None
    contest: Contest | None = None
    correcting: float | None = None
    winner: int | None = None
    stats: tuple[PlayerStats, ...]


# --- words --------------------------------------------------------------------


def _words(text: str) -> list[str]:
    return spoken_words(text, split_hyphens=True)


class Cheat(Game[CheatState]):
    """Cheat for 3-10 players in seat order (clockwise: a player's left is
    the next seat)."""

    name = "cheat"
    title = "Cheat"
    min_players = 3
    max_players = 10
    options_type = CheatOptions
    event_types = (Claim, Challenge, Reveal, FixClaim, SetHand)
    options: CheatOptions

    def check_options(self) -> None:
        o = self.options
        n = len(self.players)
        if o.decks is not None:
            if o.decks not in (1, 2):
                raise OptionError(f"decks must be 1 or 2, not {o.decks!r}", field="decks")
            if o.decks == 1 and n > 6:
                raise OptionError(f"{n} players need two decks", field="decks")
            if o.decks == 2 and n < 6:
                raise OptionError(f"{n} players play with one deck", field="decks")
        if not o.challenge_window > 0:
            raise OptionError(
                f"challenge_window must be above 0 seconds, not {o.challenge_window!r}",
                field="challenge_window")
        for name in ("min_confidence", "claim_confidence", "breach_confidence",
                     "ask_confidence", "echo_confidence"):
            value = getattr(o, name)
            if not 0.0 <= value <= 1.0:
                raise OptionError(f"{name} must be 0..1, not {value!r}", field=name)

    @property
    def decks(self) -> int:
        """Decks in play (the option, or 1 up to 6 players and 2 above)."""
        if self.options.decks is not None:
            return self.options.decks
        return 1 if len(self.players) <= 6 else 2

    @property
    def total_cards(self) -> int:
        """Cards in play: 52 per deck. Hands and the pile always add up to it."""
        return CARDS_PER_DECK * self.decks

    # -- words -----------------------------------------------------------------

    def _forms(self) -> tuple[dict[str, str], set[str]]:
        """Rank words -> rank, and the plural forms among them. The pack lists
        each rank's singular first; later words for the same rank are plural."""
        seen: set[str] = set()
        plural: set[str] = set()
        for word, rank in self.lexicon.ranks.items():
            if rank in seen:
                plural.add(word.lower())
            seen.add(rank)
        return {w.lower(): r for w, r in self.lexicon.ranks.items()}, plural

    def _count_word(self, word: str) -> int | None:
        if word in self.lexicon.articles:
            return 1
        return self.lexicon.number(word)

    def claims_in(self, text: str) -> list[tuple[int, str]]:
        """Every claim phrase in ``text`` as ``(count, rank)``, in order,
        without repeats: a count word (or article) followed by a rank word
        ("three fours" -> ``[(3, "4")]``, "a six" -> ``[(1, "6")]``). The
        count is not range-checked here (``"five kings"`` -> ``[(5, "K")]``)."""
        ranks, _ = self._forms()
        out: list[tuple[int, str]] = []
        for a, b in pairwise(_words(text)):
            n = self._count_word(a)
            if n is not None and b in ranks and n > 0 and (n, ranks[b]) not in out:
                out.append((n, ranks[b]))
        return out

    def parse_claim(self, text: str) -> tuple[int, str] | None:
        """The one claim in ``text`` (see ``claims_in``), or None when there
        is none or several different ones (a misheard claim, asked again)."""
        claims = self.claims_in(text)
        return claims[0] if len(claims) == 1 else None

    def parse_reveal(self, text: str) -> list[str]:
        """The ranks named in ``text``, one per card: "four, four, six" ->
        ``["4", "4", "6"]``; a count word before a plural rank word repeats
        it ("two fours and a six" -> ``["4", "4", "6"]``), a singular one
        does not ("two, jack" -> ``["2", "J"]``). Other words are skipped."""
        ranks, plural = self._forms()
        words = _words(text)
        out: list[str] = []
        i = 0
        while i < len(words):
            w = words[i]
            nxt = words[i + 1] if i + 1 < len(words) else None
            n = self._count_word(w)
            if nxt is not None and n is not None and (
                    nxt in plural or (w in self.lexicon.articles and nxt in ranks)):
                out += [ranks[nxt]] * n
                i += 2
                continue
            if w in ranks:
                out.append(ranks[w])
            i += 1
        return out

    def _is_cheat(self, text: str) -> bool:
        cheat = {c.lower() for c in self.lexicon.cheat}
        return any(w in cheat for w in _words(text))

    # -- setup -------------------------------------------------------------------

    def start(self) -> CheatState:
        n = len(self.players)
        total = self.total_cards
        hands = tuple(total // n + (1 if i < total % n else 0) for i in range(n))
        return CheatState(hands=hands, stats=tuple(PlayerStats() for _ in range(n)))

    # -- the fold ----------------------------------------------------------------

    def apply(self, state: CheatState, event: Event) -> tuple[CheatState, list[Ruling]]:
        self.check_time_and_end(state.t, event, self.winner(state))
        rulings: list[Ruling] = []
        state = self._advance(state, event.t, rulings)
        state = msgspec.structs.replace(state, t=event.t)
        if state.winner is not None:
            return state, rulings
        if isinstance(event, Claim):
            state = self._claim_event(state, event, rulings)
        elif isinstance(event, Challenge):
            state = self._challenge(state, event.t, self.player_index(event.player), rulings)
        elif isinstance(event, Reveal):
            state = self._reveal(state, event.t, list(event.cards), rulings)
        elif isinstance(event, FixClaim):
            state = self._fix_claim(state, event, rulings)
        elif isinstance(event, SetHand):
            state = self._set_hand(state, event, rulings)
        elif isinstance(event, Say):
            state = self._say(state, event, rulings)
        return state, rulings

    # -- time --------------------------------------------------------------------

    def deadline(self, state: CheatState) -> float | None:
        """When the challenge window on the last claim closes, or None."""
        return state.closes_at

    def _advance(self, state: CheatState, t: float, rulings: list[Ruling]) -> CheatState:
        """Close the challenge window if it has run out by ``t``."""
        if state.closes_at is not None and t >= state.closes_at:
            if state.last is not None:
                rulings.append(WindowClosed(t=state.closes_at,
                                            player=self.players[state.last.player]))
            return self._close_window(state, state.closes_at, rulings)
        return state

    def _close_window(self, state: CheatState, t: float, rulings: list[Ruling]) -> CheatState:
        """The window on the last claim closes unchallenged: a claimant with
        no cards left wins."""
        state = msgspec.structs.replace(state, closes_at=None)
        last = state.last
        if last is not None and state.hands[last.player] == 0:
            return self._win(state, t, last.player, rulings)
        return state

    # -- claims ------------------------------------------------------------------

    def _claim_event(self, state: CheatState, event: Claim, rulings: list[Ruling]) -> CheatState:
        p = self.player_index(event.player)
        if state.contest is not None:
            raise IllegalEventError("a challenge awaits its reveal: no claim now", field="type")
        expected = state.turn if state.placing is None else state.placing
        if p != expected:
            raise IllegalEventError(
                f"it is {self.players[expected]}'s claim, not {self.players[p]}'s",
                field="player")
        if (event.count is None) != (event.rank is None):
            missing = "count" if event.count is None else "rank"
            raise IllegalEventError("a claim gives both count and rank, or neither",
                                    field=missing)
        state = self._start_placing(state, p, event.t, rulings)
        if state.winner is not None or event.count is None or event.rank is None:
            return state
        return self._claim(state, p, event.count, event.rank, event.t, rulings)

    def _start_placing(self, state: CheatState, p: int, t: float,
                       rulings: list[Ruling]) -> CheatState:
        """``p`` starts a claim: the window on the previous claim closes (and
        with it any correction of that claim by voice)."""
        if state.closes_at is not None:
            state = self._close_window(state, t, rulings)
        return msgspec.structs.replace(state, placing=p, correcting=None)

    def _claim(self, state: CheatState, p: int, count: int, rank: str, t: float,
               rulings: list[Ruling], *, unsure: bool = False,
               by_ear: bool = False) -> CheatState:
        """Rule on ``p``'s claim of ``count`` ``rank``; ``state.placing`` is
        ``p``. ``unsure``: taken by ear under ``echo_confidence``; ``by_ear``:
        taken from words at all. Said back when unsure, or by ear and the
        hand is then empty (see ``ClaimOk``)."""
        breach = self._breach(p, count, rank, t, held=state.hands[p], after=self._after(state))
        if breach is not None:
            rulings.append(breach)
            return state
        name = self.players[p]
        hands = list(state.hands)
        hands[p] -= count
        nxt = (p + 1) % len(self.players)
        reason = "unsure" if unsure else "last" if by_ear and hands[p] == 0 else None
        echo = {"reason": reason, "said": self.claim_words(count, rank)} if reason else {}
        rulings.append(ClaimOk(t=t, player=name, count=count, rank=rank, hand=hands[p],
                               next=self.players[nxt], **echo))
        return msgspec.structs.replace(
            state, hands=tuple(hands), pile=state.pile + count, turn=nxt, placing=None,
            last=LastClaim(player=p, count=count, rank=rank, t=t,
                           after=self._after(state),
                           said_back=reason is not None),
            closes_at=t + self.options.challenge_window,
            stats=self._bump(state.stats, p, claims=1))

    @staticmethod
    def _after(state: CheatState) -> str | None:
        """The rank a claim now follows (None: the free first claim of a pile)."""
        return None if state.last is None else state.last.rank

    def _breach(self, p: int, count: int, rank: str, t: float, *, held: int,
                after: str | None) -> ClaimTooMany | ClaimIllegal | None:
        """The ruling ``p``'s claim of ``count`` ``rank`` at ``t`` breaks a
        rule with (more cards than allowed, or an illegal rank), or None.
        ``held``: the cards in ``p``'s hand before the claim; ``after``: the
        rank of the claim it follows (``_after``)."""
        name = self.players[p]
        most = min(MAX_CLAIM, held)
        if not 1 <= count <= most:
            return ClaimTooMany(t=t, player=name, count=count, most=most)
        legal = legal_ranks(after)
        if rank not in legal:
            assert after is not None
            return ClaimIllegal(t=t, player=name, count=count, rank=rank, after=after,
                                legal=legal)
        return None

    def _fix_claim(self, state: CheatState, event: FixClaim,
                   rulings: list[Ruling]) -> CheatState:
        """The last claim, misheard, becomes ``event``'s (see ``FixClaim``)."""
        contest = state.contest
        if contest is not None:
            if contest.cards is not None:
                raise IllegalEventError("the cards are already revealed: too late to fix "
                                        "the claim (undo the reveal first)", field="type")
            claim = contest.claim
        elif state.last is not None:
            claim = state.last
        else:
            raise IllegalEventError("no claim to fix: the pile has no claim since the "
                                    "last challenge", field="type")
        p, name = claim.player, self.players[claim.player]
        held = state.hands[p] + claim.count
        # The claim it becomes is held to the rules a claim is (``_breach``).
        breach = self._breach(p, event.count, event.rank, event.t, held=held, after=claim.after)
        if isinstance(breach, ClaimTooMany):
            raise IllegalEventError(f"{name} held {held} cards: a claim of at most "
                                    f"{breach.most}", field="count")
        if isinstance(breach, ClaimIllegal):
            raise IllegalEventError(f"after {breach.after} the claim must be one of "
                                    f"{breach.legal}, not {event.rank}", field="rank")
        if (event.count, event.rank) == (claim.count, claim.rank):
            raise IllegalEventError(f"{name}'s claim already is {event.count} {event.rank}",
                                    field="rank")
        fixed = msgspec.structs.replace(claim, count=event.count, rank=event.rank)
        hands = list(state.hands)
        hands[p] = held - event.count
        rulings.append(ClaimFixed(t=event.t, player=name, count=event.count, rank=event.rank,
                                  said=self.claim_words(event.count, event.rank),
                                  was_count=claim.count, was_rank=claim.rank, hand=hands[p]))
        state = msgspec.structs.replace(
            state, hands=tuple(hands), pile=state.pile - claim.count + event.count,
            last=fixed if state.last == claim else state.last,
            contest=None if contest is None else msgspec.structs.replace(contest, claim=fixed))
        if hands[p] == 0 and contest is None and state.closes_at is None:
            # Out of cards, and the window on that claim closed unchallenged.
            return self._win(state, event.t, p, rulings)
        return state

    def _set_hand(self, state: CheatState, event: SetHand,
                  rulings: list[Ruling]) -> CheatState:
        """The table's count of one hand replaces the companion's (``SetHand``)."""
        p = self.player_index(event.player)
        name = self.players[p]
        was = state.hands[p]
        if event.cards == was:
            raise IllegalEventError(f"{name} already holds {was} cards", field="cards")
        pile = state.pile - (event.cards - was)
        # The cards of the claim still on the pile stay there: a misheard
        # count of that claim is mended by ``fix_claim``, not by a hand.
        claim = state.contest.claim if state.contest is not None else state.last
        kept = 0 if claim is None else claim.count
        if pile < kept:
            under = f", {kept} of them under the last claim" if kept else ""
            raise IllegalEventError(
                f"the pile has {state.pile} cards{under}: {name} can hold at most "
                f"{was + state.pile - kept}, not {event.cards}", field="cards")
        hands = list(state.hands)
        hands[p] = event.cards
        rulings.append(HandSet(t=event.t, player=name, cards=event.cards, was=was, pile=pile))
        state = msgspec.structs.replace(state, hands=tuple(hands), pile=pile)
        last, contest = state.last, state.contest
        own_claim_pending = (contest is not None and contest.claim.player == p) or (
            contest is None and last is not None and last.player == p
            and state.closes_at is not None)
        if event.cards == 0 and not own_claim_pending:
            return self._win(state, event.t, p, rulings)
        return state

    # -- challenges and reveals ----------------------------------------------------

    def _challenge(self, state: CheatState, t: float, p: int,
                   rulings: list[Ruling]) -> CheatState:
        name = self.players[p]
        contest = state.contest
        if contest is not None:
            claimant = contest.claim.player
            if p == claimant:
                rulings.append(ChallengeIgnored(t=t, player=name, reason="own_claim"))
                return state
            if contest.challenger is None:
                contest = msgspec.structs.replace(contest, challenger=p)
                rulings.append(self._opened(contest, t))
                state = msgspec.structs.replace(state, contest=contest)
                return self._settle(state, t, rulings)
            if t == contest.t and p != contest.challenger:
                n = len(self.players)
                first = min((p, contest.challenger), key=lambda i: (i - claimant) % n)
                rulings.append(ChallengeTie(
                    t=t, player=self.players[first],
                    players=[self.players[contest.challenger], name]))
                return msgspec.structs.replace(
                    state, contest=msgspec.structs.replace(contest, challenger=first))
            rulings.append(ChallengeIgnored(t=t, player=name, reason="not_first"))
            return state
        last = state.last
        if state.closes_at is None or last is None:
            rulings.append(ChallengeIgnored(t=t, player=name, reason="no_window"))
            return state
        if p == last.player:
            rulings.append(ChallengeIgnored(t=t, player=name, reason="own_claim"))
            return state
        contest = Contest(claim=last, challenger=p, t=t)
        rulings.append(self._opened(contest, t))
        return msgspec.structs.replace(state, contest=contest, closes_at=None)

    def _opened(self, contest: Contest, t: float) -> ChallengeOpened:
        assert contest.challenger is not None
        return ChallengeOpened(t=t, player=self.players[contest.challenger],
                               claimant=self.players[contest.claim.player],
                               count=contest.claim.count, rank=contest.claim.rank,
                               said=self.claim_words(contest.claim.count, contest.claim.rank))

    def _heard_cheat(self, state: CheatState, t: float, rulings: list[Ruling]) -> CheatState:
        last = state.last
        assert last is not None
        rulings.append(ChallengeHeard(t=t, claimant=self.players[last.player],
                                      count=last.count, rank=last.rank))
        return msgspec.structs.replace(state, closes_at=None,
                                       contest=Contest(claim=last, challenger=None, t=t))

    def _reveal(self, state: CheatState, t: float, cards: list[str],
                rulings: list[Ruling]) -> CheatState:
        contest = state.contest
        if contest is None:
            raise IllegalEventError("no challenge awaits a reveal", field="type")
        if contest.cards is not None:
            raise IllegalEventError(f"the cards were already revealed: {list(contest.cards)!r}",
                                    field="cards")
        if len(cards) != contest.claim.count:
            raise IllegalEventError(
                f"the claim was {contest.claim.count} cards; {len(cards)} revealed: {cards!r}",
                field="cards")
        state = msgspec.structs.replace(
            state, contest=msgspec.structs.replace(contest, cards=tuple(cards)))
        return self._settle(state, t, rulings)

    def _settle(self, state: CheatState, t: float, rulings: list[Ruling]) -> CheatState:
        """Settle the contest once both the challenger and the cards are known."""
        contest = state.contest
        assert contest is not None
        if contest.challenger is None or contest.cards is None:
            return state
        claim, challenger, cards = contest.claim, contest.challenger, list(contest.cards)
        claimant = claim.player
        n = len(self.players)
        bluff = any(c != claim.rank for c in cards)
        stats = state.stats
        if bluff:
            taker, nxt = claimant, challenger
            rulings.append(ChallengeWon(
                t=t, player=self.players[challenger], claimant=self.players[claimant],
                cards=cards, rank=claim.rank, next=self.players[nxt]))
            stats = self._bump(stats, claimant, bluffs=1)
            stats = self._bump(stats, challenger, challenges_won=1, bluffs_caught=1)
        else:
            taker, nxt = challenger, (claimant + 1) % n
            wins = state.hands[claimant] == 0
            rulings.append(ChallengeLost(
                t=t, player=self.players[challenger], claimant=self.players[claimant],
                cards=cards, rank=claim.rank, next=None if wins else self.players[nxt]))
            stats = self._bump(stats, claimant, truths=1)
            stats = self._bump(stats, challenger, challenges_lost=1)
        rulings.append(Pile(t=t, player=self.players[taker], cards=state.pile))
        stats = self._bump(stats, taker, cards_taken=state.pile)
        hands = list(state.hands)
        hands[taker] += state.pile
        state = msgspec.structs.replace(state, hands=tuple(hands), pile=0, turn=nxt, last=None,
                                        closes_at=None, placing=None, contest=None, stats=stats)
        if not bluff and hands[claimant] == 0:
            return self._win(state, t, claimant, rulings)
        rulings.append(Turn(t=t, player=self.players[nxt]))
        return state

    # -- speech --------------------------------------------------------------------

    def _say(self, state: CheatState, event: Say, rulings: list[Ruling]) -> CheatState:
        t = event.t
        strong = event.confidence >= self.options.min_confidence
        contest = state.contest
        if contest is not None:
            if contest.cards is not None or not strong:
                return state
            cards = self.parse_reveal(event.text)
            if not cards:
                return state
            if len(cards) != contest.claim.count:
                rulings.append(AskReveal(t=t, claimant=self.players[contest.claim.player],
                                         count=contest.claim.count, heard=cards))
                return state
            return self._reveal(state, t, cards, rulings)
        if state.closes_at is not None and strong and self._is_cheat(event.text):
            if event.seat is not None:  # the array heard whose seat it came from
                return self._challenge(state, t, self.player_index(event.seat, "seat"), rulings)
            return self._heard_cheat(state, t, rulings)
        words = _words(event.text)
        corrections = self._corrections()
        correcting, state = state.correcting, msgspec.structs.replace(state, correcting=None)
        if words and all(w in corrections for w in words):
            if event.confidence >= self.options.claim_confidence and self._correctable(state):
                return msgspec.structs.replace(state, correcting=t + CORRECTION_S)
            return state
        if words and words[0] in corrections:
            return self._spoken_fix(state, event, " ".join(words[1:]), rulings)
        if correcting is not None and t <= correcting and self._correctable(state):
            return self._spoken_fix(state, event, event.text, rulings)
        heard = (self.claims_in(event.text)
                 if event.confidence >= self.options.ask_confidence else [])
        claims = heard if event.confidence >= self.options.claim_confidence else []
        p = state.turn if state.placing is None else state.placing
        if event.seat is not None and event.seat != self.players[p]:
            return state  # another seat's voice: a claim is the claimant's own
        if len(claims) != 1:
            # Nothing understood, a claim heard but not surely, or several
            # claims at once: ask again if cards are down or a claim was
            # plainly being made.
            if state.placing is not None or heard:
                rulings.append(AskClaim(t=t, player=self.players[p]))
            return state
        claim = claims[0]
        if (event.confidence < self.options.breach_confidence
                and self._breach(p, *claim, t, held=state.hands[p],
                                 after=self._after(state)) is not None):
            rulings.append(AskClaim(t=t, player=self.players[p]))
            return state
        state = self._start_placing(state, p, t, rulings)
        if state.winner is not None:
            return state
        return self._claim(state, p, claim[0], claim[1], t, rulings,
                           unsure=event.confidence < self.options.echo_confidence,
                           by_ear=True)

    def speaker(self, state: CheatState) -> str | None:
        """The player whose claim is awaited (cards down, or their turn)."""
        p = state.turn if state.placing is None else state.placing
        return self.players[p]

    def _corrections(self) -> set[str]:
        return {w.lower() for w in self.lexicon.corrections}

    @staticmethod
    def _correctable(state: CheatState) -> bool:
        """Whether a correction by voice is listened for now: the last claim
        was said back (taken unsurely, or the hand's last cards, so the table
        heard what was taken) and its window is open. A claim taken surely is
        fixed on the page: "no" in the grammar after every claim would let a
        stray "no" before the next player's claim turn it into a fix of this
        one."""
        last = state.last
        return (last is not None and last.said_back and state.closes_at is not None
                and state.placing is None and state.contest is None)

    def _spoken_fix(self, state: CheatState, event: Say, rest: str,
                    rulings: list[Ruling]) -> CheatState:
        """A correction word and a claim ("no, one seven"): the last claim,
        misheard, is fixed (``FixClaim``) when heard with ``claim_confidence``
        while a correction is listened for (``_correctable``). Otherwise
        nothing is ruled: a fix the rules refuse, or one heard unsurely, is
        left to the page."""
        fix = self.parse_claim(rest)
        if (fix is None or event.confidence < self.options.claim_confidence
                or not self._correctable(state)):
            return state
        try:
            return self._fix_claim(state, FixClaim(t=event.t, count=fix[0], rank=fix[1]),
                                   rulings)
        except IllegalEventError:
            return state

    # -- outcomes ------------------------------------------------------------------

    @staticmethod
    def _bump(stats: tuple[PlayerStats, ...], p: int, **adds: int) -> tuple[PlayerStats, ...]:
        out = list(stats)
        out[p] = msgspec.structs.replace(
            out[p], **{k: getattr(out[p], k) + v for k, v in adds.items()})
        return tuple(out)

    def _counts(self, state: CheatState) -> dict[str, int]:
        return dict(zip(self.players, state.hands, strict=True))

    def _win(self, state: CheatState, t: float, p: int, rulings: list[Ruling]) -> CheatState:
        rulings.append(Winner(t=t, player=self.players[p]))
        rulings.append(CheatScores(
            t=t, label="cards left", scores=self._counts(state),
            stats={name: msgspec.to_builtins(s)
                   for name, s in zip(self.players, state.stats, strict=True)}))

        def counts(figure: str) -> dict[str, int]:
            return {name: getattr(s, figure)
                    for name, s in zip(self.players, state.stats, strict=True)
                    if getattr(s, figure)}

        rulings.append(Tally(t=t, bluffs=counts("bluffs"), bluffs_caught=counts("bluffs_caught"),
                             challenges_won=counts("challenges_won"),
                             challenges_lost=counts("challenges_lost")))
        return msgspec.structs.replace(state, winner=p, closes_at=None, placing=None)

    # -- for the shell -------------------------------------------------------------

    def awaiting(self, state: CheatState) -> str:
        """What the table waits for: ``"claim"`` (the turn player's claim),
        ``"words"`` (cards are down, the claim is not yet understood),
        ``"challenger"`` (a cheat was heard: who called it?), ``"reveal"``
        (the challenged cards) or ``"over"``."""
        if state.winner is not None:
            return "over"
        if state.contest is not None:
            return "challenger" if state.contest.challenger is None else "reveal"
        return "words" if state.placing is not None else "claim"

    def claim_words(self, count: int, rank: str) -> str:
        """A claim in the lexicon's words: the count word before the plural
        ("three aces"), or the word for one before the singular ("one ace")."""
        ranks, plural = self._forms()
        words = [w for w, r in ranks.items() if r == rank]
        many = [w for w in words if w in plural]
        word = many[0] if count > 1 and many else words[0]
        return f"{self.lexicon.number_word(count)} {word}"

    def claim_phrases(self) -> list[str]:
        """Every claim as a phrase a player says, for a grammar: a count word
        (two to four) before each plural rank word ("three fours"; the
        singular for a rank the pack gives no plural), and the word for one
        or its article (``Lexicon.articles_for``) before each singular ("one
        king", "a king", "an ace"; never "an king"). Claims of any rank, so an
        illegal claim is heard too."""
        ranks, plural = self._forms()
        lex = self.lexicon
        singular = [w for w in ranks if w not in plural]
        has_plural = {ranks[w] for w in plural}
        many = [*plural, *(w for w in singular if ranks[w] not in has_plural)]
        singles = [f"{w} {r}" for r in singular
                   for w in (lex.number_word(1), *lex.articles_for(r))]
        multiples = [f"{lex.number_word(n)} {r}" for n in range(2, MAX_CLAIM + 1) for r in many]
        return list(dict.fromkeys([*singles, *multiples]))

    def listen_words(self, state: CheatState) -> list[str]:
        """The phrases that can matter now, for the recognizer's grammar:
        while a claim is awaited, every claim phrase (``claim_phrases``) and,
        while a window is open, the cheat words, and the correction words
        too when the last claim was said back ("no, one seven": ``FixClaim``;
        ``_correctable``); while a reveal is awaited, the claim
        phrases and the singular rank words ("four", "six"), so "two fours,
        a six" and "four, six" are both heard. Never empty (a recognizer
        needs a grammar): once the game is over, only the cheat words, which
        then rule nothing."""
        what = self.awaiting(state)
        if what == "over":
            return list(self.lexicon.cheat)
        words = self.claim_phrases()
        if what in ("reveal", "challenger"):
            ranks, plural = self._forms()
            words += [r for r in ranks if r not in plural]
        elif state.closes_at is not None:
            words += list(self.lexicon.cheat)
            if self._correctable(state):
                words += list(self.lexicon.corrections)
        return list(dict.fromkeys(words))

    def utterance_items(self, state: CheatState) -> int | None:
        """``CLAIM_ITEMS`` while a claim is awaited, ``REVEAL_ITEMS`` for a
        reveal."""
        return REVEAL_ITEMS if self.awaiting(state) in ("reveal", "challenger") else CLAIM_ITEMS

    def winner(self, state: CheatState) -> str | None:
        return None if state.winner is None else self.players[state.winner]

    def view(self, state: CheatState) -> dict[str, Any]:
        """The table for the page (JSON builtins):

        ``players``: per seat ``name``, ``hand`` (cards), ``turn`` (bool) and
        ``stats`` (``PlayerStats`` fields); ``turn``: who claims next;
        ``awaiting`` (see ``awaiting``); ``pile`` (cards); ``cards`` (52 or
        104); ``last_claim``: ``{player, count, rank, t}`` or None (None once
        a challenge clears the pile); ``legal_ranks``: what the next claim may
        name; ``window``: ``{claimant, closes_at}`` while the last claim can
        be challenged (seconds on the table clock; it closes on the first
        event at or after ``closes_at``), else None; ``challenge``:
        ``{challenger (None until named), claimant, count, rank, t, cards}``
        while a reveal is awaited, else None; ``placing``: who has put cards
        down without a known claim; ``winner``."""
        last = state.last
        last_view = None if last is None else {
            "player": self.players[last.player], "count": last.count, "rank": last.rank,
            "t": last.t}
        window = None
        if state.closes_at is not None and last is not None:
            window = {"claimant": self.players[last.player], "closes_at": state.closes_at}
        contest = state.contest
        contest_view = None
        if contest is not None:
            contest_view = {
                "challenger": None if contest.challenger is None
                else self.players[contest.challenger],
                "claimant": self.players[contest.claim.player], "count": contest.claim.count,
                "rank": contest.claim.rank, "t": contest.t,
                "cards": None if contest.cards is None else list(contest.cards)}
        return {
            "players": [{"name": name, "hand": hand, "turn": i == state.turn,
                         "stats": msgspec.to_builtins(s)}
                        for i, (name, hand, s) in enumerate(
                            zip(self.players, state.hands, state.stats, strict=True))],
            "turn": self.players[state.turn], "awaiting": self.awaiting(state),
            "pile": state.pile, "cards": self.total_cards, "decks": self.decks,
            "last_claim": last_view, "legal_ranks": legal_ranks(self._after(state)),
            "window": window, "challenge": contest_view,
            "placing": None if state.placing is None else self.players[state.placing],
            "challenge_window": self.options.challenge_window,
            "winner": self.winner(state),
        }


GAME = Cheat
