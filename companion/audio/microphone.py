"""The table's microphone, with sounddevice: blocks of samples on the table clock.

``Microphone(device)`` opens a PortAudio input stream at a rate the device
supports (the preferred rate, 16,000 Hz, if it takes it; else its default
rate). The stream callback only copies the block into a queue: it never
blocks, never allocates beyond the copy and never calls the recognizer. The
consumer takes ``Block``s with ``blocks()``.

Times come from sample counts: sample ``n`` is at ``origin + n / rate``
seconds on the table clock, where ``origin`` is fixed when the first block
arrives (the clock then, minus that block's duration and the input latency).
After an input overflow (samples lost) the origin is set again the same way.
Between overflows the mapping does not follow the sound card's drift from the
monotonic clock (tens of ppm: under 0.1 s in an hour).

An unplugged microphone: the stream stops delivering. ``check()`` (called
by the table loop every tick) notices that the stream is inactive or silent
for ``STALL_S`` seconds, closes it, reports ``"lost"``, and then tries to
reopen the same device every ``RETRY_S`` seconds, reporting ``"back"`` when
that works. ``use_device`` (the control page's setting) switches devices the
same way (``"switched"``). A reopened stream starts again at sample 0.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from companion.audio.devices import probe_device
from companion.errors import AudioDeviceError

log = logging.getLogger(__name__)

PREFERRED_RATE_HZ = 16000
"""The recognizers' rate; used when the device takes it (no resampling)."""

BLOCK_S = 0.05
"""Seconds of audio per block (50 ms)."""

STALL_S = 2.0
"""Seconds without a block on a started stream before the microphone is lost."""

RETRY_S = 2.0
"""Seconds between attempts to reopen a lost microphone."""

QUEUE_BLOCKS = 400
"""Blocks the queue holds (20 s); a consumer further behind loses blocks (counted)."""

Clock = Callable[[], float]
DeviceEvent = Literal["lost", "back", "switched"]


@dataclass(frozen=True)
class Block:
    """One block of audio: ``samples`` (int16, mono; ``(n, channels)`` from a
    microphone opened with several channels, an array) at ``rate`` Hz, whose
    first sample is sample number ``index`` of the stream and was heard at
    ``t`` seconds on the table clock."""

    samples: np.ndarray
    rate: int
    index: int
    t: float

    @property
    def end(self) -> float:
        """The table time just after the last sample."""
        return self.t + len(self.samples) / self.rate


def find_input(device: int | str | None = None,
               preferred_rate: int = PREFERRED_RATE_HZ) -> tuple[int | str | None, int, str]:
    """The input ``device`` as ``(device, rate_hz, name)``: the preferred rate
    if the device takes it, else its default rate. Raises
    ``AudioDeviceError`` when there is no such input device."""
    rate, name = probe_device(device, "input", preferred_rate, AudioDeviceError,
                              "no microphone")
    return device, rate, name


def sd_callback_stop() -> BaseException:
    """sounddevice's exception that ends a stream from its callback."""
    import sounddevice as sd

    return sd.CallbackStop()


