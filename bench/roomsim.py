"""A seeded room simulation of a card table with a microphone array.

Renders multi-channel Nasty 7 sessions in the public session format (header
with ``microphones`` and ``seats``): one round of racketeer cards around a
1.2 m table in a room of about 4.5 x 5 x 2.6 m with RT60 ``RT60_S``
(pyroomacoustics, image source method), the array at the table's centre,
each seat's calls taken from the FSDD speakers george, jackson and lucas
(``../shared/human-calls/raw/fsdd``), people talking at other seats (the
coffee-order recordings in ``raw/talk/commands``) and kitchen noise.

Conditions: ``quiet`` (kitchen noise 30 dB under the calls), ``talk10`` and
``talk5`` (2-3 talkers at other seats, talk at 10 or 5 dB under the calls'
active level at the first microphone, kitchen 25 dB under), ``wrong_seat``
(quiet, but before each call another player says the expected number first;
the caller then says it in time).

Used by bench/arrays.py and the array tests; pyroomacoustics is in the
test/bench extras only. Nothing is downloaded.
"""

from __future__ import annotations

import json
import math
import os
import wave
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pyroomacoustics as pra
import soxr
from enrolled import COUNT_WORDS, DIGIT, WRONG_NUMBERS
from humanset import onset_in
from scipy.signal import fftconvolve

from companion.audio.synth import write_wav


def _human() -> Path:
    if "HUMAN_CALLS" in os.environ:
        return Path(os.environ["HUMAN_CALLS"])
    here = Path(__file__).resolve()
    for up in here.parents[1:4]:
        if (up / "shared" / "human-calls").is_dir():
            return up / "shared" / "human-calls"
    return here.parents[2] / "shared" / "human-calls"


HUMAN = _human()
"""The shared human-calls folder beside the project (``$HUMAN_CALLS`` overrides)."""

RATE = 16000
SPEAKERS = ("george", "jackson", "lucas")
NAMES = ("Abby", "Beth", "Carter", "Debbie", "Ezra", "Fran")
DIGITS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven"}
RT60_S = 0.45
ROOM_M = (4.5, 5.0, 2.6)
TABLE_CENTRE = (2.2, 2.6)
TABLE_Z = 0.78
ARRAY_Z = TABLE_Z + 0.02
CONDITIONS = ("quiet", "talk10", "talk5", "wrong_seat")

ARRAYS: dict[str, list[list[float]]] = {
    "usb4": [[0.02263, 0.02263, 0.0], [-0.02263, 0.02263, 0.0],
             [-0.02263, -0.02263, 0.0], [0.02263, -0.02263, 0.0]],
    "hat6": [[0.0463, 0.0, 0.0], [0.02315, 0.0401, 0.0], [-0.02315, 0.0401, 0.0],
             [-0.0463, 0.0, 0.0], [-0.02315, -0.0401, 0.0], [0.02315, -0.0401, 0.0]],
}
"""The shipped arrays' positions (as hardware/arrays.toml), metres."""


@dataclass
class CallTruth:
    """One call of a rendered round: who, what, when (table seconds)."""

    player: str
    flip_t: float
    count: int
    said: str
    kind: str  # "right" or "wrong"
    onset_t: float  # the take's first sample (FSDD takes open on 0-0.4 s of their own hiss)
    speech_t: float  # the word's onset in it (as the human set's ``onset_t``)
    end_t: float
    prompt: tuple[str, float, float] | None = None  # (player, onset, end) of a wrong-seat voice


@dataclass
class Rendered:
    """A rendered session: its JSONL path and the truth of each call."""

    path: Path
    condition: str
    array: str
    seats: dict[str, float]
    calls: list[CallTruth] = field(default_factory=list)
    seconds: float = 0.0


def _read(path: Path) -> npt.NDArray[np.float64]:
    with wave.open(str(path), "rb") as wf:
        rate, ch = wf.getframerate(), wf.getnchannels()
        x = np.frombuffer(wf.readframes(wf.getnframes()), dtype="<i2").astype(np.float64)
    if ch > 1:
        x = x.reshape(-1, ch).mean(axis=1)
    if rate != RATE:
        x = soxr.resample(x, rate, RATE)
    return x / 32768.0


