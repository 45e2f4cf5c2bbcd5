"""The referee benchmark on human voices: Nasty 7 rounds spoken by real people.

Reads a human-voice set in the layout of ``../shared/human-calls/sessions``
(``DATA/<split>/<condition>/sNNN.jsonl`` + ``.wav``, ``DATA/<split>/truth.jsonl``;
``bench/humanset.py`` writes more of it). For each backend (``backends.py``),
in a worker process of its own (so its peak memory is its own), every session
is run as ``companion replay`` runs it, in-process: the session's recording is
streamed through the backend in real-time 30 ms frames (``referee.hear``: the
grammar is the game's ``listen_words``, which stay the same through a round
without phone cards), what it hears becomes ``say`` events on the table
clock, merged by time with the session's flips and tick (session events
first at the same time, as ``companion.replay``), and the real engine
(``Match``) rules on them. The project's ear keeps the callers' loudness
(``stream.CallLevels``: a mistake needs a word as loud as the recent sure
calls) from round to round of a condition, one evening per condition, as
``companion start`` keeps it all evening: a round's first call is judged
against the calls of the rounds before it, never against none.

Each call is judged against the truth as ``../shared/human-calls/tools/score.py``
judges it (``judge_session``; the one place this benchmark does so):

* a right call (a racketeer or twin racketeer said right, or a gun card
  kept silent) is right when a ``call_ok`` for that player and count is
  ruled in its window (its flip .. the next flip, or the tick) and no
  mistake is; a ``mistake`` there is a *false mistake*;
* a wrong number (1-7) or an out-of-range one (zero, eight, nine) is right
  when a ``wrong_number`` mistake is ruled for that player in its window; a
  late call (onset 3.3-3.8 s after the flip) when a ``hesitation`` is;
* a ruled mistake ends the round: calls flipped at or after it are *lost*
  (not right, and left out of every other figure).

Figures per backend, split and condition:

- *accuracy*: right verdicts over all calls (lost ones count as not right);
- *false mistakes*: right calls (reached) ruled any mistake;
- *missed mistakes*: wrong, out-of-range or late calls (reached) with no mistake;
- *wrong no. caught*: wrong and out-of-range numbers ruled ``wrong_number``;
- *no ruling*: calls reached with neither a ``call_ok`` nor a mistake;
- *onset error*: |the call's onset as the engine took it - the true onset|,
  ms, over spoken right calls ruled ``call_ok`` (median, 95th percentile);
  *onset early / late*: how many of those onsets were more than
  ``ONSET_SIDE_S`` before / after the true one. A late onset can make a
  call in time a hesitation (the 3-second rule runs to the onset); an
  early one can let a late call through;
- *latency*: from the true end of the call to the ruling, ms, over spoken
  calls whose ruling came from what was heard (not a deadline): frames
  arrive in real time, the backend works on each as soon as it is free,
  charged the CPU seconds it took (as on one otherwise idle core; the
  machine the benchmark runs on is shared, so its wall clock would charge
  other programs' work), and the engine's own time is added;
- *CPU RTF*: CPU seconds over audio seconds; *decoded s/s*: seconds of
  audio the project's ear handed its recognizers (every hearing: the
  first, the early endpoint's, the twin's, the confirmer's and the
  caller's adapted model's) per second of audio, which, unlike the CPU
  RTF on a shared machine, is the same from run to run of the same code;
  *peak MB*: the worker's peak resident memory.
"""

from __future__ import annotations

import contextlib
import json
import math
import subprocess
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

# This checkout's bench modules and companion, not the companion the environment
# installed (a worktree's run with another checkout's venv measured that one).
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import backends
import humanset

EPS = 1e-6
CONDITION_ORDER = ("clean", "white10", "kitchen10", "babble10", "babble5",
                   "farfield_babble15")
"""The order conditions are reported in; others follow by name."""
UNAVAILABLE = backends.UNAVAILABLE


