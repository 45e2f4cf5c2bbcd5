"""Give human-voice sessions the players' enrollment, as setup would record it.

Run from the project's root::

    .venv/bin/python bench/enrolled.py --out DIR [--data DIR] [--takes 3]

For every session of a human-voice set in ``tools/score.py``'s layout (the
shared ``../shared/human-calls/sessions`` by default, or ``bench/humanset.py``'s
output), writes the same session to ``DIR`` with an ``enrollment`` header
field: each player's takes of the count words "one" to "seven" and of the
wrong numbers the voices page also asks for ("zero", "eight", "nine";
``--extra ""`` for the count words alone), taken from that player's FSDD
speaker (the ground truth's ``voices``) at the takes kept
for enrollment (0 .. ``--takes``-1: never a take any session says). The WAVs
are linked, not copied; ``truth.jsonl`` and ``mix.jsonl`` come along, so
``score.py --data DIR`` scores the enrolled ear on exactly the same rounds.
Only the development speakers (george, jackson, lucas) are in the raw set.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HUMAN = ROOT.parent / "shared" / "human-calls"
COUNT_WORDS = ("one", "two", "three", "four", "five", "six", "seven")
WRONG_NUMBERS = ("zero", "eight", "nine")
"""The wrong numbers the voices page asks for besides the count words
(``companion.referee.enrollment.wrong_numbers``)."""
DIGIT = {w: i for i, w in enumerate(
    ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"))}


def enroll_set(data: Path, out: Path, takes: int, raw: Path,
               words: tuple[str, ...] = COUNT_WORDS) -> int:
    """Write the enrolled copy of ``data`` to ``out`` (each player's takes of
    ``words``); the number of sessions."""
    (out / "enroll").mkdir(parents=True, exist_ok=True)
    for word in words:
        for voice in ("george", "jackson", "lucas"):
            for k in range(takes):
                name = f"{DIGIT[word]}_{voice}_{k}.wav"
                link = out / "enroll" / name
                if not link.exists():
                    os.symlink((raw / name).resolve(), link)
    n = 0
    for split_dir in sorted(p for p in data.iterdir() if p.is_dir()):
        truth_file = split_dir / "truth.jsonl"
        if not truth_file.is_file():
            continue
        voices = {}
        for line in truth_file.read_text().splitlines():
            rec = json.loads(line)
            voices[rec["session"]] = {c["player"]: c["voice"] for c in rec["calls"]
                                      if c.get("voice")}
        (out / split_dir.name).mkdir(parents=True, exist_ok=True)
        shutil.copy(truth_file, out / split_dir.name / "truth.jsonl")
        for cond in sorted(p for p in split_dir.iterdir() if p.is_dir()):
            dest = out / split_dir.name / cond.name
            dest.mkdir(parents=True, exist_ok=True)
            for extra in cond.glob("*.jsonl"):
                if not extra.name.startswith("s"):
                    shutil.copy(extra, dest / extra.name)
            for session in sorted(cond.glob("s*.jsonl")):
                lines = session.read_text().splitlines()
                header = json.loads(lines[0])
                up = os.path.relpath(out / "enroll", dest)
                header["enrollment"] = {
                    player: {w: [f"{up}/{DIGIT[w]}_{voice}_{k}.wav" for k in range(takes)]
                             for w in words}
                    for player, voice in voices.get(session.stem, {}).items()}
                (dest / session.name).write_text(
                    "\n".join([json.dumps(header), *lines[1:]]) + "\n")
                for wav in cond.glob(f"{session.stem}*.wav"):
                    link = dest / wav.name
                    if not link.exists():
                        os.symlink(wav.resolve(), link)
                n += 1
    return n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--data", type=Path, default=HUMAN / "sessions")
    ap.add_argument("--takes", type=int, default=3, help="takes per word (FSDD takes 0..N-1)")
    ap.add_argument("--extra", default=",".join(WRONG_NUMBERS),
                    help="comma-separated words enrolled besides the count words "
                         "(FSDD digits: zero, eight, nine)")
    args = ap.parse_args()
    extra = tuple(w for w in args.extra.split(",") if w)
    if any(w not in DIGIT for w in extra):
        ap.error("--extra words must be FSDD digits (zero to nine)")
    if not 1 <= args.takes <= 3:
        ap.error("--takes must be 1 to 3: later takes are said in the sessions")
    words = COUNT_WORDS + tuple(w for w in extra if w not in COUNT_WORDS)
    n = enroll_set(args.data, args.out, args.takes, HUMAN / "raw" / "fsdd", words)
    print(f"{n} sessions with enrollment ({args.takes} takes a word) in {args.out}")


if __name__ == "__main__":
    main()