def fsdd_take(digit: int, speaker: str, take: int) -> npt.NDArray[np.float64]:
    """An FSDD recording at 16 kHz, float in [-1, 1]."""
    return _read(HUMAN / "raw" / "fsdd" / f"{digit}_{speaker}_{take}.wav")


def _rms(x: npt.NDArray[np.float64]) -> float:
    return float(np.sqrt(np.mean(x * x) + 1e-20))


def _room(rng: np.random.Generator, n_seats: int, array: str
          ) -> tuple[pra.ShoeBox, dict[str, float], list[list[float]]]:
    e_abs, max_order = pra.inverse_sabine(RT60_S, ROOM_M)
    room = pra.ShoeBox(ROOM_M, fs=RATE, materials=pra.Material(e_abs),
                       max_order=min(max_order, 14))
    cx, cy = TABLE_CENTRE
    mics = np.asarray(ARRAYS[array]).T + np.array([[cx], [cy], [ARRAY_Z]])
    room.add_microphone_array(mics)
    offset = rng.uniform(0, 360)
    seats: dict[str, float] = {}
    positions: list[list[float]] = []
    for i in range(n_seats):
        az = (offset + 360 * i / n_seats + rng.uniform(-8, 8)) % 360
        dist = rng.uniform(0.72, 0.9)
        height = rng.uniform(0.33, 0.45)
        pos = [cx + dist * math.cos(math.radians(az)), cy + dist * math.sin(math.radians(az)),
               TABLE_Z + height]
        room.add_source(pos)
        positions.append(pos)
        seats[NAMES[i]] = round(az, 1)
    room.add_source([0.4, 0.5, 1.1])  # the kitchen, in a corner
    room.compute_rir()
    return room, seats, positions


def _talk_track(rng: np.random.Generator, commands: list[Path], seconds: float,
                quiet: list[tuple[float, float]]) -> npt.NDArray[np.float64]:
    """Talk from one seat for ``seconds``, silent in the ``quiet`` spans.

    The talker was already talking when the round began: the track joins
    the first recording at a random point of it. (Each recording holds its
    speech in its first seconds and ends in silence; started from their
    beginnings, every talker spoke at once over the round's first call and
    far less over the later ones: bench/RESULTS.md, "The talk in step at
    the start of a round".)"""
    n = int(seconds * RATE)
    out = np.zeros(n)
    pos = 0
    while pos < n:
        x = _read(commands[int(rng.integers(len(commands)))])
        x = x / _rms(x) * 10 ** (rng.uniform(-2, 2) / 20)
        if pos == 0:  # the first recording, joined part way through
            x = x[int(rng.uniform(0, 1) * len(x)):]
        end = min(n, pos + len(x))
        out[pos:end] += x[:end - pos]
        pos = end + int(rng.uniform(0.15, 0.7) * RATE)
    for a, b in quiet:
        out[max(0, int(a * RATE)):max(0, int(b * RATE))] = 0.0
    return out


ENROLLED = {w: DIGIT[w] for w in COUNT_WORDS + WRONG_NUMBERS}
"""The words a player enrolls and their FSDD digits: the count words and
the wrong numbers just past the count, as the voices page asks for them
(``bench/enrolled.py``'s lists)."""


