"""Where the pocketsphinx grammar decoder's CPU goes, and what other settings would change.

Decodes, with The Nasty 7's grammar (zero to twelve and the round's sound,
up to three words) as ``SphinxRecognizer`` does (``call_grammar``), and as
pocketsphinx compiles it from JSGF, two sets of human audio:
single calls (FSDD, the dev speakers george, jackson and lucas, resampled
to 16 kHz with the recognizer's -60 dBFS floor and 0.25 s of it each side),
and the shared development sessions' talk (``--talk``: the first sessions of
the talk and far-field conditions of ``../shared/human-calls/sessions/dev``,
dev speakers only, cut into 1.5 s stretches decoded in turn). Prints per
setting the CPU real-time factor of the search (``process_raw`` and
``end_utt``) and of reading the best path with its posteriors (``seg()``,
which builds the lattice), and, against the ear's own decoder (silence as
its only filler, ``sphinx_decoder.SILENCE_FILLERS``), how many clips keep the
same words and the largest change of a word's posterior.

    python bench/sphinx_cost.py --takes 2 --talk 2
"""

from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path
from typing import Any

import numpy as np
import soxr

from companion.referee import sphinx_decoder
from companion.referee.judge import read_wav
from companion.referee.recognizer import Spellings
from companion.referee.sphinx_backend import SphinxRecognizer, SphinxSettings, with_floor
from companion.voice.pack import load_pack

HUMAN = Path(__file__).resolve().parents[2] / "shared" / "human-calls"
FSDD = HUMAN / "raw" / "fsdd"
TALK = ("babble10", "farfield_babble15")
"""The shared development sessions' conditions with talk over the calls."""
DEV_SPEAKERS = ("george", "jackson", "lucas")
WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
         "ten", "eleven", "twelve", "hmmrrr")


def _clip(path: Path) -> bytes:
    x, rate = read_wav(path)
    y = soxr.resample(x.astype(np.float32), rate, 16000)
    pad = np.zeros(4000, np.float32)
    pcm = np.concatenate([pad, y, pad]).astype(np.int16)
    return with_floor(pcm, -60.0).tobytes()


Words = list[tuple[str, int, int, float]]


def _stretches(sessions: int) -> list[bytes]:
    """The first ``sessions`` shared dev sessions of each ``TALK`` condition,
    cut into 1.5 s stretches (16-bit PCM at 16 kHz)."""
    out = []
    for condition in TALK:
        for path in sorted((HUMAN / "sessions" / "dev" / condition).glob("s*.wav"))[:sessions]:
            pcm, rate = read_wav(path)
            assert rate == 16000
            step = 24000
            out += [pcm[i:i + step].tobytes() for i in range(0, len(pcm) - step, step)]
    return out


def _decode_all(clips: list[bytes], config: dict[str, Any],
                fillers: str | None = sphinx_decoder.SILENCE_FILLERS, *, jsgf: bool = False
                ) -> tuple[float, float, list[Words]]:
    """CPU seconds of the search and of the best path with posteriors, and
    each clip's game words (name, first and last frame, posterior), with
    decoder settings ``config`` and filler dictionary ``fillers`` (None:
    the model's); with ``jsgf``, the same call compiled from its JSGF rule
    by pocketsphinx (``SphinxSettings.grammar``), as the ear did before
    ``call_grammar`` and its confirmer does."""
    rec = SphinxRecognizer(Spellings.from_pack(load_pack("en")),
                           SphinxSettings(grammar="jsgf" if jsgf else "call"))
    config = {"wbeam": rec.settings.wbeam, **config}
    rec._decoder = sphinx_decoder.one_word_decoder(fillers, wip=rec.settings.wip, **config)
    rec._logmath = rec._decoder.get_logmath()
    rec._added = set()
    rec.set_vocabulary(list(WORDS))
    d = rec._decoder
    d.activate_search(rec._search)
    search = best = 0.0
    paths = []
    for pcm in clips:
        t0 = time.process_time()
        d.start_utt()
        d.process_raw(pcm, False, True)
        d.end_utt()
        t1 = time.process_time()
        path = [(s.word, s.start_frame, s.end_frame, float(s.prob)) for s in (d.seg() or ())
                if not s.word.startswith(("<", "["))]
        t2 = time.process_time()
        search, best = search + t1 - t0, best + t2 - t1
        paths.append(path)
    return search, best, paths


def _table(clips: list[bytes], wbeams: list[float]) -> None:
    """Print the table for ``clips``: the ear's decoder, then each other
    setting (the JSGF-compiled grammar at the old and the current word
    beam, the noise fillers, the word beams ``wbeams``) against it."""
    audio_s = sum(len(c) / 32000 for c in clips)
    print(f"{len(clips)} clips, {audio_s:.1f} s of audio")
    print()
    print("| setting | search CPU RTF | best path and posteriors CPU RTF | total | "
          "same words as the ear's | largest posterior change |")
    print("|---|---|---|---|---|---|")
    search, best, base = _decode_all(clips, {})
    print(f"| the ear's: silence fillers, word beam {SphinxSettings().wbeam:g} | "
          f"{search / audio_s:.3f} | "
          f"{best / audio_s:.3f} | {(search + best) / audio_s:.3f} | - | - |")
    fill = sphinx_decoder.SILENCE_FILLERS
    rows: list[tuple[str, dict[str, Any], str | None, bool]] = [
        ("grammar compiled from JSGF, word beam 1e-24 (the ear's before)", {"wbeam": 1e-24},
         fill, True),
        ("grammar compiled from JSGF", {}, fill, True),
        ("the model's noise fillers too", {}, None, False)]
    rows += [(f"word beam {w:g}", {"wbeam": w}, fill, False) for w in wbeams]
    for name, config, fillers, jsgf in rows:
        search, best, paths = _decode_all(clips, config, fillers, jsgf=jsgf)
        same = [(a, b) for a, b in zip(base, paths, strict=True)
                if [w[0] for w in a] == [w[0] for w in b]]
        change = max((abs(x[3] - y[3]) for a, b in same for x, y in zip(a, b, strict=True)),
                     default=0.0)
        print(f"| {name} | {search / audio_s:.3f} | {best / audio_s:.3f} | "
              f"{(search + best) / audio_s:.3f} | {len(same)}/{len(clips)} | {change:.3f} |")
    print()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--takes", type=int, default=2, help="takes per digit and speaker")
    ap.add_argument("--first", type=int, default=40, help="the first take used (of 50)")
    ap.add_argument("--talk", type=int, default=2,
                    help="shared dev sessions per talk condition (0: none)")
    ap.add_argument("--wbeams", default="1e-24,7e-27",
                    help="word beams to compare with the ear's (SphinxSettings.wbeam, "
                         "pocketsphinx's own)")
    args = ap.parse_args()
    files = [f for spk in DEV_SPEAKERS for digit in range(10)
             for f in sorted(FSDD.glob(f"{digit}_{spk}_*.wav"),
                             key=lambda p: int(p.stem.split("_")[2]))[args.first:args.first
                                                                      + args.takes]]
    wbeams = [float(w) for w in args.wbeams.split(",") if w]
    print(f"pocketsphinx grammar decodes; {platform.machine()}, Python "
          f"{platform.python_version()}")
    print()
    print("Single calls: ", end="")
    _table([_clip(f) for f in files], wbeams)
    if args.talk:
        print(f"Talk ({', '.join(TALK)}, {args.talk} sessions each, 1.5 s stretches): ", end="")
        _table(_stretches(args.talk), wbeams)


if __name__ == "__main__":
    main()
