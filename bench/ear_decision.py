"""The ear's decision on human voices: false mistakes against mistakes caught.

Run from the project's root::

    .venv/bin/python -m bench.ear_decision --runs DIR [--data DIR] [--jobs 2] [--kept]

It replays every session of the human-voice development set
(``../shared/human-calls/sessions``: real FSDD speakers, real table talk;
``--data`` for another set in the same layout) through the project's ear
(``companion.referee.judge``, the default recognizer), keeps the evidence
of every utterance the decision stage saw (``companion.referee.decision``),
and then re-decides that evidence at each operating point of a sweep of the
``mistake`` threshold, with the call owed taken from the ground truth of the
call whose window the utterance starts in. Per condition it prints:

* *false mistakes*: correct calls (a right number said, or a silent gun
  card) with an utterance in their window the decision rules a mistake,
  over correct calls;
* *caught*: wrong calls (a wrong number, or "zero"/"eight"/"nine") with an
  utterance in their window the decision rules a mistake, over wrong calls;
* *right*: correct calls with an utterance the decision rules right.

With ``--kept`` the sessions are heard as the benchmark's human table
hears them (``bench/human.py``): one recognizer kept over every condition
of the split, condition after condition and session after session (as a
table keeps it all evening: pocketsphinx carries its noise estimate from
one decode to the next), in one process; without it each session gets a
fresh recognizer, as each ``companion replay`` of ``tools/score.py`` has.
The two hear some utterances differently, so a line of the decision is
best checked on both.

Each call is scored on its own (a mistake ends a round, and what follows
in a replay is left out here): ``tools/score.py`` of the human set gives the
whole replay's figures at the chosen point: the rulings of these replays
are kept in ``--runs`` in its layout (``score.py --reuse --runs DIR``),
with the evidence, and reused when there (delete them after a change).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = next((p for p in (ROOT / ".." / "shared" / "human-calls" / "sessions",
                         ROOT / ".." / ".." / "shared" / "human-calls" / "sessions")
             if p.is_dir()), ROOT / ".." / "shared" / "human-calls" / "sessions")
CONDITIONS = ("clean", "white10", "babble10", "farfield_babble15")
SWEEP = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1.01)
"""The ``mistake`` thresholds swept (1.01: no mistake by ear at all)."""
SNR_GATES = (0.0, 20.0, 28.0)
"""The ``clear_snr_db`` values swept (0: no SNR gate)."""


def evidence_of(job: tuple[str, str]) -> list[dict[str, Any]]:
    """Replay one session; the evidence of each utterance as plain data.
    Its rulings go to ``runs`` in ``tools/score.py``'s layout (reused from
    there when that file holds evidence already)."""
    path, runs = job
    out_file = Path(runs) / f"{Path(path).stem}.out.jsonl"
    if out_file.exists():
        kept = json.loads(out_file.read_text())
        if "evidence" in kept:
            return list(kept["evidence"])
    from companion.referee.judge import EarSettings, audio_handler
    from companion.referee.recognizer import open_recognizer
    from companion.replay import replay_all
    from companion.session import load_session
    from companion.voice.pack import load_pack

    pack = load_pack("en")
    # A fresh recognizer for every session, as each
    # ``companion replay`` of tools/score.py has: pocketsphinx carries its
    # noise estimate from one decode to the next, so a recognizer kept from
    # session to session made a session's evidence depend on which sessions
    # this pool process had replayed before it.
    recognizer = open_recognizer(None, pack, notice=False)
    trace: list[Any] = []
    session = load_session(Path(path))
    t0 = time.perf_counter()
    done = replay_all(session, on_audio=audio_handler(None, pack, recognizer=recognizer,
                                                      settings=EarSettings(trace=trace)))
    wall = time.perf_counter() - t0
    return _write_run(out_file, wall, [json.loads(r.to_json()) for r in done.rulings], trace)


def _write_run(out_file: Path, wall: float, rulings: list[dict[str, Any]],
               trace: list[Any]) -> list[dict[str, Any]]:
    """Write one session's replay to ``out_file`` in ``tools/score.py``'s
    layout, with the evidence and verdict of each utterance of ``trace``
    (``EarSettings.trace``: ``(Evidence, Verdict)`` pairs) as plain data;
    returns that evidence. ``wall``: the replay's seconds."""
    out = [{**plain(ev), "outcome": verdict.outcome} for ev, verdict in trace]
    out_file.parent.mkdir(parents=True, exist_ok=True)
    out_file.write_text(json.dumps({
        "session": out_file.name.removesuffix(".out.jsonl"), "rc": 0,
        "wall_s": round(wall, 3), "stderr": "", "rulings": rulings, "evidence": out}) + "\n")
    return out


