"""How long a player's first witnessed call waits for their takes' speech embeddings.

Run: ``.venv/bin/python bench/first_call.py [--runs N]``. Prints figures;
asserts nothing.

The ear asks the speech embedding (``companion.referee.embedding``) about
a call it is unsure of, comparing it with each of the caller's takes. The
takes' embeddings are kept by content; the first call that needs a
player's takes made all of them, and waited for them. Now the voices page
embeds a take as it is kept, and a game that loads kept takes embeds them
in a thread of its own (``embedding.warm``). For each development speaker
(FSDD george, jackson, lucas; takes 0-2 of the ten digits, 30 takes, as
the voices page asks for them; a call from take 40 of "two"), with the
embeddings' cache emptied before each run (a fresh process), it times:

- *cold*: the first ``witness`` with nothing embedded (as before);
- *warm*: ``warm`` of the player's takes (the work now done at setup or
  in the background), then the first ``witness``.

Times are CPU seconds of this process (``time.process_time``) and wall
seconds (``time.perf_counter``), medians over the runs.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import soxr

from companion.referee import embedding
from companion.referee.blas import one_thread
from companion.referee.judge import mono_of, read_wav_channels
from companion.referee.templates import RATE, Enrollment, Kept

FSDD = Path(__file__).resolve().parents[2] / "shared" / "human-calls" / "raw" / "fsdd"
VOICES = ("george", "jackson", "lucas")
DIGITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def read(digit: int, voice: str, k: int) -> np.ndarray:
    """FSDD's take ``k`` of ``digit`` by ``voice`` at ``RATE`` Hz, int16."""
    pcm, rate = read_wav_channels(FSDD / f"{digit}_{voice}_{k}.wav")
    x = soxr.resample(mono_of(pcm).astype(np.float64), rate, RATE)
    return np.clip(np.round(x), -32768, 32767).astype(np.int16)


def timed(work: Callable[..., object], *args: object) -> tuple[float, float]:
    """(CPU s, wall s) of ``work(*args)``."""
    cpu, wall = time.process_time(), time.perf_counter()
    work(*args)
    return time.process_time() - cpu, time.perf_counter() - wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if not embedding.available():
        raise SystemExit("the speech-embedding model is not installed")
    one_thread()  # as the ear runs it
    print(f"Machine: {platform.processor() or platform.machine()}, Python "
          f"{platform.python_version()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
          f", {args.runs} runs each\n")
    print("| voice | takes | cold: first call, CPU s | cold: wall s | warm: the takes, CPU s "
          "| warm: first call, CPU s | warm: wall s |")
    print("|---|---|---|---|---|---|---|")
    embedding.embed(read(2, "george", 41))  # the model's weights read once, outside the runs
    for voice in VOICES:
        enrollment = Enrollment()
        takes = []
        for d, word in enumerate(DIGITS):
            for k in range(3):
                x = read(d, voice, k)
                if enrollment.add("Abby", word, x):
                    takes.append(x)
        call = read(2, voice, 40)
        cold, warm, first = [], [], []
        for _ in range(args.runs):
            embedding._takes = Kept(embedding.TAKES_KEPT)  # a fresh process's cache
            cold.append(timed(embedding.witness, enrollment, "Abby", ["two"], call))
            embedding._takes = Kept(embedding.TAKES_KEPT)
            warm.append(timed(embedding.warm, takes))
            first.append(timed(embedding.witness, enrollment, "Abby", ["two"], call))

        def med(xs: list[tuple[float, float]], i: int) -> str:
            return f"{statistics.median(x[i] for x in xs):.3f}"

        print(f"| {voice} | {len(takes)} | {med(cold, 0)} | {med(cold, 1)} | {med(warm, 0)} "
              f"| {med(first, 0)} | {med(first, 1)} |")


if __name__ == "__main__":
    main()
