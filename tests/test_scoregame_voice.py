"""The three scorekeeping games' voice: every ruling they can make has a phrase
in the English pack, totals are spoken per label, and the example sessions
ship in the wheel."""

from __future__ import annotations

import inspect
import subprocess
import sys
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

from companion.games import cheap_shot, finger_guns, rummy_battle
from companion.rulings import Ruling, Scores, Winner
from companion.voice.pack import load_pack
from companion.voice.phrases import sentence

MODULES = [finger_guns, cheap_shot, rummy_battle]
EXAMPLES = ["finger-guns.jsonl", "cheap-shot.jsonl", "rummy-battle.jsonl"]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[1])
def test_every_ruling_of_the_game_has_a_phrase(module: ModuleType) -> None:
    pack = load_pack("en")
    rulings = [cls for _, cls in inspect.getmembers(module, inspect.isclass)
               if issubclass(cls, Ruling) and cls.__module__ == module.__name__]
    assert rulings
    missing = [c.__struct_config__.tag for c in rulings
               if c.__struct_config__.tag not in pack.phrases]
    assert missing == []


@pytest.mark.parametrize(("label", "spoken"), [
    ("points", "Scores: Abby 21, Beth 6."),
    ("lives", "Lives: Abby 21, Beth 6."),
])
def test_totals_are_spoken_per_label(label: str, spoken: str) -> None:
    ruling = Scores(t=0, scores={"Abby": 21, "Beth": 6}, label=label)
    assert sentence(ruling, load_pack("en")) == spoken
    assert sentence(Winner(t=0, player="Abby"), load_pack("en")) == "Abby wins the game!"


def test_the_wheel_ships_the_example_sessions(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parent.parent
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(tmp_path), str(root)], check=True)
    names = zipfile.ZipFile(next(tmp_path.glob("*.whl"))).namelist()
    for example in EXAMPLES:
        assert f"companion/_data/voices/en/examples/{example}" in names