def kept_evidence(data: Path, runs: Path, conditions: list[str],
                  limit: int | None = None) -> list[dict[str, Any]]:
    """The evidence rows of ``collect``, heard with one recognizer kept over
    every session of ``data``'s dev split, condition after condition in the
    order given, each condition's sessions in order (the first ``limit``;
    None: all), as ``bench/human.py`` hears them. Each session's rulings and
    evidence go to ``runs`` as ``evidence_of`` writes them; the callers'
    loudness is kept from session to session of a condition, as there; a condition
    whose files are all there is read back instead, and every condition
    after one heard anew is heard anew too (the recognizer's state is the
    evening's so far)."""
    sys.path.insert(0, str(ROOT / "bench"))
    import backends
    import human

    backend: Any = None
    rows: list[dict[str, Any]] = []
    fresh = False
    for cond in conditions:
        paths = sorted((data / "dev" / cond).glob("s*.jsonl"))[:limit]
        outs = [runs / "dev" / cond / f"{p.stem}.out.jsonl" for p in paths]
        done = [json.loads(o.read_text()) if o.exists() else {} for o in outs]
        if not fresh and all("evidence" in d for d in done):
            for p, d in zip(paths, done, strict=True):
                rows += [{"condition": cond, "session": p.stem, **rec} for rec in d["evidence"]]
            continue
        fresh = True
        if backend is None:
            backend = backends.make("companion-pocketsphinx")
        levels = human.evening_levels()  # the callers' loudness, kept all evening
        for p, out_file in zip(paths, outs, strict=True):
            trace: list[Any] = []
            t0 = time.perf_counter()
            rulings, *_ = human.replay_session(backend, p, trace, levels=levels)
            recs = _write_run(out_file, time.perf_counter() - t0, rulings, trace)
            rows += [{"condition": cond, "session": p.stem, **rec} for rec in recs]
        print(f"{cond}: {len(paths)} sessions heard", file=sys.stderr, flush=True)
    return rows


WORDS = ("words", "decoded")
"""The ``Evidence`` fields that hold recognized words (kept as lists)."""


def plain(ev: Any) -> dict[str, Any]:
    """An ``Evidence`` as JSON data: every field, words as ``[text, start,
    end, confidence]``, word sets and tuples as lists (``calls`` left out:
    the sweep takes the call owed from the ground truth)."""
    out: dict[str, Any] = {}
    for f in fields(ev):
        value = getattr(ev, f.name)
        if f.name == "calls":
            continue
        if f.name in WORDS:
            value = [[w.text, w.start, w.end, w.confidence] for w in value]
        elif isinstance(value, frozenset):
            value = sorted(value)
        elif isinstance(value, tuple):
            value = list(value)
        out[f.name] = value
    return out


def to_evidence(rec: dict[str, Any], expected: tuple[str, ...]) -> Any:
    """The ``Evidence`` of a recorded utterance (``plain``; fields an older
    record lacks take their defaults) with the call owed ``expected``."""
    from companion.referee.decision import Evidence
    from companion.referee.recognizer import Word

    kept = {f.name for f in fields(Evidence)} - {"expected", "calls"}
    given = {k: v for k, v in rec.items() if k in kept}
    for name in WORDS:
        given[name] = tuple(Word(*w) for w in given.get(name, ()))
    given["enrolled"] = frozenset(given.get("enrolled", ()))
    given["heard_only"] = frozenset(given.get("heard_only", ()))
    return Evidence(**given, expected=expected)


