"""Voice enrollment at setup (issue 17, part 3): each player says the count
words three times over, the live ear takes each utterance as their take,
keeps it as a WAV in the state directory and in the game's header, and
compares later calls with it.

Real parts: real human recordings (the FSDD development speaker george,
8 kHz, resampled to 16 kHz; takes 0-2 of each digit are the enrollment,
takes 4 and 5 are held out as calls; lucas makes another player's call;
talk is george's other digits run together) over a quiet noise floor,
played through ALSA's ``file`` plugin into sounddevice at 44.1 kHz; the
live table loop with pocketsphinx; SQLite; the Flask app and waitress; the
page in headless Chromium (Playwright) at a phone's width. Stand-ins as in
tests/test_cheat_game.py: the table clock is a value the test moves, and
``Paced`` hands the recording's blocks over as that clock passes them.
"""

from __future__ import annotations

import dataclasses
import wave
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
import soxr
from browser_rig import PHONE, hold_polls
from flask import Flask
from flask.testing import FlaskClient
from live_rig import Rig, open_rig
from test_cheat_game import Paced

from companion.audio import synth
from companion.audio.alsa_file import use_file_device
from companion.hub import Hub
from companion.live import LiveTable
from companion.referee.enrollment import count_words, load_enrollment
from companion.referee.judge import mono_of, read_wav_channels
from companion.referee.stream import Listener
from companion.referee.templates import RATE, trim
from companion.replay import stored_session
from companion.store import Store
from companion.voice.pack import load_pack
from companion.voice_setup import TakeStore, VoiceSetup, attach

FSDD = Path(__file__).resolve().parents[2] / "shared" / "human-calls" / "raw" / "fsdd"
if not FSDD.is_dir():
    FSDD = Path("/work/shared/human-calls/raw/fsdd")
SPEAKER = "george"
WORDS = ("one", "two", "three", "four", "five", "six", "seven")
PLAYERS = ["Abby", "Beth", "Carter", "Debbie"]
PIN = "2468"
FIRST_S, EVERY_S = 2.0, 1.5
"""The first enrollment take's start, and the spacing of takes, seconds."""
ROUND = [(w, k) for k in range(3) for w in WORDS]
"""The 21 takes in the order the setup asks for them: every word once, three times over."""

needs_fsdd = pytest.mark.skipif(not FSDD.is_dir(), reason="the human-voice set is not here")


def fsdd(digit: int, take: int, speaker: str = SPEAKER) -> npt.NDArray[np.int16]:
    """An FSDD recording of ``speaker`` saying ``digit``, at 16 kHz."""
    pcm, rate = read_wav_channels(FSDD / f"{digit}_{speaker}_{take}.wav")
    return soxr.resample(mono_of(pcm), rate, RATE).astype(np.int16)


def talk() -> npt.NDArray[np.int16]:
    """Five of george's digits run together (0.15 s overlaps, no pause): far
    too long to be one count word."""
    out = fsdd(8, 10)
    for digit in (9, 0, 8, 9):
        nxt = fsdd(digit, 11).astype(np.int32)
        lap = round(0.15 * RATE)
        head = out[:-lap].astype(np.int32)
        mixed = out[-lap:].astype(np.int32) + nxt[:lap]
        out = np.clip(np.concatenate([head, mixed, nxt[lap:]]), -32768, 32767).astype(np.int16)
    return out


def recording(path: Path, extra: list[tuple[float, npt.NDArray[np.int16]]],
              seconds: float) -> Path:
    """The 21 enrollment takes from ``FIRST_S`` every ``EVERY_S`` seconds, and
    ``extra`` clips at their times, over a quiet room's floor (16 kHz)."""
    audio = synth.noise_floor(round(seconds * RATE), rate=RATE, seed=17)
    clips = [(FIRST_S + EVERY_S * i, fsdd(WORDS.index(w) + 1, k))
             for i, (w, k) in enumerate(ROUND)] + extra
    for at, clip in clips:
        start = round(at * RATE)
        audio[start:start + len(clip)] += clip
    return synth.write_wav(path, np.clip(audio, -32768, 32767).astype(np.int16), RATE)


def in_room(clip: npt.NDArray[np.int16], seed: int) -> npt.NDArray[np.int16]:
    """``clip`` with 0.3 s before and after, over the recording's floor."""
    pad = round(0.3 * RATE)
    audio = synth.noise_floor(len(clip) + 2 * pad, rate=RATE, seed=seed)
    audio[pad:pad + len(clip)] += clip
    return np.clip(audio, -32768, 32767).astype(np.int16)


