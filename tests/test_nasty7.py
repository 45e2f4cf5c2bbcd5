"""The Nasty 7 engine against the rulebook (rules/nasty7.md) and DESIGN.md's decisions."""

from __future__ import annotations

from typing import Any

import pytest

from companion.errors import IllegalEventError, OptionError
from companion.games import make_game
from companion.games.base import Match
from companion.games.nasty7 import Nasty7, Nasty7State, advance_count
from companion.resources import data_path
from companion.session import load_session
from companion.voice.pack import lexicon_for_header

FOUR = ["Abby", "Beth", "Carter", "Debbie"]


def play(events: list[dict[str, Any]], players: list[str] | None = None,
         **options: Any) -> tuple[Match[Nasty7State], list[dict[str, Any]]]:
    game = make_game("nasty7", players or FOUR, options)
    match: Match[Nasty7State] = Match(game)
    rulings: list[dict[str, Any]] = []
    for obj in events:
        rulings.extend(r.to_dict() for r in match.apply(game.parse_event(obj)))
    return match, rulings


def flip(t: float, player: str, card: str | None = "racketeer") -> dict[str, Any]:
    out: dict[str, Any] = {"t": t, "type": "flip", "player": player}
    if card is not None:
        out["card"] = card
    return out


def say(t: float, text: str, confidence: float = 1.0) -> dict[str, Any]:
    return {"t": t, "type": "say", "text": text, "confidence": confidence}


def kinds(rulings: list[dict[str, Any]]) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for r in rulings:
        if r["type"] == "mistake":
            out.append(("mistake", r["player"], r["kind"]))
        elif r["type"] in ("pile", "penalty_cards"):
            out.append((r["type"], r["player"], str(r["cards"])))
        elif r["type"] == "round":
            out.append(("round", r["starter"]))
        elif r["type"] in ("call_ok",):
            out.append(("call_ok", r["player"], str(r["count"])))
        elif r["type"] in ("winner", "accusation_unheard"):
            out.append((r["type"], r["player"]))
        elif r["type"] == "sound_set":
            out.append(("sound_set", r["player"], r["sound"]))
        else:
            out.append((r["type"],))
    return out


def stacks(match: Match[Nasty7State]) -> list[int]:
    return [len(s) for s in match.state.stacks]


# --- the count -------------------------------------------------------------


def test_count_runs_up_to_seven_down_to_one_and_up_again() -> None:
    numbers, last, direction = advance_count(0, 1, 16)
    assert numbers == [1, 2, 3, 4, 5, 6, 7, 6, 5, 4, 3, 2, 1, 2, 3, 4]
    assert (last, direction) == (4, 1)


def test_rulebook_worked_example_checks_every_count() -> None:
    session = load_session(data_path("voices", "en", "examples", "nasty7-rulebook.jsonl"),
                           lexicon_for=lexicon_for_header)
    match: Match[Nasty7State] = Match(session.game)
    rulings = [r.to_dict() for r in match.fold(session.events)]
    oks = [(r["player"], r["count"]) for r in rulings if r["type"] == "call_ok"]
    # Abby 1, Beth 2, Carter phone (3), Debbie 4, Abby gun (5), Beth 6,
    # Carter twin 7-6, Debbie skips, Abby 5, Beth twin phone (4-3), Carter skips, Debbie 2.
    assert oks == [("Abby", 1), ("Beth", 2), ("Carter", 3), ("Debbie", 4), ("Abby", 5),
                   ("Beth", 6), ("Carter", 6), ("Abby", 5), ("Beth", 3), ("Debbie", 2)]
    # The example ends with Abby saying five where one was due.
    assert kinds(rulings[-3:]) == [("mistake", "Abby", "wrong_number"), ("pile", "Abby", "11"),
                                   ("round", "Abby")]
    assert rulings[-3]["expected"] == ["one"]
    assert stacks(match) == [27 - 4 + 11, 27 - 3, 27 - 2, 27 - 2]


# --- deal ---------------------------------------------------------------------


@pytest.mark.parametrize(("players", "per", "aside"), [(2, 55, 0), (3, 36, 2), (4, 27, 2),
                                                       (5, 22, 0), (6, 18, 2)])