def collect(data: Path, runs: Path, conditions: list[str], jobs: int) -> list[dict[str, Any]]:
    todo = [(cond, p) for cond in conditions
            for p in sorted((data / "dev" / cond).glob("s*.jsonl"))]
    with ProcessPoolExecutor(max_workers=jobs) as ex:
        got = list(ex.map(evidence_of, [(str(p), str(runs / "dev" / cond)) for cond, p in todo]))
    rows = []
    for (cond, p), recs in zip(todo, got, strict=True):
        for rec in recs:
            rows.append({"condition": cond, "session": p.stem, **rec})
    return rows


TEMPLATE_SWEEP = ((-0.1, 0.3, 0.5), (-0.1, 0.5, 0.5), (-0.1, 0.5, 0.8), (-0.1, 0.8, 0.5),
                  (-0.3, 0.5, 0.5), (-0.5, 0.5, 0.5), (-0.1, 1.0, 0.9))
"""``(template_right, template_mistake, mistake_enrolled)`` points swept on
sessions with enrollment (``bench/enrolled.py``)."""
EMBEDDING_SWEEP = (-0.2, -0.15, -0.12, -0.1, -0.08, -0.06, -0.04, -0.02, 0.0)
"""``embedding_right`` points swept on sessions with enrollment (-inf: the
speech embedding never finds a call)."""
EMBEDDING_MISTAKE_SWEEP = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3)
"""``embedding_mistake`` points swept likewise (inf: three witnesses never
make a mistake)."""


def curve(rows: list[dict[str, Any]], truth: dict[str, Any], conditions: list[str],
          points: tuple[float, ...], snr: float | None = None,
          ) -> list[tuple[float, str, int, int, int, int, int]]:
    """Per point and condition: (threshold, condition, correct calls, false
    mistakes, wrong calls, caught, right); ``snr``: the ``clear_snr_db``
    (None: the default's)."""
    from companion.referee.decision import DEFAULT

    return [(point, *row) for point in points for row in score(
        rows, truth, conditions, replace(DEFAULT, mistake=point, mistake_silent=point,
                                         clear_snr_db=DEFAULT.clear_snr_db if snr is None
                                         else snr))]


def score(rows: list[dict[str, Any]], truth: dict[str, Any], conditions: list[str],
          th: Any) -> list[tuple[str, int, int, int, int, int]]:
    """Per condition at thresholds ``th``: (condition, correct calls, false
    mistakes, wrong calls, caught, right)."""
    return [row[:6] for row in score_all(rows, truth, conditions, th)]


