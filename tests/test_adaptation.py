"""Each player's adapted acoustic model (``companion.referee.adaptation``),
built with the real CMU Sphinx tools from a development speaker's FSDD
takes, loaded by the real pocketsphinx, and used by the ear through
``companion replay``. Nothing is mocked: a missing tool is made by pointing
the adapter at an empty folder."""

from __future__ import annotations

import json
import os
import struct
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fsdd import FSDD, needs_fsdd, take
from test_replay_human import heard_cache

from companion.made_once import making
from companion.referee.adaptation import (
    AdaptationError,
    Adapter,
    Tools,
    background_builders,
    bundled_model,
    prune,
    takes_digest,
    write_mixture_weights,
)
from companion.referee.recognizer import Spellings
from companion.referee.sphinx_backend import SphinxRecognizer

REPO = Path(__file__).resolve().parents[1]
DIGITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]


def fsdd(word: str, speaker: str, k: int) -> np.ndarray:
    """One FSDD take at 16 kHz (16-bit scale, float)."""
    return take(DIGITS.index(word), speaker, k).astype(np.float64)


def enrolled(speaker: str) -> dict[str, list[np.ndarray]]:
    """The speaker's takes 0-2 of the ten digits: what a player enrolls
    (no session says them)."""
    return {w: [fsdd(w, speaker, k) for k in range(3)] for w in DIGITS}


def test_the_bundled_mixture_weights_are_read_as_probabilities(tmp_path: Path) -> None:
    out = tmp_path / "mixture_weights"
    write_mixture_weights(bundled_model() / "sendump", out)
    data = out.read_bytes()
    end = data.index(b"endhdr\n") + len(b"endhdr\n")
    assert end % 4 == 0 and struct.unpack_from("<i", data, end)[0] == 0x11223344
    senones, streams, codewords, size = struct.unpack_from("<4I", data, end + 4)
    assert (streams, codewords, size) == (3, 128, senones * streams * codewords)
    weights = np.frombuffer(data, "<f4", size, end + 20).reshape(senones, streams, codewords)
    sums = weights.sum(axis=2)
    # each senone's weights over a stream's codewords: a distribution (the
    # quantized small weights are rounded down, so a little under 1)
    assert (weights >= 0).all() and sums.min() > 0.8 and sums.max() <= 1.0 + 1e-3


def test_a_cut_sendump_is_refused_by_name(tmp_path: Path) -> None:
    cut = tmp_path / "sendump"
    cut.write_bytes((bundled_model() / "sendump").read_bytes()[:5000])
    with pytest.raises(AdaptationError, match="sendump"):
        write_mixture_weights(cut, tmp_path / "mixture_weights")


def test_a_missing_tool_is_named_with_its_package(tmp_path: Path) -> None:
    with pytest.raises(AdaptationError, match="sphinxtrain"):
        Tools.find(sphinxtrain=tmp_path)


@needs_fsdd
def test_a_players_model_is_built_once_and_hears_their_six(tmp_path: Path) -> None:
    """george's takes 0-2 of the digits adapt the means and variances (the
    rest stays the bundled model's); the model is kept under the takes'
    digest and found again without running a tool (the second adapter's
    tools do not exist). Decoded with it, george's later takes of "six"
    (3-29, never enrolled), which the bundled model mostly hears as
    another number, are heard as "six" more often."""
    takes = enrolled("george")
    model = Adapter(tmp_path).model(takes)
    assert model is not None and model.parent == tmp_path
    base = bundled_model()
    for name in ("sendump", "mdef", "transition_matrices"):
        assert (model / name).read_bytes() == (base / name).read_bytes()
    for name in ("means", "variances"):
        assert (model / name).read_bytes() != (base / name).read_bytes()
    nowhere = Tools(*(tmp_path / "none" for _ in range(4)))
    assert Adapter(tmp_path, tools=nowhere).model(takes) == model

    bundled = SphinxRecognizer(Spellings())
    bundled.set_vocabulary([*DIGITS, "ten", "eleven", "twelve"])
    adapted = bundled.adapted(model)
    adapted.follow(bundled)
    pad = np.zeros(4800)
    heard = {"bundled": 0, "adapted": 0}
    for k in range(3, 30):
        pcm = np.concatenate([pad, fsdd("six", "george", k), pad]).astype(np.int16)
        for name, recognizer in (("bundled", bundled), ("adapted", adapted)):
            words = recognizer.decode(pcm)
            heard[name] += bool(words) and words[0].text == "six"
    assert heard["adapted"] > heard["bundled"]


