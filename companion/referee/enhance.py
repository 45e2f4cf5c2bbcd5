"""Noise suppression for the ear's second opinion (WebRTC's suppressor).

``NoiseSuppressor`` runs the noise suppressor of WebRTC's audio processing
module (the ``webrtc-noise-gain`` package; no automatic gain) over the
recognizer-rate stream, 10 ms at a time, as the stream arrives, and keeps
the last seconds of its output by stream index, so that an utterance the
segmenter cut from the raw stream can be read back suppressed
(``NoiseSuppressor.copy``). The suppressor's own delay (``DELAY``) is taken
out: stream index ``i`` of the copy is the suppressed sample ``i`` of the
raw stream.

The ear decodes that copy only for an utterance the raw audio left unsure,
and takes only a right call from it (``companion.referee.stream``): in
steady noise suppression lifts calls out of the hiss, but in a reverberant
room and under talk it also thins the words themselves, so it never
replaces what the raw audio heard and never makes a mistake (measured on
the human development set; figures in bench/RESULTS.md).
"""

from __future__ import annotations

from collections import deque

import numpy as np
import numpy.typing as npt
from webrtc_noise_gain import AudioProcessor

from companion.errors import RecognizerError

RATE = 16000
"""The only rate (Hz) the suppressor takes here: the recognizer's."""

FRAME = RATE // 100
"""Samples in the suppressor's 10 ms frame."""

DELAY = 96
"""Samples the suppressor's output lags its input at 16 kHz (the overlap of
its 256-point analysis window with the 160-sample frame; measured by
cross-correlation in ``tests/test_enhance.py``)."""

LEVEL = 2
"""WebRTC's suppression level (0 off .. 4 very high): 2, moderate, chosen
on the human development set (bench/RESULTS.md)."""

KEEP_S = 30.0
"""Seconds of suppressed audio kept: longer than the longest utterance the
segmenter closes (its forced cut) plus its pre-roll."""


class StreamCopy:
    """Another hearing of the recognizer-rate stream (a suppressed copy, the
    array's seat-masked beam), kept by stream index for its last ``keep_s``
    seconds at ``rate`` Hz, so that an utterance the segmenter cut from the
    raw stream can be read back in it (``copy``)."""

    def __init__(self, keep_s: float = KEEP_S, rate: int = RATE) -> None:
        self._keep = round(keep_s * rate)
        self._out: deque[tuple[int, npt.NDArray[np.int16]]] = deque()  # (index, samples)
        self.end = 0  # stream index just after the last sample kept

    def clear(self, first: int) -> None:
        """Forget everything; the next samples start at stream index ``first``."""
        self._out.clear()
        self.end = first

    def add(self, pcm: npt.NDArray[np.int16], first: int | None = None) -> None:
        """Keep int16 samples whose first has stream index ``first`` (None:
        right after the last kept)."""
        if first is not None and first != self.end:
            self.clear(first)
        if not len(pcm):
            return
        self._out.append((self.end, np.asarray(pcm, dtype=np.int16)))
        self.end += len(pcm)
        while self._out and self.end - (self._out[0][0] + len(self._out[0][1])) > self._keep:
            self._out.popleft()

    def kept(self, start: int, end: int) -> npt.NDArray[np.int16] | None:
        """The samples of stream indices ``start`` to ``end`` (exclusive),
        or None when some of them are no longer (or not yet) kept."""
        if start < 0 or end <= start or end > self.end or not self._out or start < self._out[0][0]:
            return None
        return self.copy(start, np.zeros(end - start, dtype=np.int16))

    def copy(self, start: int, raw: npt.NDArray[np.int16]) -> npt.NDArray[np.int16]:
        """This hearing of ``raw``, the samples of the stream from index
        ``start`` on: the same length, with the raw samples where it has
        not reached yet or no longer keeps them."""
        out = np.array(raw, dtype=np.int16, copy=True)
        end = start + len(out)
        for first, chunk in self._out:
            lo, hi = max(start, first), min(end, first + len(chunk))
            if hi > lo:
                out[lo - start:hi - start] = chunk[lo - first:hi - first]
        return out


class NoiseSuppressor:
    """WebRTC noise suppression over a 16-bit mono stream at 16 kHz.

    ``level``: WebRTC's suppression level, 1-4 (``LEVEL``). ``keep_s``:
    seconds of output kept for ``copy``. Raises ``RecognizerError`` for a
    rate other than 16,000 Hz and ``ValueError`` for a level outside 1-4."""

    def __init__(self, rate: int = RATE, level: int = LEVEL, keep_s: float = KEEP_S) -> None:
        if rate != RATE:
            raise RecognizerError(f"the noise suppressor takes {RATE} Hz, not {rate!r}")
        if not 1 <= level <= 4:
            raise ValueError(f"suppression level must be 1-4, not {level!r}")
        self.level = level
        self._keep = round(keep_s * RATE)
        self._restart(0)

    def _restart(self, first: int) -> None:
        self._processor = AudioProcessor(0, self.level)
        self._pending = np.zeros(0, dtype=np.int16)
        self._next = first  # stream index of _pending[0]
        self._skip = DELAY  # output samples still to drop (the suppressor's lag)
        self._out = StreamCopy(self._keep / RATE)
        self._out.clear(first)

    @property
    def position(self) -> int:
        """The stream index just after the last sample pushed."""
        return self._next + len(self._pending)

    def push(self, pcm: npt.ArrayLike, first: int | None = None) -> None:
        """Add int16 samples whose first has stream index ``first`` (None:
        right after the last). Another ``first`` than expected is a gap:
        the suppressor starts afresh there (its noise estimate too)."""
        if first is not None and first != self.position:
            self._restart(first)
        block = np.asarray(pcm, dtype=np.int16).reshape(-1)
        self._pending = np.concatenate([self._pending, block])
        whole = len(self._pending) // FRAME * FRAME
        if whole == 0:
            return
        chunks = [np.frombuffer(self._processor.Process10ms(
            self._pending[i:i + FRAME].tobytes()).audio, dtype=np.int16)
            for i in range(0, whole, FRAME)]
        self._pending = self._pending[whole:]
        self._next += whole
        out = np.concatenate(chunks)
        if self._skip:
            dropped = min(self._skip, len(out))
            out, self._skip = out[dropped:], self._skip - dropped
        self._out.add(out)

    def copy(self, start: int, raw: npt.NDArray[np.int16]) -> npt.NDArray[np.int16]:
        """The suppressed copy of ``raw``, the samples of the stream from
        index ``start`` on: the same length, with the raw samples where the
        suppressor has not reached yet (its lag and an unfinished frame at
        the end, a few ms) or no longer keeps them."""
        return self._out.copy(start, raw)