def test_deal_is_even_and_the_rest_is_set_aside(players: int, per: int, aside: int) -> None:
    game = make_game("nasty7", [f"P{i}" for i in range(players)])
    state = game.start()
    assert [len(s) for s in state.stacks] == [per] * players
    assert state.set_aside == aside


def test_younger_version_leaves_out_twins_and_refuses_them() -> None:
    game = make_game("nasty7", FOUR, {"younger": True, "virtual_deck": True})
    state = game.start()
    cards = {c for s in state.stacks for c in s}
    assert cards.isdisjoint({"twin_racketeer", "twin_phone"})
    assert sum(len(s) for s in state.stacks) + state.set_aside == 110 - 14 - 8
    with pytest.raises(IllegalEventError) as err:
        play([flip(1, "Abby", "twin_racketeer")], younger=True)
    assert err.value.field == "card"


@pytest.mark.parametrize(("players", "options", "field"), [
    (["Solo"], {}, "players"),
    (["A", "B", "C", "D", "E", "F", "G"], {}, "players"),
    (["A", "a"], {}, "players"),
])
def test_bad_tables_are_refused(players: list[str], options: dict[str, Any], field: str) -> None:
    with pytest.raises(IllegalEventError) as err:
        make_game("nasty7", players, options)
    assert err.value.field == field


@pytest.mark.parametrize(("options", "field"), [
    ({"hesitation": 0}, "hesitation"), ({"hesitation": "slow"}, "hesitation"),
    ({"min_confidence": 2}, "min_confidence"), ({"colour": "red"}, "colour"),
    ({"talk_confidence": -0.1}, "talk_confidence"),
    ({"talk_confidence": 0.9, "min_confidence": 0.8}, "talk_confidence"),
    ({"first_player": "Zed"}, "first_player"),
])
def test_bad_options_name_the_option(options: dict[str, Any], field: str) -> None:
    with pytest.raises(OptionError) as err:
        make_game("nasty7", FOUR, options)
    assert err.value.field == field


# --- calls and mistakes: one scenario per rule clause ----------------------------

