"""A game goes on exactly after a restart or a reboot, and its log holds what
happened, not the passing of time (issue 20, items 1, 4 and 8).

The reboot is real where it can be here: one ``companion run`` process
writes the log and is stopped, a second one resumes it. A reboot itself
cannot happen in a test, so its one visible effect is made by hand: the
stored times are moved a day ahead, as a log written by a boot whose
monotonic clock had run a day longer than the new one's. The other tests
inject the table clock (``TableClock``) to run hours of table time in
milliseconds; SQLite, the engines and the table loop are the real ones.
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from companion.cli import main
from companion.events import Tick
from companion.games import make_game
from companion.games.base import Match
from companion.games.cheat import Claim
from companion.games.nasty7 import Flip
from companion.live import LiveHub, LiveTable
from companion.store import Store
from companion.table import Table
from companion.voice.pack import load_pack
from companion.web import create_app

PACK = load_pack("en")
PIN = "2468"
REBOOT_SHIFT_S = 86_400.0
"""How much further the earlier boot's clock had run: a day."""


class TableClock:
    """An injected clock: seconds, moved by the test."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


# -- a real companion process and a phone talking to it -------------------------------


class Phone:
    """A phone on the page: cookies, the CSRF token and the PIN, over real HTTP."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        self.csrf = str(self.get("/api/session")["csrf_token"])
        status, _ = self.post("/api/pin", {"pin": PIN})
        assert status == 200

    def get(self, path: str) -> Any:
        with self.opener.open(self.base + path, timeout=30) as reply:
            return json.loads(reply.read())

    def post(self, path: str, body: Any = None) -> tuple[int, Any]:
        request = urllib.request.Request(
            self.base + path, data=json.dumps(body or {}).encode(), method="POST",
            headers={"Content-Type": "application/json", "X-CSRFToken": self.csrf})
        try:
            with self.opener.open(request, timeout=30) as reply:
                return reply.status, json.loads(reply.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())


def start_companion(db: Path, *args: str) -> tuple[subprocess.Popen[str], str]:
    """``companion run`` on a free port of 127.0.0.1; the process and its page's URL."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("NOTIFY_SOCKET", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", "run", "--host", "127.0.0.1", "--port", "0",
         "--db", str(db), "--no-microphone", "--pin", PIN, *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    for line in proc.stdout:
        found = re.search(r"Control page: (http://[\d.]+:\d+)/", line)
        if found:
            return proc, found.group(1)
    proc.kill()
    raise AssertionError(f"companion run did not start: {proc.communicate()[1][-2000:]}")


def stop(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=60)


def stored_times(db: Path) -> list[float]:
    with sqlite3.connect(db) as con:
        return [t for (t,) in con.execute("SELECT t FROM events ORDER BY game_id, seq")]


def move_log_ahead(db: Path, seconds: float) -> None:
    """Every stored time ``seconds`` later, in the column and in the event's JSON."""
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT game_id, seq, body FROM events").fetchall()
        for game_id, seq, body in rows:
            event = json.loads(body)
            event["t"] += seconds
            if event.get("end") is not None:
                event["end"] += seconds
            con.execute("UPDATE events SET t = ?, body = ? WHERE game_id = ? AND seq = ?",
                        (event["t"], json.dumps(event), game_id, seq))


