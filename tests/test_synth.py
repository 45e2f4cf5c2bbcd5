"""Generated test speech: real espeak-ng and Piper, exact onsets, measured SNR, seeds."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import wave
from pathlib import Path

import numpy as np
import pytest

from companion.audio import synth
from companion.audio.synth import (
    ESPEAK_VOICES,
    ONSET_THRESHOLD,
    PIPER_VOICES,
    RATE,
    Synth,
    Turn,
    VoiceSpec,
)
from companion.errors import ClipError, SynthesisError

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def sy() -> Synth:
    return Synth()


def first_loud(x: np.ndarray) -> int:
    """Index of the first sample at or above the onset threshold."""
    return int(np.flatnonzero(np.abs(x.astype(np.int32)) >= ONSET_THRESHOLD)[0])


def snr_by_hand(clip: synth.Clip) -> float:
    """Speech over its spans against the noise over the whole clip, computed
    here independently of the module."""
    s = clip.speech.astype(np.float64)
    n = clip.audio.astype(np.float64) - s
    idx = np.concatenate([np.arange(a, b) for a, b in clip.spans])
    return 10 * math.log10(np.mean(s[idx] ** 2) / np.mean(n**2))


@pytest.mark.parametrize("voice", [*ESPEAK_VOICES, PIPER_VOICES[0], PIPER_VOICES[2]],
                         ids=lambda v: v.label)
def test_utterance_is_trimmed_and_at_its_level(sy: Synth, voice: VoiceSpec) -> None:
    pcm = sy.utterance("five", voice, level_dbfs=-26.0)
    assert pcm.dtype == np.int16
    assert 0.15 < len(pcm) / RATE < 1.5  # one short word
    assert abs(int(pcm[0])) >= ONSET_THRESHOLD and abs(int(pcm[-1])) >= ONSET_THRESHOLD
    assert synth.rms_dbfs(pcm) == pytest.approx(-26.0, abs=0.05)


def test_voices_sound_different(sy: Synth) -> None:
    lengths = {len(sy.utterance("seven", v)) for v in ESPEAK_VOICES}
    assert len(lengths) >= 6  # different voices and speeds give different renders


def test_speed_changes_length(sy: Synth) -> None:
    slow = sy.utterance("four five six", VoiceSpec("espeak-ng", "en-us", 0.7))
    fast = sy.utterance("four five six", VoiceSpec("espeak-ng", "en-us", 1.4))
    assert len(slow) > 1.5 * len(fast)
    p_slow = sy.utterance("four five six", VoiceSpec("piper", synth.PIPER_MODEL, 0.8))
    p_fast = sy.utterance("four five six", VoiceSpec("piper", synth.PIPER_MODEL, 1.25))
    assert len(p_slow) > 1.3 * len(p_fast)


def test_rate_is_honoured(sy: Synth) -> None:
    v = ESPEAK_VOICES[0]
    at16 = sy.utterance("three", v, rate=16000)
    at8 = sy.utterance("three", v, rate=8000)
    assert len(at8) == pytest.approx(len(at16) / 2, rel=0.02)


@pytest.mark.parametrize("silence", [0.3, 0.75, 1.5, 2.99, 3.01, 3.5])
def test_call_after_silence_has_its_onset_exactly(sy: Synth, silence: float) -> None:
    utt = sy.utterance("two", ESPEAK_VOICES[1])
    clip = synth.call_after_silence(utt, silence, text="two", tail=0.4)
    onset = round(silence * RATE)
    assert clip.spans == ((onset, onset + len(utt)),)
    assert first_loud(clip.audio) == onset
    assert len(clip.audio) == onset + len(utt) + round(0.4 * RATE)
    assert clip.onsets[0] == pytest.approx(silence, abs=0.5 / RATE)
    assert np.array_equal(clip.audio, clip.speech)
    assert synth.measure_snr(clip) == math.inf


def test_piper_call_onset(sy: Synth) -> None:
    utt = sy.utterance("hmm", PIPER_VOICES[1])
    clip = synth.call_after_silence(utt, 2.0)
    assert first_loud(clip.audio) == 2 * RATE


@pytest.mark.parametrize("snr", [20.0, 10.0, 0.0])
def test_white_noise_snr_is_achieved(sy: Synth, snr: float) -> None:
    clip = synth.call_after_silence(sy.utterance("six", ESPEAK_VOICES[0]), 1.0)
    noisy = synth.add_noise(clip, synth.white_noise(len(clip.audio), seed=4), snr)
    assert snr_by_hand(noisy) == pytest.approx(snr, abs=0.05)
    assert synth.measure_snr(noisy) == pytest.approx(snr, abs=0.05)
    # the noise is everywhere, not only under the speech
    assert synth.rms_dbfs(noisy.audio[: RATE // 2]) > -60


@pytest.mark.parametrize("snr", [20.0, 10.0])
def test_table_talk_snr_is_achieved(sy: Synth, snr: float) -> None:
    clip = synth.call_after_silence(sy.utterance("one", PIPER_VOICES[0]), 1.2, tail=1.0)
    talk = synth.table_talk(len(clip.audio), sy, seed=11)
    noisy = synth.add_noise(clip, talk, snr)
    assert snr_by_hand(noisy) == pytest.approx(snr, abs=0.1)
    # table talk is voices: loud stretches and pauses, not a steady hiss
    frames = talk[: len(talk) // 320 * 320].reshape(-1, 320)
    levels = 10 * np.log10(np.mean(frames**2, axis=1) + 1e-9)
    assert np.mean(levels > levels.max() - 30) > 0.6  # someone talks most of the time
    assert levels.max() - np.median(levels) > 3  # but not at a constant level


def test_table_talk_overlaps_several_voices(sy: Synth) -> None:
    n = 4 * RATE
    one = synth.table_talk(n, sy, seed=2, talkers=1)
    three = synth.table_talk(n, sy, seed=2, talkers=3)
    # three talkers at about the same level carry about three times the power
    ratio = np.mean(three**2) / np.mean(one**2)
    assert 1.5 < ratio < 6


def test_noise_floor_level_and_colour() -> None:
    floor = synth.noise_floor(RATE * 2, level_dbfs=-60.0, seed=1)
    assert synth.rms_dbfs(floor) == pytest.approx(-60.0, abs=0.01)
    spectrum = np.abs(np.fft.rfft(floor)) ** 2
    freqs = np.fft.rfftfreq(len(floor), 1 / RATE)
    assert spectrum[freqs < 400].mean() > 10 * spectrum[freqs > 4000].mean()


def test_floor_is_added_quietly(sy: Synth) -> None:
    clip = synth.call_after_silence(sy.utterance("seven", ESPEAK_VOICES[2]), 0.5)
    floored = synth.add_floor(clip, seed=3)
    assert synth.rms_dbfs(floored.audio[: RATE // 4]) == pytest.approx(-60.0, abs=1.0)
    assert synth.measure_snr(floored) > 25


def test_seeds_make_it_deterministic(sy: Synth) -> None:
    n = RATE
    assert np.array_equal(synth.white_noise(n, seed=5), synth.white_noise(n, seed=5))
    assert not np.array_equal(synth.white_noise(n, seed=5), synth.white_noise(n, seed=6))
    assert np.array_equal(synth.table_talk(n, sy, seed=8), synth.table_talk(n, sy, seed=8))
    assert not np.array_equal(synth.table_talk(n, sy, seed=8), synth.table_talk(n, sy, seed=9))
    turns = [Turn(0.5, "one"), Turn(2.0, "two", 1.1), Turn(3.5, None)]
    voices = [*ESPEAK_VOICES, *PIPER_VOICES]
    a = synth.render_turns(turns, sy, voices, seed=3)
    b = synth.render_turns(turns, Synth(), voices, seed=3)  # fresh synth, voice reloaded
    assert np.array_equal(a.audio, b.audio)


def test_piper_is_deterministic_across_loads() -> None:
    a = synth.PiperSpeaker().pcm("peekaboo")
    b = synth.PiperSpeaker().pcm("peekaboo")
    assert np.array_equal(a, b)


def test_render_turns_places_calls_after_their_flips(sy: Synth) -> None:
    turns = [Turn(0.5, "one", 0.4), Turn(2.0, None), Turn(3.0, "three", 1.25),
             Turn(5.0, "four five", 3.6)]
    clip = synth.render_turns(turns, sy, ESPEAK_VOICES, seed=1, tail=0.5)
    assert clip.texts == ("one", "three", "four five")
    assert [a for a, _ in clip.spans] == [round(0.9 * RATE), round(4.25 * RATE),
                                          round(8.6 * RATE)]
    assert first_loud(clip.audio) == round(0.9 * RATE)
    # the gun card's turn is silent: nothing between the first call and the next
    between = clip.audio[clip.spans[0][1]: clip.spans[1][0]]
    assert np.abs(between.astype(np.int32)).max() < ONSET_THRESHOLD
    assert len(clip.audio) == clip.spans[-1][1] + round(0.5 * RATE)


def test_wav_round_trip(tmp_path: Path, sy: Synth) -> None:
    clip = synth.call_after_silence(sy.utterance("ouch", ESPEAK_VOICES[3]), 0.3)
    path = synth.write_wav(tmp_path / "call.wav", clip.audio, clip.rate)
    with wave.open(str(path)) as wav:
        assert (wav.getnchannels(), wav.getsampwidth(), wav.getframerate()) == (1, 2, RATE)
        back = np.frombuffer(wav.readframes(wav.getnframes()), dtype="<i2")
    assert np.array_equal(back, clip.audio)


def test_bad_requests_name_the_problem(sy: Synth) -> None:
    utt = sy.utterance("one", ESPEAK_VOICES[0])
    with pytest.raises(ClipError, match="silence"):
        synth.call_after_silence(utt, -0.5)
    with pytest.raises(ClipError, match="past the clip"):
        synth.place([(0.9, utt, "one")], seconds=1.0)
    with pytest.raises(ClipError, match="snr_db"):
        synth.add_noise(synth.call_after_silence(utt, 0.3), np.ones(10), math.nan)
    with pytest.raises(ClipError, match="samples"):
        synth.add_noise(synth.call_after_silence(utt, 0.3), np.ones(10), 10.0)
    with pytest.raises(ClipError, match="no speech"):
        synth.measure_snr(synth.silence(1.0))
    with pytest.raises(ClipError, match="family"):
        sy.raw("one", VoiceSpec("festival", "kal"))  # type: ignore[arg-type]
    with pytest.raises(ClipError, match="empty"):
        synth.espeak_pcm("  ")
    with pytest.raises(SynthesisError, match="does not exist"):
        synth.PiperSpeaker(Path("/nonexistent/voice.onnx"))
    with pytest.raises(SynthesisError, match="espeak-ng failed"):
        synth.espeak_pcm("one", voice="xx-nonexistent")


def test_write_session_orders_events_after_the_header(tmp_path: Path, sy: Synth) -> None:
    clip = synth.call_after_silence(sy.utterance("one", ESPEAK_VOICES[0]), 0.7)
    events = [{"t": 0.5, "type": "flip", "player": "Abby", "card": "racketeer"},
              {"t": 0.2, "type": "tick"}]
    path = synth.write_session(tmp_path / "s", {"game": "nasty7", "players": ["Abby", "Beth"]},
                               events, clip)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[0] == {"game": "nasty7", "players": ["Abby", "Beth"]}
    assert [e["type"] for e in lines[1:]] == ["audio", "tick", "flip"]
    assert (path.parent / lines[1]["path"]).is_file()
    with pytest.raises(ClipError, match="'t'"):
        synth.write_session(tmp_path / "bad", {}, [{"type": "tick"}], clip)


def test_a_short_game_replays_through_the_real_referee(tmp_path: Path, sy: Synth) -> None:
    # A whole game in one WAV plus its flips, through `companion replay` with
    # the default recognizer (pocketsphinx here: no English vosk model).
    script = [(0.5, "Abby", "racketeer", "one"), (2.5, "Beth", "racketeer", "two"),
              (4.5, "Abby", "phone", "hmm"), (6.5, "Beth", "gun", None),
              (8.5, "Abby", "twin_racketeer", "five six"), (11.0, "Abby", "racketeer", "seven")]
    clip = synth.render_turns([Turn(t, text, 0.7) for t, _, _, text in script], sy,
                              [PIPER_VOICES[0]], seed=2)
    assert clip.onsets == pytest.approx([1.2, 3.2, 5.2, 9.2, 11.7], abs=1 / RATE)
    events = [{"t": t, "type": "flip", "player": p, "card": c} for t, p, c, _ in script]
    path = synth.write_session(tmp_path, {"game": "nasty7", "players": ["Abby", "Beth"]},
                               events, clip)
    run = subprocess.run([sys.executable, "-m", "companion.cli", "replay", str(path)],
                         capture_output=True, text=True, check=False, timeout=300)
    assert run.returncode == 0, run.stderr
    rulings = [json.loads(line) for line in run.stdout.splitlines()]
    oks = {r["count"]: r for r in rulings if r["type"] == "call_ok"}
    # The count words of a clean Piper voice are heard and judged right, each
    # ruled at its onset as the VAD found it.
    for count, onset in ((1, 1.2), (2, 3.2), (6, 9.2), (7, 11.7)):
        assert count in oks, rulings
        assert oks[count]["t"] == pytest.approx(onset, abs=0.06)
    # The silent gun card is ruled right when the next card is flipped.
    assert oks[4]["t"] == pytest.approx(8.5)
    assert not [r for r in rulings if r["type"] == "mistake"]


def test_snr_is_set_by_active_speech_not_diluted_by_silence(sy: Synth) -> None:
    utt = sy.utterance("three", ESPEAK_VOICES[4])
    short = synth.call_after_silence(utt, 0.3, tail=0.3)
    long = synth.call_after_silence(utt, 0.3, tail=3.0)
    quiet_short = synth.add_noise(short, synth.white_noise(len(short.audio), seed=1), 10.0)
    quiet_long = synth.add_noise(long, synth.white_noise(len(long.audio), seed=1), 10.0)
    # the same call against the same SNR gets noise at the same level however
    # much silence surrounds it
    def noise_of(mix: synth.Clip, clean: synth.Clip) -> np.ndarray:
        return mix.audio.astype(np.int32) - clean.audio.astype(np.int32)

    assert synth.rms_dbfs(noise_of(quiet_short, short)) == pytest.approx(
        synth.rms_dbfs(noise_of(quiet_long, long)), abs=0.1)
    assert synth.rms_dbfs(quiet_long.audio[-RATE:]) == pytest.approx(
        synth.rms_dbfs(utt) - 10.0, abs=0.3)
