"""Microphone arrays (issue 18): one microphone against the steered arrays.

Renders seeded Nasty 7 rounds in the room simulation (bench/roomsim.py:
human FSDD calls of george, jackson and lucas, talk at other seats, kitchen
noise, RT60 0.45 s), replays each through the same ear as ``companion
replay`` (pocketsphinx; the callers' loudness kept from round to round of
an array and condition, as ``companion start`` keeps it all evening) heard
by one microphone (the 4-mic array's first channel), by the 4-mic USB array
and by the 6-mic HAT, and prints per array and condition:

- verdicts right: calls reached whose ruling is the truth's (``call_ok`` for
  a right call, a mistake for a wrong number);
- false mistakes: right calls ruled a mistake;
- wrong seat taken (``wrong_seat`` only): calls ruled ``call_ok`` before the
  caller spoke, i.e. on the other player's voice;
- seat found / seat wrong: the say starting nearest the word's onset in the
  call's take (``roomsim.CallTruth.speech_t``), from 0.3 s before the take's
  first sample to 0.3 s after that onset, given the caller's seat, or another
  seat (a seat is given only when sure);
- best seat right: the seat estimate's leading seat, sure or not
  (``SeatEstimate.player``), at the estimate the ear made nearest the
  word's onset less ``steered.WORD_LEAD_S`` (where a word's seat is
  measured), in the same window, the caller's: how often the estimate
  names the speaker, as the issue's room simulation counted it; the
  engines act on a seat only when it is sure;
- CPU of the beamformer and the seat estimate per second of audio (thread
  CPU time, this machine) and the latency they add.

    python bench/arrays.py --sessions 12 --seed 1

With ``--evidence FILE`` it also records, per round, array and condition,
one JSON line: the calls' truth (``roomsim.CallTruth``), the rulings, the
says (each with the seat the array gave it), and the evidence and verdict
of every utterance the ear decided (as ``companion.referee.decision`` saw
them). ``--redecide FILE`` renders
nothing: it decides that recorded evidence again with the decision as it
is now, and prints per array and condition the calls whose utterances it
would rule differently: how a change to the decision's rules moves the
simulated rooms, in seconds instead of a re-run.

    python bench/arrays.py --sessions 8 --seed 500 --enroll 3 --enroll-at-table \
        --evidence /tmp/ev-500.jsonl
    python bench/arrays.py --redecide /tmp/ev-500.jsonl

``run(...)`` returns the table's rows; bench/referee.py may call it.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any, ClassVar

# This checkout's bench modules and companion, not the companion the environment
# installed (a worktree's run with another checkout's venv measured that one).
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import roomsim
from ear_decision import plain, to_evidence

from companion.events import Say
from companion.games.base import Match
from companion.referee.beam import FRAME, HOP
from companion.referee.judge import EarSettings, audio_handler
from companion.referee.recognizer import Recognizer, open_recognizer
from companion.referee.steered import WORD_LEAD_S, SteeredEar
from companion.referee.stream import CallLevels
from companion.replay import replay
from companion.session import load_session
from companion.voice.pack import load_pack

ARRAYS = ("one", "usb4", "hat6")


@dataclass
class Cell:
    """Counts for one array and condition."""

    calls: int = 0
    right: int = 0
    right_calls: int = 0
    false_mistakes: int = 0
    no_ruling: int = 0
    wrong_seat_taken: int = 0
    seat_found: int = 0
    seat_wrong: int = 0
    seat_best: int = 0
    audio_s: float = 0.0
    stage_cpu_s: float = 0.0
    utterances: int = 0
    misses: list[str] = field(default_factory=list)
    detail: list[str] = field(default_factory=list)


class _Timed(SteeredEar):
    """A ``SteeredEar`` that adds its thread CPU time to ``spent``."""

    spent: ClassVar[list[float]] = [0.0]
    utterances: ClassVar[list[int]] = [0]
    estimates: ClassVar[list[tuple[float, str]]] = []  # (table s, leading seat), this replay

    def feed(self, block: Any, t: float | None = None) -> Any:
        t0 = time.thread_time()
        try:
            return super().feed(block, t)
        finally:
            self.spent[0] += time.thread_time() - t0

    def seat_of(self, onset: float) -> Any:
        t0 = time.thread_time()
        try:
            estimate = super().seat_of(onset)
        finally:
            self.spent[0] += time.thread_time() - t0
            self.utterances[0] += 1
        if estimate is not None:
            self.estimates.append((onset, estimate.player))
        return estimate


def _judge(rendered: roomsim.Rendered, rulings: list[Any], says: list[Say],
           cell: Cell, array: str, estimates: Sequence[tuple[float, str]] = ()) -> None:
    """Count ``rendered``'s calls into ``cell`` (see the module docstring):
    ``rulings`` and ``says`` of its replay, ``estimates`` the seat
    estimates the ear made in it (table seconds, leading seat)."""
    calls = rendered.calls
    for j, call in enumerate(calls):
        upto = calls[j + 1].flip_t if j + 1 < len(calls) else float("inf")
        verdict = next((r for r in rulings if r.type in ("call_ok", "mistake")
                        and getattr(r, "player", None) == call.player
                        and call.flip_t <= r.t <= upto + 1e-6), None)
        cell.calls += 1
        cell.right_calls += call.kind == "right"
        want = "call_ok" if call.kind == "right" else "mistake"
        if verdict is None:
            cell.no_ruling += 1
        elif verdict.type == want:
            cell.right += 1
        if call.kind == "right" and verdict is not None and verdict.type == "mistake":
            cell.false_mistakes += 1
            cell.misses.append(f"{rendered.path.name} {call.player} {verdict.kind}")
        taken = (call.prompt is not None and verdict is not None and verdict.type == "call_ok"
                 and verdict.t < call.onset_t - 0.15)
        cell.wrong_seat_taken += taken
        seat = best = None
        if array != "one":
            def near_call(t: float, call: roomsim.CallTruth = call) -> bool:
                # from the take's first sound to just after the word's onset in it
                return call.onset_t - 0.3 < t < call.speech_t + 0.3

            # the caller's say: the one starting nearest the call
            near = [s for s in says if near_call(s.t)]
            if near:
                seat = min(near, key=lambda s: abs(s.t - call.speech_t)).seat
                cell.seat_found += seat == call.player
                cell.seat_wrong += seat is not None and seat != call.player
            made = [(at, who) for at, who in estimates if near_call(at)]
            if made:
                _, best = min(made, key=lambda e: abs(e[0] - (call.speech_t - WORD_LEAD_S)))
                cell.seat_best += best == call.player
        unseated = array != "one" and (seat != call.player or best != call.player)
        if verdict is None or verdict.type != want or taken or unseated:
            ruled = ("none" if verdict is None
                     else f"{verdict.type} {verdict.t:.2f} {getattr(verdict, 'kind', '-')}")
            heard = " ".join(f"{s.t:.2f}-{s.end or 0:.2f}:{s.text}({s.confidence:.2f})@{s.seat}"
                             for s in says if call.flip_t - 1.0 <= s.t <= upto)
            prompt = (f" prompt {call.prompt[0]} {call.prompt[1]:.2f}-{call.prompt[2]:.2f}"
                      if call.prompt else "")
            cell.detail.append(
                f"{array} {rendered.path.name} call {j} {call.player} {call.kind} "
                f"'{call.said}' flip {call.flip_t:.2f} onset {call.onset_t:.2f}-{call.end_t:.2f}"
                f"{prompt}: {ruled}; seat {seat}; best seat {best}; says {heard}")
        if verdict is not None and verdict.type == "mistake":
            break  # the round ends: later calls are not reached


def _replay(path: Path, recognizer: Recognizer, pack: Any,
            trace: list[Any] | None = None,
            levels: CallLevels | None = None) -> tuple[list[Any], list[Say]]:
    session = load_session(path)
    handler = audio_handler(None, pack, recognizer=recognizer,
                            settings=EarSettings(trace=trace, levels=levels))
    heard: list[Say] = []

    def on_audio(event: Any, s: Any, match: Match[Any]) -> Any:
        out = handler(event, s, match)
        heard.extend(e for e in out if isinstance(e, Say))
        return out

    return list(replay(session, on_audio=on_audio)), heard


def run(sessions: int, seed: int, conditions: Iterable[str] = roomsim.CONDITIONS,
        arrays: Iterable[str] = ARRAYS, folder: Path | None = None,
        progress: Callable[[str], None] | None = None,
        enroll: int = 0, enroll_at_table: bool = False,
        evidence: IO[str] | None = None) -> dict[tuple[str, str], Cell]:
    """Render and judge ``sessions`` rounds per condition; the cells by
    ``(array, condition)``. ``enroll``: takes per word each player enrolled
    (0: none), as the files or, with ``enroll_at_table``, as heard at the
    table (``roomsim.render_session``). ``evidence``: where to write each
    replay's record (a JSON line; see the module docstring)."""
    import companion.referee.judge as judge

    judge.SteeredEar = _Timed  # type: ignore[misc]  # time the array stage
    pack = load_pack("en")
    recognizer = open_recognizer("pocketsphinx", pack)
    arrays = list(arrays)
    cells: dict[tuple[str, str], Cell] = {}
    # one evening per array and condition: the callers' loudness carries over
    levels: dict[tuple[str, str], CallLevels] = {}
    with tempfile.TemporaryDirectory() as tmp:
        base = folder or Path(tmp)
        for condition in conditions:
            for i in range(sessions):
                renders: dict[str, roomsim.Rendered] = {}
                for array in ("usb4", "hat6"):
                    if array in arrays or (array == "usb4" and "one" in arrays):
                        renders[array] = roomsim.render_session(
                            base, f"{condition}-{i}-{array}", condition=condition,
                            array=array, seed=seed * 1000 + i, enroll=enroll,
                            enroll_at_table=enroll_at_table)
                for array in arrays:
                    cell = cells.setdefault((array, condition), Cell())
                    rendered = renders["usb4" if array == "one" else array]
                    path = (roomsim.mono_copy(rendered, base, f"{condition}-{i}-one")
                            if array == "one" else rendered.path)
                    _Timed.spent[0], _Timed.utterances[0] = 0.0, 0
                    _Timed.estimates.clear()
                    trace: list[Any] | None = [] if evidence is not None else None
                    rulings, says = _replay(path, recognizer, pack, trace,
                                            levels.setdefault((array, condition), CallLevels()))
                    if evidence is not None and trace is not None:
                        evidence.write(json.dumps(_record(
                            seed, condition, i, array, rendered, rulings, trace, says)) + "\n")
                        evidence.flush()
                    cell.audio_s += rendered.seconds
                    cell.stage_cpu_s += _Timed.spent[0]
                    cell.utterances += _Timed.utterances[0]
                    _judge(rendered, rulings, says, cell, array, list(_Timed.estimates))
                if progress:
                    progress(f"{condition} {i + 1}/{sessions}")
    return cells


