"""The listening stream's parts: sample clock (jitter, drift, dropped blocks),
the webrtcvad segmenter (onsets, noise gate) and the Listener's resampling,
vocabulary switching at utterance boundaries and table-clock times.

The recognizer here is pocketsphinx (real); speech is real espeak-ng and
Piper, and for the early endpoint a human voice too (FSDD takes of a
development speaker from ``../shared/human-calls``)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from fsdd import needs_fsdd, take

from companion.audio import synth
from companion.audio.synth import Synth, VoiceSpec
from companion.errors import RecognizerError
from companion.referee import stream
from companion.referee.clock import SampleClock
from companion.referee.decision import TALK
from companion.referee.recognizer import Recognizer, Spellings, Word
from companion.referee.sphinx_backend import SphinxRecognizer
from companion.referee.stream import PHANTOM, CallLevels, Heard, Listener, foreground
from companion.referee.vad import Segment, Segmenter, VadSettings
from companion.voice.pack import load_pack

RATE = 16000
ESPEAK = VoiceSpec("espeak-ng", "en-us", 1.0, 50)


# -- the sample clock ------------------------------------------------------------


def test_clock_places_blocks_on_their_stamps() -> None:
    clock = SampleClock(48000)
    first = clock.place(480, 100.0)
    assert first.first == 0 and first.missing == 0
    second = clock.place(480, None)
    assert second.first == 480
    assert clock.time_of(480) == pytest.approx(100.01)


def test_clock_averages_jitter_and_follows_drift() -> None:
    rate = 16000
    true_rate = rate * (1 + 100e-6)  # the card runs 100 ppm fast against the monotonic clock
    clock = SampleClock(rate)
    rng = np.random.default_rng(3)
    block = 480
    worst = 0.0
    for k in range(20000):  # 10 minutes of 30 ms blocks
        true_t = 50.0 + k * block / true_rate
        clock.place(block, true_t + float(rng.uniform(0.0, 0.004)))  # stamps 0..4 ms late
        if k > 200:
            worst = max(worst, abs(clock.time_of(k * block) - (true_t + 0.002)))
    # Without correction the drift alone would be 60 ms after 10 minutes.
    assert worst < 0.003


def test_clock_counts_dropped_blocks_and_restarts_after_a_long_gap() -> None:
    clock = SampleClock(16000)
    clock.place(160, 10.0)
    lost = clock.place(160, 10.01 + 0.05)  # 50 ms of audio never arrived
    assert lost.missing == 800 and not lost.restart
    assert lost.first == 160 + 800
    assert clock.time_of(lost.first) == pytest.approx(10.06)
    deaf = clock.place(160, 20.0)  # the companion was deaf for ~10 s
    assert deaf.restart
    assert clock.time_of(deaf.first) == pytest.approx(20.0, abs=1e-4)


def test_clock_refuses_a_rate_that_is_not_positive() -> None:
    with pytest.raises(ValueError, match="rate"):
        SampleClock(0)


# -- the segmenter -----------------------------------------------------------------


@pytest.fixture(scope="module")
def sy() -> Synth:
    return Synth()


@pytest.mark.slow
@pytest.mark.parametrize("silence", [0.3, 1.1, 2.4, 3.5])
def test_segmenter_finds_the_onset_after_a_known_silence(sy: Synth, silence: float) -> None:
    clip = synth.add_floor(synth.call_after_silence(sy.utterance("six", ESPEAK), silence),
                           seed=7)
    seg = Segmenter(RATE)
    segments = seg.push(clip.audio) + seg.flush()
    assert len(segments) == 1
    assert abs(segments[0].onset / RATE - silence) < 0.03
    assert segments[0].end / RATE == pytest.approx(clip.ends[0], abs=0.08)


def test_segmenter_ignores_steady_noise_and_silence() -> None:
    noise = synth.white_noise(4 * RATE, seed=1) * 2000
    floor = synth.noise_floor(4 * RATE, seed=2)
    for audio in (noise, floor):
        seg = Segmenter(RATE)
        pcm = np.clip(audio, -32768, 32767).astype(np.int16)
        assert seg.push(pcm) + seg.flush() == []


def burst_in_noise(sy: Synth, frames: int, at: float = 1.5) -> tuple[np.ndarray, float]:
    """``frames`` 10 ms frames of the loudest part of a synthetic "six" (its
    vowel) at ``at`` seconds in steady white noise about 15 dB below it: a
    call whose vowel alone stands out of loud noise. The samples (int16 at
    ``RATE``) and the burst's start, seconds."""
    six = sy.utterance("six", ESPEAK).astype(np.float64)
    n = frames * 160
    power = np.convolve(six ** 2, np.ones(n), mode="valid")
    start = int(np.argmax(power))
    vowel = six[start:start + n] * np.hanning(n) ** 0.1
    rms = float(np.sqrt(np.mean(vowel ** 2)))
    audio = synth.white_noise(3 * RATE, seed=4) * rms / 10 ** (15 / 20)
    audio[round(at * RATE):round(at * RATE) + n] += vowel
    return np.clip(audio, -32768, 32767).astype(np.int16), at


