"""A recording as the microphone and a file as the speaker, through ALSA.

ALSA's ``file`` PCM plugin reads capture data from ``infile`` and writes
playback data to ``file``, over a ``null`` slave that takes and gives any
amount at once (so it runs faster than real time; times must come from sample
counts). With ``truncate false`` the plugin never overwrites: each playback
stream opened after the first writes a new file (``played.raw.0001``, ...),
and ``FileDevice.played`` joins them in order. ``use_file_device`` writes an
ALSA configuration that makes such a pair (an ``asym`` of a capture device
reading the recording and a playback device writing a file) ALSA's
``default`` and points ``ALSA_CONFIG_PATH`` at it. The first time in a process
it then restarts PortAudio, so sounddevice's device list holds those devices;
after that it does not: each configuration is a new file, and ALSA reads its
configuration again at the next device open when the list of files changed.
Restarting PortAudio each time was a hazard: its ``Pa_Terminate`` frees
ALSA's whole global configuration and unloads its plugins, whatever else in
the process still uses them (PortAudio issue #214), and a test worker of the
suite once died in the test after such a restart. Tests and the bench use it
to drive the real sounddevice input and output paths on a machine with no
sound card.

The plugin reads ``infile`` as raw samples (no WAV header) and, past its end,
returns stale buffer contents: give it a recording with enough trailing
silence, and stop reading at its length (``FileDevice.frames``).
"""

from __future__ import annotations

import os
import wave
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

CONFIG = """\
pcm.!default {{
    type asym
    playback.pcm "companion_speaker"
    capture.pcm "companion_microphone"
}}
pcm.companion_speaker {{
    type file
    slave.pcm "null"
    file "{outfile}"
    format "raw"
    truncate false
}}
pcm.companion_microphone {{
    type file
    slave.pcm "null"
    file "/dev/null"
    infile "{infile}"
    format "raw"
}}
pcm.null {{
    type null
}}
"""


@dataclass(frozen=True)
class FileDevice:
    """The device in use: the raw capture input, the raw playback output
    (16-bit little-endian mono at ``rate`` Hz), and the input's length."""

    config: Path
    infile: Path
    outfile: Path
    rate: int
    frames: int

    def streams(self) -> list[np.ndarray]:
        """The int16 samples each playback stream wrote, in the order opened
        (a stream's last buffer is padded with silence)."""
        files = sorted(self.outfile.parent.glob(self.outfile.name + "*"),
                       key=lambda p: (len(p.name), p.name))
        parts = [np.fromfile(p, dtype="<i2") for p in files]
        return [p for p in parts if len(p)]  # device probes open without playing

    def played(self) -> np.ndarray:
        """The int16 samples written to the speaker so far, every stream's
        file joined in the order written."""
        parts = self.streams()
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int16)


def write_raw_input(wav_path: Path | None, raw_path: Path, rate: int, *,
                    lead_s: float = 0.0, tail_s: float = 2.0, channels: int = 1) -> int:
    """Write a WAV (any rate, 16-bit) as raw int16 at ``rate`` Hz with
    ``lead_s`` seconds of silence before and ``tail_s`` after; return its
    length in frames. ``channels``: 1 keeps the WAV's first channel; more
    keeps that many, interleaved (a microphone array's recording; the
    capture stream must be opened with as many). ``wav_path`` None writes
    silence only."""
    samples = np.zeros((0, channels), dtype=np.float32)
    if wav_path is not None:
        with wave.open(str(wav_path), "rb") as wav:
            src_rate = wav.getframerate()
            have = wav.getnchannels()
            data = np.frombuffer(wav.readframes(wav.getnframes()), dtype="<i2")
        if have < channels:
            raise ValueError(f"{str(wav_path)!r} has {have} channels, not {channels}")
        samples = data.reshape(-1, have)[:, :channels].astype(np.float32) / 32768.0
        if src_rate != rate:
            import soxr

            samples = soxr.resample(samples, src_rate, rate)
    lead = np.zeros((round(lead_s * rate), channels), dtype=np.float32)
    tail = np.zeros((round(tail_s * rate), channels), dtype=np.float32)
    out = np.clip(np.concatenate([lead, samples, tail]) * 32768.0, -32768, 32767)
    out.astype("<i2").tofile(raw_path)
    return len(out)


_LISTED = False
"""Whether PortAudio's device list in this process was made while a file
device's configuration was ALSA's (so it holds ``default`` as one)."""


def _list_file_devices() -> None:
    """Restart PortAudio once per process, so its device list is made from
    a file device's configuration; later configurations need no restart."""
    global _LISTED
    if _LISTED:
        return
    import sounddevice as sd

    sd._terminate()
    sd._initialize()
    _LISTED = True


@contextmanager
def use_file_device(folder: Path, wav_path: Path | None = None, *, rate: int = 44100,
                    lead_s: float = 0.0, tail_s: float = 2.0,
                    channels: int = 1) -> Iterator[FileDevice]:
    """Make ALSA's default device read ``wav_path`` (resampled to ``rate`` Hz,
    the rate the device will be opened at; ``channels`` of it, see
    ``write_raw_input``) and write playback to
    ``folder/played.raw``, for the duration of the ``with`` block.
    Streams must be opened inside the block. The first call in a process
    restarts PortAudio, so no stream may be open then; after the block,
    PortAudio still lists the devices, and opening them fails (as an
    unplugged sound card does) until the next block."""
    folder.mkdir(parents=True, exist_ok=True)
    infile = folder / "mic.raw"
    outfile = folder / "played.raw"
    frames = write_raw_input(wav_path, infile, rate, lead_s=lead_s, tail_s=tail_s,
                             channels=channels)
    config = folder / "asound.conf"
    config.write_text(CONFIG.format(infile=infile, outfile=outfile), encoding="utf-8")
    before = os.environ.get("ALSA_CONFIG_PATH")
    os.environ["ALSA_CONFIG_PATH"] = str(config)
    _list_file_devices()
    try:
        yield FileDevice(config=config, infile=infile, outfile=outfile, rate=rate,
                         frames=frames)
    finally:
        if before is None:
            del os.environ["ALSA_CONFIG_PATH"]
        else:
            os.environ["ALSA_CONFIG_PATH"] = before
