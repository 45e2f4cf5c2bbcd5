"""The caller's takes compared in a learnt speech-embedding space.

A third witness beside the recognizer and the cepstral templates
(``companion.referee.templates``): Google's *speech embedding* model
(Lin et al., "Training keyword spotters with limited and synthesized speech
data", ICASSP 2020; Apache-2.0), run in numpy by
``companion.referee.embedding_model`` from the weights the project ships
(``models/speech-embedding.npz``). The model maps 16 kHz audio to one
96-dimensional embedding per 80 ms (1,280 samples), each seeing 775 ms
(12,400 samples); trained on many speakers in noise, it keeps a word's
identity where the cepstra of a call in talk or kitchen noise no longer do
(``bench/RESULTS.md``, "Speech embedding: the caller's word found in
talk").

The **embedding gap** of an utterance is, over the caller's takes in that
space, the distance (``templates.subsequence_distances``: the stretch of the
utterance a take fits best, on unit-length embeddings) to the nearest take
of a word owed minus that to the nearest take of every other word the caller
enrolled (the wrong numbers included): below zero the call owed fits best.
The decision reads it to find a call owed in an utterance it would
otherwise leave unsure or take for talk (``decision.Thresholds.
embedding_right``), and as the third of three witnesses against the call
owed (``decision.Thresholds.embedding_mistake``); never alone for a
mistake.

Without the weights file (an install that left out ``models/``),
``available()`` is False and the ear works without this witness.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from companion.referee import embedding_model
from companion.referee.embedding_model import HOP, WINDOW
from companion.referee.templates import (
    RATE,
    Enrollment,
    Kept,
    digest,
    nearest,
    subsequence_distances,
)

MIN_FRAMES = 3
"""An utterance or take shorter than ``WINDOW`` + (this - 1) * ``HOP``
samples is padded with silence on both sides to this many embeddings (the
model needs ``WINDOW`` samples for one; a word of 0.3 s has little to warp
with fewer than three)."""
DIMENSIONS = 96
TAKES_KEPT = 4096
"""Embeddings of takes kept by their samples' digest across enrollments."""


def model_path() -> Path | None:
    """Where the speech-embedding model's weights are installed; None when
    they are not (``embedding_model.weights_path``)."""
    return embedding_model.weights_path()


def available() -> bool:
    """Whether the speech-embedding witness can run here."""
    return embedding_model.weights() is not None