@pytest.mark.slow
@pytest.mark.parametrize(("frames", "brief"), [(5, True), (2, False)])
def test_a_voice_too_short_for_an_utterance_is_a_brief_sound(
        sy: Synth, frames: int, brief: bool) -> None:
    """Fewer voiced frames than start an utterance, but at least
    ``brief_voiced`` of them, are a brief sound at the burst; fewer are
    nothing (noise alone never makes one: the test above)."""
    pcm, at = burst_in_noise(sy, frames)
    seg = Segmenter(RATE)
    segments = seg.push(pcm) + seg.flush()
    assert [s.brief for s in segments] == ([True] if brief else [])
    if brief:
        assert abs(segments[0].onset / RATE - at) < 0.03
        assert len(segments[0].pcm) == 0


@pytest.mark.slow
def test_the_listener_hears_a_brief_sound_as_a_voice_with_no_word(
        sy: Synth, sphinx: SphinxRecognizer) -> None:
    """A brief sound is not decoded: a ``Heard`` with no words and no
    samples (so it is never a take at setup), judged unsure, which tells the
    engine a voice was heard (its window is not a hesitation)."""
    pcm, at = burst_in_noise(sy, 5)
    listener = Listener(sphinx, RATE)
    listener.set_expected(["six"], "Debbie")
    heard = feed_blocks(listener, pcm, RATE, 10.0)
    assert [(h.brief, h.words, h.outcome, h.pcm) for h in heard] == [
        (True, (), "unsure", None)]
    assert heard[0].onset == pytest.approx(10.0 + at, abs=0.03)
    say = heard[0].to_say()
    assert (say.text, say.confidence) == ("", 0.0)


def test_segmenter_refuses_a_rate_webrtcvad_cannot_take() -> None:
    with pytest.raises(RecognizerError, match="44100"):
        Segmenter(44100)


# -- the listener ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def sphinx() -> SphinxRecognizer:
    return SphinxRecognizer(Spellings.from_pack(load_pack("en")))


def feed_blocks(listener: Listener, pcm: np.ndarray, rate: int, t0: float,
                block_s: float = 0.03, drop: tuple[int, ...] = ()) -> list[Heard]:
    """Feed ``pcm`` as a microphone would: blocks stamped with their time;
    blocks numbered in ``drop`` never arrive."""
    n = round(block_s * rate)
    out: list[Heard] = []
    for k, i in enumerate(range(0, len(pcm), n)):
        if k in drop:
            continue
        out += listener.feed(pcm[i:i + n], t0 + i / rate)
    return out + listener.flush()