SCENARIOS: list[tuple[str, list[dict[str, Any]], dict[str, Any], list[tuple[str, ...]]]] = [
    ("right number", [flip(1, "Abby"), say(1.5, "one")], {}, [("call_ok", "Abby", "1")]),
    ("digits count as numbers", [flip(1, "Abby"), say(1.5, "1")], {},
     [("call_ok", "Abby", "1")]),
    ("wrong number", [flip(1, "Abby"), say(1.5, "two")], {},
     [("mistake", "Abby", "wrong_number"), ("pile", "Abby", "1"), ("round", "Abby")]),
    ("twin racketeer says two numbers", [flip(1, "Abby", "twin_racketeer"), say(1.5, "one two")],
     {}, [("call_ok", "Abby", "2")]),
    ("twin racketeer numbers may come in two say events",
     [flip(1, "Abby", "twin_racketeer"), say(1.5, "one"), say(1.9, "two")], {},
     [("call_ok", "Abby", "2")]),
    ("twin racketeer with the second number wrong",
     [flip(1, "Abby", "twin_racketeer"), say(1.5, "one three")], {},
     [("mistake", "Abby", "wrong_number"), ("pile", "Abby", "1"), ("round", "Abby")]),
    ("phone card takes the sound", [flip(1, "Abby", "phone"), say(1.5, "hmmrrr")], {},
     [("call_ok", "Abby", "1")]),
    ("a number on a phone card is the wrong word", [flip(1, "Abby", "phone"), say(1.5, "one")],
     {}, [("mistake", "Abby", "wrong_word"), ("pile", "Abby", "1"), ("round", "Abby")]),
    ("a phone sound on a racketeer card is the wrong word",
     [flip(1, "Abby"), say(1.5, "hmmrrr")], {},
     [("mistake", "Abby", "wrong_word"), ("pile", "Abby", "1"), ("round", "Abby")]),
    ("any game word on a gun card is the wrong word", [flip(1, "Abby", "gun"), say(1.5, "one")],
     {}, [("mistake", "Abby", "wrong_word"), ("pile", "Abby", "1"), ("round", "Abby")]),
    ("a gun card kept silent is right", [flip(1, "Abby", "gun"), {"t": 4.5, "type": "tick"}],
     {}, [("call_ok", "Abby", "1")]),
    ("a gun card kept silent until the next flip is right",
     [flip(1, "Abby", "gun"), flip(2, "Beth"), say(2.4, "two")], {},
     [("call_ok", "Abby", "1"), ("call_ok", "Beth", "2")]),
    ("another phone sound is the wrong sound", [flip(1, "Abby", "phone"), say(1.5, "pfft")], {},
     [("mistake", "Abby", "wrong_sound"), ("pile", "Abby", "1"), ("round", "Abby")]),
    ("twin phone needs the sound twice",
     [flip(1, "Abby", "twin_phone"), say(1.5, "hmmrrr hmmrrr")], {}, [("call_ok", "Abby", "2")]),
    ("twin phone with the sound heard once is left unsure: the second may be unheard",
     [flip(1, "Abby", "twin_phone"), say(1.5, "hmmrrr"), {"t": 5.0, "type": "tick"}], {}, []),
    ("an accusation of a half-heard call is not ruled",
     [flip(1, "Abby", "twin_racketeer"), say(1.5, "one"), {"t": 5.0, "type": "tick"},
      {"t": 5.5, "type": "accuse", "by": ["Beth"]}], {}, [("accusation_unheard", "Abby")]),
    ("weak words on a gun card leave it unsure, not ok",
     [flip(1, "Abby", "gun"), say(1.5, "five", 0.3), {"t": 5.0, "type": "tick"}], {}, []),
    ("an accusation of a gun card with weak words is ruled from them",
     [flip(1, "Abby", "gun"), say(1.5, "five", 0.3), {"t": 2.0, "type": "accuse",
                                                       "by": ["Beth"]}], {},
     [("mistake", "Abby", "wrong_word"), ("pile", "Abby", "1"), ("round", "Abby")]),
    ("not your turn", [flip(1, "Beth")], {},
     [("mistake", "Beth", "out_of_turn"), ("pile", "Beth", "1"), ("round", "Beth")]),
    ("playing a card instead of skipping",
     [flip(1, "Abby", "twin_racketeer"), say(1.4, "one two"), flip(2, "Beth")], {},
     [("call_ok", "Abby", "2"), ("mistake", "Beth", "out_of_turn"), ("pile", "Beth", "2"),
      ("round", "Beth")]),
    ("the player after the skipped one plays on",
     [flip(1, "Abby", "twin_racketeer"), say(1.4, "one two"), flip(2, "Carter"),
      say(2.5, "three")], {}, [("call_ok", "Abby", "2"), ("call_ok", "Carter", "3")]),
    ("no call within 3 seconds is a hesitation", [flip(1, "Abby"), {"t": 4.5, "type": "tick"}],
     {}, [("mistake", "Abby", "hesitation"), ("pile", "Abby", "1"), ("round", "Abby")]),
    ("an onset 3.2 s after the flip is a hesitation", [flip(1, "Abby"), say(4.2, "one")], {},
     [("mistake", "Abby", "hesitation"), ("pile", "Abby", "1"), ("round", "Abby")]),
    ("an onset 2.9 s after the flip is in time", [flip(1, "Abby"), say(3.9, "one")], {},
     [("call_ok", "Abby", "1")]),
    ("exactly at the limit is not more than 3 seconds", [flip(1, "Abby"), say(4.0, "one")], {},
     [("call_ok", "Abby", "1")]),
    ("the hesitation limit is an option", [flip(1, "Abby"), say(3.5, "one")],
     {"hesitation": 2.0},
     [("mistake", "Abby", "hesitation"), ("pile", "Abby", "1"), ("round", "Abby")]),
    ("a missing call when the next card is flipped is a hesitation",
     [flip(1, "Abby"), flip(2, "Beth")], {},
     [("mistake", "Abby", "hesitation"), ("pile", "Abby", "2"), ("round", "Abby")]),
    ("table talk is not judged", [flip(1, "Abby"), say(1.2, "nice card"), say(1.8, "one")], {},
     [("call_ok", "Abby", "1")]),
    ("weak wrong words make no mistake on their own",
     [flip(1, "Abby"), say(1.5, "three", 0.2), {"t": 6.0, "type": "tick"}], {}, []),
    ("weak right words confirm the call", [flip(1, "Abby"), say(1.5, "one", 0.2)], {},
     [("call_ok", "Abby", "1")]),
    ("speech without game words is an onset, never a mistake",
     [flip(1, "Abby"), say(1.5, "umm"), {"t": 9.0, "type": "tick"}], {}, []),
    ("game words at table-talk confidence leave a gun card kept silent",
     [flip(1, "Abby", "gun"), say(1.5, "five", 0.1), {"t": 5.0, "type": "tick"}], {},
     [("call_ok", "Abby", "1")]),
    ("an accusation cannot be won on table talk",
     [flip(1, "Abby", "gun"), say(1.5, "five", 0.1), {"t": 2.0, "type": "accuse", "by": ["Beth"]}],
     {}, [("mistake", "Beth", "false_accusation"), ("pile", "Beth", "1"), ("round", "Beth")]),
    ("table talk alone is never ruled a hesitation",
     [flip(1, "Abby"), say(1.5, "three", 0.1), {"t": 20.0, "type": "tick"}], {}, []),
    ("a sure call starting after the limit, after table talk alone, is a hesitation",
     [flip(1, "Abby"), say(1.5, "three two", 0.1), say(4.3, "one")], {},
     [("mistake", "Abby", "hesitation"), ("pile", "Abby", "1"), ("round", "Abby")]),
    ("a sure call within the limit after table talk is in time",
     [flip(1, "Abby"), say(1.5, "three two", 0.1), say(3.8, "one")], {},
     [("call_ok", "Abby", "1")]),
    ("a weak call after table talk is no proof of a hesitation",
     [flip(1, "Abby"), say(1.5, "three two", 0.1), say(4.3, "five", 0.5),
      {"t": 20.0, "type": "tick"}], {}, []),
    ("a sure say with no game word (a scripted onset) is the onset even after table talk",
     [flip(1, "Abby"), say(1.5, "three two", 0.1), say(2.0, ""), say(4.3, "one")], {},
     [("call_ok", "Abby", "1")]),
    # A voice the ear heard no sure word in (noise it could not make out, a
    # word it was unsure of) is not known to be the call: like talk it keeps
    # the window open, and a sure call starting after the limit is late.
    ("a voice with no sure word is not the onset: a sure call after the limit is late",
     [flip(1, "Abby"), say(2.0, "", 0.0), say(4.3, "one")], {},
     [("mistake", "Abby", "hesitation"), ("pile", "Abby", "1"), ("round", "Abby")]),
    ("an unsure word is not the onset either",
     [flip(1, "Abby"), say(2.0, "five", 0.5), say(4.3, "one")], {},
     [("mistake", "Abby", "hesitation"), ("pile", "Abby", "1"), ("round", "Abby")]),
    ("an unsure voice then a sure call inside the limit is the call",
     [flip(1, "Abby"), say(2.0, "", 0.0), say(3.9, "one")], {},
     [("call_ok", "Abby", "1")]),
    ("a window with unsure voices alone is unsure, never a hesitation",
     [flip(1, "Abby"), say(2.0, "", 0.0), say(2.5, "five", 0.5), {"t": 20.0, "type": "tick"}],
     {}, []),
    ("table talk may still confirm the call", [flip(1, "Abby"), say(1.5, "one", 0.1)], {},
     [("call_ok", "Abby", "1")]),
    ("the talk threshold is an option",
     [flip(1, "Abby", "gun"), say(1.5, "five", 0.1), {"t": 5.0, "type": "tick"}],
     {"talk_confidence": 0.05}, []),
    ("table talk does not pick the round's sound (nasty rules)",
     [flip(1, "Abby", "phone"), say(1.5, "pfft", 0.1), {"t": 9.0, "type": "tick"}],
     {"nasty": True}, []),
]