def score_all(rows: list[dict[str, Any]], truth: dict[str, Any], conditions: list[str],
              th: Any) -> list[tuple[str, int, int, int, int, int, int, int]]:
    """``score``'s figures, then wrong calls with a right verdict among
    their window's utterances (taken for the call owed), and late calls so
    (the late call itself heard as the call, which the engine then rules
    late by its onset, or an utterance before it taken for the call, which
    would hide the hesitation: the human table's late column tells them
    apart)."""
    from companion.referee.decision import decide

    out = []
    for cond in conditions:
        n_right = fm = n_wrong = caught = right = taken = late_taken = 0
        for sess, t in truth.items():
            recs = [r for r in rows if r["condition"] == cond and r["session"] == sess]
            for c in t["calls"]:
                inside = [r for r in recs if c["flip_t"] <= r["onset"] < c["window_end"]]
                expected = () if c["card"] == "gun" else tuple(c["expected"].split())
                verdicts = [decide(to_evidence(r, expected), th).outcome for r in inside]
                if c["kind"] == "late":
                    late_taken += "right" in verdicts
                    continue
                if c["kind"] in ("right", "gun"):
                    n_right += 1
                    fm += "mistake" in verdicts
                    right += "right" in verdicts and "mistake" not in verdicts
                else:
                    n_wrong += 1
                    caught += "mistake" in verdicts
                    taken += "right" in verdicts
        out.append((cond, n_right, fm, n_wrong, caught, right, taken, late_taken))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--conditions", default=",".join(CONDITIONS))
    ap.add_argument("--runs", type=Path, required=True,
                    help="where each session's rulings and evidence are kept (and reused)")
    ap.add_argument("--kept", action="store_true",
                    help="one recognizer kept over every condition, as bench/human.py "
                         "hears the set (one process; --jobs unused)")
    a = ap.parse_args()
    conditions = a.conditions.split(",")
    if a.kept:
        rows = kept_evidence(a.data, a.runs, conditions)
    else:
        rows = collect(a.data, a.runs, conditions, a.jobs)
    lines = (a.data / "dev" / "truth.jsonl").read_text().splitlines()
    truth = {t["session"]: t for t in map(json.loads, lines)}
    from companion.referee.decision import DEFAULT

    print(f"Operating point: mistake {DEFAULT.mistake}, clear_snr_db {DEFAULT.clear_snr_db}, "
          f"caller_db {DEFAULT.caller_db}\n")
    print("| clear SNR gate dB | mistake threshold | condition | correct calls "
          "| false mistakes | wrong calls | caught | decided right |")
    print("|---|---|---|---|---|---|---|---|")
    for snr in SNR_GATES:
        for point, cond, n_right, fm, n_wrong, caught, right in curve(rows, truth, conditions,
                                                                      SWEEP, snr):
            print(f"| {snr:.0f} | {point:.2f} | {cond} | {n_right} "
                  f"| {fm} ({100 * fm / max(n_right, 1):.1f} %) "
                  f"| {n_wrong} | {caught} ({100 * caught / max(n_wrong, 1):.0f} %) "
                  f"| {100 * right / max(n_right, 1):.0f} % |")
    if any(r.get("template_gap") is not None for r in rows):
        print("\nWith enrolled takes (the other thresholds at the operating point):\n")
        print("| template_right | template_mistake | mistake_enrolled | condition "
              "| correct calls | false mistakes | wrong calls | caught | decided right |")
        print("|---|---|---|---|---|---|---|---|---|")
        for right_at, mistake_at, bar in TEMPLATE_SWEEP:
            th = replace(DEFAULT, template_right=right_at, template_mistake=mistake_at,
                         mistake_enrolled=bar)
            for cond, n_right, fm, n_wrong, caught, right in score(rows, truth, conditions, th):
                print(f"| {right_at} | {mistake_at} | {bar} | {cond} | {n_right} "
                      f"| {fm} ({100 * fm / max(n_right, 1):.1f} %) "
                      f"| {n_wrong} | {caught} ({100 * caught / max(n_wrong, 1):.0f} %) "
                      f"| {100 * right / max(n_right, 1):.0f} % |")
        print("\nThe speech embedding finding the call (``embedding_right``; the other "
              "thresholds at the operating point):\n")
        print("| embedding_right | condition | correct calls | decided right | false mistakes "
              "| wrong calls | taken for the call | late calls with one ruled right |")
        print("|---|---|---|---|---|---|---|---|")
        for point in (-math.inf, *EMBEDDING_SWEEP):
            th = replace(DEFAULT, embedding_right=point)
            for cond, n_right, fm, n_wrong, _, right, taken, late in score_all(
                    rows, truth, conditions, th):
                print(f"| {point} | {cond} | {n_right} | {right} "
                      f"({100 * right / max(n_right, 1):.1f} %) | {fm} | {n_wrong} "
                      f"| {taken} | {late} |")
        print("\nThree witnesses of a wrong number (``embedding_mistake``; the other "
              "thresholds at the operating point):\n")
        print("| embedding_mistake | condition | correct calls | false mistakes "
              "| wrong calls | caught |")
        print("|---|---|---|---|---|---|")
        for point in (*EMBEDDING_MISTAKE_SWEEP, math.inf):
            th = replace(DEFAULT, embedding_mistake=point)
            for cond, n_right, fm, n_wrong, caught, *_ in score_all(rows, truth, conditions, th):
                print(f"| {point} | {cond} | {n_right} | {fm} | {n_wrong} "
                      f"| {caught} ({100 * caught / max(n_wrong, 1):.0f} %) |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