@pytest.mark.slow
@pytest.mark.parametrize("device_rate", [16000, 44100, 48000])
def test_listener_resamples_and_times_words_on_the_table_clock(
        sy: Synth, sphinx: SphinxRecognizer, device_rate: int) -> None:
    utterance = sy.utterance("four", ESPEAK, rate=device_rate)
    clip = synth.add_floor(synth.call_after_silence(utterance, 1.25, rate=device_rate))
    listener = Listener(sphinx, device_rate)
    listener.set_vocabulary(["one", "two", "three", "four", "five", "six", "seven"])
    heard = feed_blocks(listener, clip.audio, device_rate, t0=500.0)
    assert [h.text for h in heard] == ["four"]
    # (the onset is the word's first frame within stream.WORD_ONSET_DB of its
    # loudest: espeak's soft "f" sits about that far below the vowel, and is
    # taken or not by a frame or two after resampling)
    assert heard[0].onset == pytest.approx(501.25, abs=0.05)
    word = heard[0].words[0]
    assert 501.15 < word.start < word.end < 500.0 + clip.ends[0] + 0.1


@pytest.mark.slow
def test_listener_keeps_times_across_dropped_blocks(sy: Synth, sphinx: SphinxRecognizer) -> None:
    clip = synth.add_floor(synth.call_after_silence(sy.utterance("two", ESPEAK), 2.0))
    listener = Listener(sphinx, RATE)
    listener.set_vocabulary(["one", "two", "three"])
    heard = feed_blocks(listener, clip.audio, RATE, t0=7.0, drop=(10, 11, 30))
    assert [h.text for h in heard] == ["two"]
    assert heard[0].onset == pytest.approx(9.0, abs=0.03)


@pytest.mark.slow
def test_a_new_vocabulary_waits_for_the_end_of_the_utterance(
        sy: Synth, sphinx: SphinxRecognizer) -> None:
    clip = synth.add_floor(synth.call_after_silence(sy.utterance("five", ESPEAK), 0.5))
    listener = Listener(sphinx, RATE)
    listener.set_vocabulary(["five", "six"])
    heard: list[Heard] = []
    switched_inside = False
    for i in range(0, len(clip.audio), 480):
        heard += listener.feed(clip.audio[i:i + 480], i / RATE if i == 0 else None)
        if listener.in_utterance and not switched_inside:
            listener.set_vocabulary(["one", "two"])  # asked mid-utterance
            switched_inside = True
            assert sphinx.vocabulary == ("five", "six")
    heard += listener.flush()
    assert switched_inside
    assert [h.text for h in heard] == ["five"]  # decoded with the vocabulary of its onset
    assert sphinx.vocabulary == ("one", "two")  # the new one took over after it


def test_speech_with_no_game_word_is_a_weak_say() -> None:
    say = Heard(onset=3.2, end=3.9, words=()).to_say()
    assert (say.t, say.text, say.confidence, say.end) == (3.2, "", 0.0, 3.9)


@pytest.mark.slow
def test_quiet_talk_just_before_a_call_is_dropped(sy: Synth, sphinx: SphinxRecognizer) -> None:
    """Someone across the table says a game-like word 20 dB below the caller,
    right before the call, in the same utterance: only the loud call counts,
    and the onset moves to it."""
    piper = VoiceSpec("piper", "en_US-joe-medium", 1.0)
    talk = sy.utterance("two", piper, level_dbfs=-46.0)
    call = sy.utterance("five", piper, level_dbfs=-26.0)
    gap = 0.05
    start = 1.0
    clip = synth.add_floor(synth.place(
        [(start, talk, "two"), (start + len(talk) / RATE + gap, call, "five")], seconds=3.5))
    listener = Listener(sphinx, RATE)
    listener.set_vocabulary(["one", "two", "three", "four", "five", "six", "seven"])
    heard = [h for h in feed_blocks(listener, clip.audio, RATE, t0=0.0) if h.words]
    assert [h.text for h in heard] == ["five"]
    assert heard[0].onset == pytest.approx(clip.onsets[1], abs=0.08)