@pytest.mark.parametrize(("name", "events", "options", "expected"), SCENARIOS,
                         ids=[s[0] for s in SCENARIOS])
def test_rule_clause(name: str, events: list[dict[str, Any]], options: dict[str, Any],
                     expected: list[tuple[str, ...]]) -> None:
    _, rulings = play(events, **options)
    assert kinds(rulings) == expected


def test_hesitation_is_ruled_at_the_limit_not_at_the_late_event() -> None:
    _, rulings = play([flip(1, "Abby"), {"t": 10.0, "type": "tick"}])
    assert rulings[0]["t"] == pytest.approx(4.0)


def test_table_talk_is_not_the_onset_of_the_call() -> None:
    match, _ = play([flip(1, "Abby"), say(1.5, "three two", 0.1), say(2.4, "hmmrrr", 0.6)])
    view = match.game.view(match.state)["call"]
    # Neither the talk nor the voice the ear was unsure of is the onset...
    assert view["onset_after_flip"] is None
    assert view["heard"] == ["three", "two", "hmmrrr"]
    # ... a sure word is.
    match, _ = play([flip(1, "Abby"), say(1.5, "three two", 0.1), say(2.4, "hmmrrr")])
    assert match.game.view(match.state)["call"]["onset_after_flip"] == pytest.approx(1.4)


