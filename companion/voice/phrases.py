"""Rulings as sentences a table understands at once.

``sentence(ruling, pack)`` fills the pack's template for the ruling's type
(``mistake.<kind>`` for mistakes, ``scores.<label>`` for scores and
``<type>.<reason>`` for rulings with a ``reason``, when the pack has one) with
the ruling's fields. Lists are said as words joined by commas;
``{cards_noun}`` is "card" or "cards". A pack table ``[words.<name>]`` says
codes as words: ``{<field>_<name>}`` is the field's value (or each item of a
list) looked up there, e.g. ``{legal_plural}`` -> "threes, fours, fives",
and ``{<field>_<name>_or}`` the same with "or" before the last ("threes,
fours or fives").
A mapping is said as "name value" pairs ("Beth 1, Carter 2"), or "nobody"
when empty.
"""

from __future__ import annotations

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


def sentence(ruling: Ruling, pack: VoicePack) -> str:
    """The sentence for a ruling, or "" when the pack says nothing for it."""
    data = ruling.to_dict()
    key = ruling.type
    if key == "mistake" and f"mistake.{data.get('kind')}" in pack.phrases:
        key = f"mistake.{data['kind']}"
    elif key == "scores" and f"scores.{data.get('label')}" in pack.phrases:
        key = f"scores.{data['label']}"
    elif f"{key}.{data.get('reason')}" in pack.phrases:
        key = f"{key}.{data['reason']}"
    template = pack.phrases.get(key)
    if template is None:
        return ""
    fields = _Fields({k: _spoken(v) for k, v in data.items()})
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