class ScriptedRecognizer(Recognizer):
    """Returns the same words for every utterance. It stands in for a decoder
    only to test the stream's own filtering, which must hold whatever a real
    decoder returns; the speech and the segmenter around it are real."""

    name = "scripted"
    sample_rate = RATE

    def __init__(self, words: list[Word]) -> None:
        super().__init__()
        self.words = words

    def _compile(self, vocabulary: tuple[str, ...]) -> None:
        pass

    def decode(self, pcm: np.ndarray) -> list[Word]:
        return list(self.words)


@pytest.mark.parametrize(("second_confidence", "text"), [(0.05, "five"), (0.3, "five six")])
def test_a_barely_heard_word_after_the_first_is_dropped(
        sy: Synth, second_confidence: float, text: str) -> None:
    """A decoder may pad a call with a short game word fitted to breath or
    hiss ("one five" for "one"): a word after the first below ``PHANTOM``
    goes; a word above it stays (and the engine weighs it)."""
    assert 0.05 < PHANTOM < 0.3
    pcm = sy.utterance("five six", ESPEAK)
    clip = synth.call_after_silence(pcm, 0.8)
    # Both words lie inside the voiced part of the utterance (0.3 s pre-roll).
    words = [Word("five", 0.30, 0.55, 0.9), Word("six", 0.55, 0.75, second_confidence)]
    listener = Listener(ScriptedRecognizer(words), RATE)
    listener.set_vocabulary(["five", "six"])
    heard = [h for h in feed_blocks(listener, clip.audio, RATE, t0=0.0) if h.words]
    assert [h.text for h in heard] == [text]


# -- the caller is the loud voice -------------------------------------------------

PIPER = VoiceSpec("piper", "en_US-joe-medium", 1.0)
COUNT_WORDS = ["one", "two", "three", "four", "five", "six", "seven", "hmmrrr"]


def test_foreground_finds_the_loud_call_inside_talk(sy: Synth) -> None:
    """An utterance of quiet talk (-50 dBFS) with the call (-26 dBFS) 1.2 s
    in: the loud part starts at the call, and the decoded span starts
    ``LEAD_S`` before it. A call alone is decoded from the start."""
    talk = sy.utterance("pass me the salt please", ESPEAK, level_dbfs=-50.0)
    call = sy.utterance("five", PIPER, level_dbfs=-26.0)
    clip = synth.add_floor(synth.place([(0.3, talk, "talk"), (1.5, call, "five")], seconds=2.5))
    seg = Segment(start=0, onset=round(0.3 * RATE), end=round(2.3 * RATE), pcm=clip.audio)
    first, loud_start, loud_end, last = foreground(seg, RATE)
    call_on, call_off = clip.spans[1]
    assert abs(loud_start - call_on) <= 0.06 * RATE
    assert first == loud_start - round(stream.LEAD_S * RATE)
    assert call_off - 0.1 * RATE <= loud_end <= call_off + 0.06 * RATE
    assert last == min(len(clip.audio), loud_end + round(stream.TAIL_S * RATE))

    alone = synth.add_floor(synth.call_after_silence(call, 0.5))
    seg = Segment(start=0, onset=alone.spans[0][0], end=alone.spans[0][1], pcm=alone.audio)
    first, loud_start, _, _ = foreground(seg, RATE)
    assert first == 0
    assert loud_start >= alone.spans[0][0]


