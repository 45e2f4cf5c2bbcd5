"""The human-voice set's generator and judge agree with the engine.

Reads the raw material of ``../shared/human-calls/raw`` (real FSDD calls,
real talk and kitchen noise); nothing is downloaded. The far-field room is
simulated with pyroomacoustics (the ``test`` extra).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import human  # noqa: E402
import humanset  # noqa: E402

from companion.events import Say  # noqa: E402
from companion.session import load_session  # noqa: E402

RAW = humanset.DEFAULT_RAW
needs_raw = pytest.mark.skipif(not (RAW / "fsdd").is_dir(),
                               reason=f"no human-calls raw material in {RAW}")


@pytest.fixture(scope="module")
def small_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("humanset")
    humanset.main(["--out", str(out), "--seed", "3", "--rounds", "4", "--splits", "dev,test",
                   "--conditions", "clean,babble5,farfield_babble15", "--ready"])
    return out


@needs_raw
@pytest.mark.slow
def test_the_set_has_the_layout_score_py_reads(small_set: Path) -> None:
    assert (small_set / "READY").is_file()
    for split in ("dev", "test"):
        truths = [json.loads(x) for x in (small_set / split / "truth.jsonl").read_text()
                  .splitlines()]
        assert [t["session"] for t in truths] == [f"s{i:03d}" for i in range(4)]
        assert {t["variant"] for t in truths} == {"right", "wrong", "oov", "late"}
        for condition in ("clean", "babble5", "farfield_babble15"):
            mix = [json.loads(x) for x in (small_set / split / condition / "mix.jsonl")
                   .read_text().splitlines()]
            assert len(mix) == 4
            for t, m in zip(truths, mix, strict=True):
                session = load_session(small_set / split / condition / f"{t['session']}.jsonl")
                flips = [e for e in session.events if e.type == "flip"]
                assert [(f.t, f.player) for f in flips] == [(c["flip_t"], c["player"])
                                                            for c in t["calls"]]
                x, rate = humanset.read_wav(small_set / split / condition
                                            / f"{t['session']}.wav")
                assert rate == 16000 and len(x) / rate == pytest.approx(m["seconds"], abs=1e-3)
                if m["snr_db"] is not None:  # the noise really is at its SNR
                    assert m["speech_active_dbfs"] - m["noise_dbfs"] == pytest.approx(
                        m["snr_db"], abs=0.05)
            if condition == "farfield_babble15":
                far = mix[0]["room"]
                assert 0.4 <= far["rt60_target"] <= 0.6
                assert all(0.6 <= d <= 1.0 for d in far["seat_dist"])
        takes = {int(p.split("_")[2].removesuffix(".wav"))
                 for t in truths for c in t["calls"] if c.get("take")
                 for p in c["take"].split("+")}
        assert takes <= set(humanset.SPLIT_TAKES[split])


@needs_raw
@pytest.mark.slow
def test_same_seed_same_files(small_set: Path, tmp_path: Path) -> None:
    # A round written alone (as the replay tests write the one they need)
    # is byte for byte the set's: each round is seeded by its own index.
    raw = humanset.Raw(RAW)
    rnd = humanset.plan_round(raw, "test", 1, 3)
    for condition in ("babble5", "farfield_babble15"):
        (tmp_path / condition).mkdir()
        humanset.write_round(tmp_path / condition, rnd, raw, condition, 3, tmp_path / "rir")
        for name in ("s001.wav", "s001.jsonl"):
            a = (tmp_path / condition / name).read_bytes()
            b = (small_set / "test" / condition / name).read_bytes()
            assert hashlib.sha256(a).digest() == hashlib.sha256(b).digest(), (condition, name)


@needs_raw
@pytest.mark.slow
def test_a_perfect_ear_gets_every_call_right(small_set: Path) -> None:
    # What each player said, heard exactly at its true onset and end: the
    # engine's rulings, judged against the truth, must all be right, or the
    # benchmark would blame the ear for the set's own errors.
    kinds = set()
    for split in ("dev", "test"):
        for line in (small_set / split / "truth.jsonl").read_text().splitlines():
            truth = json.loads(line)
            session = load_session(small_set / split / "clean" / f"{truth['session']}.jsonl")
            heard = [(Say(t=c["onset_t"], text=c["said"], end=c["start_t"] + c["dur"]),
                      c["start_t"] + c["dur"] + 0.1)
                     for c in truth["calls"] if c["said"]]
            verdicts = human.judge_session(truth, human.rule(session, heard))
            assert [v["verdict"] for v in verdicts] == ["right"] * len(verdicts), truth
            for v, c in zip(verdicts, truth["calls"], strict=True):
                kinds.add((v["kind"], c["card"]))
                if v["kind"] == "right":
                    assert v["onset_err"] == pytest.approx(0.0, abs=1e-6)
                    assert v["latency"] == pytest.approx(0.1, abs=0.05)
    assert {("right", "racketeer"), ("right", "twin_racketeer"), ("gun", "gun"),
            ("wrong", "racketeer"), ("oov", "racketeer"), ("late", "racketeer")} <= kinds


def test_bad_options_are_refused_with_the_option_named(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        humanset.main(["--out", str(tmp_path), "--conditions", "clean,rain"])
    assert exc.value.code == 2
    assert "--conditions: unknown condition 'rain'" in capsys.readouterr().err


@needs_raw
def test_an_evening_keeps_each_seats_voice_and_the_same_cards(tmp_path: Path) -> None:
    """``--evening N``: the rounds come in evenings of N, every round of an
    evening with the same voice at each seat, and the next evening seated
    anew; the rounds' cards and kinds of call are those of the set without
    it (the timing follows each voice's takes); the truth names each
    round's evening and the summary the evening's length, and the human
    table then keeps one enrollment over an evening (``human.
    evening_takes``), else none."""
    raw = humanset.Raw(humanset.DEFAULT_RAW)
    plain = [humanset.plan_round(raw, "dev", i, 17) for i in range(4)]
    evening = [humanset.plan_round(raw, "dev", i, 17, evening=2) for i in range(4)]
    assert [r.truth()["evening"] for r in evening] == [0, 0, 1, 1]
    assert evening[0].voices == evening[1].voices and evening[2].voices == evening[3].voices
    assert "evening" not in plain[0].truth()
    assert len({tuple(r.voices) for r in plain}) > 1
    for a, b in zip(plain, evening, strict=True):
        assert [(c.card, c.count, c.kind) for c in a.calls] == [
            (c.card, c.count, c.kind) for c in b.calls]
    assert human.evening_takes(tmp_path) is None  # no SUMMARY.json: voices change seats
    humanset.main(["--out", str(tmp_path / "set"), "--rounds", "1", "--splits", "dev",
                   "--conditions", "clean", "--evening", "10"])
    assert json.loads((tmp_path / "set" / "SUMMARY.json").read_text())["evening"] == 10
    assert human.evening_takes(tmp_path / "set") is not None


@needs_raw
@pytest.mark.slow
def test_the_talk_level_of_each_call_is_the_talk_in_the_files(small_set: Path) -> None:
    # bench/talk_level.py regenerates each round's noise (humanset.mix_parts)
    # instead of reading it back: that noise must be the one in the WAV. The
    # set's talk WAV less its clean WAV (the same speech; each undone of its
    # own scaling) is the talk plus two -60 dBFS floors, so wherever the talk
    # is well over those floors both must give each call the same SNR.
    import talk_level

    checked = paused = 0
    for split in ("dev", "test"):
        names = [json.loads(x)["session"] for x in
                 (small_set / split / "truth.jsonl").read_text().splitlines()]
        snrs = talk_level.local_snrs(small_set, split, "babble5", names, humanset.Raw(RAW),
                                     small_set / ".rir-cache")
        mixes = {c: {m["session"]: m for m in map(json.loads, (small_set / split / c
                                                                / "mix.jsonl").read_text()
                                                   .splitlines())}
                 for c in ("babble5", "clean")}
        truths = {t["session"]: t for t in map(json.loads, (small_set / split / "truth.jsonl")
                                               .read_text().splitlines())}
        for (name, idx), snr in snrs.items():
            talk, rate = humanset.read_wav(small_set / split / "babble5" / f"{name}.wav")
            clean, _ = humanset.read_wav(small_set / split / "clean" / f"{name}.wav")
            talk = talk / 10 ** (mixes["babble5"][name]["scaled_db"] / 20)
            clean = clean / 10 ** (mixes["clean"][name]["scaled_db"] / 20)
            call = truths[name]["calls"][idx]
            a = round(call["start_t"] * rate)
            b = a + round(call["dur"] * rate)
            noise = humanset.rms_level(talk[a:b] - clean[a:b])
            if noise > humanset.FLOOR_DBFS + 20:
                said = humanset.active_level(clean[a:b])
                assert snr == pytest.approx(said - noise, abs=0.3), (split, name, idx)
                checked += 1
            else:
                assert snr >= talk_level.PAUSED_DB - 10
                paused += 1
    assert checked >= 10  # most calls of 16 rounds meet talk


def test_the_talk_level_tables_count_every_right_call_once() -> None:
    import talk_level

    records = [{"split": "dev", "condition": "babble10", "session": "s000", "idx": i,
                "kind": kind, "verdict": verdict}
               for i, (kind, verdict) in enumerate([("right", "right"), ("right", "no_ruling"),
                                                    ("right", "right"), ("wrong", "right")])]
    snrs = {("dev", "babble10", "s000", 0): 4.0, ("dev", "babble10", "s000", 1): 5.9,
            ("dev", "babble10", "s000", 2): 41.0, ("dev", "babble10", "s000", 3): 4.0}
    out = talk_level.tables(records, snrs)
    assert "| dev | babble10 | 1/2 | 1/1 |" in out  # +3..+6 dB: one of two; paused: one
    assert "| dev | babble10 | 1/1 | 1/2 |" in out  # the first call; the later ones
    assert talk_level.band(-0.5) == "-3..+0" and talk_level.band(30.0) == "paused"


@needs_raw
@pytest.mark.slow
def test_a_take_heard_at_the_table_is_the_call_the_room_gives(small_set: Path) -> None:
    # ``enrolled.py --at-table`` says each far-field player's takes from
    # their seat in the session's room (``enrolled.at_seat``). Said at the
    # level of a call, a take must come out as that call does in the
    # session's own speech (``mix_parts``: the same room, seat and scale).
    import enrolled
    import soxr

    from companion.referee.judge import mono_of, read_wav_channels

    raw = humanset.Raw(RAW)
    summary = json.loads((small_set / "SUMMARY.json").read_text())
    rnd = humanset.plan_round(raw, "dev", 0, summary["seed"])
    parts = humanset.mix_parts(rnd, raw, "farfield_babble15", summary["seed"],
                               small_set / ".rir-cache")
    assert parts.rirs is not None and parts.speech_gain != 1.0
    compared = 0
    for call in rnd.calls:
        if len(call.takes) != 1 or call.start_t is None:
            continue
        pcm, rate = read_wav_channels(RAW / "fsdd" / call.takes[0])
        clip = soxr.resample(mono_of(pcm), rate, humanset.RATE).astype(np.float64)
        heard = enrolled.at_seat(parts.rirs[call.seat], parts.speech_gain,
                                 humanset.CALL_LEVEL_DBFS + call.gain_db)(clip) / 32768.0
        a = round(call.start_t * humanset.RATE)
        b = a + round(call.dur * humanset.RATE)
        # the other seats are silent during a call but for the tails of
        # earlier calls, far under it
        assert np.corrcoef(heard[:b - a], parts.speech[a:b])[0, 1] > 0.99, call.idx
        assert humanset.active_level(heard[:b - a]) == pytest.approx(
            humanset.active_level(parts.speech[a:b]), abs=1.0)
        # the reverberant tail is kept: the take is longer than the word
        assert len(heard) > len(clip) + 0.3 * humanset.RATE
        compared += 1
    assert compared >= 2


@needs_raw
@pytest.mark.slow
def test_at_the_table_only_the_far_field_has_takes_of_its_own(small_set: Path,
                                                              tmp_path: Path) -> None:
    # Every far-field session's players get takes heard at that table, kept
    # apart per session; the other conditions keep each voice's shared takes.
    import enrolled

    out = tmp_path / "enrolled"
    n = enrolled.enroll_set(small_set, out, 1, RAW / "fsdd", ("two",), at_table=True)
    assert n == 2 * 4 * 3  # splits x rounds x conditions
    for split in ("dev", "test"):
        for condition in ("clean", "babble5", "farfield_babble15"):
            for path in sorted((out / split / condition).glob("s*.jsonl")):
                header = json.loads(path.read_text().splitlines()[0])
                takes = [p for words in header["enrollment"].values()
                         for ps in words.values() for p in ps]
                assert takes and all((path.parent / p).is_file() for p in takes)
                own = [f"/table/{split}/{path.stem}/" in p for p in takes]
                assert all(own) if condition == "farfield_babble15" else not any(own), path
