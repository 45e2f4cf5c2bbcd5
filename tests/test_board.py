"""Buttons and LEDs on gpiozero's MockFactory (this machine has no GPIO).

The table clock is a value the test sets (``TableClock``): the board maps each
edge's pin-factory ticks onto it, so the edge times below are exact and no
test sleeps to make presses "simultaneous"."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory
from live_rig import TableClock

from companion.board import TIE_S, Board, BoardInput, Hold, Press, Status, group_presses
from companion.errors import BoardError
from companion.pinout import load_pinout, parse_pinout


@pytest.fixture
def rig():
    factory = MockFactory()
    clock = TableClock()
    inputs: list[BoardInput] = []
    board = Board(load_pinout(), factory, on_input=inputs.append, clock=clock)
    yield board, factory, clock, inputs
    board.close()
    factory.close()


def _pin(factory: MockFactory, board: Board, seat: int):
    return factory.pin(board.pinout.seats[seat].button)


def press(board, factory, clock, seat: int, at: float, *, hold_for: float = 0.12) -> None:
    clock.now = at
    _pin(factory, board, seat).drive_low()
    clock.now = at + hold_for
    _pin(factory, board, seat).drive_high()


def test_shipped_pinout_has_ten_seats_and_distinct_pins() -> None:
    pinout = load_pinout()
    assert len(pinout.seats) == 10
    pins = [pin for pin, _ in pinout.uses()]
    assert len(pins) == len(set(pins)) == 21


def test_a_pin_named_twice_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "pinout.toml"
    path.write_text("status_led = 10\n[[seat]]\nbutton = 4\nled = 18\n"
                    "[[seat]]\nbutton = 17\nled = 4\n")
    with pytest.raises(BoardError, match=r"GPIO4 is named twice: seat 1 button and seat 2 LED"):
        load_pinout(path)


@pytest.mark.parametrize(("data", "message"), [
    ({"seat": [{"button": 4, "led": 18}]}, "status_led is missing"),
    ({"status_led": 10, "seat": [{"button": 4}]}, "seat 1 has no led"),
    ({"status_led": 40, "seat": [{"button": 4, "led": 18}]}, "status_led = 40"),
    ({"status_led": 10, "seat": [{"button": "x", "led": 18}]}, "seat 1 button must be"),
    ({"status_led": 10, "seat": []}, r"\[\[seat\]\]"),
    ({"status_led": 10, "bounce_time": -1, "seat": [{"button": 4, "led": 18}]}, "bounce_time"),
    ({"status_led": 10, "leds": 3, "seat": [{"button": 4, "led": 18}]}, "unknown field 'leds'"),
])
def test_bad_pinouts_name_the_field(data: dict, message: str) -> None:
    with pytest.raises(BoardError, match=message):
        parse_pinout(data)


def test_press_is_reported_with_its_edge_time_not_the_release(rig) -> None:
    board, factory, clock, inputs = rig
    press(board, factory, clock, 2, at=5.25, hold_for=0.3)
    assert inputs == [Press(seat=2, t=pytest.approx(5.25, abs=1e-3))]


def test_press_is_pending_while_the_button_is_down(rig) -> None:
    board, factory, clock, inputs = rig
    clock.now = 3.0
    _pin(factory, board, 0).drive_low()
    assert board.pending_since() == pytest.approx(3.0, abs=1e-3)
    assert inputs == []
    clock.now = 3.2
    _pin(factory, board, 0).drive_high()
    assert board.pending_since() is None and len(inputs) == 1


def test_every_seat_button_reports_its_own_seat(rig) -> None:
    board, factory, clock, inputs = rig
    for seat in range(10):
        press(board, factory, clock, seat, at=10.0 + seat)
    assert [i.seat for i in inputs] == list(range(10))


def test_bounce_makes_one_press(rig) -> None:
    board, factory, clock, inputs = rig
    pin = _pin(factory, board, 1)
    # Contact chatter: edges 1 ms apart on the way down and on the way up.
    for k, level in enumerate([0, 1, 0, 1, 0]):
        clock.now = 1.0 + k * 0.001
        pin.drive_low() if level == 0 else pin.drive_high()
    for k, level in enumerate([1, 0, 1, 0, 1]):
        clock.now = 1.2 + k * 0.001
        pin.drive_low() if level == 0 else pin.drive_high()
    assert inputs == [Press(seat=1, t=pytest.approx(1.0, abs=1e-3))]
    press(board, factory, clock, 1, at=1.5)  # a real second press later counts
    assert len(inputs) == 2


def test_simultaneous_presses_earliest_wins_and_1ms_is_a_tie(rig) -> None:
    board, factory, clock, inputs = rig
    pins = {s: _pin(factory, board, s) for s in (0, 1, 2, 3)}
    # Down in the order 3, 1, 2, 0; edges at 7.0000, 7.0020, 7.0025, 7.0100.
    for seat, at in ((3, 7.0), (1, 7.002), (2, 7.0025), (0, 7.01)):
        clock.now = at
        pins[seat].drive_low()
    # Released in another order: the release order must not matter.
    for seat in (0, 2, 1, 3):
        clock.now += 0.1
        pins[seat].drive_high()
    assert [i.seat for i in inputs] == [0, 2, 1, 3]
    groups = group_presses([i for i in inputs if isinstance(i, Press)])
    assert [[p.seat for p in g] for g in groups] == [[3], [1, 2], [0]]
    assert groups[1][1].t - groups[1][0].t < TIE_S


def test_holding_a_button_asks_for_scores_and_is_no_press(tmp_path: Path) -> None:
    factory = MockFactory()
    inputs: list[BoardInput] = []
    pinout = parse_pinout({"status_led": 10, "hold_time": 0.2,
                           "seat": [{"button": 4, "led": 18}, {"button": 17, "led": 23}]})
    board = Board(pinout, factory, on_input=inputs.append)
    try:
        factory.pin(17).drive_low()
        deadline = time.monotonic() + 5.0  # gpiozero's hold thread waits hold_time
        while not inputs and time.monotonic() < deadline:
            time.sleep(0.01)
        factory.pin(17).drive_high()
        assert len(inputs) == 1 and isinstance(inputs[0], Hold) and inputs[0].seat == 1
    finally:
        board.close()
        factory.close()


def test_turn_led_offender_blink_and_status(rig) -> None:
    board, factory, _clock, _inputs = rig
    led_pin = [factory.pin(s.led) for s in board.pinout.seats]
    board.show_turn(4)
    assert [p.state for p in led_pin] == [i == 4 for i in range(10)]
    board.show_turn(5)
    assert [p.state for p in led_pin] == [i == 5 for i in range(10)]
    led_pin[2].clear_states()
    board.blink_offender(2, times=3, on_time=0.01)
    deadline = time.monotonic() + 5.0
    while len(led_pin[2].states) < 7 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert [s.state for s in led_pin[2].states][:7] == [False, True, False, True, False,
                                                        True, False]
    status = factory.pin(board.pinout.status_led)
    board.show_status(Status.LISTENING)
    assert status.state is True
    board.show_status(Status.OFF)
    assert status.state is False
    status.clear_states()
    board.show_status(Status.SPEAKING)
    deadline = time.monotonic() + 5.0
    while len(status.states) < 4 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(status.states) >= 4  # it blinks
    board.show_status(Status.LISTENING)
    assert status.state is True


@pytest.mark.skipif(Path("/dev/gpiochip0").exists(), reason="this machine has GPIO")
def test_a_machine_without_gpio_gets_mock_pins_and_says_why(monkeypatch) -> None:
    from companion.board import choose_pin_factory

    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    choice = choose_pin_factory()
    assert choice.mock and isinstance(choice.factory, MockFactory)
    assert choice.reason == "this machine has no GPIO chip"
    choice.factory.close()
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    choice = choose_pin_factory()
    assert choice.mock and choice.reason == "GPIOZERO_PIN_FACTORY=mock"
    choice.factory.close()
