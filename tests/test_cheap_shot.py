"""Cheap Shot: insult shapes and points, blocks, rummies, hand scores and the
end of the game as scenarios; hand totals as properties; undo; the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import IllegalEventError
from companion.events import Event, Undo
from companion.games.base import Match
from companion.games.cheap_shot import (
    POINTS,
    Block,
    CheapShot,
    CheapShotState,
    EndHand,
    Insult,
    Reject,
    Rummy,
)
from companion.resources import data_path
from companion.rulings import Ruling

EXAMPLE = data_path("voices", "en", "examples", "cheap-shot.jsonl")


def new(players: str = "ABC", **options: Any) -> Match[CheapShotState]:
    return Match(CheapShot(list(players), options))


def run(match: Match[CheapShotState], events: list[Event]) -> list[Ruling]:
    out: list[Ruling] = []
    for i, ev in enumerate(events):
        out += match.apply(ev.__class__(**{**_fields(ev), "t": float(i)}))
    return out


def _fields(ev: Event) -> dict[str, Any]:
    return {f: getattr(ev, f) for f in ev.__struct_fields__}


def hand_scores(rulings: list[Ruling]) -> list[dict[str, int]]:
    return [r.to_dict()["scores"] for r in rulings if r.type == "hand_scores"]


@pytest.mark.parametrize(("cards", "points"), [(2, 3), (3, 6), (4, 10), (5, 15), (6, 21)])
def test_an_insult_scores_the_position_sum_of_its_cards(cards: int, points: int) -> None:
    match = new()
    rulings = run(match, [Insult(t=0, player="A", target="B", cards=cards,
                                 connectors=min(2, cards - 2)),
                          EndHand(t=0)])
    assert POINTS[cards] == points == sum(range(1, cards + 1))
    assert hand_scores(rulings) == [{"A": points, "B": 0, "C": 0}]


S = 0.0  # times are set in order by run()
SCENARIOS: list[Any] = [
    pytest.param([Insult(t=S, player="A", target="B", cards=3), Block(t=S, player="B"),
                  EndHand(t=S)], {"A": 0, "B": 1, "C": 0}, id="a block fells the insult"),
    pytest.param([Insult(t=S, player="A", target="B", cards=3), Block(t=S, player="B"),
                  Block(t=S, player="A"), EndHand(t=S)], {"A": 7, "B": 1, "C": 0},
                 id="a counter-block makes it stand; every block card is a point"),
    pytest.param([Insult(t=S, player="A", target="B", cards=3), Block(t=S, player="B"),
                  Block(t=S, player="A"), Block(t=S, player="B"), EndHand(t=S)],
                 {"A": 1, "B": 2, "C": 0}, id="the last block decides"),
    pytest.param([Insult(t=S, player="A", target="B", cards=2),
                  Rummy(t=S, player="A", target="C", cards=2, connectors=1), EndHand(t=S)],
                 {"A": 10, "B": 0, "C": 0}, id="a rummy grows one's own insult"),
    pytest.param([Insult(t=S, player="A", target="B", cards=3),
                  Rummy(t=S, player="A", target="C", cards=1), Block(t=S, player="C"),
                  EndHand(t=S)], {"A": 0, "B": 0, "C": 1},
                 id="a blocked rummy sends the whole insult back"),
    pytest.param([Insult(t=S, player="A", target="B", cards=3),
                  Insult(t=S, player="A", target="C", cards=2), EndHand(t=S)],
                 {"A": 9, "B": 0, "C": 0}, id="each insult is scored on its own"),
    pytest.param([Insult(t=S, player="A", target="B", cards=4), Reject(t=S), EndHand(t=S)],
                 {"A": 0, "B": 0, "C": 0}, id="a rejected insult goes back to the hand"),
    pytest.param([Insult(t=S, player="A", target="B", cards=2),
                  Rummy(t=S, player="A", target="B", cards=2), Reject(t=S), EndHand(t=S)],
                 {"A": 3, "B": 0, "C": 0}, id="a rejected rummy keeps the insult it grew"),
    pytest.param([Insult(t=S, player="A", target="B", cards=5, connectors=1),
                  EndHand(t=S, cards_left={"A": 4, "B": 2})], {"A": 11, "B": 0, "C": 0},
                 id="one point off per card left, never below zero"),
]


@pytest.mark.parametrize(("events", "scores"), SCENARIOS)
def test_hand_scenarios(events: list[Event], scores: dict[str, int]) -> None:
    assert hand_scores(run(new(), events)) == [scores]


@pytest.mark.parametrize(("shape", "field", "reason"), [
    (dict(cards=7), "cards", "at most 6"),
    (dict(cards=1), "cards", "at least 2"),
    (dict(cards=4, subjects=2), "subjects", "only one"),
    (dict(cards=4, subjects=0), "subjects", "subject card"),
    (dict(cards=6, connectors=3), "connectors", "at most 2"),
    (dict(cards=2, connectors=1), "connectors", "no room"),
])
def test_an_insult_of_illegal_shape_is_refused_with_the_reason(
        shape: dict[str, int], field: str, reason: str) -> None:
    match = new()
    with pytest.raises(IllegalEventError) as info:
        match.apply(Insult(t=0, player="A", target="B", **shape))
    assert info.value.field == field
    assert reason in str(info.value)
    assert match.state == CheapShot(list("ABC")).start()


@pytest.mark.parametrize(("events", "field"), [
    ([Insult(t=0, player="A", target="B", cards=5), Rummy(t=0, player="A", target="B",
                                                           cards=2)], "cards"),
    ([Insult(t=0, player="A", target="B", cards=4, connectors=2),
      Rummy(t=0, player="A", target="B", cards=1, connectors=1)], "connectors"),
    ([Rummy(t=0, player="A", target="B", cards=2)], "insult"),
    ([Insult(t=0, player="B", target="A", cards=3), Rummy(t=0, player="A", target="B",
                                                           cards=1, insult=1)], "insult"),
    ([Insult(t=0, player="A", target="B", cards=2), Block(t=0, player="B"),
      Rummy(t=0, player="A", target="B", cards=1)], "insult"),
    ([Insult(t=0, player="A", target="B", cards=2), Rummy(t=0, player="A", target="B",
                                                           cards=1, subjects=1)], "subjects"),
    ([Insult(t=0, player="A", target="B", cards=2), Block(t=0, player="C")], "player"),
    ([Insult(t=0, player="A", target="B", cards=2), Block(t=0, player="A")], "player"),
    ([Block(t=0, player="B")], "type"),
    ([Insult(t=0, player="A", target="A", cards=2)], "target"),
    ([Insult(t=0, player="A", target="B", cards=2), Block(t=0, player="B"), Reject(t=0)],
     "type"),
    ([EndHand(t=0, cards_left={"Zed": 1})], "cards_left"),
    ([EndHand(t=0, cards_left={"A": -1})], "cards_left"),
])
def test_refused_events_name_the_field(events: list[Event], field: str) -> None:
    match = new()
    for ev in events[:-1]:
        match.apply(ev)
    before = match.state
    with pytest.raises(IllegalEventError) as info:
        match.apply(events[-1])
    assert info.value.field == field
    assert match.state == before


@pytest.mark.parametrize(("players", "options", "hands", "winner"), [
    ("AB", {}, [[("A", 6)]] * 4 + [[("A", 6)]], "A"),  # 21 * 5 = 105 >= 100
    ("ABC", {}, [[("A", 6)]] * 4, None),                # 84 < 100
    ("ABCD", {}, [[("A", 6)]] * 3 + [[("B", 2)]], None),  # 63 < 75
    ("ABCD", {}, [[("A", 6)]] * 4, "A"),                # 84 >= 75
    ("ABC", {"three_hands": True}, [[("B", 2)], [], []], "B"),
    ("ABC", {"target_points": 20}, [[("C", 6)]], "C"),
])
def test_the_game_ends_at_the_goal_or_after_three_hands(
        players: str, options: dict[str, Any], hands: list[list[tuple[str, int]]],
        winner: str | None) -> None:
    match = new(players, **options)
    t = 0.0
    for hand in hands:
        for who, cards in hand:
            target = next(p for p in players if p != who)
            match.apply(Insult(t=t, player=who, target=target, cards=cards,
                               connectors=min(2, cards - 2)))
        match.apply(EndHand(t=t))
        t += 1
    assert match.winner == winner


def test_a_tie_for_the_win_plays_one_more_hand() -> None:
    match = new("ABC", three_hands=True)
    for t in range(3):
        match.apply(Insult(t=t, player="A", target="B", cards=2))
        match.apply(Insult(t=t, player="B", target="A", cards=2))
        rulings = match.apply(EndHand(t=t))
    assert rulings[-1].to_dict() == {"type": "extra_hand", "t": 2.0, "players": ["A", "B"]}
    assert match.winner is None
    match.apply(Insult(t=4, player="B", target="A", cards=2))
    assert match.apply(EndHand(t=4))[-1].to_dict()["player"] == "B"
    with pytest.raises(IllegalEventError):
        match.apply(EndHand(t=5))


@st.composite
def hands(draw: st.DrawFn) -> list[Event]:
    """One random hand of insults, rummies and blocks, ending with cards left."""
    players = "ABCD"
    events: list[Event] = []
    for _ in range(draw(st.integers(0, 8))):
        who = draw(st.sampled_from(players))
        target = draw(st.sampled_from([p for p in players if p != who]))
        if draw(st.booleans()):
            events.append(Insult(t=0, player=who, target=target, cards=draw(st.integers(2, 6))))
        else:
            events.append(Rummy(t=0, player=who, target=target, cards=draw(st.integers(1, 2))))
        events += [Block(t=0, player="?")] * draw(st.integers(0, 3))
    left = draw(st.dictionaries(st.sampled_from(players), st.integers(0, 11)))
    return [*events, EndHand(t=0, cards_left=left)]


@settings(max_examples=150, deadline=None)
@given(hand=hands())
def test_a_hand_scores_insults_plus_blocks_minus_cards_left_floored_at_zero(
        hand: list[Event]) -> None:
    """A model of the score sheet, kept beside the engine: per insult its
    owner, target, cards, blocks so far and whether it stands."""
    match = new("ABCD")
    blocks = dict.fromkeys("ABCD", 0)
    laid: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for ev in hand[:-1]:
        if isinstance(ev, Block):
            if current is None:
                continue
            blocker = current["target"] if current["blocks"] % 2 == 0 else current["owner"]
            match.apply(Block(t=0, player=blocker))
            blocks[blocker] += 1
            current["blocks"] += 1
            current["stands"] = current["blocks"] % 2 == 0
            continue
        try:
            match.apply(ev)
        except IllegalEventError:
            continue  # a rummy with nothing to rummy onto, or one too big
        assert isinstance(ev, Insult | Rummy)
        if isinstance(ev, Insult):
            current = {"owner": ev.player, "cards": ev.cards}
            laid.append(current)
        else:
            current = [x for x in laid if x["owner"] == ev.player and x["stands"]][-1]
            current["cards"] += ev.cards
        current.update(target=ev.target, blocks=0, stands=True)
    end = hand[-1]
    assert isinstance(end, EndHand)
    insults = dict.fromkeys("ABCD", 0)
    for x in laid:
        if x["stands"]:
            insults[x["owner"]] += POINTS[x["cards"]]
    rulings = match.apply(end)
    expected = {p: max(0, insults[p] + blocks[p] - end.cards_left.get(p, 0)) for p in "ABCD"}
    assert hand_scores(rulings) == [expected]
    totals = next(r for r in rulings if r.type == "scores").to_dict()["scores"]
    assert totals == expected


def test_undo_takes_back_a_block_and_an_end_of_hand() -> None:
    match = new()
    match.apply(Insult(t=0, player="A", target="B", cards=4))
    standing = match.state
    match.apply(Block(t=1, player="B"))
    assert match.apply(Undo(t=2))[0].to_dict()["what"] == "block"
    assert match.state == standing
    match.apply(EndHand(t=3, cards_left={"B": 2}))
    assert match.state.totals == (10, 0, 0)
    match.apply(Undo(t=4))
    assert match.state == standing
    match.apply(EndHand(t=5, cards_left={"A": 3}))
    assert match.state.totals == (7, 0, 0)


def test_the_view_shows_the_open_insult_and_who_blocks_next() -> None:
    match = new()
    game = match.game
    match.apply(Insult(t=0, player="A", target="B", cards=3))
    view = game.view(match.state)
    assert view["next_blocker"] == "B" and view["goal"] == 100
    match.apply(Block(t=1, player="B"))
    view = game.view(match.state)
    assert view["next_blocker"] == "A"
    assert view["insults"] == [{"number": 1, "owner": "A", "target": "B", "cards": 3,
                                "connectors": 0, "points": 6, "standing": False}]


def test_the_example_session_replays_through_the_cli() -> None:
    done = subprocess.run([sys.executable, "-m", "companion.cli", "replay", str(EXAMPLE)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    rulings = [json.loads(line) for line in done.stdout.splitlines()]
    hands_ = [r["scores"] for r in rulings if r["type"] == "hand_scores"]
    assert hands_ == [{"Lauren": 0, "Steve": 0, "Sandy": 16, "Dave": 15},
                      {"Lauren": 6, "Steve": 21, "Sandy": 0, "Dave": 0},
                      {"Lauren": 0, "Steve": 0, "Sandy": 15, "Dave": 1}]
    assert rulings[-1] == {"type": "winner", "t": 500.0, "player": "Sandy"}
    text = subprocess.run([sys.executable, "-m", "companion.cli", "replay", "--text",
                           str(EXAMPLE)], capture_output=True, text=True, timeout=120,
                          check=False).stdout.splitlines()
    assert "Scores: Lauren 6, Steve 21, Sandy 31, Dave 16." in text
    assert "Dave counters: the insult stands." in text


def test_a_malformed_event_exits_2_naming_line_and_field(tmp_path: Path) -> None:
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()[:3]
    lines.append('{"t": 20.0, "type": "insult", "player": "Dave", "target": "Sandy", '
                 '"cards": 8}')
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "companion.cli", "replay", str(path)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2
    assert "line 4, field 'cards'" in done.stderr and "at most 6" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
