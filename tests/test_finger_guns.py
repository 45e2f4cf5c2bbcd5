"""Finger Guns: every rule clause as a scenario, the countdown's locks, private
picks, undo, totals as properties, and a recorded session through the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.errors import IllegalEventError, OptionError
from companion.events import Undo
from companion.games import make_game
from companion.games.base import Match
from companion.games.finger_guns import (
    Choose,
    CountdownStart,
    Discard,
    FingerGuns,
    FingerGunsState,
    Lock,
)
from companion.resources import data_path
from companion.rulings import Ruling

EXAMPLE = data_path("voices", "en", "examples", "finger-guns.jsonl")

Picks = dict[str, tuple[str | None, str | None]]


def new(players: str = "ABC", **options: Any) -> Match[FingerGunsState]:
    return Match(FingerGuns(list(players), options))


def play(match: Match[FingerGunsState], picks: Picks, t: float = 0.0) -> list[Ruling]:
    """Both countdowns of one round, each player entering what ``picks`` says
    (None: that pick is never entered)."""
    game = match.game
    assert isinstance(game, FingerGuns)
    rulings: list[Ruling] = []
    for step in (1, 2):
        pick = game.step_pick(match.state.round, step)
        rulings += match.apply(CountdownStart(t=t))
        for player, (target, card) in picks.items():
            value = target if pick == "target" else card
            if value is not None:
                match.apply(Choose(t=t + 0.5, player=player, **{pick: value}))
        rulings += match.apply(Lock(t=t + 1.0))
        t += 2.0
    return rulings


def lives(match: Match[FingerGunsState]) -> dict[str, int]:
    return {p: len(c) for p, c in zip(match.game.players, match.state.lives, strict=True)}


SIX = ["A1", "A2", "A3", "S1", "S2", "S3"]  # ids X-1 .. X-6 in this order

SCENARIOS: list[Any] = [
    pytest.param(dict(cards=SIX), [{"A": ("B", "A-3"), "B": ("C", "B-1"), "C": ("A", "C-1")}],
                 dict(lives={"A": 5, "B": 3, "C": 5}), id="an attack deals its value"),
    pytest.param(dict(cards=SIX), [{"A": ("B", "A-3"), "B": ("A", "B-5"), "C": ("B", "C-2")}],
                 dict(lives={"A": 6, "B": 3, "C": 6}),
                 id="a shield stops others but not the player pointed at"),
    pytest.param(dict(cards=SIX), [{"A": ("B", "A-3"), "B": ("D", "B-6"), "C": ("B", "C-2"),
                                    "D": ("A", "D-1")}],
                 dict(players="ABCD", lives={"A": 5, "B": 4, "C": 6, "D": 6}),
                 id="a shield cuts the total of several attacks"),
    pytest.param(dict(cards=SIX), [{"A": ("B", "A-3"), "B": ("A", "B-2"), "C": ("A", "C-4")}],
                 dict(lives={"A": 4, "B": 3, "C": 6},
                      centre=["A-3", "A-1", "B-2", "B-1", "B-4"]),
                 id="damage removes cards, the used own card first"),
    pytest.param(dict(cards=SIX), [{"A": ("B", "A-1"), "B": ("A", "B-4"), "C": ("B", "C-4")}],
                 dict(lives={"A": 6, "B": 5, "C": 6}, centre=["B-4"]),
                 id="a used own card stays when no damage is taken"),
    pytest.param(dict(cards=SIX),
                 [{"A": ("B", "A-3"), "B": ("C", "B-4"), "C": ("A", "C-4")},
                  {"A": ("B", "A-4"), "B": ("A", "B-5"), "C": ("B", "B-1")}],
                 dict(lives={"A": 6, "B": 4, "C": 6}, centre=["B-4"], retired=["B-1"]),
                 id="a used centre card leaves the game"),
    pytest.param(dict(cards=["A3", "A1", "S1"]),
                 [{"A": ("B", "A-1"), "B": ("C", "B-2"), "C": ("B", "C-2")}],
                 dict(lives={"A": 3, "B": 0, "C": 2}, winners=["A"]),
                 id="quickshot ends at a death and most lives wins"),
    pytest.param(dict(cards=["A3", "A1", "S1"], hands={"D": ["A1", "S1"]}),
                 [{"A": ("B", "A-2"), "B": ("C", "B-2"), "C": ("B", "C-1"),
                   "D": ("A", "D-1")}],
                 dict(players="ABCD", lives={"A": 2, "B": 0, "C": 2, "D": 2}, winners=["A"]),
                 id="quickshot tie broken by the highest attack card left"),
    pytest.param(dict(cards=["A2", "S1"]), [{"A": ("B", "A-1"), "B": ("A", "B-1")}],
                 dict(players="AB", lives={"A": 0, "B": 0}, winners=["A", "B"]),
                 id="an unbreakable tie is a shared win"),
    pytest.param(dict(cards=SIX), [{"A": ("B", "A-6"), "B": ("C", "B-1"), "C": ("B", "C-3")}],
                 dict(lives={"A": 6, "B": 3, "C": 5}),
                 id="without gun gang a shield covers only its holder"),
    pytest.param(dict(cards=SIX, gun_gang=True),
                 [{"A": ("B", "A-6"), "B": ("C", "B-1"), "C": ("B", "C-3")}],
                 dict(lives={"A": 6, "B": 6, "C": 5}),
                 id="gun gang shares the shield with the player pointed at"),
    pytest.param(dict(cards=SIX, gun_gang=True),
                 [{"A": ("B", "A-5"), "B": ("A", "B-2"), "C": ("B", "C-1")}],
                 dict(lives={"A": 6, "B": 6, "C": 6}),
                 id="gun gang: the player pointed at is no exception"),
    pytest.param(dict(cards=SIX, gun_gang=True, gun_gang_point_back=True),
                 [{"A": ("B", "A-5"), "B": ("A", "B-2"), "C": ("B", "C-1")}],
                 dict(lives={"A": 4, "B": 5, "C": 6}),
                 id="gun gang option: pointing back with an attack undoes the sharing"),
    pytest.param(dict(cards=["A3", "A1", "S1"], mode="longshot"),
                 [{"A": ("B", "A-1"), "B": ("A", "B-3"), "C": ("A", "C-3")}],
                 dict(lives={"A": 3, "B": 0, "C": 3}, winners=[]),
                 id="longshot plays on after a death"),
    pytest.param(dict(cards=["A3", "A1", "S1"], mode="longshot"),
                 [{"A": ("B", "A-1"), "B": ("A", "B-3"), "C": ("A", "C-3")},
                  {"A": ("B", "A-2"), "B": ("C", "B-1"), "C": ("A", "C-3")}],
                 dict(lives={"A": 3, "B": 0, "C": 2}, retired=["B-1"]),
                 id="longshot: a dead attack is cut by the damage dealt to the dead"),
    pytest.param(dict(cards=["A3", "A1", "S1"], mode="longshot"),
                 [{"A": ("B", "A-1"), "B": ("A", "B-3"), "C": ("A", "C-3")},
                  {"A": ("C", "A-2"), "B": ("C", "B-1"), "C": ("A", "B-1")}],
                 dict(lives={"A": 0, "B": 0, "C": 2}, winners=["C"], retired=["B-1"]),
                 id="longshot: a card picked by another too does nothing; last one wins"),
    pytest.param(dict(cards=SIX), [{"A": ("B", "A-1"), "B": (None, None), "C": ("A", None)}],
                 dict(lives={"A": 6, "B": 5, "C": 6}),
                 id="a player without both picks at the lock holds fire"),
]


@pytest.mark.parametrize(("options", "rounds", "expect"), SCENARIOS)
def test_rule_scenarios(options: dict[str, Any], rounds: list[Picks],
                        expect: dict[str, Any]) -> None:
    match = new(expect.get("players", "ABC"), **options)
    for i, picks in enumerate(rounds):
        play(match, picks, t=10.0 * i)
    assert lives(match) == expect["lives"]
    if "winners" in expect:
        assert list(match.state.winners) == expect["winners"]
        assert match.state.over == bool(expect["winners"])
    if "centre" in expect:
        assert sorted(c.id for c in match.state.centre) == sorted(expect["centre"])
    if "retired" in expect:
        assert list(match.state.retired) == expect["retired"]


def test_resolution_is_ruled_in_seat_order_then_damage_then_lives() -> None:
    match = new(cards=SIX)
    rulings = play(match, {"C": ("A", "C-1"), "A": ("B", "A-3"), "B": ("A", "B-5")})
    kinds = [(r.type, getattr(r, "player", None)) for r in rulings]
    assert kinds[4:] == [("attack", "A"), ("shield", "B"), ("attack", "C"), ("damage", "A"),
                         ("cards_lost", "A"), ("damage", "B"), ("cards_lost", "B"),
                         ("scores", None)]
    assert rulings[-1].to_dict()["scores"] == {"A": 5, "B": 3, "C": 6}


def test_countdown_rulings_name_the_step_and_pick() -> None:
    match = new()
    first = match.apply(CountdownStart(t=0.0))
    assert first[0].to_dict() == {"type": "countdown", "t": 0.0, "round": 1, "step": 1,
                                  "pick": "target"}
    match.apply(Choose(t=0.5, player="A", target="B"))
    locked = match.apply(Lock(t=1.0))
    assert locked[0].to_dict()["missing"] == ["B", "C"]


@pytest.mark.parametrize(("events", "field"), [
    ([CountdownStart(t=0), Lock(t=1), Choose(t=2, player="A", target="B")], "target"),
    ([Lock(t=0)], "type"),
    ([CountdownStart(t=0), CountdownStart(t=1)], "type"),
    ([Choose(t=0, player="A", target="A")], "target"),
    ([Choose(t=0, player="A", target="Zed")], "target"),
    ([Choose(t=0, player="A", card="B-1")], "card"),
    ([Choose(t=0, player="A", card="A-99")], "card"),
    ([Choose(t=0, player="A")], "target"),
    ([Choose(t=0, player="Zed", target="A")], "player"),
    ([Discard(t=0, player="A", cards=["A-1"])], "player"),
])
def test_refused_events_name_the_field(events: list[Any], field: str) -> None:
    match = new()
    for event in events[:-1]:
        match.apply(event)
    before = match.state
    with pytest.raises(IllegalEventError) as info:
        match.apply(events[-1])
    assert info.value.field == field
    assert match.state is before


def test_a_card_pick_after_its_lock_is_refused_in_a_reversed_round() -> None:
    match = new(flipping_fingers=True, cards=SIX)
    play(match, {"A": ("B", "A-1"), "B": ("A", "B-1"), "C": ("A", "C-1")})
    assert match.state.round == 2
    match.apply(CountdownStart(t=20))
    match.apply(Lock(t=21))
    with pytest.raises(IllegalEventError) as info:
        match.apply(Choose(t=22, player="A", card="A-2"))
    assert info.value.field == "card"


def test_longshot_dead_players_pick_only_face_up_centre_attacks() -> None:
    match = new(mode="longshot", cards=["A3", "A1", "S1"])
    play(match, {"A": ("B", "A-1"), "B": ("A", "B-3"), "C": ("A", "C-3")})
    assert match.state.dead == (False, True, False)
    for card in ("B-3", "A-2"):  # a centre shield; another's card
        with pytest.raises(IllegalEventError) as info:
            match.apply(Choose(t=20, player="B", card=card))
        assert info.value.field == "card"
    match.apply(Choose(t=20, player="B", card="B-2"))


def test_flipping_fingers_hides_half_the_cards_and_reverses_every_second_round() -> None:
    match = new(flipping_fingers=True, cards=SIX)
    game = match.game
    assert isinstance(game, FingerGuns)
    codes = [c["code"] for c in game.view(match.state)["players"][0]["cards"]]
    assert codes == ["A1", "A2", "A3", "?", "?", "?"]
    assert [game.step_pick(r, 1) for r in (1, 2, 3, 4)] == ["target", "card", "target", "card"]
    rulings = play(match, {"A": ("B", "A-6"), "B": ("A", "B-1"), "C": ("A", "C-1")})
    revealed = [r.to_dict() for r in rulings if r.type == "revealed"]
    assert revealed == [{"type": "revealed", "t": 3.0, "player": "A", "card": "A-6",
                         "code": "S3", "kind": "shield", "value": 3}]
    # A's shield of 3 (exempting B) took C's 1; B's 1 came through, and the
    # used card is the one lost: it lies face up in the centre now.
    assert lives(match) == {"A": 5, "B": 6, "C": 6}
    assert game.view(match.state)["centre"] == [{"id": "A-6", "code": "S3"}]
    second = match.apply(CountdownStart(t=10))
    assert second[0].to_dict()["pick"] == "card"


def test_the_view_hides_picks_until_their_lock_and_the_private_view_shows_only_ones_own() -> None:
    match = new(cards=SIX)
    game = match.game
    assert isinstance(game, FingerGuns)
    match.apply(CountdownStart(t=0))
    match.apply(Choose(t=0.5, player="A", target="B", card="A-3"))
    match.apply(Choose(t=0.6, player="B", target="C"))
    public = json.dumps(game.view(match.state))
    assert "A-3" not in public.replace('"id": "A-3"', "")
    row = game.view(match.state)["players"][0]
    assert row["picked"] == {"target": True, "card": True}
    assert "target" not in row and "card" not in row
    mine = game.private_view(match.state, "A")["you"]
    assert (mine["target"], mine["card"]) == ("B", "A-3")
    theirs = game.private_view(match.state, "C")
    assert theirs["you"]["target"] is None
    assert "target" not in theirs["players"][1]
    match.apply(Lock(t=1))
    row = game.view(match.state)["players"][0]
    assert row["target"] == "B" and "card" not in row
    with pytest.raises(IllegalEventError):
        game.private_view(match.state, "Zed")


def test_pick_discards_waits_for_each_player_and_checks_the_used_card() -> None:
    match = new(cards=SIX, pick_discards=True)
    rulings = play(match, {"A": ("B", "A-3"), "B": ("A", "B-2"), "C": ("A", "C-4")})
    needed = {r.to_dict()["player"]: r.to_dict() for r in rulings if r.type == "discard_needed"}
    assert needed["A"]["count"] == 2 and needed["A"]["including"] == "A-3"
    assert needed["B"]["count"] == 3 and needed["B"]["including"] == "B-2"
    with pytest.raises(IllegalEventError) as info:
        match.apply(CountdownStart(t=5))
    assert info.value.field == "type"
    for cards in (["A-5", "A-6"], ["A-3"], ["A-3", "A-3"], ["A-3", "B-1"]):
        with pytest.raises(IllegalEventError) as info:
            match.apply(Discard(t=5, player="A", cards=cards))
        assert info.value.field == "cards"
    assert match.apply(Discard(t=5, player="A", cards=["A-6", "A-3"]))[0].type == "cards_lost"
    assert match.state.round == 1
    end = match.apply(Discard(t=6, player="B", cards=["B-2", "B-5", "B-6"]))
    assert [r.type for r in end] == ["cards_lost", "scores"]
    assert match.state.round == 2
    assert [c.id for c in match.state.lives[0]] == ["A-1", "A-2", "A-4", "A-5"]


def test_undo_of_the_resolving_lock_restores_lives_and_picks() -> None:
    match = new(cards=SIX)
    match.apply(CountdownStart(t=0))
    for p, target in (("A", "B"), ("B", "C"), ("C", "A")):
        match.apply(Choose(t=0.5, player=p, target=target))
    match.apply(Lock(t=1))
    match.apply(CountdownStart(t=2))
    for p, card in (("A", "A-3"), ("B", "B-1"), ("C", "C-6")):
        match.apply(Choose(t=2.5, player=p, card=card))
    before = match.state
    resolved = match.apply(Lock(t=3))
    assert lives(match) == {"A": 6, "B": 3, "C": 6}
    undone = match.apply(Undo(t=4))
    assert undone[0].to_dict() == {"type": "undone", "t": 4.0, "what": "lock", "at": 3.0}
    assert match.state == before
    match.apply(Choose(t=4.5, player="B", card="B-4"))  # the countdown runs again
    again = match.apply(Lock(t=5))
    assert [r.type for r in resolved] == ["locked", "attack", "attack", "shield", "damage",
                                          "cards_lost", "scores"]
    assert [r.type for r in again] == ["locked", "attack", "shield", "shield", "damage",
                                       "cards_lost", "scores"]
    assert lives(match) == {"A": 6, "B": 4, "C": 6}


@pytest.mark.parametrize(("options", "field"), [
    ({"cards": ["X3"]}, "cards"),
    ({"cards": []}, "cards"),
    ({"hands": {"Zed": ["A1"]}}, "hands"),
    ({"mode": "fastshot"}, "mode"),
    ({"colour": "red"}, "colour"),
])
def test_bad_options_name_the_field(options: dict[str, Any], field: str) -> None:
    with pytest.raises(OptionError) as info:
        make_game("finger_guns", ["A", "B"], options)
    assert info.value.field == field


@st.composite
def games(draw: st.DrawFn) -> tuple[dict[str, Any], str]:
    players = "ABCDE"[:draw(st.integers(2, 5))]
    cards = draw(st.lists(st.sampled_from(["A0", "A1", "A2", "A3", "A5", "S1", "S2", "S4"]),
                          min_size=1, max_size=8))
    options = dict(cards=cards, mode=draw(st.sampled_from(["quickshot", "longshot"])),
                   gun_gang=draw(st.booleans()), gun_gang_point_back=draw(st.booleans()),
                   flipping_fingers=draw(st.booleans()))
    return options, players


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setup=games(), data=st.data())
def test_lives_are_never_negative_and_equal_start_minus_cards_lost(
        setup: tuple[dict[str, Any], str], data: st.DataObject) -> None:
    options, players = setup
    match = new(players, **options)
    start = {p: len(c) for p, c in zip(players, match.state.lives, strict=True)}
    dealt = sorted(c.id for cards in match.state.lives for c in cards)
    lost_by_rulings = dict.fromkeys(players, 0)
    for round_no in range(12):
        if match.state.over:
            break
        state = match.state
        picks: Picks = {}
        for seat, p in enumerate(players):
            if state.dead[seat] and options["mode"] == "quickshot":
                continue
            if state.dead[seat]:
                pool = [c.id for c in state.centre if c.kind == "attack" and c.face_up]
            else:
                pool = [c.id for c in (*state.lives[seat], *state.centre)]
            others = [q for q in players if q != p]
            picks[p] = (data.draw(st.sampled_from(others)),
                        data.draw(st.sampled_from(pool)) if pool else None)
        before = {p: len(c) for p, c in zip(players, state.lives, strict=True)}
        after = dict(before)
        for ruling in play(match, picks, t=10.0 * round_no):
            d = ruling.to_dict()
            if ruling.type == "cards_lost":
                lost_by_rulings[d["player"]] += len(d["cards"])
            if ruling.type == "damage":  # lives = lives before - damage, never below 0
                after[d["player"]] = max(0, before[d["player"]] - d["damage"])
                assert d["lives"] == after[d["player"]]
        state = match.state
        assert {p: len(c) for p, c in zip(players, state.lives, strict=True)} == after
        for seat, p in enumerate(players):
            assert len(state.lives[seat]) >= 0
            assert len(state.lives[seat]) == start[p] - state.lost[seat]
            assert state.lost[seat] == lost_by_rulings[p]
            assert state.dead[seat] == (not state.lives[seat])
        on_table = [c.id for cards in state.lives for c in cards]
        on_table += [c.id for c in state.centre] + list(state.retired)
        assert sorted(on_table) == dealt  # cards are conserved
    if match.state.over:
        assert match.state.winners


def test_the_example_session_replays_through_the_cli() -> None:
    done = subprocess.run([sys.executable, "-m", "companion.cli", "replay", str(EXAMPLE)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    rulings = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r for r in rulings if r["type"] == "undone"] == [
        {"type": "undone", "t": 44.0, "what": "lock", "at": 43.0}]
    scores = [r["scores"] for r in rulings if r["type"] == "scores"]
    assert scores == [{"Abby": 5, "Beth": 2, "Carter": 5}, {"Abby": 2, "Beth": 1, "Carter": 2},
                      {"Abby": 2, "Beth": 0, "Carter": 2}]
    assert rulings[-1] == {"type": "winner", "t": 50.0, "player": "Carter"}
    text = subprocess.run([sys.executable, "-m", "companion.cli", "replay", "--text",
                           str(EXAMPLE)], capture_output=True, text=True, timeout=120,
                          check=False)
    assert "Lives: Abby 2, Beth 0, Carter 2." in text.stdout.splitlines()


def test_a_malformed_event_exits_2_naming_line_and_field(tmp_path: Path) -> None:
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()[:4]
    lines.append('{"t": 2.5, "type": "choose", "player": "Abby", "target": 7}')
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "companion.cli", "replay", str(path)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2
    assert "line 5, field 'target'" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
