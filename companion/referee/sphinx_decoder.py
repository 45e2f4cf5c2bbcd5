"""pocketsphinx decoders for the ear: a decoder that holds only the words it
listens for, and an utterance's best path with acoustic scores in nats.

``SphinxRecognizer`` (``companion.referee.sphinx_backend``) decodes each
utterance with the grammar of a call on a decoder made here; the bundled CMU
dictionary is not loaded whole (``companion.referee.cmudict``).
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path
from typing import Any

Seg = tuple[str, int, int, float, float]
"""One entry of a pocketsphinx best path (a word, a filler or silence):
``(name, first frame, last frame, acoustic score in nats, posterior)``;
frames are pocketsphinx's 10 ms steps from the utterance's first sample. The
acoustic score is pocketsphinx's own: the log-likelihood of the word's
frames relative to the best-scoring senone of each frame, so 0 at best and
more negative the worse the word fits."""

SILENCE_FILLERS = "<s> SIL\n</s> SIL\n<sil> SIL\n"
"""A filler dictionary (pocketsphinx's ``-fdict``) with silence only: the
bundled model's also has ``[NOISE]`` and ``[SPEECH]``, which a grammar
search adds at every state of the grammar and its lattice holds at every
frame, though at their insertion probability they hardly ever win a path;
the lattice's cost grows with them (bench/RESULTS.md, "The grammar
decoder's lattice without the noise fillers")."""


def one_word_decoder(fillers: str | None = None, **config: Any) -> Any:
    """A pocketsphinx decoder (``config``: more of its settings) with a
    one-word dictionary instead of the bundled CMU one, for a recognizer
    that adds the few words it listens for (``SphinxRecognizer``): less
    resident memory (bench/RESULTS.md). ``fillers``: the filler
    dictionary's text (e.g. ``SILENCE_FILLERS``; None: the model's own).
    Raises what ``pocketsphinx.Decoder`` raises."""
    import pocketsphinx

    with tempfile.TemporaryDirectory(prefix="companion-") as folder:
        words = Path(folder) / "one.dict"
        words.write_text("a AH\n", encoding="ascii")
        if fillers is not None:
            noise = Path(folder) / "fillers.dict"
            noise.write_text(fillers, encoding="ascii")
            config["fdict"] = str(noise)
        return pocketsphinx.Decoder(lm=None, dict=str(words), loglevel="FATAL", **config)


def best_path(d: Any, pcm: bytes) -> list[Seg]:
    """Decoder ``d``'s best path over one whole utterance of 16-bit mono PCM
    at 16,000 Hz, with its active search (batch cepstral mean). A word whose
    acoustic likelihood underflows a double (pocketsphinx gives it as a
    probability) gets -1e9 * ln(1.0001) nats."""
    logmath = d.get_logmath()
    d.start_utt()
    d.process_raw(pcm, False, True)
    d.end_utt()
    out: list[Seg] = []
    for seg in d.seg() or ():
        score = logmath.log(seg.ascore) if seg.ascore > 0 else -(10 ** 9)
        out.append((seg.word, seg.start_frame, seg.end_frame, score * math.log(1.0001),
                    float(seg.prob)))
    return out
