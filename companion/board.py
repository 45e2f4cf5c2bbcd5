"""The buttons and LEDs on the table, with gpiozero.

``Board(pinout, pin_factory)`` makes one ``gpiozero.Button`` (to GND, internal
pull-up) and one ``gpiozero.LED`` per seat, plus the status LED. The pin
factory is injected, as gpiozero intends: ``choose_pin_factory()`` gives
lgpio on a Raspberry Pi and gpiozero's ``MockFactory`` elsewhere (and says
so); tests pass a ``MockFactory`` and drive its pins.

Inputs go to the ``on_input`` callable as ``Press`` and ``Hold`` values:

- A press carries the time of its *edge*, from the pin factory's ticks
  (gpiozero's ``active_time`` counts from the edge), mapped to the table
  clock; never the time a callback happened to run.
- A press is reported when the button is released (or, for a hold, not at
  all), so that holding a button ``hold_time`` seconds (2 s) means "tell the
  scores" and not also "I flipped". ``pending_since()`` gives the edge time of
  the earliest press still down, so the table loop can hold later events back
  and keep the table's order.
- Bounce: gpiozero's ``MockPin`` does not implement ``bounce_time`` and lgpio
  reports debounced edges late, so debouncing is done here, the same way on
  every factory, from edge times: a press edge counts only when the pin had
  no edge for ``bounce_time`` seconds before it, and a release edge within
  ``bounce_time`` of its press is contact chatter.

Simultaneous presses are ordered by edge time with ``group_presses``: the
earliest wins; presses within ``TIE_S`` (1 ms) of each other are a tie.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from companion.pinout import Pinout

log = logging.getLogger(__name__)

MAX_EDGE_AGE_S = 1.0
"""The oldest an edge can be when its callback runs, in seconds; beyond it
the factory's edge ticks are taken to be on another clock."""

TIE_S = 0.001
"""Presses whose edges are less than this many seconds apart are a tie."""

Clock = Callable[[], float]


@dataclass(frozen=True)
class Press:
    """A button pressed and released: ``seat`` (0-based, clockwise) and
    ``t``, the press edge in seconds on the table clock."""

    seat: int
    t: float


@dataclass(frozen=True)
class Hold:
    """A button held ``hold_time`` seconds: ``seat`` and ``t``, the moment
    the hold was recognised, on the table clock."""

    seat: int
    t: float


BoardInput = Press | Hold


class Status(Enum):
    """What the status LED shows: off, steady (listening), fast blink
    (speaking), slow blink (a fault: microphone or speaker missing)."""

    OFF = "off"
    LISTENING = "listening"
    SPEAKING = "speaking"
    FAULT = "fault"


@dataclass(frozen=True)
class FactoryChoice:
    """A pin factory and whether it is gpiozero's ``MockFactory`` (no GPIO)."""

    factory: Any
    mock: bool
    reason: str


def choose_pin_factory() -> FactoryChoice:
    """lgpio when this machine has a GPIO chip and the ``lgpio`` module
    (gpiozero's native pins if lgpio is missing), whatever
    ``GPIOZERO_PIN_FACTORY`` names if set, else ``MockFactory``.

    Never raises: a machine without GPIO runs on mock pins, and ``reason``
    says why."""
    from gpiozero.pins.mock import MockFactory

    named = os.environ.get("GPIOZERO_PIN_FACTORY")
    if named and named != "mock":
        from gpiozero import Device

        try:
            factory = Device._default_pin_factory()
            return FactoryChoice(factory, mock=False, reason=f"pin factory {named!r}")
        except Exception as exc:  # gpiozero raises BadPinFactory and others
            return FactoryChoice(MockFactory(), mock=True,
                                 reason=f"pin factory {named!r} failed ({exc})")
    if named == "mock":
        return FactoryChoice(MockFactory(), mock=True, reason="GPIOZERO_PIN_FACTORY=mock")
    if not os.path.exists("/dev/gpiochip0"):
        return FactoryChoice(MockFactory(), mock=True, reason="this machine has no GPIO chip")
    try:
        from gpiozero.pins.lgpio import LGPIOFactory

        return FactoryChoice(LGPIOFactory(), mock=False, reason="lgpio")
    except Exception as exc:  # ImportError, or lgpio cannot open the chip
        lgpio_problem = str(exc)
    try:  # gpiozero's pure-Python factory (Pi 4 and older, through /dev/gpiomem)
        from gpiozero.pins.native import NativeFactory

        return FactoryChoice(NativeFactory(), mock=False,
                             reason=f"gpiozero's native pins (lgpio: {lgpio_problem})")
    except Exception as exc:
        return FactoryChoice(MockFactory(), mock=True,
                             reason=f"no usable GPIO library (lgpio: {lgpio_problem}; "
                                    f"native: {exc})")


def group_presses(presses: Sequence[Press]) -> list[list[Press]]:
    """Presses ordered by edge time and grouped into ties: each group starts
    with the earliest press not yet grouped and holds every press less than
    ``TIE_S`` after it. The first group is the winner."""
    groups: list[list[Press]] = []
    for press in sorted(presses, key=lambda p: (p.t, p.seat)):
        if groups and press.t - groups[-1][0].t < TIE_S:
            groups[-1].append(press)
        else:
            groups.append([press])
    return groups


@dataclass
class _Contact:
    last_edge: float | None = None
    down_since: float | None = None  # edge time of an accepted press still down
    held: bool = False


