"""What making the takes' noisy copies as a game starts costs, and what it saves.

Run: ``.venv/bin/python bench/warm_copies.py [--players N]``. Prints figures;
asserts nothing.

Each player's takes are real human recordings (the FSDD development
speakers george, jackson and lucas of ``../shared/human-calls``, digits 0-9
as the count words and the wrong numbers past them, three takes a word,
resampled to 16 kHz; a fourth player takes the next three recordings of
the first speaker, and so on). Measured in one process:

- ``templates.warm`` over all the players (as ``VoiceSetup.load``'s thread
  runs it when a game starts): copies made, CPU and wall seconds, and the
  bytes the copies hold;
- the first call heard in noise at one step (16 dB over its floor), its
  caller's takes compared with it (``Enrollment.match``) without the copies
  made ahead and with them: the CPU seconds that call waits, per player.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt
import soxr

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import humanset

from companion.referee import templates
from companion.referee.judge import mono_of, read_wav_channels

SPEAKERS = ("george", "jackson", "lucas")
WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
TAKES = 3


def recording(digit: int, speaker: str, take: int) -> npt.NDArray[np.int16]:
    """An FSDD recording at ``templates.RATE`` Hz, 16-bit mono."""
    path = humanset.human_calls_dir() / "raw" / "fsdd" / f"{digit}_{speaker}_{take}.wav"
    pcm, rate = read_wav_channels(path)
    return np.asarray(soxr.resample(mono_of(pcm), rate, templates.RATE), dtype=np.int16)


def voice_of(k: int) -> dict[str, list[npt.NDArray[np.int16]]]:
    """Player ``k``'s takes: ``{word: [pcm, ...]}``."""
    speaker, first = SPEAKERS[k % len(SPEAKERS)], (k // len(SPEAKERS)) * TAKES
    return {w: [recording(d, speaker, first + i) for i in range(TAKES)]
            for d, w in enumerate(WORDS)}


def fresh_cache() -> None:
    """Forget every copy kept, as a new process would."""
    templates._copies = templates.Kept(templates.COPIES_KEPT)


def first_call_cpu(voices: list[dict[str, list[npt.NDArray[np.int16]]]],
                   call: npt.NDArray[np.int16], snr_db: float) -> list[float]:
    """CPU seconds of ``Enrollment.match`` for each player's first call (a
    new enrollment of the player's takes: none of its own copies made)."""
    out = []
    for k, voice in enumerate(voices):
        enrollment = templates.enrollment_of({f"p{k}": voice})
        t0 = time.process_time()
        enrollment.match(f"p{k}", ["two"], call, snr_db=snr_db)
        out.append(time.process_time() - t0)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=5)
    args = ap.parse_args()
    # the takes as an enrollment keeps them (a take too short to be a word is not kept)
    voices = [templates.enrollment_of({"p": voice_of(k)}).voice("p", learnt=False)
              for k in range(args.players)]
    call = recording(2, "george", 40)
    snr_db = 16.0

    fresh_cache()
    cold = first_call_cpu(voices, call, snr_db)

    fresh_cache()
    t0, c0 = time.perf_counter(), time.process_time()
    made = templates.warm(voices)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    held = sum(v.nbytes for v in templates._copies._items.values())
    warm = first_call_cpu(voices, call, snr_db)

    print(f"Noisy copies made as a game starts: {args.players} players, {len(WORDS)} words, "
          f"{TAKES} takes each; {platform.machine()}, Python {platform.python_version()}")
    print()
    print("| figure | value |")
    print("|---|---|")
    print(f"| copies made (budget {int(templates.COPIES_KEPT * templates.WARM_SHARE)}) | {made} |")
    print(f"| CPU s / wall s to make them | {cpu:.2f} / {wall:.2f} |")
    print(f"| memory the copies hold | {held / 1e6:.1f} MB |")
    print(f"| a first call's takes compared at {snr_db:g} dB, copies not made ahead: "
          f"CPU ms per player, median (max) | {1000 * statistics.median(cold):.0f} "
          f"({1000 * max(cold):.0f}) |")
    print(f"| the same with the copies made ahead | {1000 * statistics.median(warm):.0f} "
          f"({1000 * max(warm):.0f}) |")


if __name__ == "__main__":
    main()
