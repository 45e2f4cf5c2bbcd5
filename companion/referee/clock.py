"""The audio stream's sample index mapped to the table clock.

The microphone hands over blocks with the table time of their first sample
(``time.monotonic()`` at the live table, the ``t`` of the ``audio`` event in
a replay). ``SampleClock`` keeps one line, ``time(n) = origin + n / rate``,
and corrects it block by block:

* **jitter** (a callback's time stamp is late by a few ms) and **drift**
  (the sound card's crystal runs tens of ppm off the monotonic clock): the
  origin follows the stamps with exponential smoothing, so drift, a slow
  ramp, is tracked with a lag far under a millisecond and jitter is averaged;
* **dropped blocks** (an input overflow): a stamp later than the line by more
  than ``gap_tolerance`` means samples were lost; ``place`` returns how many,
  and the stream fills them with silence so later samples keep their times.
  A gap longer than ``max_fill`` (the companion was deaf, e.g. while it
  spoke) is not filled: the line restarts at the new stamp.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Placement:
    """Where a block goes. ``first``: the index of its first sample.
    ``missing``: samples lost just before it. ``restart``: the gap was longer
    than ``max_fill``; do not fill it, end any utterance in progress."""

    first: int
    missing: int = 0
    restart: bool = False


class SampleClock:
    """Maps sample numbers of one stream (at ``rate`` Hz) to table seconds.

    ``gap_tolerance``: seconds a stamp may run ahead of the line before the
    difference counts as lost samples (default 0.03). ``max_fill``: the longest
    gap filled with silence, seconds (default 2.0). ``smoothing``: the weight
    of each new stamp in the origin, 0..1 (default 0.05).
    Raises ``ValueError`` for a rate that is not positive."""

    def __init__(self, rate: float, *, gap_tolerance: float = 0.03, max_fill: float = 2.0,
                 smoothing: float = 0.05) -> None:
        if not rate > 0:
            raise ValueError(f"rate must be positive Hz, not {rate!r}")
        self.rate = float(rate)
        self.gap_tolerance = gap_tolerance
        self.max_fill = max_fill
        self.smoothing = smoothing
        self.origin: float | None = None
        self.samples = 0
        """Samples accounted for so far (lost ones included): the next index."""

    def place(self, n: int, first_sample_time: float | None = None) -> Placement:
        """Account for a block of ``n`` samples whose first sample was heard at
        ``first_sample_time`` seconds (None: right after the previous block)."""
        missing, restart = 0, False
        if first_sample_time is not None:
            if self.origin is None:
                self.origin = first_sample_time - self.samples / self.rate
            else:
                error = first_sample_time - self.time_of(self.samples)
                if error > self.gap_tolerance:
                    missing = round(error * self.rate)
                    restart = error > self.max_fill
                elif error < -self.gap_tolerance:
                    self.origin += error  # stamps behind the line: trust the stamps
                else:
                    self.origin += self.smoothing * error
        elif self.origin is None:
            self.origin = 0.0
        first = self.samples + missing
        self.samples = first + n
        return Placement(first=first, missing=missing, restart=restart)

    def time_of(self, index: float) -> float:
        """The table time of sample ``index`` (seconds)."""
        return (self.origin or 0.0) + index / self.rate
