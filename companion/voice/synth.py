"""Text to speech audio with pyttsx3's espeak-ng driver.

``render_wav(text, path, pack)`` writes one utterance as a WAV file (16-bit
mono PCM at espeak-ng's 22,050 Hz); ``render(text, pack)`` returns the samples.
The words are respelled with the pack's ``[respell]`` table first (espeak-ng
spells "hmmrrr" letter by letter).

pyttsx3 keeps one espeak-ng engine per process (espeak-ng can be initialised
only once), so every call here is serialised by one lock, and each file gets
its own ``runAndWait()`` (pyttsx3 2.99 renders only the last queued file per
run). The voice and rate are set only when they change: setting them before
every file let espeak-ng end some files at once, empty, on a busy machine.
pyttsx3's espeak driver prints "Audio saved to ..." on standard output after
each file; that line is sent to the debug log instead, because standard
output carries the rulings (``companion replay``).
"""

from __future__ import annotations

import atexit
import logging
import tempfile
import threading
import wave
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from companion.errors import SpeechOutputError
from companion.voice.pack import VoicePack
from companion.voice.phrases import respelled

log = logging.getLogger(__name__)

SYNTH_RATE_HZ = 22050
"""espeak-ng's output sample rate, in Hz."""

DEFAULT_WORDS_PER_MINUTE = 175
"""Speaking rate, in words per minute (espeak-ng's default is 175)."""

_LOCK = threading.Lock()
_ENGINE: Any = None
_SETTINGS: tuple[str, int] | None = None  # the voice and rate set on _ENGINE


@dataclass(frozen=True)
class Rendered:
    """One rendered utterance: ``samples`` (int16, mono) at ``rate`` Hz."""

    samples: np.ndarray
    rate: int

    @property
    def seconds(self) -> float:
        """Duration, in seconds."""
        return len(self.samples) / self.rate


def _quiet_print(*args: Any, **_kwargs: Any) -> None:
    log.debug(" ".join(str(a) for a in args))


def _release_engine() -> None:
    global _ENGINE
    if _LOCK.acquire(timeout=2.0):  # a render in progress finishes in milliseconds
        try:
            _ENGINE = None
        finally:
            _LOCK.release()


def _engine(voice: str, words_per_minute: int) -> Any:
    """The process's pyttsx3 engine, set to ``voice``. Call under ``_LOCK``."""
    global _ENGINE
    if _ENGINE is None:
        try:
            import pyttsx3
            import pyttsx3.drivers.espeak as espeak_driver

            espeak_driver.print = _quiet_print  # type: ignore[attr-defined]
            _ENGINE = pyttsx3.init("espeak")
            # Drop the engine before the interpreter tears modules down: its
            # driver's __del__ needs them, and complains on stderr otherwise.
            atexit.register(_release_engine)
        except (ImportError, OSError, RuntimeError) as exc:
            raise SpeechOutputError(f"espeak-ng cannot be started through pyttsx3: {exc}") from exc
    global _SETTINGS
    if (voice, words_per_minute) != _SETTINGS:
        try:
            _ENGINE.setProperty("voice", voice)
        except ValueError as exc:
            raise SpeechOutputError(f"espeak-ng has no voice {voice!r}: {exc}") from None
        _ENGINE.setProperty("rate", words_per_minute)
        _SETTINGS = (voice, words_per_minute)
    return _ENGINE


def render_wav(text: str, path: Path, pack: VoicePack, *,
               words_per_minute: int = DEFAULT_WORDS_PER_MINUTE) -> Path:
    """Speak ``text`` (respelled for espeak-ng) into the WAV file ``path``.

    The file is 16-bit mono PCM at ``SYNTH_RATE_HZ`` (no samples for text
    with nothing to say). Raises
    ``SpeechOutputError`` when espeak-ng cannot be started, has no voice
    ``pack.espeak_voice``, or the file is not written."""
    spoken = respelled(text, pack)
    path = Path(path)
    if not spoken.strip():
        # Nothing to say: a file of no samples, without espeak-ng, which
        # crashes on empty text through pyttsx3 (pyttsx3 issue #140).
        with wave.open(str(path), "wb") as wav:
            wav.setnchannels(1)
            wav.setsampwidth(2)
            wav.setframerate(SYNTH_RATE_HZ)
        return path
    # Now and then espeak-ng leaves a file with no samples (a ruling of the
    # suite's four-player Cheat game was once left unsaid so); the same text
    # rendered again is whole. One more render, not a loop: a second silent
    # file is a real fault, reported.
    for _ in range(RENDERS):
        with _LOCK:
            engine = _engine(pack.espeak_voice, words_per_minute)
            engine.save_to_file(spoken, str(path))
            try:
                engine.runAndWait()
                # espeak-ng delivers its last callbacks on its own thread; wait for
                # them, or they end the next file early (a truncated, silent WAV).
                from pyttsx3.drivers import _espeak

                _espeak.Synchronize()
            except RuntimeError as exc:
                raise SpeechOutputError(f"espeak-ng failed on {spoken!r}: {exc}") from None
        if path.exists() and path.stat().st_size > 44:
            return path
        log.warning("espeak-ng wrote no audio for %r; rendering it again", spoken)
    raise SpeechOutputError(f"espeak-ng wrote no audio for {spoken!r} to {str(path)!r}")


RENDERS = 2
"""How many times ``render_wav`` asks espeak-ng for a file before it gives up."""


def read_wav(path: Path) -> Rendered:
    """The samples of a 16-bit PCM WAV file (the first channel). Raises
    ``SpeechOutputError`` for another sample format."""
    with wave.open(str(path), "rb") as wav:
        if wav.getsampwidth() != 2:
            raise SpeechOutputError(
                f"{str(path)!r} has {8 * wav.getsampwidth()}-bit samples; 16-bit expected")
        frames = wav.readframes(wav.getnframes())
        channels = wav.getnchannels()
        rate = wav.getframerate()
    samples = np.frombuffer(frames, dtype="<i2").reshape(-1, channels)[:, 0].copy()
    return Rendered(samples=samples, rate=rate)


def render(text: str, pack: VoicePack, *,
           words_per_minute: int = DEFAULT_WORDS_PER_MINUTE) -> Rendered:
    """Speak ``text`` into memory: int16 mono samples at ``SYNTH_RATE_HZ``.
    Raises ``SpeechOutputError`` as ``render_wav`` does."""
    with tempfile.TemporaryDirectory(prefix="companion-say-") as tmp:
        path = render_wav(text, Path(tmp) / "say.wav", pack, words_per_minute=words_per_minute)
        return read_wav(path)