def render_session(folder: Path, name: str, *, condition: str, array: str, seed: int,
                   flips: int = 6, takes: range = range(3, 50), enroll: int = 0,
                   enroll_at_table: bool = False) -> Rendered:
    """Render one round to ``folder/name.jsonl`` + ``name.wav`` (one channel
    per microphone). Seeded: the same arguments give the same files. With
    ``enroll`` (1-3), the header gives each player's enrollment: takes
    0 .. ``enroll``-1 of the ``ENROLLED`` words by their speaker (never said in a
    round), as the clean FSDD files (as a close-talking setup would take
    them), or with ``enroll_at_table`` as the companion hears them at setup
    (``_takes_at_table``)."""
    if condition not in CONDITIONS:
        raise ValueError(f"condition must be one of {CONDITIONS}, not {condition!r}")
    rng = np.random.default_rng([seed, CONDITIONS.index(condition)])
    n_seats = int(rng.integers(4, 7))
    room, seats, _ = _room(rng, n_seats, array)
    players = list(seats)
    voices = {p: SPEAKERS[(i + int(rng.integers(3))) % 3] for i, p in enumerate(players)}
    pre = 1.5
    calls: list[CallTruth] = []
    tracks = [np.zeros(0) for _ in range(n_seats)]
    placed: list[list[tuple[int, npt.NDArray[np.float64]]]] = [[] for _ in range(n_seats)]
    wrong_at = flips - 1 if rng.random() < 0.3 else -1
    t = pre
    for i in range(flips):
        seat = i % n_seats
        player = players[seat]
        count = i + 1 if i < 7 else 13 - i
        kind = "wrong" if i == wrong_at else "right"
        digit = count if kind == "right" else int(rng.choice([d for d in DIGITS if d != count]))
        gain = 10 ** (rng.uniform(-2, 2) / 20)
        prompt = None
        delay = rng.uniform(0.35, 1.0)
        if condition == "wrong_seat":
            other = int(rng.choice([s for s in range(n_seats) if s != seat]))
            px = fsdd_take(count, voices[players[other]], int(rng.choice(takes)))
            px = px / _rms(px) * 0.1 * gain
            p_on = t + rng.uniform(0.25, 0.45)
            placed[other].append((int(p_on * RATE), px))
            prompt = (players[other], p_on, p_on + len(px) / RATE)
            delay = (p_on - t) + len(px) / RATE + rng.uniform(0.25, 0.6)
        x = fsdd_take(digit, voices[player], int(rng.choice(takes)))
        x = x / _rms(x) * 0.1 * gain
        onset = t + delay
        placed[seat].append((int(onset * RATE), x))
        calls.append(CallTruth(player=player, flip_t=round(t, 3), count=count,
                               said=DIGITS[digit], kind=kind, onset_t=round(onset, 3),
                               speech_t=round(onset + onset_in(x, RATE), 3),
                               end_t=round(onset + len(x) / RATE, 3), prompt=prompt))
        t = onset + len(x) / RATE + rng.uniform(0.6, 1.0)
        if kind == "wrong":
            break
    seconds = t + 1.5
    n = int(seconds * RATE)
    for s in range(n_seats):
        tr = np.zeros(n)
        for start, x in placed[s]:
            tr[start:start + len(x)] += x[:max(0, n - start)]
        tracks[s] = tr
    calls_img = _render(room, tracks, n)
    ref = calls_img[0]
    active = np.zeros(n, dtype=bool)
    for c in calls:
        active[int(c.onset_t * RATE):int(c.end_t * RATE)] = True
    call_level = _rms(ref[active])
    mix = calls_img.copy()
    commands = sorted((HUMAN / "raw" / "talk" / "commands").glob("*.wav"))
    if condition in ("talk10", "talk5"):
        snr = 10.0 if condition == "talk10" else 5.0
        n_talk = int(rng.integers(2, 4))
        talkers = rng.choice(n_seats, size=min(n_talk, n_seats - 1), replace=False)
        talk = [np.zeros(n) for _ in range(n_seats)]
        for s in talkers:
            own = [(c.flip_t - 0.3, c.end_t + 0.4) for c in calls if c.player == players[s]]
            talk[int(s)] = _talk_track(rng, commands, seconds, own)
        talk_img = _render(room, talk, n)
        mix += talk_img * (call_level / _rms(talk_img[0]) * 10 ** (-snr / 20))
    kitchen_db = 30.0 if condition in ("quiet", "wrong_seat") else 25.0
    kitchen = _read(HUMAN / "raw" / "talk" / "kitchen.wav")
    kitchen = np.resize(np.roll(kitchen, int(rng.integers(len(kitchen)))), n)
    k_img = _render(room, [np.zeros(n)] * n_seats + [kitchen], n, with_kitchen=True)
    mix += k_img * (call_level / _rms(k_img[0]) * 10 ** (-kitchen_db / 20))
    mix += rng.normal(0, call_level * 10 ** (-50 / 20), mix.shape)  # the microphones' own hiss
    scale = 10 ** (-26 / 20) / max(call_level, 1e-9)  # the calls at -26 dBFS
    scale = min(scale, 0.95 / float(np.max(np.abs(mix))))
    pcm = np.clip(np.round(mix.T * scale * 32767), -32768, 32767).astype("<i2")
    folder.mkdir(parents=True, exist_ok=True)
    with wave.open(str(folder / f"{name}.wav"), "wb") as wf:
        wf.setnchannels(pcm.shape[1])
        wf.setsampwidth(2)
        wf.setframerate(RATE)
        wf.writeframes(pcm.tobytes())
    header: dict[str, Any] = {"game": "nasty7", "players": players, "options": {},
                              "microphones": ARRAYS[array], "seats": seats}
    if enroll and enroll_at_table:
        header["enrollment"] = {
            p: _takes_at_table(room, players.index(p), seats[p], voices[p], enroll, array,
                               folder, f"{name}-{p}", np.random.default_rng([seed, 7, i]))
            for i, p in enumerate(players)}
    elif enroll:
        raw = (HUMAN / "raw" / "fsdd").resolve()
        header["enrollment"] = {
            p: {word: [str(raw / f"{d}_{voices[p]}_{k}.wav") for k in range(enroll)]
                for word, d in ENROLLED.items()} for p in players}
    lines = [header, {"t": 0.0, "type": "audio", "path": f"{name}.wav"}]
    lines += [{"t": c.flip_t, "type": "flip", "player": c.player, "card": "racketeer"}
              for c in calls]
    lines.append({"t": round(seconds - 0.05, 3), "type": "tick"})
    (folder / f"{name}.jsonl").write_text("".join(json.dumps(o) + "\n" for o in lines))
    return Rendered(path=folder / f"{name}.jsonl", condition=condition, array=array,
                    seats=seats, calls=calls, seconds=seconds)