def live_table(rig: Rig, board: Any = None, **ear: Any) -> LiveTable:
    """The live table on ``rig``'s recording (with ``board``, or the page's
    buttons), its ear a ``Listener`` with ``ear``'s settings, run once."""
    rig.record()
    live = rig.live = LiveTable(
        rig.hub, board=board, microphone=Paced(rig.mic, rig.clock),
        listener_for=lambda rate: Listener(rig.recognizer, rate, **ear), speaker=rig.speaker)
    live.step()
    return live


def wav_of(path: Path) -> tuple[int, int, int]:
    """``(channels, width in bytes, rate)`` of a WAV file."""
    with wave.open(str(path), "rb") as wf:
        return wf.getnchannels(), wf.getsampwidth(), wf.getframerate()


@pytest.mark.slow
@needs_fsdd
def test_a_player_enrolls_by_voice_through_the_microphone(tmp_path: Path) -> None:
    pack = load_pack("en")
    end = FIRST_S + EVERY_S * len(ROUND) + 1.0
    wav = recording(tmp_path / "takes.wav", [], end)
    with use_file_device(tmp_path / "alsa", wav, rate=RATE, tail_s=0.5) as device:
        rig = open_rig(tmp_path, pack, device)
        # The state directory is the log's folder (``store.state_dir``).
        setup = VoiceSetup(count_words(pack.lexicon.number_word), TakeStore(tmp_path))
        attach(setup, rig.hub)
        table = rig.hub.new_game("nasty7", PLAYERS, {})
        assert "enrollment" not in rig.hub.store.header(table.game_id)  # nobody enrolled yet
        live = live_table(rig)
        setup.start(["Abby"])
        assert setup.prompt is not None and setup.prompt.word == "one"
        rig.until(end)
        rig.close()
    assert live.errors == []
    assert setup.prompt is None, f"still waiting for {setup.prompt}"
    assert setup.held("Abby") == 21
    # The takes were not calls: the game heard nothing.
    assert rig.hub.table is not None and rig.hub.table.rulings == []
    # The live ear got the takes as they arrived.
    assert live.listener.enrollment is setup.enrollment
    assert {w: len(t) for w, t in setup.enrollment.takes["Abby"].items()} == dict.fromkeys(WORDS, 3)
    # The game's header names the kept WAVs: 16 kHz mono 16-bit, under the state directory.
    header = rig.hub.store.header(table.game_id)["enrollment"]
    assert list(header) == ["Abby"] and sorted(header["Abby"]) == sorted(WORDS)
    for word in WORDS:
        assert len(header["Abby"][word]) == 3
        for rel in header["Abby"][word]:
            assert rel.startswith("voices/") and wav_of(tmp_path / rel) == (1, 2, RATE)
            seconds = (tmp_path / rel).stat().st_size / 2 / RATE
            assert 0.3 < seconds < 2.5, (rel, seconds)
    # replay --game reads the same takes back from the state directory; with
    # them, george's held-out takes (5), in the same room's floor as the
    # takes were, are each nearest their own word.
    session = stored_session(Store(tmp_path / "log.sqlite3"), table.game_id)
    assert session.enrollment == header and session.base_dir == tmp_path
    kept = load_enrollment(session.enrollment, session.base_dir, counted=WORDS)
    for n, word in enumerate(WORDS, start=1):
        found = kept.match("Abby", [word], in_room(fsdd(n, 5), seed=n))
        assert found is not None and found.word == word and found.gap < 0, (word, found)
    # A new game of the evening with Abby gets her kept voice at once, and so
    # does a companion started anew on the same state directory.
    again = rig.hub.new_game("nasty7", ["Beth", "Abby"], {})
    assert rig.hub.store.header(again.game_id)["enrollment"] == header
    assert setup.held("Abby") == 21 and setup.held("Beth") == 0
    restarted = Hub(Store(tmp_path / "log.sqlite3"))
    fresh = VoiceSetup(WORDS, TakeStore(tmp_path))
    attach(fresh, restarted)
    assert fresh.held("Abby") == 0
    restarted.resume(again.game_id)
    assert fresh.held("Abby") == 21 and fresh.prompt is None


