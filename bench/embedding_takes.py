"""Which word a call is, by the caller's takes: cepstra against speech embeddings.

Run from the project's root::

    .venv/bin/python bench/embedding_takes.py --data DIR [--split dev] [--sessions 20]

For every right one-word call of the first ``--sessions`` rounds of a
human-voice set with enrollment (``bench/humanset.py``, then
``bench/enrolled.py``), cut from the round's WAV at its true span (the
take's first sample and length from the ground truth, 0.1 s either side:
no endpointing error), prints per condition how often the caller's takes
name the word said among the seven count words, by nearest take:

* *cepstra*: ``templates.features`` and ``templates.distances`` (the
  ear's cepstral templates, cut over the call's own floor, without the
  noisy copies the ear adds);
* *embedding*: ``embedding.embed`` and ``templates.subsequence_distances``
  (the speech-embedding witness's comparison).

The call's true span isolates what each representation can tell from what
the ear's segmenter loses; the ear's own figures are ``bench/referee.py``'s.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.referee import embedding, templates  # noqa: E402
from companion.referee.enrollment import load_enrollment, takes_from_header  # noqa: E402
from companion.referee.judge import mono_of, read_wav_channels  # noqa: E402

COUNT_WORDS = ("one", "two", "three", "four", "five", "six", "seven")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--split", default="dev")
    ap.add_argument("--sessions", type=int, default=20)
    a = ap.parse_args()
    if not embedding.available():
        sys.exit("the speech-embedding model's weights (models/) are not installed")
    lines = (a.data / a.split / "truth.jsonl").read_text().splitlines()
    truth = [json.loads(x) for x in lines][:a.sessions]
    conditions = sorted(p.name for p in (a.data / a.split).iterdir() if p.is_dir())
    print("| condition | one-word right calls | cepstra name the word | "
          "embedding names the word |")
    print("|---|---|---|---|")
    for cond in conditions:
        calls = ceps_ok = emb_ok = 0
        for t in truth:
            session = a.data / a.split / cond / f"{t['session']}.jsonl"
            header = json.loads(session.read_text().splitlines()[0])
            takes = load_enrollment(takes_from_header(header, header["players"]) or {},
                                    session.parent, counted=None)
            pcm, rate = read_wav_channels(session.with_suffix(".wav"))
            wav = mono_of(pcm)
            assert rate == templates.RATE, session
            # each take's features (as the enrollment made them) and embeddings, once per round
            ceps_takes = {(p, w): ts for p, words in takes.takes.items() for w, ts in words.items()}
            emb_takes = {(p, w): [embedding.embed(x) for x in ts]
                         for p, words in takes.audio.items() for w, ts in words.items()}
            for c in t["calls"]:
                if c["kind"] != "right" or " " in c["said"]:
                    continue
                lo = max(0, round((c["start_t"] - 0.1) * rate))
                call = wav[lo:round((c["start_t"] + c["dur"] + 0.1) * rate)]
                feats = templates.features(call, templates.floor_margin(call))
                emb = embedding.embed(call)
                by_ceps, by_emb = {}, {}
                for word in COUNT_WORDS:
                    key = (c["player"], word)
                    by_ceps[word] = float(np.min(templates.distances(feats, ceps_takes[key])))
                    by_emb[word] = float(np.min(templates.subsequence_distances(
                        emb, emb_takes[key])))
                calls += 1
                ceps_ok += min(by_ceps, key=lambda w: by_ceps[w]) == c["said"]
                emb_ok += min(by_emb, key=lambda w: by_emb[w]) == c["said"]
        print(f"| {cond} | {calls} | {ceps_ok} ({100 * ceps_ok / max(calls, 1):.1f} %) "
              f"| {emb_ok} ({100 * emb_ok / max(calls, 1):.1f} %) |")


if __name__ == "__main__":
    main()