def test_talk_holding_only_the_first_number_of_a_twin_confirms_nothing() -> None:
    """Talk before a twin call with its first number in it ("one", at the
    ear's talk confidence) is not half the call: the caller's own "one two"
    after it is the call, not "one" twice (a wrong number). Talk holding
    the whole of it still confirms it."""
    _, rulings = play([flip(1, "Abby", "twin_racketeer"), say(1.5, "twelve one", 0.1),
                       say(2.0, "one"), say(2.4, "two")])
    assert kinds(rulings) == [("call_ok", "Abby", "2")]
    _, rulings = play([flip(1, "Abby", "twin_racketeer"), say(1.5, "one eleven two", 0.1)])
    assert kinds(rulings) == [("call_ok", "Abby", "2")]


def test_an_unsure_voice_holding_the_first_number_of_a_twin_is_not_half_the_call() -> None:
    """A voice the ear is unsure of ("one three" at 0.5: talk that began
    before the call, or a garbled hearing) holding the twin's first number
    does not make the caller's own sure "one two" after it "one" twice (a
    wrong number): the sure call starts the call again. Seen on the
    human-voice development set when talk was cut where the caller's voice
    rose out of it."""
    _, rulings = play([flip(1, "Abby", "twin_racketeer"), say(1.5, "one three", 0.5),
                       say(2.0, "one two")])
    assert kinds(rulings) == [("call_ok", "Abby", "2")]
    _, rulings = play([flip(1, "Abby", "twin_racketeer"), say(1.5, "one three", 0.5),
                       say(2.0, "one"), say(2.4, "two")])
    assert kinds(rulings) == [("call_ok", "Abby", "2")]
    # An unsure first number and the sure second one still make the call ...
    _, rulings = play([flip(1, "Abby", "twin_racketeer"), say(1.5, "one three", 0.5),
                       say(2.0, "two")])
    assert kinds(rulings) == [("call_ok", "Abby", "2")]
    # ... and a sure wrong number after it is still a wrong number.
    _, rulings = play([flip(1, "Abby", "twin_racketeer"), say(1.5, "one three", 0.5),
                       say(2.0, "four")])
    assert kinds(rulings)[0] == ("mistake", "Abby", "wrong_number")


def test_mistake_says_what_was_expected_and_heard() -> None:
    _, rulings = play([flip(1, "Abby", "twin_racketeer"), say(1.5, "one three")])
    assert rulings[0]["expected"] == ["one", "two"]
    assert rulings[0]["heard"] == ["one", "three"]


def test_out_of_turn_card_stays_with_the_offender() -> None:
    match, _ = play([flip(1, "Beth")])
    assert stacks(match) == [27, 27, 27, 27]
    assert match.state.turn == 1


# --- accusations -----------------------------------------------------------------