def default_data() -> Path:
    """The shared human-voice sessions (``../shared/human-calls/sessions``)."""
    return humanset.human_calls_dir() / "sessions"


def conditions_in(data: Path, splits: Sequence[str]) -> list[str]:
    """The conditions that have sessions in every split, in report order."""
    found: set[str] | None = None
    for split in splits:
        here = {d.name for d in (data / split).iterdir()
                if d.is_dir() and any(d.glob("s*.jsonl"))}
        found = here if found is None else found & here
    rank = {c: i for i, c in enumerate(CONDITION_ORDER)}
    return sorted(found or set(), key=lambda c: (rank.get(c, len(rank)), c))


# -- judging ------------------------------------------------------------------------


def judge_session(truth: dict[str, Any], rulings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each call of ``truth`` (a line of ``truth.jsonl``) judged against the
    ``rulings`` of its replay (dicts with ``t``, ``type``, ``player`` and the
    ruling's fields; ``ready`` and ``onset`` when the benchmark knows them),
    as ``score.py`` judges it (module docstring). One dict per call:
    ``verdict`` (``right``, ``false_mistake``, ``no_ruling``, ``lost``,
    ``other_kind``, ``missed_accepted``, ``missed_no_ruling``), ``reached``,
    ``onset_err`` (its size), ``onset_offset`` (the onset taken less the
    true one: negative when early) and ``latency`` (s, or None)."""
    mistakes = [r for r in rulings if r["type"] == "mistake"]
    oks = [r for r in rulings if r["type"] == "call_ok"]
    out = []
    for c in truth["calls"]:
        lo, hi = c["flip_t"] - EPS, c["window_end"] + EPS
        reached = not any(m["t"] <= c["flip_t"] + EPS for m in mistakes)
        mine_ok = [r for r in oks if r["player"] == c["player"] and lo <= r["t"] <= hi
                   and r["count"] == c["count"]]
        mine_m = [m for m in mistakes if m["player"] == c["player"] and lo <= m["t"] <= hi]
        kind = c["kind"]
        if not reached:
            verdict = "lost"
        elif kind in ("right", "gun"):
            verdict = "false_mistake" if mine_m else "right" if mine_ok else "no_ruling"
        else:
            want = "hesitation" if kind == "late" else "wrong_number"
            if any(m["kind"] == want for m in mine_m):
                verdict = "right"
            elif mine_m:
                verdict = "other_kind"
            else:
                verdict = "missed_accepted" if mine_ok else "missed_no_ruling"
        first = (mine_m or mine_ok or [None])[0]
        onset_err = onset_offset = latency = None
        spoken_end = c["start_t"] + c["dur"] if c.get("start_t") is not None else None
        if reached and kind == "right" and verdict == "right" and mine_ok[0].get("onset"):
            onset_offset = mine_ok[0]["onset"] - c["onset_t"]
            onset_err = abs(onset_offset)
        if (reached and first is not None and first.get("ready") is not None
                and spoken_end is not None and kind != "late"):
            latency = first["ready"] - spoken_end
        out.append({"session": truth["session"], "idx": c["idx"], "kind": kind,
                    "card": c["card"], "reached": reached, "verdict": verdict,
                    "ok": bool(mine_ok), "mistake": bool(mine_m),
                    "onset_err": onset_err, "onset_offset": onset_offset,
                    "latency": latency})
    return out


# -- one backend over the set (a worker process) -------------------------------------


def replay_session(backend: backends.Backend, path: Path, trace: list[Any] | None = None,
                   levels: Any = None, takes: Any = None,
                   ) -> tuple[list[dict[str, Any]], float, float, float | None]:
    """Rulings of one session heard through ``backend`` (``rule``); the CPU
    seconds; the audio seconds; the seconds of audio the project's ear
    decoded (``metered``; None for a peer). The project's own ear (``backends.Project``)
    hears it exactly as ``companion replay`` does (``judge.hear_recording``:
    the call owed and the caller known after every event, the session's
    enrollment if it has one), metered per block (``metered``); peers
    stream it with the round's whole vocabulary (``referee.hear``).
    ``trace``: gets the project's ear's evidence and verdict of every
    utterance (``judge.EarSettings.trace``). ``levels``: the callers'
    loudness (``stream.CallLevels``) the project's ear starts the session
    with and adds to, as ``companion start`` keeps one all evening; None: a
    new one, as each ``companion replay`` has. ``takes``: the players'
    takes (``templates.Enrollment``) the ear starts with and learns into,
    kept over an evening whose seats keep their voices (``evening_takes``);
    None: the session's own."""
    import referee

    from companion.events import Audio
    from companion.games.base import Match
    from companion.session import load_session

    session = load_session(path)
    words = session.game.listen_words(Match(session.game).state)
    heard: list[tuple[Any, float]] = []
    cpu = seconds = 0.0
    decoded: float | None = None
    for ev in session.events:
        if isinstance(ev, Audio):
            x, rate = humanset.read_wav(Path(session.base_dir) / ev.path)
            if rate != backends.RATE:
                raise ValueError(f"{path}: audio at {rate} Hz, not {backends.RATE}")
            pcm = np.clip(np.round(x * 32768), -32768, 32767).astype("<i2")
            if isinstance(backend, backends.Project):
                items, spent, fed = metered(backend, session, ev, pcm, trace, levels, takes)
                decoded = (decoded or 0.0) + fed
            else:
                items, _, spent = referee.hear(backend, pcm, words, ev.t, clock="cpu")
            cpu += spent
            seconds += len(pcm) / rate
            heard += [(h.say, h.ready + ev.t) for h in items]
    return rule(session, heard), cpu, seconds, decoded


def metered(backend: Any, session: Any, audio: Any, pcm: np.ndarray,
            trace: list[Any] | None = None, levels: Any = None, takes: Any = None,
            ) -> tuple[list[Any], float, float]:
    """The project's ear on one recording, as ``companion replay`` hears it
    (``judge.hear_recording``), each block charged the CPU seconds it took
    as if one otherwise idle core did it all in turn, blocks arriving in
    real time: each say is ready when the block that produced it is done.
    The says with their ready times (clip seconds), the CPU seconds, and the
    seconds of audio handed to a recognizer (``Listener._words``, through
    which every hearing of the ear is decoded). ``trace``, ``levels``,
    ``takes``: as ``replay_session``'s."""
    import referee

    from companion.errors import EventError
    from companion.events import Audio
    from companion.games.base import Match
    from companion.referee.enrollment import count_words, load_enrollment
    from companion.referee.judge import EarSettings, hear_recording
    from companion.referee.stream import Listener
    from companion.voice.pack import load_pack

    meter = {"busy": 0.0, "fed": 0, "cpu": 0.0, "decoded": 0.0}
    ready: list[float] = []

    class Metered(Listener):
        def feed(self, block: Any, first_sample_time: float | None = None) -> Any:
            meter["fed"] += len(block)
            return self._charged(super().feed, block, first_sample_time)

        def flush(self) -> Any:
            return self._charged(super().flush)

        def _words(self, pcm: Any, *args: Any, **kwargs: Any) -> Any:
            meter["decoded"] += len(pcm) / self.rate
            return super()._words(pcm, *args, **kwargs)

        def _charged(self, work: Any, *args: Any) -> Any:
            before = time.process_time()
            out = work(*args)
            spent = time.process_time() - before
            meter["cpu"] += spent
            meter["busy"] = max(meter["busy"], meter["fed"] / self.device_rate) + spent
            ready.extend(meter["busy"] for _ in out)
            return out

    enrollment = None if session.enrollment is None else load_enrollment(
        session.enrollment, Path(session.base_dir),
        counted=count_words(load_pack("en").lexicon.number_word))
    if enrollment is not None:
        prepare_takes(enrollment)
    index = next(i for i, ev in enumerate(session.events) if ev is audio)
    match: Any = Match(session.game)  # as it stands when the recording starts
    for ev in session.events[:index]:
        if not isinstance(ev, Audio):
            with contextlib.suppress(EventError):
                match.apply(ev)
    says = hear_recording(backend.recognizer, pcm, backends.RATE, start=audio.t,
                          later=session.events[index + 1:], match=match,
                          settings=EarSettings(listener=Metered, trace=trace, levels=levels,
                                               enrollment=takes),
                          enrollment=enrollment)
    return ([referee.Heard(say, at) for say, at in zip(says, ready, strict=True)], meter["cpu"],
            meter["decoded"])


def prepare_takes(enrollment: Any) -> None:
    """What the ear derives from each player's takes once (their speech
    embeddings, ``embedding.prepare``, each word's spread,
    ``Enrollment.spread``, and the takes' noisy copies, ``templates.warm``,
    which the live table makes as a game starts), done before a round's
    audio and outside the meter: a table does it once an evening, but a set
    whose rounds each have takes of their own (``enrolled.py --at-table``)
    would otherwise charge it to every round's first calls."""
    from companion.referee import embedding, templates

    for player in list(enrollment.takes):
        embedding.prepare(enrollment, player)
        for word in enrollment.words(player):
            enrollment.spread(player, word)
    templates.warm([enrollment.voice(player, learnt=False) for player in enrollment.takes])


def rule(session: Any, heard: list[tuple[Any, float]]) -> list[dict[str, Any]]:
    """The engine's rulings on a session's own events (its ``audio`` left
    out) and the ``say`` events ``heard`` in it (each with the table time it
    was ready), merged by time, the session's events first at the same time
    (as ``companion.replay``). Dicts with ``ready`` (when the ruling could be
    made: the say's ready time plus the engine's; None for rulings on the
    session's own events) and, for ``call_ok``, ``onset`` (the call's onset
    as the engine took it)."""
    from companion.events import Audio, Say
    from companion.games.base import Match
    from companion.games.nasty7 import CallOk

    match: Any = Match(session.game)
    n = len(session.events)
    queue: list[tuple[float, int, Any, float | None]] = [
        (ev.t, 2 * i, ev, None) for i, ev in enumerate(session.events)
        if not isinstance(ev, Audio)]
    queue += [(say.t, 2 * (n + k) + 1, say, ready) for k, (say, ready) in enumerate(heard)]
    queue.sort(key=lambda e: (e[0], e[1]))
    rulings: list[dict[str, Any]] = []
    for _, _, ev, ready in queue:
        started = time.perf_counter()
        made = match.apply(ev)
        engine_s = time.perf_counter() - started
        for r in made:
            d = r.to_dict()
            d["ready"] = ready + engine_s if isinstance(ev, Say) and ready is not None else None
            call = match.state.call
            if isinstance(r, CallOk) and call is not None and call.onset is not None:
                d["onset"] = call.onset
            rulings.append(d)
    return rulings


def evening_takes(data: Path) -> Any:
    """A new ``templates.Enrollment`` to keep over one evening when the set
    keeps each seat's voice from round to round (``humanset.py
    --evening``: its ``SUMMARY.json`` says so), as ``companion start``
    keeps the voices page's takes and what the ear learns into them; None
    when the voices change seats between rounds (each round's own takes)."""
    from companion.referee.templates import Enrollment

    summary = data / "SUMMARY.json"
    evening = summary.is_file() and json.loads(summary.read_text()).get("evening", False)
    return Enrollment() if evening else None


def evening_levels() -> Any:
    """A new record of the callers' loudness (``stream.CallLevels``), to be
    kept over one evening."""
    from companion.referee.stream import CallLevels

    return CallLevels()


def run_worker(name: str, data: Path, splits: list[str], conditions: list[str], limit: int | None,
               result: Path) -> None:
    """Run backend ``name`` over the set; write its per-call records to ``result``."""
    backends.exit_if_unavailable(name)

    started = time.perf_counter()
    try:
        backend = backends.make(name)
    except ImportError as exc:
        print(f"{name}: not installed here ({exc})", file=sys.stderr)
        sys.exit(UNAVAILABLE)
    load_s = time.perf_counter() - started
    records, timing = [], []
    for split in splits:
        truths = {t["session"]: t for t in map(json.loads, (data / split / "truth.jsonl")
                                                .read_text().splitlines())}
        for condition in conditions:
            paths = sorted((data / split / condition).glob("s*.jsonl"))[:limit]
            # One evening per condition (or per evening of the set): the
            # callers' loudness carries from round to round, as the live
            # table keeps it (``companion.run``).
            levels = takes = evening = None
            for path in paths:
                if levels is None or truths[path.stem].get("evening") != evening:
                    # a new evening (``humanset.py --evening``): new seats, a new table
                    levels, takes = evening_levels(), evening_takes(data)
                    evening = truths[path.stem].get("evening")
                rulings, cpu, seconds, decoded = replay_session(backend, path, levels=levels,
                                                                takes=takes)
                for v in judge_session(truths[path.stem], rulings):
                    records.append({"split": split, "condition": condition, **v})
                timing.append({"split": split, "condition": condition, "session": path.stem,
                               "cpu": cpu, "seconds": seconds, "decoded": decoded})
            # after each condition, so a run cut short still has what it measured
            result.write_text(json.dumps({"backend": name, "load_s": load_s,
                                          "peak_mb": backends.peak_mb(), "records": records,
                                          "timing": timing}))
            print(f"{name} {split} {condition}: {len(paths)} sessions", file=sys.stderr,
                  flush=True)


def spawn(name: str, data: Path, splits: list[str], conditions: list[str], limit: int | None,
          work: Path) -> dict[str, Any]:
    """One backend's worker process; its results, or ``{"skipped": reason}``."""
    result = work / f"human-{name}-{'-'.join(splits)}.json"
    cmd = [sys.executable, str(Path(__file__).resolve()), name, str(data), ",".join(splits),
           ",".join(conditions), str(limit or 0), str(result)]
    run = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if run.returncode == UNAVAILABLE:
        return {"backend": name, "skipped": run.stderr.strip().splitlines()[-1]}
    if run.returncode != 0:
        print(f"the {name} worker failed:\n{run.stderr[-3000:]}", file=sys.stderr)
        last = (run.stderr.strip().splitlines() or ["no message"])[-1]
        return {"backend": name, "skipped": f"{name}: failed: {last}"}
    out: dict[str, Any] = json.loads(result.read_text())
    return out


def merged(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """One backend's results from its workers (one per split): records and
    timing joined, the largest peak memory and load time."""
    skipped = [p for p in parts if "skipped" in p]
    if skipped:
        return skipped[0]
    return {"backend": parts[0]["backend"], "load_s": max(p["load_s"] for p in parts),
            "peak_mb": max(p["peak_mb"] for p in parts),
            "records": [r for p in parts for r in p["records"]],
            "timing": [t for p in parts for t in p["timing"]]}


# -- figures ---------------------------------------------------------------------------


def _pct(num: int, den: int) -> str:
    return "n/a" if den == 0 else f"{100 * num / den:.1f}%"


def _ms(values: list[float], q: float) -> str:
    return "n/a" if not values else f"{1000 * float(np.percentile(values, q)):.0f}"


COLUMNS = ("sessions", "calls", "accuracy", "false mistakes", "missed mistakes",
           "wrong no. caught", "no ruling", "onset med ms", "onset p95 ms", "onset early / late",
           "latency med ms", "latency p95 ms", "CPU RTF", "decoded s/s")
"""The figures of a row of the human-voice table, in order."""

ONSET_SIDE_S = 0.06
"""Seconds an onset may be off either way before it counts as early or
late (issue 17's onset target is a 95th percentile of 60 ms)."""


def _sides(records: list[dict[str, Any]]) -> str:
    """The ``onset early / late`` figure of ``records``: how many onsets
    were more than ``ONSET_SIDE_S`` early, and late; n/a for records kept
    before the benchmark kept the onset's sign."""
    timed = [r for r in records if r["onset_err"] is not None]
    if any(r.get("onset_offset") is None for r in timed):
        return "n/a"
    early = sum(r["onset_offset"] < -ONSET_SIDE_S for r in timed)
    late = sum(r["onset_offset"] > ONSET_SIDE_S for r in timed)
    return f"{early} / {late}"


def summarize(records: list[dict[str, Any]], timing: list[dict[str, Any]]) -> dict[str, str]:
    """The figures of one row (``COLUMNS``)."""
    n = len(records)
    reached = [r for r in records if r["reached"]]
    right_calls = [r for r in reached if r["kind"] in ("right", "gun")]
    wrong = [r for r in reached if r["kind"] in ("wrong", "oov", "late")]
    numbers = [r for r in reached if r["kind"] in ("wrong", "oov")]
    onsets = [r["onset_err"] for r in records if r["onset_err"] is not None]
    lat = [r["latency"] for r in records if r["latency"] is not None]
    seconds = sum(t["seconds"] for t in timing)
    cpu = sum(t["cpu"] for t in timing) / seconds if seconds else math.nan
    fed = [t.get("decoded") for t in timing]
    decoded = ("n/a" if not seconds or any(f is None for f in fed)
               else f"{sum(f for f in fed if f is not None) / seconds:.2f}")
    return {
        "sessions": str(len(timing)), "calls": str(n),
        "accuracy": _pct(sum(r["verdict"] == "right" for r in records), n),
        "false mistakes": _pct(sum(r["verdict"] == "false_mistake" for r in right_calls),
                               len(right_calls)),
        "missed mistakes": _pct(sum(r["verdict"].startswith("missed") for r in wrong),
                                len(wrong)),
        "wrong no. caught": (_pct(sum(r["verdict"] == "right" for r in numbers), len(numbers))
                             + f" of {len(numbers)}"),
        "no ruling": _pct(sum(not r["ok"] and not r["mistake"] for r in reached), len(reached)),
        "onset med ms": _ms(onsets, 50), "onset p95 ms": _ms(onsets, 95),
        "onset early / late": _sides(records),
        "latency med ms": _ms(lat, 50), "latency p95 ms": _ms(lat, 95),
        "CPU RTF": f"{cpu:.3f}", "decoded s/s": decoded,
    }


def call_kind(record: dict[str, Any]) -> str:
    """A judged call's kind for the by-kind table: ``twin`` for a twin
    racketeer said right, else its truth kind."""
    if record["kind"] == "right" and record.get("card") == "twin_racketeer":
        return "twin"
    return str(record["kind"])


def _num(text: str) -> float:
    head = text.split()[0].rstrip("%")
    return math.nan if head == "n/a" else float(head)


TARGETS: dict[str, str] = {
    "false mistakes": "<= 0.5% every condition",
    "accuracy clean": ">= 98%", "accuracy white10": ">= 93%",
    "accuracy babble10": ">= 85%", "accuracy farfield_babble15": ">= 85%",
    "wrong no. caught clean": "100% (every wrong number caught)",
    "onset p95": "<= 60 ms", "latency median": "<= 150 ms every condition",
    "CPU RTF": "<= 0.1 every condition",
    "peak memory": "<= 150 MB",
}
"""Issue 17's targets on the human-voice set (every condition, the default recognizer)."""

ACCURACY_FLOORS = {"clean": 98.0, "white10": 93.0, "babble10": 85.0,
                   "farfield_babble15": 85.0}


def target_rows(res: dict[str, Any], split: str, conditions: list[str]) -> list[list[str]]:
    """Issue 17's targets beside one backend's figures on one split:
    figure, target, measured, met or not."""
    recs = [r for r in res["records"] if r["split"] == split]
    tims = [t for t in res["timing"] if t["split"] == split]

    def at(condition: str | None) -> dict[str, str]:
        return summarize([r for r in recs if condition in (None, r["condition"])],
                         [t for t in tims if condition in (None, t["condition"])])

    per = {c: at(c) for c in conditions}
    rows: list[list[str]] = []

    def add(what: str, target: str, measured: str, ok: bool) -> None:
        rows.append([what, target, measured, "met" if ok else "**not met**"])

    fms = {c: _num(per[c]["false mistakes"]) for c in conditions}
    add("false mistakes", TARGETS["false mistakes"],
        ", ".join(f"{c} {per[c]['false mistakes']}" for c in conditions),
        all(v <= 0.5 for v in fms.values()))
    for c, floor in ACCURACY_FLOORS.items():
        if c in per:
            add(f"accuracy, {c}", TARGETS[f"accuracy {c}"], per[c]["accuracy"],
                _num(per[c]["accuracy"]) >= floor)
    if "clean" in per:
        add("wrong numbers caught, clean", TARGETS["wrong no. caught clean"],
            per["clean"]["wrong no. caught"], _num(per["clean"]["wrong no. caught"]) >= 100)
    on = {c: _num(per[c]["onset p95 ms"]) for c in conditions}
    add("onset error p95", TARGETS["onset p95"],
        ", ".join(f"{c} {per[c]['onset p95 ms']}" for c in conditions),
        all(v <= 60 for v in on.values()))
    pooled = at(None)
    # The issue's targets hold in every condition: the worst one is judged
    # (a condition with no ruling timed has no median to judge).
    lat = {c: _num(per[c]["latency med ms"]) for c in conditions}
    slow = max(conditions, key=lambda c: -1.0 if math.isnan(lat[c]) else lat[c])
    add("ruling latency median", TARGETS["latency median"],
        f"{pooled['latency med ms']} ms all conditions; worst "
        f"{per[slow]['latency med ms']} ms ({slow})",
        all(math.isnan(v) or v <= 150 for v in lat.values()))
    rtf = {c: _num(per[c]["CPU RTF"]) for c in conditions}
    dear = max(conditions, key=lambda c: rtf[c])
    add("real-time factor (CPU)", TARGETS["CPU RTF"],
        f"{pooled['CPU RTF']} all conditions ({pooled['decoded s/s']} s of audio decoded "
        f"per s); worst {per[dear]['CPU RTF']} ({dear})",
        all(v <= 0.1 for v in rtf.values()))
    add("peak memory", TARGETS["peak memory"], f"{res['peak_mb']:.0f} MB",
        res["peak_mb"] <= 150)
    return rows


def report(results: list[dict[str, Any]], data: Path, splits: list[str],
           conditions: list[str], limits: dict[str, int | None]) -> str:
    """The human-voice section: the targets (default recognizer, per split),
    every figure per backend, split and condition, and peak memory."""
    from referee import markdown

    parts = [f"Human voices: {data} (splits {', '.join(splits)}; conditions "
             f"{', '.join(conditions)}).", ""]
    for res in results:
        if "skipped" in res:
            parts += [f"Skipped: {res['skipped']}", ""]
        elif limits.get(res["backend"]):
            parts += [f"{res['backend']}: the first {limits[res['backend']]} sessions per "
                      "split and condition.", ""]
    default = next((r for r in results if "skipped" not in r), None)
    if default is not None:
        for split in splits:
            parts += [f"Targets (issue 17) for the default recognizer, {default['backend']}, "
                      f"split {split}:", "",
                      markdown(["figure", "target", "measured", ""],
                               target_rows(default, split, conditions)), ""]
    rows, mem = [], []
    for res in results:
        if "skipped" in res:
            mem.append([res["backend"], "skipped", "", res["skipped"]])
            continue
        mem.append([res["backend"], f"{res['peak_mb']:.0f}", f"{res['load_s']:.2f}", ""])
        for condition in conditions:
            for split in splits:
                timing = [t for t in res["timing"]
                          if t["split"] == split and t["condition"] == condition]
                if not timing:
                    continue  # a run cut short (``report_kept``) never reached it
                s = summarize([r for r in res["records"]
                               if r["split"] == split and r["condition"] == condition], timing)
                rows.append([res["backend"], condition, split, *(s[c] for c in COLUMNS)])
    kinds = ("right", "twin", "gun", "wrong", "oov", "late")
    kind_rows = []
    for res in results:
        if "skipped" in res:
            continue
        for condition in conditions:
            recs = [r for r in res["records"] if r["condition"] == condition]
            if not recs:
                continue
            cells = []
            for k in kinds:
                sel = [r for r in recs if call_kind(r) == k]
                cells.append(f"{_pct(sum(r['verdict'] == 'right' for r in sel), len(sel))}"
                             f" of {len(sel)}")
            kind_rows.append([res["backend"], condition, *cells])
    parts += ["Human voices, every figure per backend, condition and split:", "",
              markdown(["backend", "condition", "split", *COLUMNS], rows), "",
              "Right verdicts by kind of call (splits pooled; twin: a twin racketeer said "
              "right; oov: zero, eight or nine):", "",
              markdown(["backend", "condition", *kinds], kind_rows), "",
              "Peak memory on human voices (resident, the worker) and load time:",
              "", markdown(["backend", "peak MB", "load s", "note"], mem)]
    return "\n".join(parts)


def section(names: list[str], data: Path, splits: list[str], conditions: list[str] | None,
            sessions: int | None, peer_sessions: int | None, jobs: int, work: Path) -> str:
    """Run every backend (the first is the default recognizer; the others,
    the peers, on at most ``peer_sessions`` sessions per split and
    condition) over the human-voice set: one worker process per backend and
    split, ``jobs`` at a time; the report."""
    conds = conditions or conditions_in(data, splits)
    limits: dict[str, int | None] = {}
    for i, name in enumerate(names):
        caps = [x for x in (sessions, None if i == 0 else peer_sessions) if x]
        limits[name] = min(caps) if caps else None
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
        futures = {(name, split): ex.submit(spawn, name, data, [split], conds, limits[name],
                                            work)
                   for name in names for split in splits}
        results = [merged([futures[(name, split)].result() for split in splits])
                   for name in names]
    return report(results, data, splits, conds, limits)


def report_kept(work: Path, data: Path, splits: list[str]) -> str:
    """The report from the worker results kept in ``work`` (``referee.py
    --keep``), complete or not: what a run cut short had measured."""
    parts: dict[str, list[dict[str, Any]]] = {}
    for path in sorted(work.glob("human-*.json")):
        res = json.loads(path.read_text())
        parts.setdefault(res["backend"], []).append(res)
    results = [merged(p) for p in parts.values()]
    conds = [c for c in conditions_in(data, splits)
             if any(r["condition"] == c for res in results for r in res["records"])]
    return report(results, data, splits, conds, {})


if __name__ == "__main__":
    if sys.argv[1] == "--report":
        print(report_kept(Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4].split(",")))
        sys.exit(0)
    name_, data_, splits_, conds_, limit_, result_ = sys.argv[1:7]
    run_worker(name_, Path(data_), splits_.split(","), conds_.split(","),
               int(limit_) or None, Path(result_))
