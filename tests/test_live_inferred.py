"""Twenty flips of a real deck with buttons alone, at the live table.

A new table sets up a four-player Nasty 7 with a physical deck (no option
to set: the default) and nobody taps: every button press is a flip at once,
and the companion infers each card from the call it hears. One accusation
at the end is answered as the page's question is ("Which card did Beth
flip?"). Every ruling is heard (played to the end through the sound device)
and read (the sentence the terminal and the page's log show).

Real parts (``live_rig``): gpiozero's MockFactory pins (this machine has no
GPIO), the ALSA ``file`` device as microphone (a WAV of espeak-ng and Piper
speech: plumbing, not evidence for any threshold) and as speaker, pocketsphinx with
the live grammar, the SQLite log and the engine. The table clock is a value
the test moves forward, so presses land at chosen times against the
recording's sample-count times.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from live_rig import open_rig

from companion.audio import synth
from companion.audio.alsa_file import use_file_device
from companion.cli import main
from companion.games.nasty7 import CardShown
from companion.live import LiveTable
from companion.referee.stream import Listener
from companion.rulings import Ruling
from companion.voice.pack import load_pack
from companion.voice.phrases import sentence

pytestmark = pytest.mark.slow

RATE = 16000
PLAYERS = ["Abby", "Beth", "Carter", "Debbie"]
# (seat, press time in seconds, the call said 0.7 s later or None for silence)
FLIPS = [
    (0, 1.0, "one"),              # racketeer: 1
    (1, 3.0, "two"),              # racketeer: 2
    (2, 5.0, "three four"),       # twin racketeer: 4, Debbie skips
    (0, 7.0, "hmm"),              # phone (the round's sound hmmrrr, said "hmm"): 5
    (1, 9.0, None),               # silence: a gun, 6, nothing ruled
    (2, 11.0, "seven"),           # 7
    (3, 13.0, "six"),             # 6, counting down
    (0, 15.0, "five"),            # 5
    (1, 17.0, "three"),           # wrong number (four): Beth takes the pile
    (1, 19.0, "one"),             # Beth starts the new round
    (2, 21.0, "two"),
    (3, 23.0, "three"),
    (0, 25.0, "four five"),       # twin racketeer: Beth skips
    (2, 27.0, "six"),
    (3, 29.0, "seven"),
    (0, 31.0, "six"),
    (1, 33.0, "five"),
    (2, 35.0, "four"),
    (3, 37.0, "three"),
    (0, 39.0, "two"),
]
PIPER = {"hmm", "seven"}
"""Calls said in Piper's voice (``en_US-joe-medium``): pocketsphinx hears
espeak-ng's "seven" as "two one" and its hum as "two"; the others are
espeak-ng's."""
ACCUSE_AT = 41.0  # Carter accuses Abby's "two"
ANSWER_AT = 42.5  # the table answers: a racketeer


def _recording(path: Path) -> Path:
    maker = synth.Synth()
    espeak = synth.VoiceSpec("espeak-ng", "en-us")
    piper = synth.VoiceSpec("piper", "en_US-joe-medium")
    clip = synth.place([(at + 0.7, maker.utterance(words, piper if words in PIPER else espeak,
                                                   rate=RATE), words)
                        for _seat, at, words in FLIPS if words],
                       seconds=ACCUSE_AT + 4.0, rate=RATE)
    return synth.write_wav(path, clip.audio, RATE)


def test_twenty_flips_of_a_real_deck_with_buttons_alone(tmp_path: Path) -> None:
    pack = load_pack("en")
    wav = _recording(tmp_path / "calls.wav")
    printed: list[tuple[Ruling | None, str]] = []
    with use_file_device(tmp_path / "alsa", wav, rate=RATE, tail_s=0.0) as device:
        rig = open_rig(tmp_path, pack, device)
        hub = rig.hub
        table = hub.new_game("nasty7", PLAYERS, {})
        rig.record()
        rig.live = LiveTable(
            hub, board=rig.board, microphone=rig.mic,
            listener_for=lambda rate: Listener(rig.recognizer, rate), speaker=rig.speaker,
            on_ruling=lambda r, line: printed.append((r, line)))
        rig.live.step()
        for seat, at, _words in FLIPS:
            rig.press(seat, at)
            # The press alone is the flip: applied at once, no card, no wait.
            flip = [e for e in table.match.effective if e.type == "flip"][-1]
            assert flip.player == PLAYERS[seat] and flip.card is None
            assert flip.t == pytest.approx(at, abs=0.01)
        rig.until(ACCUSE_AT - 0.2)
        view = table.view()["state"]
        assert view["call"]["player"] == "Abby" and view["call"]["card"] == "racketeer"
        assert view["call"]["card_from"] == "inferred"
        rig.press(2, ACCUSE_AT)  # Carter accuses Abby
        rig.until(ANSWER_AT - 0.5)
        assert table.view()["state"]["question"] == {"player": "Abby", "by": ["Carter"]}
        rig.press(1, ANSWER_AT - 0.3)  # a press while the table is asked means nothing
        # The page's question posts what the table answers.
        hub.submit(CardShown(t=ANSWER_AT, player="Abby", card="racketeer"))
        rig.until(ANSWER_AT + 1.0)
        rig.close()

    rulings = table.rulings
    kinds = [(r.type, getattr(r, "player", None), getattr(r, "kind", None)) for r in rulings]
    oks = [r.to_dict()["count"] for r in rulings if r.type == "call_ok"]
    # Every call but the silence and the wrong number; a twin's is one ruling.
    assert oks == [1, 2, 4, 5, 7, 6, 5, 1, 2, 3, 5, 6, 7, 6, 5, 4, 3, 2], kinds
    assert [k for k in kinds if k[0] != "call_ok"] == [
        ("mistake", "Beth", "wrong_number"), ("pile", "Beth", None), ("round", None, None),
        ("card_question", "Abby", None),
        ("mistake", "Carter", "false_accusation"), ("pile", "Carter", None),
        ("round", None, None),
    ]
    assert [e.type for e in table.match.effective].count("flip") == 20
    assert "accuse" in [e.type for e in table.match.effective]
    # Heard and read: every ruling with words was printed as its sentence and
    # played to the end through the sound device.
    spoken = [u.text for u in rig.speaker.spoken if u.completed]
    for ruling in rulings:
        line = sentence(ruling, pack)
        if ruling.type == "call_ok":
            assert line == ""
            continue
        assert line and (ruling, line) in printed, ruling
        assert line in spoken, line
    assert "Which card did Abby flip?" in spoken
    assert "Beth: wrong number. I heard three, it was four." in spoken
    assert rig.live.errors == []
    # The log with its inferred cards replays to the same rulings.
    result = CliRunner().invoke(main, ["replay", "--game", str(table.game_id),
                                       "--db", str(tmp_path / "log.sqlite3")])
    assert result.exit_code == 0, result.output
    assert [json.loads(line) for line in result.output.splitlines()] == [
        r.to_dict() for r in rulings]
