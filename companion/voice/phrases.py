"""Rulings as sentences a table understands at once.

``sentence(ruling, pack)`` fills the pack's template for the ruling's type
(``mistake.<kind>`` for mistakes, ``scores.<label>`` for scores and
``<type>.<reason>`` for rulings with a ``reason``, when the pack has one) with
the ruling's fields. Lists are said as words joined by commas;
``{cards_noun}`` is "card" or "cards"; ``{<field>_said}`` is a list of
words said in one breath ("eleven twelve"). A pack table ``[words.<name>]`` says
codes as words: ``{<field>_<name>}`` is the field's value (or each item of a
list) looked up there, e.g. ``{legal_plural}`` -> "threes, fours, fives",
and ``{<field>_<name>_or}`` the same with "or" before the last ("threes,
fours or fives").
A mapping is said as "name value" pairs ("Beth 1, Carter 2"), or "nobody"
when empty.

Two forms per ruling: ``[phrases]`` is what the companion says (short:
under 3 s at the table's pace, ``bench/spoken.py``), ``[shown]`` what the
page and the terminal write (the details); ``sentence(..., shown=True)``
falls back to the spoken form. ``spoken_lines`` says one event's rulings,
using ``<key>.same`` phrases for a player the event already named.
``[undo]`` says an undone event in words (``undo_words``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from companion.events import Event
from companion.rulings import Ruling
from companion.voice.pack import VoicePack


class _Fields(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _spoken(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return ", ".join(str(_spoken(v)) for v in value) or "nothing"
    if isinstance(value, dict):
        return ", ".join(f"{k} {_spoken(v)}" for k, v in value.items()) or "nobody"
    return value


def _shown_table(pack: VoicePack) -> dict[str, str]:
    out: dict[str, str] = {}

    def walk(prefix: str, table: dict[str, Any]) -> None:
        for key, value in table.items():
            if isinstance(value, dict):
                walk(f"{prefix}{key}.", value)
            elif isinstance(value, str):
                out[f"{prefix}{key}"] = value

    walk("", pack.extra.get("shown", {}))
    return out


def _keys(ruling: Ruling, data: dict[str, Any]) -> list[str]:
    key = ruling.type
    out = []
    if key == "mistake":
        out.append(f"mistake.{data.get('kind')}")
    elif key == "scores":
        out.append(f"scores.{data.get('label')}")
    elif data.get("reason") is not None:
        out.append(f"{key}.{data['reason']}")
    out.append(key)
    return out


def _fill(template: str, data: dict[str, Any], pack: VoicePack) -> str:
    fields = _Fields({k: _spoken(v) for k, v in data.items()})
    for k, v in data.items():  # a list said in one breath: "eleven twelve"
        if isinstance(v, list) and all(isinstance(x, str) for x in v):
            fields[f"{k}_said"] = " ".join(v) or "nothing"
    if isinstance(data.get("cards"), int):
        fields["cards_noun"] = "card" if data["cards"] == 1 else "cards"
    for name, words in pack.extra.get("words", {}).items():
        for k, v in data.items():
            items = v if isinstance(v, list) else [v]
            if items and all(isinstance(x, str) and x in words for x in items):
                said = [words[x] for x in items]
                fields[f"{k}_{name}"] = _spoken(said)
                fields[f"{k}_{name}_or"] = (f"{_spoken(said[:-1])} or {said[-1]}"
                                            if len(said) > 1 else said[0])
    return template.format_map(fields).strip()


def sentence(ruling: Ruling, pack: VoicePack, *, shown: bool = False,
             undone: Mapping[str, Any] | None = None, same: bool = False) -> str:
    """The sentence for a ruling, or "" when the pack says nothing for it.

    ``shown``: the written form for the page and the terminal (the pack's
    ``[shown]`` table, with the details a spoken ruling leaves out), falling
    back to the spoken one (``[phrases]``). ``undone``: for an ``undone``
    ruling, the event it removed (its JSON object), said in the pack's
    ``[undo]`` words ("Beth's flip of a gun"). ``same``: the ruling follows
    one about the same player in the same breath, so a ``<key>.same``
    phrase, when the pack has one, is used (spoken "Abby, wrong! ..." needs
    no "Abby takes 11 cards")."""
    data = ruling.to_dict()
    if ruling.type == "undone":
        data["undone"] = undo_words(data.get("what"), undone, pack)
    keys = _keys(ruling, data)
    if same and not shown:
        keys = [f"{k}.same" for k in keys] + keys
    tables = [_shown_table(pack), pack.phrases] if shown else [pack.phrases]
    for key in keys:  # the most specific key first, written before spoken
        for table in tables:
            if key in table:
                return _fill(table[key], data, pack)
    return ""


_NAMING = ("player", "starter", "claimant", "accused", "target")


def _names(ruling: Ruling) -> list[str]:
    return [v for f in _NAMING if isinstance(v := getattr(ruling, f, None), str)]


def spoken_lines(rulings: Sequence[Ruling], pack: VoicePack, *,
                 undone: Mapping[str, Any] | None = None) -> list[str]:
    """What the companion says for the rulings of one event, one line per
    ruling ("" for a ruling it does not say). A ruling whose player (or
    starter) an earlier ruling of the event already named uses the pack's
    ``.same`` form when there is one, so "Abby, wrong, five not one." is not
    followed by "Abby takes 11 cards. New round. Abby starts at one." (the
    page shows those)."""
    named: set[str] = set()
    out = []
    for ruling in rulings:
        names = _names(ruling)
        same = bool(names) and names[0] in named
        named.update(names)
        out.append(sentence(ruling, pack, undone=undone, same=same))
    return out


def undo_words(what: Any, event: Mapping[str, Any] | None, pack: VoicePack) -> str:
    """The undone event in words, from the pack's ``[undo]`` table: the
    template for the event's type whose fields the event has ("Beth's flip
    of a gun"), else the type's ``.short`` form ("Beth's flip"), else the
    pack's ``any`` ("the last move"). ``what``: the event's type."""
    table = pack.extra.get("undo", {})
    fallback = str(table.get("any", "the last move"))
    if not isinstance(what, str):
        return fallback
    entry = table.get(what)
    data = {k: v for k, v in (event or {}).items() if v is not None and v != [] and v != {}}
    candidates = []
    if isinstance(entry, str):
        candidates.append(entry)
    elif isinstance(entry, dict):
        candidates += [str(v) for k, v in entry.items() if k in ("full", "short")]
    for template in candidates:
        needed = re.findall(r"{(\w+)}", template)
        fields = _fields_for(data, pack)
        if all(n in fields for n in needed):
            return template.format_map(fields)
    return fallback


def _fields_for(data: dict[str, Any], pack: VoicePack) -> dict[str, Any]:
    fields: dict[str, Any] = {k: _spoken(v) for k, v in data.items()}
    for name, words in pack.extra.get("words", {}).items():
        for k, v in data.items():
            items = v if isinstance(v, list) else [v]
            if items and all(isinstance(x, str) and x in words for x in items):
                fields[f"{k}_{name}"] = _spoken([words[x] for x in items])
    if isinstance(data.get("by"), list):
        fields["by"] = _spoken(data["by"])
    return fields


def describe(item: Event | Ruling) -> str:
    """A short plain description of an event or a ruling, for logs and the
    demo ("Abby flips a racketeer.", "call ok: Abby, count 1")."""
    data = item.to_dict()
    kind = data.pop("type")
    data.pop("t", None)
    if kind == "flip":
        card = str(data.get("card") or "card").replace("_", " ")
        return f"{data['player']} flips a {card}."
    if kind == "say":
        return f"heard \u201c{data['text']}\u201d"
    fields = ", ".join(f"{k} {_spoken(v)}" for k, v in data.items())
    return f"{kind.replace('_', ' ')}: {fields}" if fields else kind.replace("_", " ")


def respelled(text: str, pack: VoicePack) -> str:
    """``text`` with the pack's respellings applied word by word, for espeak-ng."""
    out = []
    for word in text.split(" "):
        core = word.strip(".,!?:;")
        if core.lower() in pack.respell:
            word = word.replace(core, pack.respell[core.lower()])
        out.append(word)
    return " ".join(out)
