"""Steady noise told from talk (``Listener._steady``, ``Segmenter.floor_spread_db``):
in steady noise the caller's takes may rule a wrong number below the clear
SNR (``decision.Thresholds.template_wrong``), so the test must hold on real
recordings: the shared human sessions (FSDD voices of the development set)
in white noise and in talk. The decoder is scripted (one word for every
utterance) so only the stream's reading of the noise is under test; the
audio and the segmenter are real."""

from __future__ import annotations

import numpy as np
import pytest
from test_referee_stream import ScriptedRecognizer
from test_replay_human import SESSIONS

from companion.audio import synth
from companion.referee.decision import Evidence, Verdict
from companion.referee.judge import read_wav
from companion.referee.recognizer import Word
from companion.referee.stream import Listener
from companion.referee.templates import STEADY_SPREAD_DB
from companion.referee.vad import Segmenter

RATE = 16000


def utterances(condition: str, session: str) -> list[Evidence]:
    """The evidence of every decoded utterance of a shared session."""
    pcm, rate = read_wav(SESSIONS / "dev" / condition / f"{session}.wav")[:2]
    trace: list[tuple[Evidence, Verdict]] = []
    listener = Listener(ScriptedRecognizer([Word("one", 0.1, 0.6, 1.0)]), rate, trace=trace)
    listener.set_vocabulary(["one", "two"])
    listener.set_expected(["two"], "Abby", at=0.0)
    block = rate // 100 * 3
    for i in range(0, len(pcm), block):
        listener.feed(pcm[i:i + block], 0.0 if i == 0 else None)
    listener.flush()
    return [ev for ev, _ in trace if ev.decoded]


@pytest.mark.skipif(not SESSIONS.is_dir(), reason="../shared/human-calls is not here")
@pytest.mark.parametrize(("condition", "steady"), [
    ("clean", True), ("white10", True), ("babble10", False), ("farfield_babble15", False)])
def test_the_noise_under_calls_is_steady_in_hiss_and_never_in_talk(condition: str,
                                                                  steady: bool) -> None:
    for session in ("s000", "s003"):
        got = utterances(condition, session)
        assert len(got) >= 4
        assert [ev.steady for ev in got] == [steady] * len(got), session


def test_the_floor_spread_needs_a_second_and_tells_hiss_from_bursts() -> None:
    hiss = np.clip(synth.white_noise(3 * RATE, seed=3) * 300, -32768, 32767).astype(np.int16)
    seg = Segmenter(RATE)
    seg.push(hiss[:RATE // 2])
    assert seg.floor_spread_db is None  # half a second: not known yet
    seg.push(hiss[RATE // 2:])
    spread = seg.floor_spread_db
    assert spread is not None and spread <= STEADY_SPREAD_DB
    # The same hiss at a level that wanders over 20 dB every 0.1 s, as
    # clatter and voices do.
    levels = np.random.default_rng(5).uniform(0.0, 20.0, 30)
    gain = np.repeat(10 ** (levels / 20), RATE // 10)
    bursts = np.clip(synth.white_noise(3 * RATE, seed=3) * 300 * gain,
                     -32768, 32767).astype(np.int16)
    seg = Segmenter(RATE)
    seg.push(bursts)
    spread = seg.floor_spread_db
    assert spread is not None and spread > STEADY_SPREAD_DB
