"""The referee benchmark: how well each recognizer lets the companion judge Nasty 7 calls.

Run ``.venv/bin/python bench/referee.py`` (``--quick`` for a small run). It
first reports the human-voice set (``human.py``: real people's calls, judged
against their truth, with issue 17's targets beside the figures; ``--human``
picks the set, ``--human-splits`` its splits), then generated voices:

1. plans seeded trials per voice family (espeak-ng, Piper; see ``trials.py``),
   renders each call with ``companion.audio.synth`` and puts the same clips
   in five conditions: clean, a low noise floor, white noise at 10 dB SNR,
   table talk at 20 dB and at 10 dB SNR (the call's active speech level
   against the noise's level over the clip; see ``companion.audio.synth``);
2. runs every backend (``backends.py``) in its own subprocess, so peak memory
   (``VmHWM`` of that process: Python, numpy, the engine, the clips of one
   condition and the recognizer) does not mix between them; a ``baseline``
   worker that loads no recognizer shows what the rest costs;
3. streams each clip through the backend in 30 ms frames, turns what it hears
   into ``say`` events on the table clock and judges them with the real
   engine (``companion.games.nasty7`` through ``Match``). The project's ear
   is told the call owed after the trial's flip, by whom, as the live table
   tells it (``judge.expect``; peers only get the words to listen for).
   Each trial gets a fresh stream, but the project's ear keeps the callers' loudness
   (``CallLevels``) from one trial to the next, in the order run (per voice
   family, each condition in turn), as it keeps it through a game: a table
   is heard for hours, never one call cold;
4. prints Markdown tables: per backend, condition and voice family.
5. then (not with ``--quick``) the Cheat claims section of ``cheat_claims.py``:
   spoken claims judged by ``companion.games.cheat``, per backend and condition.

Figures:

- *accuracy*: the engine's verdict on the call equals the right one
  (``call_ok``, or a ``mistake`` of the right kind); a call left unsure
  counts as wrong.
- *false mistakes*: correct calls ruled any mistake, over correct calls.
- *missed mistakes*: wrong calls not ruled a mistake, over wrong calls.
- *onset error*: |onset the engine used - true onset| in ms, over calls with
  speech that were heard at all (median and 95th percentile).
- *RTF*: wall-clock compute seconds over audio seconds: how long the ear's
  thread was busy, what delays a ruling.
- *CPU RTF*: CPU seconds over audio seconds: what the device must have
  to spare. The target is judged on this one.
- *latency*: from the true end of the call to the ruling, ms. Frames arrive
  in real time (frame k at ``(k+1) x 30 ms``); the backend works on each as
  soon as it is free, taking the measured compute time, and the engine's
  own time is added. Over calls in time whose ruling came from what was
  heard (not from the hesitation deadline).
- *peak MB*: the benchmark worker process's peak resident memory.
"""

from __future__ import annotations

import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click
import numpy as np

# This checkout's bench modules and companion, not the companion the environment
# installed (a worktree's run with another checkout's venv measured that one).
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import backends
import trials as tr

from companion.audio.synth import Synth
from companion.events import Say

DEFAULT_BACKENDS = ("companion-pocketsphinx", "companion-vosk", "ps-lm", "whisper-tiny")
"""The backends of a full run, the default recognizer first."""

UNAVAILABLE = backends.UNAVAILABLE
"""A worker's exit status when its backend cannot be loaded here."""


# -- clips -------------------------------------------------------------------


def build_clips(out: Path, n: int, seed: int, rate: int) -> list[tr.Trial]:
    """Plan and render ``n`` trials per voice family in every condition;
    write ``manifest.json`` and one ``.npz`` per family and condition."""
    sy = Synth()
    planned: list[tr.Trial] = []
    for f_index, family in enumerate(tr.FAMILIES):
        fam_trials = []
        clean = []
        for i, trial in enumerate(tr.plan(n, family, seed=seed * 1000 + f_index)):
            trial, clip = tr.render(trial, sy, rate=rate, seed=seed * 7919 + i)
            fam_trials.append(trial)
            clean.append(clip)
        for c_index, condition in enumerate(tr.CONDITIONS):
            arrays = {t.id: tr.in_condition(c, condition, sy, seed=seed + 31 * i).audio
                      for i, (t, c) in enumerate(zip(fam_trials, clean, strict=True))}
            np.savez(out / f"{family}-{c_index}.npz", **arrays)  # type: ignore[arg-type]
        planned += fam_trials
    (out / "manifest.json").write_text(json.dumps(
        {"rate": rate, "trials": [t.to_dict() for t in planned]}))
    return planned


