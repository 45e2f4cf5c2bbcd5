"""A seeded generator of Nasty 7 sessions spoken by real people (the human-voice set).

Reads only the raw material of ``../shared/human-calls/raw/`` (resolved from
the repository's root, see ``human_calls_dir``; ``--raw`` overrides it): the
Free Spoken Digit Dataset takes of george, jackson and lucas (8 kHz, resampled to 16 kHz with soxr),
the coffee-order recordings of ``talk/commands/`` (several people; table talk)
and ``talk/kitchen.wav`` (kitchen noise). Writes, for each split::

    OUT/<split>/truth.jsonl                 one line per session: every call
    OUT/<split>/<condition>/sNNN.jsonl      the session (public session format)
    OUT/<split>/<condition>/sNNN.wav        16 kHz mono, 16-bit, sample 0 at t = 0
    OUT/<split>/<condition>/mix.jsonl       per session: levels (dBFS), SNR, room

in the layout and fields that ``../shared/human-calls/tools/score.py`` reads
(``--data OUT --splits dev,test``; ``--conditions`` for the conditions beyond
its default four).

Splits keep the takes apart: ``dev`` uses FSDD takes 3-29 (for tuning),
``test`` takes 30-49 (held out); takes 0-2 are kept for a per-player
enrollment and never used here. The talk recordings and the kitchen noise are
split too (``dev``: even-numbered recordings in name order and the first half
of the kitchen noise; ``test``: the rest).

Each session is one round of 4-9 flips by four players (one FSDD speaker per
seat, the fourth seat repeats a voice; which voice sits where changes each
round, or with ``--evening N`` stays for N rounds in a row, as at one
table all evening): racketeer cards (the count word,
0.3-1.2 s after the flip), twin racketeer cards (the next two numbers in one
call, "three four", 0.05-0.2 s apart; the next player skips), gun cards
(silence). The next flip comes 0.7-1.0 s after a call ends (1.9-2.5 s after
a gun card). Rounds cycle through the variants ``right``, ``wrong``, ``oov``,
``late``, ``wrong``, ``oov``: a right round ends with a tick 4 s after its
last flip; the others end with one wrong number (another count word),
one out-of-range number ("zero", "eight", "nine") or one late call (onset
3.3-3.8 s after its flip), then a tick.

Truth per call (as in the shared set): ``kind`` (``right``, ``gun``,
``wrong``, ``oov``, ``late``), ``count`` (the count after the card: for a
twin, its second number), ``expected`` and ``said`` (words), ``take``
(FSDD file(s), ``+``-joined for a twin), ``start_t`` (first sample of the
take in the session, s), ``onset_t`` (first 5 ms frame of the take within
25 dB of its loudest frame, s), ``dur`` (s), ``gain_db`` (the call's level
against the -26 dBFS each take is normalized to), ``window_end`` (the next
flip, or the tick).

Levels: each take's active speech level (``active_level``: 10 ms frames
within 30 dB of the loudest frame) is set to -26 dBFS plus a seat gain
(+-3 dB) and a call gain (+-1.5 dB). SNR is the calls' active speech level
(over the whole session) against the noise's RMS level over the whole
session; every condition has a white floor at -60 dBFS. Conditions:

- ``clean``: the floor only;
- ``white10``: white noise at 10 dB SNR;
- ``babble10``, ``babble5``: table talk of 2-3 people (each a stream of talk
  recordings with 0.3-1.5 s pauses, +-3 dB apart) at 10 and 5 dB SNR;
- ``kitchen10``: kitchen noise at 10 dB SNR;
- ``farfield_babble15``: a room simulated with ``pyroomacoustics`` (image
  source method; a shoebox of about 4 x 5 x 2.6 m, RT60 0.4-0.6 s, walls
  from Sabine's formula), the microphone at the middle of the table
  (0.8 m high), each seat 0.6-1.0 m from it, 2-3 talkers 1.2-2.2 m away;
  the reverberant calls at -30 dBFS active level and the reverberant talk at
  15 dB SNR. Impulse responses are cut at 1.2 x RT60 and cached per seed,
  split and session (``OUT/.rir-cache``).

Everything comes from ``--seed``: the same seed gives the same files.

Usage: ``python bench/humanset.py --out /work/data/humanset --seed 17 --rounds 48``
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
import wave
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import soxr

ROOT = Path(__file__).resolve().parent.parent


def human_calls_dir() -> Path:
    """``../shared/human-calls`` from the repository's root: the environment's
    ``HUMAN_CALLS`` if set, else the first ``shared/human-calls`` beside the
    root or one of its parents (a git worktree sits one level deeper)."""
    import os

    if os.environ.get("HUMAN_CALLS"):
        return Path(os.environ["HUMAN_CALLS"])
    for parent in ROOT.parents:
        if (parent / "shared" / "human-calls").is_dir():
            return parent / "shared" / "human-calls"
    return ROOT.parent / "shared" / "human-calls"


DEFAULT_RAW = human_calls_dir() / "raw"
RATE = 16000
"""Hz: the rate of every session WAV."""
SPEAKERS = ("george", "jackson", "lucas")
"""The only FSDD speakers allowed for development."""
EVENING = 1_000_000
"""The seed stream (after seed and split) of the first evening's seats
(``--evening``); the k-th evening's is this plus k."""
SPLIT_TAKES = {"dev": range(3, 30), "test": range(30, 50)}
"""FSDD takes per split (0-2 are kept for enrollment)."""
CONDITIONS = ("clean", "white10", "babble10", "babble5", "kitchen10", "farfield_babble15")
PLAYERS = ("Abby", "Beth", "Carter", "Debbie")
VARIANTS = ("right", "wrong", "oov", "late", "wrong", "oov")
WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
CALL_LEVEL_DBFS = -26.0
"""Active speech level each take is normalized to before its gains."""
FLOOR_DBFS = -60.0
FARFIELD_SPEECH_DBFS = -30.0
HESITATION = 3.0
"""The engine's default hesitation limit, s."""