TAKE_PRE_S = 1.2
"""Seconds of the quiet room before each take rendered at the table: the
beam is steered at the player after the first second of it (the
interference it is steered against), as the live table does when the
voices page asks for the take."""


def _takes_at_table(room: pra.ShoeBox, seat: int, azimuth: float, speaker: str, enroll: int,
                    array: str, folder: Path, prefix: str, rng: np.random.Generator
                    ) -> dict[str, list[str]]:
    """A player's takes 0 .. ``enroll``-1 of each ``ENROLLED`` word as the companion
    hears them at setup in this ``room``: said from their ``seat`` (source
    index; ``azimuth`` in degrees) over the quiet condition's kitchen noise
    and hiss, heard by the array steered at the seat with the companion's
    own MVDR beam (as the live table does while the voices page records a
    player), the calls' level at -26 dBFS. Each take is written as 16 kHz
    mono WAVs: ``PREFIX-WORD-K.wav`` (the beam) and ``PREFIX-WORD-K-mic0.wav``
    (the first microphone, for the one-microphone copy). Returns the
    enrollment's paths by word (the beam's), relative to ``folder``."""
    from companion.referee.beam import Beamformer

    kitchen = _read(HUMAN / "raw" / "talk" / "kitchen.wav")
    out: dict[str, list[str]] = {}
    for word, d in ENROLLED.items():
        out[word] = []
        for k in range(enroll):
            x = fsdd_take(d, speaker, k)
            x = x / _rms(x) * 0.1
            pre = int(TAKE_PRE_S * RATE)
            n = pre + len(x) + int(0.5 * RATE)
            tracks = [np.zeros(n) for _ in range(len(room.sources) - 1)]
            tracks[seat][pre:pre + len(x)] = x
            img = _render(room, tracks, n)
            level = _rms(img[0, pre:pre + len(x)])
            noise = np.resize(np.roll(kitchen, int(rng.integers(len(kitchen)))), n)
            k_img = _render(room, [np.zeros(n)] * (len(room.sources) - 1) + [noise], n,
                            with_kitchen=True)
            img += k_img * (level / _rms(k_img[0]) * 10 ** (-30 / 20))
            img += rng.normal(0, level * 10 ** (-50 / 20), img.shape)
            pcm = np.clip(np.round(img.T * (10 ** (-26 / 20) / level) * 32767),
                          -32768, 32767).astype(np.int16)
            beam = Beamformer(ARRAYS[array], RATE)
            first, _ = beam.process(pcm[:RATE], 0.0)
            beam.steer(azimuth)
            rest, _ = beam.process(pcm[RATE:])
            write_wav(folder / f"{prefix}-{word}-{k}.wav", np.concatenate([first, rest]), RATE)
            write_wav(folder / f"{prefix}-{word}-{k}-mic0.wav", pcm[:, 0], RATE)
            out[word].append(f"{prefix}-{word}-{k}.wav")
    return out


