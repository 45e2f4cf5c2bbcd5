"""Match: the fold and undo that every game shares."""

from __future__ import annotations

from typing import Any

import pytest

from companion.errors import IllegalEventError, OutOfOrderError
from companion.events import Say, Tick, Undo
from companion.games import make_game
from companion.games.base import Match


def test_undo_skips_events_that_had_no_effect() -> None:
    game = make_game("cheap_shot", ["Abby", "Beth"])
    match: Match[Any] = Match(game)
    match.apply(Say(t=1.0, text="nothing to do with the score"))
    assert match.effective == []
    with pytest.raises(IllegalEventError):
        match.apply(Undo(t=2.0))


def test_events_out_of_time_order_are_refused_and_change_nothing() -> None:
    match: Match[Any] = Match(make_game("nasty7", ["Abby", "Beth"]))
    match.apply(Tick(t=5.0))
    before = match.state
    with pytest.raises(OutOfOrderError) as err:
        match.apply(Tick(t=4.0))
    assert err.value.field == "t"
    assert match.state == before