@pytest.mark.slow
@needs_fsdd
def test_a_call_the_recognizer_mishears_is_right_by_the_callers_own_takes(
        tmp_path: Path) -> None:
    """Beth (george) enrolls at setup; in the game she calls "two" (a
    held-out take that pocketsphinx hears as "twelve", left unsure without
    takes) and the ear, comparing it with her takes, rules it right."""
    from companion.referee.decision import Evidence, Verdict, decide

    pack = load_pack("en")
    enrolled = FIRST_S + EVERY_S * len(ROUND)
    wav = recording(tmp_path / "takes.wav", [(enrolled + 2.8, fsdd(1, 3, "lucas")),
                                             (enrolled + 4.8, fsdd(2, 6))], enrolled + 8.0)
    trace: list[tuple[Evidence, Verdict]] = []
    with use_file_device(tmp_path / "alsa", wav, rate=RATE, tail_s=0.5) as device:
        rig = open_rig(tmp_path, pack, device)
        setup = VoiceSetup(count_words(pack.lexicon.number_word), TakeStore(tmp_path))
        attach(setup, rig.hub)
        table = rig.hub.new_game("nasty7", ["Abby", "Beth"], {
            "virtual_deck": True,
            "composition": {"racketeer": 12, "twin_racketeer": 0, "phone": 0,
                            "twin_phone": 0, "gun": 0}})
        live = live_table(rig, rig.board, trace=trace)
        setup.start(["Beth"])
        rig.until(enrolled + 1.0)
        assert setup.held("Beth") == 21 and setup.prompt is None
        rig.press(0, enrolled + 2.0)  # Abby flips; "one" (lucas) at +2.8
        rig.press(1, enrolled + 4.0)  # Beth flips; "two" (george) at +4.8
        rig.until(enrolled + 7.5)
        rig.close()
    assert live.errors == []
    kinds = [(r.type, getattr(r, "player", None)) for r in table.rulings]
    assert kinds == [("call_ok", "Abby"), ("call_ok", "Beth")], kinds
    beth = [(e, v) for e, v in trace if e.expected == ("two",)]
    assert beth and beth[-1][1].outcome == "right"
    assert beth[-1][0].template_gap is not None and beth[-1][0].template_gap < 0
    assert [w.text for w in beth[-1][0].words] != ["two"]  # the recognizer misheard it
    # Without her takes (cepstral, and in the speech-embedding space, which
    # the ear asks too when the cepstral ones overrule a word heard) the
    # same evidence is not a sure call.
    bare = dataclasses.replace(beth[-1][0], template_gap=None, template_word=None,
                               embedding_gap=None)
    assert decide(bare).outcome != "right"


def models_built_when(tmp_path: Path, game: str) -> tuple[VoiceSetup, Any, list[str]]:
    """Start ``game`` with Abby and Beth (complete takes of "one" and "two",
    one round) and Carter (only his "one"), the live ear building adapted
    models in the background, and flip no card: the voice setup, the
    adapter, and the names of the models in its folder once it is idle."""
    from companion.referee.adaptation import Adapter

    pack = load_pack("en")
    store = TakeStore(tmp_path)
    for word, digit in (("one", 1), ("two", 2)):
        for player, speaker in (("Abby", "lucas"), ("Beth", SPEAKER)):
            store.add(player, word, in_room(fsdd(digit, 0, speaker), seed=digit))
    store.add("Carter", "one", in_room(fsdd(1, 0, "jackson"), seed=3))
    models = tmp_path / "models"
    adapter = Adapter(models, wait=False)
    wav = synth.write_wav(tmp_path / "floor.wav",
                          synth.noise_floor(round(2.0 * RATE), rate=RATE, seed=17), RATE)
    with use_file_device(tmp_path / "alsa", wav, rate=RATE, tail_s=0.5) as device:
        rig = open_rig(tmp_path, pack, device)
        setup = VoiceSetup(("one", "two"), store, rounds=1)
        attach(setup, rig.hub)
        options = {"virtual_deck": True} if game == "nasty7" else {}
        table = rig.hub.new_game(game, ["Abby", "Beth", "Carter"], options)
        live = live_table(rig, rig.board, adapter=adapter)
        assert adapter.idle(timeout=120)
        rig.close()
    assert live.errors == [] and table.rulings == []  # no card was played
    assert [setup.held(p) for p in ("Abby", "Beth", "Carter")] == [2, 2, 1]
    built = sorted(m.name for m in models.iterdir()
                   if not m.name.startswith((".", "base-"))) if models.is_dir() else []
    return setup, adapter, built


