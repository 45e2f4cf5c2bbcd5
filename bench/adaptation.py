"""Players' adapted acoustic models: what they hear, and what they cost.

For each development speaker (FSDD george, jackson, lucas), a model is
adapted from the speaker's takes 0-2 of the ten digits (what a player
enrolls; ``companion.referee.adaptation``), and the speaker's takes 3-29
(never enrolled, 270 per speaker) are decoded one word at a time, as the
ear's recognizer decodes (``SphinxRecognizer``: The Nasty 7's number words
zero to twelve), with the bundled model and with the speaker's adapted one,
clean and in white noise at ``--snr`` dB. Prints words heard right, the
most common confusions, the wall and CPU seconds of building one
player's model (the tools run as child processes; their CPU is counted),
and the wall seconds until all three players' models are built in the
background, as the live table builds them when a game starts, by one
builder and by two (``Adapter(wait=False, builders=...)``).

    python bench/adaptation.py [--snr 10] [--takes 27]
"""

from __future__ import annotations

import argparse
import collections
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

# This checkout's bench modules and companion, not the companion the environment
# installed (a worktree's run with another checkout's venv measured that one).
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from evening import machine
from humanset import Raw

from companion.referee.adaptation import Adapter
from companion.referee.recognizer import Recognizer, Spellings
from companion.referee.sphinx_backend import SphinxRecognizer

HUMAN = Path(__file__).resolve().parents[2] / "shared" / "human-calls"
FSDD = HUMAN / "raw" / "fsdd"
SPEAKERS = ("george", "jackson", "lucas")
DIGITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
VOCABULARY = [*DIGITS, "ten", "eleven", "twelve"]
PAD = 4800
"""Samples (0.3 s at 16 kHz) of silence each side of a take, as the
recognizer's own floor fills them."""


def take(raw: Raw, word: str, speaker: str, k: int) -> np.ndarray:
    """An FSDD take at 16 kHz on the 16-bit scale (``bench/humanset.py``'s
    reader, which keeps each take it has read)."""
    return raw.take(f"{DIGITS.index(word)}_{speaker}_{k}.wav").astype(np.float64) * 32768.0


def heard(raw: Raw, recognizer: Recognizer, speaker: str, takes: range, snr: float | None,
          confusions: collections.Counter[tuple[str, str]]) -> int:
    """How many of ``speaker``'s ``takes`` of the digits come out as the word said."""
    rng = np.random.default_rng(5)
    right = 0
    for word in DIGITS:
        for k in takes:
            x = np.concatenate([np.zeros(PAD), take(raw, word, speaker, k), np.zeros(PAD)])
            if snr is not None:
                power = float(np.mean(x[PAD:-PAD] ** 2))
                x = x + rng.normal(0.0, np.sqrt(power / 10 ** (snr / 10)), len(x))
            words = recognizer.decode(np.clip(x, -32768, 32767).astype(np.int16))
            got = words[0].text if words else "-"
            right += got == word
            if got != word:
                confusions[(word, got)] += 1
    return right


def share(k: int, n: int) -> str:
    return f"{k}/{n} ({100 * k / n:.1f} %)"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--snr", type=float, default=10.0, help="white noise SNR (dB) of the noisy run")
    ap.add_argument("--takes", type=int, default=27, help="takes per digit decoded (3, 4, ...)")
    args = ap.parse_args(argv)
    if not FSDD.is_dir():
        print(f"bench/adaptation.py: no FSDD recordings at {FSDD}", file=sys.stderr)
        return 2
    raw = Raw(HUMAN / "raw")
    takes = range(3, 3 + max(1, min(args.takes, 47)))
    print(f"Adapted models, {machine()}")
    print(f"Decoded: takes {takes.start}-{takes.stop - 1} of each digit per speaker; "
          f"adapted from takes 0-2.\n")
    bundled = SphinxRecognizer(Spellings())
    bundled.set_vocabulary(VOCABULARY)
    rows = []
    builds = []
    confusions: dict[tuple[str, str | None], collections.Counter[tuple[str, str]]] = (
        collections.defaultdict(collections.Counter))
    with tempfile.TemporaryDirectory(prefix="adapt-bench-") as folder:
        adapter = Adapter(Path(folder))
        adapter.base()  # the bundled model as the tools read it: made once, not per player
        for speaker in SPEAKERS:
            enrolled = {w: [take(raw, w, speaker, k) for k in range(3)] for w in DIGITS}
            wall, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
            own = time.process_time()
            model = adapter.model(enrolled)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
                   + time.process_time() - own)
            builds.append((speaker, time.perf_counter() - wall, cpu))
            assert model is not None
            adapted = bundled.adapted(model)
            adapted.follow(bundled)
            for snr in (None, args.snr):
                n = len(DIGITS) * len(takes)
                a = heard(raw, bundled, speaker, takes, snr, confusions[("bundled", str(snr))])
                b = heard(raw, adapted, speaker, takes, snr, confusions[("adapted", str(snr))])
                rows.append((speaker, "clean" if snr is None else f"white {snr:g} dB", a, b, n))
    print("| speaker | condition | bundled model | adapted model |")
    print("|---|---|---|---|")
    totals: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0, 0])
    for speaker, cond, a, b, n in rows:
        print(f"| {speaker} | {cond} | {share(a, n)} | {share(b, n)} |")
        t = totals[cond]
        t[0], t[1], t[2] = t[0] + a, t[1] + b, t[2] + n
    for cond, (a, b, n) in totals.items():
        print(f"| all | {cond} | {share(a, n)} | {share(b, n)} |")
    print("\nMost common confusions (said -> heard):")
    for (model_name, snr), counter in confusions.items():
        cond = "clean" if snr == "None" else f"white {float(snr):g} dB"
        top = ", ".join(f"{a}->{b} {c}" for (a, b), c in counter.most_common(5)) or "none"
        print(f"- {model_name}, {cond}: {top}")
    print("\n| speaker | build wall s | build CPU s (tools included) |")
    print("|---|---|---|")
    for speaker, wall_s, cpu_s in builds:
        print(f"| {speaker} | {wall_s:.2f} | {cpu_s:.2f} |")
    print(f"\n| builders | all {len(SPEAKERS)} players' models built in the background, wall s |")
    print("|---|---|")
    for builders in (1, 2):
        print(f"| {builders} | {background(raw, builders):.2f} |")
    return 0


def background(raw: Raw, builders: int) -> float:
    """Wall seconds until every development speaker's model (takes 0-2 of
    each digit) is built in the background by ``builders`` builders, in a
    fresh folder (its converted bundled model made beforehand)."""
    with tempfile.TemporaryDirectory(prefix="adapt-bench-") as folder:
        adapter = Adapter(Path(folder), wait=False, builders=builders)
        adapter.base()
        players = [{w: [take(raw, w, speaker, k) for k in range(3)] for w in DIGITS}
                   for speaker in SPEAKERS]
        wall = time.perf_counter()
        for enrolled in players:
            adapter.model(enrolled)
        adapter.idle()
        wall = time.perf_counter() - wall
        assert all(adapter.model(enrolled) is not None for enrolled in players)
    return wall


if __name__ == "__main__":
    raise SystemExit(main())
