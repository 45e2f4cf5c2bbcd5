"""Ruling latency of the scorekeeping engines: how long one event takes to
apply (the whole fold of each shipped example session, repeated), printed per
game in microseconds per event. Run: ``.venv/bin/python bench/scoregames.py``."""

from __future__ import annotations

import time

from companion.games.base import Match
from companion.resources import data_path
from companion.session import load_session

EXAMPLES = {"finger_guns": "finger-guns.jsonl", "cheap_shot": "cheap-shot.jsonl",
            "rummy_battle": "rummy-battle.jsonl"}
REPEATS = 300


def main() -> None:
    print(f"{'game':<14}{'events':>8}{'us/event':>10}{'max us':>9}")
    for game, name in EXAMPLES.items():
        session = load_session(data_path("voices", "en", "examples", name))
        worst = 0.0
        start = time.perf_counter()
        for _ in range(REPEATS):
            match = Match(session.game)
            for event in session.events:
                t0 = time.perf_counter()
                match.apply(event)
                worst = max(worst, time.perf_counter() - t0)
        total = time.perf_counter() - start
        n = len(session.events) * REPEATS
        print(f"{game:<14}{len(session.events):>8}{total / n * 1e6:>10.1f}{worst * 1e6:>9.0f}")


if __name__ == "__main__":
    main()