def load_manifest(clips: Path) -> tuple[int, list[tr.Trial]]:
    """The rate and trials of a clip folder."""
    data = json.loads((clips / "manifest.json").read_text())
    out = []
    for t in data["trials"]:
        t["words"], t["listen"] = tuple(t["words"]), tuple(t["listen"])
        out.append(tr.Trial(**t))
    return int(data["rate"]), out


# -- one backend, in a worker process -------------------------------------------


@dataclass
class Heard:
    """A ``say`` and the simulated time (clip seconds) it was ready."""

    say: Say
    ready: float


def hear(backend: backends.Backend, audio: np.ndarray, words: Sequence[str],
         t0: float, *, clock: str = "wall", match: Any = None,
         ) -> tuple[list[Heard], float, float]:
    """Stream ``audio`` through ``backend`` in real-time frames; the says it
    produced (table times, from clip time ``t0``), the wall-clock compute
    seconds and the CPU seconds. Early endpoints
    on, as The Nasty 7 asks (``Nasty7.early_endpoint``).

    ``clock``: what each frame's work is charged for the ready times (and so
    the latency): ``wall``, the wall-clock seconds it took; ``cpu``, the CPU
    seconds of this process, as if one otherwise idle core did it all in
    turn (an upper bound free of what other programs on a shared machine
    take). ``match``: the table after the trial's flip; the project's ear
    is told the call it owes (``backends.Project.expect``), peers are not."""
    cpu_started = time.process_time()
    backend.begin(words, early=True)
    if match is not None and isinstance(backend, backends.Project):
        backend.expect(match)
    frame = backends.FRAME
    busy = 0.0
    compute = 0.0
    out: list[Heard] = []

    def collect(items: list[backends.Heard], ready: float) -> None:
        out.extend(Heard(Say(t=max(0.0, t0 + h.onset), text=h.text, confidence=h.confidence,
                             end=max(0.0, t0 + h.end)), ready) for h in items)

    n_frames = len(audio) // frame
    for k in range(n_frames + 1):
        arrival = min((k + 1) * frame, len(audio)) / backends.RATE
        started = time.perf_counter()
        cpu_before = time.process_time() if clock == "cpu" else 0.0
        if k < n_frames:
            items = backend.feed(audio[k * frame:(k + 1) * frame].tobytes())
        else:
            items = backend.finish()
        spent = time.perf_counter() - started
        compute += spent
        charged = time.process_time() - cpu_before if clock == "cpu" else spent
        busy = max(arrival, busy) + charged
        collect(items, busy)
    return out, compute, time.process_time() - cpu_started


def run_worker(name: str, clips: Path, result: Path) -> None:
    """Run one backend over every clip; write per-trial records to ``result``."""
    rate, trials = load_manifest(clips)
    if rate != backends.RATE:
        raise click.UsageError(f"clips are at {rate} Hz; the backends take {backends.RATE} Hz")
    backends.exit_if_unavailable(name)
    started = time.perf_counter()
    backend: backends.Backend | None = None if name == "baseline" else backends.make(name)
    load_s = time.perf_counter() - started
    records = []
    for family in tr.FAMILIES:
        fam = [t for t in trials if t.family == family]
        for c_index, condition in enumerate(tr.CONDITIONS):
            with np.load(clips / f"{family}-{c_index}.npz") as data:
                audios = {t.id: data[t.id] for t in fam}
            for trial in fam:
                audio = audios[trial.id]
                if backend is None:
                    heard, compute, cpu = [], 0.0, 0.0
                else:
                    heard, compute, cpu = hear(backend, audio, trial.listen, trial.t0,
                                               match=tr.owed_match(trial))
                verdict = tr.judge(trial, [h.say for h in heard])
                latency = None
                if (verdict.by_say is not None and trial.end is not None
                        and trial.kind != "late"):
                    latency = heard[verdict.by_say].ready + verdict.engine_s - trial.end
                onset_err = None
                if trial.onset is not None and verdict.onset is not None:
                    onset_err = abs(verdict.onset - trial.onset)
                records.append({
                    "id": trial.id, "family": family, "condition": condition,
                    "kind": trial.kind, "expected": trial.expected, "verdict": verdict.verdict,
                    "heard": verdict.heard, "onset_err": onset_err, "latency": latency,
                    "compute": compute, "cpu": cpu, "seconds": len(audio) / rate,
                })
    result.write_text(json.dumps({"backend": name, "load_s": load_s,
                                  "peak_mb": backends.peak_mb(), "records": records}))


