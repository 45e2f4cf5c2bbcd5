"""Spoken rulings: a queue, a worker thread, espeak-ng and the sound device.

``open_speaker(pack)`` returns a ``Speaker``. ``say(text, priority)`` only
queues the sentence and returns at once, so the table never waits for the
voice. One worker thread renders each sentence with pyttsx3/espeak-ng
(``companion.voice.synth``) and plays it with sounddevice (PortAudio), at the
output device's own rate (resampled with soxr when it does not take espeak-ng's
22,050 Hz).

Priorities: a sentence of higher priority is spoken before any queued sentence
of lower priority, and interrupts a lower one already playing (that one is
dropped, not resumed): a ruling cuts the chatter short. Equal priorities are
spoken in the order queued.

Every played utterance is logged in ``speaker.speaking`` (a ``SpeakingLog``
on the table clock) so that audio captured while the companion speaks is not
judged.

No sound device (this build machine, a Pi with the speaker unplugged) is one
warning line on standard error, never a crash: the sentences are then
recorded in ``speaker.spoken`` as not played.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

import numpy as np

from companion.audio.devices import probe_device
from companion.errors import SpeechOutputError
from companion.voice.pack import VoicePack
from companion.voice.speaking import SpeakingLog
from companion.voice.synth import DEFAULT_WORDS_PER_MINUTE, SYNTH_RATE_HZ, render

log = logging.getLogger(__name__)

Clock = Callable[[], float]
"""The table clock: seconds, monotonic (``time.monotonic`` at the table)."""

Warn = Callable[[str], None]
"""Where one-line warnings go (default: standard error)."""


class Priority(IntEnum):
    """How urgent a sentence is; higher interrupts lower."""

    CHATTER = 0
    """Greetings, the page address, the card flipped in virtual-deck mode."""
    NOTICE = 1
    """Device news (microphone unplugged or back)."""
    RULING = 2
    """A ruling of the referee."""


@dataclass
class Utterance:
    """One sentence given to the speaker, and what became of it.

    ``start``/``end``: playback times in seconds on the table clock (None if it
    was never played). ``completed``: played to the end. ``interrupted``: cut
    short or dropped for a sentence of higher priority."""

    text: str
    priority: Priority
    start: float | None = None
    end: float | None = None
    completed: bool = False
    interrupted: bool = False
    cancel: threading.Event = field(default_factory=threading.Event, repr=False)


def _stderr_warning(message: str) -> None:
    print(f"companion: warning: {message}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class OutputDevice:
    """A sound output: PortAudio ``device`` (index, name or None for the
    default) and the ``rate`` in Hz it is opened at."""

    device: int | str | None
    rate: int
    name: str


def find_output(device: int | str | None = None) -> OutputDevice:
    """The output device to speak on, at a rate it supports (espeak-ng's
    22,050 Hz if it takes it, else its default rate).

    Raises ``SpeechOutputError`` when PortAudio is missing or there is no such
    output device (no sound card)."""
    rate, name = probe_device(device, "output", SYNTH_RATE_HZ, SpeechOutputError,
                              "no sound output device")
    return OutputDevice(device=device, rate=rate, name=name)


class Speaker:
    """Speaks sentences on a worker thread without ever blocking the caller.

    ``output``: the device (``find_output``), or None to speak nowhere (the
    sentences are only recorded). ``clock``: the table clock.
    ``words_per_minute``: espeak-ng's speaking rate."""

    def __init__(self, pack: VoicePack, output: OutputDevice | None, *,
                 clock: Clock = time.monotonic, warn: Warn = _stderr_warning,
                 words_per_minute: int = DEFAULT_WORDS_PER_MINUTE) -> None:
        self.pack = pack
        self.output = output
        self.clock = clock
        self.warn = warn
        self.words_per_minute = words_per_minute
        self.speaking = SpeakingLog()
        self.spoken: list[Utterance] = []
        """Every sentence said, in the order they were finished with."""
        self._queue: list[tuple[int, int, Utterance | None]] = []
        self._seq = itertools.count()
        self._cond = threading.Condition()
        self._current: Utterance | None = None
        self._closed = False
        self._faulted = False
        self._thread = threading.Thread(target=self._run, name="companion-speaker", daemon=True)
        self._thread.start()

    @property
    def available(self) -> bool:
        """Whether sentences are played on a sound device."""
        return self.output is not None

    @property
    def name(self) -> str:
        """The output device's name, for the control page ("none" without one)."""
        return self.output.name if self.output is not None else "none"

    @property
    def status(self) -> str:
        """``speaking``, ``idle``, or ``no sound device``, for the control page."""
        if self.output is None:
            return "no sound device"
        return "speaking" if self.speaking.is_speaking() else "idle"

    def say(self, text: str, priority: Priority = Priority.RULING) -> Utterance:
        """Queue ``text``; return at once. A higher ``priority`` interrupts a
        lower sentence playing now. Empty text and text after ``close`` are
        ignored (the returned utterance is never played)."""
        utterance = Utterance(text=text.strip(), priority=Priority(priority))
        if not utterance.text:
            return utterance
        with self._cond:
            if self._closed:
                return utterance
            heapq.heappush(self._queue, (-utterance.priority, next(self._seq), utterance))
            current = self._current
            if current is not None and current.priority < utterance.priority:
                current.interrupted = True
                current.cancel.set()
            for _, _, queued in self._queue:
                if queued is not None and queued.priority < utterance.priority:
                    # Chatter queued before a ruling is stale by the time it would play.
                    queued.interrupted = True
                    queued.cancel.set()
            self._cond.notify()
        return utterance

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until nothing is queued or playing (at most ``timeout``
        seconds); return whether the speaker is idle."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self._queue or self._current is not None:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._cond.wait(0.02 if left is None else min(left, 0.02))
            return True

    def close(self, timeout: float | None = None) -> None:
        """Speak what is queued, then stop the worker (waits up to ``timeout``
        seconds; None waits for the queue to drain)."""
        with self._cond:
            if not self._closed:
                self._closed = True
                heapq.heappush(self._queue, (1, next(self._seq), None))
                self._cond.notify()
        self._thread.join(timeout)

    def __enter__(self) -> Speaker:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # -- the worker ------------------------------------------------------------

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._queue:
                    self._cond.wait()
                _, _, item = heapq.heappop(self._queue)
                self._current = item
            if item is None:
                return
            try:
                if not item.cancel.is_set():
                    self._speak(item)
            except Exception as exc:  # the voice must never take the table down
                log.exception("speaking %r failed", item.text)
                self._fault(f"speech failed: {exc}")
            finally:
                with self._cond:
                    self._current = None
                    self.spoken.append(item)

    def _fault(self, message: str) -> None:
        if not self._faulted:
            self._faulted = True
            self.warn(message)

    def _speak(self, item: Utterance) -> None:
        if self.output is None:
            return
        try:
            rendered = render(item.text, self.pack, words_per_minute=self.words_per_minute)
        except SpeechOutputError as exc:
            self._fault(str(exc))
            return
        samples = rendered.samples
        if samples.size == 0:
            return  # nothing to say
        if self.output.rate != rendered.rate:
            import soxr

            floats = soxr.resample(samples.astype(np.float32) / 32768.0, rendered.rate,
                                   self.output.rate)
            samples = np.clip(floats * 32768.0, -32768, 32767).astype(np.int16)
        if item.cancel.is_set():
            return
        self._play(item, samples)

    def _play(self, item: Utterance, samples: np.ndarray) -> None:
        import sounddevice as sd

        assert self.output is not None
        position = 0
        finished = threading.Event()

        def fill(outdata: np.ndarray, frames: int, _time: Any, _status: Any) -> None:
            nonlocal position
            chunk = samples[position:position + frames]
            outdata[:len(chunk), 0] = chunk
            outdata[len(chunk):, 0] = 0
            position += len(chunk)
            if len(chunk) < frames:
                raise sd.CallbackStop

        try:
            stream = sd.OutputStream(samplerate=self.output.rate, channels=1, dtype="int16",
                                     device=self.output.device, callback=fill,
                                     finished_callback=finished.set)
        except (sd.PortAudioError, ValueError) as exc:
            self._fault(f"the speaker cannot be opened ({exc}); rulings are printed only")
            return
        latency = float(stream.latency)
        with stream:
            item.start = self.clock()
            self.speaking.begin(item.start)
            while not finished.wait(0.02):
                if item.cancel.is_set():
                    stream.abort()
                    break
            item.end = self.clock() + latency
            self.speaking.end(item.end)
        item.completed = not item.cancel.is_set()
        self._faulted = False


def open_speaker(pack: VoicePack, *, device: int | str | None = None,
                 clock: Clock = time.monotonic, warn: Warn = _stderr_warning,
                 words_per_minute: int = DEFAULT_WORDS_PER_MINUTE) -> Speaker:
    """A speaker on ``device`` (None: the default output). Never raises for a
    missing sound device: it warns once through ``warn`` and returns a speaker
    that records sentences without playing them."""
    try:
        output: OutputDevice | None = find_output(device)
    except SpeechOutputError as exc:
        warn(f"{exc}; rulings are printed only, not spoken")
        output = None
    return Speaker(pack, output, clock=clock, warn=warn, words_per_minute=words_per_minute)
