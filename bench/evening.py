"""An evening at the table: power cuts mid-game, and resuming a long game.

Run: ``.venv/bin/python bench/evening.py [--kills 100] [--seed 1]``.
Prints figures; asserts nothing (a lost event or a state that differs from
the log's fold is printed as such).

**Power cuts.** ``companion run`` (a real process, no microphone, the real
SQLite log) is started, the game in play is resumed from the page's API, and
a phone posts Cheat events (claims of random counts and ranks, table talk,
an undo now and then, and after some claims a pause longer than the
challenge window, so the table's own ticks, each closing a window, are
logged too) until the process gets ``kill -9``
at a random moment, 0.2-3 s into the round. A game that is won is followed
by a new one. After each kill the bench checks, on the log left behind, that
every event the page acknowledged (HTTP 200) is there, in order (compared
without ``t``, which the table may raise to its clock); after each restart,
that the state the page shows right after the resume equals a full fold of
the stored log (``Match.fold`` of every event, not ``Table.resume``'s
shortcut). Resume time: the ``POST /api/games/ID/resume`` request, and the
process start until the resumed game answers.

**A 10-hour game.** The same log built twice with the real ``Store`` schema:
as the table logs it now (what happened: flips, their calls' windows closing
by a tick, table talk heard every 10 s) and as the table logged it before
issue 20 (the same plus a tick every 0.1 s). Each is resumed with
``Table.resume``; the old one also with a plain fold of every event (how it
was resumed before).
"""

from __future__ import annotations

import argparse
import http.cookiejar
import json
import os
import platform
import random
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from companion.events import Say, Tick
from companion.games import make_game
from companion.games.base import Match
from companion.games.nasty7 import Flip
from companion.session import parse_header
from companion.store import Store
from companion.table import Table

PIN = "2468"
PLAYERS = "Abby,Beth,Carter"
CUT_GAME = "cheat"
CUT_OPTIONS = '{"challenge_window": 0.5}'
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
TALK = ["one", "two", "three", "pfft", "pfft pfft", "whose turn is it", "seven"]


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()}"