def ready_later(adapter: Adapter, takes: dict[str, list[np.ndarray]]) -> Path:
    """The model of ``takes`` asked for in the background: not there at
    once (building: the ear goes on without it), there once the builders
    are idle."""
    assert adapter.model(takes) is None
    assert adapter.idle(timeout=120)
    model = adapter.model(takes)
    assert model is not None and (model / "means").is_file()
    return model


@needs_fsdd
def test_in_the_background_the_model_is_ready_later(tmp_path: Path) -> None:
    ready_later(Adapter(tmp_path, wait=False),
                {w: t[:1] for w, t in enrolled("jackson").items()})


@needs_fsdd
def test_with_two_builders_two_models_are_built_side_by_side(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Three players' models asked for at once (a game starting). The first
    # two builds each wait (up to 20 s) for the other to be running beside
    # it: one builder would build them one after the other, and the first
    # would wait in vain and fail.
    beside = threading.Barrier(2, timeout=20)
    started: list[str] = []
    lock = threading.Lock()
    build = Adapter._build_now

    def paired(self: Adapter, key: str, *args: Any) -> Path:
        with lock:
            started.append(key)
            first_two = len(started) <= 2
        if first_two:
            beside.wait()
        return build(self, key, *args)

    monkeypatch.setattr(Adapter, "_build_now", paired)
    adapter = Adapter(tmp_path, wait=False, builders=2)
    players = [{w: [fsdd(w, speaker, 0)] for w in ("one", "six")}
               for speaker in ("george", "jackson", "lucas")]
    assert [adapter.model(takes) for takes in players] == [None, None, None]
    assert adapter.idle(timeout=120)
    assert all(adapter.model(takes) is not None for takes in players)
    assert len(started) == 3


@pytest.mark.parametrize(("cores", "builders"), [(None, 1), (1, 1), (2, 1), (3, 1), (4, 2),
                                                (8, 2)])
def test_the_live_table_builds_two_models_at_once_on_a_four_core_pi(
        monkeypatch: pytest.MonkeyPatch, cores: int | None, builders: int) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: cores)
    assert background_builders() == builders


@needs_fsdd
@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_builder_killed_by_an_unexpected_error_does_not_stop_later_builds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    build = Adapter._build_now
    calls: list[str] = []

    def first_breaks(self: Adapter, key: str, *args: Any) -> Path:
        calls.append(key)
        if len(calls) == 1:
            raise RuntimeError("a bug in the first build")
        return build(self, key, *args)

    monkeypatch.setattr(Adapter, "_build_now", first_breaks)
    adapter = Adapter(tmp_path, wait=False)
    first, second = ({"six": [fsdd("six", s, 0)]} for s in ("lucas", "george"))
    assert adapter.model(first) is None
    assert adapter.idle(timeout=60)  # its builder died
    ready_later(adapter, second)


@needs_fsdd
def test_two_adapters_asking_for_one_model_at_once_build_it_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # As two processes on one cache folder would (a live table and a replay,
    # or the tests' workers): the second waits for the first's model.
    built: list[str] = []
    build = Adapter._build_now

    def counted(self: Adapter, key: str, *args: Any) -> Path:
        built.append(key)
        return build(self, key, *args)

    monkeypatch.setattr(Adapter, "_build_now", counted)
    takes = {"six": [fsdd("six", "lucas", 0)], "two": [fsdd("two", "lucas", 0)]}
    models: list[Path | None] = []
    both = [threading.Thread(target=lambda: models.append(Adapter(tmp_path).model(takes)))
            for _ in range(2)]
    for t in both:
        t.start()
    for t in both:
        t.join(timeout=120)
    assert len(built) == 1
    assert len(models) == 2 and models[0] == models[1] and (models[0] / "means").is_file()


@needs_fsdd
def test_the_work_of_a_build_cut_short_is_removed_when_the_model_is_built(
        tmp_path: Path) -> None:
    # The power went while Abby's model was being built: its work folder
    # (the takes as WAVs, their features, the counts) was left in the cache.
    adapter = Adapter(tmp_path)
    takes = {"six": [fsdd("six", "lucas", 0)]}
    key = takes_digest(takes, {"six": "S IH K S"})
    left = tmp_path / f".{key}.part"
    left.mkdir()
    (left / "000.wav").write_bytes(b"RIFF")
    other = tmp_path / ".another-model.part"  # another model's: left to its own build
    other.mkdir()
    model = adapter.model(takes, {"six": "S IH K S"})
    assert model is not None and model.name == key and (model / "means").is_file()
    assert not left.exists() and other.is_dir()


def models_made(root: Path, names: list[str]) -> None:
    """Finished models (a ``means`` file each) under ``root``, used in the
    order given, a minute apart, the last most recently."""
    for k, name in enumerate(names):
        (root / name).mkdir(parents=True)
        (root / name / "means").write_bytes(b"x")
        os.utime(root / name, (1_700_000_000 + 60 * k,) * 2)


