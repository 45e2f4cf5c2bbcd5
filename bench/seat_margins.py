"""Who spoke (issue 18): the seat estimates at the true call onsets.

Renders seeded Nasty 7 rounds in the room simulation (bench/roomsim.py: the
dev FSDD speakers, talk at other seats, kitchen noise, RT60 0.45 s), runs
the array's STFT over each, and at every call's true onset (shifted by each
of ``--shifts`` seconds: the ear measures a little before the recognizer's
word start, which may be late) asks ``companion.referee.seats`` for the
seat. ``--from take`` (the default) takes the onset at the take's first
sample, where a VAD opens in a quiet room (FSDD takes open on up to 0.4 s
of their own hiss); ``--from word`` at the word's own onset in the take,
where the ear's rise out of talk finds the voice (the ear measures the
seat where the voice rose: ``Heard.sound_onset``). Prints per array and
condition, for the beam power rise alone (sure at ``SURE_DB``), MUSIC
alone (sure at ``MUSIC_SURE_DB``), whitened MUSIC alone
(``WHITENED_SURE_DB``) and the estimate the ear uses ("all": see
``companion.referee.seats``; the caller is the player whose turn it is):

- best right: the estimate's best seat is the caller's;
- sure right / sure wrong: a seat given as sure, the caller's or another's;

and, for each estimate alone, the largest margin at which it named a wrong
seat (the smallest threshold that gives no wrong seat on these rounds). The
``_prompt`` rows are the other player's voice before the call in the
wrong-seat rounds, with that player as the truth.

A second table gives the azimuth error (degrees) of the direction found
at each call's true onset on ``locate``'s grid, as setup finds a seat: the
beam rise's best direction, MUSIC's, and ``locate``'s (MUSIC's when near
the rise's).

    python bench/seat_margins.py --seeds 500-504
"""

from __future__ import annotations

import argparse
import platform
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

# This checkout's bench modules and companion, not the companion the environment
# installed (a worktree's run with another checkout's venv measured that one).
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np
import roomsim

from companion.referee.judge import read_wav_channels
from companion.referee.seats import (
    LOCATE_STEP_DEG,
    MUSIC_SURE_DB,
    SURE_DB,
    WHITENED_SURE_DB,
    SeatEstimate,
    best_lead,
    degrees_apart,
    estimate_seat,
    locate,
)
from companion.referee.steered import SteeredEar
from companion.session import load_session

BLOCK = 480
"""Samples fed at a time, as the live microphone does (30 ms at 16 kHz)."""

AFTER_S = 0.6
"""Seconds after an onset by which its frames are all kept."""


@dataclass
class Tally:
    """Counts for one estimate, array and condition."""

    n: int = 0
    best: int = 0
    sure_right: int = 0
    sure_wrong: int = 0


def _estimates(est: SeatEstimate) -> Iterator[tuple[str, str, float, bool]]:
    """(name, best seat, margin, sure) per estimate."""
    seat, margin = best_lead(est.rises)
    yield "rise", seat, margin, margin >= SURE_DB
    seat, margin = best_lead(est.music)
    yield "music", seat, margin, margin >= MUSIC_SURE_DB
    seat, margin = best_lead(est.whitened)
    yield "whitened", seat, margin, margin >= WHITENED_SURE_DB
    yield "all", est.player, est.confidence, est.sure


def _locate(ear: SteeredEar, grid: dict[str, float], at: float, true_deg: float,
            located: dict[tuple[str, str, str], list[float]], array: str, cond: str) -> None:
    """Add the azimuth errors of the rise's, MUSIC's and ``locate``'s
    direction for the voice at ``at``."""
    est = estimate_seat(ear.beam, grid, at)
    found = locate(ear.beam, at)
    if est is None or found is None:
        return
    for name, azimuth in (("rise", grid[best_lead(est.rises)[0]]),
                          ("music", grid[best_lead(est.music)[0]]), ("locate", found)):
        located.setdefault((name, array, cond), []).append(degrees_apart(azimuth, true_deg))


