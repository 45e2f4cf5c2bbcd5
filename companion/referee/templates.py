"""Enrolled voice templates: each player's own takes of the count words.

At setup each player says the count words (``enrollment``); the ear then
compares an utterance with that player's takes by dynamic time warping
(DTW) over mel-frequency cepstra, the classic speaker-dependent
isolated-word method (Sakoe & Chiba 1978; features after Davis &
Mermelstein 1980). It gives the decision a second, independent opinion on
"was the call owed said?": the **template gap** is the DTW distance to the
nearest take of the call owed minus the distance to the nearest take of any
other enrolled word. Below zero the call owed fits best; well above zero
another count word does. pocketsphinx's general model confuses words such
as "six" and "eight" on band-limited voices; a player's own takes rarely do
(``../shared/human-calls/STUDY.md``; measured in ``bench/RESULTS.md``).

Everything here is numpy (the runtime has no scipy): librosa would bring
numba (too heavy for the Pi's memory budget) and the permissive DTW
packages ship no compiled aarch64 wheel; the DCT is its orthonormal type-II
basis as a matrix (``_DCT``, the same as ``scipy.fft.dct(norm="ortho")``).
Audio is 16-bit mono PCM at ``RATE`` Hz.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import numpy as np
import numpy.typing as npt

RATE = 16000
"""Sample rate of the audio templates are made from and compared with, Hz."""
FRAME_S, STEP_S = 0.025, 0.010
"""Analysis window and step, seconds."""
N_FFT = 512
N_MELS = 26
N_CEPS = 12
"""Mel filters, and cepstra kept (c1..c12; c0, the level, is left out so a
louder or quieter take still matches)."""
FMIN_HZ, FMAX_HZ = 100.0, 3800.0
"""The filterbank's band, Hz: telephone-band so 8 kHz recordings (upsampled)
and full-band microphones give the same features."""
TRIM_DB = 30.0
"""An utterance is cut to the frames within this many dB of its loudest
before matching (the silence and breath around a word differ take to take)."""
FLOOR_DB = 10.0
"""... and at least this many dB above its noise floor (its quietest tenth
of frames), so the noise around a word in a loud room is cut as well..."""
STEADY_FLOOR_DB = 3.0
"""... or only this many dB for a call in steady noise (``steady``, and
less than ``NOISY_SNR_DB`` over the floor): in steady noise (a fan, a hum,
white noise) the weak sounds of a word (the s and k of "six") sit a few dB
over the floor, and cutting at ``FLOOR_DB`` left only the vowel, often too
short to compare; in changing noise the stray sounds a few dB over the
floor are not the word's. Chosen on the
generated development split (dev speakers), single-word calls at their
true onsets: bench/RESULTS.md, "Templates cut closer in steady noise"."""
STEADY_SPREAD_DB = 1.0
"""The floor is steady when the 30th percentile of an utterance's 10 ms
frame levels lies within this many dB of its 10th (the quietest third of
it is one level). Chosen between the spreads measured in clean audio and
white noise and those in kitchen noise and talk (the same section)."""
MIN_FRAMES = 8
"""Fewer voiced frames than this (80 ms) is no word: a take so short is
not enrolled, and an utterance so short is given no gap (except after the
close cut over a steady floor: ``MATCH_MIN_FRAMES``)."""
MATCH_MIN_FRAMES = 5
"""An utterance cut close over a steady floor (``STEADY_FLOOR_DB``), or a
noisy copy of a take cut so, is compared when it keeps this many frames
(50 ms) or more; anything else needs ``MIN_FRAMES``. In steady noise a word
keeps little more than its loudest sounds (the vowel of "six", its s and k
under the hiss), and so do the takes' copies in the same noise: held to
``MIN_FRAMES``, such a word met no copy of its own takes and the takes had
no say. Not for other cuts: in the simulated rooms short sounds after a
call (a tail, a breath) then fitted the short copies of a word owed and
were taken as calls. Chosen on the generated development split (dev
speakers, enrolled) among 8, 6, 5 and 4 frames, and checked on the rooms:
bench/RESULTS.md, "Short words in steady noise"."""
NOISY_SNR_DB = 30.0
"""An utterance less than this many dB above its noise floor is also compared
with copies of the takes in white noise at its own SNR (clean takes against a
noisy call mislead DTW; the noisy copies of ``STUDY.md`` restore it)."""
LEARNT_KEPT = 2
"""Sure calls of a word kept per player beside the takes (``Enrollment.
learn``): fewer than the takes of a word (three at setup), so what was
heard at the table never outweighs what the player enrolled."""
SNR_STEP_DB = 3.0
"""Noisy copies are made (and kept) per step of this many dB of SNR."""
COPIES_KEPT = 4096
"""The noisy copies' features kept across enrollments (``noisy_copy``), the
least recently used going first: a few players' takes at a few steps."""
LOCAL_MEAN_S = 0.5
"""A word matched inside a longer stretch (``subsequence_distances``) has
the cepstral mean of this many seconds around each frame removed, about
a word's length (``features``)."""
VOICE_DBFS = -55.0
VOICE_RISE_DB = 15.0
"""Audio whose loudest 10 ms frame is below ``VOICE_DBFS`` (dB re int16 full
scale), or less than ``VOICE_RISE_DB`` above its noise floor, holds no word."""


