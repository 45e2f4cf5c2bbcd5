"""Spoken rulings: real espeak-ng through pyttsx3, played through a real
PortAudio stream into an ALSA ``file`` device (this machine has no sound card)."""

from __future__ import annotations

import dataclasses
import time
import wave
from pathlib import Path

import numpy as np
import pytest

from companion.audio.alsa_file import use_file_device
from companion.voice.pack import load_pack
from companion.voice.speaker import Priority, Speaker, find_output, open_speaker
from companion.voice.speaking import SpeakingLog
from companion.voice.synth import SYNTH_RATE_HZ, read_wav, render, render_wav

pytestmark = pytest.mark.slow
PACK = load_pack("en")


def _rms(samples: np.ndarray) -> float:
    return float(np.sqrt(np.mean(samples.astype(np.float64) ** 2)))


def test_render_wav_is_speech_of_plausible_length(tmp_path: Path) -> None:
    text = "Abby: wrong number, it was five."
    path = render_wav(text, tmp_path / "ruling.wav", PACK)
    with wave.open(str(path)) as wav:
        assert wav.getframerate() == SYNTH_RATE_HZ
        assert wav.getnchannels() == 1 and wav.getsampwidth() == 2
    rendered = read_wav(path)
    # Six words at 175 words a minute last about two seconds; allow pauses.
    assert 1.0 < rendered.seconds < 5.0
    assert _rms(rendered.samples) > 300  # far above digital silence (0)
    assert np.abs(rendered.samples).max() > 3000


def test_each_file_gets_its_own_render(tmp_path: Path) -> None:
    short = read_wav(render_wav("Go.", tmp_path / "a.wav", PACK))
    long = read_wav(render_wav("Beth takes eleven cards. New round. Beth starts at one.",
                               tmp_path / "b.wav", PACK))
    assert long.seconds > 2 * short.seconds


def test_a_file_espeak_left_silent_is_rendered_again(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # espeak-ng now and then writes no samples; that race cannot be made to
    # happen on demand, so the first request here is sent to another file
    # (the one asked for stays empty, as the race leaves it). The second
    # render is real espeak-ng.
    from companion.voice import synth

    target = tmp_path / "ruling.wav"
    target.write_bytes(b"")
    engine = synth._engine(PACK.espeak_voice, synth.DEFAULT_WORDS_PER_MINUTE)
    real = engine.save_to_file
    asked: list[str] = []

    def first_lost(text: str, filename: str) -> None:
        asked.append(filename)
        real(text, filename if len(asked) > 1 else str(tmp_path / "elsewhere.wav"))

    monkeypatch.setattr(engine, "save_to_file", first_lost)
    rendered = read_wav(render_wav("Carter: too late.", target, PACK))
    assert asked == [str(target), str(target)]
    assert rendered.seconds > 0.5 and _rms(rendered.samples) > 300
    # Never more than once again: a second silent file is an error naming it.
    monkeypatch.setattr(engine, "save_to_file", lambda text, filename: None)
    with pytest.raises(synth.SpeechOutputError, match="wrote no audio"):
        render_wav("Carter: too late.", tmp_path / "never.wav", PACK)


def test_nothing_to_say_is_no_samples_and_never_reaches_espeak(tmp_path: Path) -> None:
    # pyttsx3's espeak driver crashes the process on empty text (its issue
    # #140); a sentence with nothing left to say is a file of no samples.
    for text in ("", "   "):
        rendered = read_wav(render_wav(text, tmp_path / "empty.wav", PACK))
        assert (rendered.samples.size, rendered.rate) == (0, SYNTH_RATE_HZ)
    assert render("Go.", PACK).samples.size > 0  # espeak-ng still speaks after it


def test_respelling_keeps_espeak_from_spelling_the_sound() -> None:
    plain = dataclasses.replace(PACK, respell={})
    spelled = render("hmmrrr", plain)   # espeak reads it letter by letter
    respelled = render("hmmrrr", PACK)  # the pack says "hmm"
    assert respelled.seconds < spelled.seconds / 2


def test_no_sound_device_is_one_warning_and_no_crash() -> None:
    warnings: list[str] = []
    speaker = open_speaker(PACK, device="no such speaker", warn=warnings.append)
    assert not speaker.available
    for line in ("Abby: too slow.", "Beth takes 4 cards.", "New round."):
        speaker.say(line)
    speaker.close()
    assert len(warnings) == 1 and "no sound output device" in warnings[0]
    assert speaker.status == "no sound device" and speaker.name == "none"
    assert [u.text for u in speaker.spoken] == ["Abby: too slow.", "Beth takes 4 cards.",
                                                "New round."]
    assert all(u.start is None for u in speaker.spoken)


def test_speech_is_played_through_the_sound_device(tmp_path: Path) -> None:
    with use_file_device(tmp_path) as device:
        output = find_output()
        speaker = Speaker(PACK, output)
        speaker.say("Carter wins the game!")
        speaker.close()
        played = device.played()
    (said,) = speaker.spoken
    assert said.completed and said.start is not None and said.end is not None
    expected = render("Carter wins the game!", PACK)
    seconds = len(played) / output.rate
    assert abs(seconds - expected.seconds) < 0.2  # only buffer padding added
    assert _rms(played) > 300
    assert speaker.speaking.overlaps(said.start) and speaker.speaking.overlaps(said.end)


def test_a_ruling_goes_before_queued_chatter(tmp_path: Path) -> None:
    with use_file_device(tmp_path):
        speaker = Speaker(PACK, find_output())
        first = speaker.say("Abby: wrong number, it was two.")
        chatter = speaker.say("The page is at one nine two dot one six eight.",
                              Priority.CHATTER)
        ruling = speaker.say("Abby takes nine cards.")
        speaker.close()
    order = [u.text for u in speaker.spoken]
    assert order.index(ruling.text) < order.index(chatter.text)
    assert first.completed and ruling.completed
    assert chatter.interrupted and not chatter.completed and chatter.start is None


def test_speaking_log_intervals() -> None:
    log = SpeakingLog()
    log.begin(10.0)
    assert log.is_speaking() and log.overlaps(50.0)
    log.end(12.0, tail=0.25)
    assert not log.is_speaking()
    assert log.overlaps(11.0) and log.overlaps(12.2) and not log.overlaps(12.3)
    assert log.overlaps(9.0, 10.0) and not log.overlaps(8.0, 9.9)


def test_a_ruling_cuts_chatter_that_is_playing(tmp_path: Path) -> None:
    # Long chatter (about three minutes of speech): the ALSA file device plays
    # it faster than real time, but still for long enough to be cut.
    chatter_text = " ".join(["The control page is at one nine two dot one six eight dot "
                             "one dot twenty, port eight thousand and eighty."] * 25)
    with use_file_device(tmp_path) as device:
        speaker = Speaker(PACK, find_output())
        chatter = speaker.say(chatter_text, Priority.CHATTER)
        deadline = time.monotonic() + 60
        while chatter.start is None and time.monotonic() < deadline:
            time.sleep(0.001)
        ruling = speaker.say("Abby takes nine cards.")
        speaker.close()
        streams = device.streams()
    assert chatter.interrupted and not chatter.completed
    assert ruling.completed
    assert [u.text for u in speaker.spoken] == [chatter_text, ruling.text]
    full = render(chatter_text, PACK)
    assert len(streams) == 2 and len(streams[0]) < len(full.samples)
    assert len(speaker.speaking.intervals()) == 2
