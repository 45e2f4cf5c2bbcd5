"""``bench/arrays.py --redecide``: recorded evidence decided again with
today's decision. The records are made up here (the shape ``--evidence``
writes); the decision is the real one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench"
CALLER = {"loud_db": -26.0, "reference_db": -27.0, "floor_dbfs": -60.0}


def utterance(onset: float, owed: str, heard: str, confidence: float,
              recorded: str) -> dict[str, object]:
    word = [heard, 0.3, 0.7, confidence]
    return {"words": [word], "decoded": [word], **CALLER, "expected": [owed],
            "onset": onset, "calls": [[owed]], "outcome": recorded}


def test_redecide_counts_what_the_decision_would_rule_now(tmp_path: Path) -> None:
    calls = [{"player": "Abby", "flip_t": 1.0, "count": 4, "said": "four", "kind": "right",
              "onset_t": 1.6, "end_t": 2.0, "prompt": None},
             {"player": "Beth", "flip_t": 3.0, "count": 5, "said": "two", "kind": "wrong",
              "onset_t": 3.6, "end_t": 4.0, "prompt": None}]
    record = {"seed": 500, "condition": "quiet", "round": 0, "array": "usb4", "calls": calls,
              "rulings": [],
              # A sure "eight" for a four is a mistake today though recorded
              # unsure; a doubtful "two" for a five is unsure though recorded
              # a mistake.
              "evidence": [utterance(1.6, "four", "eight", 0.995, "unsure"),
                           utterance(3.6, "five", "two", 0.5, "mistake")]}
    path = tmp_path / "ev.jsonl"
    path.write_text(json.dumps(record) + "\n")
    out = subprocess.run([sys.executable, str(BENCH / "arrays.py"), "--redecide", str(path)],
                         capture_output=True, text=True, check=True).stdout
    assert "| usb4 | quiet | 1 | 0 -> 1 | 1 | 1 -> 0 |" in out
    assert "Calls whose outcomes changed: 2" in out
    assert "call 0 Abby right 'four': ['unsure'] -> ['mistake']" in out


def test_redecide_names_a_missing_file(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, str(BENCH / "arrays.py"), "--redecide",
                          str(tmp_path / "none.jsonl")], capture_output=True, text=True)
    assert run.returncode == 2
    assert "--redecide: no such file" in run.stderr and "Traceback" not in run.stderr