FIVE_CARDS = [flip(1, "Abby"), say(1.5, "one"), flip(2, "Beth"), say(2.5, "two"),
              flip(3, "Carter"), say(3.5, "three"), flip(4, "Debbie"), say(4.5, "four"),
              flip(5, "Abby"), say(5.5, "five")]


def test_a_false_accusation_gives_the_accuser_the_pile() -> None:
    match, rulings = play([*FIVE_CARDS, {"t": 6.0, "type": "accuse", "by": ["Carter"]}])
    assert kinds(rulings[-3:]) == [("mistake", "Carter", "false_accusation"),
                                   ("pile", "Carter", "5"), ("round", "Carter")]
    assert rulings[-3]["accused"] == "Abby"
    assert stacks(match) == [25, 26, 26 + 5, 26]


def test_several_wrong_accusers_split_the_pile_from_the_accused_players_left() -> None:
    match, rulings = play([*FIVE_CARDS, {"t": 6.0, "type": "accuse", "by": ["Debbie", "Beth"]}])
    # From Abby's left: Beth, (Carter did not accuse), Debbie. Cards 1, 3, 5 go to
    # Beth, 2 and 4 to Debbie; Beth gets the last card and starts.
    assert kinds(rulings[-5:]) == [
        ("mistake", "Beth", "false_accusation"), ("mistake", "Debbie", "false_accusation"),
        ("pile", "Beth", "3"), ("pile", "Debbie", "2"), ("round", "Beth")]
    assert stacks(match) == [25, 26 + 3, 26, 26 + 2]


def test_split_pile_last_card_decides_the_starter() -> None:
    four = FIVE_CARDS[:8]
    _, rulings = play([*four, {"t": 5.0, "type": "accuse", "by": ["Abby", "Carter"]}])
    # Accused Debbie; from her left: Abby, (Beth), Carter. Cards go Abby, Carter, Abby, Carter.
    assert kinds(rulings[-3:]) == [("pile", "Abby", "2"), ("pile", "Carter", "2"),
                                   ("round", "Carter")]


def test_a_right_accusation_on_weak_evidence_rules_from_the_count() -> None:
    _match, rulings = play([flip(1, "Abby"), say(1.5, "three", 0.3),
                           {"t": 2.0, "type": "accuse", "by": ["Beth"]}])
    assert kinds(rulings) == [("mistake", "Abby", "wrong_number"), ("pile", "Abby", "1"),
                              ("round", "Abby")]
    assert rulings[0]["heard"] == ["three"]


def test_accusing_a_silent_gun_card_is_false() -> None:
    _, rulings = play([flip(1, "Abby", "gun"), {"t": 2.0, "type": "accuse", "by": ["Beth"]}])
    assert kinds(rulings)[0] == ("mistake", "Beth", "false_accusation")


def test_accusing_an_unheard_call_rules_nothing() -> None:
    match, rulings = play([flip(1, "Abby"), say(1.2, "mumble"),
                           {"t": 2.0, "type": "accuse", "by": ["Beth"]}])
    assert kinds(rulings) == [("accusation_unheard", "Abby")]
    assert stacks(match) == [26, 27, 27, 27]


@pytest.mark.parametrize(("events", "field"), [
    ([{"t": 1, "type": "accuse", "by": ["Beth"]}], "type"),
    ([flip(1, "Abby"), say(1.5, "one"), {"t": 2, "type": "accuse", "by": ["Abby"]}], "by"),
    ([flip(1, "Abby"), say(1.5, "one"), {"t": 2, "type": "accuse", "by": []}], "by"),
    ([flip(1, "Abby"), say(1.5, "one"), {"t": 2, "type": "accuse", "by": ["Zed"]}], "by"),
    ([flip(1, "Zed")], "player"),
    ([flip(1, "Abby", None), {"t": 2, "type": "card", "player": "Beth", "card": "gun"}],
     "player"),
    ([flip(1, "Abby"), {"t": 2, "type": "card", "player": "Abby", "card": "gun"}], "card"),
])
def test_illegal_events_name_their_field(events: list[dict[str, Any]], field: str) -> None:
    with pytest.raises(IllegalEventError) as err:
        play(events)
    assert err.value.field == field


