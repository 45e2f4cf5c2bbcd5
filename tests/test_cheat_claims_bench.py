"""The Cheat claims benchmark (bench/cheat_claims.py): its plan agrees with
the engine, and a small run prints every condition with sane figures."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from companion.events import Say

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import cheat_claims as cc  # noqa: E402
import trials as tr  # noqa: E402


@pytest.mark.parametrize("family", list(tr.FAMILIES))
def test_a_perfect_ear_gets_every_claim_right(family: str) -> None:
    planned = cc.plan(80, family, seed=3)
    assert {t.count for t in planned} == {1, 2, 3, 4}
    for index, trial in enumerate(planned):
        heard = [Say(t=trial.onset, text=trial.text)]
        after = cc.after_rank(trial, index)
        assert cc.judge(trial, heard) == "right", trial
        assert cc.judge(trial, heard, after) == "right", (trial, after)
        assert cc.judge(trial, []) == cc.judge(trial, [], after) == "missed"
    # Mid-pile, the rank before is one below, the same and one above in turn.
    trial = planned[0]
    shifts = {(cc.RANKS.index(cc.after_rank(trial, i)) - cc.RANKS.index(trial.rank)) % 13
              for i in range(3)}
    assert shifts == {12, 0, 1}


def test_each_outcome_of_a_misheard_claim() -> None:
    trial = cc.ClaimTrial(id="x", family="piper", voice="v", text="three fours", count=3,
                          rank="4", onset=0.5)
    assert cc.judge(trial, [Say(t=0.5, text="three fives")]) == "wrong"
    assert cc.judge(trial, [Say(t=0.5, text="three fours", confidence=0.2)]) == "missed"
    assert cc.judge(trial, [Say(t=0.5, text="three fours", confidence=0.6)]) == "asked"
    # After fives, fours are legal; a sure "three nines" is ruled a breach,
    # a less sure one asked again (breach_confidence).
    assert cc.judge(trial, [Say(t=0.5, text="three nines")], "5") == "breach"
    assert cc.judge(trial, [Say(t=0.5, text="three nines", confidence=0.9)], "5") == "asked"


def test_one_card_claims_take_the_article_that_fits() -> None:
    import numpy as np

    game = cc.new_match().game
    rng = np.random.default_rng(0)
    said = {cc.phrase(game, 1, "A", rng) for _ in range(20)}
    assert said == {"one ace", "an ace"}
    assert {cc.phrase(game, 1, "K", rng) for _ in range(20)} == {"one king", "a king"}
    assert cc.phrase(game, 3, "6", rng) == "three sixes"


ROW = re.compile(r"^\| companion-pocketsphinx \| (?P<cond>[^|]+?) \| (?P<pile>[^|]+?) \| "
                 r"(?P<rest>.*)\|$")


@pytest.mark.slow
def test_a_small_run_prints_every_condition() -> None:
    run = subprocess.run(
        [sys.executable, str(BENCH / "cheat_claims.py"), "--claims", "1", "--backends",
         "companion-pocketsphinx,companion-vosk"],
        capture_output=True, text=True, timeout=900, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    rows = {(m["cond"], m["pile"]): [c.strip() for c in m["rest"].split("|")]
            for m in map(ROW.match, run.stdout.splitlines()) if m}
    assert set(rows) == {(c, p) for c in tr.CONDITIONS for p in cc.PILES}
    for *outcomes, n, rtf, cpu_rtf in rows.values():
        pcts = [float(x.rstrip("%")) for x in outcomes]
        assert len(pcts) == len(cc.OUTCOMES)
        assert sum(pcts) == pytest.approx(100.0, abs=0.2) and int(n) == len(tr.FAMILIES)
        assert float(rtf) > 0.0 and float(cpu_rtf) > 0.0
    assert "companion-vosk: skipped" in run.stdout or "| companion-vosk |" in run.stdout
