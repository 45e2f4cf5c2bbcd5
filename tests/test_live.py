"""The table loop's rules of order and meaning, on gpiozero's MockFactory.

The table clock is a value the test sets; the loop is stepped by hand
(``LiveTable.step``) so every ordering below is exact."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory
from live_rig import TableClock

from companion.audio.alsa_file import use_file_device
from companion.audio.microphone import Microphone
from companion.board import Board, Status
from companion.live import LiveHub, LiveTable
from companion.pinout import load_pinout
from companion.referee.stream import Heard
from companion.store import Store
from companion.voice.pack import load_pack
from companion.voice.speaker import Priority, Speaker, find_output

PACK = load_pack("en")


class Rig:
    def __init__(self, tmp_path: Path, game: str, players: list[str], options: dict,
                 **live_args: object) -> None:
        self.clock = TableClock(1.0)
        self.factory = MockFactory()
        self.board = Board(load_pinout(), self.factory, clock=self.clock)
        self.hub = LiveHub(Store(tmp_path / "log.sqlite3"), PACK, clock=self.clock)
        self.lines: list[str] = []
        self.live = LiveTable(self.hub, board=self.board,
                              on_ruling=lambda _r, line: self.lines.append(line),
                              **live_args)  # type: ignore[arg-type]
        self.hub.new_game(game, players, options)

    def pin(self, seat: int):
        return self.factory.pin(self.board.pinout.seats[seat].button)

    def until(self, t: float) -> None:
        while self.clock.now < t - 1e-9:
            self.clock.now = min(t, round(self.clock.now + 0.05, 6))
            self.live.step()

    def press(self, seat: int, at: float) -> None:
        self.until(at)
        self.pin(seat).drive_low()
        self.clock.now = at + 0.1
        self.pin(seat).drive_high()
        self.until(at + 0.2)

    def events(self) -> list[dict]:
        return [e.to_dict() for e in self.hub.table.match.effective]

    def close(self) -> None:
        self.board.close()
        self.factory.close()


@pytest.fixture
def nasty7(tmp_path: Path):
    rig = Rig(tmp_path, "nasty7", ["Abby", "Beth", "Carter", "Debbie"],
              {"virtual_deck": True, "seed": 0})
    yield rig
    rig.close()


def test_presses_within_1ms_accuse_together(nasty7: Rig) -> None:
    nasty7.press(0, 2.0)  # Abby flips (speech checking is off: her call counts as made)
    for seat, at in ((2, 3.0), (3, 3.0005)):  # Carter and Debbie, 0.5 ms apart
        nasty7.clock.now = at
        nasty7.pin(seat).drive_low()
    nasty7.clock.now = 3.1
    nasty7.pin(3).drive_high()
    nasty7.pin(2).drive_high()
    nasty7.until(3.5)
    accusations = [e for e in nasty7.events() if e["type"] == "accuse"]
    assert len(accusations) == 1 and accusations[0]["by"] == ["Carter", "Debbie"]
    assert accusations[0]["t"] == pytest.approx(3.0, abs=1e-3)


def test_the_earliest_press_wins(nasty7: Rig) -> None:
    nasty7.press(0, 2.0)  # Abby flips; Beth is next
    # Debbie accuses 2 ms before Beth flips: the accusation is about Abby's call.
    nasty7.clock.now = 3.000
    nasty7.pin(3).drive_low()
    nasty7.clock.now = 3.002
    nasty7.pin(1).drive_low()
    nasty7.clock.now = 3.2
    nasty7.pin(1).drive_high()  # Beth lets go first; the order is still by edges
    nasty7.live.step()
    nasty7.clock.now = 3.3
    nasty7.pin(3).drive_high()
    nasty7.until(3.6)
    kinds = [(e["type"], e.get("by") or e.get("player")) for e in nasty7.events()
             if e["type"] in ("flip", "accuse")]
    assert kinds[:2] == [("flip", "Abby"), ("accuse", ["Debbie"])]
    assert "I did not hear Abby's call. Play on." in nasty7.lines


def test_virtual_deck_flip_is_announced_and_leds_follow_the_turn(nasty7: Rig) -> None:
    led = [nasty7.factory.pin(s.led) for s in nasty7.board.pinout.seats[:4]]
    nasty7.live.step()
    assert [p.state for p in led] == [True, False, False, False]
    nasty7.press(0, 2.0)
    card = nasty7.hub.table.view()["state"]["call"]["card"]
    assert card.replace("_", " ") in nasty7.lines
    turn = nasty7.hub.table.view()["state"]["turn"]
    seat = ["Abby", "Beth", "Carter", "Debbie"].index(turn)
    assert [p.state for p in led] == [i == seat for i in range(4)]
    assert nasty7.board.status is Status.FAULT  # no microphone: speech checking off


def test_a_mistake_blinks_the_offenders_led(tmp_path: Path) -> None:
    rig = Rig(tmp_path, "nasty7", ["Abby", "Beth"], {"virtual_deck": True, "seed": 0})
    try:
        # No microphone in this rig, so hearing is off; a scripted call needs it on.
        rig.hub.submit(rig.hub.table.game.parse_event({"type": "hearing", "t": 1.0,
                                                       "on": True}))
        rig.press(0, 2.0)
        rig.hub.submit(rig.hub.table.game.parse_event({"type": "say", "t": 2.5,
                                                       "text": "seven"}))
        led = rig.factory.pin(rig.board.pinout.seats[0].led)
        led.clear_states()
        deadline = time.monotonic() + 5
        while len(led.states) < 4 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(led.states) >= 4  # on, off, on, ...: blinking
        assert any("Abby: wrong number" in line for line in rig.lines)
    finally:
        rig.close()


def test_holding_a_button_says_the_scores(tmp_path: Path) -> None:
    rig = Rig(tmp_path, "nasty7", ["Abby", "Beth"], {"virtual_deck": True, "seed": 0})
    try:
        pin = rig.pin(1)
        pin.drive_low()  # held: gpiozero's hold thread fires after hold_time (2 s)
        deadline = time.monotonic() + 10
        while not rig.lines and time.monotonic() < deadline:
            rig.live.step()
            time.sleep(0.05)
        pin.drive_high()
        rig.live.step()
        assert rig.lines[-1] == "Cards left: Abby 55, Beth 55."
        # The hold was no press: nothing applied but the game's "cannot hear" note.
        assert rig.events() == [{"type": "hearing", "t": rig.events()[0]["t"], "on": False}]
    finally:
        rig.close()


def test_physical_deck_press_is_the_flip_and_a_tap_names_its_card(tmp_path: Path) -> None:
    rig = Rig(tmp_path, "nasty7", ["Abby", "Beth", "Carter"], {})
    try:
        rig.press(0, 2.0)
        # The press alone is the flip; its card is left to the call.
        assert [e["type"] for e in rig.events()] == ["hearing", "flip"]
        assert rig.events()[1]["card"] is None
        assert rig.events()[1]["t"] == pytest.approx(2.0, abs=1e-3)
        view = rig.hub.table.view()["state"]
        assert view["turn"] == "Beth" and view["call"]["card_from"] == "unknown"
        # A tap on the pad now stands for Abby, and names her card.
        assert rig.hub.pending_press is not None and rig.hub.pending_press[0] == "Abby"
        rig.clock.now = 2.6
        tap = rig.hub.table.game.parse_event({"type": "flip", "t": 2.6, "player": "Abby",
                                              "card": "twin_racketeer"})
        result: list = []
        rig.live.start()
        try:
            worker = threading.Thread(target=lambda: result.append(rig.hub.submit(tap)))
            worker.start()
            worker.join(10)
        finally:
            rig.live.stop()
        assert rig.events()[-1] == {"type": "card", "t": 2.6, "player": "Abby",
                                    "card": "twin_racketeer"}
        view = rig.hub.table.view()["state"]
        assert view["turn"] == "Carter" and view["call"]["card_from"] == "named"
        assert rig.hub.pending_press is None and result == [[]]
        # Beth skips: her press now accuses Abby, Carter's is the next flip.
        rig.press(1, 4.0)
        assert rig.events()[-1]["type"] == "accuse"
    finally:
        rig.close()


def test_physical_deck_press_waits_for_the_tapped_card(tmp_path: Path) -> None:
    rig = Rig(tmp_path, "nasty7", ["Abby", "Beth"], {"wait_for_tap": True})
    try:
        rig.press(0, 2.0)
        assert rig.hub.pending_press is not None and rig.hub.pending_press[0] == "Abby"
        # No card yet: nothing applied but the game's "cannot hear" note.
        assert [e["type"] for e in rig.events()] == ["hearing"]
        # The page's tap arrives from a web thread 1.3 s later.
        rig.clock.now = 3.3
        result: list = []
        tap = rig.hub.table.game.parse_event({"type": "flip", "t": 3.3, "player": "Abby",
                                              "card": "gun"})
        rig.live.start()  # the loop on its own thread, as in `companion run`
        try:
            worker = threading.Thread(target=lambda: result.append(rig.hub.submit(tap)))
            worker.start()
            worker.join(10)
        finally:
            rig.live.stop()
        flip = next(e for e in rig.events() if e["type"] == "flip")
        assert flip["card"] == "gun" and flip["t"] == pytest.approx(2.0, abs=1e-3)
        assert rig.hub.pending_press is None and result == [[]]
    finally:
        rig.close()


def test_cheat_presses_claim_and_challenge_with_ties(tmp_path: Path) -> None:
    rig = Rig(tmp_path, "cheat", ["Abby", "Beth", "Carter"], {})
    try:
        rig.press(0, 2.0)  # Abby puts cards down (the claim itself is spoken)
        rig.hub.submit(rig.hub.table.game.parse_event({"type": "say", "t": 2.5,
                                                       "text": "two aces"}))
        for seat, at in ((1, 3.0), (2, 3.0004)):
            rig.clock.now = at
            rig.pin(seat).drive_low()
        rig.clock.now = 3.1
        rig.pin(1).drive_high()
        rig.pin(2).drive_high()
        rig.until(3.4)
        challenges = [e for e in rig.events() if e["type"] == "challenge"]
        assert [c["player"] for c in challenges] == ["Beth", "Carter"]
        assert challenges[0]["t"] == challenges[1]["t"]  # one edge time: a tie
        assert any(r.type == "challenge_tie" for r in rig.hub.table.rulings)
    finally:
        rig.close()


@pytest.mark.slow
def test_words_heard_while_the_companion_speaks_are_not_judged(tmp_path: Path) -> None:
    with use_file_device(tmp_path / "alsa"):
        clock = TableClock(1.0)
        speaker = Speaker(PACK, find_output(), clock=clock)
        hub = LiveHub(Store(tmp_path / "log.sqlite3"), PACK, clock=clock)
        live = LiveTable(hub, speaker=speaker)
        hub.new_game("nasty7", ["Abby", "Beth"], {"virtual_deck": True, "seed": 0})
        clock.now = 5.0
        speaker.say("Abby: wrong number, it was five.", Priority.RULING)
        assert speaker.wait_idle(30)
        speaker.close()
    start, end = speaker.speaking.intervals()[-1]
    assert start == 5.0 and end >= 5.25
    live._heard(Heard(onset=5.1, end=5.4, words=()))   # its own voice, picked up
    live._heard(Heard(onset=end + 0.5, end=end + 0.8, words=()))
    assert live.ignored_while_speaking == 1
    assert [i.t for i in live._heap] == [end + 0.5]


@pytest.mark.slow
def test_an_unplugged_microphone_is_announced_and_the_game_goes_on(tmp_path: Path) -> None:
    with use_file_device(tmp_path / "alsa", None, rate=16000, tail_s=30.0):
        from companion.referee.recognizer import open_recognizer
        from companion.referee.stream import Listener

        recognizer = open_recognizer("pocketsphinx", PACK, notice=False)
        clock = TableClock(1.0)
        mic = Microphone(clock=clock, queue_blocks=100_000)
        mic.open()
        rig_hub = LiveHub(Store(tmp_path / "log.sqlite3"), PACK, clock=clock)
        lines: list[str] = []
        live = LiveTable(rig_hub, microphone=mic,
                         listener_for=lambda rate: Listener(recognizer, rate),
                         on_ruling=lambda _r, line: lines.append(line))
        rig_hub.new_game("nasty7", ["Abby", "Beth"], {"virtual_deck": True, "seed": 0})
        assert live.speech_checking
        mic._stream.abort()  # the one simulated part: the USB microphone goes away
        live.step()
        mic.close()
    assert "The microphone is unplugged. Calls are not checked until it is back." in lines
    assert not live.speech_checking
    clock.now = 8.0
    live.press("Abby", 7.0)
    clock.now = 12.0  # far past the hesitation limit
    live.step()
    assert [r.type for r in rig_hub.table.rulings if r.type == "mistake"] == []


def test_the_control_page_talks_to_the_live_table(tmp_path: Path) -> None:
    """A button press (the flip), then its card tapped on the page (real Flask
    app, PIN and CSRF), with the table loop on its own thread and the real
    table clock."""
    from companion.web import create_app

    factory = MockFactory()
    board = Board(load_pinout(), factory)
    hub = LiveHub(Store(tmp_path / "log.sqlite3"), PACK)
    live = LiveTable(hub, board=board)
    app = create_app(hub, pin="1357", test_config={"TESTING": True,
                                                   "TRUSTED_HOSTS": ["localhost"]})
    client = app.test_client()
    headers = {"X-CSRFToken": client.get("/api/session").get_json()["csrf_token"]}
    assert client.post("/api/pin", json={"pin": "1357"}, headers=headers).status_code == 200
    reply = client.post("/api/games", json={"game": "nasty7",
                                            "players": ["Abby", "Beth", "Carter"]},
                        headers=headers)
    assert reply.status_code == 201, reply.get_json()
    live.start()
    try:
        pin = factory.pin(board.pinout.seats[0].button)
        pin.drive_low()
        pressed_at = time.monotonic()
        time.sleep(0.05)
        pin.drive_high()
        deadline = time.monotonic() + 5
        while hub.pending_press is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert hub.pending_press is not None and hub.pending_press[0] == "Abby"
        (flip,) = [e for e in hub.table.match.effective if e.type == "flip"]
        assert flip.player == "Abby" and flip.card is None  # the press alone
        assert abs(flip.t - pressed_at) < 0.05  # the press's edge
        reply = client.post("/api/events", json={"type": "flip", "card": "racketeer"},
                            headers=headers)
        assert reply.status_code == 200, reply.get_json()
        named = hub.table.match.effective[-1]
        assert named.type == "card" and named.player == "Abby" and named.card == "racketeer"
        # A virtual button on the page is judged like a real press: Carter accuses.
        assert client.post("/api/press", json={"player": "Carter"},
                           headers=headers).status_code == 200
        deadline = time.monotonic() + 5
        while not any(e.type == "accuse" for e in hub.table.match.effective) \
                and time.monotonic() < deadline:
            time.sleep(0.01)
        assert [e.type for e in hub.table.match.effective][-1] == "accuse"
    finally:
        live.stop()
        board.close()
        factory.close()


class PacedRecording:
    """A WAV given to the table loop block by block, as far as the test says:
    it stands in for the sound card's pace (ALSA's file device delivers a
    recording at once). Blocks are the microphone's own ``Block`` type."""

    def __init__(self, samples, rate: int) -> None:
        self.samples, self.rate = samples, rate
        self.lost = self.finished = False
        self.fed = 0
        self.ready: list = []

    def feed_until(self, seconds: float) -> None:
        from companion.audio.microphone import Block

        end = min(len(self.samples), round(seconds * self.rate))
        while self.fed < end:
            n = min(800, end - self.fed)
            self.ready.append(Block(samples=self.samples[self.fed:self.fed + n],
                                    rate=self.rate, index=self.fed, t=self.fed / self.rate))
            self.fed += n

    def check(self) -> None:
        return None

    def blocks(self, timeout: float = 0.0):
        out, self.ready = self.ready, []
        return iter(out)

    @property
    def waiting(self) -> int:
        return len(self.ready)


