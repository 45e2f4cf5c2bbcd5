"""A call's end where its level has decayed under its own loudest frame
(``Segmenter.decayed``, ``VadSettings.decay_db``), the early endpoint's third
test (``stream.Listener``).

The voice is real (an FSDD take of a development speaker, george, from
``../shared/human-calls``); the room is a stand-in: the take convolved with
seeded white noise decaying 60 dB in 0.5 s (a reverberant tail, as in the
far field), over seeded white noise 30 dB under the call. The recognizer
is pocketsphinx (real)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from fsdd import RATE, needs_fsdd, take

from companion.referee.recognizer import Recognizer, Spellings, Word
from companion.referee.sphinx_backend import SphinxRecognizer
from companion.referee.stream import EARLY_S, LEARN_MARGIN_S, CallLevels, Listener
from companion.referee.templates import Enrollment
from companion.referee.vad import Segmenter, VadSettings
from companion.voice.pack import load_pack

RT60_S = 0.5
LEAD_S = 1.0  # the floor before the call


def reverberant_five() -> tuple[np.ndarray, float]:
    """George's "five" (take 0) in the stand-in room, after ``LEAD_S`` of
    the floor, and the time (s) its dry take's last 10 ms frame within 15 dB
    of its loudest ends."""
    dry = take(5, "george", 0).astype(np.float64)
    rng = np.random.default_rng(7)
    t = np.arange(round(RT60_S * RATE)) / RATE
    tail = rng.normal(0.0, 1.0, len(t)) * 10 ** (-3 * t / RT60_S)  # -60 dB at RT60
    tail[0] = 8.0  # the direct sound
    wet = np.convolve(dry, tail)
    wet *= np.abs(dry).max() / np.abs(wet).max()
    frame = RATE // 100
    power = np.array([np.mean(dry[i:i + frame] ** 2) for i in range(0, len(dry) - frame, frame)])
    loud = np.flatnonzero(power >= power.max() * 10 ** (-1.5))
    end = LEAD_S + (loud[-1] + 1) * frame / RATE
    pcm = np.concatenate([np.zeros(round(LEAD_S * RATE)), wet, np.zeros(RATE)])
    level = float(np.sqrt(np.mean(np.sort(power)[len(power) // 2:])))
    pcm += np.random.default_rng(3).normal(0.0, level * 10 ** (-30 / 20), len(pcm))
    return np.clip(np.rint(pcm), -32768, 32767).astype(np.int16), end


def first_over(settings: VadSettings, pcm: np.ndarray) -> dict[str, float]:
    """The stream time (s) each of the segmenter's end tests (``quiet``,
    ``fallen``, ``decayed``) first reaches ``EARLY_S`` in the utterance."""
    seg = Segmenter(RATE, settings)
    first: dict[str, float] = {}
    for i in range(0, len(pcm), RATE // 100):
        seg.push(pcm[i:i + RATE // 100])
        if not seg.in_speech:
            continue
        for name in ("quiet", "fallen", "decayed"):
            if name not in first and getattr(seg, name) >= EARLY_S:
                first[name] = seg.position / RATE
    return first


@needs_fsdd
def test_a_reverberant_call_has_decayed_before_its_tail_falls_back() -> None:
    """In the stand-in room the tail keeps the level over the floor for a
    fifth of a second after the word: its level has decayed 15 dB under the
    word's loudest frame well before it is back at the floor or the level
    it rose from, and not before the word itself is over. With
    ``decay_db`` 0 nothing decays."""
    pcm, end = reverberant_five()
    first = first_over(VadSettings(), pcm)
    assert {"quiet", "fallen", "decayed"} <= set(first)
    assert first["decayed"] >= end + EARLY_S - 0.02
    assert first["decayed"] <= min(first["quiet"], first["fallen"]) - 0.1
    assert "decayed" not in first_over(VadSettings(decay_db=0.0), pcm)


@needs_fsdd
@pytest.mark.slow
def test_a_reverberant_call_is_ruled_when_its_level_has_decayed() -> None:
    """The listener, owed george's "five" by Abby, rules it right in the
    stand-in room sooner with the decayed test than with the level's fall
    alone."""
    pcm, end = reverberant_five()

    def ruled_at(settings: VadSettings) -> float:
        listener = Listener(SphinxRecognizer(Spellings.from_pack(load_pack("en"))), RATE,
                            vad=settings)
        listener.set_vocabulary(["one", "two", "three", "four", "five", "six", "seven"],
                                early=True)
        listener.set_expected(["five"], "Abby")
        for i in range(0, len(pcm), 480):
            heard = listener.feed(pcm[i:i + 480], 0.0 if i == 0 else None)
            if heard:
                assert [(h.outcome, h.text) for h in heard] == [("right", "five")]
                return (i + len(pcm[i:i + 480])) / RATE
        return math.inf

    decayed, fallen = ruled_at(VadSettings()), ruled_at(VadSettings(decay_db=0.0))
    assert end < decayed <= fallen - 0.08


def in_room(dry: np.ndarray, seed: int = 7) -> np.ndarray:
    """``dry`` convolved with the stand-in room's tail, as loud as it."""
    rng = np.random.default_rng(seed)
    t = np.arange(round(RT60_S * RATE)) / RATE
    tail = rng.normal(0.0, 1.0, len(t)) * 10 ** (-3 * t / RT60_S)
    tail[0] = 8.0
    wet = np.convolve(dry, tail)
    return wet * np.abs(dry).max() / np.abs(wet).max()