@needs_fsdd
def test_a_game_starts_building_the_adapted_models_of_players_whose_takes_are_complete(
        tmp_path: Path) -> None:
    """The live ear builds a player's adapted model in the background
    (``Adapter(wait=False)``); once a game of The Nasty 7 starts, for every
    player whose takes are complete, before anyone has flipped a card, not
    at each one's first turn. Beth's takes are kept from an earlier
    evening; Carter has recorded only one of his two, so no model is built
    of half his takes (his is built at his turn, as before). Two words,
    one round, so that the builds are quick."""
    setup, adapter, built = models_built_when(tmp_path, "nasty7")
    audio = setup.enrollment.audio
    ahead = {p: adapter.model(audio[p]) for p in ("Abby", "Beth")}
    assert all(m is not None and (m / "means").is_file() for m in ahead.values()), ahead
    assert built == sorted(m.name for m in ahead.values() if m is not None)


@needs_fsdd
def test_a_game_of_cheat_builds_no_adapted_model(tmp_path: Path) -> None:
    """Cheat owes no call the ear judges, and no hearing of it uses the
    players' models: none is built for it."""
    _, _, built = models_built_when(tmp_path, "cheat")
    assert built == []


# -- the page ------------------------------------------------------------------------------

@pytest.mark.slow
@needs_fsdd
def test_the_voices_page_takes_a_player_through_the_words(
        tmp_path: Path, browser: Any) -> None:
    from playwright.sync_api import expect
    from test_web_browser import enter_pin

    from companion.web import create_app
    from companion.web.server import start_server

    pack = load_pack("en")
    after = FIRST_S + EVERY_S * len(ROUND)  # Abby is done by then
    wav = recording(tmp_path / "takes.wav", [(after + 4.0, talk()),
                                             (after + 8.0, fsdd(1, 0))], after + 11.0)
    with use_file_device(tmp_path / "alsa", wav, rate=RATE, tail_s=0.5) as device:
        rig = open_rig(tmp_path, pack, device)
        setup = VoiceSetup(count_words(pack.lexicon.number_word), TakeStore(tmp_path))
        attach(setup, rig.hub)
        rig.hub.new_game("nasty7", PLAYERS, {})
        live = live_table(rig)
        server = start_server(create_app(rig.hub, pin=PIN), "127.0.0.1", 0, spare_threads=4)
        try:
            page = browser.new_context(viewport=PHONE).new_page()
            page.goto(server.url.rstrip("/") + "/settings")
            page.click("text=Teach the companion your voices")
            enter_pin(page, PIN)
            expect(page.locator("#msg")).to_have_text("PIN accepted")
            status, count = page.locator("#voices-status"), page.locator("#voices-count")
            expect(status).to_contain_text("Press Start")
            page.click("#voices-start")
            expect(status).to_have_text("Abby, say \u201cone\u201d.")
            expect(page.locator("#voices-words li.lit")).to_have_text("one")
            expect(count).to_have_text("Abby: 0 of 21")
            rig.until(FIRST_S + EVERY_S * 9 - 0.2)  # nine takes said
            expect(count).to_have_text("Abby: 9 of 21")
            expect(status).to_have_text("Abby, say \u201cthree\u201d.")
            expect(page.locator("#voices-words li.lit")).to_have_text("three")
            # Nothing on the page is wider than the phone.
            assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
            rig.until(after + 0.5)
            expect(status).to_have_text("Beth, say \u201cone\u201d.")
            page.click("#voices-skip")
            expect(status).to_have_text("Carter, say \u201cone\u201d.")
            page.click("#voices-stop")
            expect(status).to_contain_text("Press Start")
            players = page.locator("#voices-players li")
            expect(players.nth(0)).to_contain_text("Abby: done")
            expect(players.nth(1)).to_contain_text("Beth: not yet")
            assert setup.prompt is None and setup.held("Abby") == 21
            # Redo: Abby's takes are forgotten and asked for again; talk is not a take.
            page.click('#voices-players button[data-player="Abby"]')
            expect(status).to_have_text("Abby, say \u201cone\u201d.")
            expect(players.nth(0)).to_contain_text("Abby: not yet")
            rig.until(after + 7.5)
            expect(status).to_have_text("Not caught. Abby, say \u201cone\u201d again.")
            rig.until(after + 10.5)
            expect(status).to_have_text("Abby, say \u201ctwo\u201d.")
            expect(count).to_have_text("Abby: 1 of 21")
            page.click("#voices-stop")
            expect(status).to_contain_text("Press Start")
        finally:
            server.stop()
            rig.close()
    assert live.errors == []
    assert setup.held("Abby") == 1
    header = rig.hub.store.header(rig.hub.table.game_id)["enrollment"]
    assert header == {"Abby": {"one": [header["Abby"]["one"][0]]}}
    assert header["Abby"]["one"][0].endswith("one-4.wav")  # the first three files are kept


