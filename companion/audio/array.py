"""Microphone arrays and where the seats are around them.

``MicArray``: the microphones' positions (metres from the companion's
centre: x and y in the table plane, z up) and which capture channel carries
each. The supported arrays are described in ``hardware/arrays.toml``
(``load_array("usb4")``); a TOML file with one ``[array]`` table describes
another (``load_array("my-array.toml")``).

``Seating``: the array plus each player's azimuth (degrees, counter-clockwise
from the x axis, as seen from above), what a session header's
``"microphones"`` and ``"seats"`` give (docs/session-format.md) and what the
seat setup stores with a live game.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from companion.errors import CompanionError
from companion.resources import data_path


class ArrayError(CompanionError, ValueError):
    """A microphone array or a seat azimuth that cannot be used; ``field``
    names the offending field (``microphones``, ``seats``, ``channels``)."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


MAX_RADIUS_M = 0.5
"""A microphone further than this many metres from the centre is refused
(a typo in centimetres rather than metres)."""


@dataclass(frozen=True)
class MicArray:
    """Microphone positions ``positions`` (shape ``(M, 3)``, metres, x/y in
    the table plane, z up) carried by capture channels ``channels`` (``M``
    0-based channel numbers of the device, in the same order)."""

    name: str
    positions: tuple[tuple[float, float, float], ...]
    channels: tuple[int, ...]
    description: str = ""

    @property
    def size(self) -> int:
        """The number of microphones ``M``."""
        return len(self.positions)

    def matrix(self) -> npt.NDArray[np.float64]:
        """The positions as an ``(M, 3)`` array in metres."""
        return np.asarray(self.positions, dtype=np.float64)


Positions = tuple[tuple[float, float, float], ...]


def check_positions(value: Any, *, field: str = "microphones") -> Positions:
    """Microphone positions from JSON/TOML: a list of at least two ``[x, y, z]``
    (or ``[x, y]``, z = 0) in metres. Raises ``ArrayError`` naming ``field``."""
    if not isinstance(value, list) or len(value) < 2:
        raise ArrayError(f"{field} must be a list of at least two [x, y, z] positions "
                         f"in metres, not {value!r}", field=field)
    out: list[tuple[float, float, float]] = []
    for i, pos in enumerate(value):
        ok = (isinstance(pos, list) and len(pos) in (2, 3)
              and all(isinstance(c, int | float) and not isinstance(c, bool)
                      and math.isfinite(c) for c in pos))
        if not ok:
            raise ArrayError(f"{field}[{i}] must be [x, y, z] in metres, not {pos!r}",
                             field=field)
        x, y, z = (float(c) for c in (*pos, 0.0)[:3])
        if math.hypot(x, y, z) > MAX_RADIUS_M:
            raise ArrayError(f"{field}[{i}] is {math.hypot(x, y, z):.2f} m from the centre: "
                             "positions are in metres", field=field)
        out.append((x, y, z))
    if len(set(out)) != len(out):
        raise ArrayError(f"{field} has two microphones at the same place", field=field)
    return tuple(out)


def check_seats(value: Any, players: Sequence[str], *, field: str = "seats") -> dict[str, float]:
    """Seat azimuths from JSON: ``{"Abby": 0.0, ...}``, degrees counter-clockwise
    from the x axis, one per player (every player at the table). Returned in
    the players' order, each in ``[0, 360)``. Raises ``ArrayError``."""
    if not isinstance(value, dict):
        raise ArrayError(f"{field} must map each player to an azimuth in degrees, "
                         f"not {value!r}", field=field)
    for name in value:
        if name not in players:
            raise ArrayError(f"{field} names {name!r}, who is not at the table", field=field)
    out: dict[str, float] = {}
    for name in players:
        if name not in value:
            raise ArrayError(f"{field} has no azimuth for {name!r}", field=field)
        az = value[name]
        if not isinstance(az, int | float) or isinstance(az, bool) or not math.isfinite(az):
            raise ArrayError(f"{field}[{name!r}] must be degrees, not {az!r}", field=field)
        out[name] = float(az) % 360.0
    return out


def array_from_table(name: str, table: Mapping[str, Any]) -> MicArray:
    """A ``MicArray`` from one TOML table (``microphones``, optional
    ``channels``: default 0..M-1, optional ``description``). Raises
    ``ArrayError``."""
    positions = check_positions(table.get("microphones"))
    channels = table.get("channels", list(range(len(positions))))
    if (not isinstance(channels, list) or len(channels) != len(positions)
            or not all(isinstance(c, int) and not isinstance(c, bool) and c >= 0
                       for c in channels) or len(set(channels)) != len(channels)):
        raise ArrayError(f"channels must be {len(positions)} different channel numbers, "
                         f"one per microphone, not {channels!r}", field="channels")
    return MicArray(name=name, positions=positions, channels=tuple(channels),
                    description=str(table.get("description", "")))


def shipped_arrays() -> dict[str, MicArray]:
    """The arrays described in ``hardware/arrays.toml``, by name."""
    with data_path("hardware", "arrays.toml").open("rb") as fh:
        data = tomllib.load(fh)
    return {name: array_from_table(name, table) for name, table in data.items()}


def load_array(spec: str) -> MicArray:
    """The array ``spec`` names: a shipped one (``usb4``, ``hat6``) or a TOML
    file with one ``[array]`` table. Raises ``ArrayError`` for an unknown
    name or a bad file, ``OSError`` for an unreadable file."""
    shipped = shipped_arrays()
    if spec in shipped:
        return shipped[spec]
    path = Path(spec)
    if not path.is_file():
        raise ArrayError(f"no array {spec!r}: give one of {sorted(shipped)} or a TOML file",
                         field="array")
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ArrayError(f"{spec!r} is not TOML: {exc}", field="array") from None
    table = data.get("array")
    if not isinstance(table, dict):
        raise ArrayError(f"{spec!r} needs an [array] table", field="array")
    return array_from_table(path.stem, table)


@dataclass(frozen=True)
class Seating:
    """An array and where each player sits: ``seats`` maps each player to
    an azimuth in degrees (counter-clockwise from the x axis)."""

    positions: tuple[tuple[float, float, float], ...]
    seats: dict[str, float] = field(default_factory=dict)

    @property
    def players(self) -> list[str]:
        """The seated players, in the table's order."""
        return list(self.seats)

    def azimuth(self, player: str) -> float:
        """The player's azimuth in degrees. Raises ``KeyError``."""
        return self.seats[player]

    def header(self) -> dict[str, Any]:
        """The session header fields that give this seating."""
        return {"microphones": [list(p) for p in self.positions], "seats": dict(self.seats)}


def seating_from_header(header: Mapping[str, Any], players: Sequence[str]) -> Seating | None:
    """The seating a session header gives (``microphones`` and ``seats``),
    None when it gives neither. Raises ``ArrayError`` (naming the field) for a
    bad one, or for one given without the other."""
    mics, seats = header.get("microphones"), header.get("seats")
    if mics is None and seats is None:
        return None
    if mics is None:
        raise ArrayError("seats need microphones: an azimuth is heard by an array",
                         field="microphones")
    if seats is None:
        raise ArrayError("microphones need seats: each player's azimuth", field="seats")
    return Seating(positions=check_positions(mics), seats=check_seats(seats, players))
