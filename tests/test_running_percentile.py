"""The segmenter's running noise floor (``vad.RunningPercentile``) against
numpy's percentile over the same window, value for value."""

from __future__ import annotations

import numpy as np
import pytest

from companion.referee.vad import RunningPercentile


@pytest.mark.parametrize(("size", "percent"), [(1, 10), (2, 10), (7, 10), (200, 10), (50, 50),
                                               (33, 90)])
def test_the_running_percentile_is_numpys_over_the_last_values(size: int, percent: float) -> None:
    rng = np.random.default_rng(size)
    # Frame energies span orders of magnitude, and repeat in digital silence.
    values = np.concatenate([rng.lognormal(5, 3, 600), np.ones(300), rng.integers(1, 4, 300)])
    running = RunningPercentile(size, percent)
    window: list[float] = []
    for v in values.astype(float):
        running.add(v)
        window = [*window, v][-size:]
        assert running.value() == float(np.percentile(window, percent))
    assert len(running) == min(size, len(values))


def test_no_percentile_before_the_first_value() -> None:
    with pytest.raises(ValueError, match="no values"):
        RunningPercentile(10, 10).value()
