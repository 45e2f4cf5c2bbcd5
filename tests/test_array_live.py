"""A microphone array at the live table (issue 18): every channel captured
through the real sounddevice path, steered, and who spoke applied to Cheat.

Real parts: a 4-channel recording of a room (pyroomacoustics, the 4-mic
array's geometry) read by ALSA's ``file`` plugin and captured with
sounddevice; Piper speech for the words (plumbing only: no threshold is
chosen on it); pocketsphinx; gpiozero's MockFactory pins; the live table
loop. Stand-ins as in tests/test_cheat_game.py: the table clock is a value
the test moves, and ``Paced`` hands blocks over once the clock has passed them.
"""

from __future__ import annotations

import sys
import wave
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from live_rig import Rig, open_rig
from test_cheat_game import Paced

from companion.audio import synth
from companion.audio.alsa_file import use_file_device
from companion.audio.array import Seating
from companion.audio.microphone import Microphone
from companion.live import LiveTable
from companion.referee.steered import SteeredEar
from companion.referee.stream import Listener
from companion.voice.pack import load_pack
from companion.voice_setup import TakeStore, VoiceSetup, attach

pytest.importorskip("pyroomacoustics")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import roomsim

RATE = 16000
PLAYERS = ["Abby", "Beth", "Carter", "Debbie"]
SEATS = {"Abby": 10.0, "Beth": 100.0, "Carter": 190.0, "Debbie": 280.0}
VOICE = synth.VoiceSpec("piper", synth.PIPER_MODEL, 1.0)


def _write(path: Path, pcm: np.ndarray) -> Path:
    with wave.open(str(path), "wb") as wf:
        wf.setnchannels(pcm.shape[1])
        wf.setsampwidth(2)
        wf.setframerate(RATE)
        wf.writeframes(np.ascontiguousarray(pcm).tobytes())
    return path


@contextmanager
def _array_table(tmp_path: Path, scene: np.ndarray, game: str,
                 before: Callable[[Rig], None] | None = None) -> Iterator[tuple[Rig, LiveTable]]:
    """A live table of ``PLAYERS`` at ``game`` (``before``: what to do with
    the rig before the game starts), hearing ``scene`` (int16 ``(n, 4)``)
    through the 4-mic array read by ALSA's file plugin, steered by the ear
    at ``SEATS``."""
    wav = _write(tmp_path / "table.wav", scene)
    seating = Seating(positions=tuple(map(tuple, roomsim.ARRAYS["usb4"])), seats=SEATS)
    with use_file_device(tmp_path / "alsa", wav, rate=RATE, tail_s=0.0, channels=4) as device:
        rig = open_rig(tmp_path, load_pack("en"), device)
        rig.mic = Microphone(clock=rig.clock, origin=0.0, queue_blocks=100_000,
                             max_frames=device.frames, channels=4)
        if before is not None:
            before(rig)
        rig.hub.new_game(game, PLAYERS, {})
        rig.record()
        live = rig.live = LiveTable(
            rig.hub, board=rig.board, microphone=Paced(rig.mic, rig.clock),
            listener_for=lambda rate: Listener(rig.recognizer, rate), speaker=rig.speaker,
            ear_for=lambda rate: SteeredEar(seating, rate))
        yield rig, live


def test_every_channel_is_captured_with_sample_count_times(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    pcm = (rng.normal(0, 3000, (RATE, 4))).astype(np.int16)
    wav = _write(tmp_path / "four.wav", pcm)
    with use_file_device(tmp_path / "alsa", wav, rate=RATE, tail_s=0.5, channels=4) as dev:
        mic = Microphone(origin=10.0, queue_blocks=10_000, max_frames=dev.frames, channels=4)
        mic.open()
        try:
            got = []
            for _ in range(500):
                got += list(mic.blocks(timeout=0.05))
                if mic.finished and not mic.waiting:
                    break
        finally:
            mic.close()
    heard = np.concatenate([b.samples for b in got])
    assert heard.shape == (dev.frames, 4)
    assert np.array_equal(heard[:RATE], pcm)
    assert mic.opened_channels == 4
    for block in got:
        assert block.t == pytest.approx(10.0 + block.index / RATE)


@pytest.mark.slow
def test_a_spoken_cheat_is_the_challenge_of_the_seat_it_came_from(tmp_path: Path) -> None:
    # Abby puts her cards down; Beth, from her own seat, says a claim first:
    # not taken (a claim is the claimant's). Abby claims two kings; Carter
    # says "cheat" from his seat; then Debbie presses her button, later than
    # Carter's onset: Carter's challenge stands. Nobody names Carter: the
    # array heard where it came from.
    maker = synth.Synth()

    def words(text: str) -> np.ndarray:
        return maker.utterance(text, VOICE, rate=RATE).astype(np.float64) / 32768.0

    scene = roomsim.render_scene([(SEATS["Beth"], 1.3, words("three queens")),
                                  (SEATS["Abby"], 3.3, words("two kings")),
                                  (SEATS["Carter"], 6.0, words("cheat"))],
                                 seconds=10.0, seed=2)
    with _array_table(tmp_path, scene, "cheat") as (rig, live):
        live.step()
        rig.press(0, 1.0)   # Abby puts her cards down, then says her claim
        rig.press(3, 6.6)   # Debbie calls cheat with her button, after Carter spoke
        rig.until(9.5)
        rig.close()
    said = [(r.type, getattr(r, "player", None)) for r in rig.hub.table.rulings]
    heard = [e for e in rig.hub.table.match.effective if e.type == "say"]
    assert said[:3] == [("claim_ok", "Abby"), ("challenge", "Carter"),
                        ("challenge_ignored", "Debbie")], (said, heard)
    assert [(e.text, e.seat) for e in heard] == [
        ("three queens", "Beth"), ("two kings", "Abby"), ("cheat", "Carter")]
    assert live.errors == []


@pytest.mark.slow
def test_while_a_player_records_a_take_the_array_listens_toward_them(tmp_path: Path) -> None:
    # The Nasty 7, Abby to flip first: the array is steered at her. Beth is
    # asked for her take of "one" on the voices page: from then on the
    # array listens toward Beth's seat, her take is kept (no call), and with
    # her takes done it turns back to Abby, whose turn it is.
    maker = synth.Synth()
    take = maker.utterance("one", VOICE, rate=RATE).astype(np.float64) / 32768.0
    scene = roomsim.render_scene([(SEATS["Beth"], 1.5, take)], seconds=4.0, seed=3)
    setup = VoiceSetup(["one"], TakeStore(tmp_path), rounds=1)
    with _array_table(tmp_path, scene, "nasty7", lambda rig: attach(setup, rig.hub)
                      ) as (rig, live):
        live.step()
        rig.until(0.5)
        assert live.ear.target == "Abby"
        setup.start(["Beth"])
        rig.until(1.0)
        assert live.ear.target == "Beth"
        rig.until(3.9)
        rig.close()
    assert live.errors == []
    assert setup.held("Beth") == 1 and setup.prompt is None
    assert rig.hub.table is not None and rig.hub.table.rulings == []
    assert live.ear.target == "Abby"
