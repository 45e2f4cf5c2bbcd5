"""The real sounddevice input path, fed by ALSA's ``file`` plugin from a WAV
(this machine has no sound card). Times come from sample counts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from live_rig import TableClock

from companion.audio.alsa_file import use_file_device
from companion.audio.microphone import RETRY_S, Block, Microphone, find_input
from companion.errors import AudioDeviceError
from companion.voice.pack import load_pack
from companion.voice.synth import render_wav


def _take(mic: Microphone, frames: int) -> list[Block]:
    got: list[Block] = []
    total = 0
    for _ in range(400):
        for block in mic.blocks(timeout=0.5):
            got.append(block)
            total += len(block.samples)
        if total >= frames:
            return got
    raise AssertionError(f"only {total} of {frames} frames arrived")


def _recorded(frames: int, **options: object) -> tuple[Microphone, list[Block]]:
    """A ``Microphone(**options)`` opened, read for ``frames`` and closed."""
    mic = Microphone(**options)  # type: ignore[arg-type]
    mic.open()
    try:
        return mic, _take(mic, frames)
    finally:
        mic.close()


@pytest.mark.slow
def test_blocks_carry_the_recording_and_times_from_sample_counts(tmp_path: Path) -> None:
    wav = render_wav("seven", tmp_path / "seven.wav", load_pack("en"))
    with use_file_device(tmp_path / "alsa", wav, rate=16000, lead_s=1.0, tail_s=1.0) as dev:
        assert find_input()[1] == 16000  # the device takes the recognizers' rate
        mic, blocks = _recorded(dev.frames, origin=50.0, queue_blocks=10_000)
    expected = np.fromfile(dev.infile, dtype="<i2")
    heard = np.concatenate([b.samples for b in blocks])[:dev.frames]
    assert np.array_equal(heard, expected)
    for block in blocks:
        assert block.rate == 16000
        assert block.t == pytest.approx(50.0 + block.index / 16000)
    # The word starts after the 1 s of lead silence: find it by sample count.
    onset_block = next(b for b in blocks if np.abs(b.samples).max() > 1000)
    assert onset_block.end > 50.95 and onset_block.t < 51.3
    assert mic.overflows == 0 and mic.dropped == 0


def test_the_device_rate_is_used_when_the_preferred_one_is_refused(tmp_path: Path) -> None:
    with use_file_device(tmp_path, None, rate=44100) as dev:
        mic = Microphone(rate=44100, origin=0.0, queue_blocks=10_000)
        mic.open()
        try:
            blocks = _take(mic, 44100)
        finally:
            mic.close()
        assert dev.rate == mic.rate == 44100
    assert blocks[1].t == pytest.approx(len(blocks[0].samples) / 44100)


def test_missing_microphone_is_an_audio_device_error() -> None:
    with pytest.raises(AudioDeviceError, match="no microphone"):
        Microphone("no such microphone").open()


def test_an_unplugged_microphone_is_announced_and_reopened(tmp_path: Path) -> None:
    with use_file_device(tmp_path, None, rate=16000):
        clock = TableClock(10.0)
        mic = Microphone(clock=clock, queue_blocks=10_000)
        mic.open()
        try:
            assert mic.check() is None
            # Unplugging is the one thing simulated: the stream stops as
            # PortAudio stops it when the USB device goes away.
            mic._stream.abort()
            assert mic.check() == "lost" and mic.lost
            assert mic.check() is None  # announced once
            clock.now += RETRY_S + 0.1
            assert mic.check() == "back" and not mic.lost
            assert _take(mic, 1600)
        finally:
            mic.close()


def test_a_second_file_device_is_read_without_restarting_portaudio(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # PortAudio's Pa_Terminate frees ALSA's global configuration whatever
    # still uses it (PortAudio issue #214): past the first file device of a
    # process, a new one is read by ALSA itself at the next open.
    import sounddevice as sd

    silence = tmp_path / "first"
    with use_file_device(silence, None, rate=16000):
        _, first_blocks = _recorded(1600, origin=0.0, queue_blocks=10_000)
    assert not np.concatenate([b.samples for b in first_blocks]).any()
    restarts: list[str] = []
    monkeypatch.setattr(sd, "_terminate", lambda: restarts.append("terminate"))
    wav = render_wav("seven", tmp_path / "seven.wav", load_pack("en"))
    with use_file_device(tmp_path / "second", wav, rate=16000, lead_s=0.0) as dev:
        _, blocks = _recorded(dev.frames, origin=0.0, queue_blocks=10_000)
    heard = np.concatenate([b.samples for b in blocks])[:dev.frames]
    assert np.array_equal(heard, np.fromfile(dev.infile, dtype="<i2"))
    assert restarts == []
    # Outside the block the device is gone, as an unplugged card is.
    with pytest.raises(AudioDeviceError, match="cannot be opened"):
        Microphone(origin=0.0).open()