@pytest.mark.slow
def test_a_poll_answered_after_a_tap_does_not_undo_it_on_the_page(
        tmp_path: Path, browser: Any) -> None:
    """On a busy table the page's poll, asked before a tap on Start, can be
    answered after the tap's own reply: drawn, that older view would show
    "Press Start" again while the companion waits for Abby's first take.
    Playwright holds every poll's reply from before the tap until Abby's
    prompt is shown, then lets the first of them through alone: the prompt
    stays. Only the network's timing is staged (the held route); the live
    table on a quiet recording through ALSA's file plugin, the server and
    the page are real."""
    from playwright.sync_api import expect
    from test_web_browser import enter_pin

    from companion.web import create_app
    from companion.web.server import start_server

    pack = load_pack("en")
    quiet = synth.noise_floor(round(3.0 * RATE), rate=RATE, seed=17)
    wav = synth.write_wav(tmp_path / "quiet.wav", quiet, RATE)
    with use_file_device(tmp_path / "alsa", wav, rate=RATE, tail_s=0.5) as device:
        rig = open_rig(tmp_path, pack, device)
        setup = VoiceSetup(count_words(pack.lexicon.number_word), TakeStore(tmp_path))
        attach(setup, rig.hub)
        rig.hub.new_game("nasty7", PLAYERS, {})
        live_table(rig)
        server = start_server(create_app(rig.hub, pin=PIN), "127.0.0.1", 0, spare_threads=4)
        try:
            page = browser.new_context(viewport=PHONE).new_page()
            page.goto(server.url.rstrip("/") + "/voices")
            enter_pin(page, PIN)
            status = page.locator("#voices-status")
            expect(status).to_contain_text("Press Start")
            held = hold_polls(page, "**/api/voices")  # a poll from before the tap is held
            page.click("#voices-start")
            expect(status).to_have_text("Abby, say \u201cone\u201d.")
            route, stale = held.pop(0)
            assert stale.json()["prompt"] is None  # the view before the tap
            route.fulfill(response=stale)
            page.wait_for_timeout(300)  # the late reply is in; no other poll was let through
            assert status.inner_text() == "Abby, say \u201cone\u201d."
            page.context.close()  # (the polls still held go with it)
        finally:
            server.stop()
            rig.close()
    assert setup.prompt is not None and setup.prompt.player == "Abby"


# -- bad input -----------------------------------------------------------------------------

@pytest.fixture
def enrolled(tmp_path: Path) -> tuple[Hub, VoiceSetup, Flask]:
    """A table whose Abby has three takes of "one" (george's), served by the
    Flask app with no live table: the companion hears nothing."""
    from companion.web import create_app

    hub = Hub(Store(tmp_path / "log.sqlite3"))
    setup = VoiceSetup(WORDS, TakeStore(tmp_path))
    attach(setup, hub)
    hub.new_game("nasty7", PLAYERS, {})
    setup.start(["Abby"])
    for k in range(3):
        setup.heard(soxr.resample(fsdd(1, k), RATE, 8000).astype(np.int16), 8000)
    setup.stop()
    app = create_app(hub, pin=PIN, test_config={"TESTING": True,
                                                "TRUSTED_HOSTS": ["localhost", "127.0.0.1"]})
    return hub, setup, app


def phone(app: Flask, *, pin: bool = True) -> tuple[FlaskClient, dict[str, str]]:
    client = app.test_client()
    headers = {"X-CSRFToken": client.get("/api/session").get_json()["csrf_token"]}
    if pin:
        assert client.post("/api/pin", json={"pin": PIN}, headers=headers).status_code == 200
    return client, headers


def kept(hub: Hub, setup: VoiceSetup, state: Path) -> Any:
    """What a refused request must leave as it was."""
    assert hub.table is not None
    files = sorted(str(p.relative_to(state)) for p in (state / "voices").rglob("*"))
    return (hub.store.header(hub.table.game_id), setup.held("Abby"), setup.prompt,
            setup.takes_of(PLAYERS), files)


