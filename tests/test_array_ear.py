"""The array ear (issue 18) on simulated rooms: the MVDR beam, the seat
estimate, and a replayed multi-channel session of human calls.

Rooms are rendered by pyroomacoustics (bench/roomsim.py) from the FSDD
speakers george, jackson and lucas and the recorded table talk in
../shared/human-calls; nothing is downloaded. Kept small: one short round.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TypeVar

import msgspec
import numpy as np
import numpy.typing as npt
import pytest

pra = pytest.importorskip("pyroomacoustics")

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import roomsim  # noqa: E402

from companion.audio.array import Seating  # noqa: E402
from companion.events import Say  # noqa: E402
from companion.referee import seats, stream  # noqa: E402
from companion.referee.adaptation import Adapter  # noqa: E402
from companion.referee.beam import (  # noqa: E402
    BAND_HZ,
    FRAME,
    SEAT_ELEVATION_DEG,
    SPEED_OF_SOUND,
    Beamformer,
    covariance,
    steering_vectors,
)
from companion.referee.judge import read_wav_channels  # noqa: E402
from companion.referee.recognizer import Word  # noqa: E402
from companion.referee.steered import SteeredEar  # noqa: E402
from companion.referee.stream import Heard  # noqa: E402
from companion.session import load_session  # noqa: E402

if not (roomsim.HUMAN / "raw" / "fsdd").is_dir():
    pytest.skip("the human calls are not beside the project", allow_module_level=True)

RATE = 16000
T = TypeVar("T")


def _free_field(azimuths: list[float], tracks: list[np.ndarray]) -> np.ndarray:
    """Sources 0.8 m away at ``azimuths`` (degrees), anechoic: ``(n, 4)``."""
    room = pra.AnechoicRoom(dim=3, fs=RATE)
    room.add_microphone_array(np.asarray(roomsim.ARRAYS["usb4"]).T)
    for az, track in zip(azimuths, tracks, strict=True):
        a = np.radians(az)
        room.add_source([0.8 * np.cos(a), 0.8 * np.sin(a), 0.37], signal=track)
    room.simulate()
    return np.asarray(room.mic_array.signals).T


def _speech(seconds: float) -> np.ndarray:
    x = roomsim.fsdd_take(3, "lucas", 40)
    return np.resize(np.concatenate([x, np.zeros(2000)]), int(seconds * RATE))


def _talk(seconds: float) -> np.ndarray:
    files = sorted((roomsim.HUMAN / "raw" / "talk" / "commands").glob("*.wav"))
    x = np.concatenate([roomsim._read(f) for f in files[:4]])
    return np.resize(x, int(seconds * RATE))


def _run(beam: Beamformer, x: np.ndarray, steer_at: float | None, when: float) -> np.ndarray:
    pcm = np.clip(np.round(x * 8000), -32768, 32767).astype(np.int16)
    out = []
    step = 480
    for i in range(0, len(pcm), step):
        if steer_at is not None and i <= when * RATE < i + step:
            beam.steer(steer_at)
        y, _ = beam.process(pcm[i:i + step], i / RATE if i == 0 else None)
        out.append(y)
    return np.concatenate(out).astype(np.float64)


def test_mvdr_passes_the_seat_and_suppresses_the_talk_heard_before() -> None:
    # Talk from 150 degrees runs all along; the call comes from 30 degrees
    # after the steer at 2.0 s. Rendered apart, each part is measured alone
    # through the same weights.
    n = 4.0
    talk = _talk(n)
    call = np.zeros(int(n * RATE))
    call[int(2.3 * RATE):] = _speech(n - 2.3)
    mixed = _free_field([30.0, 150.0], [call, talk])
    talk_only = _free_field([30.0, 150.0], [np.zeros_like(call), talk])
    call_only = _free_field([30.0, 150.0], [call, np.zeros_like(talk)])
    beam = Beamformer(roomsim.ARRAYS["usb4"], RATE)
    _run(beam, mixed, 30.0, 2.0)
    weights = beam._weights
    assert weights is not None

    def through(x: np.ndarray) -> float:
        b = Beamformer(roomsim.ARRAYS["usb4"], RATE)
        b._weights = weights
        y = _run(b, x, None, 0.0)[int(2.4 * RATE):]
        return float(np.mean(y ** 2))

    def mic0(x: np.ndarray) -> float:
        return float(np.mean((x[int(2.4 * RATE):, 0] * 8000) ** 2))

    suppressed = 10 * np.log10(mic0(talk_only) / through(talk_only))
    call_gain = 10 * np.log10(through(call_only) / mic0(call_only))
    assert suppressed > 10.0  # a free field: one talker is nulled deeply
    assert abs(call_gain) < 1.5  # distortionless toward the seat


def test_the_seat_mask_holds_down_talk_from_another_seat_more_than_the_call() -> None:
    # Talk from the seat at 150 degrees runs all along, over a faint hiss;
    # the beam is steered at the seat at 30 degrees at 1.0 s, and the call
    # comes from there after it. Each part alone, anechoic, through a beam
    # knowing the three seats: the mask scales every bin by the steered
    # seat's share of the seats' beams, so it lowers the call too (a small
    # array's beams overlap), but the talk clearly more.
    n = 4.0
    call = np.zeros(int(n * RATE))
    call[int(1.5 * RATE):] = _speech(n - 1.5)
    silent = np.zeros(int(n * RATE))
    hiss = np.random.default_rng(0).normal(0.0, 1e-3, (int(n * RATE) + 200, 4))

    def through(x: np.ndarray) -> tuple[float, float]:
        beam = Beamformer(roomsim.ARRAYS["usb4"], RATE, seats=[30.0, 150.0, 270.0])
        x = x + hiss[:len(x)]
        pcm = np.clip(np.round(x * 8000), -32768, 32767).astype(np.int16)
        plain, masked = [], []
        for i in range(0, len(pcm), 480):
            if i <= 1.0 * RATE < i + 480:
                beam.steer(30.0)
            y, _ = beam.process(pcm[i:i + 480], 0.0 if i == 0 else None)
            assert beam.masked is not None and len(beam.masked) == len(y)
            plain.append(y)
            masked.append(beam.masked)
        tail = slice(int(1.6 * RATE), None)
        return (float(np.mean(np.concatenate(plain)[tail].astype(float) ** 2)),
                float(np.mean(np.concatenate(masked)[tail].astype(float) ** 2)))

    talk_plain, talk_masked = through(_free_field([30.0, 150.0], [silent, _talk(n)]))
    call_plain, call_masked = through(_free_field([30.0, 150.0], [call, silent]))
    talk_down = 10 * np.log10(talk_plain / talk_masked)
    call_down = 10 * np.log10(call_plain / call_masked)
    assert talk_down > call_down + 3.0
    # Without the other seats' azimuths there is no mask.
    alone = Beamformer(roomsim.ARRAYS["usb4"], RATE)
    alone.steer(30.0)
    out, _ = alone.process(np.zeros((4800, 4), dtype=np.int16), 0.0)
    assert len(out) and alone.masked is None


def test_the_mask_follows_the_seats_the_live_table_learns() -> None:
    # The live table replaces the ear's seating as the setup learns seats:
    # with one seat known there is no mask; once a second seat is known,
    # the next steer masks talk from it.
    from companion.audio.array import Seating

    positions = tuple(tuple(p) for p in roomsim.ARRAYS["usb4"])
    ear = SteeredEar(Seating(positions, {"Abby": 30.0}), RATE)
    talk = _free_field([150.0], [_talk(2.0)])
    pcm = np.clip(np.round(talk * 8000), -32768, 32767).astype(np.int16)
    ear.feed(pcm[:RATE], 0.0)
    ear.steer_at("Abby")
    ear.feed(pcm[RATE:RATE + 4800])
    assert ear.masked is None
    ear.seating = Seating(positions, {"Abby": 30.0, "Beth": 150.0})
    ear.steer_at("Abby")
    plain, _ = ear.feed(pcm[RATE + 4800:])
    assert ear.masked is not None and len(ear.masked) == len(plain)
    assert np.mean(ear.masked.astype(float) ** 2) < 0.5 * np.mean(plain.astype(float) ** 2)


def at_each_call(tmp_path: Path, condition: str, seed: int,
                 ask: Callable[[SteeredEar, roomsim.CallTruth], T]
                 ) -> tuple[roomsim.Rendered, list[T]]:
    """Render a 4-call round (usb4), feed it to a ``SteeredEar`` in
    live-sized blocks (the beam keeps seconds, not all) and ``ask`` the ear
    about each call once 0.6 s past its onset has been fed."""
    rendered = roomsim.render_session(tmp_path, "r", condition=condition, array="usb4",
                                      seed=seed, flips=4)
    session = load_session(rendered.path)
    assert session.seating is not None
    pcm, rate = read_wav_channels(rendered.path.parent / "r.wav")
    ear = SteeredEar(session.seating, rate)
    answers = []
    calls = iter(rendered.calls)
    call = next(calls, None)
    for i in range(0, len(pcm), 480):
        ear.feed(pcm[i:i + 480], 0.0 if i == 0 else None)
        if call is not None and (i + 480) / rate >= call.onset_t + 0.6:
            answers.append(ask(ear, call))
            call = next(calls, None)
    assert len(answers) == len(rendered.calls)
    return rendered, answers


def test_the_seat_of_each_call_in_a_reverberant_room(tmp_path: Path) -> None:
    rendered, estimates = at_each_call(tmp_path, "talk10", 7,
                                       lambda ear, call: ear.seat_of(call.onset_t))
    found = []
    for estimate, call in zip(estimates, rendered.calls, strict=True):
        assert estimate is not None
        found.append((estimate.player, call.player, estimate.sure))
    # The seat is found for most calls (bench/arrays.py measures how many),
    # and a seat given as sure is never another player's.
    assert sum(f == c for f, c, _ in found) >= len(found) - 1
    assert not [f for f, c, sure in found if sure and f != c]


def test_in_a_quiet_room_music_gives_the_seat_the_flat_beam_rise_cannot(tmp_path: Path) -> None:
    # Nothing talks before the calls, so every beam rises nearly alike: on
    # its own the rise is sure of the seat for one of these four calls
    # (seed 9). MUSIC, sharp with one voice in the room, agrees on the
    # caller's seat for all four.
    rendered, estimates = at_each_call(tmp_path, "quiet", 9,
                                       lambda ear, call: ear.seat_of(call.onset_t))
    assert all(e is not None for e in estimates)
    assert [(e.player, e.sure) for e in estimates if e] == [
        (call.player, True) for call in rendered.calls]
    by_rise_alone = [e for e in estimates if e and seats.best_lead(e.rises)[1] >= seats.SURE_DB]
    assert len(by_rise_alone) < len(estimates)


def test_for_the_seat_whose_turn_it_is_agreeing_estimates_add_their_leads() -> None:
    # A call through talk (as seed 500's talk-10 dB round 3, usb4, at the
    # call's onset): the rise leads by 0.8 dB and whitened MUSIC by 2.1 dB,
    # each short of its own bar, while plain MUSIC names the talker.
    rises = {"Abby": 13.0, "Beth": 14.3, "Carter": 13.5, "Ezra": 12.0}
    music = {"Abby": -3.0, "Beth": -0.5, "Carter": -2.0, "Ezra": 0.0}
    whitened = {"Abby": -4.0, "Beth": 0.0, "Carter": -2.1, "Ezra": -3.0}
    assert seats.best_lead(rises)[1] < seats.SURE_DB
    assert seats.best_lead(whitened)[1] < seats.WHITENED_SURE_DB
    assert 0.8 / seats.SURE_DB + 2.1 / seats.WHITENED_SURE_DB > 1.0
    # Beth's turn: the two that agree give her seat together (capped at 1).
    assert seats.agreement(rises, music, whitened, expected="Beth") == ("Beth", 1.0)
    # Another player's turn: Beth's seat needs one estimate clearly ahead,
    # and neither is (the largest lead, whitened MUSIC's, counts).
    player, confidence = seats.agreement(rises, music, whitened, expected="Abby")
    assert player == "Beth"
    assert confidence == pytest.approx(2.1 / seats.WHITENED_SURE_DB)
    assert seats.agreement(rises, music, whitened) == (player, confidence)
    # Less sure, the sum shows: whitened MUSIC 1.0 dB ahead.
    less = {**whitened, "Carter": -1.0}
    assert seats.agreement(rises, music, less, expected="Beth")[1] == pytest.approx(
        0.8 / seats.SURE_DB + 1.0 / seats.WHITENED_SURE_DB)
    # Neither MUSIC estimate naming the rise's seat: nothing, whoever's turn.
    elsewhere = {**whitened, "Carter": 0.5}
    assert seats.agreement(rises, music, elsewhere, expected="Beth") == ("Beth", 0.0)


def test_the_player_expected_is_whose_turn_it_was_when_the_word_was_said() -> None:
    # An utterance is decided after it ends; by then a flip may have steered
    # the beam at the next caller. The word's seat is weighed for the player
    # whose turn it was at the word.
    seating = Seating(positions=roomsim.ARRAYS["usb4"],
                      seats={"Abby": 40.0, "Beth": 220.0, "Carter": 130.0})
    ear = SteeredEar(seating, RATE)
    ear.steer_at("Abby", 1.0)
    ear.steer_at("Beth", 3.0)
    ear.steer_at("Nobody", 4.0)  # no seat: the beam and the turn stay
    assert ear.target == "Beth"
    assert [ear.expected_at(t) for t in (0.5, 1.0, 2.9, 3.0, 5.0)] == [
        None, "Abby", "Abby", "Beth", "Beth"]


def test_setup_locates_each_voice_within_a_grid_step_in_a_quiet_room(tmp_path: Path) -> None:
    # At setup each player speaks alone; the beam rise alone put these
    # voices (seed 9) up to 10 degrees off, MUSIC's direction (kept when near
    # the rise's) within the 5 degree grid's reach.
    rendered, azimuths = at_each_call(tmp_path, "quiet", 9,
                                      lambda ear, call: seats.locate(ear.beam, call.onset_t))
    errors = []
    for azimuth, call in zip(azimuths, rendered.calls, strict=True):
        assert azimuth is not None
        errors.append(seats.degrees_apart(azimuth, rendered.seats[call.player]))
    assert max(errors) <= 6.0, errors


def test_whitened_music_hears_the_new_voice_through_louder_talk() -> None:
    # A talker at 190 degrees goes on through the call, 6 dB louder than the
    # caller at 100: plain MUSIC on the audio after the onset names the
    # talker; whitened by the audio before the onset it names the caller.
    positions = np.asarray(roomsim.ARRAYS["usb4"])
    freqs = np.fft.rfftfreq(FRAME, 1 / RATE)
    band = freqs[(freqs >= BAND_HZ[0]) & (freqs <= BAND_HZ[1])]
    azimuths = [10.0, 100.0, 190.0, 280.0]
    talker, caller = steering_vectors(positions, [190.0, 100.0], band)
    rng = np.random.default_rng(1)

    def voice(n: int, gain: float) -> npt.NDArray[np.complex128]:
        return gain * (rng.normal(size=(n, len(band))) + 1j * rng.normal(size=(n, len(band))))

    def hiss(n: int) -> npt.NDArray[np.complex128]:
        return 0.05 * (rng.normal(size=(n, len(band), 4)) + 1j * rng.normal(size=(n, len(band), 4)))

    before = voice(60, 2.0)[:, :, None] * talker[None] + hiss(60)
    after = (voice(30, 2.0)[:, :, None] * talker[None] + voice(30, 1.0)[:, :, None] * caller[None]
             + hiss(30))
    steer = steering_vectors(positions, azimuths, band)
    plain = seats.music_spectrum(after, steer)
    whitened = seats.music_spectrum(after, steer, covariance(before))
    assert azimuths[int(np.argmax(plain))] == 190.0
    assert azimuths[int(np.argmax(whitened))] == 100.0


def test_music_is_pyroomacoustics_normmusic_at_the_seats() -> None:
    # The run-time MUSIC is numpy; pyroomacoustics' MUSIC with frequency
    # normalization must give the same pseudo-spectrum. The array is flat
    # (z = 0), so pyroomacoustics' 2-D search with the speed of sound over
    # cos(elevation) equals the steering toward a seated mouth.
    pra = pytest.importorskip("pyroomacoustics")
    positions = np.asarray(roomsim.ARRAYS["usb4"])
    assert not np.any(positions[:, 2])
    freqs = np.fft.rfftfreq(FRAME, 1 / RATE)
    band = np.flatnonzero((freqs >= BAND_HZ[0]) & (freqs <= BAND_HZ[1]))
    azimuths = np.array([10.0, 100.0, 190.0, 280.0, 330.0])
    rng = np.random.default_rng(0)
    source = steering_vectors(positions, [100.0], freqs)[0]  # (F, M)
    voice = rng.normal(size=(30, len(freqs))) + 1j * rng.normal(size=(30, len(freqs)))
    noise = rng.normal(size=(30, len(freqs), 4)) + 1j * rng.normal(size=(30, len(freqs), 4))
    frames = voice[:, :, None] * source[None] + 0.3 * noise  # (T, F, M)
    ours = seats.music_spectrum(frames[:, band],
                                steering_vectors(positions, azimuths, freqs[band]))
    doa = pra.doa.algorithms["MUSIC"](
        positions.T[:2], RATE, FRAME, c=SPEED_OF_SOUND / math.cos(math.radians(
            SEAT_ELEVATION_DEG)), num_src=1, azimuth=np.radians(azimuths), dim=2,
        frequency_normalization=True)
    doa.locate_sources(np.transpose(frames, (2, 1, 0)), freq_bins=band)
    assert np.allclose(np.degrees(doa.grid.azimuth), azimuths)
    assert np.allclose(ours, 10 * np.log10(doa.grid.values), atol=1e-6)
    assert int(np.argmax(ours)) == 1 and ours[1] == 0.0


def _replayed(path: Path) -> list[dict[str, object]]:
    """``companion replay``'s rulings for the session at ``path``, in this process."""
    from companion.referee.judge import audio_handler
    from companion.replay import replay_all
    from companion.voice.pack import load_pack

    done = replay_all(load_session(path), on_audio=audio_handler(None, load_pack("en")))
    rulings = [msgspec.to_builtins(r) for r in done.rulings]
    return [r for r in rulings if r["type"] in ("call_ok", "mistake")]


