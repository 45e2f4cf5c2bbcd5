"""The referee benchmark runs, and its trials are judged right when heard perfectly."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from companion.events import Say

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import backends  # noqa: E402
import trials as tr  # noqa: E402


@pytest.mark.parametrize("family", list(tr.FAMILIES))
def test_a_perfect_ear_gets_every_verdict_right(family: str) -> None:
    # What each trial's player said, heard exactly at its true onset: the
    # plan and the engine must agree on every verdict, or the benchmark
    # would blame recognizers for its own errors.
    planned = tr.plan(60, family, seed=5)
    assert {t.kind for t in planned} == set(tr.KINDS)
    for trial in planned:
        says = []
        if trial.text is not None:
            onset = trial.t0 + tr.PRE_ROLL + trial.delay
            text = " ".join(backends.to_game_words(trial.text))
            says = [Say(t=onset, text=text, end=onset + 0.5)]
        verdict = tr.judge(trial, says)
        assert verdict.verdict == trial.expected, trial
        if says:
            assert verdict.onset == pytest.approx(tr.PRE_ROLL + trial.delay)


def test_silence_on_a_racketeer_card_is_a_hesitation() -> None:
    trial = next(t for t in tr.plan(30, "piper", seed=2) if t.card == "racketeer")
    assert tr.judge(trial, []).verdict == "mistake:hesitation"


def test_free_transcripts_map_to_game_words() -> None:
    assert backends.to_game_words("Five, 6!") == ["five", "six"]
    assert backends.to_game_words("5-6.") == ["five", "six"]
    assert backends.to_game_words("Hmm. for") == ["hmmrrr", "four"]
    assert backends.to_game_words("pass the crisps") == ["pass", "the", "crisps"]
    split = backends.mapped("5-6", 1.0, 1.4, 0.9)
    assert [(h.text, h.onset, h.end) for h in split] == [("five", 1.0, 1.2), ("six", 1.2, 1.4)]


ROW = re.compile(r"^\| (?P<backend>[\w-]+) \| (?P<cond>[^|]+?) \| (?P<fam>[\w-]+) \|(?P<rest>.*)$")


def _figure(text: str) -> float | None:
    text = text.strip()
    if text == "n/a":
        return None
    return float(text.rstrip("%"))


@pytest.mark.slow
def test_quick_bench_prints_every_condition_with_sane_figures(tmp_path: Path) -> None:
    out = tmp_path / "results.md"
    run = subprocess.run(
        [sys.executable, str(BENCH / "referee.py"), "--quick", "--backends",
         "companion-pocketsphinx,companion-vosk", "--out", str(out)],
        capture_output=True, text=True, timeout=900, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    text = run.stdout
    assert out.read_text().strip() == text.strip()
    assert text.startswith("Machine: ")
    rows = {}
    for line in text.splitlines():
        m = ROW.match(line)
        if m and m["backend"] == "companion-pocketsphinx" and m["cond"] in tr.CONDITIONS:
            rows[(m["cond"], m["fam"])] = [c.strip() for c in m["rest"].strip(" |").split("|")]
    assert set(rows) == {(c, f) for c in tr.CONDITIONS for f in tr.FAMILIES}
    for cells in rows.values():
        n, acc, false_m, missed, on_med, on_p95, rtf, cpu_rtf, lat_med, lat_p95 = cells
        assert int(n) == 4
        for pct in (acc, false_m, missed):
            value = _figure(pct)
            assert value is None or 0.0 <= value <= 100.0
        assert _figure(acc) is not None
        for ms in (on_med, on_p95):
            value = _figure(ms)
            assert value is None or 0.0 <= value <= 10_000
        for figure in (rtf, cpu_rtf):
            value = _figure(figure)
            assert value is not None and 0.0 < value < 20.0
        for ms in (lat_med, lat_p95):
            value = _figure(ms)
            assert value is None or -10_000 <= value <= 60_000
        if _figure(on_med) is not None and _figure(on_p95) is not None:
            assert _figure(on_med) <= _figure(on_p95)  # type: ignore[operator]
    assert "Targets (issue 3) for the default recognizer, companion-pocketsphinx" in text
    memory = re.search(r"^\| companion-pocketsphinx \| (\d+) \| ([\d.]+) \|", text, re.M)
    assert memory is not None and 10 < int(memory[1]) < 4000
    baseline = re.search(r"^\| baseline \| (\d+) \|", text, re.M)
    assert baseline is not None and int(baseline[1]) <= int(memory[1])
    # No English vosk model here: the vosk path says it was skipped and why.
    vosk = re.search(r"^\| companion-vosk \| (skipped|\d+) \|.*$", text, re.M)
    assert vosk is not None
    if vosk[1] == "skipped":
        assert "vosk model" in vosk[0]