@needs_fsdd
@pytest.mark.parametrize(("route", "body", "status", "field"), [
    ("/api/voices/start", {"players": ["Zed"]}, 400, "players"),
    ("/api/voices/start", {"players": "Abby"}, 400, "players"),
    ("/api/voices/start", {"players": []}, 400, "players"),
    ("/api/voices/start", {"players": [["Abby"]]}, 400, "players"),
    ("/api/voices/start", [], 400, "body"),
    ("/api/voices/start", {}, 409, "microphone"),  # the companion hears nothing
    ("/api/voices/redo", {"player": "Abby"}, 409, "microphone"),
    ("/api/voices/redo", {}, 400, "player"),
    ("/api/voices/redo", {"player": 7}, 400, "player"),
    ("/api/voices/redo", {"player": "x" * 5000}, 400, "player"),
    ("/api/voices/skip", "skip", 400, "body"),
    ("/api/voices/stop", None, 400, "body"),
])
def test_bad_requests_name_the_field_and_lose_nothing(
        enrolled: tuple[Hub, VoiceSetup, Flask], tmp_path: Path, route: str, body: Any,
        status: int, field: str) -> None:
    hub, setup, app = enrolled
    assert setup.held("Abby") == 3
    before = kept(hub, setup, tmp_path)
    client, headers = phone(app)
    reply = client.post(route, json=body, headers=headers)
    assert reply.status_code == status, reply.get_data(as_text=True)
    assert reply.get_json()["field"] == field
    assert kept(hub, setup, tmp_path) == before
    assert len(str(reply.get_json()["error"])) < 200


@needs_fsdd
def test_changes_need_the_pin_and_a_game(enrolled: tuple[Hub, VoiceSetup, Flask],
                                         tmp_path: Path) -> None:
    hub, setup, app = enrolled
    before = kept(hub, setup, tmp_path)
    client, headers = phone(app, pin=False)
    for route in ("/api/voices/start", "/api/voices/redo", "/api/voices/skip",
                  "/api/voices/stop"):
        reply = client.post(route, json={"player": "Abby"}, headers=headers)
        assert (reply.status_code, reply.get_json()["field"]) == (403, "pin"), route
    assert client.post("/api/voices/stop", json={}).status_code == 400  # no CSRF token
    assert kept(hub, setup, tmp_path) == before
    view = client.get("/api/voices").get_json()
    assert view["held"] == {"Abby": 3, "Beth": 0, "Carter": 0, "Debbie": 0}
    assert view["hearing"] is False and view["needed"] == 21



def test_with_no_game_there_is_nobody_to_take(tmp_path: Path) -> None:
    from companion.web import create_app

    hub = Hub(Store(tmp_path / "log.sqlite3"))
    attach(VoiceSetup(WORDS, TakeStore(tmp_path)), hub)
    app = create_app(hub, pin=PIN, test_config={"TESTING": True,
                                                "TRUSTED_HOSTS": ["localhost", "127.0.0.1"]})
    client, headers = phone(app)
    for route in ("/api/voices/start", "/api/voices/redo"):
        reply = client.post(route, json={"player": "Abby"}, headers=headers)
        assert (reply.status_code, reply.get_json()["field"]) == (409, "game"), route
    assert client.get("/api/voices").get_json()["players"] == []
    assert hub.store.games() == [] and not (tmp_path / "voices").exists()


@needs_fsdd
def test_a_take_with_too_little_voice_is_asked_again(tmp_path: Path) -> None:
    setup = VoiceSetup(WORDS, TakeStore(tmp_path))
    setup.start(["Abby"])
    click = trim(fsdd(1, 0))[:round(0.06 * RATE)].astype(np.int16)  # 60 ms of a word
    answered = setup.heard(click, RATE)
    assert answered is not None and answered.word == "one"
    assert setup.prompt is not None and setup.prompt.again and setup.prompt.word == "one"
    assert setup.held("Abby") == 0 and not (tmp_path / "voices").exists()
    assert setup.heard(fsdd(1, 0), RATE) is not None
    assert setup.prompt is not None and not setup.prompt.again and setup.prompt.word == "two"
    assert setup.held("Abby") == 1 and setup.takes_of(["Abby"]) == {
        "Abby": {"one": [str(TakeStore(tmp_path).folder("Abby").relative_to(tmp_path)
                             / "one-1.wav")]}}


@needs_fsdd
def test_a_kept_voice_that_cannot_be_read_is_learnt_anew(tmp_path: Path) -> None:
    store = TakeStore(tmp_path)
    setup = VoiceSetup(WORDS, store)
    setup.start(["Abby"])
    setup.heard(fsdd(1, 0), RATE)
    setup.heard(fsdd(2, 0), RATE)
    kept = store.takes("Abby")
    (tmp_path / kept["two"][0]).write_bytes(b"not a wav")
    fresh = VoiceSetup(WORDS, store)
    fresh.load(["Abby"])
    assert fresh.held("Abby") == 0 and store.takes("Abby") == {}
    fresh.start(["Abby"])
    fresh.heard(fsdd(1, 1), RATE)
    assert store.takes("Abby") == {"one": [kept["one"][0].replace("one-1", "one-2")]}
    assert (tmp_path / kept["one"][0]).is_file()  # an older game's take stays


