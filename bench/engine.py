"""The Nasty 7 and Cheat engines and the event log, timed.

Prints, for each engine, the time to apply one event (median and worst, in
microseconds, over the shipped example sessions replayed many times), the
cost of an undo late in a game (it refolds the log), and how many events per
second the SQLite log takes with durable writes (WAL, synchronous=FULL).
Run: ``.venv/bin/python bench/engine.py``.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from companion.events import Undo
from companion.games.base import Match
from companion.resources import data_path
from companion.session import load_session
from companion.store import Store
from companion.table import Table

EXAMPLES = {"nasty7": "nasty7-rulebook.jsonl", "cheat": "cheat-four-players.jsonl"}
REPEATS = 300


def per_event(name: str) -> tuple[int, list[float]]:
    session = load_session(data_path("voices", "en", "examples", name))
    times = []
    for _ in range(REPEATS):
        match = Match(session.game)
        for event in session.events:
            t0 = time.perf_counter()
            match.apply(event)
            times.append(time.perf_counter() - t0)
    return len(session.events), times


def undo_cost(name: str) -> float:
    session = load_session(data_path("voices", "en", "examples", name))
    match = Match(session.game)
    match.fold(session.events)
    t = session.events[-1].t + 1.0
    t0 = time.perf_counter()
    match.apply(Undo(t=t))
    return time.perf_counter() - t0


def log_rate(name: str, count: int = 200) -> float:
    session = load_session(data_path("voices", "en", "examples", name))
    with tempfile.TemporaryDirectory() as folder, Store(Path(folder) / "b.sqlite3") as store:
        start = time.perf_counter()
        done = 0
        while done < count:
            table = Table.new(store, session.game)
            for event in session.events:
                table.submit(event)
                done += 1
        return done / (time.perf_counter() - start)


def main() -> None:
    print(f"{'engine':<8}{'events':>7}{'median us':>11}{'worst us':>10}{'undo us':>9}"
          f"{'log events/s':>14}")
    for game, name in EXAMPLES.items():
        n, times = per_event(name)
        print(f"{game:<8}{n:>7}{statistics.median(times) * 1e6:>11.1f}"
              f"{max(times) * 1e6:>10.0f}{undo_cost(name) * 1e6:>9.0f}{log_rate(name):>14.0f}")


if __name__ == "__main__":
    main()
