"""pocketsphinx's decoders as the ear makes them (``companion.referee.sphinx_decoder``),
for real: a decoder holding only the words listened for hears what the whole
CMU dictionary hears, and a twin's decodes leave the recognizer's noise
estimate alone. Speech is rendered here with Piper and espeak-ng
(companion.audio.synth)."""

from __future__ import annotations

import numpy as np
import pytest

from companion.audio import synth
from companion.audio.synth import Synth, VoiceSpec
from companion.errors import RecognizerError
from companion.referee.recognizer import Spellings
from companion.referee.sphinx_backend import SphinxRecognizer
from companion.voice.pack import load_pack

pytestmark = pytest.mark.slow

VOCABULARY = ["one", "two", "three", "four", "five", "six", "seven", "hmmrrr"]
VOICES = [VoiceSpec("piper", "en_US-joe-medium", 1.0), VoiceSpec("espeak-ng", "en-us", 1.0, 50)]


@pytest.fixture(scope="module")
def utterances() -> list[np.ndarray]:
    sy = Synth()
    out = []
    for i, (voice, word) in enumerate([(v, w) for v in VOICES for w in ("three", "six", "hmmrrr")]):
        clip = synth.add_floor(synth.call_after_silence(sy.utterance(word, voice), 0.3), seed=i)
        out.append(clip.audio)
    return out


def recognizer() -> SphinxRecognizer:
    rec = SphinxRecognizer()
    rec.set_vocabulary(VOCABULARY)
    return rec


def test_the_twins_decodes_leave_the_recognizer_alone(utterances: list[np.ndarray]) -> None:
    """pocketsphinx's noise removal carries its estimate from one decode to
    the next: after a second of loud hiss the same utterances come out as
    other words, or the same with other confidences. The ear's second
    hearing (the noise-suppressed copy) is decoded by the recognizer's twin
    instead, which has decoders of its own: the recognizer's next decodes
    are what they would have been without it."""
    rng = np.random.default_rng(4)
    hiss = np.clip(rng.normal(0, 3000, 16000), -32768, 32767).astype(np.int16)
    plain, busy, twinned = (recognizer() for _ in range(3))
    for r in (plain, busy, twinned):
        r.decode(utterances[0])
    busy.decode(hiss)
    twin = twinned.twin()
    assert twin is twinned.twin() and twin is not twinned
    twin.follow(twinned)
    assert twin.vocabulary == twinned.vocabulary
    twin.decode(hiss)
    later = utterances[1:]
    expected = [plain.decode(u) for u in later]
    assert [busy.decode(u) for u in later] != expected  # the carry-over is real
    assert [twinned.decode(u) for u in later] == expected


def test_a_decoder_with_only_the_words_listened_for_hears_what_the_whole_dictionary_hears(
        utterances: list[np.ndarray]) -> None:
    """The recognizer's grammar decoder, and its twin's, hold only the words
    they listen for, read from the CMU dictionary file, with the English
    pack's phones after them ("hmm" for the phone sound): the same words and
    confidences as a decoder that loaded the whole CMU dictionary (as it did
    before), utterance by utterance."""
    import pocketsphinx

    spellings = Spellings.from_pack(load_pack("en"))

    def whole_dictionary() -> SphinxRecognizer:
        rec = SphinxRecognizer(spellings)
        rec._decoder = pocketsphinx.Decoder(lm=None, loglevel="FATAL", wip=rec.settings.wip,
                                            wbeam=rec.settings.wbeam)
        rec._logmath = rec._decoder.get_logmath()
        rec.set_vocabulary(VOCABULARY)
        return rec

    whole = whole_dictionary()
    whole_twin = whole_dictionary()
    small = SphinxRecognizer(spellings)
    small.set_vocabulary(VOCABULARY)
    twin = small.twin()
    with pytest.raises(RecognizerError):
        twin.decode(utterances[0])  # no vocabulary until it follows one
    twin.follow(small)
    expected = [whole.decode(u) for u in utterances]
    assert [small.decode(u) for u in utterances] == expected
    assert [twin.decode(u) for u in utterances] == [whole_twin.decode(u) for u in utterances]
    for name in ("hmm", "hmm(2)", "hmm(3)", "seven", "three"):
        assert small._decoder.lookup_word(name) == whole._decoder.lookup_word(name)
        assert twin._decoder.lookup_word(name) == whole._decoder.lookup_word(name)
    assert small._decoder.lookup_word("hmm(2)") == "HH AH M"  # the pack's, after the CMU one
    assert whole._decoder.lookup_word("seventeen") is not None
    assert small._decoder.lookup_word("seventeen") is None  # not the whole dictionary