@pytest.mark.slow
def test_a_game_resumed_by_a_process_whose_clock_starts_lower_goes_on(tmp_path: Path) -> None:
    db = tmp_path / "log.sqlite3"
    first, base = start_companion(db, "--game", "cheat", "--players", "Abby,Beth,Carter",
                                  "--options", '{"challenge_window": 1.0}')
    try:
        phone = Phone(base)
        status, reply = phone.post("/api/events", {"type": "claim", "count": 2, "rank": "4"})
        assert status == 200, reply
    finally:
        stop(first)
    move_log_ahead(db, REBOOT_SHIFT_S)  # the log of a boot that had run a day longer
    last = max(stored_times(db))

    second, base = start_companion(db)
    try:
        phone = Phone(base)
        status, reply = phone.post("/api/games/1/resume")
        assert status == 200, reply

        # The next claim is taken at once, after the last event ...
        asked = time.monotonic()
        status, reply = phone.post("/api/events", {"type": "claim", "player": "Beth",
                                                   "count": 1, "rank": "5"})
        assert status == 200, reply
        assert time.monotonic() - asked < 2.0
        claimed = reply["event"]["t"]
        assert last <= claimed < last + 5.0  # the clock went on from the last event
        # ... and its challenge window closes on time, by itself.
        deadline = time.monotonic() + 5.0
        closed: list[dict[str, Any]] = []
        while not closed and time.monotonic() < deadline:
            time.sleep(0.2)
            closed = [r for r in phone.get("/api/state")["log"]
                      if r["type"] == "window_closed" and r["data"]["player"] == "Beth"]
        assert closed, "the challenge window never closed"
        assert closed[0]["t"] == pytest.approx(claimed + 1.0)

        # A t far ahead of or behind the table clock is refused at once, naming t,
        # and not logged.
        before = len(stored_times(db))
        now = phone.get("/api/state")["now"]
        for t in (now + 20, now - 3600):
            asked = time.monotonic()
            status, reply = phone.post("/api/events", {"type": "claim", "player": "Carter",
                                                       "count": 1, "rank": "6", "t": t})
            assert (status, reply["field"]) == (400, "t"), reply
            assert time.monotonic() - asked < 2.0
        assert len(stored_times(db)) == before
    finally:
        stop(second)


def test_an_injected_lower_clock_resumes_from_the_last_event(tmp_path: Path) -> None:
    store = Store(tmp_path / "log.sqlite3")
    first = LiveHub(store, PACK, clock=TableClock(90_000.0))
    first.new_game("cheat", ["Abby", "Beth", "Carter"], {"challenge_window": 1.0})
    first.submit(Claim(t=90_001.0, player="Abby", count=2, rank="4"))
    game_id = first.table.game_id if first.table else 0

    clock = TableClock(12.0)  # the new boot's clock
    hub = LiveHub(store, PACK, clock=clock)
    live = LiveTable(hub)
    hub.resume(game_id)
    assert hub.now() == 90_001.0
    clock.now = 12.5
    hub.submit(Claim(t=hub.now(), player="Beth", count=1, rank="5"))  # closes Abby's window
    clock.now = 13.6  # Beth's window (1 s) has passed on the table clock
    live.step()
    assert hub.table is not None
    closed = [r for r in hub.table.rulings if r.type == "window_closed"]
    assert [(r.t, r.player) for r in closed] == [(90_002.5, "Beth")]  # type: ignore[attr-defined]


# -- the log holds what happened ---------------------------------------------------------


def test_an_idle_table_logs_nothing_and_publishes_nothing(tmp_path: Path) -> None:
    clock = TableClock(100.0)
    hub = LiveHub(Store(tmp_path / "log.sqlite3"), PACK, clock=clock)
    live = LiveTable(hub)
    hub.new_game("nasty7", ["Abby", "Beth"], {"virtual_deck": True, "seed": 1})
    assert hub.table is not None
    logged = hub.store.games()[0].events  # the "cannot hear" note: no microphone here
    published: list[Any] = []
    hub.subscribe(lambda *args: published.append(args))
    for _ in range(600):  # a minute of table time, a loop step every 0.1 s
        clock.now = round(clock.now + 0.1, 6)
        live.step()
    assert hub.store.games()[0].events == logged
    assert published == []  # so no snapshot went to the page either


def test_a_passed_deadline_is_one_tick_and_the_state_is_the_fold_of_the_log(
        tmp_path: Path) -> None:
    clock = TableClock(100.0)
    store = Store(tmp_path / "log.sqlite3")
    hub = LiveHub(store, PACK, clock=clock)
    live = LiveTable(hub)
    hub.new_game("cheat", ["Abby", "Beth", "Carter"], {"challenge_window": 2.0})
    assert hub.table is not None
    hub.submit(Claim(t=100.5, player="Abby", count=2, rank="4"))
    deadline = hub.table.view().get("deadline")
    for _ in range(100):  # ten seconds of table time
        clock.now = round(clock.now + 0.1, 6)
        live.step()
    types = [o["type"] for o in store.event_objects(hub.table.game_id)]
    assert types == ["hearing", "claim", "tick"]  # no microphone: calls go unheard
    assert [r.type for r in hub.table.rulings] == ["claim_ok", "window_closed"]
    resumed = Table.resume(store, hub.table.game_id)
    assert resumed.view() == hub.table.view()
    assert resumed.rulings == hub.table.rulings
    assert (deadline, hub.table.view()["deadline"]) == (102.5, None)