def spawn(name: str, clips: Path, work: Path) -> dict[str, Any]:
    """Run a worker subprocess for one backend; its results, or
    ``{"skipped": reason}`` when the backend cannot be loaded here or its
    worker fails (the failure goes to standard error; the run goes on)."""
    result = work / f"{name}.json"
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", name, "--clips",
           str(clips), "--result", str(result)]
    run = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if run.returncode == UNAVAILABLE:
        return {"backend": name, "skipped": run.stderr.strip().splitlines()[-1]}
    if run.returncode != 0:
        click.echo(f"the {name} worker failed:\n{run.stderr[-3000:]}", err=True)
        last = (run.stderr.strip().splitlines() or ["no message"])[-1]
        return {"backend": name, "skipped": f"{name}: failed: {last}"}
    out: dict[str, Any] = json.loads(result.read_text())
    return out


# -- report ------------------------------------------------------------------


def _pct(num: int, den: int) -> str:
    return "n/a" if den == 0 else f"{100 * num / den:.1f}%"


def _ms(values: list[float], q: float) -> str:
    return "n/a" if not values else f"{1000 * float(np.percentile(values, q)):.0f}"


def summarize(records: list[dict[str, Any]]) -> dict[str, str]:
    """The figures of one table row."""
    n = len(records)
    right = sum(r["verdict"] == r["expected"] for r in records)
    ok = [r for r in records if r["expected"] == "ok"]
    wrong = [r for r in records if r["expected"] != "ok"]
    false_m = sum(r["verdict"].startswith("mistake") for r in ok)
    missed = sum(not r["verdict"].startswith("mistake") for r in wrong)
    onsets = [r["onset_err"] for r in records if r["onset_err"] is not None]
    lat = [r["latency"] for r in records if r["latency"] is not None]
    seconds = sum(r["seconds"] for r in records)
    rtf = sum(r["compute"] for r in records) / seconds if seconds else 0.0
    cpu = sum(r["cpu"] for r in records) / seconds if seconds else 0.0
    return {"n": str(n), "accuracy": _pct(right, n), "false mistakes": _pct(false_m, len(ok)),
            "missed mistakes": _pct(missed, len(wrong)), "onset med ms": _ms(onsets, 50),
            "onset p95 ms": _ms(onsets, 95), "RTF": f"{rtf:.3f}", "CPU RTF": f"{cpu:.3f}",
            "latency med ms": _ms(lat, 50), "latency p95 ms": _ms(lat, 95)}


