"""Every ruling of every game has a sentence for players (issue 19).

The ruling types are found in the code (every ``Ruling`` subclass of every
game module), never listed by hand: a new ruling without a sentence in the
English voice pack fails here. Each is built with plain sample values for its
fields (every value of a ``Literal`` field, such as a mistake's kind or a
challenge's reason, gets its own sentence), and rendered as the page shows it.
"""

from __future__ import annotations

import importlib
import itertools
import pkgutil
from collections.abc import Iterator
from typing import Any

import msgspec
import msgspec.inspect as mi
import pytest

import companion.games
from companion.rulings import Ruling
from companion.voice.pack import load_pack
from companion.voice.phrases import sentence, spoken_lines, undo_words

for _module in pkgutil.iter_modules(companion.games.__path__):
    importlib.import_module(f"companion.games.{_module.name}")


def _subclasses(cls: type) -> Iterator[type]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


RULING_TYPES = sorted(set(_subclasses(Ruling)), key=lambda c: (c.__module__, c.__name__))

NAMES = ["Abigail Rose", "Beth Anne Ko"]


def _sample(name: str, typ: mi.Type) -> list[Any]:
    """Sample values for a field: every value of a Literal, one of anything else."""
    if isinstance(typ, mi.UnionType):
        rest = [t for t in typ.types if not isinstance(t, mi.NoneType)]
        return _sample(name, rest[0]) if rest else [None]
    if isinstance(typ, mi.LiteralType):
        return list(typ.values)
    if isinstance(typ, mi.BoolType):
        return [True]
    if isinstance(typ, mi.IntType):
        return [3]
    if isinstance(typ, mi.FloatType):
        return [1.5]
    if isinstance(typ, mi.ListType | mi.TupleType | mi.VarTupleType):
        return [["5", "7"] if name in ("cards", "legal", "heard") else list(NAMES)]
    if isinstance(typ, mi.DictType):
        value = _sample("value", typ.value_type)[0]
        return [{NAMES[0]: value, NAMES[1]: value}]
    if isinstance(typ, mi.StructType):
        return [{f.encode_name: _sample(f.name, f.type)[0] for f in typ.fields}]
    if isinstance(typ, mi.AnyType):
        return [2]
    if name in ("rank", "after", "was_rank"):
        return ["5"]
    if name in ("kind", "outcome", "reason", "pick", "label", "code", "what"):
        return {"reason": ["no_pick", "same_card", "spent"], "label": ["cards", "lives", "points"],
                "what": ["flip"], "kind": ["shield"], "outcome": ["stands"],
                "pick": ["target"], "code": ["S2"]}[name]
    if name in ("sound", "text", "said"):
        return ["hmmrrr"]
    if name == "card":
        return ["Abigail Rose-2"]
    if name == "value":
        return [2]
    return [NAMES[0] if name != "target" and name != "claimant" else NAMES[1]]


def _instances(cls: type[Ruling]) -> Iterator[Ruling]:
    info = mi.type_info(cls)
    assert isinstance(info, mi.StructType)
    base: dict[str, Any] = {}
    variants: list[tuple[str, list[Any]]] = []
    for f in info.fields:
        values = _sample(f.name, f.type) if f.name != "t" else [1.5]
        base[f.name] = values[0]
        if len(values) > 1:
            variants.append((f.name, values))
    yield msgspec.convert(base, cls)
    for name, values in variants:
        for value in values[1:]:
            yield msgspec.convert({**base, name: value}, cls)


CASES = [r for cls in RULING_TYPES for r in _instances(cls)]


def test_the_ruling_types_are_found_in_the_code() -> None:
    tags = {c.__struct_config__.tag for c in RULING_TYPES}
    # one from each game and the shared ones: the walk reached every module
    assert {"undone", "winner", "mistake", "claim_ok", "attack", "insult",
            "round_scores"} <= tags
    assert len(CASES) > len(RULING_TYPES)


@pytest.mark.parametrize("ruling", CASES, ids=[f"{r.type}-{i}" for i, r in enumerate(CASES)])
def test_every_ruling_shows_as_a_sentence_for_players(ruling: Ruling) -> None:
    text = sentence(ruling, load_pack("en"), shown=True)
    assert text, f"{ruling.type} has no sentence in voices/en/pack.toml: {ruling.to_dict()}"
    assert "{" not in text and "}" not in text, text
    assert "_" not in text, f"an internal name reaches players: {text!r}"
    pairs = [f"{k} {v}" for k, v in ruling.to_dict().items() if k not in ("t", "type")]
    for a, b in itertools.pairwise(pairs):  # no "player Abby count 2" dumps
        assert f"{a} {b}" not in text, f"raw fields in {text!r}"
    assert text[0].isupper() or text[0].isdigit() or text[0] in "\u201c", text


@pytest.mark.parametrize("what", ["flip", "say", "tick", "round_end", "claim", "choose",
                                  "insult", "hearing", "no_such_event"])
def test_undo_says_in_words_what_it_undid(what: str) -> None:
    pack = load_pack("en")
    text = undo_words(what, {"type": what, "t": 2.0, "player": "Beth", "text": "five"}, pack)
    assert text and "_" not in text, text
    assert what not in text.split() or what in ("flip", "insult", "claim"), text


def test_undo_of_a_flip_names_the_player_and_the_card() -> None:
    from companion.rulings import Undone

    pack = load_pack("en")
    ruling = Undone(t=3.0, what="flip", at=2.0)
    flip = {"type": "flip", "t": 2.0, "player": "Beth", "card": "gun"}
    assert sentence(ruling, pack, undone=flip) == "Undone: Beth's flip of a gun."
    inferred = {"type": "flip", "t": 2.0, "player": "Beth"}
    assert sentence(ruling, pack, undone=inferred) == "Undone: Beth's flip."
    tick = {"type": "tick", "t": 2.0}
    assert sentence(ruling, pack, undone=tick) == "Undone: the last move." or \
        sentence(Undone(t=3.0, what="tick", at=2.0), pack, undone=tick) == \
        "Undone: the ruling on time."
    assert sentence(Undone(t=3.0, what="tick", at=2.0), pack) == "Undone: the ruling on time."


def test_a_mistake_is_said_short_and_shown_in_full() -> None:
    from companion.games.nasty7 import Mistake, Pile, Round

    pack = load_pack("en")
    rulings = [Mistake(t=1.0, player="Abby", kind="wrong_number", expected=["one"],
                       heard=["five"]),
               Pile(t=1.0, player="Abby", cards=11), Round(t=1.0, starter="Abby")]
    assert [s for s in spoken_lines(rulings, pack) if s] == ["Abby, wrong, five not one."]
    assert [sentence(r, pack, shown=True) for r in rulings] == [
        "Abby: wrong number. I heard five, it was one.", "Abby takes 11 cards.",
        "New round. Abby starts at one."]
