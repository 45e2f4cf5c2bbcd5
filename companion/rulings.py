"""Rulings: what the companion decides and says, as typed, tagged structs.

A ruling has a ``type`` tag, the time ``t`` (seconds on the table clock) at
which it was made, and fields of its own. ``companion replay`` prints one JSON
object per ruling per line; the voice pack turns each into a sentence.

This module holds the rulings every game shares; each game module adds its own.
"""

from __future__ import annotations

from typing import Any

import msgspec


class Ruling(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", omit_defaults=True):
    """Base of all rulings. ``t``: seconds on the table clock."""

    t: float

    @property
    def type(self) -> str:
        """The ruling's tag, as printed by ``companion replay``."""
        return str(type(self).__struct_config__.tag)

    def to_dict(self) -> dict[str, Any]:
        """The ruling as plain JSON-able builtins, ``type`` included."""
        out = msgspec.to_builtins(self)
        assert isinstance(out, dict)
        return out

    def to_json(self) -> bytes:
        """The ruling as one JSON line (no newline)."""
        return msgspec.json.encode(self)


class Undone(Ruling, frozen=True, kw_only=True, tag="undone"):
    """The effect of the event of type ``what`` at time ``at`` was removed."""

    what: str
    at: float


class Winner(Ruling, frozen=True, kw_only=True, tag="winner"):
    """``player`` has won; the game is over."""

    player: str


class Scores(Ruling, frozen=True, kw_only=True, tag="scores"):
    """Per-player figures. ``scores``: the game's main figure per player
    (cards left, lives, points); ``label``: what that figure counts."""

    scores: dict[str, int]
    label: str
