"""The wiring: which BCM pin each seat's button and LED use (``hardware/pinout.toml``).

``load_pinout(path)`` reads and checks a pinout; the default is the one
shipped in ``hardware/``. Pin numbers are BCM GPIO numbers as gpiozero names
them (``17`` is ``GPIO17``). Seats are listed clockwise, seat 0 first.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.errors import BoardError
from companion.resources import data_path

BCM_PINS = range(2, 28)
"""The GPIO numbers on the Raspberry Pi's 40-pin header (0 and 1 are the HAT EEPROM)."""


@dataclass(frozen=True)
class Seat:
    """One player's place: ``button`` and ``led`` BCM pins."""

    button: int
    led: int


@dataclass(frozen=True)
class Pinout:
    """A checked wiring. ``bounce_time`` and ``hold_time`` are seconds."""

    seats: tuple[Seat, ...]
    status_led: int
    bounce_time: float = 0.02
    hold_time: float = 2.0
    source: str = "hardware/pinout.toml"

    def uses(self) -> list[tuple[int, str]]:
        """Every pin with what it is for, e.g. ``(17, "seat 2 button")``."""
        out = [(self.status_led, "status LED")]
        for i, seat in enumerate(self.seats, start=1):
            out += [(seat.button, f"seat {i} button"), (seat.led, f"seat {i} LED")]
        return out


def _pin(value: Any, field: str, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise BoardError(f"{where}: {field} must be a BCM pin number, not {value!r}")
    if value not in BCM_PINS:
        raise BoardError(f"{where}: {field} = {value!r} is not a GPIO pin of the header "
                         f"(BCM {BCM_PINS.start}-{BCM_PINS.stop - 1})")
    return value


def _seconds(data: dict[str, Any], field: str, default: float, where: str) -> float:
    value = data.get(field, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise BoardError(f"{where}: {field} must be a number of seconds >= 0, not {value!r}")
    return float(value)


def parse_pinout(data: dict[str, Any], where: str = "pinout") -> Pinout:
    """A pinout from parsed TOML. Raises ``BoardError`` naming the field, or
    the pin used twice and both of its uses."""
    known = {"status_led", "bounce_time", "hold_time", "seat"}
    for key in data:
        if key not in known:
            raise BoardError(f"{where}: unknown field {key!r}; known: {sorted(known)}")
    if "status_led" not in data:
        raise BoardError(f"{where}: status_led is missing")
    seats_data = data.get("seat")
    if not isinstance(seats_data, list) or not seats_data:
        raise BoardError(f"{where}: at least one [[seat]] with a button and an led is needed")
    seats = []
    for i, seat in enumerate(seats_data, start=1):
        if not isinstance(seat, dict):
            raise BoardError(f"{where}: seat {i} must be a table, not {seat!r}")
        for key in ("button", "led"):
            if key not in seat:
                raise BoardError(f"{where}: seat {i} has no {key}")
        extra = set(seat) - {"button", "led"}
        if extra:
            raise BoardError(f"{where}: seat {i} has unknown field {sorted(extra)[0]!r}")
        seats.append(Seat(button=_pin(seat["button"], f"seat {i} button", where),
                          led=_pin(seat["led"], f"seat {i} led", where)))
    pinout = Pinout(seats=tuple(seats),
                    status_led=_pin(data["status_led"], "status_led", where),
                    bounce_time=_seconds(data, "bounce_time", 0.02, where),
                    hold_time=_seconds(data, "hold_time", 2.0, where),
                    source=where)
    seen: dict[int, str] = {}
    for pin, use in pinout.uses():
        if pin in seen:
            raise BoardError(f"{where}: pin GPIO{pin} is named twice: {seen[pin]} and {use}")
        seen[pin] = use
    return pinout


def load_pinout(path: Path | None = None) -> Pinout:
    """The pinout in ``path`` (default: the shipped ``hardware/pinout.toml``).
    Raises ``BoardError`` for a file that cannot be read or is malformed."""
    path = Path(path) if path is not None else data_path("hardware", "pinout.toml")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise BoardError(f"pinout {str(path)!r} cannot be read: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise BoardError(f"pinout {str(path)!r} is not valid TOML: {exc}") from None
    return parse_pinout(data, where=str(path))