def _record(seed: int, condition: str, i: int, array: str, rendered: roomsim.Rendered,
            rulings: list[Any], trace: list[Any], says: list[Say]) -> dict[str, Any]:
    """One replay's evidence record (``--evidence``): the says carry the
    seat the array gave each voice."""
    return {"seed": seed, "condition": condition, "round": i, "array": array,
            "calls": [vars(c) for c in rendered.calls],
            "rulings": [json.loads(r.to_json()) for r in rulings],
            "says": [json.loads(s.to_json()) for s in says],
            "evidence": [{**plain(ev),
                          "calls": None if ev.calls is None else [list(c) for c in ev.calls],
                          "outcome": v.outcome}
                         for ev, v in trace]}


def redecide(paths: Iterable[Path]) -> str:
    """The recorded evidence (``--evidence`` files) decided again with
    today's ``decide``: per array and condition, the right calls one of
    whose utterances is now ruled a mistake (false mistakes) and the wrong
    calls caught so, each beside the recorded figure, then every call
    whose utterances' outcomes changed. An utterance belongs to the call
    whose flip it follows."""
    from companion.referee.decision import decide

    counts: dict[tuple[str, str], list[int]] = {}
    changes: list[str] = []
    for path in paths:
        for line in path.read_text().splitlines():
            rec = json.loads(line)
            calls = rec["calls"]
            c = counts.setdefault((rec["array"], rec["condition"]), [0] * 6)
            for j, call in enumerate(calls):
                upto = calls[j + 1]["flip_t"] if j + 1 < len(calls) else float("inf")
                inside = [e for e in rec["evidence"] if call["flip_t"] <= e["onset"] < upto]
                was = [e["outcome"] for e in inside]
                now = []
                for e in inside:
                    ev = to_evidence(e, None if e["expected"] is None else tuple(e["expected"]))
                    if e["calls"] is not None:
                        ev = replace(ev, calls=tuple(map(tuple, e["calls"])))
                    now.append(decide(ev).outcome)
                right = call["kind"] == "right"
                c[0 if right else 3] += 1
                c[1 if right else 4] += "mistake" in was
                c[2 if right else 5] += "mistake" in now
                if was != now:
                    changes.append(f"{rec['array']} {rec['condition']} seed {rec['seed']} "
                                   f"round {rec['round']} call {j} {call['player']} "
                                   f"{call['kind']} '{call['said']}': {was} -> {now}")
    rows = ["| array | condition | right calls | false mistakes, recorded -> now | "
            "wrong calls | caught, recorded -> now |", "|---|---|---|---|---|---|"]
    for (array, condition), c in sorted(counts.items()):
        rows.append(f"| {array} | {condition} | {c[0]} | {c[1]} -> {c[2]} | {c[3]} | "
                    f"{c[4]} -> {c[5]} |")
    return "\n".join([*rows, "", f"Calls whose outcomes changed: {len(changes)}", *changes])