def _render(room: pra.ShoeBox, tracks: list[npt.NDArray[np.float64]], n: int, *,
            with_kitchen: bool = False) -> npt.NDArray[np.float64]:
    """Each source's track convolved with its RIRs, summed: ``(M, n)``."""
    mics = room.mic_array.R.shape[1]
    out = np.zeros((mics, n))
    for s, track in enumerate(tracks):
        if not np.any(track):
            continue
        if s == len(room.sources) - 1 and not with_kitchen:
            continue
        for m in range(mics):
            y = fftconvolve(track, room.rir[m][s])[:n]
            out[m, :len(y)] += y
    return out


def mono_copy(rendered: Rendered, folder: Path, name: str) -> Path:
    """The same session heard by one microphone (the array's first): a mono
    WAV and a header without ``microphones``/``seats``."""
    lines = rendered.path.read_text().splitlines()
    header = json.loads(lines[0])
    header.pop("microphones")
    header.pop("seats")
    for words in header.get("enrollment", {}).values():  # takes heard at the table
        for word, paths in words.items():
            words[word] = [p[:-4] + "-mic0.wav" if not Path(p).is_absolute() else p
                           for p in paths]
    audio = json.loads(lines[1])
    with wave.open(str(rendered.path.parent / audio["path"]), "rb") as wf:
        ch, rate = wf.getnchannels(), wf.getframerate()
        pcm = np.frombuffer(wf.readframes(wf.getnframes()), dtype="<i2").reshape(-1, ch)
    write_wav(folder / f"{name}.wav", pcm[:, 0], rate)
    audio["path"] = f"{name}.wav"
    out = folder / f"{name}.jsonl"
    out.write_text("\n".join([json.dumps(header), json.dumps(audio), *lines[2:]]) + "\n")
    return out


def render_scene(placed: list[tuple[float, float, npt.NDArray[np.float64]]], seconds: float, *,
                 array: str = "usb4", seed: int = 0, rt60: float = 0.3,
                 floor_db: float = -60.0) -> npt.NDArray[np.int16]:
    """Sounds at seats, heard by ``array`` at the table's centre: ``placed``
    is ``(azimuth in degrees, start in seconds, float samples at 16 kHz)``,
    each from 0.8 m away at a seated mouth's height. Returns int16
    ``(n, M)`` with a hiss floor at ``floor_db`` dBFS."""
    rng = np.random.default_rng(seed)
    e_abs, max_order = pra.inverse_sabine(rt60, ROOM_M)
    room = pra.ShoeBox(ROOM_M, fs=RATE, materials=pra.Material(e_abs),
                       max_order=min(max_order, 12))
    cx, cy = TABLE_CENTRE
    room.add_microphone_array(np.asarray(ARRAYS[array]).T + np.array([[cx], [cy], [ARRAY_Z]]))
    n = int(seconds * RATE)
    for az, _start, _x in placed:
        a = math.radians(az)
        room.add_source([cx + 0.8 * math.cos(a), cy + 0.8 * math.sin(a), TABLE_Z + 0.38])
    room.compute_rir()
    tracks = []
    for _az, start, x in placed:
        tr = np.zeros(n)
        i = int(start * RATE)
        tr[i:i + len(x)] = x[:max(0, n - i)]
        tracks.append(tr)
    mix = _render(room, tracks, n, with_kitchen=True)  # no kitchen: nothing to skip
    mix += rng.normal(0, 10 ** (floor_db / 20), mix.shape)
    return np.clip(np.round(mix.T * 32767), -32768, 32767).astype(np.int16)
