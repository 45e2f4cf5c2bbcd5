"""Reading JSON that comes from outside: a phone's request or a session line.

``loads(data)`` decodes with the standard library's ``json`` and then checks
what a table could ever need, so that nothing further in can fail on the
shape of the input:

* the bytes are UTF-8 without a byte-order mark;
* only standard JSON: no ``NaN`` / ``Infinity`` literals, no number that
  overflows to infinity (``1e400``), no integer outside a signed 64-bit
  range (what SQLite and msgspec store);
* nested at most ``MAX_DEPTH`` deep (an event or a header needs four;
  30,000 brackets would exhaust the interpreter's recursion limit);
* strings hold no lone surrogate (``"\\ud800"`` cannot be written as UTF-8).

Every refusal is a ``JSONInputError`` (a ``ValueError``) whose ``field`` is
the dotted path of the offending value (``options.seed``, ``players[2]``),
or None for the text as a whole; messages quote at most ``SHORT`` characters
of a bad value (``short``).
"""

from __future__ import annotations

import json
import math
from typing import Any

from companion.errors import JSONInputError

MAX_DEPTH = 32
"""Deepest nesting of arrays and objects accepted."""
INT_LIMIT = 2**63
"""Integers must lie in ``-INT_LIMIT .. INT_LIMIT - 1``."""
SHORT = 40
"""Characters of a bad value an error message may quote."""


def short(value: Any, limit: int = SHORT) -> str:
    """``repr(value)``, cut to ``limit`` characters with an ellipsis."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def _constant(name: str) -> Any:
    raise JSONInputError(f"{name} is not a JSON number")


def _path(parent: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{parent}[{key}]"
    return f"{parent}.{key}" if parent else key


def check_value(obj: Any) -> None:
    """Raise ``JSONInputError`` naming the path of the first value in ``obj``
    (decoded JSON) that breaks the rules of the module docstring."""
    stack: list[tuple[Any, str, int]] = [(obj, "", 0)]
    while stack:
        value, path, depth = stack.pop()
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise JSONInputError("text holds a lone surrogate (not Unicode)",
                                     field=path or None) from None
        elif isinstance(value, bool) or value is None:
            continue
        elif isinstance(value, int):
            if not -INT_LIMIT <= value < INT_LIMIT:
                raise JSONInputError(f"the number {short(value)} is too large",
                                     field=path or None)
        elif isinstance(value, float):
            if not math.isfinite(value):
                raise JSONInputError("the number is too large (not finite)", field=path or None)
        elif isinstance(value, list | dict):
            if depth >= MAX_DEPTH:
                raise JSONInputError(f"nested more than {MAX_DEPTH} deep", field=path or None)
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                if isinstance(key, str) and not key.isascii():
                    stack.append((key, path, depth + 1))  # a key is text too
                stack.append((item, _path(path, key), depth + 1))


def loads(data: bytes | str) -> Any:
    """Decode and check one JSON text; raise ``JSONInputError`` (field None
    for text that is not JSON at all, else the path of the bad value)."""
    if isinstance(data, bytes):
        if data.startswith(b"\xef\xbb\xbf"):
            raise JSONInputError("the text starts with a byte-order mark; save it as "
                                 "UTF-8 without one")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JSONInputError(f"not UTF-8 text (byte {exc.start})") from None
    else:
        text = data
        if text.startswith("\ufeff"):
            raise JSONInputError("the text starts with a byte-order mark; save it as "
                                 "UTF-8 without one")
    try:
        obj = json.loads(text, parse_constant=_constant)
    except JSONInputError:
        raise
    except RecursionError:
        raise JSONInputError(f"nested more than {MAX_DEPTH} deep") from None
    except json.JSONDecodeError as exc:
        raise JSONInputError(f"not valid JSON ({exc.msg} at character {exc.pos})") from None
    except ValueError as exc:  # an integer of more than 4,300 digits
        raise JSONInputError(f"not valid JSON ({short(str(exc), 80)})") from None
    check_value(obj)
    return obj
