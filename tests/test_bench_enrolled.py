"""``bench/enrolled.py``: the sessions' enrollment heard as the voices page
hears it (the real ear, the real ``VoiceSetup`` and ``TakeStore``, a real
FSDD take; nothing mocked)."""

from __future__ import annotations

import sys
import wave
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]
FSDD = REPO.parent / "shared" / "human-calls" / "raw" / "fsdd"
sys.path.insert(0, str(REPO / "bench"))

import enrolled  # noqa: E402

needs_fsdd = pytest.mark.skipif(not FSDD.is_dir(), reason="the shared FSDD takes are not here")


def frames(path: Path) -> tuple[int, int]:
    with wave.open(str(path), "rb") as wf:
        return wf.getframerate(), wf.getnframes()


@needs_fsdd
def test_a_take_is_kept_as_the_utterance_the_ear_heard(tmp_path: Path) -> None:
    """george's first take of "one", said over the table's floor, is kept
    as the page keeps it: a 16 kHz WAV of the utterance the ear handed
    over, the file's word with the floor around it, listed by word."""
    kept = enrolled.heard_takes("george", ("one",), 1, FSDD, tmp_path)
    assert list(kept) == ["one"] and len(kept["one"]) == 1
    rate, n = frames(tmp_path / kept["one"][0])
    src_rate, src_n = frames(FSDD / "1_george_0.wav")
    assert rate == 16000
    assert src_n / src_rate < n / rate < src_n / src_rate + 1.0


@needs_fsdd
def test_a_second_call_takes_the_heard_takes_from_the_cache(tmp_path: Path) -> None:
    """Kept in a cache folder, the same takes are copied, not heard again:
    the second enrollment's files are byte for byte the first's."""
    cache = tmp_path / "cache"
    first = enrolled.kept_heard("lucas", ("two",), 1, FSDD, tmp_path / "a", cache)
    second = enrolled.kept_heard("lucas", ("two",), 1, FSDD, tmp_path / "b", cache)
    assert first == second
    for a, b in zip(first["two"], second["two"], strict=True):
        assert (tmp_path / "a" / a).read_bytes() == (tmp_path / "b" / b).read_bytes()
    name = "lucas-1-two"  # one copy kept, beside the lock of whoever hears them
    assert sorted(p.name for p in cache.iterdir()) == [f".{name}.lock", name]


def test_a_take_the_page_would_ask_for_again_is_named(tmp_path: Path) -> None:
    """A take with no voice in it (digital silence) is never kept; the set
    has no other take to give, so the benchmark stops naming it."""
    raw = tmp_path / "raw"
    raw.mkdir()
    with wave.open(str(raw / "3_george_0.wav"), "wb") as wf:
        wf.setnchannels(1)
        wf.setsampwidth(2)
        wf.setframerate(8000)
        wf.writeframes(np.zeros(4000, dtype="<i2").tobytes())
    with pytest.raises(enrolled.TakeRefused, match="george's take 0 of 'three'"):
        enrolled.heard_takes("george", ("three",), 1, raw, tmp_path / "out")


@needs_fsdd
def test_a_second_run_into_the_same_folder_keeps_each_take_once(tmp_path: Path) -> None:
    """Run twice into the same ``--out``, each voice's folder holds the
    takes of one run: the voices page's store adds to what a folder holds,
    and a second copy of every take made each word's takes identical in
    pairs (the set this benchmark wrote once had six takes a word, three
    of them copies)."""
    data = tmp_path / "data"
    data.mkdir()
    out = tmp_path / "out"
    for _ in range(2):
        assert enrolled.enroll_set(data, out, 1, FSDD, ("two",)) == 0
    for voice in enrolled.VOICES:
        wavs = sorted(p.name for p in (out / "enroll" / voice).rglob("*.wav"))
        assert len(wavs) == 1, (voice, wavs)