def _seed_range(text: str) -> list[int]:
    if "-" in text:
        lo, hi = text.split("-")
        return list(range(int(lo), int(hi) + 1))
    return [int(s) for s in text.split(",")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="500-504", help="render seeds: 500-504 or 1,2,3")
    ap.add_argument("--arrays", default="usb4,hat6")
    ap.add_argument("--conditions", default=",".join(roomsim.CONDITIONS))
    ap.add_argument("--shifts", default="-0.1,0",
                    help="seconds added to each true onset before estimating")
    ap.add_argument("--from", dest="basis", choices=("take", "word"), default="take",
                    help="the true onset: the take's first sample, or the word's onset in it")
    args = ap.parse_args()
    seeds = _seed_range(args.seeds)
    shifts = [float(s) for s in args.shifts.split(",")]
    tallies: dict[tuple[str, str, str], Tally] = {}
    wrong_margin: dict[str, float] = {}
    located: dict[tuple[str, str, str], list[float]] = {}
    grid = {f"{a:g}": float(a) for a in np.arange(0.0, 360.0, LOCATE_STEP_DEG)}
    started = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        for condition in args.conditions.split(","):
            for array in args.arrays.split(","):
                for seed in seeds:
                    rendered = roomsim.render_session(Path(tmp), f"{condition}-{seed}-{array}",
                                                      condition=condition, array=array,
                                                      seed=seed)
                    session = load_session(rendered.path)
                    assert session.seating is not None
                    pcm, rate = read_wav_channels(rendered.path.with_suffix(".wav"))
                    ear = SteeredEar(session.seating, rate)
                    onsets = [c.onset_t if args.basis == "take" else c.speech_t
                              for c in rendered.calls]
                    # (time, condition, who spoke, whose turn it was)
                    asks = sorted(
                        [(t + s, condition, c.player, c.player)
                         for c, t in zip(rendered.calls, onsets, strict=True) for s in shifts]
                        + [(c.prompt[1], f"{condition}_prompt", c.prompt[0], c.player)
                           for c in rendered.calls if c.prompt is not None])
                    k = 0
                    for i in range(0, len(pcm), BLOCK):
                        ear.feed(pcm[i:i + BLOCK], 0.0 if i == 0 else None)
                        now = (i + BLOCK) / rate
                        while k < len(asks) and asks[k][0] + AFTER_S <= now:
                            at, cond, truth, turn = asks[k]
                            k += 1
                            est = estimate_seat(ear.beam, session.seating.seats, at, turn)
                            if est is None:
                                continue
                            if cond == condition and any(abs(at - t) < 1e-9 for t in onsets):
                                _locate(ear, grid, at, rendered.seats[truth],
                                        located, array, cond)
                            for name, seat, margin, sure in _estimates(est):
                                t = tallies.setdefault((name, array, cond), Tally())
                                t.n += 1
                                t.best += seat == truth
                                t.sure_right += sure and seat == truth
                                t.sure_wrong += sure and seat != truth
                                if seat != truth and name != "all":
                                    wrong_margin[name] = max(wrong_margin.get(name, 0.0),
                                                             margin)
                    print(f"{condition} {array} {seed}", file=sys.stderr, flush=True)
    print(f"Seat estimates at the true onsets ({args.basis}'s): seeds {args.seeds}, "
          f"shifts {args.shifts} s, {platform.machine()}\n")
    print("| estimate | array | condition | estimates | best right | sure right | sure wrong |")
    print("|---|---|---|---|---|---|---|")
    for (name, array, cond), t in sorted(tallies.items(), key=lambda kv: (
            ["rise", "music", "whitened", "all"].index(kv[0][0]), kv[0][1], kv[0][2])):
        print(f"| {name} | {array} | {cond} | {t.n} | {100 * t.best / t.n:.1f} % | "
              f"{100 * t.sure_right / t.n:.1f} % | {t.sure_wrong} |")
    print()
    for name, bar in (("rise", SURE_DB), ("music", MUSIC_SURE_DB),
                      ("whitened", WHITENED_SURE_DB)):
        print(f"{name} alone: largest margin naming a wrong seat "
              f"{wrong_margin.get(name, 0.0):.2f} dB (sure at {bar} dB)")
    print(f"\nAzimuth error at the true onsets, {LOCATE_STEP_DEG:g} degree grid\n")
    print("| direction | array | condition | calls | median | 90th percentile | largest |")
    print("|---|---|---|---|---|---|---|")
    for (name, array, cond), errs in sorted(located.items(), key=lambda kv: (
            ["rise", "music", "locate"].index(kv[0][0]), kv[0][1], kv[0][2])):
        e = np.array(errs)
        print(f"| {name} | {array} | {cond} | {len(e)} | {np.median(e):.1f} | "
              f"{np.percentile(e, 90):.1f} | {e.max():.1f} |")
    print(f"({time.time() - started:.0f} s)")


if __name__ == "__main__":
    main()