@pytest.mark.parametrize(("seed", "word"), [(3, "six")])
def test_a_call_inside_table_talk_is_heard_at_its_own_onset(
        sy: Synth, monkeypatch: pytest.MonkeyPatch, seed: int, word: str) -> None:
    """Three other voices talk on at 20 dB below the call, so webrtcvad's
    utterance holds seconds of talk around it. Decoding only its loud part
    hears the call sure, with the call's own onset. Decoded whole (the crop
    switched off), the same clips gave the call at the talk-level confidence.
    Measured on 27 cases (seeds 0-8, "six", "five", "four"): sure in 17 with
    the crop, 4 without, with the grammar compiled from JSGF; since webrtcvad
    hears every frame (``companion.referee.vad``), 10 with the crop and 4
    without, and this one is of the 8 the crop alone makes sure. Each
    hearing gets a new decoder: pocketsphinx's noise removal (the model's
    ``-remove_noise yes``) carries over from one utterance to the next and
    moves confidences by up to 0.15, so a shared one would make the outcome
    depend on the tests run before. The cut where a voice rises out of
    talk (``VadSettings.cut_rise_db``) is switched off: it is the crop
    that is tested here, on an utterance that holds the talk."""
    call = sy.utterance(word, PIPER)
    clip = synth.place([(2.0, call, word)], seconds=4.0)
    noisy = synth.add_noise(clip, synth.table_talk(len(clip.audio), sy, seed=seed), 20.0)

    def heard_call() -> list[Heard]:
        listener = Listener(SphinxRecognizer(Spellings.from_pack(load_pack("en"))), RATE,
                            vad=VadSettings(cut_rise_db=0.0))
        listener.set_vocabulary(COUNT_WORDS)
        heard = feed_blocks(listener, noisy.audio, RATE, t0=0.0)
        return [h for h in heard if h.text == word]

    calls = heard_call()
    assert len(calls) == 1 and calls[0].confidence >= 0.5
    # The onset is the decoder's start of the word: measured 10 ms early for
    # both.
    assert calls[0].onset == pytest.approx(clip.onsets[0], abs=0.1)
    monkeypatch.setattr(stream, "FOREGROUND_DB", 200.0)  # the whole utterance is loud
    assert all(h.confidence < 0.5 for h in heard_call())


def test_call_levels_outlive_a_listener(sy: Synth, sphinx: SphinxRecognizer) -> None:
    """A table's ``CallLevels`` go from one stream to the next: after a sure
    call at -26 dBFS, a call 14 dB quieter on a new stream is table talk
    (capped at ``TALK``); a new stream with new levels has no reference
    and takes the same quiet call as it is."""
    levels = CallLevels()
    loud = synth.add_floor(synth.call_after_silence(sy.utterance("four", PIPER, level_dbfs=-26.0),
                                                    0.6))
    quiet = synth.add_floor(synth.call_after_silence(
        sy.utterance("four", PIPER, level_dbfs=-40.0), 0.6))

    def hear(clip: synth.Clip, shared: CallLevels | None) -> list[Heard]:
        listener = Listener(sphinx, RATE, levels=shared)
        listener.set_vocabulary(COUNT_WORDS)
        return [h for h in feed_blocks(listener, clip.audio, RATE, t0=0.0) if h.words]

    first = hear(loud, levels)
    assert [h.text for h in first] == ["four"] and first[0].confidence >= 0.5
    assert len(levels) == 1 and levels.reference() == pytest.approx(-26.0, abs=3.0)
    capped = hear(quiet, levels)
    assert [h.text for h in capped] == ["four"] and capped[0].confidence <= TALK
    fresh = hear(quiet, None)
    assert [h.text for h in fresh] == ["four"] and fresh[0].confidence > TALK


# -- the early endpoint ---------------------------------------------------------------


def first_heard_at(listener: Listener, pcm: np.ndarray,
                   block: int = 480) -> tuple[float, list[Heard]]:
    """Feed ``pcm`` in blocks; the stream time (s) of the end of the block
    that returned the first utterance, and that utterance."""
    for i in range(0, len(pcm), block):
        heard = listener.feed(pcm[i:i + block], 0.0 if i == 0 else None)
        if heard:
            return (i + len(pcm[i:i + block])) / RATE, heard
    return math.inf, listener.flush()


def heard_early_and_not(pcm: np.ndarray) -> tuple[tuple[float, list[Heard]],
                                                  tuple[float, list[Heard]]]:
    """``first_heard_at`` for ``pcm`` with The Nasty 7's count words, with
    early endpoints on and then off, each with a new decoder (see the
    table-talk test above)."""
    def hear(early: bool) -> tuple[float, list[Heard]]:
        listener = Listener(SphinxRecognizer(Spellings.from_pack(load_pack("en"))), RATE)
        listener.set_vocabulary(COUNT_WORDS, early=early)
        return first_heard_at(listener, pcm)

    return hear(True), hear(False)


