"""``bench/arrays.py --redecide``: recorded evidence decided again with
today's decision. The records are made up here (the shape ``--evidence``
writes); the decision is the real one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

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



def test_the_best_seat_is_the_estimate_nearest_the_callers_word(tmp_path: Path) -> None:
    """``bench/arrays.py``'s judging of one made-up round: the best seat is
    the leading seat of the estimate the ear made nearest the word's onset
    less ``WORD_LEAD_S``, sure or not; the seat found is the say's (sure)
    seat. A call with no estimate near it counts for neither."""
    sys.path.insert(0, str(BENCH))
    import arrays
    import roomsim

    from companion.events import Say

    calls = [roomsim.CallTruth("Abby", 1.0, 1, "one", "right", 2.0, 2.1, 2.5),
             roomsim.CallTruth("Beth", 4.0, 2, "two", "right", 5.0, 5.2, 5.6),
             roomsim.CallTruth("Carter", 7.0, 3, "three", "right", 8.0, 8.1, 8.5)]
    rendered = roomsim.Rendered(tmp_path / "r.jsonl", "talk10", "usb4",
                                {"Abby": 0.0, "Beth": 90.0, "Carter": 180.0}, calls)
    rulings = [SimpleNamespace(type="call_ok", t=t, player=p)  # (as the engine's rulings read)
               for t, p in ((2.1, "Abby"), (5.2, "Beth"), (8.1, "Carter"))]
    says = [Say(t=2.1, text="one", confidence=1.0, seat="Abby"),
            Say(t=5.2, text="two", confidence=1.0, seat=None),
            Say(t=8.1, text="three", confidence=1.0, seat=None)]
    # Beth's word: an unsure estimate naming her at her word, another seat's
    # further off; Carter's: none near his call.
    estimates = [(2.0, "Abby"), (4.3, "Carter"), (5.1, "Beth"), (5.25, "Abby"), (9.5, "Carter")]
    cell = arrays.Cell()
    arrays._judge(rendered, rulings, says, cell, "usb4", estimates)
    assert (cell.calls, cell.right, cell.seat_found, cell.seat_wrong) == (3, 3, 1, 0)
    assert cell.seat_best == 2
    assert "best seat right" in arrays.table({("usb4", "talk10"): cell})