@pytest.mark.slow
def test_a_press_waits_for_the_recognizer_to_catch_up(tmp_path: Path) -> None:
    from companion.audio import synth
    from companion.referee.recognizer import open_recognizer
    from companion.referee.stream import Listener

    voice = synth.VoiceSpec("espeak-ng", "en-us", 1.0, 50)
    one = synth.Synth().utterance("one", voice, rate=16000)
    clip = synth.place([(2.0, one, "one")], seconds=6.0, rate=16000)
    recording = PacedRecording(clip.audio, 16000)
    recognizer = open_recognizer("pocketsphinx", PACK, notice=False)
    clock = TableClock(1.0)
    hub = LiveHub(Store(tmp_path / "log.sqlite3"), PACK, clock=clock)
    live = LiveTable(hub, microphone=recording,
                     listener_for=lambda rate: Listener(recognizer, rate))
    hub.new_game("nasty7", ["Abby", "Beth", "Carter"], {"virtual_deck": True, "seed": 0})
    clock.now = 1.1
    live.press("Abby", 1.0)
    recording.feed_until(1.5)
    live.step()
    assert [e.type for e in hub.table.match.effective] == ["flip"]
    # Carter accuses at 2.5, while the recognizer has heard only up to 2.2 s:
    # Abby's "one" (onset 2.0) is still being spoken.
    clock.now = 2.6
    live.press("Carter", 2.5)
    recording.feed_until(2.2)
    live.step()
    assert [e.type for e in hub.table.match.effective] == ["flip"]
    assert live.watermark() < 2.5
    recording.feed_until(4.0)
    clock.now = 4.0
    live.step()
    assert [e.type for e in hub.table.match.effective] == ["flip", "say", "accuse"]
    assert [(r.type, getattr(r, "player", None)) for r in hub.table.rulings] == [
        ("call_ok", "Abby"), ("mistake", "Carter"), ("pile", "Carter"), ("round", None)]
