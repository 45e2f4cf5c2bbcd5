"""bench/evening.py runs: two power cuts, nothing acknowledged lost, and the
resumed state equal to the fold of the log (the figures are the bench's)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import evening  # noqa: E402

pytestmark = pytest.mark.slow


def test_two_power_cuts_lose_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                     ) -> None:
    evening.power_cuts(2, 3, tmp_path)
    out = capsys.readouterr().out
    assert ", 0 lost;" in out
    assert "differs from the fold of the log in 0 of 2 restarts" in out


def test_a_lost_event_is_counted() -> None:
    stored = [{"type": "claim", "t": 1.0, "count": 1}, {"type": "tick", "t": 2.0}]
    assert evening._is_subsequence([{"type": "claim", "t": 0.9, "count": 1}], stored) == 0
    assert evening._is_subsequence([{"type": "claim", "t": 0.9, "count": 2}], stored) == 1