@pytest.mark.slow
@pytest.mark.parametrize("word", ["four", "six"])
def test_a_sure_call_is_ruled_on_soon_after_it_ends(sy: Synth, word: str) -> None:
    """With early endpoints on (as The Nasty 7 asks), a call heard sure ends
    its utterance ``EARLY_S`` after the stream is quiet again, not after the
    VAD's full quarter second of silence: the same words, sooner. Off (the
    default, and Cheat's choice), it waits."""
    clip = synth.add_floor(synth.call_after_silence(sy.utterance(word, PIPER), 0.6), seed=3)
    end = clip.ends[0]
    (early_at, early), (full_at, full) = heard_early_and_not(clip.audio)
    assert [h.text for h in early] == [h.text for h in full] == [word]
    assert early[0].confidence >= stream.STRONG
    assert early_at <= end + stream.EARLY_S + 0.1
    assert full_at >= end + 0.2


@needs_fsdd
@pytest.mark.slow
@pytest.mark.parametrize(("digit", "k"), [(5, 5), (7, 0), (7, 2)])
def test_a_human_call_is_ruled_on_soon_after_it_ends(digit: int, k: int) -> None:
    """A real voice (FSDD takes of a development speaker, george): on these
    takes pocketsphinx runs the last word on over the short quiet tail of an
    early decode (its silence only wins after about a quarter second), so
    the word reaches the end of the audio decoded. The call is finished all
    the same (the stream has been quiet for ``EARLY_S``): it ends early,
    with the same words as the full decode."""
    word = ["zero", "one", "two", "three", "four", "five", "six", "seven"][digit]
    clip = synth.add_floor(synth.call_after_silence(take(digit, "george", k), 0.6), seed=3)
    end = clip.ends[0]
    (early_at, early), (full_at, full) = heard_early_and_not(clip.audio)
    assert [h.text for h in early] == [h.text for h in full] == [word]
    assert early_at <= end + stream.EARLY_S + 0.1
    assert full_at >= early_at + 0.1


@pytest.mark.slow
def test_the_s_of_six_is_not_quiet(sy: Synth) -> None:
    """In a little hiss (white noise 30 dB under the call) webrtcvad stops
    marking "six" as voiced before its final s ends; the early endpoint's
    quiet only starts when the energy is back at the noise floor, after the
    s."""
    said = synth.call_after_silence(sy.utterance("six", ESPEAK), 0.6)
    clip = synth.add_noise(said, synth.white_noise(len(said.audio), seed=3), 30.0)
    end = clip.ends[0]
    seg = Segmenter(RATE)
    segments: list[Segment] = []
    quiet_from = None
    for i in range(0, len(clip.audio), 160):
        segments += seg.push(clip.audio[i:i + 160])
        if seg.in_speech and quiet_from is None and seg.quiet >= stream.EARLY_S:
            quiet_from = seg.position / RATE - seg.quiet
    assert len(segments) == 1 and quiet_from is not None
    assert segments[0].end / RATE < end - 0.03  # the last voiced frame: inside the s
    assert quiet_from >= end - 0.03


@pytest.mark.parametrize(("confidence", "early"), [(0.9, True), (0.3, False)])
def test_an_unsure_early_decode_leaves_the_utterance_open(
        sy: Synth, confidence: float, early: bool) -> None:
    """Only a sure call ends an utterance early; otherwise it is decoded
    again when the VAD's silence has run out, once, with all its audio."""
    clip = synth.add_floor(synth.call_after_silence(sy.utterance("five", PIPER), 0.6), seed=3)
    words = [Word("five", 0.30, 0.70, confidence)]
    recognizer = ScriptedRecognizer(words)
    listener = Listener(recognizer, RATE)
    listener.set_vocabulary(["five", "six"], early=True)
    at, heard = first_heard_at(listener, clip.audio)
    assert [h.text for h in heard] == ["five"]
    settings = listener.segmenter.settings
    if early:
        assert at < clip.ends[0] + settings.end_silence
    else:
        assert at >= clip.ends[0] + settings.end_silence - 0.05
        assert heard[0].confidence == confidence