@needs_fsdd
def test_kept_takes_loaded_or_redone_leave_no_trace_of_other_takes(tmp_path: Path) -> None:
    """The ear compares a call in noise with its takes and with copies of
    them in noise, made from the takes' samples. Takes loaded for a new
    game bring their samples (before, the loaded ear had none and made no
    noisy copies); a player who redoes their takes keeps none of the old
    ones' samples (before, the old samples still made noisy copies)."""
    store = TakeStore(tmp_path)
    setup = VoiceSetup(WORDS, store)
    setup.start(["Abby"])
    for digit in (1, 2, 3, 4):  # the words are asked in order
        setup.heard(fsdd(digit, digit + 3), RATE)
    fresh = VoiceSetup(WORDS, store)
    fresh.load(["Abby"])
    assert fresh.held("Abby") == setup.held("Abby") == 4
    noisy = fresh.enrollment._templates("Abby", 10.0)  # a call 10 dB over the floor
    assert {w: len(t) for w, t in noisy.items()} == {
        w: len(t) for w, t in setup.enrollment._templates("Abby", 10.0).items()}
    # Each word: its take and the take's copy in noise.
    assert {w: len(t) for w, t in noisy.items()} == {"one": 2, "two": 2, "three": 2, "four": 2}
    fresh.redo("Abby")
    fresh.heard(fsdd(1, 9), RATE)
    assert {w: len(t) for w, t in fresh.enrollment.audio["Abby"].items()} == {"one": 1}
    assert {w: len(t) for w, t in fresh.enrollment._templates("Abby", 10.0).items()} == {
        "one": 2}


@needs_fsdd
def test_the_wrong_numbers_are_asked_for_after_the_count_words(tmp_path: Path) -> None:
    """As the companion is started (``run``): the count words, then the
    wrong numbers just past the count ("zero", "eight", "nine"), each
    ``ROUNDS`` times. The ear's enrollment knows which are the count words
    (``Enrollment.counted``), and the game's header lists every word's
    takes, so a replay compares calls with the same takes."""
    from companion.referee.enrollment import wrong_numbers

    pack = load_pack("en")
    number = pack.lexicon.number_word
    setup = VoiceSetup(count_words(number), TakeStore(tmp_path), wrong=wrong_numbers(number))
    assert setup.words == (*WORDS, "zero", "eight", "nine")
    assert setup.needed == 10 * setup.rounds
    assert setup.enrollment.counted == frozenset(WORDS)
    setup.start(["Abby"])
    for word in WORDS:
        assert setup.prompt is not None and setup.prompt.word == word
        setup.heard(fsdd(WORDS.index(word) + 1, 0), RATE)
    for digit, word in ((0, "zero"), (8, "eight")):  # george's take 0 of zero is 90 ms
        assert setup.prompt is not None and setup.prompt.word == word
        setup.heard(fsdd(digit, 1), RATE)
    assert setup.held("Abby") == 9
    assert set(setup.takes_of(["Abby"])["Abby"]) == {*WORDS, "zero", "eight"}
    assert VoiceSetup(WORDS).enrollment.counted is None  # no wrong numbers: all count


