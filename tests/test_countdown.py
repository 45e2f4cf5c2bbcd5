"""The Finger Guns countdown caller on a real hub and SQLite log, with LEDs on
gpiozero's MockFactory pins (no GPIO on this machine) and the spoken words
recorded instead of played (the speaker is tested on its own)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero import LED
from gpiozero.pins.mock import MockFactory

from companion.countdown import CountdownCaller
from companion.events import Undo
from companion.games.finger_guns import Choose, CountdownStart
from companion.hub import Hub
from companion.store import Store


@pytest.fixture
def hub(tmp_path: Path) -> Hub:
    hub = Hub(Store(tmp_path / "log.sqlite3"))
    hub.new_game("finger_guns", ["Abby", "Beth"], {"cards": ["A1", "S1"]})
    return hub


@pytest.fixture
def leds() -> Iterator[list[LED]]:
    factory = MockFactory()
    out = [LED(pin, pin_factory=factory) for pin in (5, 6)]
    yield out
    for led in out:
        led.close()


def test_a_countdown_is_called_with_the_leds_and_locked_at_its_end(
        hub: Hub, leds: list[LED]) -> None:
    said: list[tuple[str, list[bool]]] = []

    def light(on: bool) -> None:
        for led in leds:
            led.value = on

    caller = CountdownCaller(hub, beat=0.01, leds=light,
                             say=lambda w: said.append((w, [bool(x.value) for x in leds])))
    hub.submit(Choose(t=0.0, player="Abby", target="Beth"))
    hub.submit(CountdownStart(t=0.0))
    caller.join(timeout=10)
    assert said == [("three", [True, True]), ("two", [True, True]), ("one", [True, True])]
    assert [led.value for led in leds] == [0, 0]
    assert [r.to_dict()["type"] for r in caller.locks] == ["locked"]
    assert caller.locks[0].to_dict()["missing"] == ["Beth"]
    assert hub.table is not None and hub.table.state.locked == 1
    assert hub.store.games()[0].events == 3  # choose, countdown_start, lock: all logged


def test_an_undone_countdown_is_not_locked(hub: Hub) -> None:
    said: list[str] = []
    spoke = threading.Event()

    def say(word: str) -> None:
        said.append(word)
        spoke.set()

    caller = CountdownCaller(hub, beat=30.0, say=say)
    hub.submit(CountdownStart(t=0.0))
    assert spoke.wait(10)  # the first beat is under way
    hub.submit(Undo(t=0.1))
    caller.join(timeout=10)
    assert caller.locks == []
    assert hub.table is not None and hub.table.state.locked == 0
    assert not hub.table.state.counting
    assert said == ["three"]


def test_a_beat_must_be_positive(hub: Hub) -> None:
    with pytest.raises(ValueError, match="beat"):
        CountdownCaller(hub, beat=0)


def test_undoing_a_pick_during_the_count_leaves_the_countdown_running(hub: Hub) -> None:
    spoke, go = threading.Event(), threading.Event()

    def say(word: str) -> None:  # holds the first beat until the undo is in
        spoke.set()
        go.wait(10)

    caller = CountdownCaller(hub, beat=0.01, say=say)
    hub.submit(CountdownStart(t=0.0))
    assert spoke.wait(10)
    hub.submit(Choose(t=0.1, player="Abby", target="Beth"))
    hub.submit(Undo(t=0.2))
    go.set()
    caller.join(timeout=10)
    assert [r.type for r in caller.locks] == ["locked"]
    assert hub.table is not None and hub.table.state.locked == 1
