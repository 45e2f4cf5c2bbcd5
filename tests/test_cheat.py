"""The Cheat engine against the rulebook (rules/cheat.md) and DESIGN.md's decisions.

One scenario per rule, spoken claims and reveals parsed with the English
lexicon, and the replay of the shipped example session through the CLI.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from companion.cli import main as cli
from companion.errors import IllegalEventError, InvalidEventError, OptionError
from companion.games import make_game
from companion.games.base import Match
from companion.games.cheat import CLAIM_ITEMS, RANKS, REVEAL_ITEMS, Cheat, CheatState, legal_ranks
from companion.games.lexicon import Lexicon
from companion.resources import data_path
from companion.session import load_session
from companion.voice.pack import lexicon_for_header

FOUR = ["Abby", "Beth", "Carter", "Debbie"]
EXAMPLE = data_path("voices", "en", "examples", "cheat-four-players.jsonl")


def play(events: list[dict[str, Any]], players: list[str] | None = None,
         **options: Any) -> tuple[Match[CheatState], list[dict[str, Any]]]:
    game = make_game("cheat", players or FOUR, options)
    match: Match[CheatState] = Match(game)
    rulings: list[dict[str, Any]] = []
    for obj in events:
        rulings.extend(r.to_dict() for r in match.apply(game.parse_event(obj)))
    return match, rulings


def claim(t: float, player: str, count: int | None = None,
          rank: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"t": t, "type": "claim", "player": player}
    if count is not None:
        out["count"] = count
    if rank is not None:
        out["rank"] = rank
    return out


def challenge(t: float, player: str) -> dict[str, Any]:
    return {"t": t, "type": "challenge", "player": player}


def reveal(t: float, *cards: str) -> dict[str, Any]:
    return {"t": t, "type": "reveal", "cards": list(cards)}


def say(t: float, text: str, confidence: float = 1.0) -> dict[str, Any]:
    return {"t": t, "type": "say", "text": text, "confidence": confidence}


def tick(t: float) -> dict[str, Any]:
    return {"t": t, "type": "tick"}


def types(rulings: list[dict[str, Any]]) -> list[str]:
    return [r["type"] for r in rulings]


def hands(match: Match[CheatState]) -> list[int]:
    return list(match.state.hands)


def conserved(match: Match[CheatState]) -> bool:
    game = match.game
    assert isinstance(game, Cheat)
    return sum(match.state.hands) + match.state.pile == game.total_cards


def down_to(target: int, players: list[str] | None = None) -> list[dict[str, Any]]:
    """Claims of aces, in turn, until the first seat holds ``target`` cards
    and has the turn: the first seat claims up to four, the others one.
    Unchallenged, each window closed by the next claim (1 s apart)."""
    players = players or FOUR
    game = make_game("cheat", players)
    match: Match[CheatState] = Match(game)
    events: list[dict[str, Any]] = []
    t = 0.0
    while match.state.hands[0] > target or match.state.turn != 0:
        p = match.state.turn
        count = min(4, match.state.hands[0] - target) if p == 0 else 1
        ev = claim(t, players[p], count, "A")
        match.apply(game.parse_event(ev))
        events.append(ev)
        t += 1.0
    return events


# --- set-up ------------------------------------------------------------------


@pytest.mark.parametrize(("players", "decks", "expected"), [
    (3, None, [18, 17, 17]),
    (4, None, [13, 13, 13, 13]),
    (5, None, [11, 11, 10, 10, 10]),
    (6, None, [9, 9, 9, 9, 8, 8]),
    (6, 2, [18, 18, 17, 17, 17, 17]),
    (6, 1, [9, 9, 9, 9, 8, 8]),
    (7, None, [15, 15, 15, 15, 15, 15, 14]),
    (10, None, [11, 11, 11, 11, 10, 10, 10, 10, 10, 10]),
])
def test_cards_are_dealt_one_by_one_from_the_first_seat(
        players: int, decks: int | None, expected: list[int]) -> None:
    names = [f"P{i}" for i in range(players)]
    options = {} if decks is None else {"decks": decks}
    match, _ = play([], names, **options)
    assert hands(match) == expected
    assert match.state.pile == 0 and conserved(match)


@pytest.mark.parametrize(("players", "options", "field"), [
    (7, {"decks": 1}, "decks"),
    (5, {"decks": 2}, "decks"),
    (6, {"decks": 3}, "decks"),
    (4, {"challenge_window": 0}, "challenge_window"),
    (4, {"min_confidence": 1.5}, "min_confidence"),
    (4, {"window": 3}, "window"),
])
def test_bad_options_name_the_option(players: int, options: dict[str, Any], field: str) -> None:
    with pytest.raises(OptionError) as err:
        make_game("cheat", [f"P{i}" for i in range(players)], options)
    assert err.value.field == field


@pytest.mark.parametrize("players", [2, 11])
def test_three_to_ten_players(players: int) -> None:
    with pytest.raises(IllegalEventError) as err:
        make_game("cheat", [f"P{i}" for i in range(players)])
    assert err.value.field == "players"


# --- claims ------------------------------------------------------------------


@pytest.mark.parametrize("rank", RANKS)
def test_first_claim_of_a_pile_is_free(rank: str) -> None:
    match, rulings = play([claim(1, "Abby", 2, rank)])
    assert rulings == [{"type": "claim_ok", "t": 1, "player": "Abby", "count": 2, "rank": rank,
                        "hand": 11, "next": "Beth"}]
    assert match.state.pile == 2 and hands(match) == [11, 13, 13, 13]


@pytest.mark.parametrize(("before", "after", "legal"), [
    ("4", "3", True), ("4", "4", True), ("4", "5", True), ("4", "6", False), ("4", "2", False),
    ("K", "A", True), ("A", "K", True), ("A", "2", True), ("K", "Q", True), ("10", "J", True),
    ("Q", "A", False), ("2", "K", False), ("J", "9", False), ("A", "Q", False),
])
def test_next_claim_same_rank_or_one_up_or_down_wrapping(before: str, after: str,
                                                         legal: bool) -> None:
    match, rulings = play([claim(1, "Abby", 1, before), claim(2, "Beth", 1, after)])
    last = rulings[-1]
    if legal:
        assert last["type"] == "claim_ok" and match.state.turn == 2
    else:
        assert last == {"type": "claim_illegal", "t": 2, "player": "Beth", "count": 1,
                        "rank": after, "after": before, "legal": legal_ranks(before)}
        assert match.state.placing == 1 and match.state.turn == 1
        assert hands(match) == [12, 13, 13, 13]


def test_legal_ranks_wrap_king_ace_two() -> None:
    assert legal_ranks("A") == ["K", "A", "2"]
    assert legal_ranks("K") == ["Q", "K", "A"]
    assert legal_ranks(None) == list(RANKS)


def test_after_an_illegal_claim_the_same_player_claims_again() -> None:
    _, rulings = play([claim(1, "Abby", 3, "4"), claim(2, "Beth", 2, "9"),
                       claim(3, "Beth", 2, "5")])
    assert types(rulings) == ["claim_ok", "claim_illegal", "claim_ok"]
    with pytest.raises(IllegalEventError):
        play([claim(1, "Abby", 3, "4"), claim(2, "Beth", 2, "9"), claim(3, "Carter", 2, "5")])


@pytest.mark.parametrize("count", [1, 2, 3, 4])
def test_a_claim_is_one_to_four_cards(count: int) -> None:
    match, rulings = play([claim(1, "Abby", count, "7")])
    assert rulings[0]["type"] == "claim_ok" and hands(match)[0] == 13 - count


@pytest.mark.parametrize("count", [0, 5, -1])
def test_a_claim_event_of_other_counts_is_malformed(count: int) -> None:
    game = make_game("cheat", FOUR)
    with pytest.raises(InvalidEventError) as err:
        game.parse_event(claim(1, "Abby", count, "7"))
    assert err.value.field == "count"


def test_a_claim_of_more_cards_than_held_is_ruled() -> None:
    events = down_to(2)
    match, rulings = play([*events, claim(100, "Abby", 3, "A")])
    assert match.state.hands[0] == 2
    assert rulings[-1] == {"type": "claim_too_many", "t": 100, "player": "Abby", "count": 3,
                           "most": 2}
    assert match.state.placing == 0


@pytest.mark.parametrize(("events", "field"), [
    ([claim(1, "Beth", 1, "4")], "player"),
    ([claim(1, "Abby", 1, "4"), claim(2, "Abby", 1, "4")], "player"),
    ([claim(1, "Abby", 1, "4"), claim(2, "Carter", 1, "4")], "player"),
    ([claim(1, "Abby")], None),  # a bare claim is fine ...
    ([claim(1, "Abby"), claim(2, "Beth", 1, "4")], "player"),  # ... and holds the turn
    ([claim(1, "Abby", 2)], "rank"),
    ([claim(1, "Abby", rank="4")], "count"),
    ([claim(1, "Abby", 1, "4"), challenge(2, "Beth"), claim(3, "Beth", 1, "4")], "type"),
])
def test_claims_out_of_turn_or_half_given_are_illegal_input(
        events: list[dict[str, Any]], field: str | None) -> None:
    game = make_game("cheat", FOUR)
    match: Match[CheatState] = Match(game)
    for ev in events[:-1]:
        match.apply(game.parse_event(ev))
    before = match.state
    if field is None:
        match.apply(game.parse_event(events[-1]))
        return
    with pytest.raises(IllegalEventError) as err:
        match.apply(game.parse_event(events[-1]))
    assert err.value.field == field
    assert match.state == before


def test_turn_passes_to_the_left_and_wraps() -> None:
    match, rulings = play([claim(t, FOUR[t % 4], 1, "4") for t in range(6)])
    assert [r["next"] for r in rulings] == ["Beth", "Carter", "Debbie", "Abby", "Beth", "Carter"]
    assert hands(match) == [11, 11, 12, 12] and match.state.pile == 6 and conserved(match)


# --- the challenge window ------------------------------------------------------


def fix(t: float, count: int, rank: str) -> dict[str, Any]:
    return {"t": t, "type": "fix_claim", "count": count, "rank": rank}


def test_a_misheard_claim_is_fixed_before_the_reveal_and_the_reveal_rules_on_the_fix() -> None:
    # Beth said "two eights" after Abby's sevens; the companion heard "one eight".
    match, rulings = play([claim(1, "Abby", 1, "7"), say(2, "one eight"),
                           challenge(3, "Carter"), fix(4, 2, "8"), reveal(5, "8", "8")])
    assert rulings[2]["said"] == "one eight"  # the challenge says what it checks
    assert rulings[3] == {"type": "claim_fixed", "t": 4, "player": "Beth", "count": 2,
                          "rank": "8", "said": "two eights", "was_count": 1, "was_rank": "8",
                          "hand": 11}
    # The truth: Carter takes the three cards, Beth's left (Carter) plays next.
    assert rulings[4]["type"] == "challenge_lost" and rulings[4]["cards"] == ["8", "8"]
    assert rulings[5] == {"type": "pile", "t": 5, "player": "Carter", "cards": 3}
    assert hands(match) == [12, 11, 16, 13]
    assert sum(match.state.hands) + match.state.pile == 52


def test_a_claim_said_back_wrong_is_fixed_in_its_window() -> None:
    match, rulings = play([say(1, "one king"), fix(2, 1, "7")])
    assert rulings[-1]["type"] == "claim_fixed" and rulings[-1]["was_rank"] == "K"
    view = match.game.view(match.state)
    assert view["last_claim"]["rank"] == "7" and view["legal_ranks"] == ["6", "7", "8"]
    # The next claim is judged against the fixed rank.
    _, rulings = play([say(1, "one king"), fix(2, 1, "7"), claim(3, "Beth", 2, "8")])
    assert rulings[-1]["type"] == "claim_ok"


def test_a_claim_said_back_wrong_is_fixed_by_voice() -> None:
    match, rulings = play([say(1, "one king", 0.8), say(2.5, "no, one seven", 0.9)])
    assert rulings[0]["said"] == "one king"  # said back: under echo_confidence
    assert rulings[1] == {"type": "claim_fixed", "t": 2.5, "player": "Abby", "count": 1,
                          "rank": "7", "said": "one seven", "was_count": 1, "was_rank": "K",
                          "hand": 12}
    assert "no" in match.game.listen_words(match.state)
    assert "no" not in match.game.listen_words(play([])[0].state)  # nothing to fix yet


def test_a_correction_word_alone_makes_the_next_claim_heard_a_fix() -> None:
    # "no, one seven" with a pause: two utterances.
    _, rulings = play([say(1, "one king", 0.8), say(2, "no"), say(2.8, "one seven")])
    assert types(rulings) == ["claim_ok", "claim_fixed"]
    assert rulings[1]["player"] == "Abby" and rulings[1]["rank"] == "7"
    # Past CORRECTION_S the claim is the next player's, as any other.
    _, rulings = play([say(1, "one king", 0.8), say(2, "no"), say(4.5, "one king")])
    assert types(rulings) == ["claim_ok", "claim_ok"] and rulings[1]["player"] == "Beth"
    # A claim entered on the page in between ends the correction.
    _, rulings = play([say(1, "one king", 0.8), say(2, "no"), claim(2.3, "Beth", 1, "A"),
                       say(2.8, "one king")])
    assert types(rulings) == ["claim_ok", "claim_ok", "claim_ok"]
    assert rulings[2]["player"] == "Carter"
    # Only the one claim right after it.
    _, rulings = play([say(1, "one king", 0.8), say(2, "no"), say(2.5, "hello"),
                       say(2.8, "one king")])
    assert types(rulings) == ["claim_ok", "claim_ok"] and rulings[1]["player"] == "Beth"


@pytest.mark.parametrize("events", [
    [say(1, "one king", 0.8), say(2, "no, one seven", 0.5)],  # heard unsurely
    [say(1, "one king", 0.8), say(2, "no, one king")],  # the same claim
    [say(1, "one king", 0.8), say(2, "no")],  # no claim after it
    [claim(1, "Abby", 1, "9"), say(2, "one ten", 0.8), say(3, "no, one two")],  # illegal
    [say(1, "one king", 0.8), tick(7), say(8, "no, one seven")],  # the window has closed
    [say(1, "one king"), say(2, "no, one seven")],  # taken surely: not said back
    [claim(1, "Abby", 1, "K"), say(2, "no, one seven")],  # entered on the page
])
def test_a_spoken_fix_that_cannot_stand_rules_nothing(events: list[dict[str, Any]]) -> None:
    before, _ = play(events[:-1])
    match, rulings = play(events)
    assert rulings[len(play(events[:-1])[1]):] == []
    assert match.state.hands == before.state.hands and match.state.last == before.state.last


def test_a_claim_misheard_in_silence_is_fixed_when_the_next_claim_shows_it() -> None:
    # Beth said "one seven" after Abby's sixes; the companion heard "one five"
    # surely (legal too, so not said back). Carter's "one eight" is then ruled
    # illegal ("After fives: ..."), which tells the table; Beth's claim is
    # fixed, her window long closed, and Carter claims again.
    match, rulings = play([claim(1, "Abby", 1, "6"), say(2, "one five"), tick(8),
                           say(9, "one eight"), fix(10, 1, "7"), say(11, "one eight")])
    assert types(rulings) == ["claim_ok", "claim_ok", "window_closed", "claim_illegal",
                              "claim_fixed", "claim_ok"]
    assert rulings[4]["player"] == "Beth" and rulings[4]["was_rank"] == "5"
    assert rulings[-1]["player"] == "Carter" and match.state.last is not None
    assert match.state.last.after == "7"


def test_a_fix_after_the_window_that_empties_the_hand_is_a_win() -> None:
    rounds = [(4, 4, 4, 4), (4, 4, 4, 4), (3, 3, 3, 3)]  # two cards left each
    events = [claim(1 + 4 * r + i, name, n, "7") for r, counts in enumerate(rounds)
              for i, (name, n) in enumerate(zip(FOUR, counts, strict=True))]
    # Beth put down both her cards; the companion heard "one seven", surely.
    events += [claim(13, "Abby", 1, "7"), say(14, "one seven"), tick(20)]
    match, _ = play(events)
    assert hands(match) == [1, 1, 2, 2] and match.game.winner(match.state) is None
    match, rulings = play([*events, fix(21, 2, "7")])
    assert types(rulings)[-4:] == ["claim_fixed", "winner", "scores", "tally"]
    assert match.game.winner(match.state) == "Beth"


@pytest.mark.parametrize(("events", "field", "words"), [
    ([], "type", "no claim to fix"),  # nothing claimed yet
    ([claim(1, "Abby", 1, "7"), challenge(2, "Beth"), reveal(3, "7")], "type", "no claim"),
    ([claim(1, "Abby", 1, "9"), claim(2, "Beth", 1, "10")], "rank", "one of ['8', '9', '10']"),
    ([claim(1, "Abby", 2, "7")], "rank", "already is"),
])
def test_a_fix_that_cannot_stand_names_its_field_and_changes_nothing(
        events: list[dict[str, Any]], field: str, words: str) -> None:
    match, _ = play(events)
    before = match.state
    with pytest.raises(IllegalEventError) as err:
        match.apply(match.game.parse_event(fix(events[-1]["t"] + 0.5 if events else 1, 2, "7")))
    assert err.value.field == field and words in str(err.value)
    assert match.state == before


def test_a_fix_cannot_claim_more_cards_than_the_claimant_held() -> None:
    match, _ = play([claim(1, "Abby", 4, "7"), claim(2, "Beth", 4, "7"),
                     claim(3, "Carter", 4, "7"), claim(4, "Debbie", 4, "7"),
                     claim(5, "Abby", 4, "7"), claim(6, "Beth", 4, "7"),
                     claim(7, "Carter", 4, "7"), claim(8, "Debbie", 4, "7"),
                     claim(9, "Abby", 4, "7"), claim(10, "Beth", 4, "7"),
                     claim(11, "Carter", 4, "7"), claim(12, "Debbie", 4, "7"),
                     claim(13, "Abby", 1, "7")])
    assert match.state.hands[0] == 0  # Abby held one card
    with pytest.raises(IllegalEventError) as err:
        match.apply(match.game.parse_event(fix(14, 2, "7")))
    assert err.value.field == "count" and "held 1 cards" in str(err.value)


def test_a_fix_to_a_last_card_lets_the_claimant_win_when_the_window_closes() -> None:
    rounds = [(3, 4, 4, 4), (3, 4, 4, 4), (3, 3, 4, 4)]
    events = [claim(1 + 4 * r + i, name, n, "7") for r, counts in enumerate(rounds)
              for i, (name, n) in enumerate(zip(FOUR, counts, strict=True))]
    # Beth, with two cards left, claims both; the companion hears one.
    events += [claim(13, "Abby", 3, "7"), say(14, "one seven"), fix(15, 2, "7"), tick(30)]
    match, rulings = play(events)
    assert hands(match) == [1, 0, 1, 1]
    assert "winner" in types(rulings) and match.game.winner(match.state) == "Beth"


def set_hand(t: float, player: str, cards: int) -> dict[str, Any]:
    return {"t": t, "type": "set_hand", "player": player, "cards": cards}


def test_a_claim_by_ear_that_empties_the_hand_is_said_back() -> None:
    rounds = [(4, 4, 4, 4), (4, 4, 4, 4), (4, 4, 4, 4)]
    events = [claim(1 + 4 * r + i, name, n, "7") for r, counts in enumerate(rounds)
              for i, (name, n) in enumerate(zip(FOUR, counts, strict=True))]
    match, rulings = play([*events, say(13, "one seven")])  # Abby's last card, heard surely
    assert rulings[-1]["hand"] == 0
    assert (rulings[-1]["reason"], rulings[-1]["said"]) == ("last", "one seven")
    assert "no" in match.game.listen_words(match.state)  # she may correct it by voice
    # Entered on the page, it is not said back: the page shows it.
    _, rulings = play([*events, claim(13, "Abby", 1, "7")])
    assert rulings[-1]["hand"] == 0 and "reason" not in rulings[-1]


def test_a_hand_count_the_table_knows_is_set_and_the_pile_takes_the_difference() -> None:
    # Beth put down two eights; the companion heard one, surely, and nobody
    # challenged. Later the table counts her hand: 11, not 12.
    match, rulings = play([claim(1, "Abby", 1, "7"), say(2, "one eight"), tick(8),
                           set_hand(9, "Beth", 11)])
    assert rulings[-1] == {"type": "hand_set", "t": 9, "player": "Beth", "cards": 11,
                           "was": 12, "pile": 3}
    assert hands(match) == [12, 11, 13, 13] and match.state.pile == 3
    assert match.game.winner(match.state) is None


def test_a_hand_set_to_nothing_wins_unless_its_own_claim_is_still_open() -> None:
    # Carter's window is open on his claim: he wins when it closes, as always.
    match, rulings = play([claim(1, "Abby", 4, "7"), claim(2, "Beth", 4, "7"),
                           claim(3, "Carter", 4, "7"), set_hand(4, "Carter", 0)])
    assert types(rulings)[-1] == "hand_set" and match.game.winner(match.state) is None
    match, rulings = play([claim(1, "Abby", 4, "7"), claim(2, "Beth", 4, "7"),
                           claim(3, "Carter", 4, "7"), set_hand(4, "Carter", 0), tick(9)])
    assert match.game.winner(match.state) == "Carter"
    # Abby's last claim closed long ago: out of cards, she has won.
    match, rulings = play([claim(1, "Abby", 4, "7"), claim(2, "Beth", 4, "7"),
                           set_hand(3, "Abby", 0)])
    assert types(rulings)[-4:] == ["hand_set", "winner", "scores", "tally"]
    assert match.game.winner(match.state) == "Abby"
    assert sum(match.state.hands) + match.state.pile == 52


@pytest.mark.parametrize(("cards", "words"), [
    (13, "already holds 13"),
    # The pile holds only Abby's three cards, and those stay under her claim.
    (14, "3 of them under the last claim: Beth can hold at most 13")])
def test_a_hand_count_that_cannot_be_names_cards_and_changes_nothing(cards: int,
                                                                     words: str) -> None:
    match, _ = play([claim(1, "Abby", 3, "7")])
    before = match.state
    with pytest.raises(IllegalEventError) as err:
        match.apply(match.game.parse_event(set_hand(2, "Beth", cards)))
    assert err.value.field == "cards" and words in str(err.value)
    assert match.state == before


def test_a_hand_count_cannot_take_back_the_cards_of_a_challenged_claim() -> None:
    # Abby's two cards are under Beth's challenge; counting Abby's hand as if
    # she held them would leave the reveal with cards the pile lacks. A
    # misheard claim is mended by fix_claim, which still works after it.
    match, _ = play([claim(1, "Abby", 2, "A"), challenge(1.5, "Beth")], FOUR[:3])
    before = match.state
    with pytest.raises(IllegalEventError) as err:
        match.apply(match.game.parse_event(set_hand(2, "Abby", 18)))
    assert err.value.field == "cards" and "at most 16" in str(err.value)
    assert match.state == before
    match.apply(match.game.parse_event(fix(3, 1, "A")))
    assert hands(match) == [17, 17, 17] and match.state.pile == 1


def test_a_challenge_in_the_window_stands() -> None:
    match, rulings = play([claim(1, "Abby", 2, "4"), challenge(5.9, "Carter")])
    assert rulings[-1] == {"type": "challenge", "t": 5.9, "player": "Carter",
                           "claimant": "Abby", "count": 2, "rank": "4", "said": "two fours"}
    assert match.state.contest is not None


@pytest.mark.parametrize("late", [6.0, 6.5, 30.0])
def test_the_window_closes_after_the_set_time(late: float) -> None:
    _, rulings = play([claim(1, "Abby", 2, "4"), challenge(late, "Carter")])
    assert rulings[-1] == {"type": "challenge_ignored", "t": late, "player": "Carter",
                           "reason": "no_window"}


def test_a_tick_closes_the_window() -> None:
    match, rulings = play([claim(1, "Abby", 2, "4"), tick(7)])
    assert rulings[-1] == {"type": "window_closed", "t": 6.0, "player": "Abby"}
    game = match.game
    assert game.view(match.state)["window"] is None
    match2, _ = play([claim(1, "Abby", 2, "4"), tick(5)])
    assert match2.game.view(match2.state)["window"] == {"claimant": "Abby", "closes_at": 6.0}


def test_the_window_option_sets_the_time() -> None:
    _, rulings = play([claim(1, "Abby", 2, "4"), challenge(9, "Carter")], challenge_window=10)
    assert rulings[-1]["type"] == "challenge"


def test_the_next_claim_closes_the_window_and_opens_its_own() -> None:
    _, rulings = play([claim(1, "Abby", 2, "4"), claim(2, "Beth", 1, "4"),
                       challenge(2.5, "Carter")])
    assert rulings[-1]["claimant"] == "Beth"
    # Cards down without a known claim: Abby's window is closed, Beth's not open.
    _, rulings = play([claim(1, "Abby", 2, "4"), claim(2, "Beth"), challenge(2.5, "Carter")])
    assert rulings[-1]["type"] == "challenge_ignored" and rulings[-1]["reason"] == "no_window"


def test_no_challenge_before_any_claim() -> None:
    _, rulings = play([challenge(1, "Beth")])
    assert rulings == [{"type": "challenge_ignored", "t": 1, "player": "Beth",
                        "reason": "no_window"}]


def test_the_first_challenge_wins_later_ones_are_ignored() -> None:
    match, rulings = play([claim(1, "Abby", 2, "4"), challenge(2.0, "Debbie"),
                           challenge(2.1, "Beth"), challenge(2.2, "Carter")])
    assert types(rulings) == ["claim_ok", "challenge", "challenge_ignored", "challenge_ignored"]
    assert [r.get("reason") for r in rulings[2:]] == ["not_first", "not_first"]
    assert match.state.contest is not None and match.state.contest.challenger == 3


def test_the_claimant_cannot_challenge_themself() -> None:
    _, rulings = play([claim(1, "Abby", 2, "4"), challenge(2, "Abby")])
    assert rulings[-1] == {"type": "challenge_ignored", "t": 2, "player": "Abby",
                           "reason": "own_claim"}


@pytest.mark.parametrize("order", [["Debbie", "Beth"], ["Beth", "Debbie"]])
def test_a_tie_goes_to_the_seat_nearest_the_claimants_left(order: list[str]) -> None:
    match, rulings = play([claim(1, "Abby", 2, "4"), challenge(2, order[0]),
                           challenge(2, order[1])])
    assert rulings[-1] == {"type": "challenge_tie", "t": 2, "player": "Beth", "players": order}
    assert match.state.contest is not None and match.state.contest.challenger == 1


# --- reveals -------------------------------------------------------------------


def test_a_bluff_caught_the_claimant_takes_the_pile_challenger_plays_next() -> None:
    match, rulings = play([claim(1, "Abby", 3, "4"), claim(2, "Beth", 2, "5"),
                           challenge(3, "Debbie"), reveal(5, "5", "9")])
    assert rulings[-3:] == [
        {"type": "challenge_won", "t": 5, "player": "Debbie", "claimant": "Beth",
         "cards": ["5", "9"], "rank": "5", "next": "Debbie"},
        {"type": "pile", "t": 5, "player": "Beth", "cards": 5},
        {"type": "turn", "t": 5, "player": "Debbie"}]
    assert hands(match) == [10, 16, 13, 13] and match.state.pile == 0
    assert match.state.turn == 3 and match.state.last is None and conserved(match)


def test_a_true_claim_the_challenger_takes_the_pile_play_goes_on_from_the_claimants_left(
        ) -> None:
    match, rulings = play([claim(1, "Abby", 3, "4"), claim(2, "Beth", 2, "5"),
                           challenge(3, "Abby"), reveal(5, "5", "5")])
    assert rulings[-3:] == [
        {"type": "challenge_lost", "t": 5, "player": "Abby", "claimant": "Beth",
         "cards": ["5", "5"], "rank": "5", "next": "Carter"},
        {"type": "pile", "t": 5, "player": "Abby", "cards": 5},
        {"type": "turn", "t": 5, "player": "Carter"}]
    assert hands(match) == [15, 11, 13, 13] and match.state.turn == 2 and conserved(match)


@pytest.mark.parametrize("rank", ["9", "K", "A"])
def test_after_a_challenge_the_next_claim_is_free(rank: str) -> None:
    _, rulings = play([claim(1, "Abby", 3, "4"), challenge(2, "Beth"), reveal(3, "4", "4", "4"),
                       claim(4, "Beth", 1, rank)])
    assert rulings[-1]["type"] == "claim_ok"


@pytest.mark.parametrize("cards", [["4"], ["4", "4", "4"], ["4", "4", "4", "4"]])
def test_a_reveal_of_the_wrong_count_is_illegal_input(cards: list[str]) -> None:
    game = make_game("cheat", FOUR)
    match: Match[CheatState] = Match(game)
    match.fold([game.parse_event(claim(1, "Abby", 2, "4")),
                game.parse_event(challenge(2, "Beth"))])
    with pytest.raises(IllegalEventError) as err:
        match.apply(game.parse_event(reveal(3, *cards)))
    assert err.value.field == "cards"


def test_a_reveal_without_a_challenge_is_illegal_input() -> None:
    with pytest.raises(IllegalEventError) as err:
        play([claim(1, "Abby", 2, "4"), reveal(2, "4", "4")])
    assert err.value.field == "type"


@pytest.mark.parametrize("cards", [["11", "4"], ["four", "4"], [], ["4"] * 5])
def test_a_reveal_of_unknown_ranks_is_malformed(cards: list[str]) -> None:
    with pytest.raises(InvalidEventError) as err:
        make_game("cheat", FOUR).parse_event(reveal(1, *cards))
    assert err.value.field == "cards"


# --- winning -----------------------------------------------------------------------


def _to_last_claim() -> list[dict[str, Any]]:
    """Abby down to 2 cards, then her last claim of two aces (at t=100)."""
    events = down_to(2)
    return [*events, claim(100, "Abby", 2, "A")]


def test_an_empty_hand_wins_when_the_window_closes_unchallenged() -> None:
    match, rulings = play([*_to_last_claim(), tick(104)])
    assert rulings[-1]["type"] == "claim_ok" and match.winner is None
    match, rulings = play([*_to_last_claim(), tick(105)])
    assert types(rulings)[-3:] == ["winner", "scores", "tally"]
    assert rulings[-3] == {"type": "winner", "t": 105.0, "player": "Abby"}
    assert rulings[-2]["scores"]["Abby"] == 0 and rulings[-2]["label"] == "cards left"
    assert match.winner == "Abby" and conserved(match)


def test_the_next_claim_closing_the_window_makes_the_winner() -> None:
    match, rulings = play([*_to_last_claim(), claim(101, "Beth", 1, "A")])
    assert types(rulings)[-3:] == ["winner", "scores", "tally"] and match.winner == "Abby"
    assert match.state.pile + sum(match.state.hands) == 52


def test_an_empty_hand_caught_bluffing_does_not_win() -> None:
    match, rulings = play([*_to_last_claim(), challenge(101, "Carter"), reveal(102, "A", "3")])
    assert types(rulings)[-3:] == ["challenge_won", "pile", "turn"] and match.winner is None
    assert match.state.hands[0] == rulings[-2]["cards"] and match.state.pile == 0
    assert match.state.turn == 2


def test_an_empty_hand_challenged_wrongly_wins_at_the_reveal() -> None:
    match, rulings = play([*_to_last_claim(), challenge(101, "Carter"), reveal(102, "A", "A")])
    assert types(rulings)[-5:] == ["challenge_lost", "pile", "winner", "scores", "tally"]
    assert rulings[-5]["next"] is None
    assert match.winner == "Abby" and conserved(match)


def test_after_the_game_only_ticks_and_words_which_rule_nothing() -> None:
    match, _ = play([*_to_last_claim(), tick(105)])
    game = match.game
    assert match.apply(game.parse_event(tick(106))) == []
    assert match.apply(game.parse_event(say(107, "two kings"))) == []
    for ev in (claim(109, "Beth", 1, "A"), challenge(109, "Beth")):
        with pytest.raises(IllegalEventError) as err:
            match.apply(game.parse_event(ev))
        assert err.value.field == "type"
    assert game.listen_words(match.state) == ["cheat"]


def test_scores_carry_the_stats() -> None:
    _, rulings = play([*_to_last_claim(), challenge(101, "Carter"), reveal(102, "A", "A")])
    stats = rulings[-2]["stats"]
    assert stats["Carter"]["challenges_lost"] == 1 and stats["Abby"]["truths"] == 1
    assert stats["Carter"]["cards_taken"] == rulings[-4]["cards"]
    assert stats["Abby"]["claims"] == sum(1 for r in rulings
                                          if r["type"] == "claim_ok" and r["player"] == "Abby")


def test_stats_count_bluffs_and_challenges() -> None:
    match, _ = play([claim(1, "Abby", 3, "4"), claim(2, "Beth", 2, "5"),
                     challenge(3, "Debbie"), reveal(5, "5", "9"),
                     claim(6, "Debbie", 4, "K"), challenge(7, "Abby"),
                     reveal(8, "K", "K", "K", "K")])
    s = match.game.view(match.state)["players"]
    by = {p["name"]: p["stats"] for p in s}
    assert by["Beth"]["bluffs"] == 1 and by["Debbie"]["bluffs_caught"] == 1
    assert by["Debbie"]["challenges_won"] == 1 and by["Debbie"]["truths"] == 1
    assert by["Abby"]["challenges_lost"] == 1 and by["Abby"]["cards_taken"] == 4
    assert by["Beth"]["cards_taken"] == 5 and by["Abby"]["claims"] == 1


# --- spoken claims, cheats and reveals -------------------------------------------------


@pytest.mark.parametrize(("text", "count", "rank"), [
    ("three fours", 3, "4"), ("one king", 1, "K"), ("two aces", 2, "A"), ("a six", 1, "6"),
    ("an ace", 1, "A"), ("Four Queens!", 4, "Q"), ("um, two twos", 2, "2"),
    ("three jacks", 3, "J"), ("two tens", 2, "10"), ("a seven", 1, "7"),
])
def test_a_spoken_claim_is_parsed(text: str, count: int, rank: str) -> None:
    _, rulings = play([say(1, text)])
    assert rulings == [{"type": "claim_ok", "t": 1, "player": "Abby", "count": count,
                        "rank": rank, "hand": 13 - count, "next": "Beth"}]


@pytest.mark.parametrize("text", ["four", "kings", "hello there", "cheat", "I pass"])
def test_words_that_are_not_a_claim_rule_nothing_unless_cards_are_down(text: str) -> None:
    _, rulings = play([say(1, text)])
    assert rulings == []
    _, rulings = play([claim(1, "Abby"), say(2, text)])
    assert rulings == [{"type": "ask_claim", "t": 2, "player": "Abby"}]


@pytest.mark.parametrize("text", ["two twos one eight", "three fours, no, two fives"])
def test_two_different_claims_at_once_are_asked_again(text: str) -> None:
    match, rulings = play([say(1, text)])
    assert rulings == [{"type": "ask_claim", "t": 1, "player": "Abby"}]
    assert match.state.pile == 0
    _, rulings = play([say(1, "three fours, three fours")])
    assert types(rulings) == ["claim_ok"]


def test_a_bare_claim_is_completed_by_words_or_by_the_page() -> None:
    _, rulings = play([claim(1, "Abby"), say(1.5, "three fours")])
    assert rulings[-1]["type"] == "claim_ok" and rulings[-1]["count"] == 3
    _, rulings = play([claim(1, "Abby"), say(1.5, "err"), claim(3, "Abby", 3, "4")])
    assert types(rulings) == ["ask_claim", "claim_ok"]


def test_a_spoken_illegal_claim_is_ruled_at_once_with_the_choices() -> None:
    _, rulings = play([say(1, "three fours"), say(2, "two nines")])
    assert rulings[-1] == {"type": "claim_illegal", "t": 2, "player": "Beth", "count": 2,
                           "rank": "9", "after": "4", "legal": ["3", "4", "5"]}


def test_a_spoken_claim_of_five_is_too_many() -> None:
    _, rulings = play([say(1, "five kings")])
    assert rulings == [{"type": "claim_too_many", "t": 1, "player": "Abby", "count": 5,
                        "most": 4}]


def test_weak_words_make_no_claim_and_are_asked_again_once_cards_are_down() -> None:
    match, rulings = play([say(1, "three fours", confidence=0.2)])
    assert rulings == [] and match.state.pile == 0
    _, rulings = play([say(1, "three fours"), say(2, "two fours", confidence=0.2)])
    assert types(rulings) == ["claim_ok"]
    _, rulings = play([say(1, "three fours"), claim(2, "Beth"),
                       say(2.5, "two nines", confidence=0.2)])
    assert rulings[-1] == {"type": "ask_claim", "t": 2.5, "player": "Beth"}


def test_a_spoken_cheat_opens_a_challenge_the_button_names_the_challenger() -> None:
    match, rulings = play([say(1, "two fours"), say(2, "cheat!")])
    assert rulings[-1] == {"type": "challenge_heard", "t": 2, "claimant": "Abby", "count": 2,
                           "rank": "4"}
    game = match.game
    assert game.view(match.state)["awaiting"] == "challenger"
    rulings2 = match.fold([game.parse_event(challenge(2.3, "Carter")),
                           game.parse_event(reveal(4, "4", "4"))])
    assert [r.type for r in rulings2] == ["challenge", "challenge_lost", "pile", "turn"]
    assert rulings2[0].to_dict()["player"] == "Carter"


def test_the_reveal_may_come_before_the_challenger_is_named() -> None:
    match, rulings = play([say(1, "two fours"), say(2, "cheat"), reveal(3, "4", "9"),
                           challenge(4, "Debbie")])
    assert types(rulings)[-4:] == ["challenge", "challenge_won", "pile", "turn"]
    assert match.state.turn == 3


@pytest.mark.parametrize(("text", "confidence"), [("cheat", 1.0), ("cheat", 0.2)])
def test_a_cheat_outside_the_window_or_weak_is_not_a_challenge(text: str,
                                                             confidence: float) -> None:
    late = 10.0 if confidence == 1.0 else 2.0
    match, rulings = play([say(1, "two fours"), say(late, text, confidence)])
    assert not {"challenge", "challenge_heard"} & set(types(rulings))
    assert match.state.contest is None


@pytest.mark.parametrize(("text", "cards", "outcome"), [
    ("four, four, six", ["4", "4", "6"], "challenge_won"),
    ("two fours and a six", ["4", "4", "6"], "challenge_won"),
    ("four four four", ["4", "4", "4"], "challenge_lost"),
    ("three fours", ["4", "4", "4"], "challenge_lost"),
])
def test_a_spoken_reveal(text: str, cards: list[str], outcome: str) -> None:
    _, rulings = play([say(1, "three fours"), challenge(2, "Beth"), say(3, text)])
    assert rulings[-3]["type"] == outcome and rulings[-3]["cards"] == cards


def test_a_spoken_reveal_of_the_wrong_count_is_asked_again() -> None:
    match, rulings = play([say(1, "three fours"), challenge(2, "Beth"), say(3, "four six")])
    assert rulings[-1] == {"type": "ask_reveal", "t": 3, "claimant": "Abby", "count": 3,
                           "heard": ["4", "6"]}
    assert match.state.contest is not None


def test_listen_words_follow_the_table() -> None:
    match, _ = play([])
    game = match.game
    assert isinstance(game, Cheat)
    words = game.listen_words(match.state)
    assert {"three fours", "one king", "a six", "an ace", "two aces", "four tens"} <= set(words)
    assert "cheat" not in words and "four" not in words and "five kings" not in words
    # "one" and the article that fits before each singular: never "an king", "a ace".
    assert "an king" not in words and "a ace" not in words and "an eight" in words
    assert len(game.claim_phrases()) == 13 * 2 + 13 * 3
    for phrase in game.claim_phrases():
        assert game.parse_claim(phrase) is not None
    match, _ = play([say(1, "three fours")])
    assert "cheat" in game.listen_words(match.state)
    match, _ = play([say(1, "three fours"), challenge(2, "Beth")])
    words = game.listen_words(match.state)
    assert "cheat" not in words and {"four", "six", "ace", "two fours"} <= set(words)


def test_an_article_goes_before_the_words_the_pack_gives_it() -> None:
    lex = Lexicon(numbers={"one": 1}, articles=("a", "an", "the"),
                  article_before={"an": ("ace", "eight"), "the": ("king",)})
    assert lex.articles_for("ace") == ("an",)
    assert lex.articles_for("Eight") == ("an",)
    assert lex.articles_for("king") == ("the",)
    assert lex.articles_for("six") == ("a",)
    assert Lexicon(numbers={}, articles=("a",)).articles_for("ace") == ("a",)


def test_an_ungrammatical_article_is_still_read_as_one_card() -> None:
    _, rulings = play([say(1, "a ace")])
    first = rulings[0]
    assert first["type"] == "claim_ok" and (first["count"], first["rank"]) == (1, "A")


def test_claim_phrases_in_a_pack_without_plurals_or_articles() -> None:
    from companion.voice.pack import load_pack

    korean = load_pack("ko").lexicon
    assert korean.articles == ()
    game = make_game("cheat", FOUR, lexicon=korean)
    assert isinstance(game, Cheat)
    phrases = game.claim_phrases()
    assert len(phrases) == 13 * 4  # the word for one, two, three, four before each rank
    assert all(game.parse_claim(p) is not None for p in phrases)
    assert korean.cheat[0] not in game.listen_words(Match(game).state)


def test_view_shapes_the_table_for_the_page() -> None:
    match, _ = play([say(1, "three fours"), claim(2, "Beth")])
    view = match.game.view(match.state)
    assert view["awaiting"] == "words" and view["placing"] == "Beth"
    assert view["last_claim"] == {"player": "Abby", "count": 3, "rank": "4", "t": 1}
    assert view["legal_ranks"] == ["3", "4", "5"] and view["pile"] == 3 and view["cards"] == 52
    assert [p["hand"] for p in view["players"]] == [10, 13, 13, 13]
    assert json.loads(json.dumps(view)) == view


# --- undo ---------------------------------------------------------------------------


def test_undo_of_a_won_challenge_restores_the_pile() -> None:
    match, _ = play([claim(1, "Abby", 3, "4"), challenge(2, "Beth"), reveal(3, "4", "9", "9")])
    assert hands(match)[0] == 13
    rulings = match.apply(match.game.parse_event({"t": 4, "type": "undo"}))
    assert [r.to_dict() for r in rulings] == [{"type": "undone", "t": 4, "what": "reveal",
                                               "at": 3}]
    assert hands(match)[0] == 10 and match.state.contest is not None


def test_undo_of_a_timeout_win_is_ruled_again_undo_of_the_claim_is_not() -> None:
    # The window had run out: undoing the tick that noticed it changes
    # nothing, the next event notices it again (no engine-side waiver, so a
    # rebuilt state is always the fold of the log).
    match, _ = play([*_to_last_claim(), tick(106)])
    game = match.game
    match.apply(game.parse_event({"t": 107, "type": "undo"}))
    assert match.winner is None
    rulings = [r.type for r in match.apply(game.parse_event(challenge(108, "Beth")))]
    assert rulings == ["window_closed", "winner", "scores", "tally"]
    # Undoing the last claim itself gives the cards back to the hand.
    match, _ = play([*_to_last_claim(), {"t": 101, "type": "undo"}])
    assert match.state.hands[0] == 2 and match.state.turn == 0 and match.winner is None


# --- sessions and the command line ------------------------------------------------------------


def test_the_example_session_replays_to_a_win() -> None:
    session = load_session(EXAMPLE, lexicon_for=lexicon_for_header)
    match: Match[CheatState] = Match(session.game)
    rulings = [r.to_dict() for r in match.fold(session.events)]
    assert match.winner == "Debbie" and conserved(match)
    assert [r["type"] for r in rulings].count("claim_illegal") == 1
    assert rulings[-2]["scores"] == {"Abby": 18, "Beth": 21, "Carter": 13, "Debbie": 0}


def test_replay_cli_end_to_end() -> None:
    exe = Path(sys.executable).with_name("companion")
    done = subprocess.run([str(exe), "replay", str(EXAMPLE)], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    session = load_session(EXAMPLE, lexicon_for=lexicon_for_header)
    match: Match[CheatState] = Match(session.game)
    assert lines == [r.to_dict() for r in match.fold(session.events)]
    assert lines[-3] == {"type": "winner", "t": 68.0, "player": "Debbie"}


def test_replay_cli_speaks_cheat_rulings_as_text() -> None:
    result = CliRunner().invoke(cli, ["replay", "--text", str(EXAMPLE)])
    assert result.exit_code == 0, result.output
    assert "Debbie wins the game!" in result.output


@pytest.mark.parametrize(("line", "field"), [
    ('{"t": 3, "type": "claim", "player": "Beth", "count": 7, "rank": "4"}', "count"),
    ('{"t": 3, "type": "claim", "player": "Zed", "count": 1, "rank": "4"}', "player"),
    ('{"t": 3, "type": "reveal", "cards": ["4", "X"]}', "cards"),
    ('{"t": 3, "type": "claim", "player": "Carter", "count": 1, "rank": "4"}', "player"),
    ('{"t": 3, "type": "reveal", "cards": ["4"]}', "type"),
])
def test_replay_cli_malformed_line_exits_2_naming_line_and_field(tmp_path: Path, line: str,
                                                                  field: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join([
        json.dumps({"game": "cheat", "players": FOUR}),
        json.dumps(say(1, "three fours")),
        line]) + "\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["replay", str(path)])
    assert result.exit_code == 2
    assert "line 3" in result.stderr and f"field {field!r}" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_replay_cli_bad_option_names_it(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"game": "cheat", "players": [f"P{i}" for i in range(8)],
                                "options": {"decks": 1}}) + "\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["replay", str(path)])
    assert result.exit_code == 2 and "line 1" in result.stderr and "decks" in result.stderr


# --- spoken rulings -------------------------------------------------------------------------


@pytest.mark.parametrize("language", ["en", "ko"])
def test_every_cheat_ruling_has_a_phrase_in_each_pack(language: str) -> None:
    import companion.games.cheat as cheat
    from companion.rulings import Ruling
    from companion.voice.pack import load_pack

    tags = {str(obj.__struct_config__.tag) for obj in vars(cheat).values()
            if isinstance(obj, type) and issubclass(obj, Ruling) and obj is not Ruling}
    assert {"claim_illegal", "challenge_won", "turn", "window_closed"} <= tags
    assert tags - set(load_pack(language).phrases) == set()


def test_a_korean_table_hears_cheat_rulings_in_korean() -> None:
    from companion.voice.pack import load_pack
    from companion.voice.phrases import sentence

    pack = load_pack("ko")
    game = make_game("cheat", FOUR, lexicon=pack.lexicon)
    match: Match[CheatState] = Match(game)
    # "셋 넷": three fours; "둘 아홉": two nines, illegal after fours.
    events = [say(1, "셋 넷"), say(2, "둘 아홉"), say(3, "둘 다섯"), challenge(4, "Carter"),
              reveal(5, "5", "9")]
    said = [sentence(r, pack) for r in match.fold([game.parse_event(e) for e in events])]
    assert "넷 다음에는 셋, 넷, 다섯 중 하나만 됩니다. Beth, 다시 말하세요." in said
    assert "Carter: Beth의 둘 다섯, 거짓말! 카드를 보여 주세요." in said
    assert "Beth의 거짓말: 다섯, 아홉. Carter이(가) 맞았어요." in said
    assert all("{" not in line for line in said), said


@pytest.mark.parametrize(("events", "said"), [
    ([say(1, "three fours"), say(2, "two nines")],
     "After fours: threes, fours or fives. Beth, claim again."),
    ([say(1, "a king"), say(2, "two sevens")],
     "After kings: queens, kings or aces. Beth, claim again."),
    ([say(1, "three fours"), challenge(2, "Debbie"), reveal(3, "4", "6", "4")],
     "Abby bluffed: four, six, four. Debbie was right."),
    ([say(1, "two aces"), challenge(2, "Debbie"), challenge(2.5, "Beth")],
     "Beth: too late, the first challenge stands."),
    ([say(1, "two aces"), challenge(2, "Abby")],
     "Abby: you cannot challenge your own claim."),
    ([say(1, "three fours"), challenge(2, "Debbie"), say(3, "four six")],
     "I heard four, six. Say the 3 cards again."),
])
def test_rulings_are_said_with_rank_words(events: list[dict[str, Any]], said: str) -> None:
    from companion.voice.pack import load_pack
    from companion.voice.phrases import sentence

    game = make_game("cheat", FOUR)
    match: Match[CheatState] = Match(game)
    rulings = match.fold([game.parse_event(e) for e in events])
    assert said in [sentence(r, load_pack("en"), shown=True) for r in rulings]


# --- the live table's path: the hub, the SQLite log, a restart -------------------------------


def test_a_game_through_the_hub_is_logged_and_resumes_exactly(tmp_path: Path) -> None:
    from companion.errors import EventError
    from companion.hub import Hub
    from companion.store import Store

    session = load_session(EXAMPLE, lexicon_for=lexicon_for_header)
    with Store(tmp_path / "log.sqlite3") as store:
        hub = Hub(store)
        table = hub.new_game("cheat", FOUR, {"challenge_window": 5.0})
        rulings = []
        for event in session.events:
            rulings += hub.submit(event)
        with pytest.raises(EventError):
            hub.submit(session.game.parse_event(claim(99, "Abby", 1, "4")))  # game over
        view = table.view()
        assert view["winner"] == "Debbie" and view["state"]["awaiting"] == "over"
        assert json.loads(json.dumps(view)) == view
        resumed = hub.resume(table.game_id)
        assert resumed.state == table.state
        assert [r.to_dict() for r in resumed.rulings] == [r.to_dict() for r in rulings]
        assert store.games()[0].winner == "Debbie"
    result = CliRunner().invoke(cli, ["replay", "--db", str(tmp_path / "log.sqlite3"),
                                      "--game", str(table.game_id)])
    assert result.exit_code == 0, result.output
    assert [json.loads(line) for line in result.output.splitlines()] == [
        r.to_dict() for r in rulings]


def test_the_grammar_holds_one_claim_then_a_reveal_of_several_items() -> None:
    """A claim is said alone; the recognizer searches for at most two phrases
    (speed, and room for talk to come out as a second claim that is asked
    again: ``CLAIM_ITEMS``); a reveal may hold several ranks or phrases
    ("four, four, six"; "two fours, two sixes")."""
    match, _ = play([])
    game = match.game
    assert game.utterance_items(match.state) == CLAIM_ITEMS == 2
    match, _ = play([claim(1.0, "Abby", 2, "4")])
    assert game.utterance_items(match.state) == CLAIM_ITEMS  # the next claim, or "cheat"
    match, _ = play([claim(1.0, "Abby", 2, "4"), challenge(2.0, "Beth")])
    assert match.game.awaiting(match.state) == "reveal"
    assert match.game.utterance_items(match.state) == REVEAL_ITEMS == 3


def test_a_claim_needs_the_claim_confidence_a_reveal_only_the_minimum() -> None:
    """A misheard claim misleads the whole table, so a claim by ear needs
    ``claim_confidence`` (0.7); a cheat shout or a spoken reveal needs only
    ``min_confidence`` (0.5)."""
    _, rulings = play([claim(1, "Abby"), say(1.5, "three fours", confidence=0.65)])
    assert types(rulings) == ["ask_claim"]
    _, rulings = play([claim(1, "Abby"), say(1.5, "three fours", confidence=0.75)])
    assert types(rulings) == ["claim_ok"]
    _, rulings = play([claim(1, "Abby", 2, "4"), challenge(2, "Beth"),
                       say(3, "four six", confidence=0.6)])
    assert "challenge_won" in types(rulings)
    _, rulings = play([claim(1, "Abby"), say(1.5, "three fours", confidence=0.75)],
                      claim_confidence=0.8)
    assert types(rulings) == ["ask_claim"]
    with pytest.raises(OptionError, match="claim_confidence"):
        play([], claim_confidence=1.5)


def test_a_claim_heard_but_not_surely_is_asked_again_with_no_cards_down() -> None:
    """No button was pressed, but a claim phrase was heard with confidence
    between ``ask_confidence`` and ``claim_confidence``: the player made a
    claim the companion did not take, so it asks (staying silent would let
    the next player's claim be taken as theirs). Weaker words stay talk."""
    match, rulings = play([say(1, "a king", confidence=0.55)])
    assert rulings == [{"type": "ask_claim", "t": 1, "player": "Abby"}]
    assert match.state.pile == 0 and match.state.turn == 0
    _, rulings = play([say(1, "a king", confidence=0.35), say(3, "a king", confidence=0.9)])
    assert types(rulings) == ["ask_claim", "claim_ok"] and rulings[1]["player"] == "Abby"
    _, rulings = play([say(1, "a king", confidence=0.25)])
    assert rulings == []
    _, rulings = play([say(1, "a king", confidence=0.25)], ask_confidence=0.2)
    assert types(rulings) == ["ask_claim"]
    _, rulings = play([say(1, "hello there", confidence=0.6)])
    assert rulings == []
    # While a window is open, the weak claim is the next player's.
    _, rulings = play([say(1, "three fours"), say(2, "two fives", confidence=0.6)])
    assert rulings[-1] == {"type": "ask_claim", "t": 2, "player": "Beth"}


def test_a_breach_by_ear_needs_the_breach_confidence() -> None:
    """A claim heard as illegal (or as more cards than allowed) is far more
    likely a misheard rank than a player's breach, and telling a player who
    claimed rightly that they broke a rule is the worst ruling: under
    ``breach_confidence`` (0.95) it is asked again and nothing changes."""
    match, rulings = play([say(1, "three fours"), say(2, "two nines", confidence=0.9)])
    assert rulings[-1] == {"type": "ask_claim", "t": 2, "player": "Beth"}
    assert match.state.pile == 3 and match.state.turn == 1 and match.state.placing is None
    _, rulings = play([say(1, "three fours"), say(2, "two nines", confidence=0.97)])
    assert rulings[-1]["type"] == "claim_illegal"
    # A legal claim needs only claim_confidence, a breach needs more.
    _, rulings = play([say(1, "three fours"), say(2, "two fives", confidence=0.9)])
    assert rulings[-1]["type"] == "claim_ok"
    _, rulings = play([say(1, "five kings", confidence=0.9)])
    assert rulings == [{"type": "ask_claim", "t": 1, "player": "Abby"}]
    _, rulings = play([say(1, "five kings", confidence=0.96)])
    assert types(rulings) == ["claim_too_many"]
    # Cards put down first: still asked, and Beth is still the one placing.
    match, rulings = play([say(1, "three fours"), claim(2, "Beth"),
                           say(2.5, "two nines", confidence=0.9)])
    assert rulings[-1] == {"type": "ask_claim", "t": 2.5, "player": "Beth"}
    assert match.game.awaiting(match.state) == "words"
    # A claim entered on the page is no hearing: ruled as it stands.
    _, rulings = play([say(1, "three fours"), claim(2, "Beth", 2, "9")])
    assert rulings[-1]["type"] == "claim_illegal"
    _, rulings = play([say(1, "three fours"), say(2, "two nines", confidence=0.9)],
                      breach_confidence=0.8)
    assert rulings[-1]["type"] == "claim_illegal"
    with pytest.raises(OptionError, match="breach_confidence"):
        play([], breach_confidence=-0.1)
    with pytest.raises(OptionError, match="ask_confidence"):
        play([], ask_confidence=2)


def test_a_claim_taken_less_surely_is_said_back() -> None:
    """Under ``echo_confidence`` (0.9) a claim by ear is taken and said back
    in the pack's words, so the table hears a misheard claim at once."""
    from companion.voice.pack import load_pack
    from companion.voice.phrases import sentence

    pack = load_pack("en")
    game = make_game("cheat", FOUR, lexicon=pack.lexicon)
    match: Match[CheatState] = Match(game)
    (ok,) = match.apply(game.parse_event(say(1, "three aces", confidence=0.8)))
    assert ok.to_dict() == {"type": "claim_ok", "t": 1, "player": "Abby", "count": 3,
                            "rank": "A", "hand": 10, "next": "Beth", "reason": "unsure",
                            "said": "three aces"}
    assert sentence(ok, pack) == "Abby: three aces."
    (ok,) = match.apply(game.parse_event(say(2, "an ace", confidence=0.85)))
    assert sentence(ok, pack) == "Beth: one ace."
    (ok,) = match.apply(game.parse_event(say(3, "two kings", confidence=0.95)))
    assert "said" not in ok.to_dict() and sentence(ok, pack) == ""
    (ok,) = match.apply(game.parse_event(claim(4, "Debbie", 1, "K")))
    assert "said" not in ok.to_dict()
    _, rulings = play([say(1, "three aces", confidence=0.8)], echo_confidence=0.7)
    assert "said" not in rulings[0]


def test_the_end_is_tallied_aloud_with_the_nonzero_figures() -> None:
    """After the scores, a ``tally`` names who bluffed (and was caught) and
    who won and lost challenges, leaving out the zeros, for the voice."""
    from companion.games.cheat import Tally
    from companion.voice.pack import load_pack
    from companion.voice.phrases import sentence

    _, rulings = play([*_to_last_claim(), challenge(101, "Carter"), reveal(102, "A", "A")])
    assert rulings[-1] == {"type": "tally", "t": 102.0, "bluffs": {}, "bluffs_caught": {},
                           "challenges_won": {}, "challenges_lost": {"Carter": 1}}
    pack = load_pack("en")
    said = sentence(Tally(t=1.0, bluffs={"Debbie": 1}, bluffs_caught={"Beth": 1},
                          challenges_won={"Beth": 1}, challenges_lost={"Carter": 2}), pack)
    assert said == ("Bluffs shown: Debbie 1. Challenges won: Beth 1. "
                    "Challenges lost: Carter 2.")
    said = sentence(Tally(t=1.0, bluffs={}, bluffs_caught={}, challenges_won={},
                          challenges_lost={}), pack)
    assert said == "Bluffs shown: nobody. Challenges won: nobody. Challenges lost: nobody."
