"""Invariants of Cheat under random play (hypothesis).

Events are drawn against the current table, mostly sensible (the right
player claims a legal rank, reveals have the claim's count) with wrong ones
mixed in, so games run deep enough to be won.
"""

from __future__ import annotations

from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import event as note_event
from hypothesis import strategies as st

from companion.errors import EventError
from companion.events import Undo
from companion.games import make_game
from companion.games.base import Match
from companion.games.cheat import RANKS, Cheat, CheatState, legal_ranks
from companion.replay import replay_all
from companion.session import dump_session, parse_lines

PLAYERS = ["Abby", "Beth", "Carter", "Debbie", "Ed", "Fay", "Gus"]
WORDS = ["three fours", "a king", "two aces", "four twos", "five sixes", "cheat", "cheat!",
         "four four six", "ace ace", "hello", "", "two", "an ace and a king", "no",
         "no, a king", "no two fives"]


def draw_event(data: st.DataObject, game: Cheat, state: CheatState, t: float
               ) -> dict[str, Any]:
    players = list(game.players)
    kind = data.draw(st.sampled_from(
        ["claim", "claim", "claim", "claim", "bare", "say", "say", "challenge", "challenge",
         "reveal", "reveal", "tick", "undo", "fix_claim", "set_hand"]))
    ev: dict[str, Any] = {"t": t, "type": kind}
    if kind in ("claim", "bare"):
        right = state.turn if state.placing is None else state.placing
        who = data.draw(st.sampled_from([right, right, right, data.draw(
            st.integers(0, len(players) - 1))]))
        ev = {"t": t, "type": "claim", "player": players[who]}
        if kind == "claim":
            legal = legal_ranks(state.last.rank if state.last else None)
            ev["rank"] = data.draw(st.sampled_from([*legal, data.draw(st.sampled_from(RANKS))]))
            ev["count"] = data.draw(st.integers(1, 4))
    elif kind == "say":
        ev["text"] = data.draw(st.sampled_from(WORDS))
        ev["confidence"] = data.draw(st.sampled_from([1.0, 0.8, 0.2]))
    elif kind == "challenge":
        ev["player"] = data.draw(st.sampled_from(players))
    elif kind == "reveal":
        count = state.contest.claim.count if state.contest else data.draw(st.integers(1, 4))
        count = data.draw(st.sampled_from([count, count, count, data.draw(st.integers(1, 4))]))
        rank = state.contest.claim.rank if state.contest else "A"
        ev["cards"] = data.draw(st.lists(st.sampled_from([rank, rank, rank, "7"]),
                                         min_size=count, max_size=count))
    elif kind == "fix_claim":
        ev["count"] = data.draw(st.integers(1, 4))
        ev["rank"] = data.draw(st.sampled_from(RANKS))
    elif kind == "set_hand":
        who = data.draw(st.integers(0, len(players) - 1))
        ev["player"] = players[who]
        ev["cards"] = max(0, state.hands[who] + data.draw(st.integers(-2, 2)))
    return ev


def check_table(game: Cheat, state: CheatState) -> None:
    assert sum(state.hands) + state.pile == game.total_cards
    assert all(h >= 0 for h in state.hands) and state.pile >= 0
    assert state.winner is None or state.hands[state.winner] == 0
    view = game.view(state)
    assert sum(p["hand"] for p in view["players"]) + view["pile"] == view["cards"]


def comparable(state: CheatState) -> CheatState:
    """The state without the time of the last event (a tick that ruled
    nothing is not kept by ``Match``, so a rebuilt state may differ in it)."""
    return msgspec.structs.replace(state, t=0.0)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.integers(3, 7), st.sampled_from([1.0, 5.0]))
def test_random_games_conserve_cards_undo_and_replay(data: st.DataObject, n: int,
                                                     window: float) -> None:
    game = make_game("cheat", PLAYERS[:n], {"challenge_window": window})
    assert isinstance(game, Cheat)
    match: Match[CheatState] = Match(game)
    applied = []
    t = 0.0
    for _ in range(data.draw(st.integers(1, 120))):
        t += data.draw(st.sampled_from([0.0, 0.3, 1.0, 2.5, 6.0]))
        obj = draw_event(data, game, match.state, t)
        before, effective = match.state, len(match.effective)
        try:
            event = game.parse_event(obj)
            rulings = match.apply(event)
        except EventError:
            # Refused input changes nothing (the errors of companion.errors only).
            assert match.state == before
            continue
        applied.append(event)
        check_table(game, match.state)
        for r in rulings:
            assert r.t <= t
        if event.type != "undo" and len(match.effective) > effective:
            # Undo returns to the state before the event.
            trial = match.copy()
            trial.apply(Undo(t=t))
            assert comparable(trial.state) == comparable(before)
    note_event(f"won: {match.winner is not None}")
    note_event(f"claims: {sum(s.claims for s in match.state.stats) // 10 * 10}+")
    # Replaying the log gives the same state and rulings as live play.
    session = parse_lines(dump_session(game, applied).splitlines())
    replayed = replay_all(session)
    assert replayed.match.state == match.state


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=40), st.floats(0.0, 1.0))
def test_any_words_never_crash(text: str, confidence: float) -> None:
    game = make_game("cheat", PLAYERS[:4])
    match: Match[CheatState] = Match(game)
    for i, words in enumerate(["three fours", text, "cheat", text, text]):
        rulings = match.apply(game.parse_event(
            {"t": float(i), "type": "say", "text": words, "confidence": confidence}))
        assert all(r.t <= i for r in rulings)
        check_table(game, match.state)
