"""A call rising out of table talk is cut into an utterance of its own
(``VadSettings.cut_rise_db``), and its end is found where the level falls
back to the talk's (``VadSettings.fall_db``), on real voices: the shared human-voice
development sessions of ``../shared/human-calls`` (FSDD speakers, real
conversation as talk), their truth from ``truth.jsonl``."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

import pytest
from test_referee_stream import ScriptedRecognizer
from test_replay_human import SESSIONS, enrolled_copy, replay, replay_file, truth

from companion.referee.judge import read_wav
from companion.referee.recognizer import Spellings, Word
from companion.referee.sphinx_backend import SphinxRecognizer
from companion.referee.stream import EARLY_S, Listener
from companion.referee.vad import Segment, Segmenter, VadSettings
from companion.voice.pack import load_pack

pytestmark = pytest.mark.skipif(not SESSIONS.is_dir(), reason="../shared/human-calls is not here")


def segments(condition: str, session: str, settings: VadSettings | None = None,
             ) -> tuple[list[Segment], int]:
    pcm, rate = read_wav(SESSIONS / "dev" / condition / f"{session}.wav")[:2]
    seg = Segmenter(rate, settings)
    return seg.push(pcm) + seg.flush(), rate


def test_quiet_and_steady_noise_never_cut_an_utterance() -> None:
    """Without talk nothing rises out of an utterance a second long: every
    call of the clean and white-noise sessions stays whole, as before."""
    for condition in ("clean", "white10"):
        for wav in sorted((SESSIONS / "dev" / condition).glob("s*.wav")):
            got, _ = segments(condition, wav.stem)
            assert got and not [s for s in got if s.rise or s.risen], (condition, wav.stem)


def test_a_call_inside_talk_gets_an_utterance_with_its_own_onset() -> None:
    """s000, talk at 10 dB: Lucas's "one" comes 1.4 s into talk that
    webrtcvad hears as one utterance. The talk ends where his voice rises,
    and his call opens an utterance of its own within 50 ms of his onset.
    Without the cut the utterance holding the call began on the talk."""
    call = truth("s000")["calls"][0]
    got, rate = segments("babble10", "s000")
    ended = [s for s in got if s.rise and s.end / rate <= call["onset_t"] + 0.05]
    assert ended, "the talk before the call was not cut"
    after = min((s for s in got if s.onset / rate >= ended[-1].onset / rate),
                key=lambda s: abs(s.onset / rate - call["onset_t"]))
    assert after.onset / rate == pytest.approx(call["onset_t"], abs=0.05)
    assert after.risen  # so the decision never rules it a mistake on its own
    whole, _ = segments("babble10", "s000", VadSettings(cut_rise_db=0.0))
    holding = [s for s in whole if s.onset <= call["onset_t"] * rate <= s.onset + len(s.pcm)]
    assert holding and holding[0].onset / rate < call["onset_t"] - 1.0


def test_a_call_cut_out_of_talk_is_ruled_right_by_companion_replay() -> None:
    """The same round through ``companion replay``: the "one" is ruled
    ``call_ok`` for Abby (with the talk decoded with it, it was left
    without a ruling), and no mistake is ruled in the round."""
    call = truth("s000")["calls"][0]
    rulings = replay("babble10", "s000")
    assert (call["player"], 1) in {(r["player"], r["count"]) for r in rulings
                                   if r["type"] == "call_ok"}
    assert not [r for r in rulings if r["type"] == "mistake"]


def test_a_flip_during_cut_talk_is_applied_before_the_next_utterance(tmp_path: Path) -> None:
    """The replay lets the utterance open at an event end before applying
    it, but not the utterances that rose out of it: in far field s007
    (enrolled) talk runs on for seconds after Carter's "three", and
    Debbie's "four" after her flip must be judged against the four (the
    replay once fed on until all the talk had ended, and the four was
    judged with no call owed and left without a ruling). No mistake is
    ruled but the late call's hesitation: Beth's six comes more than
    3 seconds after her flip, but talk from the next seats opens an
    utterance 0.2 s after it, and whether that utterance is a voice in
    her window (no hesitation) or quieter talk turns on a dB or two of
    the recent calls' level (``Thresholds.quiet_db``), so the hesitation
    is ruled in some versions of the ear and missed in others (missed
    since the early endpoint where the level falls back)."""
    t = truth("s007")
    four = next(c for c in t["calls"] if c["count"] == 4)
    rulings = replay_file(enrolled_copy(tmp_path, "farfield_babble15", "s007"))
    late = t["calls"][-1]  # Beth's six comes after the 3 seconds
    assert late["kind"] == "late"
    assert {(r["player"], r["kind"], r["t"] >= late["flip_t"]) for r in rulings
            if r["type"] == "mistake"} <= {(late["player"], "hesitation", True)}
    assert (four["player"], 4) in {(r["player"], r["count"]) for r in rulings
                                   if r["type"] == "call_ok"}


def test_the_call_owed_after_a_cut_utterance_holds_for_the_voice_risen_out_of_it() -> None:
    """s000, talk at 10 dB, cut where Lucas's voice rises out of the talk.
    The words of the utterance that ended at the cut may change the call
    owed (the first number of a twin heard: what is left of it is owed);
    the game says so once that utterance is decided, while the riser is
    open. The riser is judged by the change, not by the call owed before
    (it was, and a twin cut between its numbers had its second number
    judged as its first again: "six six", a wrong number). The decoder is
    scripted (one "one" for every utterance) so only the order of the
    changes is under test; the audio and the segmenter are real."""
    pcm, rate = read_wav(SESSIONS / "dev" / "babble10" / "s000.wav")[:2]
    trace: list = []
    listener = Listener(ScriptedRecognizer([Word("one", 0.0, 0.3, 1.0)]), rate, trace=trace)
    listener.set_vocabulary(["one", "two", "three"])
    listener.set_expected(["one", "two"], "Abby", at=0.0, calls=[["one", "two"]])
    told = False
    block = rate // 100 * 3
    for i in range(0, len(pcm), block):
        listener.feed(pcm[i:i + block], i / rate if i == 0 else None)
        if not told and any(ev.cut for ev, _ in trace):
            assert listener.segmenter.risen  # the riser is open now
            listener.set_expected(["one", "two"], "Abby", calls=[["two"]])
            told = True
    listener.flush()
    assert told
    risers = [ev for ev, _ in trace if ev.risen]
    assert risers and risers[0].calls == (("two",),)


def test_a_call_less_than_a_second_into_talk_is_cut_out_of_it_too() -> None:
    """s003, talk at 10 dB: Debbie's "four" begins 0.64 s into talk that
    webrtcvad hears as one utterance, before the one-second rule looks.
    Compared with the talk's own loud frames (``cut_early_db``), her voice
    rises out of it and gets an utterance of its own within 50 ms of her
    onset; with the early rule off, the talk holds it."""
    call = next(c for c in truth("s003")["calls"] if c["idx"] == 3)
    assert call["said"] == "four"
    got, rate = segments("babble10", "s003")
    own = [s for s in got if not s.brief
           and s.onset / rate == pytest.approx(call["onset_t"], abs=0.05)]
    assert own and own[0].risen
    whole, _ = segments("babble10", "s003", VadSettings(cut_early_after=0.0))
    holding = [s for s in whole if not s.brief
               and s.onset / rate < call["onset_t"] - 0.3 < call["onset_t"] < s.end / rate]
    assert holding and not [s for s in whole if not s.brief
                            and s.onset / rate == pytest.approx(call["onset_t"], abs=0.05)]


def early_chances(condition: str, settings: VadSettings | None = None) -> list[float]:
    """For each spoken call of the shared ``condition`` sessions, seconds
    from the end of its take to the first 10 ms step at which an open
    utterance had been quiet (``Segmenter.quiet``) or fallen back
    (``Segmenter.fallen``) for ``stream.EARLY_S``: when the listener's
    early endpoint first may decode it."""
    out = []
    for wav in sorted((SESSIONS / "dev" / condition).glob("s*.wav")):
        pcm, rate = read_wav(wav)[:2]
        seg = Segmenter(rate, settings)
        chances = []
        for i in range(0, len(pcm), 160):
            seg.push(pcm[i:i + 160])
            if seg.in_speech and max(seg.quiet, seg.fallen) >= EARLY_S:
                chances.append(seg.position / rate)
        for call in truth(wav.stem)["calls"]:
            if call["card"] == "gun" or call.get("take") is None:
                continue
            end = call["start_t"] + call["dur"]
            out.append(min((t - end for t in chances if t > end), default=10.0))
    return out


def test_after_a_call_in_talk_the_level_falls_back_long_before_the_talk_pauses() -> None:
    """At a talking table the stream is not quiet after a call until the
    talk pauses; the level falls back to the talk's soon after the
    caller stops. On the shared talk sessions the early endpoint's first
    chance after a call comes at least twice as soon with the fall as by
    quiet alone (``fall_rise_db`` 0), in the median; in clean rounds
    quiet comes as soon, and the fall changes nothing there."""
    by_quiet = early_chances("babble10", VadSettings(fall_rise_db=0.0))
    with_fall = early_chances("babble10")
    assert len(by_quiet) == len(with_fall) >= 50
    assert statistics.median(with_fall) <= statistics.median(by_quiet) / 2
    assert all(f <= q for f, q in zip(with_fall, by_quiet, strict=True))
    assert early_chances("clean") == early_chances("clean", VadSettings(fall_rise_db=0.0))


def test_nothing_has_fallen_back_without_an_open_utterance_or_a_rise() -> None:
    """``fallen`` is 0 between utterances, and always with the fall off."""
    pcm, rate = read_wav(SESSIONS / "dev" / "babble10" / "s000.wav")[:2]
    off = Segmenter(rate, VadSettings(fall_rise_db=0.0))
    on = Segmenter(rate)
    seen = 0.0
    for i in range(0, len(pcm), 160):
        off.push(pcm[i:i + 160])
        on.push(pcm[i:i + 160])
        assert off.fallen == 0.0
        assert on.in_speech or on.fallen == 0.0
        seen = max(seen, on.fallen)
    assert seen > 0.0


def heard_at(condition: str, session: str, call: dict[str, Any],
             settings: VadSettings | None = None) -> float:
    """The stream time (s) at which a listener with the count words, the
    calls owed set at each flip and the early endpoint on (as The Nasty 7
    has it) first hands on a ruling of ``call`` right; inf if never."""
    pcm, rate = read_wav(SESSIONS / "dev" / condition / f"{session}.wav")[:2]
    listener = Listener(SphinxRecognizer(Spellings.from_pack(load_pack("en"))), rate,
                        vad=settings)
    listener.set_vocabulary(["one", "two", "three", "four", "five", "six", "seven"], early=True)
    for c in truth(session)["calls"]:
        owed = [] if c["card"] == "gun" else c["expected"].split()
        listener.set_expected(owed, c["player"], at=c["flip_t"])
    for i in range(0, len(pcm), 480):
        for h in listener.feed(pcm[i:i + 480], 0.0 if i == 0 else None):
            if h.outcome == "right" and abs(h.onset - call["onset_t"]) < 0.35:
                return (i + len(pcm[i:i + 480])) / rate
    return float("inf")


def test_a_call_in_talk_is_ruled_when_the_level_falls_back_not_when_the_talk_pauses() -> None:
    """Talk at 10 dB, s002: Abby's "one" ends at 2.13 s (its take's end),
    and the talk around it goes on for two seconds more. The listener
    rules it right by 2.6 s, decoded where the level fell back to the
    talk's; with the fall off (``fall_rise_db`` 0) the same ruling waited
    for the talk to pause, past 4 s."""
    call = truth("s002")["calls"][0]
    assert call["expected"] == "one" and call["kind"] == "right"
    end = call["start_t"] + call["dur"]
    assert heard_at("babble10", "s002", call) <= end + 0.5
    assert heard_at("babble10", "s002", call, VadSettings(fall_rise_db=0.0)) >= end + 1.5
