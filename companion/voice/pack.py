"""Voice packs: ``voices/<language>/pack.toml``.

A pack holds the words to listen for (``[lexicon]``: count words, phone
sounds, claim words, "cheat"), respellings for espeak-ng (``[respell]``) and
the sentences spoken for rulings (``[phrases]``). ``load_pack("en")`` reads
one; ``VoicePack.lexicon`` feeds the pure engines.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import msgspec

from companion.errors import VoicePackError
from companion.games.lexicon import Lexicon
from companion.resources import data_path


@dataclass(frozen=True)
class VoicePack:
    """A parsed voice pack.

    ``language``: the pack's folder name (``en``, ``ko``). ``espeak_voice``:
    the espeak-ng voice for speaking it. ``phrases``: ruling type (or
    ``mistake.<kind>``) -> sentence template. ``extra``: any other tables of
    the pack (for example the recognizer's spellings), untouched."""

    language: str
    name: str
    espeak_voice: str
    lexicon: Lexicon
    phrases: dict[str, str]
    respell: dict[str, str] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None


def _flatten(prefix: str, table: dict[str, Any], out: dict[str, str]) -> None:
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            _flatten(f"{name}.", value, out)
        elif isinstance(value, str):
            out[name] = value
        else:
            raise VoicePackError(f"phrase {name!r} must be a string, not {value!r}")


def parse_pack(data: dict[str, Any], *, language: str, path: Path | None = None) -> VoicePack:
    """A voice pack from its parsed TOML. Raises ``VoicePackError``."""
    try:
        lexicon = msgspec.convert(data.get("lexicon", {}), Lexicon)
    except msgspec.ValidationError as exc:
        raise VoicePackError(f"voice pack {language!r}: bad [lexicon]: {exc}") from None
    phrases: dict[str, str] = {}
    _flatten("", data.get("phrases", {}), phrases)
    known = {"language", "name", "espeak_voice", "lexicon", "phrases", "respell"}
    return VoicePack(
        language=str(data.get("language", language)),
        name=str(data.get("name", language)),
        espeak_voice=str(data.get("espeak_voice", language)),
        lexicon=lexicon,
        phrases=phrases,
        respell={str(k): str(v) for k, v in data.get("respell", {}).items()},
        extra={k: v for k, v in data.items() if k not in known},
        path=path,
    )


@cache
def load_pack(language: str = "en") -> VoicePack:
    """The installed voice pack for ``language``. Raises ``VoicePackError``."""
    try:
        path = data_path("voices", language, "pack.toml")
    except FileNotFoundError:
        raise VoicePackError(f"no voice pack for language {language!r}") from None
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise VoicePackError(f"voice pack {str(path)!r} cannot be read: {exc}") from None
    return parse_pack(data, language=language, path=path)


def lexicon_for_header(header: dict[str, Any]) -> Lexicon:
    """The lexicon a session header asks for (its ``voice``, default ``en``)."""
    return load_pack(str(header.get("voice", "en"))).lexicon