def test_the_cache_keeps_the_models_used_last(tmp_path: Path) -> None:
    old = [f"{k:020x}" for k in range(5)]  # the oldest first
    models_made(tmp_path, old)
    (tmp_path / "base-0123456789ab").mkdir()  # the bundled model's copy: not a player's
    (tmp_path / f".{old[2]}.lock").write_bytes(b"")
    (tmp_path / f".{'f' * 20}.part").mkdir()  # a build under way
    removed = prune(tmp_path, 2, spare={old[0]})
    assert sorted(removed) == [old[1], old[2]]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [old[0], old[3], old[4], "base-0123456789ab", f".{old[1]}.lock", f".{old[2]}.lock",
         f".{'f' * 20}.part"])
    with making(tmp_path, old[0]):  # being built again: left alone
        assert prune(tmp_path, 1) == [old[3]]
    assert prune(tmp_path, 1) == [old[0]]


def test_a_model_handed_out_is_kept_and_the_oldest_go_when_one_is_built(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Abby recorded her takes again months ago; her model of now was built
    # before the other three were last used. The live table hands it out,
    # then builds Beth's new model: Abby's, used now, stays beside Beth's,
    # and the three others go. (The build itself is stood in for: what is
    # tested is what the cache keeps; the tools' builds are tested above.)
    def built(self: Adapter, key: str, *_: Any) -> Path:
        (self.root / key).mkdir()
        (self.root / key / "means").write_bytes(b"x")
        return self.root / key

    monkeypatch.setattr(Adapter, "_build_now", built)
    abby, beth = {"six": [np.arange(800.0)]}, {"six": [np.arange(900.0)]}
    pron = {"six": "S IH K S"}
    abbys = takes_digest(abby, pron)
    others = [f"{k:020x}" for k in range(3)]
    models_made(tmp_path, [abbys, *others])
    assert Adapter(tmp_path).model(abby, pron) == tmp_path / abbys
    used = {p.name: p.stat().st_mtime for p in tmp_path.iterdir()}
    assert used[abbys] > max(used[o] for o in others)  # a replay says it used Abby's now
    live = Adapter(tmp_path, wait=False, keep=2)
    assert live.model(abby, pron) == tmp_path / abbys
    assert len([p for p in tmp_path.iterdir() if not p.name.startswith(".")]) == 4
    assert live.model(beth, pron) is None and live.idle(timeout=30)
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == sorted(
        [abbys, takes_digest(beth, pron)])
    # a replay keeps every model
    models_made(tmp_path / "replay", others)
    assert Adapter(tmp_path / "replay").model(beth, pron) is not None
    assert len([p for p in (tmp_path / "replay").iterdir() if not p.name.startswith(".")]) == 4


def test_the_work_of_a_base_copy_cut_short_is_removed_when_it_is_made(tmp_path: Path) -> None:
    # The bundled model as the tools read it is made once per cache folder;
    # the power went while it was being made in the second folder.
    name = Adapter(tmp_path / "first").base().name
    left = tmp_path / "second" / f".{name}.part"
    left.mkdir(parents=True)
    base = Adapter(tmp_path / "second").base()
    assert base.name == name and (base / "mixture_weights").is_file()
    assert not left.exists()


@needs_fsdd
def test_a_failed_build_is_not_tried_again(tmp_path: Path) -> None:
    nowhere = Tools(*(tmp_path / "none" for _ in range(4)))
    adapter = Adapter(tmp_path / "models", tools=nowhere)
    takes = {"six": [fsdd("six", "lucas", 0)]}
    with pytest.raises(AdaptationError, match="could not run"):
        adapter.model(takes)
    assert adapter.model(takes) is None


def generated(tmp: Path, condition: str, rounds: int) -> tuple[Path, dict[str, Any]]:
    """The ``rounds``-th round of the generated development split
    (``bench/humanset.py --seed 17``), enrolled as ``bench/enrolled.py
    --takes 3`` does (the count words and the wrong numbers), and its
    truth."""
    sys.path.insert(0, str(REPO / "bench"))
    import enrolled as enroll_bench
    import humanset

    humanset.main(["--out", str(tmp / "set"), "--seed", "17", "--rounds", str(rounds),
                   "--splits", "dev", "--conditions", condition])
    enroll_bench.enroll_set(tmp / "set", tmp / "enrolled", 3, FSDD,
                            enroll_bench.COUNT_WORDS + enroll_bench.WRONG_NUMBERS,
                            cache=heard_cache())
    t = json.loads((tmp / "set" / "dev" / "truth.jsonl").read_text().splitlines()[rounds - 1])
    return tmp / "enrolled" / "dev" / condition / f"{t['session']}.jsonl", t


@needs_fsdd
def test_a_call_left_unsure_in_hiss_is_heard_with_the_callers_own_model(
        tmp_path: Path) -> None:
    """The generated development split's s009 in white noise at 10 dB: a
    right call the bundled model's hearings (the raw call, the suppressed
    copy) leave unsure is heard as the call owed with the caller's adapted
    model and confirmed; without adaptation it has no ruling. No correct
    call is ruled a mistake either way."""
    from companion.referee.judge import EarSettings, audio_handler
    from companion.replay import replay
    from companion.session import load_session
    from companion.voice.pack import lexicon_for_header, load_pack

    path, t = generated(tmp_path, "white10", 10)
    assert t["session"] == "s009"
    call = t["calls"][4]
    assert call["kind"] == "right"
    pack = load_pack("en")
    results = {}
    for adapt in (False, True):
        session = load_session(path, lexicon_for=lexicon_for_header)
        handler = audio_handler(None, pack, settings=EarSettings(adapt=adapt))
        results[adapt] = [r.to_dict() for r in replay(session, on_audio=handler)]
    count = call["count"]
    for adapt, rulings in results.items():
        ok = {(r["player"], r["count"]) for r in rulings if r["type"] == "call_ok"}
        assert ((call["player"], count) in ok) == adapt
        right = {c["player"] for c in t["calls"] if c["kind"] in ("right", "gun")} - {
            c["player"] for c in t["calls"] if c["kind"] not in ("right", "gun")}
        assert not [m for m in rulings if m["type"] == "mistake" and m["player"] in right]


@needs_fsdd
def test_at_the_table_a_callers_model_is_built_when_their_turn_comes(tmp_path: Path) -> None:
    """The live ear (``Adapter(wait=False)``) starts building a player's
    model when the game says that player owes a call, in the background;
    a player with no takes gets none."""
    from companion.referee.stream import Listener
    from companion.referee.templates import Enrollment

    enrollment = Enrollment()
    for word, takes in enrolled("lucas").items():
        assert enrollment.add("Abby", word, takes[0])
    adapter = Adapter(tmp_path, wait=False)
    listener = Listener(SphinxRecognizer(Spellings()), 16000, enrollment=enrollment,
                        adapter=adapter)
    listener.set_expected(["two"], "Beth")  # never enrolled: nothing to build
    assert adapter.idle(timeout=1) and not list(tmp_path.iterdir())
    listener.set_expected(["one"], "Abby")
    assert adapter.idle(timeout=120)
    model = adapter.model(enrollment.audio["Abby"])
    assert model is not None and (model / "means").is_file()


@needs_fsdd
def test_a_call_its_takes_hear_as_another_word_is_heard_with_the_callers_model(
        tmp_path: Path) -> None:
    """The generated development split's s000 in kitchen noise at 10 dB:
    the last call's first hearing is unsure and the caller's takes fit
    another word better than the call by ``template_favoured`` (so the
    bundled model's copies are not heard); the caller's model, adapted
    in noise too, hears it as the call owed. The round has no wrong call,
    and no mistake is ruled either way."""
    from companion.referee.decision import DEFAULT, Evidence, Verdict
    from companion.referee.judge import EarSettings, audio_handler
    from companion.replay import replay
    from companion.session import load_session
    from companion.voice.pack import lexicon_for_header, load_pack

    path, t = generated(tmp_path, "kitchen10", 1)
    assert t["session"] == "s000"
    call = t["calls"][8]
    assert call["kind"] == "right"
    assert {c["kind"] for c in t["calls"]} <= {"right", "gun"}
    pack = load_pack("en")
    results, traces = {}, {}
    for adapt in (False, True):
        trace: list[tuple[Evidence, Verdict]] = []
        session = load_session(path, lexicon_for=lexicon_for_header)
        handler = audio_handler(None, pack, settings=EarSettings(adapt=adapt, trace=trace))
        results[adapt] = [r.to_dict() for r in replay(session, on_audio=handler)]
        traces[adapt] = trace
    in_window = [(e, v) for e, v in traces[False] if e.onset >= call["flip_t"]]
    assert in_window and all(v.outcome == "unsure" for _, v in in_window)
    assert any(e.template_gap is not None and e.template_gap >= DEFAULT.template_favoured
               for e, _ in in_window)
    for adapt, rulings in results.items():
        ok = {(r["player"], r["count"]) for r in rulings if r["type"] == "call_ok"}
        assert ((call["player"], call["count"]) in ok) == adapt
        assert not [m for m in rulings if m["type"] == "mistake"]