@pytest.mark.slow
def test_an_utterance_is_judged_by_the_call_owed_at_its_onset(
        sy: Synth, sphinx: SphinxRecognizer) -> None:
    """The call owed changes at 502 s (the next card is silent), and both
    changes are known before the audio arrives, so both have taken over by
    the time the utterance is decoded. A "four" said at 501.25 s is still
    judged by the call owed at its onset: right, not a word on the silent
    card."""
    clip = synth.add_floor(synth.call_after_silence(sy.utterance("four", ESPEAK), 1.25))
    listener = Listener(sphinx, RATE)
    listener.set_vocabulary(["one", "two", "three", "four", "five", "six", "seven"])
    listener.set_expected(["four"], "Abby", at=500.0)
    listener.set_expected([], "Beth", at=502.0)
    heard = feed_blocks(listener, clip.audio, RATE, t0=500.0)
    assert [(h.text, h.outcome) for h in heard] == [("four", "right")]
    assert heard[0].onset < 502.0


class ContourRecognizer(ScriptedRecognizer):
    """Places two words on the decoded audio's own level contour (10 ms
    frames): ``split`` says where the first ends, as a fraction from the
    voice's start to its loudest frame (below 1: a z before the vowel) or,
    at 1 or more, that many tens of milliseconds after the loudest frame
    (the word's quieter end). Like ``ScriptedRecognizer`` it stands in for
    a decoder only to test the stream's own filtering of what a decoder
    returns."""

    def __init__(self, first: tuple[str, float], second: tuple[str, float],
                 split: float) -> None:
        super().__init__([])
        self.first, self.second, self.split = first, second, split

    def decode(self, pcm: np.ndarray) -> list[Word]:
        frames = pcm[: len(pcm) // 160 * 160].astype(np.float64).reshape(-1, 160)
        db = 10 * np.log10(np.mean(frames ** 2, axis=1) + 1e-9)
        voiced = np.flatnonzero(db > db.max() - 30.0)
        on, off, peak = voiced[0] / 100, (voiced[-1] + 1) / 100, int(np.argmax(db)) / 100
        cut = (on + self.split * (peak - on) if self.split < 1
               else peak + self.split / 100)
        return [Word(self.first[0], on, cut, self.first[1]),
                Word(self.second[0], cut, off - 0.1, self.second[1])]


@needs_fsdd
def test_a_barely_heard_word_that_carries_on_the_first_as_loud_stays() -> None:
    """George's "zero" (FSDD take 5), decoded as the sound "hmmrrr" over its
    quiet z and a barely heard "zero" (0.1) over the vowel straight after:
    the second word carries on the first at least as loud, the voice going
    on, not a pad on breath or hiss, so it stays (the takes and the level
    of the call then see the whole word). A barely heard word over the
    quieter end of the word after a sure "zero" still goes. (With the z
    ending 0.6 of the way to the loudest frame, the sound lies before
    the loud part and is not the call's first word at all.)"""
    clip = synth.call_after_silence(take(0, "george", 5), 0.8)

    def heard(recognizer: Recognizer) -> list[str]:
        listener = Listener(recognizer, RATE)
        listener.set_vocabulary(["zero", "five", "hmmrrr"])
        return [h.text for h in feed_blocks(listener, clip.audio, RATE, t0=0.0) if h.words]

    assert PHANTOM > 0.1
    assert heard(ContourRecognizer(("hmmrrr", 0.3), ("zero", 0.1), 0.8)) == ["hmmrrr zero"]
    assert heard(ContourRecognizer(("zero", 0.9), ("five", 0.1), 5.0)) == ["zero"]