def _mel(f: npt.NDArray[np.float64] | float) -> npt.NDArray[np.float64]:
    return np.asarray(2595.0 * np.log10(1.0 + np.asarray(f) / 700.0))


def _filterbank() -> npt.NDArray[np.float64]:
    edges = 700.0 * (10 ** (np.linspace(_mel(FMIN_HZ), _mel(FMAX_HZ), N_MELS + 2) / 2595.0) - 1)
    bins = np.fft.rfftfreq(N_FFT, 1.0 / RATE)
    fb = np.zeros((N_MELS, len(bins)))
    for i in range(N_MELS):
        lo, mid, hi = edges[i:i + 3]
        fb[i] = np.clip(np.minimum((bins - lo) / (mid - lo), (hi - bins) / (hi - mid)), 0.0, None)
    return fb


_FB = _filterbank()
_DCT = np.sqrt(2.0 / N_MELS) * np.cos(
    np.pi / N_MELS * (np.arange(N_MELS)[:, None] + 0.5) * np.arange(N_MELS)[None, :])
_DCT[:, 0] /= np.sqrt(2.0)
"""The orthonormal DCT-II basis over the mel bands, ``(bands, coefficients)``."""
_WINDOW = np.hamming(round(FRAME_S * RATE))


def _frame_db(x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """The level of each whole 10 ms frame of ``x``, dB re 1 (int16 units)."""
    step = round(STEP_S * RATE)
    n = len(x) // step
    return np.asarray(10 * np.log10((x[:n * step].reshape(n, step) ** 2).mean(axis=1) + 1e-3))


def steady(pcm: npt.ArrayLike) -> bool:
    """Whether the floor under ``pcm`` (mono samples at ``RATE``) is steady:
    its quietest third of 10 ms frames within ``STEADY_SPREAD_DB`` of one
    level (False for audio shorter than a frame)."""
    db = _frame_db(np.asarray(pcm, dtype=np.float64).reshape(-1))
    if len(db) == 0:
        return False
    return float(np.percentile(db, 30) - np.percentile(db, 10)) <= STEADY_SPREAD_DB


def floor_margin(pcm: npt.ArrayLike) -> float:
    """How far over its floor ``trim`` is to keep the frames of a call
    ``pcm`` in noise, dB: ``STEADY_FLOOR_DB`` over a steady floor
    (``steady``), else ``FLOOR_DB``."""
    return STEADY_FLOOR_DB if steady(pcm) else FLOOR_DB


def trim(pcm: npt.ArrayLike, margin_db: float = FLOOR_DB) -> npt.NDArray[np.float64]:
    """The loud part of ``pcm`` (mono samples at ``RATE``): from the first to
    the last 10 ms frame within ``TRIM_DB`` of the loudest and ``margin_db``
    above the floor (its quietest tenth), as float."""
    x = np.asarray(pcm, dtype=np.float64).reshape(-1)
    db = _frame_db(x)
    if len(db) == 0:
        return x
    step = round(STEP_S * RATE)
    floor = float(np.percentile(db, 10))
    loud = np.flatnonzero(db >= min(db.max() - 3.0, max(db.max() - TRIM_DB, floor + margin_db)))
    return x[loud[0] * step:(loud[-1] + 1) * step]


def features(pcm: npt.ArrayLike, margin_db: float = FLOOR_DB,
             local: bool = False) -> npt.NDArray[np.float32]:
    """MFCCs (c1..c12) and their deltas of a word, shape ``(frames, 24)``,
    from mono samples at ``RATE`` Hz, cut to the loud part (``trim``, with
    ``margin_db``), with the utterance's cepstral mean removed (channel and
    level cancel out); with ``local``, the mean of the ``LOCAL_MEAN_S``
    around each frame instead (a word inside talk: the talk's cepstra
    would move the whole utterance's mean). Shape ``(0, 24)`` for audio
    shorter than one window."""
    return _normalized(_cepstra(pcm, margin_db), local)


def _cepstra(pcm: npt.ArrayLike, margin_db: float) -> npt.NDArray[np.float64]:
    """The MFCCs c1..c12 of ``pcm`` cut to its loud part (``features``),
    shape ``(frames, 12)``, mean not removed; ``(0, 12)`` for audio shorter
    than one window."""
    x = trim(pcm, margin_db)
    size, step = len(_WINDOW), round(STEP_S * RATE)
    if len(x) < size:
        return np.zeros((0, N_CEPS))
    x = np.append(x[0], x[1:] - 0.97 * x[:-1])  # pre-emphasis
    frames = np.lib.stride_tricks.sliding_window_view(x, size)[::step] * _WINDOW
    power = np.abs(np.fft.rfft(frames, N_FFT)) ** 2
    logmel = np.log(power @ _FB.T + 1e-3)
    return np.asarray((logmel @ _DCT)[:, 1:N_CEPS + 1])


def _normalized(ceps: npt.NDArray[np.float64], local: bool) -> npt.NDArray[np.float32]:
    """``ceps`` (``_cepstra``; left unchanged) less their whole or local
    mean, with their deltas, shape ``(frames, 24)``: what ``features``
    gives."""
    if len(ceps) == 0:
        return np.zeros((0, 2 * N_CEPS), dtype=np.float32)
    if local:
        half = round(LOCAL_MEAN_S / STEP_S) // 2
        edged = np.pad(ceps, ((half + 1, half), (0, 0)), mode="edge")
        total = np.cumsum(edged, axis=0)
        ceps = ceps - (total[2 * half + 1:] - total[:-2 * half - 1]) / (2 * half + 1)
    else:
        ceps = ceps - ceps.mean(axis=0)
    delta = np.gradient(ceps, axis=0) if len(ceps) > 1 else np.zeros_like(ceps)
    return np.hstack([ceps, delta]).astype(np.float32)


def _step_costs(a: npt.NDArray[np.float32], templates: Sequence[npt.NDArray[np.float32]],
                ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """The Euclidean frame distances between ``a`` ``(n, d)`` and each of
    ``templates`` padded to the longest, shape ``(k, n, m)`` (``inf`` in the
    padding), and the templates' lengths ``(k,)``."""
    k = len(templates)
    lengths = np.array([len(t) for t in templates], dtype=np.int64)
    m = int(lengths.max())
    pad = np.zeros((k, m, a.shape[1]), dtype=np.float64)
    for i, t in enumerate(templates):
        pad[i, :len(t)] = t
    q = a.astype(np.float64)
    # |x - y|^2 = |x|^2 + |y|^2 - 2 x.y, worked in place and one take's dot
    # products at a time: a long stretch against every take makes the
    # (k, n, m) array several MB, and a second one would double the ear's
    # peak memory here.
    cost = (q * q).sum(axis=1)[None, :, None] + (pad * pad).sum(axis=2)[:, None, :]
    for i in range(k):
        dots = pad[i] @ q.T  # (m, n)
        dots *= 2
        cost[i] -= dots.T
    np.maximum(cost, 0.0, out=cost)
    np.sqrt(cost, out=cost)
    for i, length in enumerate(lengths):
        cost[i, :, length:] = np.inf
    return cost, lengths


def distances(a: npt.NDArray[np.float32],
              templates: Sequence[npt.NDArray[np.float32]]) -> npt.NDArray[np.float64]:
    """The DTW distance from a feature sequence ``(n, d)`` to each of
    ``templates`` (``(m_k, d)`` each), shape ``(len(templates),)``: the least
    total Euclidean frame distance along a warping path with the symmetric
    slope constraint P = 1 of Sakoe & Chiba (no more than two steps along
    one sequence for one along the other), per unit of path weight
    (n + m_k). ``inf`` where no such path exists (one sequence more than
    twice the other's length) or a sequence is empty. All templates are
    warped at once (padded to the longest; a path never looks right of its
    own column, so the padding changes nothing)."""
    k = len(templates)
    n = len(a)
    out = np.full(k, np.inf)
    if n == 0 or k == 0 or max((len(t) for t in templates), default=0) == 0:
        return out
    cost, lengths = _step_costs(a, templates)  # (k, n, m)
    m = cost.shape[2]
    inf = np.inf
    # acc[:, (i + 2) % 3, j + 2]: the best path weight to (i, j), for the
    # last three rows i (a step looks two rows back); two rows and columns
    # of padding to begin with.
    acc = np.full((k, 3, m + 2), inf)
    col = np.full((k, 1), inf)
    for i in range(n):
        r, r1, r2 = (i + 2) % 3, (i + 1) % 3, i % 3
        here = cost[:, i]
        diag = acc[:, r1, 1:m + 1] + 2 * here
        left = np.concatenate((col, cost[:, i, :-1]), axis=1)  # cost(i, j-1)
        wide = acc[:, r1, :m] + 2 * left + here  # from (i-1, j-2) via (i, j-1)
        above = cost[:, i - 1] if i > 0 else np.full((k, m), inf)
        tall = acc[:, r2, 1:m + 1] + 2 * above + here  # from (i-2, j-1) via (i-1, j)
        row = np.minimum(diag, np.minimum(wide, tall))
        if i == 0:
            row[:, 0] = 2 * cost[:, 0, 0]
        acc[:, r, 2:] = row
    ends = acc[np.arange(k), (n + 1) % 3, lengths + 1]
    ok = lengths > 0
    out[ok] = ends[ok] / (n + lengths[ok])
    return out


def subsequence_distances(a: npt.NDArray[np.float32],
                          templates: Sequence[npt.NDArray[np.float32]],
                          ) -> npt.NDArray[np.float64]:
    """For each of ``templates`` (``(m_k, d)`` each), the DTW distance of
    ``distances`` to the stretch of ``a`` ``(n, d)`` it fits best: the
    path may begin at any frame of ``a`` and end at any later one
    (subsequence DTW, Müller, *Fundamentals of Music Processing*, 2015,
    section 7.2), under the same slope constraint and per unit of path
    weight (the stretch's frames plus m_k), shape ``(len(templates),)``.
    Where paths meet, the one with the smaller distance per unit of its own
    weight so far goes on (a longer and a shorter stretch compared as
    equals; an exact minimum of the ratio would need every start tried).
    ``inf`` where ``a`` is shorter than half a template or either is empty.
    A template fitting all of ``a`` gets ``distances``'s value or less."""
    k, n = len(templates), len(a)
    out = np.full(k, np.inf)
    if n == 0 or k == 0 or max((len(t) for t in templates), default=0) == 0:
        return out
    cost, lengths = _step_costs(a, templates)
    m = cost.shape[2]
    inf = np.inf
    cols = np.arange(m)[None, :]
    # acc/first[:, (i + 2) % 3, j + 2]: the path reaching (i, j), its
    # weighted cost and first row, for the last three rows i (as in
    # ``distances``).
    acc = np.full((k, 3, m + 2), inf)
    first = np.zeros((k, 3, m + 2), dtype=np.int32)
    pad_col = np.full((k, 1), inf)
    best = np.full(k, inf)
    rows = np.arange(k)
    for i in range(n):
        r, r1, r2 = (i + 2) % 3, (i + 1) % 3, i % 3
        here = cost[:, i]
        left = np.concatenate((pad_col, cost[:, i, :-1]), axis=1)
        above = cost[:, i - 1] if i > 0 else np.full((k, m), inf)
        options = (
            (acc[:, r1, 1:m + 1] + 2 * here, first[:, r1, 1:m + 1]),
            (acc[:, r1, :m] + 2 * left + here, first[:, r1, :m]),
            (acc[:, r2, 1:m + 1] + 2 * above + here, first[:, r2, 1:m + 1]),
        )
        value, start = options[0]
        score = value / (i - start + 1 + cols + 1)
        for v, s in options[1:]:
            sc = v / (i - s + 1 + cols + 1)
            better = sc < score
            value, start, score = (np.where(better, v, value), np.where(better, s, start),
                                   np.where(better, sc, score))
        fresh = 2 * here[:, 0]  # a path may begin on this row
        begin = fresh / 2 < score[:, 0]
        value[:, 0] = np.where(begin, fresh, value[:, 0])
        start[:, 0] = np.where(begin, i, start[:, 0])
        acc[:, r, 2:] = value
        first[:, r, 2:] = start
        end = value[rows, lengths - 1]
        done = end / (i - start[rows, lengths - 1] + 1 + lengths)
        best = np.minimum(best, np.where(np.isfinite(end), done, inf))
    return best


def voiced(pcm: npt.ArrayLike) -> bool:
    """Whether ``pcm`` (mono samples) holds a voice: its loudest 10 ms frame
    at least ``VOICE_DBFS`` and ``VOICE_RISE_DB`` above its quietest tenth."""
    db = _frame_db(np.asarray(pcm, dtype=np.float64).reshape(-1))
    if len(db) == 0:
        return False
    return bool(db.max() >= VOICE_DBFS + 20 * np.log10(32768.0)
                and db.max() - np.percentile(db, 10) >= VOICE_RISE_DB)


@dataclass(frozen=True)
class Match:
    """An utterance against a player's takes, for the call owed.

    ``gap``: the DTW distance to the nearest take of an owed word minus that
    to the nearest take of any other enrolled word (below zero: the call
    owed fits best; -inf when no other word's take could be warped to the
    utterance). ``word``: the owed word whose takes fit best. ``fit``:
    its distance over the spread of that word's takes (``Enrollment.spread``;
    about 1 for a true repeat, larger for a word never enrolled; None with
    a single take). ``best_fit``: the same for the nearest enrolled word of
    all (large when no take fits well: a word never enrolled, or a voice
    blurred by a reverberant room). ``best_word``: that nearest word."""

    gap: float
    word: str
    fit: float | None = None
    best_fit: float | None = None
    best_word: str | None = None


def pcm16(pcm: npt.ArrayLike) -> npt.NDArray[np.int16]:
    """``pcm`` (mono samples at 16-bit scale) as a flat int16 array: the
    same array's values if already integers, floats rounded and clipped to
    -32768..32767."""
    x = np.asarray(pcm).reshape(-1)
    if x.dtype == np.int16:
        return x.copy()
    return np.clip(np.round(x), -32768, 32767).astype(np.int16)


def in_noise(pcm: npt.ArrayLike, snr_db: float, seed: int = 0) -> npt.NDArray[np.float64]:
    """``pcm`` (mono samples) plus white noise ``snr_db`` dB below the RMS
    level of its loud part (``trim``); the same noise for the same seed."""
    x = np.asarray(pcm, dtype=np.float64).reshape(-1)
    loud = trim(x)
    rms = float(np.sqrt(np.mean(loud ** 2))) if len(loud) else 0.0
    noise = np.random.default_rng(seed).normal(0.0, rms / 10 ** (snr_db / 20), len(x))
    return np.clip(x + noise, -32768.0, 32767.0)


V = TypeVar("V")


def digest(x: npt.ArrayLike) -> bytes:
    """A 16-byte digest of an array's content (BLAKE2b): what the caches
    below know a take by."""
    return hashlib.blake2b(np.ascontiguousarray(x).tobytes(), digest_size=16).digest()


class Kept(Generic[V]):
    """Values kept by key across enrollments, at most ``size``, the least
    recently used going first; safe to share between threads."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[tuple[object, ...], V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[object, ...]) -> tuple[bool, V | None]:
        with self._lock:
            if key not in self._items:
                return False, None
            self._items.move_to_end(key)
            return True, self._items[key]

    def put(self, key: tuple[object, ...], value: V) -> None:
        with self._lock:
            self._items[key] = value
            while len(self._items) > self.size:
                self._items.popitem(last=False)


_copies: Kept[npt.NDArray[np.float32]] = Kept(COPIES_KEPT)
_spreads: Kept[float | None] = Kept(COPIES_KEPT)


def noisy_copy(pcm: npt.ArrayLike, snr_db: float, margin_db: float, seed: int,
               key: bytes | None = None) -> npt.NDArray[np.float32]:
    """``features(in_noise(pcm, snr_db, seed), margin_db)`` (shape
    ``(frames, 24)``; ``pcm`` mono samples at ``RATE`` Hz, ``snr_db`` and
    ``margin_db`` in dB), kept by the take's content (``key``: its
    ``digest``, when known) for the next enrollment that holds the same
    take (a replay loads each round's takes anew; a table keeps them all
    evening): the same array, read-only, for the same take, SNR, margin
    and seed."""
    full = (key if key is not None else digest(pcm), snr_db, margin_db, seed)
    _, got = _copies.get(full)
    if got is not None:
        return got
    made = features(in_noise(pcm, snr_db, seed=seed), margin_db)
    made.flags.writeable = False
    _copies.put(full, made)
    return made


WARM_SHARE = 0.75
"""``warm`` makes at most this share of ``COPIES_KEPT`` copies ahead: the
rest is left for the copies of calls learnt at the table and of takes
recorded during the evening. One player's takes (ten words, three takes
each) at every step and both cuts are 660 copies, so four players' are
made whole, and of a larger table the steps of the loudest noise are left
to be made on first need."""


def noisy_steps() -> list[float]:
    """The SNRs, dB, at which noisy copies of the takes are made: every
    ``SNR_STEP_DB`` step an utterance under ``NOISY_SNR_DB`` rounds to
    (``Enrollment._templates``), from the top (the mildest noise) down."""
    top = round(NOISY_SNR_DB / SNR_STEP_DB)  # (an SNR just under the line rounds up to it)
    return [k * SNR_STEP_DB for k in range(top, -1, -1)]


def warm(voices: Iterable[Mapping[str, Sequence[npt.ArrayLike]]],
         most: int | None = None) -> int:
    """Make the noisy copies of takes (``noisy_copy``) before any call needs
    them: for players' takes read from where they are kept, as a game
    starts, so a call heard in noise is not kept waiting while its caller's
    takes are copied into that noise (bench/RESULTS.md, "The takes' noisy
    copies made when the game starts"). ``voices``: one mapping per player,
    ``{word: [16-bit mono samples at RATE Hz, ...]}`` in the order
    ``Enrollment.voice(player, learnt=False)`` gives them (a take's place
    in its word's list seeds its noise). Every step of ``noisy_steps``,
    mildest first, each with both cuts (``FLOOR_DB``, ``STEADY_FLOOR_DB``),
    at most ``most`` copies in all (None: ``WARM_SHARE`` of
    ``COPIES_KEPT``). Touches no ``Enrollment`` (the cache is locked, and
    a copy made twice is the same), so it may run in a thread beside the
    ear. The number of copies made or found kept."""
    budget = int(COPIES_KEPT * WARM_SHARE) if most is None else most
    takes = [(digest(pcm), pcm, i) for voice in voices for word_takes in voice.values()
             for i, pcm in enumerate(word_takes)]
    n = 0
    for step in noisy_steps():
        for margin in (FLOOR_DB, STEADY_FLOOR_DB):
            for key, pcm, i in takes:
                if n >= budget:
                    return n
                noisy_copy(pcm, step, margin, i, key)
                n += 1
    return n


@dataclass
class Enrollment:
    """The players' enrolled takes: ``takes[player][word]`` is a list of
    feature sequences (``features`` cut at ``FLOOR_DB``),
    ``audio[player][word]`` the takes' 16-bit samples (int16: a take is
    kept as a table's microphone gives it, a quarter of the memory of
    floats). Words are game words in
    lower case. ``counted``: the words calls are made of (the count words,
    ``enrollment.count_words``); a player's takes of any other word (a
    wrong number enrolled at setup, ``enrollment.wrong_numbers``) are
    compared with an utterance only when the recognizer heard that word
    (``match``'s ``heard``). None: every enrolled word always is.
    ``learnt[player][word]``: the player's own sure calls heard at the table
    (``learn``), each as (features, samples), at most ``LEARNT_KEPT`` per
    word, the oldest going first; compared with calls beside the takes
    (``voice``), never counted as takes (the voices page, the takes' spread
    and the player's adapted model see the takes alone)."""

    counted: frozenset[str] | None = None
    takes: dict[str, dict[str, list[npt.NDArray[np.float32]]]] = field(default_factory=dict)
    audio: dict[str, dict[str, list[npt.NDArray[np.int16]]]] = field(default_factory=dict)
    learnt: dict[str, dict[str, list[tuple[npt.NDArray[np.float32], npt.NDArray[np.int16]]]]] = (
        field(default_factory=dict))
    _noisy: dict[tuple[str, float, float],
                 dict[tuple[str, bool], list[npt.NDArray[np.float32]]]] = (
        field(default_factory=dict, repr=False))
    _spread: dict[tuple[str, str], float | None] = field(default_factory=dict, repr=False)
    _digests: dict[tuple[str, str, int], bytes] = field(default_factory=dict, repr=False)

    def add(self, player: str, word: str, pcm: npt.ArrayLike) -> bool:
        """Enroll one take (mono samples at ``RATE`` Hz, 16-bit scale; kept
        as int16, rounded and clipped if given as floats) of ``word`` by
        ``player``; False (nothing kept) if it holds too little voice
        (``voiced``)."""
        feats = features(pcm)
        if len(feats) < MIN_FRAMES or not voiced(pcm):
            return False
        word = word.strip().lower()
        self.takes.setdefault(player, {}).setdefault(word, []).append(feats)
        self.audio.setdefault(player, {}).setdefault(word, []).append(pcm16(pcm))
        self._changed(player)
        return True

    def remove_last(self, player: str, word: str) -> None:
        """Drop ``player``'s last take of ``word`` (one just added that
        could not be kept elsewhere). Raises ``KeyError``/``IndexError``
        when there is none."""
        word = word.strip().lower()
        self.takes[player][word].pop()
        self.audio[player][word].pop()
        self._changed(player)

    def forget(self, player: str) -> None:
        """Drop every take of ``player``, and what was learnt of them."""
        self.takes.pop(player, None)
        self.audio.pop(player, None)
        self.learnt.pop(player, None)
        self._changed(player)

    def learn(self, player: str, word: str, pcm: npt.ArrayLike) -> bool:
        """Keep ``pcm`` (mono samples at ``RATE`` Hz, 16-bit scale: a call
        of ``word`` by ``player`` that the ear was sure of, with the floor
        around it) to compare later calls with, beside the player's takes:
        a voice at the table drifts from how it said the words at setup.
        Only a word the player enrolled; the oldest learnt call of the word
        goes past ``LEARNT_KEPT``. False (nothing kept) for a word not
        enrolled, or too little voice (``voiced``)."""
        word = word.strip().lower()
        if word not in self.takes.get(player, {}):
            return False
        feats = features(pcm)
        if len(feats) < MIN_FRAMES or not voiced(pcm):
            return False
        kept = self.learnt.setdefault(player, {}).setdefault(word, [])
        kept.append((feats, pcm16(pcm)))
        del kept[:-LEARNT_KEPT]
        self._changed(player)
        return True

    def weighs_learnt(self, player: str, heard: Collection[str], owed: Collection[str]) -> bool:
        """Whether the calls learnt join a comparison with ``player``'s
        takes of an utterance in which the recognizer heard ``heard``,
        ``owed`` owed: not when it heard a word the player enrolled outside
        ``counted`` and the call owed (a wrong number, whose takes then join
        the comparison): wrong numbers are never learnt, and the calls
        learnt of the count words would tip that comparison toward them.
        Words the player never enrolled ("ten", "twelve") compare with
        nothing, and change nothing."""
        if self.counted is None:
            return True
        return not (set(heard) & self.words(player)) - self.counted - set(owed)

    def voice(self, player: str, learnt: bool = True, owed: Collection[str] | None = None,
              ) -> dict[str, list[npt.NDArray[np.int16]]]:
        """``player``'s samples per word: the takes, then (with ``learnt``)
        the calls learnt (``learn``), of the words ``owed`` only (None:
        of every word). A call learnt speaks for the call owed, never
        against it: heard in the same room and noise as the later calls,
        the calls learnt fit any of them better than takes recorded apart
        do, and a learnt "two" made a reverberant "six" the player's "two"
        (bench/RESULTS.md, "Calls learnt speak only for the call owed")."""
        joining = self._joining(player, learnt, owed)
        return {w: takes + [a for _, a in joining.get(w, [])]
                for w, takes in self.audio.get(player, {}).items()}

    def _joining(self, player: str, learnt: bool, owed: Collection[str] | None,
                 ) -> dict[str, list[tuple[npt.NDArray[np.float32], npt.NDArray[np.int16]]]]:
        """The calls learnt of ``player`` that join their words' takes (as
        ``learnt``: features and samples), per word: none without
        ``learnt``, else those of the words ``owed`` (None: of every word)."""
        if not learnt:
            return {}
        return {w: calls for w, calls in self.learnt.get(player, {}).items()
                if calls and (owed is None or w in owed)}

    def take_over(self, player: str, other: Enrollment) -> None:
        """``player``'s takes become ``other``'s takes of them (none when
        ``other`` has none): a player's kept takes loaded anew."""
        self.forget(player)
        if player in other.takes:
            self.takes[player] = other.takes[player]
            self.audio[player] = other.audio[player]

    def join(self, other: Enrollment) -> None:
        """The players ``other`` has takes of and this has none of take
        them over (``take_over``); ``counted`` becomes ``other``'s. An
        enrollment kept all evening, meeting a session's own takes."""
        for player in other.takes:
            if player not in self.takes:
                self.take_over(player, other)
        self.counted = other.counted

    def _changed(self, player: str) -> None:
        """``player``'s takes changed: what was computed from them goes."""
        self._noisy = {k: v for k, v in self._noisy.items() if k[0] != player}
        self._spread = {k: v for k, v in self._spread.items() if k[0] != player}
        self._digests = {k: v for k, v in self._digests.items() if k[0] != player}

    def spread(self, player: str, word: str) -> float | None:
        """How far ``player``'s takes of ``word`` lie from each other: the
        mean over its takes of the DTW distance to the nearest other take
        (None with fewer than two takes): what a true repeat of the word
        scores against them."""
        if (player, word) not in self._spread:
            takes = self.takes.get(player, {}).get(word, [])
            key = tuple(digest(t) for t in takes)  # kept by content, as ``noisy_copy``
            found, kept = _spreads.get(key)
            if not found:
                near = [float(distances(t, takes[:i] + takes[i + 1:]).min())
                        for i, t in enumerate(takes)] if len(takes) >= 2 else []
                finite = [d for d in near if np.isfinite(d)]
                kept = float(np.mean(finite)) if finite else None
                _spreads.put(key, kept)
            self._spread[(player, word)] = kept
        return self._spread[(player, word)]

    def _templates(self, player: str, snr_db: float | None, margin_db: float = FLOOR_DB,
                   words: Collection[str] | None = None, learnt: bool = True,
                   owed: Collection[str] | None = None,
                   ) -> dict[str, list[npt.NDArray[np.float32]]]:
        """``player``'s templates per word (of ``words``; None: every word
        they enrolled): the takes, and below ``NOISY_SNR_DB`` also their
        copies in noise at ``snr_db`` (rounded to ``SNR_STEP_DB``), cut
        ``margin_db`` over their floor as the utterance they are compared
        with was (``trim``; each word's made once per step and margin).
        The takes themselves keep their cut at ``FLOOR_DB``: they were
        recorded over a quiet floor of their own. ``learnt``: the calls
        learnt join the takes of the words ``owed`` (None: of every word;
        ``voice``)."""
        joining = self._joining(player, learnt, owed)
        clean = {w: t + [f for f, _ in joining.get(w, [])]
                 for w, t in self.takes.get(player, {}).items() if words is None or w in words}
        if snr_db is None or snr_db >= NOISY_SNR_DB:
            return clean
        step = float(max(0.0, round(snr_db / SNR_STEP_DB) * SNR_STEP_DB))
        noisy = self._noisy.setdefault((player, step, margin_db), {})
        audio = self.voice(player, learnt, owed)
        keys = {w: (w, w in joining) for w in clean}  # a word's copies with or without its calls
        for word, key in keys.items():
            if key not in noisy:
                copies = [noisy_copy(pcm, step, margin_db, i, self.take_digest(player, word, i))
                          for i, pcm in enumerate(audio.get(word, []))]
                noisy[key] = [c for c in copies if len(c) >= _least(margin_db)]
        return {w: clean[w] + noisy[keys[w]] for w in clean}

    def take_digest(self, player: str, word: str, i: int) -> bytes:
        """The ``digest`` of ``player``'s ``i``-th sample of ``word`` in
        ``voice`` (a take, then a learnt call), made once while they stay
        as they are."""
        if (player, word, i) not in self._digests:
            self._digests[(player, word, i)] = digest(self.voice(player)[word][i])
        return self._digests[(player, word, i)]

    def words(self, player: str) -> set[str]:
        """The words ``player`` has enrolled."""
        return set(self.takes.get(player, {}))

    def match(self, player: str | None, expected: Sequence[str] | None,
              pcm: npt.ArrayLike, snr_db: float | None = None,
              within: bool = False, heard: Collection[str] = ()) -> Match | None:
        """The ``Match`` of an utterance (mono samples at ``RATE`` Hz) with
        ``player``'s takes, for the call owed ``expected``. None when it
        cannot be told: no player or call owed, an owed word or every other
        word not enrolled, too little voice, or a length no take of the call
        owed can be warped to. ``gap`` is -inf when no other word's take can
        be (a word shorter than half of all their takes): the call owed's
        ``fit`` is then the only evidence (``decision.no_rival``).
        ``snr_db``: the utterance's level over the noise floor, dB (None:
        unknown; below ``NOISY_SNR_DB`` noisy copies of the takes join them,
        and the utterance and the copies are cut ``floor_margin`` over their
        floor, else ``FLOOR_DB`` as the takes are). ``within``: an utterance
        too long for some takes is matched by the stretch of it each take
        fits best (``subsequence_distances``, with the cepstral mean taken
        locally: ``features``); meant for the
        stretch of words a recognizer heard, where the call can only be
        that stretch (over all of a long noise, some stretch fits any
        word). ``heard``: the words the recognizer heard in it; the takes
        of a word outside ``counted`` and the call owed join the
        comparison only when it is among them. A wrong number's takes
        compared with every utterance fitted many correct calls in talk
        and noise better than their own word's did (the nasal "nine" and
        "zero" most), while compared only when heard they tell a wrong
        number from the call owed (bench/RESULTS.md, "Wrong numbers
        enrolled"). The calls learnt at the table (``learn``) of the call
        owed join its takes unless ``weighs_learnt`` says otherwise; those
        of other words never join (``voice``)."""
        if player is None or not expected:
            return None
        noisy = snr_db is not None and snr_db < NOISY_SNR_DB
        margin = floor_margin(pcm) if noisy else FLOOR_DB
        owed = {w.strip().lower() for w in expected}
        compared = None if self.counted is None else self.counted | owed | set(heard)
        mine = self._templates(player, snr_db, margin, compared,
                               self.weighs_learnt(player, heard, owed), owed)
        if not owed <= set(mine) or not set(mine) - owed:
            return None
        ceps = _cepstra(pcm, margin)
        feats = _normalized(ceps, local=False)
        if len(feats) < _least(margin):
            return None
        words = [w for w, takes in mine.items() for _ in takes]
        flat = [t for takes in mine.values() for t in takes]
        near = nearest(words, distances(feats, flat))
        if within and not _told(near, owed):
            # Too long for some takes (the word with talk or a reverberant
            # tail around it): each take against the stretch it fits best.
            near = nearest(words, subsequence_distances(_normalized(ceps, local=True), flat))
        word = min(owed, key=lambda w: near[w])
        other = min(d for w, d in near.items() if w not in owed)
        if not np.isfinite(near[word]):
            return None  # the lengths differ too much to tell (a cut word, or talk)
        # No other word's takes can be warped to it (a word shorter than
        # half of every other take): the gap is -inf, and only the call
        # owed's own fit speaks (``decision.takes_find``).
        spread = self.spread(player, word)
        fit = None if not spread else near[word] / spread
        best = min(near, key=lambda w: near[w])
        best_spread = self.spread(player, best)
        best_fit = None if not best_spread else near[best] / best_spread
        return Match(gap=float(near[word] - other), word=word, fit=fit, best_fit=best_fit,
                     best_word=best)


def _least(margin_db: float) -> int:
    """The fewest frames an utterance or a noisy copy of a take cut
    ``margin_db`` over its floor must keep to be compared: ``MATCH_MIN_FRAMES``
    for the close cut over a steady floor, else ``MIN_FRAMES``."""
    return MATCH_MIN_FRAMES if margin_db == STEADY_FLOOR_DB else MIN_FRAMES


def nearest(words: Sequence[str], found: npt.NDArray[np.float64]) -> dict[str, float]:
    """The least of ``found`` (one distance per take) per word (``words``,
    the take's word for each)."""
    near: dict[str, float] = {}
    for w, d in zip(words, found, strict=True):
        near[w] = min(near.get(w, np.inf), float(d))
    return near


def _told(near: Mapping[str, float], owed: set[str]) -> bool:
    """Whether ``near`` (the least distance per word) tells the ``owed``
    words from the others: some take of each side could be warped."""
    return bool(np.isfinite(min(near[w] for w in owed))
                and np.isfinite(min(d for w, d in near.items() if w not in owed)))


def enrollment_of(clips: Mapping[str, Mapping[str, Iterable[npt.ArrayLike]]]) -> Enrollment:
    """An ``Enrollment`` from ``{player: {word: [pcm at RATE Hz, ...]}}``."""
    out = Enrollment()
    for player, words in clips.items():
        for word, takes in words.items():
            for pcm in takes:
                out.add(player, word, pcm)
    return out
