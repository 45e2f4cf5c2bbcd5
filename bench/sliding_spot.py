"""Could the caller's word be found in talk without the recognizer's word edges?

Run from the project's root::

    .venv/bin/python bench/sliding_spot.py --data DIR [--split dev] [--conditions ...]

An upper bound for a sliding-window spotter over the caller's enrolled takes
(``companion.referee.templates``), measured on an enrolled human-voice set in
``tools/score.py``'s layout (``bench/humanset.py`` then ``bench/enrolled.py``).
For every racketeer card it slides windows of 0.8, 1 and 1.25 times the
median length of the caller's takes of the word owed, 40 ms apart, across
the call's whole window (flip to window end), and matches each window with
the caller's takes (``Enrollment.match``, noisy copies at 10 dB SNR). It
uses the ground truth to sort the windows: a window *on the call* covers at
least half of the shorter of it and the spoken call; a window *away* does
not touch the call (0.1 s of margin). A window is *accepted* when the owed
word fits best by ``--gap`` or more and as closely as ``--fit`` times the
spread of its takes (the spotter's rule, ``Thresholds.spot_fit``). Per
condition and fit it prints: right calls with an accepted window on the
call (what a spotter could find at best, since it knows where to look),
right calls with an accepted window away from it (a stretch of talk or
silence taken for the call), and wrong and out-of-range calls whose window
holds an accepted window, and late calls with one ending before the 3 s
limit (a mistake a spotter would have ruled right).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np
import soxr

from companion.referee.enrollment import count_words, load_enrollment, takes_from_header
from companion.referee.judge import mono_of, read_wav_channels
from companion.referee.templates import RATE, Match, trim
from companion.voice.pack import load_pack

FITS = (0.95, 1.0, 1.05, 1.1)
STEP_S = 0.04
SCALES = (0.8, 1.0, 1.25)
HESITATION_S = 3.0
"""A late call's window counts as accepted only for a window that ends
before the hesitation limit (the late call itself comes after it)."""


def windows(data: Path, split: str, condition: str) -> list[dict[str, Any]]:
    """Every racketeer call of ``condition`` with its windows:
    ``(start s, length s, Match)``."""
    truth = [json.loads(x) for x in (data / split / "truth.jsonl").read_text().splitlines()]
    out = []
    for t in truth:
        session = data / split / condition / f"{t['session']}.jsonl"
        if not session.exists():
            continue
        header = json.loads(session.open(encoding="utf-8").readline())
        takes = takes_from_header(header, header["players"])
        if takes is None:
            raise SystemExit(f"{session}: no enrollment (run bench/enrolled.py first)")
        enrollment = load_enrollment(takes, session.parent,
                                     counted=count_words(load_pack("en").lexicon.number_word))
        pcm, rate = read_wav_channels(session.with_suffix(".wav"))
        x = mono_of(pcm)
        if rate != RATE:
            x = soxr.resample(x, rate, RATE).astype(np.int16)
        for call in t["calls"]:
            player, word = call["player"], call["expected"]
            if call["card"] != "racketeer" or word not in enrollment.words(player):
                continue
            length = float(np.median([len(trim(a)) / RATE
                                      for a in enrollment.audio[player][word]]))
            found = []
            for scale in SCALES:
                span, at = scale * length, call["flip_t"]
                while at + span < call["window_end"] + 0.3:
                    cut = x[max(0, round((at - 0.1) * RATE)):round((at + span + 0.1) * RATE)]
                    match = enrollment.match(player, [word], cut, 10.0)
                    if match is not None:
                        found.append((at, span, match))
                    at += STEP_S
            out.append({"call": call, "windows": found})
        print(f"  {condition} {t['session']}", flush=True)
    return out


def accepted(match: Match, fit: float, gap: float) -> bool:
    return match.fit is not None and match.gap <= gap and match.fit <= fit


def report(condition: str, calls: list[dict[str, Any]], gap: float) -> list[str]:
    lines = []
    for fit in FITS:
        n = on = away = 0
        other: dict[str, list[int]] = {}
        for c in calls:
            call = c["call"]
            ok = [(a, s) for a, s, m in c["windows"] if accepted(m, fit, gap)]
            if call["kind"] == "right":
                lo, hi = call["onset_t"], call["start_t"] + call["dur"]
                n += 1
                on += any(min(a + s, hi) - max(a, lo) >= 0.5 * min(s, hi - lo) for a, s in ok)
                away += any(a + s <= lo - 0.1 or a >= hi + 0.1 for a, s in ok)
            elif call["kind"] in ("wrong", "oov", "late"):
                inside = [w for w in ok if call["kind"] != "late"
                          or w[0] + w[1] <= call["flip_t"] + HESITATION_S]
                count = other.setdefault(call["kind"], [0, 0])
                count[0] += bool(inside)
                count[1] += 1
        rest = " | ".join(f"{k} {a}/{m}" for k, (a, m) in sorted(other.items()))
        lines.append(f"| {condition} | {fit:.2f} | {on}/{n} ({100 * on / max(n, 1):.1f} %) "
                     f"| {away}/{n} ({100 * away / max(n, 1):.1f} %) | {rest} |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--split", default="dev")
    ap.add_argument("--conditions", default="clean,white10,babble10,farfield_babble15")
    ap.add_argument("--gap", type=float, default=-0.3)
    args = ap.parse_args()
    rows = ["| condition | fit | right calls: accepted on the call | accepted away from it "
            "| wrong / out-of-range / late calls with a window accepted |",
            "|---|---|---|---|---|"]
    for condition in args.conditions.split(","):
        rows += report(condition, windows(args.data, args.split, condition), args.gap)
    print(f"\nSliding windows over each call's window, {args.split} split, gap <= {args.gap}")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