def _round_call(tmp_path: Path, condition: str, array: str, round_seed: int, index: int,
                truth: tuple[str, str, str]) -> tuple[roomsim.Rendered, roomsim.CallTruth]:
    """The arrays benchmark's round ``round_seed`` of ``condition`` behind
    ``array`` (each player's three takes enrolled), rendered in
    ``tmp_path``, and its call ``index``, checked to be ``truth`` (player,
    word said, kind): the round the test was written on."""
    rendered = roomsim.render_session(tmp_path, "r", condition=condition, array=array,
                                      seed=round_seed, enroll=3)
    call = rendered.calls[index]
    assert (call.player, call.said, call.kind) == truth
    return rendered, call


def _ruled_right_only_by(tmp_path: Path, round_seed: int, index: int, truth: tuple[str, str],
                         withhold: Callable[[], None]) -> None:
    """In the arrays benchmark's talk-at-10-dB round ``round_seed`` (usb4,
    each player's three takes enrolled), call ``index`` (``truth``: its
    player and word, a right call) is ruled right, with no mistake in the
    round; after ``withhold()`` (one hearing, or one witness of the seat,
    patched out) no call of that player is ruled in its window, and no
    other ruling moves."""
    rendered, call = _round_call(tmp_path, "talk10", "usb4", round_seed, index, (*truth, "right"))

    def callers(rulings: list[dict[str, object]]) -> list[dict[str, object]]:
        return [r for r in rulings if r.get("player") == call.player
                and call.flip_t <= float(str(r["t"])) <= call.end_t + 3.0]

    heard = _replayed(rendered.path)
    assert [r["type"] for r in callers(heard)] == ["call_ok"]
    assert not [r for r in heard if r["type"] == "mistake"]
    withhold()
    without = _replayed(rendered.path)
    assert callers(without) == []
    assert [r for r in without if r not in callers(without)] == [
        r for r in heard if r not in callers(heard)]


