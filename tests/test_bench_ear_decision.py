"""bench/ear_decision.py's ``--kept`` hearing: the evidence of whole replays
heard as the benchmark's human table hears them (one recognizer kept over
the evening), on two of the shared human-voice sessions (real FSDD voices,
../shared/human-calls), with real pocketsphinx."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from bench.ear_decision import kept_evidence, to_evidence
from companion.referee.decision import decide

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import human


@pytest.mark.slow
def test_kept_hearing_records_each_utterance_and_reads_it_back(tmp_path: Path) -> None:
    data = human.default_data()
    if not (data / "dev" / "truth.jsonl").is_file():
        pytest.skip(f"no shared human-voice sessions in {data}")
    rows = kept_evidence(data, tmp_path, ["clean"], limit=2)
    outs = sorted((tmp_path / "dev" / "clean").glob("*.out.jsonl"))
    assert [o.name for o in outs] == ["s000.out.jsonl", "s001.out.jsonl"]
    truth = {t["session"]: t for t in map(json.loads, (data / "dev" / "truth.jsonl")
                                          .read_text().splitlines())}
    judged = 0
    for out in outs:
        kept = json.loads(out.read_text())
        mine = [r for r in rows if r["session"] == kept["session"]]
        assert [r["outcome"] for r in mine] == [e["outcome"] for e in kept["evidence"]]
        # Each right call the replay ruled right has an utterance in its
        # window that the decision, given the recorded evidence and the call
        # owed from the truth, rules right again.
        for result, call in zip(human.judge_session(truth[kept["session"]], kept["rulings"]),
                                truth[kept["session"]]["calls"], strict=True):
            if call["kind"] != "right" or result["verdict"] != "right":
                continue
            inside = [r for r in mine if call["flip_t"] <= r["onset"] < call["window_end"]]
            owed = tuple(call["expected"].split())
            assert any(decide(to_evidence(r, owed)).outcome == "right" for r in inside), call
            judged += 1
    assert judged >= 5
    # Read back, not heard again: the files are the record.
    for out in outs:
        out.write_text(out.read_text().replace('"outcome": "right"', '"outcome": "kept"'))
    again = kept_evidence(data, tmp_path, ["clean"], limit=2)
    assert len(again) == len(rows)
    assert {r["outcome"] for r in again} <= {"kept", "unsure", "talk", "mistake"}
    assert any(r["outcome"] == "kept" for r in again)