class Microphone:
    """A microphone stream delivering ``Block``s on the table clock.

    ``device``: PortAudio device index or name (None: the default input).
    ``clock``: the table clock. ``rate``: force a sample rate in Hz (None:
    ``find_input`` picks one). Counts: ``overflows`` (PortAudio input
    overflows), ``dropped`` (blocks lost because the consumer was behind).
    ``origin``: the table time of sample 0, if known (a recording played as
    the microphone); None takes it from the clock at the first block.
    ``queue_blocks``: how many blocks may wait for the consumer.
    ``max_frames``: stop after this many samples (a recording played as the
    microphone); ``finished`` is then True and the stream is not "lost".
    ``channels``: how many channels to open: 1 (mono blocks, the default),
    a number, or None for every input channel the device has (a microphone
    array: blocks of ``(n, channels)``)."""

    def __init__(self, device: int | str | None = None, *, clock: Clock = time.monotonic,
                 rate: int | None = None, block_s: float = BLOCK_S,
                 origin: float | None = None, queue_blocks: int = QUEUE_BLOCKS,
                 max_frames: int | None = None, channels: int | None = 1) -> None:
        self.device = device
        self.channels = channels
        self.opened_channels = 1
        self.clock = clock
        self.forced_rate = rate
        self.block_s = block_s
        self.rate = 0
        self.name = ""
        self.overflows = 0
        self.dropped = 0
        self.samples_seen = 0
        self.lost = False
        self.finished = False
        self.max_frames = max_frames
        self._queue: queue.Queue[Block] = queue.Queue(maxsize=queue_blocks)
        self._fixed_origin = origin
        self._stream: Any = None
        self._origin: float | None = None
        self._last_block_at: float | None = None
        self._next_retry = 0.0
        self._switch = False
        self._latest: np.ndarray | None = None
        self._lock = threading.Lock()

    @property
    def level_db(self) -> float | None:
        """The level of the latest block in dBFS (RMS against full scale,
        32768), or None before the first block."""
        latest = self._latest
        if latest is None or not len(latest):
            return None
        rms = float(np.sqrt(np.mean(latest.astype(np.float64) ** 2)))
        return 20.0 * float(np.log10(max(rms, 1e-3) / 32768.0))

    def use_device(self, device: int | str | None) -> None:
        """Switch to another input device (from any thread); the next
        ``check()`` reopens the stream on it and reports ``"switched"``."""
        self.device = device
        self._switch = True

    # -- the stream --------------------------------------------------------------

    def open(self) -> None:
        """Open and start the stream. Raises ``AudioDeviceError`` when the
        device is missing or refuses the settings."""
        import sounddevice as sd

        device, rate, name = find_input(self.device)
        if self.forced_rate is not None:
            rate = self.forced_rate
        with self._lock:
            self.rate, self.name = rate, name
            self._origin, self.samples_seen = self._fixed_origin, 0
            self._last_block_at = self.clock()
        channels = self.channels
        if channels is None:  # every channel the device has (an array)
            try:
                channels = int(sd.query_devices(device, "input")["max_input_channels"])
            except (sd.PortAudioError, ValueError) as exc:
                raise AudioDeviceError(f"the microphone {name!r} cannot be opened: {exc}"
                                       ) from None
        self.opened_channels = max(1, channels)
        try:
            stream = sd.InputStream(samplerate=rate, channels=self.opened_channels,
                                    dtype="int16", device=device,
                                    blocksize=max(1, round(rate * self.block_s)),
                                    callback=self._callback)
            self._stream = stream
            stream.start()
        except (sd.PortAudioError, ValueError) as exc:
            self._stream = None
            raise AudioDeviceError(f"the microphone {name!r} cannot be opened: {exc}") from None
        self._fixed_origin = None  # a reopened stream takes its origin from the clock
        self.lost = False

    def _callback(self, indata: np.ndarray, frames: int, _time: Any, status: Any) -> None:
        # PortAudio's thread: copy, stamp, enqueue; nothing that can block.
        now = self.clock()
        if self._origin is None or status.input_overflow:
            if status.input_overflow:
                self.overflows += 1
            latency = float(self._stream.latency) if self._stream is not None else 0.0
            self._origin = now - latency - (self.samples_seen + frames) / self.rate
        samples = indata[:, 0].copy() if self.channels == 1 else indata.copy()
        last = False
        if self.max_frames is not None and self.samples_seen + frames >= self.max_frames:
            samples, last = samples[:max(0, self.max_frames - self.samples_seen)], True
        block = Block(samples=samples, rate=self.rate, index=self.samples_seen,
                      t=self._origin + self.samples_seen / self.rate)
        self.samples_seen += len(samples)
        self._last_block_at = now
        self._latest = samples
        try:
            self._queue.put_nowait(block)
        except queue.Full:
            self.dropped += 1
        if last:
            self.finished = True
            raise sd_callback_stop()

    @property
    def waiting(self) -> int:
        """Blocks captured and not yet taken by ``blocks()``."""
        return self._queue.qsize()

    def blocks(self, timeout: float = 0.0) -> Iterator[Block]:
        """The blocks captured so far, oldest first; waits up to ``timeout``
        seconds for the first one."""
        try:
            yield self._queue.get(timeout=timeout) if timeout > 0 else self._queue.get_nowait()
        except queue.Empty:
            return
        while True:
            try:
                yield self._queue.get_nowait()
            except queue.Empty:
                return

    def check(self) -> DeviceEvent | None:
        """Watch the device (call it every tick): ``"lost"`` once when the
        stream has stopped or been silent ``STALL_S`` seconds, ``"back"`` once
        when a reopen works, else None."""
        now = self.clock()
        if self.finished:
            return None
        if self._switch:
            self._switch = False
            self._close_stream()
            try:
                self.open()
            except AudioDeviceError as exc:
                log.warning("switching the microphone failed: %s", exc)
                self.lost = True
                self._next_retry = now + RETRY_S
                return "lost"
            return "switched"
        if not self.lost:
            stream = self._stream
            stalled = self._last_block_at is not None and now - self._last_block_at > STALL_S
            if stream is not None and (not stream.active or stalled):
                log.warning("microphone %r stopped (active=%s)", self.name, stream.active)
                self._close_stream()
                self.lost = True
                self._next_retry = now + RETRY_S
                return "lost"
            return None
        if now < self._next_retry:
            return None
        self._next_retry = now + RETRY_S
        try:
            self.open()
        except AudioDeviceError as exc:
            log.info("microphone still missing: %s", exc)
            return None
        return "back"

    def _close_stream(self) -> None:
        with self._lock:
            stream, self._stream = self._stream, None
        if stream is not None:
            try:
                stream.abort()
                stream.close()
            except Exception as exc:  # the device may already be gone
                log.info("closing the lost microphone: %s", exc)

    def close(self) -> None:
        """Stop and close the stream."""
        self._close_stream()

    def __enter__(self) -> Microphone:
        self.open()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