# -- levels -------------------------------------------------------------------


def db(x: float) -> float:
    return float(10 * np.log10(max(x, 1e-20)))


def active_level(x: np.ndarray, rate: int = RATE) -> float:
    """Active speech level, dBFS (power): mean power of the 10 ms frames
    within 30 dB of the loudest frame (a simplified ITU-T P.56)."""
    n = rate // 100
    frames = x[: len(x) // n * n].reshape(-1, n).astype(np.float64)
    power = (frames**2).mean(axis=1)
    if not len(power) or power.max() <= 0:
        return -200.0
    active = power[power >= power.max() * 10 ** (-30 / 10)]
    return db(float(active.mean()))


def rms_level(x: np.ndarray) -> float:
    """RMS level over the whole signal, dBFS (power)."""
    return db(float(np.mean(x.astype(np.float64) ** 2)))


def onset_in(x: np.ndarray, rate: int = RATE) -> float:
    """Seconds into a take of its first 5 ms frame within 25 dB of its loudest."""
    n = rate // 200
    frames = x[: len(x) // n * n].reshape(-1, n).astype(np.float64)
    power = (frames**2).mean(axis=1)
    k = int(np.argmax(power >= power.max() * 10 ** (-25 / 10)))
    return k * n / rate


# -- raw material -----------------------------------------------------------------


def read_wav(path: Path) -> tuple[np.ndarray, int]:
    """Mono 16-bit WAV as float32 in -1..1, and its rate. Raises ValueError
    on another format."""
    with wave.open(str(path)) as w:
        if w.getsampwidth() != 2:
            raise ValueError(f"{path}: not 16-bit PCM")
        data = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
        if w.getnchannels() > 1:
            data = data.reshape(-1, w.getnchannels())[:, 0]
        return data.astype(np.float32) / 32768.0, w.getframerate()


def write_wav(path: Path, x: np.ndarray) -> None:
    pcm = np.clip(np.round(x * 32767.0), -32768, 32767).astype("<i2")
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(pcm.tobytes())


class Raw:
    """The raw material, loaded on demand and kept."""

    def __init__(self, raw: Path) -> None:
        self.raw = raw
        fsdd = raw / "fsdd"
        if not fsdd.is_dir():
            raise SystemExit(f"no FSDD recordings in {fsdd} (see --raw)")
        self._takes: dict[str, np.ndarray] = {}
        commands = sorted((raw / "talk" / "commands").glob("*.wav"))
        if not commands:
            raise SystemExit(f"no talk recordings in {raw / 'talk' / 'commands'}")
        self.talk_files = {"dev": commands[0::2], "test": commands[1::2]}
        self._talk: dict[Path, np.ndarray] = {}
        self._kitchen: np.ndarray | None = None

    def take(self, name: str) -> np.ndarray:
        """An FSDD take at 16 kHz, float32."""
        if name not in self._takes:
            x, rate = read_wav(self.raw / "fsdd" / name)
            self._takes[name] = soxr.resample(x, rate, RATE).astype(np.float32)
        return self._takes[name]

    def talk(self, path: Path) -> np.ndarray:
        if path not in self._talk:
            x, rate = read_wav(path)
            if rate != RATE:
                x = soxr.resample(x, rate, RATE).astype(np.float32)
            self._talk[path] = x
        return self._talk[path]

    def kitchen(self, split: str) -> np.ndarray:
        """The split's half of the kitchen noise."""
        if self._kitchen is None:
            x, rate = read_wav(self.raw / "talk" / "kitchen.wav")
            if rate != RATE:
                x = soxr.resample(x, rate, RATE).astype(np.float32)
            self._kitchen = x
        half = len(self._kitchen) // 2
        return self._kitchen[:half] if split == "dev" else self._kitchen[half:]


# -- a round ------------------------------------------------------------------------


def advance(last: int, direction: int, steps: int) -> tuple[list[int], int, int]:
    """The game's count (``companion.games.nasty7.advance_count``)."""
    from companion.games.nasty7 import advance_count

    return advance_count(last, direction, steps)


@dataclass
class Call:
    idx: int
    player: str
    seat: int
    voice: str
    card: str
    flip_t: float
    count: int
    expected: str
    kind: str
    said: str | None = None
    takes: list[str] = field(default_factory=list)
    start_t: float | None = None
    onset_t: float | None = None
    dur: float | None = None
    gain_db: float | None = None
    window_end: float = 0.0

    def truth(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "idx": self.idx, "player": self.player, "voice": self.voice, "card": self.card,
            "flip_t": round(self.flip_t, 3), "count": self.count, "expected": self.expected,
            "kind": self.kind, "said": self.said}
        if self.takes:
            out.update({"take": "+".join(self.takes), "start_t": round(self.start_t or 0, 3),
                        "onset_t": round(self.onset_t or 0, 3), "dur": round(self.dur or 0, 3),
                        "gain_db": round(self.gain_db or 0, 2)})
        out["window_end"] = round(self.window_end, 3)
        return out


@dataclass
class Round:
    name: str
    split: str
    variant: str
    voices: list[str]
    calls: list[Call]
    tracks: np.ndarray
    """Dry speech per seat, shape (seats, samples)."""
    audio_end: float
    tick: float
    evening: int | None = None
    """Which evening of the split the round is in (``--evening``); None:
    the seats change every round."""

    def truth(self) -> dict[str, Any]:
        out = {"session": self.name, "split": self.split, "variant": self.variant,
               "voices": self.voices, "calls": [c.truth() for c in self.calls],
               "audio_end": round(self.audio_end, 3), "tick": round(self.tick, 3)}
        if self.evening is not None:
            out["evening"] = self.evening
        return out


def plan_round(raw: Raw, split: str, index: int, seed: int, evening: int = 0) -> Round:
    """One round: flips, calls and the dry speech of each seat. With
    ``evening`` N > 0, the rounds come in evenings of N: every round of an
    evening has the same voice and seat gain at each seat (one evening at
    one table), and the round's truth says which evening it is in; the
    cards and the kinds of call are the same as without (the timing
    follows each voice's takes)."""
    stream = 0 if split == "dev" else 1
    rng = np.random.default_rng([seed, stream, index])
    takes = list(SPLIT_TAKES[split])
    order = list(rng.permutation(SPEAKERS))
    voices = [*order, str(rng.choice(order))]
    seat_gain = rng.uniform(-3, 3, size=len(PLAYERS))
    night = index // evening if evening > 0 else None
    if night is not None:
        table = np.random.default_rng([seed, stream, EVENING + night])
        order = list(table.permutation(SPEAKERS))
        voices = [*order, str(table.choice(order))]
        seat_gain = table.uniform(-3, 3, size=len(PLAYERS))
    variant = VARIANTS[index % len(VARIANTS)]
    n_flips = int(rng.integers(4, 10))
    pieces: list[tuple[int, float, np.ndarray]] = []
    calls: list[Call] = []
    t = float(rng.uniform(0.5, 1.0))
    seat, last, direction = 0, 0, 1

    def speak(call: Call, digits: list[int], start: float) -> float:
        """Place ``digits`` said by the call's voice from ``start``; its end, s."""
        gain = float(seat_gain[call.seat] + rng.uniform(-1.5, 1.5))
        pos = start
        for k, digit in enumerate(digits):
            name = f"{digit}_{call.voice}_{int(rng.choice(takes))}.wav"
            x = raw.take(name)
            x = x * 10 ** ((CALL_LEVEL_DBFS + gain - active_level(x)) / 20)
            if k == 0:
                call.onset_t = start + onset_in(x)
            pieces.append((call.seat, pos, x.astype(np.float32)))
            call.takes.append(name)
            pos += len(x) / RATE
            if k + 1 < len(digits):
                pos += float(rng.uniform(0.05, 0.2))
        call.said = " ".join(WORDS[d] for d in digits)
        call.start_t, call.dur, call.gain_db = start, pos - start, gain
        return pos

    for i in range(n_flips + (0 if variant == "right" else 1)):
        final = i == n_flips
        if final:
            card = "racketeer"
        else:
            card = str(rng.choice(["racketeer", "twin_racketeer", "gun"], p=[0.7, 0.15, 0.15]))
        steps = 2 if card == "twin_racketeer" else 1
        numbers, last, direction = advance(last, direction, steps)
        call = Call(idx=i, player=PLAYERS[seat], seat=seat, voice=voices[seat], card=card,
                    flip_t=t, count=last, expected=" ".join(WORDS[n] for n in numbers),
                    kind="gun" if card == "gun" else "right")
        if card == "gun":
            t_next = t + float(rng.uniform(1.9, 2.5))
        else:
            start = t + float(rng.uniform(0.3, 1.2))
            digits = list(numbers)
            if final and variant == "wrong":
                call.kind = "wrong"
                digits = [int(rng.choice([n for n in range(1, 8) if n != last]))]
            elif final and variant == "oov":
                call.kind = "oov"
                digits = [int(rng.choice([0, 8, 9]))]
            elif final and variant == "late":
                call.kind = "late"
                start = t + float(rng.uniform(3.3, 3.8))
            end = speak(call, digits, start)
            if final and variant == "late":
                # the late onset is what is drawn, whatever the take's lead-in
                shift = start - (call.onset_t or start)
                call.onset_t = start
                call.start_t = start + shift
                seat_, pos_, x_ = pieces[-1]
                pieces[-1] = (seat_, pos_ + shift, x_)
                end += shift
            t_next = end + float(rng.uniform(0.7, 1.0))
        calls.append(call)
        seat = (seat + steps) % len(PLAYERS)
        t = t_next
    audio_end = max(p + len(x) / RATE for _, p, x in pieces) + 0.2
    tick = audio_end + 0.2 if variant == "late" else calls[-1].flip_t + 4.0
    for a, b in itertools.pairwise(calls):
        a.window_end = b.flip_t
    calls[-1].window_end = tick
    tracks = np.zeros((len(PLAYERS), int(np.ceil(audio_end * RATE))), dtype=np.float32)
    for s, pos, x in pieces:
        k = round(pos * RATE)
        tracks[s, k:k + len(x)] += x[: tracks.shape[1] - k]
    return Round(name=f"s{index:03d}", split=split, variant=variant, voices=voices,
                 calls=calls, tracks=tracks, audio_end=audio_end, tick=tick, evening=night)


# -- noise and rooms ------------------------------------------------------------------


def white(rng: np.random.Generator, n: int, dbfs: float) -> np.ndarray:
    return (rng.standard_normal(n) * 10 ** (dbfs / 20)).astype(np.float32)


def at_level(x: np.ndarray, dbfs: float) -> np.ndarray:
    """``x`` scaled to an RMS level of ``dbfs`` over its whole length."""
    return (x * 10 ** ((dbfs - rms_level(x)) / 20)).astype(np.float32)


def talkers(raw: Raw, split: str, rng: np.random.Generator, n: int) -> tuple[list[np.ndarray],
                                                                               list[str]]:
    """2-3 people talking over ``n`` samples, each a stream of talk recordings
    with pauses; one track each, and the recordings used."""
    files = raw.talk_files[split]
    out, used = [], []
    for _ in range(int(rng.integers(2, 4))):
        track = np.zeros(n, dtype=np.float32)
        pos = -int(rng.uniform(0, 3) * RATE)
        while pos < n:
            path = files[int(rng.integers(len(files)))]
            x = raw.talk(path)
            x = x * 10 ** ((-26 - active_level(x)) / 20)
            a, b = max(pos, 0), min(pos + len(x), n)
            if b > a:
                track[a:b] += x[a - pos:b - pos]
                used.append(path.stem)
            pos += len(x) + int(rng.uniform(0.3, 1.5) * RATE)
        out.append(track * 10 ** (rng.uniform(-3, 3) / 20))
    return out, sorted(set(used))


def room_rirs(rng: np.random.Generator, n_talkers: int, cache: Path) -> tuple[list[np.ndarray],
                                                                             dict[str, Any]]:
    """Impulse responses from each seat and each talker to the table's
    microphone in a simulated room (cached in ``cache``); and the room."""
    dims = [float(rng.uniform(3.8, 4.2)), float(rng.uniform(4.8, 5.2)),
            float(rng.uniform(2.5, 2.7))]
    rt60 = float(rng.uniform(0.4, 0.6))
    mic = [dims[0] / 2 + float(rng.uniform(-0.3, 0.3)),
           dims[1] / 2 + float(rng.uniform(-0.3, 0.3)), 0.8]
    seats, dists = [], []
    for k in range(len(PLAYERS)):
        az = k * np.pi / 2 + float(rng.uniform(-0.4, 0.4))
        d = float(rng.uniform(0.6, 1.0))
        h = float(rng.uniform(1.15, 1.25))
        horiz = float(np.sqrt(max(d**2 - (h - 0.8) ** 2, 0.01)))
        seats.append([mic[0] + horiz * np.cos(az), mic[1] + horiz * np.sin(az), h])
        dists.append(float(np.linalg.norm(np.subtract(seats[-1], mic))))
    others = []
    for _ in range(n_talkers):
        az = float(rng.uniform(0, 2 * np.pi))
        d = float(rng.uniform(1.2, 2.2))
        x = float(np.clip(mic[0] + d * np.cos(az), 0.3, dims[0] - 0.3))
        y = float(np.clip(mic[1] + d * np.sin(az), 0.3, dims[1] - 0.3))
        others.append([x, y, float(rng.uniform(1.1, 1.6))])
    info = {"dims": dims, "rt60_target": rt60, "mic": mic, "seats": seats,
            "seat_dist": dists, "babble_pos": others}
    if cache.exists():
        with np.load(cache) as data:
            return [data[f"r{k}"] for k in range(len(seats) + len(others))], info
    import pyroomacoustics as pra

    absorption, max_order = pra.inverse_sabine(rt60, dims)
    room = pra.ShoeBox(dims, fs=RATE, materials=pra.Material(absorption),
                       max_order=min(max_order, 40), air_absorption=False)
    room.add_microphone(mic)
    for pos in [*seats, *others]:
        room.add_source(pos)
    room.compute_rir()
    lead = pra.constants.get("frac_delay_length") // 2
    keep = int(1.2 * rt60 * RATE)
    rirs = [np.asarray(r, dtype=np.float32)[lead:lead + keep] for r in room.rir[0]]
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.savez(cache, **{f"r{k}": r for k, r in enumerate(rirs)})  # type: ignore[arg-type]
    return rirs, info


def convolve(x: np.ndarray, rir: np.ndarray) -> np.ndarray:
    from scipy.signal import fftconvolve

    return fftconvolve(x, rir)[: len(x)].astype(np.float32)


@dataclass
class Parts:
    """What a session's audio is made of before the floor: ``speech`` (every
    seat, as heard at the microphone), ``noise`` (the condition's, set to
    its SNR against the speech's active level, ``level``, dBFS; None in
    clean audio), that SNR (dB), the generator the floor is drawn from
    next, and the mix record so far."""

    speech: np.ndarray
    level: float
    noise: np.ndarray | None
    snr: float | None
    rng: np.random.Generator
    rec: dict[str, Any]
    rirs: list[np.ndarray] | None = None
    """The far field's impulse responses to the microphone: one per seat,
    then one per talker (None in the other conditions)."""
    speech_gain: float = 1.0
    """The factor the seats' reverberant speech was scaled by to its level
    (``FARFIELD_SPEECH_DBFS``); 1 in the other conditions."""


def mix(rnd: Round, raw: Raw, condition: str, seed: int, cache: Path) -> tuple[np.ndarray,
                                                                              dict[str, Any]]:
    """The session's audio in ``condition`` and its mix record."""
    parts = mix_parts(rnd, raw, condition, seed, cache)
    speech, level, noise, rng, rec = parts.speech, parts.level, parts.noise, parts.rng, parts.rec
    n = rnd.tracks.shape[1]
    out = speech.astype(np.float32)
    if noise is not None:
        out = out + noise
    out = out + white(rng, n, FLOOR_DBFS)
    peak = float(np.max(np.abs(out)))
    scaled = 0.0
    if peak > 0.99:
        scaled = 20 * float(np.log10(0.99 / peak))
        out = out * (0.99 / peak)
    rec.update({"speech_active_dbfs": round(level + scaled, 2),
                "noise_dbfs": None if noise is None else round(rms_level(noise) + scaled, 2),
                "snr_db": parts.snr, "floor_dbfs": FLOOR_DBFS, "scaled_db": round(scaled, 2),
                "seconds": round(n / RATE, 3)})
    return out, rec


def mix_parts(rnd: Round, raw: Raw, condition: str, seed: int, cache: Path) -> Parts:
    """The speech and the noise of the session's audio in ``condition``
    (``mix`` adds the floor and keeps the sum under full scale)."""
    c_index = CONDITIONS.index(condition)
    rng = np.random.default_rng([seed, 0 if rnd.split == "dev" else 1,
                                 int(rnd.name[1:]), 100 + c_index])
    n = rnd.tracks.shape[1]
    speech = rnd.tracks.sum(axis=0)
    rec: dict[str, Any] = {"session": rnd.name, "condition": condition}
    noise: np.ndarray | None = None
    snr: float | None = None
    rirs: list[np.ndarray] | None = None
    gain = 1.0
    if condition == "white10":
        snr = 10.0
        noise = rng.standard_normal(n).astype(np.float32)
    elif condition in ("babble10", "babble5"):
        snr = 10.0 if condition == "babble10" else 5.0
        tracks, used = talkers(raw, rnd.split, rng, n)
        noise = np.sum(tracks, axis=0)
        rec["babble"] = used
    elif condition == "kitchen10":
        snr = 10.0
        k = raw.kitchen(rnd.split)
        a = int(rng.integers(0, max(len(k) - n, 1)))
        noise = np.resize(k[a:a + n], n)
        rec["kitchen_from_s"] = round(a / RATE, 3)
    elif condition == "farfield_babble15":
        snr = 15.0
        trng = np.random.default_rng([seed, 0 if rnd.split == "dev" else 1,
                                      int(rnd.name[1:]), 200])
        tracks, used = talkers(raw, rnd.split, trng, n)
        rirs, room = room_rirs(rng, len(tracks), cache / f"{seed}-{rnd.split}-{rnd.name}.npz")
        seats = len(PLAYERS)
        speech = np.sum([convolve(rnd.tracks[s], rirs[s]) for s in range(seats)], axis=0)
        gain = 10 ** ((FARFIELD_SPEECH_DBFS - active_level(speech)) / 20)
        speech = speech * gain
        noise = np.sum([convolve(tr_, rirs[seats + k]) for k, tr_ in enumerate(tracks)], axis=0)
        rec["babble"] = used
        rec["room"] = room
    level = active_level(speech)
    noise = at_level(noise, level - snr) if noise is not None and snr is not None else None
    return Parts(speech=speech, level=level, noise=noise, snr=snr, rng=rng, rec=rec,
                 rirs=rirs, speech_gain=gain)


# -- sessions -----------------------------------------------------------------------


def session_lines(rnd: Round) -> list[dict[str, Any]]:
    """The public session format: header, the audio, the flips, the tick."""
    lines: list[dict[str, Any]] = [
        {"game": "nasty7", "players": list(PLAYERS), "options": {}},
        {"t": 0.0, "type": "audio", "path": f"{rnd.name}.wav"}]
    lines += [{"t": round(c.flip_t, 3), "type": "flip", "player": c.player, "card": c.card}
              for c in rnd.calls]
    lines.append({"t": round(rnd.tick, 3), "type": "tick"})
    return lines


def write_round(folder: Path, rnd: Round, raw: Raw, condition: str, seed: int,
                cache: Path) -> dict[str, Any]:
    """Write round ``rnd`` heard in ``condition`` to ``folder`` (its WAV and
    session file, named by the round); its mix record (``mix``)."""
    audio, rec = mix(rnd, raw, condition, seed, cache)
    write_wav(folder / f"{rnd.name}.wav", audio)
    (folder / f"{rnd.name}.jsonl").write_text(
        "".join(json.dumps(x) + "\n" for x in session_lines(rnd)))
    return rec


def generate(out: Path, raw_dir: Path, seed: int, rounds: int, splits: list[str],
             conditions: list[str], progress: bool = True, evening: int = 0,
             ) -> dict[str, Any]:
    """Write the set; a summary (sessions and calls per split). ``evening``:
    rounds per evening, whose seats keep their voices (``plan_round``; 0:
    the seats change every round)."""
    raw = Raw(raw_dir)
    summary: dict[str, Any] = {"seed": seed, "rounds": rounds, "conditions": conditions,
                               "evening": evening, "splits": {}}
    started = time.perf_counter()
    for split in splits:
        base = out / split
        for condition in conditions:
            (base / condition).mkdir(parents=True, exist_ok=True)
        truths, mixes = [], {c: [] for c in conditions}
        for i in range(rounds):
            rnd = plan_round(raw, split, i, seed, evening)
            truths.append(rnd.truth())
            for condition in conditions:
                mixes[condition].append(
                    write_round(base / condition, rnd, raw, condition, seed, out / ".rir-cache"))
            if progress:
                print(f"\r{split}: {i + 1}/{rounds} rounds "
                      f"({time.perf_counter() - started:.0f} s)", end="", file=sys.stderr,
                      flush=True)
        if progress:
            print(file=sys.stderr)
        (base / "truth.jsonl").write_text("".join(json.dumps(t) + "\n" for t in truths))
        for condition in conditions:
            (base / condition / "mix.jsonl").write_text(
                "".join(json.dumps(r) + "\n" for r in mixes[condition]))
        kinds: dict[str, int] = {}
        for t in truths:
            for c in t["calls"]:
                kinds[c["kind"]] = kinds.get(c["kind"], 0) + 1
        twins = sum(c["card"] == "twin_racketeer" for t in truths for c in t["calls"])
        summary["splits"][split] = {"sessions": len(truths),
                                    "calls": sum(len(t["calls"]) for t in truths),
                                    "kinds": kinds, "twin_calls": twins}
    (out / "SUMMARY.json").write_text(json.dumps(summary, indent=1) + "\n")
    return summary


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, type=Path, help="folder to write the set into")
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--rounds", type=int, default=48, help="sessions (rounds) per split")
    ap.add_argument("--splits", default="dev,test")
    ap.add_argument("--conditions", default=",".join(CONDITIONS))
    ap.add_argument("--raw", type=Path, default=DEFAULT_RAW,
                    help=f"the human-calls raw material (default {DEFAULT_RAW})")
    ap.add_argument("--evening", type=int, default=0, metavar="N",
                    help="rounds per evening: each seat keeps its voice for N rounds in a "
                         "row (one evening at one table), as the live table hears it "
                         "(default 0: the seats change every round)")
    ap.add_argument("--ready", action="store_true",
                    help="write OUT/READY once the whole set is written")
    a = ap.parse_args(argv)
    splits = [s for s in a.splits.split(",") if s]
    conditions = [c for c in a.conditions.split(",") if c]
    for s in splits:
        if s not in SPLIT_TAKES:
            ap.error(f"--splits: unknown split {s!r} (one of {', '.join(SPLIT_TAKES)})")
    for c in conditions:
        if c not in CONDITIONS:
            ap.error(f"--conditions: unknown condition {c!r} (one of {', '.join(CONDITIONS)})")
    if a.rounds < 1:
        ap.error("--rounds: at least 1")
    if a.evening < 0:
        ap.error("--evening: 0 or more rounds")
    (a.out / "READY").unlink(missing_ok=True)
    summary = generate(a.out, a.raw, a.seed, a.rounds, splits, conditions, evening=a.evening)
    if a.ready:
        (a.out / "READY").write_text(json.dumps(summary) + "\n")
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
