"""Rummy Battle: card points, going out around the Marker, the end after five
rounds as scenarios; totals as properties; undo; the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, get_args

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import IllegalEventError, InvalidEventError, OptionError
from companion.events import Undo
from companion.games import make_game
from companion.games.base import Match
from companion.games.rummy_battle import (
    CARD_POINTS,
    CardName,
    Counts,
    RoundEnd,
    RummyBattle,
    RummyBattleState,
)
from companion.resources import data_path

EXAMPLE = data_path("voices", "en", "examples", "rummy-battle.jsonl")


def new(players: str = "ABC", **options: Any) -> Match[RummyBattleState]:
    return Match(RummyBattle(list(players), options))


def round_end(match: Match[RummyBattleState], t: float = 0.0, **fields: Any) -> list[Any]:
    event = match.game.parse_event({"type": "round_end", "t": t, **fields})
    return [r.to_dict() for r in match.apply(event)]


@pytest.mark.parametrize(("cards", "points"), [
    (["A"], 15), (["10"], 10), (["J"], 10), (["Q"], 10), (["K"], 10), (["2"], 5), (["9"], 5),
    (["action"], 5), (["joker"], 20), ({"aces": 1}, 15), ({"tens_to_kings": 2}, 20),
    ({"twos_to_nines": 3}, 15), ({"action": 1}, 5), ({"jokers": 2}, 40),
    (["A", "joker", "10", "action"], 50), ({"aces": 1, "jokers": 1, "tens_to_kings": 1,
                                           "action": 1}, 50),
])
def test_card_points_from_lists_or_counts(cards: Any, points: int) -> None:
    match = new()
    rulings = round_end(match, played={"B": cards}, in_hand={"C": cards}, out=["A"],
                        marker_revealed=True)
    assert rulings[0]["played"]["B"] == points
    assert rulings[0]["in_hand"]["C"] == points
    assert rulings[0]["scores"] == {"A": 10, "B": points, "C": -points}


def test_every_card_name_has_points() -> None:
    assert set(get_args(CardName)) == set(CARD_POINTS)


SCENARIOS: list[Any] = [
    pytest.param(dict(out=["A"], marker_revealed=False, played={"A": ["K", "K", "K"]}),
                 {"A": -70, "B": 0, "C": 0}, id="out before the marker: -100"),
    pytest.param(dict(out=["A"], marker_revealed=True, played={"A": ["K", "K", "K"]}),
                 {"A": 40, "B": 0, "C": 0}, id="out after the marker: +10"),
    pytest.param(dict(out=["A", "B"], marker_revealed=False),
                 {"A": -50, "B": -50, "C": 0}, id="lucky day puts several out: -50 each"),
    pytest.param(dict(out=["A", "C"], marker_revealed=True),
                 {"A": 10, "B": 0, "C": 10}, id="several out after the marker: +10 each"),
    pytest.param(dict(out=["C"], marker_revealed=True, played={"B": ["A", "A", "A", "5"]},
                      in_hand={"B": ["joker", "10", "A", "action"]}),
                 {"A": 0, "B": 0, "C": 10}, id="played cards count for, cards in hand against"),
    pytest.param(dict(out=["C"], marker_revealed=True, played={"B": {"twos_to_nines": 3}},
                      in_hand={"B": {"jokers": 1, "aces": 1}}),
                 {"A": 0, "B": -20, "C": 10}, id="a round can score below zero"),
]


@pytest.mark.parametrize(("fields", "scores"), SCENARIOS)
def test_round_scenarios(fields: dict[str, Any], scores: dict[str, int]) -> None:
    assert round_end(new(), **fields)[0]["scores"] == scores


@pytest.mark.parametrize(("fields", "field"), [
    (dict(out=[], marker_revealed=True), "out"),
    (dict(out=["A", "A"], marker_revealed=True), "out"),
    (dict(out=["Zed"], marker_revealed=True), "out"),
    (dict(out=["A"], marker_revealed=True, played={"Zed": ["A"]}), "played"),
    (dict(out=["A"], marker_revealed=True, in_hand={"Zed": ["A"]}), "in_hand"),
    (dict(out=["A"], marker_revealed=True, in_hand={"A": ["2"]}), "in_hand"),
])
def test_refused_rounds_name_the_field(fields: dict[str, Any], field: str) -> None:
    match = new()
    with pytest.raises(IllegalEventError) as info:
        round_end(match, **fields)
    assert info.value.field == field
    assert match.state == RummyBattleState()


@pytest.mark.parametrize(("obj", "field"), [
    ({"out": ["A"], "marker_revealed": True, "played": {"A": ["Z"]}}, "played"),
    ({"out": ["A"], "marker_revealed": True, "in_hand": {"B": {"aces": -1}}}, "in_hand"),
    ({"out": ["A"], "marker_revealed": True, "played": {"A": {"kings": 1}}}, "played"),
    ({"out": ["A"]}, "marker_revealed"),
    ({"marker_revealed": False}, "out"),
])
def test_malformed_rounds_name_the_field(obj: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidEventError) as info:
        RummyBattle(list("ABC")).parse_event({"type": "round_end", "t": 0, **obj})
    assert info.value.field == field


def test_five_rounds_then_the_highest_total_wins() -> None:
    match = new()
    for t in range(4):
        rulings = round_end(match, t=t, out=["B"], marker_revealed=True,
                            played={"A": {"aces": 1}})
        assert rulings[-1]["type"] == "scores" and match.winner is None
    rulings = round_end(match, t=4, out=["B"], marker_revealed=True)
    assert rulings[-2] == {"type": "scores", "t": 4.0, "label": "points",
                           "scores": {"A": 60, "B": 50, "C": 0}}
    assert rulings[-1] == {"type": "winner", "t": 4.0, "player": "A"}
    with pytest.raises(IllegalEventError):
        round_end(match, t=5, out=["B"], marker_revealed=True)


def test_a_tie_after_the_last_round_plays_one_more() -> None:
    match = new("AB", rounds=1)
    rulings = round_end(match, out=["A"], marker_revealed=True, played={"B": {"jokers": 1},
                                                                          "A": ["10"]})
    assert rulings[-1] == {"type": "extra_round", "t": 0.0, "players": ["A", "B"]}
    round_end(match, t=1, out=["B"], marker_revealed=True)
    assert match.winner == "B"


def test_bad_rounds_option_is_refused() -> None:
    with pytest.raises(OptionError) as info:
        make_game("rummy_battle", ["A", "B"], {"rounds": 0})
    assert info.value.field == "rounds"


cards = st.sampled_from(get_args(CardName))
tallies = st.one_of(st.lists(cards, max_size=12),
                    st.builds(Counts, aces=st.integers(0, 4), tens_to_kings=st.integers(0, 8),
                              twos_to_nines=st.integers(0, 8), action=st.integers(0, 4),
                              jokers=st.integers(0, 2)))


@st.composite
def rounds(draw: st.DrawFn) -> list[RoundEnd]:
    out: list[RoundEnd] = []
    for t in range(draw(st.integers(1, 5))):
        gone = draw(st.lists(st.sampled_from("ABCD"), min_size=1, max_size=3, unique=True))
        out.append(RoundEnd(
            t=float(t), out=gone, marker_revealed=draw(st.booleans()),
            played=draw(st.dictionaries(st.sampled_from("ABCD"), tallies)),
            in_hand=draw(st.dictionaries(st.sampled_from([p for p in "ABCD" if p not in gone]),
                                         tallies))))
    return out


@settings(max_examples=150, deadline=None)
@given(game=rounds())
def test_the_total_is_the_sum_of_the_rounds(game: list[RoundEnd]) -> None:
    match = new("ABCD")
    by_round: list[dict[str, int]] = []
    totals: dict[str, int] = {}
    for event in game:
        rulings = [r.to_dict() for r in match.apply(event)]
        scores = rulings[0]
        by_round.append(scores["scores"])
        for p in "ABCD":
            assert scores["scores"][p] == (scores["played"][p] - scores["in_hand"][p]
                                           + scores["bonus"][p])
            assert scores["played"][p] >= 0 and scores["in_hand"][p] >= 0
        assert sorted(p for p, b in scores["bonus"].items() if b) == sorted(event.out)
        totals = rulings[1]["scores"]
    assert totals == {p: sum(r[p] for r in by_round) for p in "ABCD"}
    assert match.game.view(match.state)["totals"] == totals


def test_undo_takes_back_a_round_and_the_win() -> None:
    match = new("AB", rounds=1)
    round_end(match, out=["A"], marker_revealed=True)
    assert match.winner == "A"
    assert match.apply(Undo(t=1))[0].to_dict()["what"] == "round_end"
    assert match.winner is None and match.state == RummyBattleState()
    round_end(match, t=2, out=["B"], marker_revealed=False, played={"B": ["A"] * 8})
    assert match.winner == "B"


def test_the_example_session_replays_through_the_cli() -> None:
    done = subprocess.run([sys.executable, "-m", "companion.cli", "replay", str(EXAMPLE)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    rulings = [json.loads(line) for line in done.stdout.splitlines()]
    totals = [r["scores"] for r in rulings if r["type"] == "scores"]
    assert totals[-1] == {"Abby": 105, "Beth": -20, "Carter": 100}
    assert [r["type"] for r in rulings[-4:]] == ["undone", "round_scores", "scores", "winner"]
    text = subprocess.run([sys.executable, "-m", "companion.cli", "replay", "--text",
                           str(EXAMPLE)], capture_output=True, text=True, timeout=120,
                          check=False).stdout.splitlines()
    assert text[:2] == ["Round 1: Abby 35, Beth -20, Carter -5.",
                        "Scores: Abby 35, Beth -20, Carter -5."]


def test_a_malformed_event_exits_2_naming_line_and_field(tmp_path: Path) -> None:
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()[:2]
    lines.append('{"t": 700.0, "type": "round_end", "out": ["Beth"], '
                 '"marker_revealed": "yes"}')
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "companion.cli", "replay", str(path)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2
    assert "line 3, field 'marker_revealed'" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
