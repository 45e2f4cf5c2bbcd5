"""The setup form's option fields, generated from a game's ``Options`` struct.

``option_fields(Options)`` walks the msgspec struct (nested structs such as a
deck composition become dotted names, ``composition.gun``) and gives one
``OptionField`` per leaf: its input kind, its default, its bounds and its
help text. The help comes from the struct's docstring, where each game
documents its options as ``name``: text (the convention of ``games/base.py``).
The page turns the inputs back into nested JSON for ``POST /api/games``, and
the engine validates them (``OptionError`` naming the field).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import msgspec
import msgspec.inspect as mi


@dataclass(frozen=True)
class OptionField:
    """One input of the setup form.

    ``name``: dotted path in the options JSON. ``kind``: ``bool``, ``int``,
    ``float``, ``text``, ``choice`` or ``json`` (anything else, typed as JSON).
    ``default``: the documented default (JSON builtins). ``minimum``/``maximum``:
    bounds from the type's constraints, if any. ``choices``: for ``choice``.
    ``optional``: None is allowed (an empty input means None)."""

    name: str
    label: str
    kind: str
    default: Any
    help: str = ""
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[Any, ...] = ()
    optional: bool = False


_DOC_FIELD = re.compile(r"``(\w+)``:\s*(.*?)(?=\s``\w+``:|\Z)", re.S)


def field_help(struct: type[msgspec.Struct]) -> dict[str, str]:
    """Help text per field from a struct docstring written as ``name``: text."""
    doc = struct.__doc__ or ""
    out: dict[str, str] = {}
    for name, text in _DOC_FIELD.findall(doc):
        out.setdefault(name, " ".join(text.replace("``", "").split()))
    return out


def _default(info: mi.Field) -> Any:
    if info.default is not mi.NODEFAULT:
        return msgspec.to_builtins(info.default)
    if info.default_factory is not mi.NODEFAULT:
        return msgspec.to_builtins(info.default_factory())
    return None


def _leaf(name: str, label: str, typ: mi.Type, default: Any, help_text: str) -> OptionField:
    optional = False
    if isinstance(typ, mi.UnionType):
        rest = [t for t in typ.types if not isinstance(t, mi.NoneType)]
        optional = len(rest) < len(typ.types)
        if len(rest) == 1:
            typ = rest[0]
    common = {"name": name, "label": label, "default": default, "help": help_text,
              "optional": optional}
    if isinstance(typ, mi.BoolType):
        return OptionField(kind="bool", **common)
    if isinstance(typ, mi.IntType | mi.FloatType):
        low = typ.ge if typ.ge is not None else typ.gt
        high = typ.le if typ.le is not None else typ.lt
        kind = "int" if isinstance(typ, mi.IntType) else "float"
        return OptionField(kind=kind, minimum=low, maximum=high, **common)
    if isinstance(typ, mi.LiteralType):
        return OptionField(kind="choice", choices=tuple(typ.values), **common)
    if isinstance(typ, mi.StrType):
        return OptionField(kind="text", **common)
    return OptionField(kind="json", **common)


def option_fields(options_type: type[msgspec.Struct], prefix: str = "") -> list[OptionField]:
    """Every leaf option of ``options_type`` in declaration order."""
    info = mi.type_info(options_type)
    assert isinstance(info, mi.StructType)
    helps = field_help(options_type)
    out: list[OptionField] = []
    for f in info.fields:
        name = f"{prefix}{f.encode_name}"
        label = name.replace(".", ": ").replace("_", " ")
        if isinstance(f.type, mi.StructType):
            out.extend(option_fields(f.type.cls, prefix=f"{name}."))
            continue
        out.append(_leaf(name, label, f.type, _default(f), helps.get(f.name, "")))
    return out
