"""The pocketsphinx backend for real: count words in espeak-ng and Piper voices
at several speeds, rejection of noise, coughs and table talk, onsets after
known silences, and backend choice. Speech is rendered here (companion.audio.synth)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from fsdd import FSDD, needs_fsdd

from companion.audio import synth
from companion.audio.synth import Synth, VoiceSpec
from companion.errors import RecognizerError
from companion.referee.cmudict import CmuDictionary
from companion.referee.decision import DEFAULT
from companion.referee.judge import read_wav
from companion.referee.recognizer import Spellings, open_recognizer, pick_backend
from companion.referee.sphinx_backend import SphinxRecognizer, SphinxSettings, with_floor
from companion.referee.stream import Heard, Listener
from companion.voice.pack import load_pack

pytestmark = pytest.mark.slow

RATE = 16000
COUNT_WORDS = ["one", "two", "three", "four", "five", "six", "seven"]
VOCABULARY = [*COUNT_WORDS, "hmmrrr"]
PIPER = [VoiceSpec("piper", "en_US-joe-medium", s) for s in (0.8, 1.0, 1.3)]
ESPEAK = [VoiceSpec("espeak-ng", "en-us", 1.0, 50), VoiceSpec("espeak-ng", "en-us+m3", 0.85, 40),
          VoiceSpec("espeak-ng", "en-us+f2", 1.15, 60), VoiceSpec("espeak-ng", "en-gb+f4", 1.3, 65),
          VoiceSpec("espeak-ng", "en-us+m7", 1.2, 35)]
STRONG = 0.5  # a confident word
MISTAKE = 0.8  # the Nasty 7 engine's threshold before a word can make a mistake


@pytest.fixture(scope="module")
def sy() -> Synth:
    return Synth()


@pytest.fixture(scope="module")
def rec() -> SphinxRecognizer:
    recognizer = open_recognizer("pocketsphinx", load_pack("en"), notice=False)
    assert isinstance(recognizer, SphinxRecognizer)
    return recognizer


def hear(rec: SphinxRecognizer, clip: synth.Clip, t0: float = 100.0) -> list[Heard]:
    listener = Listener(rec, clip.rate)
    listener.set_vocabulary(VOCABULARY)
    out: list[Heard] = []
    block = round(0.03 * clip.rate)
    for i in range(0, len(clip.audio), block):
        out += listener.feed(clip.audio[i:i + block], t0 if i == 0 else None)
    return out + listener.flush()


def first_word(heard: list[Heard]) -> tuple[str, float] | None:
    """The first game word heard and its own confidence."""
    for h in heard:
        if h.words:
            return h.words[0].text, h.words[0].confidence
    return None


@pytest.mark.parametrize("voice", PIPER, ids=lambda v: v.label)
def test_piper_counts_are_heard_at_every_speed(sy: Synth, rec: SphinxRecognizer,
                                               voice: VoiceSpec) -> None:
    """Every count word is heard right; at least six of seven strongly (Piper's
    "three" was measured at 0.47-0.50, just under the threshold: weak words
    still confirm a right call, they only cannot make a mistake)."""
    strong = 0
    for i, word in enumerate(COUNT_WORDS):
        clip = synth.add_floor(synth.call_after_silence(sy.utterance(word, voice), 0.6), seed=i)
        got = first_word(hear(rec, clip))
        assert got is not None, word
        assert got[0] == word
        strong += got[1] >= STRONG
    assert strong >= 6


def test_espeak_counts_one_to_six_are_heard_and_never_strongly_wrong(
        sy: Synth, rec: SphinxRecognizer) -> None:
    """espeak-ng's voices are harder for the acoustic model: its "seven" is
    heard as "two one" (measured; left out here and reported). No wrong word
    reaches the engine's mistake threshold (0.8); one of the 30 comes out
    wrong above 0.5 (en-us+m3's "six" as "three" at 0.61, measured since the
    added noise floor)."""
    right = total = 0
    fairly_sure_wrong = 0
    for voice in ESPEAK:
        for i, word in enumerate(COUNT_WORDS[:6]):
            clip = synth.add_floor(synth.call_after_silence(sy.utterance(word, voice), 0.5),
                                   seed=i)
            got = first_word(hear(rec, clip))
            total += 1
            if got is not None and got[0] == word:
                right += 1
            else:
                assert got is None or got[1] < MISTAKE, (voice.label, word, got)
                fairly_sure_wrong += got is not None and got[1] >= STRONG
    assert right / total >= 0.9
    assert fairly_sure_wrong <= 1


@pytest.mark.parametrize("voice", [PIPER[0], PIPER[2], ESPEAK[0], ESPEAK[2], ESPEAK[4]],
                         ids=lambda v: v.label)
def test_calls_in_digital_silence_are_heard(sy: Synth, rec: SphinxRecognizer,
                                            voice: VoiceSpec) -> None:
    """Exact zeros around the call (a rendered clip, a line input, a gated
    microphone): the noise floor the backend adds before decoding
    (``SphinxSettings.floor_dbfs``) keeps the features where the model was
    trained. Without it, 8 of 22 such calls in the benchmark's clean clips
    came out as nothing at all."""
    for word in COUNT_WORDS[:6]:
        clip = synth.call_after_silence(sy.utterance(word, voice), 0.8)
        assert not clip.audio[:RATE // 2].any()  # really digital silence
        got = first_word(hear(rec, clip))
        assert got is not None and got[0] == word, (voice.label, word, got)


def test_without_the_added_floor_digital_silence_loses_calls(sy: Synth) -> None:
    """The same check run the old way shows what the floor is for: with no
    floor some of these calls are not heard right (measured: 2 of 6 from
    espeak-ng's en-us+m7 at 1.2 speed came out as other words, all 6 right
    with the floor, ``test_calls_in_digital_silence_are_heard``)."""
    bare = SphinxRecognizer(rec_spellings(), SphinxSettings(floor_dbfs=None))
    lost = 0
    for word in COUNT_WORDS[:6]:
        clip = synth.call_after_silence(sy.utterance(word, ESPEAK[4]), 0.8)
        got = first_word(hear(bare, clip))
        lost += got is None or got[0] != word
    assert lost >= 1


def test_the_call_grammar_holds_one_to_most_phrases() -> None:
    """``call_grammar`` is the language of ``<call> = <word> [<word>]
    [<word>]``: one to three of the phrases in a row, a phrase of two words
    only whole, nothing else (pocketsphinx's own reader of the grammar,
    ``FsgModel.accept``, checks each string)."""
    from companion.referee import sphinx_decoder
    from companion.referee.sphinx_backend import call_grammar

    fsg = call_grammar(sphinx_decoder.one_word_decoder(sphinx_decoder.SILENCE_FILLERS),
                       [["one"], ["two"], ["hmm", "hmm"]], 3)
    for words in ("one", "hmm hmm", "one two", "two hmm hmm one", "one one one"):
        assert fsg.accept(words), words
    for words in ("", "hmm", "three", "one one one one", "hmm hmm hmm"):
        assert not fsg.accept(words), words
    one = call_grammar(sphinx_decoder.one_word_decoder(), [["one"], ["two"]], 1)
    assert one.accept("two") and not one.accept("one two")


@needs_fsdd
def test_a_call_ending_with_its_recording_is_decoded() -> None:
    """The grammar's final state is reached through empty arcs, which
    pocketsphinx's search follows one per word end; ``call_grammar`` has
    their closure (pocketsphinx's reader adds it). A human call with no
    quiet after it (FSDD george's "seven" as recorded) comes out as the
    call; built without the closure, the grammar gave no words at all."""
    import soxr

    rec = SphinxRecognizer(rec_spellings())
    rec.set_vocabulary(VOCABULARY)
    pcm, rate = read_wav(FSDD / "7_george_0.wav")
    call = soxr.resample(pcm.astype(np.float32), rate, RATE).astype(np.int16)
    heard = rec.decode(np.concatenate([np.zeros(RATE // 4, np.int16), call]))
    assert [w.text for w in heard] == ["seven"], heard


def rec_spellings() -> Spellings:
    return Spellings.from_pack(load_pack("en"))


@pytest.mark.parametrize("voice", PIPER, ids=lambda v: v.label)
def test_a_hum_is_heard_as_the_phone_sound(sy: Synth, rec: SphinxRecognizer,
                                           voice: VoiceSpec) -> None:
    """Piper's "hmm" (its phone loop says AH M) is heard with the dictionary's
    HH M and the pack's HH AH M (``[listen.phones]``)."""
    clip = synth.add_floor(synth.call_after_silence(sy.utterance("hmm", voice), 0.6))
    got = first_word(hear(rec, clip))
    assert got is not None and got[0] == "hmmrrr", (voice.label, got)


def test_espeak_hums_rarely_reach_the_mistake_threshold(sy: Synth,
                                                        rec: SphinxRecognizer) -> None:
    """espeak-ng's hum ("h@m") sounds like "thoo" to the model (its phone loop
    says TH UW): heard as "two" in three of its five voices, at 0.72-0.81
    here (measured after the other tests of this module have decoded: the
    model's noise estimate carries from one utterance to the next). Two
    reach the engine's own threshold (en-us and en-us+m3, at 0.81), none the
    ear's decision's bar for a mistake (``Thresholds.mistake``), so the ear
    would leave them unsure: a known source of doubt, reported in
    bench/HISTORY.md. The bound is two voices in five."""
    at_threshold = 0
    for voice in ESPEAK:
        clip = synth.add_floor(synth.call_after_silence(sy.utterance("hmm", voice), 0.6))
        got = first_word(hear(rec, clip))
        if got is not None and got[0] != "hmmrrr":
            at_threshold += got[1] >= MISTAKE
            assert got[1] < DEFAULT.mistake, (voice.label, got)
    assert at_threshold <= 2


def test_the_word_beam_reaches_the_grammar_decoder_and_its_twin() -> None:
    """``SphinxSettings.wbeam`` is the grammar search's word beam in both
    decoders of a recognizer (its twin hears the second opinions)."""
    default = SphinxRecognizer(rec_spellings())
    assert default._decoder.config["wbeam"] == SphinxSettings().wbeam
    assert default.twin()._decoder.config["wbeam"] == SphinxSettings().wbeam
    wide = SphinxRecognizer(rec_spellings(), SphinxSettings(wbeam=7e-29))
    assert wide._decoder.config["wbeam"] == 7e-29


def test_the_added_floor_is_seeded_and_at_its_level() -> None:
    zeros = np.zeros(RATE, dtype=np.int16)
    a, b = with_floor(zeros, -60.0), with_floor(zeros, -60.0)
    assert np.array_equal(a, b)
    rms_db = 10 * np.log10(np.mean(a.astype(np.float64) ** 2) / 32768.0 ** 2)
    assert rms_db == pytest.approx(-60.0, abs=0.5)
    loud = np.full(100, 32767, dtype=np.int16)
    assert with_floor(loud, -60.0).max() <= 32767  # clipped, not wrapped
    assert with_floor(zeros, None) is zeros
    # The noise is drawn once and sliced: each length gets exactly what a
    # fresh draw of that length would (what pocketsphinx decodes is as
    # before), and a length past the drawn one draws again.
    for n in (7, RATE, 5 * RATE, 3 * RATE):
        fresh = np.random.default_rng(0).normal(0.0, 32768.0 * 10 ** (-60.0 / 20), n)
        assert np.array_equal(with_floor(zeros[:1].repeat(n), -60.0),
                              np.clip(np.round(fresh), -32768, 32767).astype(np.int16))


def test_twin_calls_come_out_as_two_words(sy: Synth, rec: SphinxRecognizer) -> None:
    for voice in [PIPER[1], ESPEAK[0]]:
        clip = synth.add_floor(synth.call_after_silence(sy.utterance("five six", voice), 0.5))
        heard = [h for h in hear(rec, clip) if h.words]
        assert [h.text for h in heard] == ["five six"]


def cough(seed: int) -> np.ndarray:
    """A cough-like burst: low-passed noise with a sharp attack and 80 ms decay."""
    rng = np.random.default_rng(seed)
    n = round(0.35 * RATE)
    noise = np.convolve(rng.normal(0, 1, n), np.ones(6) / 6, mode="same")
    env = np.exp(-np.arange(n) / (0.08 * RATE))
    burst = noise * env
    return (burst / np.abs(burst).max() * 12000).astype(np.int16)


def test_noise_and_coughs_never_make_a_strong_game_word(rec: SphinxRecognizer) -> None:
    """Bursts of noise and coughs make no sure game word. (With no call owed
    ever said, as here, sure words are heard again on the grammar compiled
    from JSGF, ``Recognizer.confirmer``: the call's small grammar alone
    heard two of four coughs as the round's sound, at 0.38 and 0.55.)"""
    clips = []
    for seed in range(4):
        clips.append(synth.add_floor(synth.call_after_silence(cough(seed), 0.8), seed=seed))
        burst = (synth.white_noise(RATE // 2, seed=seed) * 3000).astype(np.int16)
        clips.append(synth.add_floor(synth.call_after_silence(burst, 0.8), seed=seed))
    for clip in clips:
        for h in hear(rec, clip):
            assert h.confidence < STRONG, h


def test_table_talk_rarely_makes_a_strong_game_word(sy: Synth, rec: SphinxRecognizer) -> None:
    """Non-game phrases in every voice. Measured: 5 of 32 come out as a
    strong game word ("oh no" and "my turn" as "two" in espeak-ng's US
    voices, "oh no" as "one two" from Piper); the bound here is one in
    five. A known weakness of a small grammar: a word that sounds like a
    game word is taken for it."""
    phrases = ["pass me the salt", "what time is it", "oh no", "my turn"]
    strong = total = 0
    for voice in [*ESPEAK, *PIPER]:
        for phrase in phrases:
            clip = synth.add_floor(synth.call_after_silence(sy.utterance(phrase, voice), 0.5))
            total += 1
            if any(h.confidence >= STRONG for h in hear(rec, clip)):
                strong += 1
    assert strong / total <= 0.2


@pytest.mark.parametrize("silence", [0.3, 0.9, 1.7, 2.6, 3.5])
def test_onsets_after_known_silences_are_within_80_ms(sy: Synth, rec: SphinxRecognizer,
                                                      silence: float) -> None:
    for k, voice in enumerate([PIPER[1], *ESPEAK[:3]]):
        word = COUNT_WORDS[(k + round(silence * 10)) % 7]
        clip = synth.add_floor(synth.call_after_silence(sy.utterance(word, voice), silence),
                               seed=k)
        heard = hear(rec, clip, t0=42.0)
        assert heard, (voice.label, word)
        assert abs(heard[0].onset - (42.0 + silence)) <= 0.08, (voice.label, word, heard[0])


def test_onsets_in_white_noise_at_10_db_are_within_80_ms(sy: Synth, rec: SphinxRecognizer) -> None:
    for k, word in enumerate(["two", "five", "one"]):
        clip = synth.call_after_silence(sy.utterance(word, PIPER[1]), 1.0 + k)
        noisy = synth.add_noise(clip, synth.white_noise(len(clip.audio), seed=k), 10.0)
        heard = hear(rec, noisy)
        assert heard
        assert abs(heard[0].onset - (100.0 + 1.0 + k)) <= 0.08, (word, heard[0])


@needs_fsdd
def test_without_the_noise_fillers_talk_is_heard_the_same() -> None:
    """The grammar search with silence as its only filler (the default) hears
    human calls under human table talk (a shared development session at 10
    dB, cut into 1.5 s stretches decoded in turn) as the same words at the
    same times, with confidences within 0.01 of those with the model's noise
    fillers too; only its cost differs, which bench/RESULTS.md measures."""
    pcm, rate = read_wav(FSDD.parents[1] / "sessions" / "dev" / "babble10" / "s000.wav")
    assert rate == RATE
    plain = SphinxRecognizer()
    fillers = SphinxRecognizer(settings=SphinxSettings(noise_fillers=True))
    assert plain._decoder.lookup_word("[SPEECH]") is None
    assert fillers._decoder.lookup_word("[SPEECH]") is not None
    for rec in (plain, fillers):
        rec.set_vocabulary(VOCABULARY)
    step = round(1.5 * RATE)
    stretches = [pcm[i:i + step] for i in range(0, len(pcm) - step, step)]
    heard = [plain.decode(x) for x in stretches]
    with_fillers = [fillers.decode(x) for x in stretches]
    assert [[(w.text, w.start, w.end) for w in words] for words in heard] == \
        [[(w.text, w.start, w.end) for w in words] for words in with_fillers]
    assert all(abs(a.confidence - b.confidence) <= 0.01
               for one, other in zip(heard, with_fillers, strict=True)
               for a, b in zip(one, other, strict=True))
    assert sum(len(words) for words in heard) >= 4, heard


def test_backend_choice(monkeypatch: pytest.MonkeyPatch, tmp_path: object) -> None:
    monkeypatch.setenv("COMPANION_MODELS", str(tmp_path))  # no English vosk model there
    monkeypatch.delenv("COMPANION_RECOGNIZER", raising=False)
    backend, notice = pick_backend(None)
    assert backend == "pocketsphinx" and notice and "companion models install en" in notice
    monkeypatch.setenv("COMPANION_RECOGNIZER", "vosk")
    assert pick_backend(None) == ("vosk", None)
    assert pick_backend("pocketsphinx") == ("pocketsphinx", None)  # --recognizer wins
    with pytest.raises(RecognizerError, match="'julius'"):
        pick_backend("julius")
    with pytest.raises(RecognizerError, match="companion models install en"):
        open_recognizer("vosk", load_pack("en"))
    with pytest.raises(RecognizerError, match="only a US English model"):
        open_recognizer("pocketsphinx", load_pack("ko"))


def test_a_missing_dictionary_is_a_recognizer_error_naming_it(tmp_path: Path) -> None:
    # The words' pronunciations are read from the dictionary file when a
    # vocabulary needs them; a file that cannot be read is a clear error,
    # not a traceback from deep in the decoder.
    rec = SphinxRecognizer(Spellings.from_pack(load_pack("en")),
                           dictionary=CmuDictionary(tmp_path / "gone.dict"))
    with pytest.raises(RecognizerError, match="dictionary cannot be read"):
        rec.set_vocabulary(VOCABULARY)


def test_without_pocketsphinx_the_recognizer_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pocketsphinx", None)  # as if not installed
    with pytest.raises(RecognizerError, match="pocketsphinx cannot be loaded"):
        SphinxRecognizer(Spellings.from_pack(load_pack("en")))