def test_an_old_log_full_of_ticks_resumes_exactly(tmp_path: Path) -> None:
    """Logs written before time stopped being an event hold a tick every
    0.1 s; resuming one steps over the idle ticks and must still give the
    state, rulings and undo history of folding every event."""
    game = make_game("nasty7", ["Abby", "Beth"], {"hesitation": 1.0})
    events: list[Any] = []
    t = 1.0
    for i in range(40):
        events.append(Flip(t=t, player=["Abby", "Beth"][i % 2], card="racketeer"))
        for _ in range(25):  # 2.5 s of ticks: the call's window (1 s) closes in them
            t = round(t + 0.1, 6)
            events.append(Tick(t=t))
        t = round(t + 0.1, 6)
    store = Store(tmp_path / "log.sqlite3")
    game_id = store.new_game(game.header())
    for seq, event in enumerate(events):
        store.append(game_id, seq, event)
    reference = Match(make_game("nasty7", ["Abby", "Beth"], {"hesitation": 1.0}))
    rulings = reference.fold(events)
    resumed = Table.resume(store, game_id)
    assert resumed.match.state == reference.state
    assert resumed.match.effective == reference.effective
    assert resumed.match.clock == reference.clock
    assert resumed.rulings == rulings


def test_the_snapshot_carries_the_deadline_for_the_page_to_count_down(tmp_path: Path) -> None:
    clock = TableClock(50.0)
    hub = LiveHub(Store(tmp_path / "log.sqlite3"), PACK, clock=clock)
    app = create_app(hub, pin=PIN, test_config={"TESTING": True})
    control = app.extensions["companion.control"]
    hub.new_game("cheat", ["Abby", "Beth", "Carter"], {"challenge_window": 4.0})
    hub.submit(Claim(t=50.0, player="Abby", count=2, rank="4"))
    clock.now = 51.5
    snap = control.snapshot()
    assert (snap["now"], snap["deadline"]) == (51.5, 54.0)


# -- the virtual deck --------------------------------------------------------------------


def test_each_virtual_deck_is_shuffled_anew_and_replays_exactly(tmp_path: Path) -> None:
    db = tmp_path / "log.sqlite3"
    hub = LiveHub(Store(db), PACK, clock=TableClock(10.0))
    decks, seeds = [], []
    for _ in range(2):
        table = hub.new_game("nasty7", ["Abby", "Beth"], {"virtual_deck": True})
        seeds.append(hub.store.header(table.game_id)["options"]["seed"])
        decks.append(table.state.stacks)
        hub.submit(Flip(t=11.0, player="Abby"))  # the top card, whatever the deal
        hub.submit(Tick(t=20.0))  # her call's window has closed: a ruling either way
    assert all(isinstance(s, int) for s in seeds) and seeds[0] != seeds[1]
    assert decks[0] != decks[1]
    for seed, kept in ((None, False), (7, True)):  # the page sends null for "none given"
        table = hub.new_game("nasty7", ["Abby", "Beth"], {"virtual_deck": True, "seed": seed})
        stored = hub.store.header(table.game_id)["options"]["seed"]
        assert isinstance(stored, int) and (stored == 7) == kept
    # The replay of the stored game deals from the stored seed: same rulings.
    game_id = 2
    live = [r.to_dict() for r in Table.resume(hub.store, game_id).rulings]
    replayed = CliRunner().invoke(main, ["replay", "--game", str(game_id), "--db", str(db)])
    assert replayed.exit_code == 0, replayed.output
    assert [json.loads(line) for line in replayed.output.splitlines()] == live
    assert live