def test_a_call_the_beam_left_unsure_is_heard_right_through_the_seat_mask(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A simulated room with two or three people talking at other seats, 10
    # dB under the calls (seed 502's fifth round of the arrays benchmark):
    # Beth's "two" is left unsure by the beam's own hearing and ruled right
    # in its seat-masked copy. With the copy withheld (the mask patched
    # out, nothing else) no call of Beth's is ruled in that window. (With
    # no masked copy the listener hears as one microphone does, whose last
    # hearing, with the caller's adapted model, hears the call too: it is
    # left out of both replays, its builds patched out.)
    monkeypatch.setattr(Adapter, "model", lambda self, takes, pronunciations=None: None)
    _ruled_right_only_by(tmp_path, 502 * 1000 + 4, 1, ("Beth", "two"),
                         lambda: monkeypatch.setattr(SteeredEar, "masked",
                                                     property(lambda self: None)))


def test_behind_an_array_the_callers_own_model_hears_the_seat_masked_copy(
        tmp_path: Path) -> None:
    # A simulated room, two or three people talking at other seats 10 dB
    # under the calls (seed 500's third round of the arrays benchmark, each
    # player's three takes enrolled): Carter's "three" is left unsure by the
    # beam and by its masked copy through the bundled model; his own
    # adapted model hears the masked copy as "three", from his seat. Without
    # the players' models (and without the speech-embedding witness, which
    # finds his "three" on its own) no call of his is ruled in that window;
    # no mistake is ruled either way.
    from companion.referee.decision import DEFAULT
    from companion.referee.judge import EarSettings, audio_handler
    from companion.replay import replay_all
    from companion.voice.pack import load_pack

    rendered, call = _round_call(tmp_path, "talk10", "usb4", 500 * 1000 + 2, 2,
                                 ("Carter", "three", "right"))
    no_witness = replace(DEFAULT, embedding_right=-math.inf)
    for adapt, thresholds, found in ((False, no_witness, False), (True, no_witness, True),
                                     (False, DEFAULT, True)):
        handler = audio_handler(None, load_pack("en"),
                                settings=EarSettings(adapt=adapt, thresholds=thresholds))
        rulings = [msgspec.to_builtins(r)
                   for r in replay_all(load_session(rendered.path), on_audio=handler).rulings]
        assert not [r for r in rulings if r["type"] == "mistake"]
        carters = [r for r in rulings if r["type"] == "call_ok" and r["player"] == "Carter"
                   and call.flip_t <= r["t"] <= call.end_t + 3.0]
        assert len(carters) == found, (adapt, thresholds.embedding_right)


def test_replay_of_a_multichannel_round_takes_no_call_from_another_seat(tmp_path: Path) -> None:
    # Before each call another player says the expected number; the caller
    # says it after. One microphone takes the other player's number as the
    # call; the steered ear waits for the caller's seat.
    rendered = roomsim.render_session(tmp_path, "w", condition="wrong_seat", array="usb4",
                                      seed=3, flips=4)
    header = json.loads(rendered.path.read_text().splitlines()[0])
    assert len(header["microphones"]) == 4 and set(header["seats"]) == set(header["players"])
    run = subprocess.run([sys.executable, "-m", "companion.cli", "replay", str(rendered.path)],
                         capture_output=True, text=True, check=True)
    rulings = [json.loads(line) for line in run.stdout.splitlines()]
    assert not [r for r in rulings if r["type"] == "mistake"]
    oks = {r["player"]: r["t"] for r in rulings if r["type"] == "call_ok"}
    for call in rendered.calls:
        assert call.prompt is not None
        if call.player in oks:  # never the other player's voice
            assert oks[call.player] >= call.onset_t - 0.15
    # Every call is taken, each after its caller spoke (this was loosened to
    # 2 of 4 while the calibrated decision was merged; main's ear at fc8d852
    # already took all 4 again).
    assert len(oks) == len(rendered.calls)


def test_a_scrap_after_another_seats_call_is_not_the_callers_call_on_the_takes_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The arrays benchmark's seed 501, second wrong-seat round, 6-mic HAT:
    # Carter says "four" before Debbie, whose call it is. An 80 ms scrap
    # after his voice (its seat not sure) has no game word for the
    # recognizer, but fits Debbie's takes of "four" best: taken on the takes
    # alone, it was her call_ok before she spoke. Behind an array such a
    # call stands only from the caller's seat; hers then is taken when she
    # says it.
    rendered, call = _round_call(tmp_path, "wrong_seat", "hat6", 501 * 1000 + 1, 3,
                                 ("Debbie", "four", "right"))
    assert call.prompt is not None and call.prompt[0] == "Carter"

    def debbies() -> list[float]:
        return [float(str(r["t"])) for r in _replayed(rendered.path)
                if r["type"] == "call_ok" and r["player"] == "Debbie"
                and call.flip_t <= float(str(r["t"])) <= call.end_t + 3.0]

    assert [t >= call.onset_t - 0.15 for t in debbies()] == [True]
    # Without the vetting (every utterance as heard, whatever its seat), the
    # voice witness keeps the scrap out too: Silero hears no voice in it
    # (``decision.takes_without_voice``) ...
    says = SteeredEar.says
    monkeypatch.setattr(SteeredEar, "says",
                        lambda self, heard: says(self, replace(heard, unseated=None)))
    assert [t >= call.onset_t - 0.15 for t in debbies()] == [True]
    # ... and without either, the seatless scrap is her call, before she spoke.
    monkeypatch.setattr(stream, "takes_without_voice", lambda *args, **kwargs: False)
    assert [t < call.prompt[2] + 0.3 for t in debbies()] == [True]


def test_a_correct_call_three_witnesses_name_three_words_is_no_mistake(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The arrays benchmark's dev room 507, fourth talk round at 10 dB, 4-mic
    # array, each player's three takes enrolled: Carter says "three" while
    # two or three others talk. The recognizer hears "four", his cepstral
    # takes fit "five" best and the speech embedding puts "eight" nearest:
    # each against the three, no two naming one word. It was ruled a wrong
    # number; now no mistake is ruled in his window. With the agreement not
    # asked (``decision.named_twice`` patched to always agree) the same
    # round rules his call a mistake again.
    from companion.referee import decision

    rendered, call = _round_call(tmp_path, "talk10", "usb4", 507 * 1000 + 3, 2,
                                 ("Carter", "three", "right"))

    def carters_mistakes() -> list[dict[str, object]]:
        return [r for r in _replayed(rendered.path)
                if r["type"] == "mistake" and r["player"] == "Carter"
                and call.flip_t <= float(str(r["t"])) <= call.end_t + 3.0]

    assert carters_mistakes() == []
    monkeypatch.setattr(decision, "named_twice", lambda ev: True)
    assert [(r["kind"], r["heard"]) for r in carters_mistakes()] == [("wrong_number", ["four"])]


def _heard_in_scene(azimuths: tuple[float, float],
                    confidences: tuple[float, float] = (1.0, 1.0),
                    first_decoded: bool = True) -> list[Say]:
    """"two" from ``azimuths[0]``, then 0.3 s later "two" from
    ``azimuths[1]``: one utterance for the segmenter, given to the array
    with the words' ``confidences`` (without the first word when not
    ``first_decoded``: the recognizer heard no game word in it)."""
    two_a, two_b = roomsim.fsdd_take(2, "george", 10), roomsim.fsdd_take(2, "jackson", 10)
    first, second = 1.5, 1.5 + len(two_a) / RATE + 0.3
    pcm = roomsim.render_scene([(azimuths[0], first, 0.1 * two_a),
                                (azimuths[1], second, 0.1 * two_b)],
                               second + len(two_b) / RATE + 0.5, array="usb4", seed=1)
    seats = {"Abby": 40.0, "Beth": 220.0, "Carter": 130.0}
    ear = SteeredEar(Seating(positions=roomsim.ARRAYS["usb4"], seats=seats), RATE)
    ear.steer_at("Beth", 0.0)
    for i in range(0, len(pcm), 480):
        ear.feed(pcm[i:i + 480], 0.0 if i == 0 else None)
    words = (Word("two", first, first + len(two_a) / RATE, confidences[0]),
             Word("two", second, second + len(two_b) / RATE, confidences[1]))
    return ear.says(Heard(onset=first, end=words[1].end,
                          words=words if first_decoded else words[1:]))


def test_an_utterance_of_two_voices_becomes_two_says_each_with_its_seat() -> None:
    says = _heard_in_scene((40.0, 220.0))
    assert [(s.text, s.seat) for s in says] == [("two", "Abby"), ("two", "Beth")]
    assert says[1].t > says[0].end  # the second say starts at its own word
    # One voice saying both words stays one say, with that voice's seat.
    alone = _heard_in_scene((40.0, 40.0))
    assert [(s.text, s.seat) for s in alone] == [("two two", "Abby")]


def test_a_voice_from_another_seat_opening_the_utterance_is_not_the_words_onset() -> None:
    # Another player's number just before the caller's, no pause between,
    # and the recognizer hears a game word only in the caller's: the say of
    # that word starts at the word, not at the other player's onset (which
    # would make it the caller's onset), and the voice before it is a say
    # of its own, with its seat and no words.
    says = _heard_in_scene((40.0, 220.0), first_decoded=False)
    assert [(s.text, s.seat) for s in says] == [("", "Abby"), ("two", "Beth")]
    assert says[0].confidence == 0.0
    assert says[1].t > says[0].t + 0.3 and says[0].end == says[1].t
    # One voice throughout: one say, from the utterance's onset.
    alone = _heard_in_scene((40.0, 40.0), first_decoded=False)
    assert [(s.text, s.seat) for s in alone] == [("two", "Abby")]
    assert alone[0].t == 1.5


def test_the_seat_is_measured_where_the_voice_rose_not_where_its_word_was_timed() -> None:
    # A call from Abby's seat while Beth talks on: measured 0.4 s into the
    # call, the beams have nothing new to rise in, and the talker's seat
    # stands out. The listener may time a call's onset on its word, past a
    # soft start (``stream.WORD_ONSET_DB``); the seat is measured where the
    # voice first rose (``Heard.sounded``).
    call = roomsim.fsdd_take(3, "lucas", 40)
    files = sorted((roomsim.HUMAN / "raw" / "talk" / "commands").glob("*.wav"))
    talk = np.concatenate([roomsim._read(f) for f in files[:4]])[:int(3.5 * RATE)]
    pcm = roomsim.render_scene([(40.0, 1.5, 0.1 * call / np.sqrt(np.mean(call ** 2))),
                                (220.0, 0.2, 0.03 * talk / np.sqrt(np.mean(talk ** 2)))],
                               4.0, array="usb4", seed=1)
    ear = SteeredEar(Seating(positions=roomsim.ARRAYS["usb4"],
                             seats={"Abby": 40.0, "Beth": 220.0, "Carter": 130.0}), RATE)
    ear.steer_at("Abby", 0.0)
    for i in range(0, len(pcm), 480):
        ear.feed(pcm[i:i + 480], 0.0 if i == 0 else None)
    word = Word("three", 1.45, 1.5 + len(call) / RATE, 1.0)
    late = Heard(onset=2.0, end=word.end, words=(word,))
    assert [s.seat for s in ear.says(late)] != ["Abby"]
    rose = Heard(onset=2.0, end=word.end, words=(word,), sounded=1.5)
    assert [(s.t, s.text, s.seat) for s in ear.says(rose)] == [(2.0, "three", "Abby")]
    # ... and so for a voice with no word heard in it
    assert ear.says(Heard(onset=2.0, end=word.end, words=(), sounded=1.5))[0].seat == "Abby"


def test_a_word_split_off_to_another_seat_keeps_the_utterances_confidence() -> None:
    # An utterance that began with nothing owed (before a flip) keeps the
    # recognizer's own confidence per word, which no decision judged: a
    # second word at 0.99 after a first at 0.58 is not a sure word of its
    # own (a dev room, talk at 5 dB, 6-mic: a talker's "hmmrrr" split off to
    # the caller's seat after the flip and was ruled the caller's mistake).
    says = _heard_in_scene((40.0, 220.0), confidences=(0.58, 0.99))
    assert [(s.text, s.seat) for s in says] == [("two", "Abby"), ("two", "Beth")]
    assert [s.confidence for s in says] == [0.58, 0.58]


def _vetted(azimuth: float) -> list[Say]:
    """George's "two" said from ``azimuth`` in a quiet room while the beam is
    steered at Beth (220 degrees), given to the array as an utterance whose
    words only a hearing to be vetted heard right (behind an array, the
    caller's adapted model on the seat-masked copy), and which was unsure
    without it (``Heard.unseated``)."""
    two = roomsim.fsdd_take(2, "george", 10)
    at, end = 1.5, 1.5 + len(two) / RATE
    pcm = roomsim.render_scene([(azimuth, at, 0.1 * two)], end + 0.5, array="usb4", seed=1)
    seats = {"Abby": 40.0, "Beth": 220.0, "Carter": 130.0}
    ear = SteeredEar(Seating(positions=roomsim.ARRAYS["usb4"], seats=seats), RATE)
    ear.steer_at("Beth", 0.0)
    for i in range(0, len(pcm), 480):
        ear.feed(pcm[i:i + 480], 0.0 if i == 0 else None)
    unsure = Heard(onset=at, end=end, words=(Word("two", at, end, 0.5),), outcome="unsure")
    return ear.says(Heard(onset=at, end=end, words=(Word("two", at, end, 1.0),),
                          outcome="right", unseated=unsure))


def test_a_call_heard_only_by_a_hearing_to_be_vetted_stands_only_from_the_callers_seat() -> None:
    # From Beth's own seat the words stand, sure; said at Abby's seat, the
    # utterance is what it was without that hearing: unsure (never the call),
    # and Abby's.
    assert [(s.text, s.confidence, s.seat) for s in _vetted(220.0)] == [("two", 1.0, "Beth")]
    assert [(s.text, s.confidence, s.seat) for s in _vetted(40.0)] == [("two", 0.5, "Abby")]


@pytest.mark.slow
def test_a_voice_whose_onset_moved_past_a_flip_still_marks_the_window_before(
        tmp_path: Path) -> None:
    # One microphone, talk at 10 dB (a dev room, the players' takes heard at
    # the table): the VAD opened an utterance at Debbie's "four" (7.8 s, in
    # her window) that ran on through the talk past Ezra's flip (9.24 s); the
    # level rise put its onset at Ezra's call (9.35 s). Debbie's window then
    # heard nothing and was ruled a hesitation. Her window now gets the
    # voice (no words: never a hesitation, never a mistake), Ezra his call.
    rendered = roomsim.render_session(tmp_path, "t", condition="talk10", array="usb4",
                                      seed=501005, enroll=3, enroll_at_table=True)
    mono = roomsim.mono_copy(rendered, tmp_path, "one")
    run = subprocess.run([sys.executable, "-m", "companion.cli", "replay", str(mono)],
                         capture_output=True, text=True, check=True)
    rulings = [json.loads(line) for line in run.stdout.splitlines()]
    debbie, ezra = rendered.calls[3], rendered.calls[4]
    assert (debbie.player, debbie.said, ezra.player, ezra.said) == ("Debbie", "four",
                                                                   "Ezra", "five")
    assert not [r for r in rulings if r["type"] == "mistake"], rulings
    assert [r["player"] for r in rulings if r["type"] == "call_ok"
            and ezra.flip_t <= r["t"]][:1] == ["Ezra"]


def test_music_clearly_ahead_names_its_seat_when_the_rise_names_another() -> None:
    # Another player says the number just before the caller, in a quiet
    # room (as seed 503's wrong-seat round 1, hat6): the small array's
    # broad beams all rise alike, the caller's by a hair the most, while
    # MUSIC, with one voice in the room, names the other player's seat far
    # ahead. That voice is the other player's, not a voice of no seat (which
    # the engine would take as the caller's call).
    rises = {"Abby": 30.1, "Beth": 29.4, "Carter": 29.7, "Debbie": 29.7}
    music = {"Abby": -4.6, "Beth": -6.0, "Carter": -5.1, "Debbie": -0.1}
    whitened = {"Abby": -2.0, "Beth": -3.0, "Carter": -2.4, "Debbie": -1.6}
    assert seats.best_lead(rises)[0] == "Abby"
    assert seats.agreement(rises, music, whitened, expected="Abby") == ("Debbie", 1.0)
    assert seats.agreement(rises, music, whitened) == ("Debbie", 1.0)
    # Short of MUSIC's bar, MUSIC alone names nothing: the rise's seat, unsure.
    closer = {**music, "Abby": -0.1 - seats.MUSIC_SURE_DB + 0.2}
    player, confidence = seats.agreement(rises, closer, whitened, expected="Abby")
    assert (player, confidence < 1.0) == ("Abby", True)
    # The rise's seat sure with whitened MUSIC clearly ahead stays its seat.
    sure = {"Abby": 0.0, "Beth": -4.0, "Carter": -4.0, "Debbie": -4.0}
    assert seats.agreement(rises, music, sure, expected="Abby") == ("Abby", 1.0)


def test_music_alone_does_not_overrule_the_rise_and_whitened_music_naming_the_caller() -> None:
    # Ezra's "five" in talk at 5 dB (a dev room, seed 500, round 1, 4-mic):
    # the rise names Ezra by 1.27 dB and whitened MUSIC by 0.45 dB, short of
    # their bars together, while plain MUSIC names Fran, a talker going on
    # through the call, 3.5 dB ahead. The call is Ezra's seat, unsure (a
    # voice of no seat, which the engine may take as the caller's), not
    # Fran's (which no call of Ezra's can be).
    rises = {"Debbie": 20.0, "Ezra": 21.27, "Fran": 20.0, "Abby": 19.5}
    music = {"Debbie": -5.0, "Ezra": -4.0, "Fran": 0.0, "Abby": -3.5}
    whitened = {"Debbie": -1.2, "Ezra": 0.0, "Fran": -0.45, "Abby": -2.0}
    player, confidence = seats.agreement(rises, music, whitened, expected="Ezra")
    assert (player, confidence < 1.0) == ("Ezra", True)
    # For any other player's turn MUSIC alone still names Fran.
    assert seats.agreement(rises, music, whitened, expected="Debbie") == ("Fran", 1.0)
    assert seats.agreement(rises, music, whitened) == ("Fran", 1.0)
    # Nor when whitened MUSIC names another seat than the rise's.
    apart = {**whitened, "Abby": 0.5}
    assert seats.agreement(rises, music, apart, expected="Ezra") == ("Fran", 1.0)


def test_a_callers_call_in_talk_is_not_given_to_the_talker_music_hears(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Seed 503's first round of the arrays benchmark, talk at 10 dB: plain
    # MUSIC names Abby's seat for Carter's "three" (a talker going on
    # through it) while the rise and whitened MUSIC name Carter's, each
    # short of its bar. The call is ruled Carter's. With the seat whose turn
    # it is withheld from the seat estimate, MUSIC alone gives the voice to
    # Abby and no call of Carter's is ruled in that window.
    real = seats.agreement
    _ruled_right_only_by(tmp_path, 503 * 1000, 2, ("Carter", "three"),
                         lambda: monkeypatch.setattr(
                             seats, "agreement",
                             lambda rises, music, whitened, expected=None:
                             real(rises, music, whitened)))


def test_a_call_joined_to_talk_is_heard_alone_in_its_seat_masked_stretch(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The arrays benchmark's seed 502, fourth round: Carter's "three" comes
    # in one utterance with talk around it, which neither the beam nor the
    # whole masked copy hears as the call; the masked copy's stretch where
    # Carter's seat holds the sound (``stretch.caller_stretch``), heard
    # alone, is "three". With that stretch withheld, nothing else changed,
    # no call of Carter's is ruled in that window.
    from companion.referee import stream

    _ruled_right_only_by(tmp_path, 502 * 1000 + 3, 2, ("Carter", "three"),
                         lambda: monkeypatch.setattr(stream, "caller_stretch",
                                                     lambda *a: None))