@needs_fsdd
@pytest.mark.slow
def test_the_decayed_test_is_not_asked_while_a_twin_is_owed() -> None:
    """George's "one", 0.12 s of the room, then his "two", owed as a twin
    by Abby. The level decays in the gap, but the decayed test is not asked
    while a twin is owed (split there, a number is judged alone, where a
    correct one misheard can be a mistake): the "one" is ruled when it
    would be without the decayed test (here where the "two" rises out of
    its tail), and the twin is right."""
    one, two = (take(d, "george", 0).astype(np.float64) for d in (1, 2))
    wet = in_room(np.concatenate([one, np.zeros(round(0.12 * RATE)), two]))
    pcm = np.concatenate([np.zeros(RATE), wet, np.zeros(RATE)])
    pcm += np.random.default_rng(3).normal(0.0, np.abs(wet).max() * 10 ** (-45 / 20), len(pcm))
    pcm = np.clip(np.rint(pcm), -32768, 32767).astype(np.int16)

    def heard(settings: VadSettings) -> list[tuple[float, str, str]]:
        listener = Listener(SphinxRecognizer(Spellings.from_pack(load_pack("en"))), RATE,
                            vad=settings)
        listener.set_vocabulary(["one", "two", "three", "four", "five", "six", "seven"],
                                early=True)
        listener.set_expected(["one", "two"], "Abby")
        out = []
        for i in range(0, len(pcm), 480):
            out += [((i + 480) / RATE, h.outcome, h.text)
                    for h in listener.feed(pcm[i:i + 480], 0.0 if i == 0 else None) if h.words]
        return out + [(math.inf, h.outcome, h.text) for h in listener.flush() if h.words]

    with_decay, without = heard(VadSettings()), heard(VadSettings(decay_db=0.0))
    assert [(o, t) for _, o, t in with_decay] == [("right", "one"), ("right", "two")]
    assert with_decay[0] == without[0]


class HeardFive(Recognizer):
    """Hears "five", sure, in any utterance: a stand-in for a decoder, so
    that only the stream's timing is tested (the voice, the room and the
    segmenter are as above)."""

    name = "five"
    sample_rate = RATE

    def _compile(self, vocabulary: tuple[str, ...]) -> None:
        pass

    def decode(self, pcm: np.ndarray) -> list[Word]:
        return [Word("five", 0.3, 0.7, 0.999)]


@needs_fsdd
@pytest.mark.parametrize(("owed", "outcome", "sooner"), [("five", "right", True),
                                                         ("three", "mistake", False)])