def test_an_accusation_is_settled_once() -> None:
    with pytest.raises(IllegalEventError):
        play([*FIVE_CARDS, {"t": 6.0, "type": "accuse", "by": ["Carter"]},
              {"t": 6.5, "type": "accuse", "by": ["Beth"]}])


# --- nasty rules, even more nasty, the end -----------------------------------------


def test_nasty_rules_first_round_uses_the_default_then_the_first_phone_player_chooses() -> None:
    _, rulings = play([flip(1, "Abby"), say(1.5, "two"),          # mistake, round 2
                       flip(2, "Abby", "phone"), say(2.5, "quack"),  # Abby picks quack
                       flip(3, "Beth", "phone"), say(3.5, "quack"),
                       flip(4, "Carter", "phone"), say(4.5, "hmmrrr")], nasty=True)
    assert kinds(rulings)[3:] == [("sound_set", "Abby", "quack"), ("call_ok", "Abby", "1"),
                                  ("call_ok", "Beth", "2"),
                                  ("mistake", "Carter", "wrong_sound"), ("pile", "Carter", "3"),
                                  ("round", "Carter")]


def test_nasty_rules_twin_phone_chooser_says_the_sound_twice() -> None:
    match, rulings = play([flip(1, "Abby"), say(1.5, "two"),
                           flip(2, "Abby", "twin_phone"), say(2.5, "peek a boo peek a boo")],
                          nasty=True)
    assert kinds(rulings)[3:] == [("sound_set", "Abby", "peek a boo"), ("call_ok", "Abby", "2")]
    assert match.state.sound == "peek a boo"


def test_phone_word_event_sets_the_rounds_sound() -> None:
    _, rulings = play([flip(1, "Abby"), say(1.5, "two"), flip(2, "Abby", "phone"),
                       {"t": 2.2, "type": "phone_word", "text": "Ouch"}, say(2.5, "ouch")],
                      nasty=True)
    assert kinds(rulings)[3:] == [("sound_set", "Abby", "ouch"), ("call_ok", "Abby", "1")]


def test_even_more_nasty_starter_takes_a_card_from_each_opponent() -> None:
    match, rulings = play([flip(1, "Abby"), say(1.5, "four")], even_more_nasty=True)
    assert kinds(rulings) == [("mistake", "Abby", "wrong_number"), ("pile", "Abby", "1"),
                              ("penalty_cards", "Abby", "3"), ("round", "Abby")]
    assert stacks(match) == [27 + 3, 26, 26, 26]


def test_even_more_nasty_spares_a_mistake_after_the_first_card() -> None:
    _, rulings = play([flip(1, "Abby"), say(1.5, "one"), flip(2, "Beth"), say(2.5, "five")],
                      even_more_nasty=True)
    assert ("penalty_cards", "Beth", "3") not in kinds(rulings)


def test_the_first_empty_stack_after_a_right_call_wins() -> None:
    small = {"composition": {"racketeer": 4, "twin_racketeer": 0, "phone": 0, "twin_phone": 0,
                             "gun": 0}}
    match, rulings = play([flip(1, "Abby"), say(1.5, "one"), flip(2, "Beth"), say(2.5, "two"),
                           flip(3, "Abby"), say(3.5, "three")], ["Abby", "Beth"], **small)
    assert kinds(rulings)[-2:] == [("winner", "Abby"), ("scores",)]
    assert rulings[-1]["scores"] == {"Abby": 0, "Beth": 1}
    assert match.winner == "Abby"
    with pytest.raises(IllegalEventError):
        match.apply(match.game.parse_event(flip(4, "Beth")))


def test_a_wrong_last_call_keeps_the_game_going() -> None:
    small = {"composition": {"racketeer": 2, "twin_racketeer": 0, "phone": 0, "twin_phone": 0,
                             "gun": 0}}
    match, _rulings = play([flip(1, "Abby"), say(1.5, "two")], ["Abby", "Beth"], **small)
    assert match.winner is None
    assert stacks(match) == [1, 1]


# --- virtual deck -----------------------------------------------------------------


