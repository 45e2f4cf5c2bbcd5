"""When the companion's own voice is in the room, on the table clock.

The speaker records an interval for every utterance it plays: from the start
of playback to its end plus the output latency and an echo tail. The table
loop asks ``overlaps(onset, end)`` before judging words heard, so the
companion never referees itself (DESIGN.md, Speech).
"""

from __future__ import annotations

import math
import threading

ECHO_TAIL_S = 0.25
"""Seconds after playback ends that still count as speaking (room echo and
buffers the latency figure does not cover)."""


class SpeakingLog:
    """Intervals ``(start, end)`` in seconds on the table clock when the
    companion was speaking. An interval still playing has ``end = inf``.
    Thread-safe; keeps at most ``keep`` intervals (the oldest are dropped)."""

    def __init__(self, keep: int = 256) -> None:
        self._intervals: list[tuple[float, float]] = []
        self._open: float | None = None
        self._keep = keep
        self._lock = threading.Lock()

    def begin(self, t: float) -> None:
        """Playback started at ``t``."""
        with self._lock:
            self._open = t

    def end(self, t: float, tail: float = ECHO_TAIL_S) -> None:
        """Playback ended at ``t``; the interval is kept until ``t + tail``."""
        with self._lock:
            if self._open is None:
                return
            self._intervals.append((self._open, t + tail))
            self._open = None
            del self._intervals[:-self._keep]

    def intervals(self) -> list[tuple[float, float]]:
        """Every recorded interval, the one still playing last (``end = inf``)."""
        with self._lock:
            out = list(self._intervals)
            if self._open is not None:
                out.append((self._open, math.inf))
            return out

    def overlaps(self, start: float, end: float | None = None) -> bool:
        """Whether ``[start, end]`` (``end`` defaults to ``start``) meets any
        speaking interval."""
        stop = start if end is None else end
        return any(a <= stop and start <= b for a, b in self.intervals())

    def is_speaking(self) -> bool:
        """Whether an utterance is playing now."""
        with self._lock:
            return self._open is not None