def markdown(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def target_rows(res: dict[str, Any]) -> list[list[str]]:
    """Issue 3's targets against one backend's figures (both voice families
    pooled): target, measured, met or not."""
    recs = res["records"]

    def pooled(condition: str | None = None) -> dict[str, str]:
        return summarize([r for r in recs if condition is None or r["condition"] == condition])

    def num(text: str) -> float:
        return float(text.rstrip("%")) if text != "n/a" else math.nan

    rows: list[list[str]] = []

    def add(what: str, target: str, measured: str, ok: bool) -> None:
        rows.append([what, target, measured, "met" if ok else "**not met**"])

    for condition, floor in (("clean", 99.0), ("white 10 dB", 97.0), ("table talk 10 dB", 95.0)):
        acc = pooled(condition)["accuracy"]
        add(f"accuracy, {condition}", f">= {floor:g}%", acc, num(acc) >= floor)
    worst = max(tr.CONDITIONS, key=lambda c: num(pooled(c)["false mistakes"]))
    fm = pooled(worst)["false mistakes"]
    add("false mistakes, worst condition", "<= 0.5%", f"{fm} ({worst})", num(fm) <= 0.5)
    worst_on = max(tr.CONDITIONS, key=lambda c: num(pooled(c)["onset p95 ms"]))
    on = pooled(worst_on)["onset p95 ms"]
    add("onset error p95, worst condition", "<= 60 ms", f"{on} ms ({worst_on})",
        num(on) <= 60)
    on_all = pooled()["onset p95 ms"]
    add("onset error p95, all conditions", "<= 60 ms", f"{on_all} ms", num(on_all) <= 60)
    all_ = pooled()
    add("ruling latency p95, all conditions", "<= 150 ms",
        f"{all_['latency p95 ms']} ms (median {all_['latency med ms']} ms)",
        num(all_["latency p95 ms"]) <= 150)
    add("real-time factor (CPU), all conditions", "<= 0.05",
        f"{all_['CPU RTF']} (wall clock {all_['RTF']})", num(all_["CPU RTF"]) <= 0.05)
    add("peak memory", "<= 150 MB", f"{res['peak_mb']:.0f} MB", res["peak_mb"] <= 150)
    return rows


def report(results: list[dict[str, Any]], n: int, seed: int) -> str:
    """The whole printed report."""
    cols = ["n", "accuracy", "false mistakes", "missed mistakes", "onset med ms",
            "onset p95 ms", "RTF", "CPU RTF", "latency med ms", "latency p95 ms"]
    rows, mem_rows, kind_rows = [], [], []
    kinds = list(tr.KINDS)
    for res in results:
        name = res["backend"]
        if "skipped" in res:
            mem_rows.append([name, "skipped", "", res["skipped"]])
            continue
        mem_rows.append([name, f"{res['peak_mb']:.0f}", f"{res['load_s']:.2f}", ""])
        if name == "baseline":
            continue
        recs = res["records"]
        for condition in tr.CONDITIONS:
            for family in tr.FAMILIES:
                sel = [r for r in recs if r["condition"] == condition and r["family"] == family]
                s = summarize(sel)
                rows.append([name, condition, family, *(s[c] for c in cols)])
        kind_rows.append([name, *(summarize([r for r in recs if r["kind"] == k])["accuracy"]
                                  for k in kinds)])
    parts = [
        f"Trials: {n} per voice family, each in {len(tr.CONDITIONS)} conditions; seed {seed}.",
        "",
    ]
    default = next((r for r in results if r["backend"] != "baseline" and "skipped" not in r),
                   None)
    for res in results:
        if "skipped" in res:
            parts += [f"Skipped: {res['skipped']}", ""]
    if default is not None:
        parts += [f"Targets (issue 3) for the default recognizer, {default['backend']}, "
                  "both voice families pooled:", "",
                  markdown(["figure", "target", "measured", ""], target_rows(default)), ""]
    parts += [
        "All figures per backend, condition and voice family:",
        "",
        markdown(["backend", "condition", "voices", *cols], rows),
        "",
        "Accuracy by kind of trial (all conditions and voices):",
        "",
        markdown(["backend", *kinds], kind_rows),
        "",
        "Peak memory (resident, the worker process) and model load time:",
        "",
        markdown(["backend", "peak MB", "load s", "note"], mem_rows),
    ]
    return "\n".join(parts)


def machine() -> str:
    """The machine this ran on, one line: CPU (model, family/model numbers,
    whether a hypervisor), cores, memory, Python, kernel, the date, and the
    load average when the run began (the cores may be shared)."""
    info: dict[str, str] = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            info.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    cpu = info.get("model name") or platform.processor() or "unknown CPU"
    if "cpu family" in info:
        cpu += f" (family {info['cpu family']}, model {info.get('model', '?')})"
    if "hypervisor" in info.get("flags", "").split():
        cpu += ", virtual machine"
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return (f"{cpu}, {os.cpu_count()} cores, {mem:.1f} GiB RAM, Python "
            f"{platform.python_version()}, {platform.system()} {platform.release()}, "
            f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, load average at start {load}")


@click.command()
@click.option("--quick", is_flag=True,
              help="A small run: 4 trials per voice family; 2 human sessions, clean only.")
@click.option("--trials", "n", type=click.IntRange(1, 1000), default=20, show_default=True,
              help="Trials per voice family (each in every condition).")
@click.option("--backends", "names", default=",".join(DEFAULT_BACKENDS), show_default=True,
              help="Comma-separated backends, the default recognizer first.")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the report (Markdown) to this file.")
@click.option("--keep", type=click.Path(file_okay=False, path_type=Path),
              help="Keep the clips and per-trial records (JSON) in this folder.")
@click.option("--claims", type=click.IntRange(0, 1000), default=None,
              help="Cheat claims per voice family for the claims section "
                   "(cheat_claims.py); default 4, none with --quick.")
@click.option("--only", type=click.Choice(["all", "human", "synthetic", "arrays"]),
              default="all", show_default=True, help="Which sections to run.")
@click.option("--array-sessions", type=click.IntRange(1, 1000), default=8, show_default=True,
              help="Rounds per condition of the microphone-array table (bench/arrays.py).")
@click.option("--human", "human_data", type=click.Path(file_okay=False, path_type=Path),
              default=None,
              help="The human-voice set (default: ../shared/human-calls/sessions; "
                   "bench/humanset.py writes larger ones).")
@click.option("--human-splits", default="dev", show_default=True,
              help="Comma-separated splits of the human-voice set.")
@click.option("--human-conditions", default=None,
              help="Comma-separated conditions (default: every one the set has).")
@click.option("--human-sessions", type=click.IntRange(1, 100000), default=None,
              help="At most this many sessions per split and condition (default: all).")
@click.option("--peer-sessions", type=click.IntRange(1, 100000), default=12, show_default=True,
              help="At most this many human sessions per split and condition for the peers.")
@click.option("--jobs", type=click.IntRange(1, 8), default=2, show_default=True,
              help="Backends run at once on the human-voice set.")
@click.option("--worker", hidden=True)
@click.option("--clips", hidden=True, type=click.Path(path_type=Path))
@click.option("--result", hidden=True, type=click.Path(path_type=Path))
def main(quick: bool, n: int, names: str, seed: int, out: Path | None, keep: Path | None,
         claims: int | None, only: str, human_data: Path | None, human_splits: str,
         human_conditions: str | None, human_sessions: int | None, peer_sessions: int,
         jobs: int, array_sessions: int, worker: str | None, clips: Path | None,
         result: Path | None) -> None:
    """Benchmark the speech referee against its peers: on human voices first,
    then on generated calls."""
    if worker:
        assert clips is not None and result is not None
        try:
            run_worker(worker, clips, result)
        except ImportError as exc:
            print(f"{worker}: not installed here ({exc})", file=sys.stderr)
            sys.exit(UNAVAILABLE)
        return
    if quick:
        n = 4
        human_sessions = human_sessions or 2
        human_conditions = human_conditions or "clean"
    chosen = [x.strip() for x in names.split(",") if x.strip()]
    started = time.perf_counter()
    where = machine()
    parts = [f"Machine: {where}", ""]
    with tempfile.TemporaryDirectory(prefix="referee-bench-") as tmp:
        work = Path(tmp) if keep is None else keep
        work.mkdir(parents=True, exist_ok=True)
        if only in ("all", "human"):
            import human

            data = human_data or human.default_data()
            splits = [x for x in human_splits.split(",") if x]
            for split in splits:
                if not (data / split / "truth.jsonl").is_file():
                    raise click.BadParameter(f"no {split}/truth.jsonl in {str(data)!r}",
                                             param_hint="--human/--human-splits")
            conds = ([x for x in human_conditions.split(",") if x] if human_conditions
                     else None)
            t = time.perf_counter()
            parts += [human.section(chosen, data, splits, conds, human_sessions, peer_sessions,
                                    jobs, work), ""]
            click.echo(f"human voices done in {time.perf_counter() - t:.0f} s", err=True)
        if only in ("all", "synthetic"):
            build_clips(work, n, seed, backends.RATE)
            click.echo(f"clips ready in {time.perf_counter() - started:.0f} s", err=True)
            results = []
            for name in ["baseline", *chosen]:
                t = time.perf_counter()
                results.append(spawn(name, work, work))
                click.echo(f"{name} done in {time.perf_counter() - t:.0f} s", err=True)
            parts += ["Synthetic voices (espeak-ng, Piper):", "", report(results, n, seed), ""]
    if only in ("all", "arrays") and not quick:
        import arrays

        t = time.perf_counter()
        cells = arrays.run(array_sessions, seed,
                           progress=lambda line: click.echo(line, err=True))
        parts += [f"Microphone arrays (simulated room, {array_sessions} rounds per "
                  f"condition, seed {seed}):", "", arrays.table(cells), ""]
        click.echo(f"arrays done in {time.perf_counter() - t:.0f} s", err=True)
    claims = (0 if quick else 4) if claims is None else claims
    if claims and only in ("all", "synthetic"):
        import cheat_claims

        parts += [cheat_claims.section(chosen, claims, seed), ""]
    text = "\n".join([*parts,
                      f"Wall time: {time.perf_counter() - started:.0f} s."])
    click.echo(text)
    if out is not None:
        out.write_text(text + "\n")

if __name__ == "__main__":
    main()
