"""Invariants of The Nasty 7 under random play (hypothesis)."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.errors import EventError
from companion.games import make_game
from companion.games.base import Match
from companion.games.nasty7 import CARDS, Nasty7, Nasty7State
from companion.store import Store
from companion.table import Table

PLAYERS = ["Abby", "Beth", "Carter", "Debbie"]
WORDS = ["one", "two", "three", "four", "five", "six", "seven", "hmmrrr", "pfft", "quack",
         "chips", "one two", "hmmrrr hmmrrr", ""]


@st.composite
def event_objects(draw: st.DrawFn) -> list[dict[str, Any]]:
    t = 0.0
    out: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(1, 60))):
        t += draw(st.sampled_from([0.0, 0.2, 0.7, 1.5, 3.5]))
        kind = draw(st.sampled_from(["flip", "flip", "flip", "say", "say", "say", "accuse",
                                     "tick", "undo", "phone_word", "card"]))
        ev: dict[str, Any] = {"t": t, "type": kind}
        if kind == "flip":
            ev["player"] = draw(st.sampled_from(PLAYERS))
            card = draw(st.sampled_from([*CARDS, None, None]))  # None: inferred from the call
            if card is not None:
                ev["card"] = card
        elif kind == "card":
            ev["player"] = draw(st.sampled_from(PLAYERS))
            ev["card"] = draw(st.sampled_from(CARDS))
        elif kind == "say":
            ev["text"] = draw(st.sampled_from(WORDS))
            ev["confidence"] = draw(st.sampled_from([1.0, 0.9, 0.3]))
        elif kind == "accuse":
            ev["by"] = draw(st.lists(st.sampled_from(PLAYERS), min_size=1, max_size=3,
                                     unique=True))
        elif kind == "phone_word":
            ev["text"] = draw(st.sampled_from(["quack", "pfft", "peek a boo"]))
        out.append(ev)
    return out


def options_strategy() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({
        "nasty": st.booleans(), "even_more_nasty": st.booleans(), "younger": st.booleans(),
        "hesitation": st.sampled_from([1.0, 3.0]),
    })


def run(events: list[dict[str, Any]], options: dict[str, Any]
        ) -> tuple[Match[Nasty7State], list[dict[str, Any]]]:
    """Apply what the engine accepts; refused events must be EventErrors."""
    game = make_game("nasty7", PLAYERS, options)
    match: Match[Nasty7State] = Match(game)
    accepted = []
    for obj in events:
        event = game.parse_event(obj)
        try:
            match.apply(event)
        except EventError:
            continue
        accepted.append(obj)
    return match, accepted


def check_invariants(game: Nasty7, state: Nasty7State) -> None:
    cards = sum(len(s) for s in state.stacks) + len(state.pile) + state.set_aside
    assert cards == game.deck_size()
    assert 0 <= state.last <= 7
    assert state.direction in (1, -1)
    assert 0 <= state.turn < len(game.players)
    view = game.view(state)
    call = view["call"]
    if call is not None:
        assert call["card_from"] in ("seen", "named", "inferred", "unknown")
        assert (call["card"] is None) == (call["card_from"] == "unknown")
    assert (view["question"] is not None) == (call is not None and call["status"] == "asked")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(event_objects(), options_strategy())
def test_random_play_never_crashes_and_conserves_the_cards(events: list[dict[str, Any]],
                                                           options: dict[str, Any]) -> None:
    game = make_game("nasty7", PLAYERS, options)
    assert isinstance(game, Nasty7)
    match: Match[Nasty7State] = Match(game)
    for obj in events:
        with contextlib.suppress(EventError):
            match.apply(game.parse_event(obj))
        check_invariants(game, match.state)


@settings(max_examples=150, deadline=None)
@given(event_objects(), options_strategy())
def test_replaying_the_accepted_events_gives_the_same_state(events: list[dict[str, Any]],
                                                            options: dict[str, Any]) -> None:
    match, accepted = run(events, options)
    game = make_game("nasty7", PLAYERS, options)
    again: Match[Nasty7State] = Match(game)
    for obj in accepted:
        again.apply(game.parse_event(obj))
    assert again.state == match.state


@settings(max_examples=150, deadline=None)
@given(event_objects())
def test_virtual_deck_conserves_every_card_kind(events: list[dict[str, Any]]) -> None:
    options = {"virtual_deck": True, "seed": 3}
    for ev in events:
        if ev["type"] == "flip":
            ev.pop("card", None)
    match, _ = run(events, options)
    start = match.game.start()
    before = sorted(c for s in start.stacks for c in s if c)
    after = sorted([c for s in match.state.stacks for c in s if c] + list(match.state.pile))
    assert after == before


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(event_objects())
def test_the_sqlite_log_rebuilds_the_game_exactly(tmp_path: Path,
                                                  events: list[dict[str, Any]]) -> None:
    with Store(tmp_path / "log.sqlite3") as store:
        table = Table.new(store, make_game("nasty7", PLAYERS))
        for obj in events:
            with contextlib.suppress(EventError):
                table.submit(table.game.parse_event(obj))
        rebuilt = Table.resume(store, table.game_id)
        assert rebuilt.state == table.state
        assert rebuilt.rulings == table.rulings