def _ms(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return (f"median {statistics.median(ordered) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, "
            f"max {ordered[-1] * 1000:.0f} ms")


# -- a phone and a companion process ---------------------------------------------------


class Phone:
    """A phone on the page over real HTTP: cookies, the CSRF token, the PIN."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        self.csrf = str(self.get("/api/session")["csrf_token"])
        self.post("/api/pin", {"pin": PIN})

    def get(self, path: str) -> Any:
        with self.opener.open(self.base + path, timeout=10) as reply:
            return json.loads(reply.read())

    def post(self, path: str, body: Any = None) -> tuple[int, Any]:
        request = urllib.request.Request(
            self.base + path, data=json.dumps(body or {}).encode(), method="POST",
            headers={"Content-Type": "application/json", "X-CSRFToken": self.csrf})
        try:
            with self.opener.open(request, timeout=10) as reply:
                return reply.status, json.loads(reply.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())


def _drain(pipe: Any) -> None:
    """Read a process's output to its end (so it never blocks on a full pipe), then close it."""
    with pipe:
        pipe.read()


def start(db: Path, *args: str) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("NOTIFY_SOCKET", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", "run", "--host", "127.0.0.1", "--port", "0",
         "--db", str(db), "--no-microphone", "--pin", PIN, *args],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    assert proc.stdout is not None
    for line in proc.stdout:
        found = re.search(r"Control page: (http://[\d.]+:\d+)/", line)
        if found:
            threading.Thread(target=_drain, args=(proc.stdout,), daemon=True).start()
            return proc, found.group(1)
    raise RuntimeError("companion run did not start")


def _without_t(event: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in event.items() if k not in ("t", "end")}


def _fold_view(db: Path, game_id: int) -> dict[str, Any]:
    """The view of a full fold of every stored event (no shortcut)."""
    with Store(db) as store:
        game = parse_header(store.header(game_id))
        match: Match[Any] = Match(game)
        match.fold([game.parse_event(o) for o in store.event_objects(game_id)])
        return {"state": game.view(match.state), "winner": match.winner}


def _stored(db: Path) -> dict[int, list[dict[str, Any]]]:
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT game_id, body FROM events ORDER BY game_id, seq").fetchall()
    out: dict[int, list[dict[str, Any]]] = {}
    for game_id, body in rows:
        out.setdefault(game_id, []).append(json.loads(body))
    return out


def _is_subsequence(wanted: list[dict[str, Any]], stored: list[dict[str, Any]]) -> int:
    """How many of ``wanted`` (in order) are missing from ``stored``."""
    it = iter(_without_t(e) for e in stored)
    missing = 0
    for event in wanted:
        key = _without_t(event)
        if not any(key == got for got in it):
            missing += 1
            it = iter(_without_t(e) for e in stored)  # count each loss once, go on
    return missing


def _play(phone: Phone, rng: random.Random, acked: dict[int, list[dict[str, Any]]],
          game_id: list[int], stop: threading.Event) -> None:
    """Post events until the process dies; record each acknowledged one."""
    while not stop.is_set():
        roll = rng.random()
        if roll < 0.55:
            body: dict[str, Any] = {"type": "claim", "count": rng.randint(1, 4),
                                    "rank": rng.choice(RANKS)}
        elif roll < 0.9:
            body = {"type": "say", "text": rng.choice(TALK)}
        else:
            body = {"type": "undo"}
        try:
            if body["type"] == "undo":
                status, reply = phone.post("/api/undo")
            else:
                status, reply = phone.post("/api/events", body)
        except OSError:
            return  # the power went
        if status == 200 and body["type"] != "undo":
            acked.setdefault(game_id[0], []).append(reply["event"])
            if body["type"] == "claim" and rng.random() < 0.6:
                time.sleep(rng.uniform(0.6, 1.0))  # nobody challenges: the window closes
        elif status == 200:
            acked.setdefault(game_id[0], []).append({"type": "undo"})
        elif status == 400 and "over" in str(reply.get("error", "")):
            try:
                status, reply = phone.post("/api/games", {"game": CUT_GAME,
                                                          "players": PLAYERS.split(","),
                                                          "options": json.loads(CUT_OPTIONS)})
            except OSError:
                return
            if status == 201:
                game_id[0] = int(reply["game_id"])


def power_cuts(kills: int, seed: int, folder: Path) -> None:
    rng = random.Random(seed)
    db = folder / "cuts.sqlite3"
    acked: dict[int, list[dict[str, Any]]] = {}
    game_id = [1]
    resume_request: list[float] = []
    start_to_resumed: list[float] = []
    lost = mismatched = 0
    proc, base = start(db, "--game", CUT_GAME, "--players", PLAYERS, "--options", CUT_OPTIONS)
    for round_no in range(kills):
        phone = Phone(base)
        stop = threading.Event()
        player = threading.Thread(target=_play, args=(phone, rng, acked, game_id, stop))
        player.start()
        time.sleep(rng.uniform(0.2, 3.0))
        proc.kill()  # kill -9: no handler runs, nothing is flushed
        proc.wait()
        stop.set()
        player.join()
        stored = _stored(db)
        for gid, events in acked.items():
            lost += _is_subsequence(events, stored.get(gid, []))
        began = time.perf_counter()
        proc, base = start(db)
        phone = Phone(base)
        asked = time.perf_counter()
        status, reply = phone.post(f"/api/games/{game_id[0]}/resume")
        resume_request.append(time.perf_counter() - asked)
        start_to_resumed.append(time.perf_counter() - began)
        if status != 200:
            print(f"round {round_no}: resume answered {status}: {reply}")
            continue
        view = phone.get("/api/state")["view"]
        if {"state": view["state"], "winner": view["winner"]} != _fold_view(db, game_id[0]):
            mismatched += 1
            print(f"round {round_no}: the resumed state differs from the fold of the log")
    proc.kill()
    proc.wait()
    stored = _stored(db)
    total_acked = sum(len(v) for v in acked.values())
    total_stored = sum(len(v) for v in stored.values())
    ticks = sum(1 for v in stored.values() for e in v if e["type"] == "tick")
    print(f"power cuts: {kills} kill -9 at random moments, {total_acked} acknowledged events "
          f"in {len(stored)} games of {CUT_GAME}, {lost} lost; {total_stored} events stored "
          f"({ticks} ticks, each a window that ran out); resumed state differs from the fold "
          f"of the log in {mismatched} of {kills} restarts")
    print(f"resume (POST /api/games/ID/resume): {_ms(resume_request)}")
    print(f"restart (process start to the game resumed): {_ms(start_to_resumed)}")


# -- a 10-hour game --------------------------------------------------------------------


HOURS = 10.0


def ten_hour_events(rng: random.Random, *, old_ticks: bool) -> list[Any]:
    """A game played for its length, then a table that keeps hearing talk for
    the rest of 10 hours; with ``old_ticks`` also a tick every 0.1 s."""
    game = make_game("nasty7", ["Abby", "Beth", "Carter"], {"hesitation": 3.0})
    match: Match[Any] = Match(game)
    happened: list[Any] = []
    t = 5.0
    while match.winner is None:  # gun cards only: silence is the right call
        turn = game.players[match.state.turn]
        happened.append(Flip(t=t, player=turn, card="gun"))
        match.apply(happened[-1])
        if rng.random() < 0.3:  # a pause: the call's window closes by a tick
            t += 3.5
            happened.append(Tick(t=t))
            match.apply(happened[-1])
        t += rng.uniform(1.0, 2.9)  # within the window: the next flip closes it
    end = HOURS * 3600
    while t < end:
        happened.append(Say(t=t, text=rng.choice(TALK), confidence=0.6))
        t += 10.0
    if not old_ticks:
        return happened
    out: list[Any] = []
    clock = 0.1
    for event in happened:
        while clock < event.t:
            out.append(Tick(t=round(clock, 6)))
            clock += 0.1
        out.append(event)
    while clock < end:
        out.append(Tick(t=round(clock, 6)))
        clock += 0.1
    return out


def write_log(db: Path, events: list[Any]) -> int:
    """One game's log in the real schema, written in one transaction (fast to build)."""
    game = make_game("nasty7", ["Abby", "Beth", "Carter"], {"hesitation": 3.0})
    with Store(db) as store:
        game_id = store.new_game(game.header())
    with sqlite3.connect(db) as con:
        con.executemany("INSERT INTO events (game_id, seq, t, body) VALUES (?, ?, ?, ?)",
                        [(game_id, i, e.t, e.to_json().decode()) for i, e in enumerate(events)])
    return game_id


def resume_time(db: Path, game_id: int, repeats: int = 3) -> tuple[float, float, Table]:
    """Best wall-clock and CPU seconds of ``Table.resume`` over ``repeats``
    (the machine is shared: CPU time is the steadier figure)."""
    wall, cpu = [], []
    table: Table | None = None
    with Store(db) as store:
        for _ in range(repeats):
            began, began_cpu = time.perf_counter(), time.process_time()
            table = Table.resume(store, game_id)
            wall.append(time.perf_counter() - began)
            cpu.append(time.process_time() - began_cpu)
    assert table is not None
    return min(wall), min(cpu), table


def plain_fold_time(db: Path, game_id: int) -> tuple[float, float, Match[Any]]:
    """How a log was resumed before: parse and apply every event (wall, CPU s)."""
    with Store(db) as store:
        began, began_cpu = time.perf_counter(), time.process_time()
        game = parse_header(store.header(game_id))
        match: Match[Any] = Match(game)
        for obj in store.event_objects(game_id):
            match.apply(game.parse_event(obj))
        return time.perf_counter() - began, time.process_time() - began_cpu, match


def ten_hours(seed: int, folder: Path) -> None:
    new = ten_hour_events(random.Random(seed), old_ticks=False)
    old = ten_hour_events(random.Random(seed), old_ticks=True)
    new_id = write_log(folder / "new.sqlite3", new)
    old_id = write_log(folder / "old.sqlite3", old)
    new_s, new_cpu, new_table = resume_time(folder / "new.sqlite3", new_id)
    old_s, old_cpu, old_table = resume_time(folder / "old.sqlite3", old_id)
    fold_s, fold_cpu, fold_match = plain_fold_time(folder / "old.sqlite3", old_id)
    same = (old_table.match.state == fold_match.state
            and old_table.match.effective == fold_match.effective)
    new_ticks = sum(1 for e in new if isinstance(e, Tick))
    print(f"10-hour game as logged now: {len(new)} events ({new_ticks} ticks, each a window "
          f"that ran out): Table.resume {new_s * 1000:.0f} ms wall, {new_cpu * 1000:.0f} ms "
          "CPU (best of 3)")
    print(f"10-hour game as logged before issue 20: {len(old)} events "
          f"({len(old) - len(new)} more ticks): Table.resume {old_s:.2f} s wall, "
          f"{old_cpu:.2f} s CPU (best of 3); a plain fold of every event (the old resume) "
          f"{fold_s:.1f} s wall, {fold_cpu:.1f} s CPU; same state and undo history: {same}; "
          f"winner {new_table.match.winner} in both")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    load = os.getloadavg()[0]
    print(f"machine: {machine()}; load average {load:.1f} at the start (a shared machine)")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if args.kills:
            power_cuts(args.kills, args.seed, folder)
        ten_hours(args.seed, folder)


if __name__ == "__main__":
    main()
