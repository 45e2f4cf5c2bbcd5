"""Would a free phone loop make the pocketsphinx ear's confidences better?

The ear once decoded every utterance a second time with pocketsphinx's
``allphone`` search (any English phone after any other, with the bundled
phone language model) and scored each game word by the gap between the two
acoustic scores over the word's frames. This benchmark decodes human calls
(FSDD, the dev speakers george, jackson and lucas, every second take,
resampled to 16 kHz, 0.3 s of quiet each side) with The Nasty 7's grammar
as ``SphinxRecognizer`` does, and with such a phone loop, and prints:

1. the phone loop's acoustic score per frame over the first game word's
   frames, as pocketsphinx reports it, beside the word's own;
2. how well each candidate confidence tells a right first word (the digit
   said) from a wrong one: the area under the ROC curve (the chance that a
   right word scores above a wrong one; 0.5 is no better than a coin), for
   the word's lattice posterior, the ear's confidence, the word's own
   acoustic score per frame, and the gap to the phone loop as reported and
   with the phone loop's scores multiplied by 1,024 (pocketsphinx's
   ``SENSCR_SHIFT``: its allphone search keeps scores in the search's
   internal units, its grammar search gives them in the log base's).

Conditions: clean (the recognizer's -60 dBFS floor), white noise at 10 dB
SNR, and the human-calls kitchen recording at 10 dB SNR (seeded).

    python bench/phone_loop_gap.py
"""

from __future__ import annotations

import argparse
import math
import platform
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import soxr
from sphinx_cost import DEV_SPEAKERS, FSDD, HUMAN, WORDS  # the same takes and grammar

from companion.referee import sphinx_decoder
from companion.referee.judge import read_wav
from companion.referee.recognizer import Spellings
from companion.referee.sphinx_backend import SphinxRecognizer, with_floor, word_confidence
from companion.voice.pack import load_pack

KITCHEN = HUMAN / "raw" / "talk" / "kitchen.wav"
DIGITS = WORDS[:10]
SHIFT = 1024
"""pocketsphinx's ``1 << SENSCR_SHIFT``."""

Row = tuple[bool, float, float, float, float]
"""A first word: right, posterior, the ear's confidence, its acoustic
score per frame, the phone loop's over the same frames (nats)."""


def _resampled(path: Path) -> np.ndarray:
    x, rate = read_wav(path)
    return np.asarray(soxr.resample(x.astype(np.float32), rate, 16000), dtype=np.float64)


def _mixed(speech: np.ndarray, condition: str, rng: np.random.Generator,
           kitchen: np.ndarray) -> bytes:
    pad = np.zeros(4800)
    x = np.concatenate([pad, speech, pad])
    power = float(np.mean(speech ** 2))
    if condition == "white10":
        x = x + rng.normal(0.0, math.sqrt(power / 10), len(x))
    elif condition == "kitchen10":
        a = int(rng.integers(0, len(kitchen) - len(x)))
        noise = kitchen[a:a + len(x)]
        x = x + noise * math.sqrt(power / 10 / float(np.mean(noise ** 2)))
    pcm = np.clip(np.round(x), -32768, 32767).astype(np.int16)
    return with_floor(pcm, -60.0).tobytes()


def _span(path: list[sphinx_decoder.Seg], start: int, end: int) -> float:
    """A best path's acoustic score over frames start..end, sharing each
    entry's score by the fraction of its frames inside."""
    total = 0.0
    for _, a, b, score, _ in path:
        overlap = min(b, end) - max(a, start) + 1
        if overlap > 0:
            total += score * overlap / (b - a + 1)
    return total


def _auc(right: list[float], wrong: list[float]) -> float:
    r, w = np.asarray(right), np.asarray(wrong)
    return float(np.mean([(x > w).mean() + 0.5 * (x == w).mean() for x in r]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--every", type=int, default=2, help="take every N-th FSDD take [2]")
    args = parser.parse_args()
    import pocketsphinx

    rec = SphinxRecognizer(Spellings.from_pack(load_pack("en")))
    rec.set_vocabulary(list(WORDS))
    loop = sphinx_decoder.one_word_decoder()
    loop.add_allphone_file("phones", pocketsphinx.get_model_path("en-us/en-us-phone.lm.bin"))
    loop.activate_search("phones")
    takes = sorted(p for p in FSDD.glob("*.wav") if p.stem.split("_")[1] in DEV_SPEAKERS)
    takes = takes[::args.every]
    kitchen = _resampled(KITCHEN)
    machine = platform.processor() or platform.machine()
    print(f"{len(takes)} FSDD takes of the dev speakers; {machine}, "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print()
    print("| condition | first words right / wrong | phone loop, nats per frame over the word "
          "(min / median / max) | the word's own (min / median / max) | AUC: posterior | "
          "the ear's confidence | word score | gap as reported | gap, phone loop x 1,024 | "
          "grammar / phone loop CPU x real time |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for condition in ("clean", "white10", "kitchen10"):
        rng = np.random.default_rng(17)
        rows: list[Row] = []
        grammar_s = loop_s = audio_s = 0.0
        for take in takes:
            digit = int(take.stem.split("_")[0])
            raw = _mixed(_resampled(take), condition, rng, kitchen)
            audio_s += len(raw) / 32000
            t0 = time.process_time()
            rec._decoder.activate_search(rec._search)
            grammar = sphinx_decoder.best_path(rec._decoder, raw)
            t1 = time.process_time()
            phones = sphinx_decoder.best_path(loop, raw)
            t2 = time.process_time()
            grammar_s, loop_s = grammar_s + t1 - t0, loop_s + t2 - t1
            words = [s for s in grammar if not s[0].startswith(("<", "[", "+"))]
            if not words:
                continue
            name, a, b, score, posterior = words[0]
            frames = b - a + 1
            rows.append((name.split("(")[0] == DIGITS[digit], posterior,
                         word_confidence(rec.settings, score, frames, posterior), score / frames,
                         _span(phones, a, b) / frames))
        right = [r for r in rows if r[0]]
        wrong = [r for r in rows if not r[0]]
        free = np.array([r[4] for r in rows])
        own = np.array([r[3] for r in rows])

        def auc(feature: Callable[[Row], float], right: list[Row] = right,
                wrong: list[Row] = wrong) -> str:  # higher = surer
            return f"{_auc([feature(r) for r in right], [feature(r) for r in wrong]):.3f}"

        print(f"| {condition} | {len(right)} / {len(wrong)} | "
              f"{free.min():+.4f} / {np.median(free):+.4f} / {free.max():+.4f} | "
              f"{own.min():.2f} / {np.median(own):.2f} / {own.max():.2f} | "
              f"{auc(lambda r: r[1])} | {auc(lambda r: r[2])} | {auc(lambda r: r[3])} | "
              f"{auc(lambda r: r[3] - r[4])} | {auc(lambda r: r[3] - SHIFT * r[4])} | "
              f"{grammar_s / audio_s:.3f} / {loop_s / audio_s:.3f} |")


if __name__ == "__main__":
    main()
