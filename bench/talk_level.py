"""Right calls in talk by the talk's own level during each call (local SNR).

The human table's talk conditions give the talk's level as one SNR over a
whole round, but people pause: each recording of ``talk/commands/`` ends
in seconds of silence, so some calls fall into a pause of the talk and
others under several people talking at once (at a round's start every
talker is mid-sentence). This splits the right calls of a run of the human
table by the SNR each call itself met: the call's active speech level
(``humanset.active_level``, over the take's own span) against the RMS
level of the condition's noise over the same span, both as the set mixed
them (``humanset.mix_parts``: the same round, the same noise, regenerated
from the set's seed). Prints, per split and condition, the right calls
ruled right per 3 dB band of local SNR, those in a pause of the talk (over
``PAUSED_DB``), and a round's first call against its later ones.

    python bench/referee.py --only human --human DATA --keep RUNS ...
    python bench/talk_level.py --data DATA --runs RUNS

``DATA``: the set the run replayed (``bench/humanset.py`` or
``bench/enrolled.py`` output: its ``SUMMARY.json`` gives the seed, the
rounds and the evenings); ``RUNS``: the ``--keep`` folder of that run
(``human-*.json``). The far field's rooms are read from ``--cache`` (the
generator's ``.rir-cache``) or simulated again (pyroomacoustics).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import humanset

PAUSED_DB = 30.0
"""A call this many dB or more over the noise during it was said in a pause
of the talk (the noise is then the -60 dBFS floor and little else)."""
BAND_DB = 3.0
"""Width of the local SNR bands, dB."""
TALK_CONDITIONS = ("babble10", "babble5", "kitchen10", "farfield_babble15")


def local_snrs(data: Path, split: str, condition: str, sessions: Iterable[str],
               raw: humanset.Raw, cache: Path) -> dict[tuple[str, int], float]:
    """Per right call ((session, call index)): its local SNR, dB."""
    summary = json.loads((data / "SUMMARY.json").read_text())
    out: dict[tuple[str, int], float] = {}
    for name in sessions:
        rnd = humanset.plan_round(raw, split, int(name[1:]), summary["seed"],
                                  summary.get("evening", 0))
        parts = humanset.mix_parts(rnd, raw, condition, summary["seed"], cache)
        for call in rnd.calls:
            if call.kind != "right" or call.start_t is None:
                continue
            a = round(call.start_t * humanset.RATE)
            b = a + round(call.dur * humanset.RATE)
            said = humanset.active_level(parts.speech[a:b])
            noise = (-200.0 if parts.noise is None
                     else humanset.rms_level(parts.noise[a:b]))
            out[(name, call.idx)] = said - noise
    return out


def band(snr: float) -> str:
    """The band label of a local SNR (dB)."""
    if snr >= PAUSED_DB:
        return "paused"
    lo = math.floor(snr / BAND_DB) * BAND_DB
    return f"{lo:+.0f}..{lo + BAND_DB:+.0f}"


def tables(records: list[dict[str, Any]], snrs: dict[tuple[str, str, str, int], float]) -> str:
    """The two Markdown tables: by local SNR band, and first call against later."""
    rows: dict[tuple[str, str], dict[str, list[int]]] = {}
    place: dict[tuple[str, str], dict[str, list[int]]] = {}
    for r in records:
        key = (r["split"], r["condition"], r["session"], r["idx"])
        if r["kind"] != "right" or key not in snrs:
            continue
        right = r["verdict"] == "right"
        cell = rows.setdefault(key[:2], {}).setdefault(band(snrs[key]), [0, 0])
        cell[0] += right
        cell[1] += 1
        where = "first" if r["idx"] == 0 else "later"
        p = place.setdefault(key[:2], {}).setdefault(where, [0, 0])
        p[0] += right
        p[1] += 1
    if not rows:
        return "No right calls of a talk condition in these runs."
    labels = sorted({b for cells in rows.values() for b in cells if b != "paused"},
                    key=lambda b: float(b.split("..")[0]))
    labels.append("paused")
    out = ["Right calls ruled right, by the local SNR (dB) each call met; "
           f"paused: {PAUSED_DB:g} dB or more (a pause of the talk).", "",
           "| split | condition | " + " | ".join(labels) + " |",
           "|---|---|" + "---|" * len(labels)]
    for (split, condition), cells in sorted(rows.items()):
        out.append(f"| {split} | {condition} | " + " | ".join(
            f"{cells[b][0]}/{cells[b][1]}" if b in cells else "-" for b in labels) + " |")
    out += ["", "A round's first call against its later ones (right calls ruled right).", "",
            "| split | condition | first call | later calls |", "|---|---|---|---|"]
    for (split, condition), p in sorted(place.items()):
        first, later = p.get("first", [0, 0]), p.get("later", [0, 0])
        out.append(f"| {split} | {condition} | {first[0]}/{first[1]} | {later[0]}/{later[1]} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, required=True, help="the set the run replayed")
    ap.add_argument("--runs", type=Path, required=True, help="referee.py's --keep folder")
    ap.add_argument("--raw", type=Path, default=humanset.DEFAULT_RAW)
    ap.add_argument("--cache", type=Path, default=None,
                    help="the generator's room cache (default: DATA/.rir-cache)")
    ap.add_argument("--conditions", default=",".join(TALK_CONDITIONS))
    args = ap.parse_args(argv)
    if not (args.data / "SUMMARY.json").is_file():
        ap.error(f"--data: no SUMMARY.json in {args.data} (a bench/humanset.py set)")
    runs = sorted(args.runs.glob("human-*.json"))
    if not runs:
        ap.error(f"--runs: no human-*.json in {args.runs} (bench/referee.py --keep)")
    records = [r for p in runs for r in json.loads(p.read_text())["records"]]
    wanted = set(args.conditions.split(","))
    raw = humanset.Raw(args.raw)
    cache = args.cache or args.data / ".rir-cache"
    snrs: dict[tuple[str, str, str, int], float] = {}
    cells = sorted({(r["split"], r["condition"]) for r in records if r["condition"] in wanted})
    for split, condition in cells:
        names = sorted({r["session"] for r in records
                        if r["split"] == split and r["condition"] == condition})
        for (name, idx), snr in local_snrs(args.data, split, condition, names, raw,
                                           cache).items():
            snrs[(split, condition, name, idx)] = snr
    print(tables(records, snrs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