def _pct(a: int, b: int) -> str:
    return f"{100 * a / b:.1f} % ({a}/{b})" if b else "-"


def table(cells: dict[tuple[str, str], Cell]) -> str:
    """The cells as a Markdown table."""
    rows = ["| array | condition | verdicts right | false mistakes | no ruling | "
            "wrong seat taken | seat found | seat wrong | best seat right | "
            "array CPU per s of audio |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for (array, condition), c in cells.items():
        cpu = (f"{1000 * c.stage_cpu_s / c.audio_s:.1f} ms ({100 * c.stage_cpu_s / c.audio_s:.2f} %"
               " of a core)" if array != "one" and c.audio_s else "-")
        wrong = _pct(c.wrong_seat_taken, c.calls) if condition == "wrong_seat" else "-"
        seat = _pct(c.seat_found, c.calls) if array != "one" else "-"
        seat_w = _pct(c.seat_wrong, c.calls) if array != "one" else "-"
        best = _pct(c.seat_best, c.calls) if array != "one" else "-"
        rows.append(f"| {array} | {condition} | {_pct(c.right, c.calls)} | "
                    f"{_pct(c.false_mistakes, c.right_calls)} | {_pct(c.no_ruling, c.calls)} | "
                    f"{wrong} | {seat} | {seat_w} | {best} | {cpu} |")
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=12, help="rounds per condition")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--conditions", default=",".join(roomsim.CONDITIONS))
    ap.add_argument("--arrays", default=",".join(ARRAYS))
    ap.add_argument("--keep", type=Path, help="keep the rendered sessions in this folder")
    ap.add_argument("--enroll", type=int, default=0, choices=(0, 1, 2, 3),
                    help="takes per word each player enrolled, the count words and the wrong "
                         "numbers past it (roomsim.ENROLLED; 0: no enrollment)")
    ap.add_argument("--enroll-at-table", action="store_true",
                    help="the takes as the companion hears them at setup (through the room "
                         "and the array steered at the player), not the clean files")
    ap.add_argument("--detail", action="store_true",
                    help="print every call not ruled right, not given its seat, or whose seat the "
                         "estimate nearest its word did not name")
    ap.add_argument("--evidence", type=Path,
                    help="also append every replay's evidence record to this file (JSON lines)")
    ap.add_argument("--redecide", type=Path, nargs="+", metavar="FILE",
                    help="render nothing: decide these --evidence files again and print "
                         "what changes")
    args = ap.parse_args()
    start = time.perf_counter()
    if args.redecide:
        missing = [str(f) for f in args.redecide if not f.is_file()]
        if missing:
            ap.error(f"--redecide: no such file: {', '.join(missing)}")
        print(redecide(args.redecide))
        return
    with (args.evidence.open("a") if args.evidence else nullcontext()) as out:
        cells = run(args.sessions, args.seed, args.conditions.split(","),
                    args.arrays.split(","), folder=args.keep,
                    progress=lambda s: print(s, file=sys.stderr, flush=True),
                    enroll=args.enroll, enroll_at_table=args.enroll_at_table,
                    evidence=out)
    enrolled = f", {args.enroll} enrolled takes a word" if args.enroll else ""
    if args.enroll and args.enroll_at_table:
        enrolled += " heard at the table"
    print(f"Microphone arrays: {args.sessions} rounds per condition, seed {args.seed}{enrolled}, "
          f"pocketsphinx; {platform.machine()} {platform.processor() or ''}".rstrip())
    print()
    print(table(cells))
    print()
    print(f"Added latency: the beam's STFT delay {1000 * (FRAME - HOP) / 16000:.0f} ms at "
          "16 kHz; the seat estimate runs once per utterance when it ends.")
    misses = [m for c in cells.values() for m in c.misses]
    if misses:
        print("False mistakes: " + "; ".join(misses))
    if args.detail:
        print()
        for c in cells.values():
            print("\n".join(c.detail))
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