@needs_fsdd
def test_a_take_is_embedded_as_it_is_kept_not_at_the_players_first_call(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The speech embedding of each take is made while the player records it
    # (the table waits for nobody then); the first call the takes witness
    # embeds only its own audio. A take asked for again is never embedded.
    from companion.referee import embedding

    if not embedding.available():
        pytest.skip("the speech-embedding model is not installed")
    monkeypatch.setattr(embedding, "_takes", embedding.Kept(embedding.TAKES_KEPT))  # fresh
    embedded: list[int] = []
    real = embedding.embed
    monkeypatch.setattr(embedding, "embed", lambda pcm: embedded.append(len(pcm)) or real(pcm))
    setup = VoiceSetup(WORDS)
    setup.start(["Abby"])
    click = trim(fsdd(1, 0))[:round(0.06 * RATE)].astype(np.int16)  # 60 ms: asked again
    assert setup.heard(click, RATE) is not None and setup.prompt is not None
    assert setup.prompt.again and embedded == []
    for digit, word in enumerate(WORDS, start=1):
        assert setup.heard(fsdd(digit, 0), RATE) is not None, word
    kept = setup.enrollment.voice("Abby", learnt=False)
    assert embedded == [len(kept[w][0]) for w in WORDS]
    embedded.clear()
    call = fsdd(WORDS.index("two") + 1, 40)
    assert embedding.witness(setup.enrollment, "Abby", ["two"], call) is not None
    assert embedded == [len(call)]


@needs_fsdd
def test_kept_takes_read_for_a_new_game_are_embedded_before_the_first_call(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # An evening starts in a fresh process with the players' voices kept
    # from before: their takes are embedded in the background as the game
    # loads them, so the first call they witness embeds only its own audio.
    from companion.referee import embedding

    if not embedding.available():
        pytest.skip("the speech-embedding model is not installed")
    store = TakeStore(tmp_path)
    setup = VoiceSetup(WORDS, store)
    setup.start(["Abby"])
    for digit in (1, 2, 3):
        assert setup.heard(fsdd(digit, 0), RATE) is not None
    monkeypatch.setattr(embedding, "_takes", embedding.Kept(embedding.TAKES_KEPT))  # a new process
    embedded: list[int] = []
    real = embedding.embed
    monkeypatch.setattr(embedding, "embed", lambda pcm: embedded.append(len(pcm)) or real(pcm))
    fresh = VoiceSetup(WORDS, store)
    fresh.load(["Abby", "Beth"])  # Beth has no takes
    assert fresh.warmed(timeout=60)
    kept = fresh.enrollment.voice("Abby", learnt=False)
    assert sorted(embedded) == sorted(len(kept[w][0]) for w in ("one", "two", "three"))
    embedded.clear()
    call = fsdd(2, 40)
    assert embedding.witness(fresh.enrollment, "Abby", ["two"], call) is not None
    assert embedded == [len(call)]
    assert VoiceSetup(WORDS, store).warmed(timeout=0)  # nothing loaded: nothing to wait for


@needs_fsdd
def test_kept_takes_read_for_a_new_game_are_copied_into_noise_before_the_first_call(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The caller's takes are compared with a call in noise through copies of
    # them in that noise. For the takes a game loads, those copies are made
    # in the background as it starts, every step of noise and both cuts, so
    # the first call heard in noise makes none while a ruling waits.
    from companion.referee import templates

    store = TakeStore(tmp_path)
    setup = VoiceSetup(WORDS, store)
    setup.start(["Abby"])
    for digit in (1, 2, 3):
        assert setup.heard(fsdd(digit, 0), RATE) is not None
    # a new process: nothing kept yet
    monkeypatch.setattr(templates, "_copies", templates.Kept(templates.COPIES_KEPT))
    made: list[float] = []
    real = templates.in_noise
    monkeypatch.setattr(templates, "in_noise",
                        lambda pcm, snr_db, seed=0: made.append(snr_db) or real(pcm, snr_db, seed))
    fresh = VoiceSetup(WORDS, store)
    fresh.load(["Abby"])
    assert fresh.warmed(timeout=120)
    steps = templates.noisy_steps()
    assert steps[0] == templates.NOISY_SNR_DB and steps[-1] == 0.0
    assert sorted(made) == sorted(s for s in steps for _ in range(3 * 2))  # 3 takes, 2 cuts
    made.clear()
    call = fsdd(2, 40)
    for snr_db in (4.0, 16.0, 29.0):
        assert fresh.enrollment.match("Abby", ["two"], call, snr_db=snr_db) is not None
    assert made == []
    # the same takes in an enrollment whose copies were not made ahead
    monkeypatch.setattr(templates, "_copies", templates.Kept(templates.COPIES_KEPT))
    cold = templates.enrollment_of({"Abby": fresh.enrollment.voice("Abby", learnt=False)})
    assert cold.match("Abby", ["two"], call, snr_db=16.0) is not None
    assert made == [15.0] * 3


def test_warming_copies_stops_at_its_share_of_the_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    # A table of many players must not push its own copies out of the cache
    # while it makes them: warm stops at its share and says how many it made.
    from companion.referee import templates

    monkeypatch.setattr(templates, "_copies", templates.Kept(templates.COPIES_KEPT))
    rng = np.random.default_rng(3)
    voice = {"one": [(rng.normal(0, 3000, RATE // 2)).astype(np.int16) for _ in range(2)]}
    assert templates.warm([voice], most=5) == 5
    assert templates.warm([voice]) == len(templates.noisy_steps()) * 2 * 2
    assert templates.warm([]) == 0