class Board:
    """Buttons and LEDs for up to ``len(pinout.seats)`` seats.

    ``pin_factory``: a gpiozero pin factory (``MockFactory`` in tests).
    ``on_input``: called with each ``Press``/``Hold`` from gpiozero's callback
    threads (keep it quick: put it on a queue). ``clock``: the table clock
    (seconds, monotonic). Raises gpiozero's ``PinInvalidPin`` for a pin the
    factory does not have."""

    def __init__(self, pinout: Pinout, pin_factory: Any, *,
                 on_input: Callable[[BoardInput], None] | None = None,
                 clock: Clock = time.monotonic) -> None:
        from gpiozero import LED, Button

        self.pinout = pinout
        self.factory = pin_factory
        self.clock = clock
        self.on_input = on_input or (lambda _i: None)
        self._lock = threading.Lock()
        self._warned_ticks = False
        self._contacts = [_Contact() for _ in pinout.seats]
        self.buttons: list[Any] = []
        self.leds: list[Any] = []
        for seat, wiring in enumerate(pinout.seats):
            button = Button(wiring.button, pull_up=True, bounce_time=None,
                            hold_time=pinout.hold_time, pin_factory=pin_factory)
            button.when_pressed = self._callback(seat, pressed=True)
            button.when_released = self._callback(seat, pressed=False)
            button.when_held = self._held_callback(seat)
            self.buttons.append(button)
            self.leds.append(LED(wiring.led, pin_factory=pin_factory))
        self.status_led = LED(pinout.status_led, pin_factory=pin_factory)
        self.status = Status.OFF
        self.turn: int | None = None
        self._led_lock = threading.Lock()  # gpiozero's blink is not safe to race
        self._blink_until = [0.0] * len(self.leds)
        self._closed = False

    # -- inputs ----------------------------------------------------------------

    def _edge_time(self, elapsed: float | None) -> float:
        """The table time of an edge ``elapsed`` seconds ago by the factory's
        ticks. An age that cannot be right (negative, or over ``MAX_EDGE_AGE_S``:
        a factory whose edge ticks are on another clock) falls back to the
        callback's time, with one warning in the log."""
        if elapsed is None or not 0.0 <= elapsed <= MAX_EDGE_AGE_S:
            if not self._warned_ticks:
                self._warned_ticks = True
                log.warning("edge ticks of %r give an age of %r s; using callback times",
                            self.factory, elapsed)
            elapsed = 0.0
        return self.clock() - elapsed

    def _callback(self, seat: int, *, pressed: bool) -> Callable[[], None]:
        def run() -> None:
            button = self.buttons[seat]
            # gpiozero sets the device's last change to the edge's ticks
            # before calling when_pressed/when_released, so active_time and
            # inactive_time count from the edge itself.
            t = self._edge_time(button.active_time if pressed else button.inactive_time)
            self._edge(seat, t, pressed)
        return run

    def _edge(self, seat: int, t: float, pressed: bool) -> None:
        bounce = self.pinout.bounce_time
        out: BoardInput | None = None
        with self._lock:
            contact = self._contacts[seat]
            quiet = contact.last_edge is None or t - contact.last_edge >= bounce
            contact.last_edge = t
            if pressed:
                if quiet and contact.down_since is None:
                    contact.down_since, contact.held = t, False
            elif contact.down_since is not None and t - contact.down_since >= bounce:
                if not contact.held:
                    out = Press(seat=seat, t=contact.down_since)
                contact.down_since, contact.held = None, False
        if out is not None:
            self.on_input(out)

    def _held_callback(self, seat: int) -> Callable[[], None]:
        def run() -> None:
            with self._lock:
                contact = self._contacts[seat]
                if contact.down_since is None or contact.held:
                    return
                contact.held = True
            self.on_input(Hold(seat=seat, t=self.clock()))
        return run

    def pending_since(self) -> float | None:
        """The edge time of the earliest press still down (not yet reported),
        or None. Events after it must wait: the press may come first."""
        with self._lock:
            times = [c.down_since for c in self._contacts
                     if c.down_since is not None and not c.held]
        return min(times) if times else None

    # -- outputs ---------------------------------------------------------------

    def show_turn(self, seat: int | None) -> None:
        """Light the LED of ``seat`` (the player to play) and no other; an
        LED blinking for a mistake finishes its blink first."""
        with self._led_lock:
            self.turn = seat
            now = time.monotonic()
            for i, led in enumerate(self.leds):
                if self._blink_until[i] > now:
                    continue
                if i == seat:
                    led.on()
                else:
                    led.off()

    def blink_offender(self, seat: int, *, times: int = 6, on_time: float = 0.15) -> None:
        """Blink ``seat``'s LED ``times`` times (``on_time`` seconds on and
        off), in the background; then show the turn again."""
        duration = 2 * on_time * times
        with self._led_lock:
            self._blink_until[seat] = time.monotonic() + duration
            self.leds[seat].blink(on_time=on_time, off_time=on_time, n=times, background=True)
        timer = threading.Timer(duration + 0.05, self._after_blink, args=(seat,))
        timer.daemon = True
        timer.start()

    def _after_blink(self, seat: int) -> None:
        with self._led_lock:
            if self._blink_until[seat] > time.monotonic() or self._closed:
                return
            if self.turn == seat:
                self.leds[seat].on()

    def show_status(self, status: Status) -> None:
        """Set the status LED: steady when listening, a fast blink while
        speaking, a slow blink for a fault, dark when off."""
        with self._led_lock:
            if status == self.status or self._closed:
                return
            self.status = status
            led = self.status_led
            if status is Status.LISTENING:
                led.on()
            elif status is Status.SPEAKING:
                led.blink(on_time=0.1, off_time=0.1, background=True)
            elif status is Status.FAULT:
                led.blink(on_time=0.5, off_time=1.0, background=True)
            else:
                led.off()

    def close(self) -> None:
        """Release every pin (LEDs off)."""
        with self._led_lock:
            self._closed = True
        for device in (*self.buttons, *self.leds, self.status_led):
            device.close()
