"""``companion replay`` on sessions with an ``audio`` event: a WAV rendered
here (Piper and espeak-ng) plus the flips, heard by pocketsphinx, judged by
the Nasty 7 engine: right calls, a wrong number, a silent gun card, a twin
call, a hesitation, and weak evidence that must not become a mistake."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from companion.audio import synth
from companion.audio.synth import Synth, VoiceSpec
from companion.cli import main

pytestmark = pytest.mark.slow

PIPER = VoiceSpec("piper", "en_US-joe-medium", 1.0)
ESPEAK = VoiceSpec("espeak-ng", "en-us+f2", 1.15, 60)
PLAYERS = ["Abby", "Beth", "Carter", "Debbie"]


@pytest.fixture(scope="module")
def sy() -> Synth:
    return Synth()


def write_session(tmp_path: Path, sy: Synth, turns: list[tuple[float, str, str, str | None,
                                                               float, VoiceSpec]],
                  *, seconds: float, options: dict[str, Any] | None = None) -> Path:
    """turns: (flip time, player, card, words or None, delay of the call, voice)."""
    utterances = [(t + delay, sy.utterance(text, voice), text)
                  for t, _, _, text, delay, voice in turns if text is not None]
    clip = synth.add_floor(synth.place(utterances, seconds=seconds), seed=5)
    synth.write_wav(tmp_path / "table.wav", clip.audio, clip.rate)
    lines: list[dict[str, Any]] = [
        {"game": "nasty7", "players": PLAYERS, "options": options or {}},
        {"t": 0.0, "type": "audio", "path": "table.wav"}]
    lines += [{"t": t, "type": "flip", "player": p, "card": c} for t, p, c, *_ in turns]
    lines.append({"t": seconds + 1.0, "type": "tick"})
    session = tmp_path / "game.jsonl"
    session.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return session


def replay(session: Path, *extra: str) -> list[dict[str, Any]]:
    result = CliRunner().invoke(main, ["replay", "--recognizer", "pocketsphinx",
                                       *extra, str(session)])
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]


def test_replay_rules_right_calls_a_wrong_number_and_a_hesitation(sy: Synth,
                                                                  tmp_path: Path) -> None:
    turns = [
        (1.0, "Abby", "racketeer", "one", 0.5, PIPER),
        (3.0, "Beth", "racketeer", "two", 0.6, ESPEAK),
        (5.0, "Carter", "gun", None, 0.0, PIPER),
        (7.0, "Debbie", "racketeer", "four", 0.5, PIPER),
        (9.0, "Abby", "twin_racketeer", "five six", 0.5, PIPER),
        (11.5, "Carter", "racketeer", "three", 0.5, PIPER),  # seven was due
        (15.0, "Debbie", "racketeer", "six", 4.2, PIPER),  # far past the 3 s limit
    ]
    rulings = replay(write_session(tmp_path, sy, turns, seconds=21.0))
    oks = [(r["player"], r["count"]) for r in rulings if r["type"] == "call_ok"]
    assert oks == [("Abby", 1), ("Beth", 2), ("Carter", 3), ("Debbie", 4), ("Abby", 6)]
    mistakes = [(r["player"], r["kind"]) for r in rulings if r["type"] == "mistake"]
    # The wrong "three" is never taken for the seven. At the operating point
    # chosen on human voices (companion.referee.decision) a wrong number is
    # ruled by ear only when heard beyond doubt; this one is left unsure (the
    # players may accuse), play goes on to Debbie, whose late call is a
    # hesitation.
    assert mistakes == [("Debbie", "hesitation")]
    late = next(r for r in rulings if r["type"] == "mistake")
    assert late["t"] == pytest.approx(18.0, abs=0.01)  # the flip + 3 s


def test_a_call_just_inside_the_limit_is_not_a_hesitation(sy: Synth, tmp_path: Path) -> None:
    turns = [(1.0, "Abby", "racketeer", "one", 2.6, PIPER),
             (5.0, "Beth", "racketeer", "two", 2.7, PIPER)]
    rulings = replay(write_session(tmp_path, sy, turns, seconds=9.0))
    assert [r["type"] for r in rulings] == ["call_ok", "call_ok"]


def test_table_talk_on_a_gun_card_is_no_mistake(sy: Synth, tmp_path: Path) -> None:
    """Someone says something that is no game word while a gun card is
    pending: speech without a game word is weak and never a mistake."""
    turns = [(1.0, "Abby", "racketeer", "one", 0.5, PIPER),
             (3.0, "Beth", "gun", "pass me the salt", 0.8, PIPER),
             (6.0, "Carter", "racketeer", "three", 0.5, PIPER)]
    rulings = replay(write_session(tmp_path, sy, turns, seconds=8.0))
    assert not [r for r in rulings if r["type"] == "mistake"], rulings
    assert [(r["player"], r["count"]) for r in rulings if r["type"] == "call_ok"][-1] == (
        "Carter", 3)


def test_a_missing_recording_is_one_line_naming_the_event(tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    session.write_text(json.dumps({"game": "nasty7", "players": PLAYERS}) + "\n"
                       + json.dumps({"t": 0.0, "type": "audio", "path": "gone.wav"}) + "\n")
    result = CliRunner().invoke(main, ["replay", "--recognizer", "pocketsphinx", str(session)])
    assert result.exit_code == 2
    assert "line 2" in result.output and "'path'" in result.output and "gone.wav" in result.output
    assert result.output.count("\n") == 1


def test_a_recording_that_is_not_16_bit_is_refused(tmp_path: Path) -> None:
    import wave

    with wave.open(str(tmp_path / "x.wav"), "wb") as wf:
        wf.setnchannels(1)
        wf.setsampwidth(1)
        wf.setframerate(8000)
        wf.writeframes(bytes(800))
    session = tmp_path / "s.jsonl"
    session.write_text(json.dumps({"game": "nasty7", "players": PLAYERS}) + "\n"
                       + json.dumps({"t": 0.0, "type": "audio", "path": "x.wav"}) + "\n")
    result = CliRunner().invoke(main, ["replay", "--recognizer", "pocketsphinx", str(session)])
    assert result.exit_code == 2
    assert "16-bit" in result.output and "line 2" in result.output


def test_nasty_rules_the_first_phone_players_sound_is_heard_and_kept(
        sy: Synth, tmp_path: Path) -> None:
    """Nasty rules: after the first round, the round's first phone player
    picks the sound. The grammar then holds every offered sound of the pack;
    "bingo" is heard, becomes the round's sound, and a later phone card is
    judged against it."""
    turns = [
        (1.0, "Abby", "racketeer", "one", 0.5, PIPER),
        (3.0, "Beth", "racketeer", "two", 3.5, PIPER),  # too slow: new round, Beth
        (8.5, "Beth", "phone", "bingo", 0.6, PIPER),  # count 1, Beth picks the sound
        (11.0, "Carter", "racketeer", "two", 0.5, PIPER),
        (13.5, "Debbie", "phone", "bingo", 0.6, PIPER),  # count 3, the round's sound
    ]
    rulings = replay(write_session(tmp_path, sy, turns, seconds=16.5,
                                   options={"nasty": True}))
    sounds = [(r["player"], r["sound"]) for r in rulings if r["type"] == "sound_set"]
    assert sounds == [("Beth", "bingo")]
    oks = [(r["player"], r["count"]) for r in rulings if r["type"] == "call_ok"]
    assert oks == [("Abby", 1), ("Beth", 1), ("Carter", 2), ("Debbie", 3)]
    assert [(r["player"], r["kind"]) for r in rulings if r["type"] == "mistake"] == [
        ("Beth", "hesitation")]


def vowel_of(pcm: np.ndarray, frames: int = 5) -> np.ndarray:
    """The loudest ``frames`` 10 ms frames of an utterance at 16 kHz."""
    x = pcm.astype(np.float64)
    n = frames * 160
    start = int(np.argmax(np.convolve(x ** 2, np.ones(n), mode="valid")))
    return np.round(x[start:start + n]).astype(np.int16)


@pytest.mark.parametrize("beth", ["vowel", "silent"])
def test_a_call_heard_only_as_a_short_voice_in_loud_noise_is_no_hesitation(
        sy: Synth, tmp_path: Path, beth: str) -> None:
    """White noise 10 dB below the calls. Beth's "two" is only its vowel, 50
    ms (in loud noise the rest of a short call can sink below the noise):
    too short to decode, but a voice was heard in her window, so it closes
    unsure, not as a hesitation. Silent, her window is still a hesitation."""
    calls = [(1.5, sy.utterance("one", PIPER), "one"),
             (6.5, sy.utterance("three", PIPER), "three")]
    if beth == "vowel":
        calls.append((3.8, vowel_of(sy.utterance("two", PIPER)), "two"))
    clip = synth.place(sorted(calls, key=lambda c: c[0]), seconds=9.0)
    clip = synth.add_noise(clip, synth.white_noise(len(clip.audio), seed=9), 10.0)
    synth.write_wav(tmp_path / "table.wav", clip.audio, clip.rate)
    flips = [(1.0, "Abby"), (3.0, "Beth"), (6.0, "Carter")]
    lines: list[dict[str, Any]] = [
        {"game": "nasty7", "players": PLAYERS, "options": {}},
        {"t": 0.0, "type": "audio", "path": "table.wav"},
        *({"t": t, "type": "flip", "player": p, "card": "racketeer"} for t, p in flips),
        {"t": 10.0, "type": "tick"}]
    session = tmp_path / "game.jsonl"
    session.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    rulings = replay(session)
    mistakes = [(r["player"], r["kind"]) for r in rulings if r["type"] == "mistake"]
    assert mistakes == ([] if beth == "vowel" else [("Beth", "hesitation")])
    if beth == "vowel":  # play went on past her window: Carter's call was judged
        assert ("Carter", 3) in [(r["player"], r["count"]) for r in rulings
                                 if r["type"] == "call_ok"]
