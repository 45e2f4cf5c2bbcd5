"""The players' adapted models kept on disk: what pruning the cache costs.

A live table keeps the ``KEEP_MODELS`` adapted models used most recently and
prunes the rest after each build (``companion.referee.adaptation.prune``),
in its builder thread. An appliance that ran before pruning existed may hold
hundreds. This builds one real model (george's takes 0-2 of the ten digits,
with the CMU Sphinx tools) in a fresh cache folder, then gives it ``--models``
siblings made as a build makes a model (its means and variances copied, its
other files linked to the bundled model's copy), each last used a minute
after the one before, and prints: the disk the models hold, the wall and CPU
seconds of pruning them to ``KEEP_MODELS``, and of a prune with nothing to
remove (every later build's).

    python bench/model_cache.py [--models 150]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from evening import machine
from first_call import timed
from humanset import Raw

from companion.referee.adaptation import KEEP_MODELS, Adapter, kept_models, prune

HUMAN = Path(__file__).resolve().parents[2] / "shared" / "human-calls"
DIGITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def siblings(model: Path, n: int) -> list[str]:
    """``n`` models beside ``model``, made as a build settles one, each
    used a minute after the one before (the real model last)."""
    names = []
    for k in range(n):
        name = f"{k:020x}"
        out = model.parent / name
        out.mkdir()
        for f in model.iterdir():
            if f.name in ("means", "variances"):
                shutil.copy(f, out / f.name)
            else:
                os.link(f, out / f.name)
        os.utime(out, (1_700_000_000 + 60 * k,) * 2)
        names.append(name)
    return names


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", type=int, default=150, help="models in the cache before pruning")
    args = ap.parse_args(argv)
    raw = Raw(HUMAN / "raw")
    takes = {w: [raw.take(f"{d}_george_{k}.wav").astype(np.float64) * 32768.0 for k in range(3)]
             for d, w in enumerate(DIGITS)}
    with tempfile.TemporaryDirectory(prefix="companion-cache-") as folder:
        root = Path(folder)
        model = Adapter(root).model(takes)
        assert model is not None
        siblings(model, args.models - 1)
        os.utime(model)  # the model in use: the newest
        count, size = kept_models(root)
        cpu, wall = timed(prune, root, KEEP_MODELS, {model.name})
        after, after_size = kept_models(root)
        cpu2, wall2 = timed(prune, root, KEEP_MODELS, {model.name})
    print(f"Machine: {machine()}\n")
    print(f"Adapted models in the cache: {count}, {size / 1e6:.1f} MB of their own "
          f"({size / count / 1e6:.2f} MB a model); kept after pruning: {after} "
          f"({after_size / 1e6:.1f} MB)\n")
    print("| prune | models removed | wall s | CPU s |\n|---|---|---|---|")
    print(f"| {count} models to {KEEP_MODELS} | {count - after} | {wall:.3f} | {cpu:.3f} |")
    print(f"| {after} models, nothing to remove | 0 | {wall2:.4f} | {cpu2:.4f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