def test_virtual_deck_flips_the_top_card_and_checks_a_named_one() -> None:
    game = make_game("nasty7", FOUR, {"virtual_deck": True, "seed": 7})
    assert isinstance(game, Nasty7)
    top = game.start().stacks[0][0]
    match, _ = play([flip(1, "Abby", None)], virtual_deck=True, seed=7)
    assert match.state.pile == (top,)
    other = next(c for c in ("racketeer", "gun") if c != top)
    with pytest.raises(IllegalEventError) as err:
        play([flip(1, "Abby", other)], virtual_deck=True, seed=7)
    assert err.value.field == "card"


# --- undo ---------------------------------------------------------------------------


def test_undo_takes_back_a_mistake_and_the_call_can_be_made_again() -> None:
    match, rulings = play([flip(1, "Abby"), say(1.5, "two"), {"t": 1.8, "type": "undo"},
                           say(2.0, "one")])
    assert kinds(rulings)[-2:] == [("undone",), ("call_ok", "Abby", "1")]
    assert stacks(match) == [26, 27, 27, 27]


def test_undoing_a_hesitation_does_not_rule_it_again() -> None:
    match, rulings = play([flip(1, "Abby"), {"t": 5, "type": "tick"}, {"t": 6, "type": "undo"},
                           {"t": 9, "type": "tick"}])
    assert kinds(rulings) == [("mistake", "Abby", "hesitation"), ("pile", "Abby", "1"),
                              ("round", "Abby"), ("undone",)]
    assert match.state.call is not None and match.state.call.status == "unsure"


def test_undo_with_nothing_to_undo_is_refused() -> None:
    with pytest.raises(IllegalEventError):
        play([{"t": 1, "type": "undo"}])


def test_listen_words_are_the_count_words_and_the_rounds_sound() -> None:
    game = make_game("nasty7", FOUR)
    words = game.listen_words(game.start())
    assert words == ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
                     "nine", "ten", "eleven", "twelve", "hmmrrr"]
    nasty = make_game("nasty7", FOUR, {"nasty": True})
    match, _ = play([flip(1, "Abby"), say(1.5, "two")], nasty=True)
    assert "quack" in nasty.listen_words(match.state)



def test_without_hearing_calls_are_unheard_never_hesitations() -> None:
    match, rulings = play([{"t": 0.5, "type": "hearing", "on": False}, flip(1, "Abby"),
                           {"t": 9.0, "type": "tick"}, flip(10, "Beth"),
                           {"t": 10.5, "type": "accuse", "by": ["Carter"]}])
    assert kinds(rulings) == [("accusation_unheard", "Beth")]
    assert match.state.last == 2  # the count is still kept


def test_hearing_back_on_judges_calls_again() -> None:
    _, rulings = play([{"t": 0.5, "type": "hearing", "on": False}, flip(1, "Abby"),
                       {"t": 2.0, "type": "hearing", "on": True}, flip(3, "Beth"),
                       say(3.5, "five")])
    assert kinds(rulings) == [("mistake", "Beth", "wrong_number"), ("pile", "Beth", "2"),
                              ("round", "Beth")]


def test_losing_hearing_mid_call_leaves_it_unheard() -> None:
    match, rulings = play([flip(1, "Abby"), {"t": 1.5, "type": "hearing", "on": False},
                           {"t": 9.0, "type": "tick"}])
    assert rulings == []
    assert match.state.call is not None and match.state.call.status == "unsure"


def test_talk_from_before_the_flip_running_into_the_window_is_no_hesitation() -> None:
    """At a talking table the ear may hear the talk and the call as one
    utterance that began before the flip: the call may be inside it, so
    the window closes unsure, never as a hesitation."""
    talk = {"t": 0.8, "type": "say", "text": "", "confidence": 0.0, "end": 2.5}
    match, rulings = play([talk, flip(1.0, "Abby"), flip(4.5, "Beth")])
    assert not [r for r in rulings if r["type"] == "mistake"]
    assert match.state.call is not None
    _, rulings = play([{**talk, "end": 0.95}, flip(1.0, "Abby"), flip(4.5, "Beth")])
    assert kinds(rulings)[0] == ("mistake", "Abby", "hesitation")
