"""The Nasty 7 with a physical deck nobody taps: cards inferred from the call.

Rulebook scenarios (rules/nasty7.md) for a referee who hears the calls but
cannot see the cards: every flip here is a ``flip`` without ``card``; the
card is inferred from the call, and what the call cannot settle is settled by
a ``card`` event (a tap, or the table's answer to the accusation's question).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from companion.cli import main
from companion.errors import IllegalEventError
from companion.games import make_game
from companion.games.base import Match
from companion.games.nasty7 import Nasty7State
from companion.resources import data_path
from companion.session import load_session
from companion.store import Store
from companion.table import Table
from companion.voice.pack import lexicon_for_header, load_pack
from companion.voice.phrases import sentence

FOUR = ["Abby", "Beth", "Carter", "Debbie"]
EXAMPLE = data_path("voices", "en", "examples", "nasty7-inferred.jsonl")


def flip(t: float, player: str) -> dict[str, Any]:
    return {"t": t, "type": "flip", "player": player}


def seen(t: float, player: str, card: str) -> dict[str, Any]:
    return {"t": t, "type": "flip", "player": player, "card": card}


def say(t: float, text: str, confidence: float = 1.0) -> dict[str, Any]:
    return {"t": t, "type": "say", "text": text, "confidence": confidence}


def card(t: float, player: str, kind: str) -> dict[str, Any]:
    return {"t": t, "type": "card", "player": player, "card": kind}


def accuse(t: float, *by: str) -> dict[str, Any]:
    return {"t": t, "type": "accuse", "by": list(by)}


def tick(t: float) -> dict[str, Any]:
    return {"t": t, "type": "tick"}


def undo(t: float) -> dict[str, Any]:
    return {"t": t, "type": "undo"}


def play(events: list[dict[str, Any]], **options: Any
         ) -> tuple[Match[Nasty7State], list[tuple[str, ...]]]:
    game = make_game("nasty7", FOUR, options)
    match: Match[Nasty7State] = Match(game)
    out: list[tuple[str, ...]] = []
    for obj in events:
        for r in match.apply(game.parse_event(obj)):
            d = r.to_dict()
            if d["type"] == "mistake":
                out.append(("mistake", d["player"], d["kind"]))
            elif d["type"] == "call_ok":
                out.append(("call_ok", d["player"], str(d["count"])))
            elif d["type"] == "pile":
                out.append(("pile", d["player"], str(d["cards"])))
            elif d["type"] in ("round",):
                out.append(("round", d["starter"]))
            elif d["type"] == "card_question":
                out.append(("card_question", d["player"], ",".join(d["by"])))
            elif d["type"] in ("winner", "accusation_unheard"):
                out.append((d["type"], d["player"]))
            else:
                out.append((d["type"],))
    return match, out


def view(match: Match[Nasty7State]) -> dict[str, Any]:
    return match.game.view(match.state)


# --- the call alone ------------------------------------------------------------------------

# (events after Abby's flip at 1.0, rulings, inferred card, count, whose turn)
BY_EAR = {
    "the next number: a racketeer": (
        [say(1.5, "one")], [("call_ok", "Abby", "1")], "racketeer", 1, "Beth"),
    "the next two numbers: a twin racketeer, Beth skips": (
        [say(1.5, "one two")], [("call_ok", "Abby", "2")], "twin_racketeer", 2, "Carter"),
    "the two numbers heard apart": (
        [say(1.5, "one"), say(1.9, "two")],
        [("call_ok", "Abby", "1"), ("call_ok", "Abby", "2")], "twin_racketeer", 2, "Carter"),
    "the round's sound: a phone": (
        [say(1.5, "hmmrrr")], [("call_ok", "Abby", "1")], "phone", 1, "Beth"),
    "the sound twice: a twin phone, Beth skips": (
        [say(1.5, "hmmrrr hmmrrr")], [("call_ok", "Abby", "2")], "twin_phone", 2, "Carter"),
    "silence: a gun, ruled only once the card is named": (
        [tick(4.5)], [], "gun", 1, "Beth"),
    "table talk is no call": (
        [say(1.4, "three", confidence=0.05), tick(8.0)], [], None, 1, "Beth"),
}


@pytest.mark.parametrize("name", list(BY_EAR))
def test_the_call_alone_names_the_card(name: str) -> None:
    events, rulings, inferred, count, turn = BY_EAR[name]
    match, got = play([flip(1.0, "Abby"), *events])
    assert got == rulings
    v = view(match)
    assert v["call"]["card"] == inferred
    assert v["call"]["card_from"] == ("inferred" if inferred else "unknown")
    assert (v["count"], v["turn"]) == (count, turn)
    assert v["question"] is None


# Wrong whatever the card: no card makes these right.
WRONG = {
    "a wrong number": ([say(1.5, "three")], "wrong_number", ["one"], ["three"]),
    "a wrong sound": ([say(1.5, "pfft")], "wrong_sound", ["hmmrrr"], ["pfft"]),
    "a sound after a number": ([say(1.5, "one hmmrrr")], "wrong_word", ["one", "two"],
                               ["one", "hmmrrr"]),
    "a wrong second number": ([say(1.5, "one three")], "wrong_number", ["one", "two"],
                              ["one", "three"]),
}


@pytest.mark.parametrize("name", list(WRONG))
def test_a_word_no_card_allows_is_a_mistake_at_once(name: str) -> None:
    events, kind, expected, heard = WRONG[name]
    game = make_game("nasty7", FOUR, {})
    match: Match[Nasty7State] = Match(game)
    rulings = match.fold([game.parse_event(e) for e in [flip(1.0, "Abby"), *events]])
    mistake = [r.to_dict() for r in rulings if r.type == "mistake"]
    assert [(m["player"], m["kind"]) for m in mistake] == [("Abby", kind)]
    assert mistake[0]["expected"] == expected and mistake[0]["heard"] == heard
    assert [len(s) for s in match.state.stacks] == [27, 27, 27, 27]  # Abby took her card back
    # The card named afterwards changes nothing: it was wrong whatever it was.
    later = match.apply(game.parse_event(card(3.0, "Abby", "gun")))
    assert later == [] and view(match)["call"]["card"] == "gun"


def test_a_weak_wrong_number_is_only_doubt() -> None:
    # Like talk, an unsure voice keeps the window open a limit past itself.
    match, got = play([flip(1.0, "Abby"), say(1.5, "three", confidence=0.5), tick(8.0)])
    assert got == [] and view(match)["call"]["status"] == "unsure"


# --- the accusation's question --------------------------------------------------------------

# (the call after Abby's flip at 1.0, the card the table names, rulings after
# the question)
SETTLED = {
    "a number said on a gun card": (
        [say(1.5, "one")], "gun", [("mistake", "Abby", "wrong_word"), ("pile", "Abby", "1"),
                                   ("round", "Abby")]),
    "a racketeer called right": (
        [say(1.5, "one")], "racketeer",
        [("mistake", "Beth", "false_accusation"), ("pile", "Beth", "1"), ("round", "Beth")]),
    "a twin card called as one number": (
        [say(1.5, "one"), tick(5.0)], "twin_racketeer",
        [("mistake", "Abby", "wrong_number"), ("pile", "Abby", "1"), ("round", "Abby")]),
    "a twin phone called as one sound": (
        [say(1.5, "hmmrrr"), tick(5.0)], "twin_phone",
        [("mistake", "Abby", "wrong_sound"), ("pile", "Abby", "1"), ("round", "Abby")]),
    "a sound said on a racketeer": (
        [say(1.5, "hmmrrr")], "racketeer",
        [("mistake", "Abby", "wrong_word"), ("pile", "Abby", "1"), ("round", "Abby")]),
    "the hesitation that looks like a gun: silence on a racketeer": (
        [tick(4.5)], "racketeer",
        [("mistake", "Abby", "hesitation"), ("pile", "Abby", "1"), ("round", "Abby")]),
    "silence on a gun: right, ruled once named": (
        [tick(4.5)], "gun",
        [("call_ok",), ("mistake", "Beth", "false_accusation"), ("pile", "Beth", "1"),
         ("round", "Beth")]),
    "a twin racketeer called right": (
        [say(1.5, "one two")], "twin_racketeer",
        [("mistake", "Beth", "false_accusation"), ("pile", "Beth", "1"), ("round", "Beth")]),
    "only talk heard: the call may be lost in it": (
        [say(1.4, "what", confidence=0.05)], "racketeer",
        [("accusation_unheard", "Abby")]),
}


@pytest.mark.parametrize("name", list(SETTLED))
def test_an_accusation_asks_the_card_and_rules_from_it(name: str) -> None:
    events, named, rulings = SETTLED[name]
    match, got = play([flip(1.0, "Abby"), *events, accuse(6.0, "Beth")])
    assert got[-1] == ("card_question", "Abby", "Beth")
    assert view(match)["question"] == {"player": "Abby", "by": ["Beth"]}
    assert view(match)["call"]["status"] == "asked"
    ruled = match.apply(match.game.parse_event(card(7.0, "Abby", named)))
    assert play_kinds(ruled) == rulings
    assert view(match)["question"] is None
    assert view(match)["call"]["card"] == named and view(match)["call"]["card_from"] == "named"


def play_kinds(rulings: list[Any]) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for r in rulings:
        d = r.to_dict()
        if d["type"] == "mistake":
            out.append(("mistake", d["player"], d["kind"]))
        elif d["type"] == "pile":
            out.append(("pile", d["player"], str(d["cards"])))
        elif d["type"] == "round":
            out.append(("round", d["starter"]))
        elif d["type"] in ("accusation_unheard", "winner"):
            out.append((d["type"], d["player"]))
        else:
            out.append((d["type"],))
    return out


@pytest.mark.parametrize(("events", "named"), [
    ([], "racketeer"),                      # silence, the call not yet due
    ([say(1.5, "one")], "twin_racketeer"),  # the second number may still come
    ([say(1.5, "hmmrrr")], "twin_phone"),
])
def test_an_accusation_before_the_call_is_due_is_not_a_mistake(
        events: list[dict[str, Any]], named: str) -> None:
    match, got = play([flip(1.0, "Abby"), *events, accuse(1.8, "Beth"),
                       card(3.0, "Abby", named)])
    assert got[-2:] == [("card_question", "Abby", "Beth"), ("accusation_unheard", "Abby")]
    assert view(match)["call"]["status"] == "unsure" and view(match)["question"] is None


def test_an_early_accusation_of_a_silent_gun_is_false() -> None:
    _, got = play([flip(1.0, "Abby"), accuse(1.8, "Beth"), card(3.0, "Abby", "gun")])
    assert got[1:3] == [("call_ok", "Abby", "1"), ("mistake", "Beth", "false_accusation")]


def test_play_waits_for_the_answer_and_late_accusers_join() -> None:
    match, got = play([flip(1.0, "Abby"), say(1.5, "one"), accuse(2.0, "Beth"),
                       accuse(2.4, "Debbie")])
    assert got[-1] == ("card_question", "Abby", "Beth")
    assert view(match)["question"] == {"player": "Abby", "by": ["Beth", "Debbie"]}
    with pytest.raises(IllegalEventError) as err:
        match.apply(match.game.parse_event(flip(3.0, "Beth")))
    assert err.value.field == "type"
    ruled = play_kinds(match.apply(match.game.parse_event(card(3.5, "Abby", "racketeer"))))
    # Two accusers split the pile of one card: Beth (nearer Abby's left) takes it.
    assert ruled == [("mistake", "Beth", "false_accusation"),
                     ("mistake", "Debbie", "false_accusation"),
                     ("pile", "Beth", "1"), ("pile", "Debbie", "0"), ("round", "Beth")]


def test_unheard_calls_are_not_asked_about() -> None:
    _, got = play([{"t": 0.5, "type": "hearing", "on": False}, flip(1.0, "Abby"),
                   accuse(2.0, "Beth")])
    assert got == [("accusation_unheard", "Abby")]


# --- taps win over inference ------------------------------------------------------------------

TAPS = {
    "a tap before the call: judged as a seen card": (
        [card(1.2, "Abby", "twin_racketeer"), say(1.5, "one two")],
        [("call_ok", "Abby", "2")], "Carter"),
    "a tap of a twin after one number: the second is still awaited": (
        [say(1.5, "one"), card(1.7, "Abby", "twin_racketeer"), say(1.9, "two")],
        [("call_ok", "Abby", "1"), ("call_ok", "Abby", "2")], "Carter"),
    "a tap that agrees with the inference rules nothing new": (
        [say(1.5, "one"), card(1.7, "Abby", "racketeer")], [("call_ok", "Abby", "1")], "Beth"),
    "a gun tapped after a number: wrong at once": (
        [say(1.5, "one"), card(1.7, "Abby", "gun")],
        [("call_ok", "Abby", "1"), ("mistake", "Abby", "wrong_word"), ("pile", "Abby", "1"),
         ("round", "Abby")], "Abby"),
    "a racketeer tapped after silence: too slow": (
        [tick(4.5), card(5.0, "Abby", "racketeer")],
        [("mistake", "Abby", "hesitation"), ("pile", "Abby", "1"), ("round", "Abby")], "Abby"),
    "a gun tapped at once: silence is right when the window closes": (
        [card(1.2, "Abby", "gun"), tick(4.5)], [("call_ok", "Abby", "1")], "Beth"),
}


@pytest.mark.parametrize("name", list(TAPS))
def test_a_tap_always_wins_over_inference(name: str) -> None:
    events, rulings, turn = TAPS[name]
    match, got = play([flip(1.0, "Abby"), *events])
    assert got == rulings
    assert view(match)["turn"] == turn


def test_a_tapped_twin_moves_the_count_and_the_skip() -> None:
    match, _ = play([flip(1.0, "Abby"), say(1.5, "hmmrrr"), card(1.7, "Abby", "twin_phone")])
    v = view(match)
    assert (v["count"], v["turn"], v["call"]["status"]) == (2, "Carter", "pending")
    assert v["call"]["expected"] == ["hmmrrr", "hmmrrr"]


def test_a_seen_card_cannot_be_named_otherwise() -> None:
    match, _ = play([seen(1.0, "Abby", "racketeer")])
    assert match.apply(match.game.parse_event(card(1.2, "Abby", "racketeer"))) == []
    with pytest.raises(IllegalEventError) as err:
        match.apply(match.game.parse_event(card(1.3, "Abby", "gun")))
    assert err.value.field == "card"


def test_only_the_last_flip_can_be_named() -> None:
    match, _ = play([flip(1.0, "Abby"), say(1.5, "one"), flip(3.0, "Beth")])
    with pytest.raises(IllegalEventError) as err:
        match.apply(match.game.parse_event(card(3.2, "Abby", "gun")))
    assert err.value.field == "player"


def test_the_younger_version_has_no_twins_to_infer() -> None:
    match, got = play([flip(1.0, "Abby"), say(1.5, "one two")], younger=True)
    assert got == [("mistake", "Abby", "wrong_number"), ("pile", "Abby", "1"),
                   ("round", "Abby")]
    assert view(match)["cards"] == ["racketeer", "phone", "gun"]


def test_the_nasty_rules_first_phone_chooses_the_sound() -> None:
    # Round two of the nasty rules: no sound yet; "quack quack" is a twin phone.
    match, got = play([flip(1.0, "Abby"), say(1.5, "five"), flip(3.0, "Abby"),
                       say(3.5, "one"), flip(5.0, "Beth"), say(5.5, "quack quack")], nasty=True)
    assert got[-2:] == [("sound_set",), ("call_ok", "Beth", "3")]
    assert view(match)["sound"] == "quack" and view(match)["turn"] == "Debbie"
    assert view(match)["call"]["card"] == "twin_phone"


def test_a_last_card_called_right_wins() -> None:
    game = make_game("nasty7", ["Abby", "Beth"], {"composition": {
        "racketeer": 2, "twin_racketeer": 0, "phone": 0, "twin_phone": 0, "gun": 0}})
    match: Match[Nasty7State] = Match(game)
    rulings = match.fold([game.parse_event(e) for e in (flip(1.0, "Abby"), say(1.5, "one"))])
    assert [r.type for r in rulings] == ["call_ok", "winner", "scores"]


# --- undo and replay ---------------------------------------------------------------------------


def test_undo_of_the_answer_asks_again_and_undo_of_the_accusation_plays_on() -> None:
    match, _ = play([flip(1.0, "Abby"), tick(4.5), accuse(5.0, "Beth"),
                     card(6.0, "Abby", "racketeer")])
    assert view(match)["turn"] == "Abby"  # Abby's hesitation: she starts again
    match.apply(match.game.parse_event(undo(7.0)))
    assert view(match)["question"] == {"player": "Abby", "by": ["Beth"]}
    match.apply(match.game.parse_event(undo(7.5)))
    v = view(match)
    assert v["question"] is None and v["call"]["card"] == "gun"
    assert v["call"]["card_from"] == "inferred" and v["turn"] == "Beth"
    # The undone accusation can be made again, and answered the other way.
    again = match.fold([match.game.parse_event(e) for e in
                        (accuse(8.0, "Carter"), card(8.5, "Abby", "gun"))])
    assert [(r.type, getattr(r, "player", None)) for r in again][:3] == [
        ("card_question", "Abby"), ("call_ok", "Abby"), ("mistake", "Carter")]


def test_the_example_session_replays_with_every_ruling_in_words() -> None:
    session = load_session(EXAMPLE, lexicon_for=lexicon_for_header)
    match: Match[Nasty7State] = Match(session.game)
    rulings = match.fold(session.events)
    types = [r.type for r in rulings]
    assert "card_question" in types and types.count("mistake") >= 2
    pack = load_pack("en")
    question = next(r for r in rulings if r.type == "card_question")
    assert sentence(question, pack) == "Which card did Beth flip?"
    for r in rulings:
        if r.type != "call_ok":
            assert sentence(r, pack), r.type


def test_a_stored_game_with_inferred_cards_replays_the_same(tmp_path: Path) -> None:
    db = tmp_path / "log.sqlite3"
    session = load_session(EXAMPLE, lexicon_for=lexicon_for_header)
    with Store(db) as store:
        table = Table.new(store, session.game)
        live = [r.to_dict() for e in session.events for r in table.submit(e)]
    result = CliRunner().invoke(main, ["replay", "--game", str(table.game_id), "--db", str(db)])
    assert result.exit_code == 0, result.output
    replayed = [json.loads(line) for line in result.output.splitlines()]
    assert replayed == live
    assert any(r["type"] == "card_question" for r in replayed)


def test_a_card_event_for_a_virtual_deck_must_match_the_dealt_card() -> None:
    game = make_game("nasty7", FOUR, {"virtual_deck": True, "seed": 7})
    match: Match[Nasty7State] = Match(game)
    match.apply(game.parse_event(flip(1.0, "Abby")))
    top = view(match)["call"]["card"]
    assert view(match)["call"]["card_from"] == "seen"
    assert match.apply(game.parse_event(card(1.2, "Abby", top))) == []