def embed(pcm: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """Unit-length speech embeddings of ``pcm`` (16-bit mono samples at
    ``RATE`` Hz), shape ``(frames, 96)``, one per ``HOP`` samples; audio
    shorter than ``MIN_FRAMES`` embeddings is padded with silence on both
    sides. Raises ``RuntimeError`` when the model is not installed
    (``available``)."""
    w = embedding_model.weights()
    if w is None:
        raise RuntimeError("the speech-embedding model's weights are not installed")
    x = np.asarray(pcm, dtype=np.float32).reshape(-1) / 32768.0
    need = WINDOW + (MIN_FRAMES - 1) * HOP
    if len(x) < need:
        pad = need - len(x)
        x = np.pad(x, (pad // 2, pad - pad // 2))
    out = embedding_model.forward(x, w)
    norm = np.linalg.norm(out, axis=1, keepdims=True)
    return np.asarray(out / np.maximum(norm, 1e-9), dtype=np.float32)


_takes: Kept[npt.NDArray[np.float32]] = Kept(TAKES_KEPT)


def _take(enrollment: Enrollment, player: str, word: str, i: int) -> npt.NDArray[np.float32]:
    """``embed`` of ``player``'s ``i``-th take of ``word``, kept by the
    take's digest (``Enrollment.take_digest``, made once per take: a replay
    loads each round's takes anew, a table keeps them all evening),
    read-only."""
    return _kept(enrollment.take_digest(player, word, i), enrollment.voice(player)[word][i])


def _kept(key: bytes, pcm: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """``embed(pcm)``, kept in ``_takes`` under ``key`` (the take's digest)."""
    _, got = _takes.get((key,))
    if got is None:
        got = embed(pcm)
        got.flags.writeable = False
        _takes.put((key,), got)
    return got


def prepare(enrollment: Enrollment, player: str) -> int:
    """Embed every take ``player`` enrolled now, kept as ``witness`` would
    keep them on first use (by each take's digest): the work a table does
    once an evening, done before the calls it would delay. The number of
    takes embedded; 0 when the model is not installed."""
    return warm(x for xs in enrollment.voice(player, learnt=False).values() for x in xs)


def warm(takes: Iterable[npt.ArrayLike]) -> int:
    """Embed each of ``takes`` (16-bit mono samples at ``RATE`` Hz), kept
    by its digest as ``witness`` would keep it on first use: for takes
    read from where they are kept, before any call needs them. Touches no
    ``Enrollment``, so it may run in a thread beside the ear (the cache is
    locked; an embedding made twice is the same). The number of takes;
    0 when the model is not installed."""
    if not available():
        return 0
    n = 0
    for pcm in takes:
        _kept(digest(pcm), pcm)
        n += 1
    return n


@dataclass(frozen=True)
class Witness:
    """An utterance against the caller's takes in the embedding space.

    ``gap``: the distance to the nearest take of a word owed minus that to
    the nearest take of any other enrolled word (below zero: the call owed
    fits best). ``word``: the owed word whose takes fit best. ``rival``:
    the nearest other word."""

    gap: float
    word: str
    rival: str


def witness(enrollment: Enrollment, player: str | None, heads: Sequence[str] | None,
            pcm: npt.ArrayLike, learnt: bool = True) -> Witness | None:
    """The ``Witness`` of an utterance (16-bit mono samples at ``RATE``
    Hz) for the next words owed ``heads``, against ``player``'s takes in
    ``enrollment``. None when it cannot be told: the model not installed,
    no player or word owed, an owed word or every other word not enrolled,
    or an utterance no take can be warped to."""
    got = witnesses(enrollment, player, heads, pcm, [None], learnt)
    return got[0] if got else None


def witnesses(enrollment: Enrollment, player: str | None, heads: Sequence[str] | None,
              pcm: npt.ArrayLike, spans: Sequence[tuple[float, float] | None],
              learnt: bool = True) -> list[Witness | None]:
    """``witness`` for stretches of one utterance, from one run of the
    model: for each of ``spans`` (seconds from ``pcm``'s first sample; None:
    the whole utterance) the embeddings centred within it, at least
    ``MIN_FRAMES``. ``learnt``: the calls the ear learnt at the table
    (``Enrollment.learn``) of the words owed join their takes
    (``Enrollment.voice``). An empty list when nothing can
    be told at all."""
    if player is None or not heads or not available():
        return []
    owed = {w.strip().lower() for w in heads}
    mine = enrollment.voice(player, learnt, owed)
    if not owed & set(mine) or not set(mine) - owed:
        return []
    words = [w for w, takes in mine.items() for _ in takes]
    flat = [_take(enrollment, player, w, i) for w, takes in mine.items()
            for i in range(len(takes))]
    x = np.asarray(pcm).reshape(-1)
    frames = embed(x)
    need = WINDOW + (MIN_FRAMES - 1) * HOP
    left = (need - len(x)) // 2 if len(x) < need else 0
    centres = (np.arange(len(frames)) * HOP + WINDOW / 2 - left) / RATE
    out: list[Witness | None] = []
    for span in spans:
        part = frames
        if span is not None:
            mid = (span[0] + span[1]) / 2
            inside = np.flatnonzero((centres >= span[0]) & (centres <= span[1]))
            if len(inside) < MIN_FRAMES:
                k = int(np.argmin(np.abs(centres - mid)))
                lo = max(0, min(k - MIN_FRAMES // 2, len(frames) - MIN_FRAMES))
                inside = np.arange(lo, min(len(frames), lo + MIN_FRAMES))
            part = frames[inside[0]:inside[-1] + 1]
        near = nearest(words, subsequence_distances(part, flat))
        word = min((w for w in near if w in owed), key=lambda w: near[w])
        rival = min((w for w in near if w not in owed), key=lambda w: near[w])
        if not (np.isfinite(near[word]) and np.isfinite(near[rival])):
            out.append(None)
        else:
            out.append(Witness(gap=near[word] - near[rival], word=word, rival=rival))
    return out


__all__ = ["DIMENSIONS", "HOP", "RATE", "WINDOW", "Witness", "available", "embed",
           "model_path", "witness", "witnesses"]