def test_only_a_right_call_ends_early_on_the_decayed_test(
        owed: str, outcome: str, sooner: bool) -> None:
    """The reverberant "five", heard surely, at the level of the calls
    before it: owed, it is ruled right once the level has decayed; when a
    "three" is owed, the mistake waits for the fall back or the quiet, as
    without the decayed test (a ruling that ends a round is made on the
    whole utterance)."""
    pcm, _ = reverberant_five()
    loud = np.sort(pcm[RATE:2 * RATE].astype(np.float64) ** 2)
    level = 10 * math.log10(float(loud[len(loud) // 2:].mean()) / 32768.0 ** 2)

    def ruled(settings: VadSettings) -> tuple[float, str]:
        levels = CallLevels()
        levels.add(level)
        listener = Listener(HeardFive(), RATE, vad=settings, levels=levels)
        listener.set_vocabulary(["one", "two", "three", "four", "five", "six", "seven"],
                                early=True)
        listener.set_expected([owed], "Abby")
        for i in range(0, len(pcm), 480):
            heard = [h for h in listener.feed(pcm[i:i + 480], 0.0 if i == 0 else None)
                     if h.words]
            if heard:
                return (i + 480) / RATE, heard[0].outcome
        return math.inf, "none"

    (decayed, judged), (fallen, judged_without) = (
        ruled(VadSettings()), ruled(VadSettings(decay_db=0.0)))
    assert judged == judged_without == outcome
    assert (decayed <= fallen - 0.08) if sooner else (decayed == fallen)


def call_level(pcm: np.ndarray) -> float:
    """The reverberant call's level (dBFS), as ``CallLevels`` keeps a call's."""
    loud = np.sort(pcm[RATE:2 * RATE].astype(np.float64) ** 2)
    return 10 * math.log10(float(loud[len(loud) // 2:].mean()) / 32768.0 ** 2)


def five_fed(settings: VadSettings, *, copy: bool = False,
             enrollment: Enrollment | None = None) -> float:
    """The stream time (s) the reverberant "five", owed by Abby and heard
    surely by the stand-in decoder, is ruled right (the whole recording fed,
    then flushed). ``copy``: each block fed with a copy beside it, as an
    array's seat-masked beam gives one."""
    pcm, _ = reverberant_five()
    levels = CallLevels()
    levels.add(call_level(pcm))
    listener = Listener(HeardFive(), RATE, vad=settings, levels=levels, enrollment=enrollment)
    listener.set_vocabulary(["one", "two", "three", "four", "five", "six", "seven"], early=True)
    listener.set_expected(["five"], "Abby")
    ruled = math.inf
    for i in range(0, len(pcm), 480):
        block = pcm[i:i + 480]
        heard = [h for h in listener.feed(block, 0.0 if i == 0 else None,
                                          copy=block if copy else None) if h.words]
        if heard and ruled == math.inf:
            assert [(h.outcome, h.text) for h in heard] == [("right", "five")]
            ruled = (i + len(block)) / RATE
    listener.flush()
    return ruled


@needs_fsdd
def test_a_call_the_decayed_test_ended_is_learnt_with_the_audio_after_it() -> None:
    """Abby enrolled with george's takes of "five"; the reverberant "five"
    ended on the decayed test is learnt once the stream has gone
    ``LEARN_MARGIN_S`` past the cut (the soft end of a word may be after
    it), as one call, as it is learnt without the decayed test."""
    pcm, _ = reverberant_five()
    learnt = {}
    ruled = {}
    for name, settings in (("decayed", VadSettings()), ("fallen", VadSettings(decay_db=0.0))):
        enrolled = Enrollment()
        for k in (1, 2, 3):
            assert enrolled.add("Abby", "five", take(5, "george", k))
        ruled[name] = five_fed(settings, enrollment=enrolled)
        learnt[name] = enrolled.learnt.get("Abby", {}).get("five", [])
    assert ruled["decayed"] <= ruled["fallen"] - 0.08
    assert len(learnt["decayed"]) == len(learnt["fallen"]) == 1
    clip = learnt["decayed"][0][1]
    starts = [i for i in range(len(pcm) - len(clip) + 1)
              if pcm[i] == clip[0] and np.array_equal(pcm[i:i + len(clip)], clip)]
    assert len(starts) == 1  # the stream's own samples (no resampling at 16 kHz)
    assert (starts[0] + len(clip)) / RATE >= ruled["decayed"] + LEARN_MARGIN_S - 1e-9


@needs_fsdd
def test_the_decayed_test_is_not_asked_behind_an_array() -> None:
    """Fed with a copy beside the stream (an array's seat-masked beam), the
    reverberant "five" is ruled when it is without the decayed test: an
    array measures the seat over half a second from the onset, and a call
    ruled sooner had another seat's number taken for the caller's."""
    assert five_fed(VadSettings(), copy=True) == five_fed(VadSettings(decay_db=0.0))
    assert five_fed(VadSettings()) < five_fed(VadSettings(decay_db=0.0))
