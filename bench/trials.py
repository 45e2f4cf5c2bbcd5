"""The referee benchmark's trials: one flip and its call each, judged by the real engine.

A *trial* is a Nasty 7 table (two players, Abby and Beth) brought to a known
count by a scripted prefix of racketeer flips with correct calls, then one
more flip whose call is heard from audio. The engine (``companion.games.nasty7``
through ``Match``) says what the call should be (``expected_call``); the plan
decides what the player actually says and when, and so what the ruling must be.

Kinds of trial (weights out of 100):

| kind | card | what is said | right ruling |
| --- | --- | --- | --- |
| ``ok_racketeer`` (24) | racketeer | the next number | ``call_ok`` |
| ``ok_twin_racketeer`` (8) | twin racketeer | the next two numbers | ``call_ok`` |
| ``ok_phone`` (10) | phone | the round's sound | ``call_ok`` |
| ``ok_twin_phone`` (5) | twin phone | the sound twice | ``call_ok`` |
| ``ok_gun`` (10) | gun | nothing | ``call_ok`` |
| ``wrong_number`` (15) | racketeer | another number 1..7 | ``mistake`` ``wrong_number`` |
| ``sound_on_racketeer`` (8) | racketeer | the phone sound | ``mistake`` ``wrong_word`` |
| ``words_on_gun`` (8) | gun | a number | ``mistake`` ``wrong_word`` |
| ``late`` (12) | racketeer | the right number 3.4-4.2 s late | ``mistake`` ``hesitation`` |

Calls in time start 0.3-2.5 s after the flip, so onsets sit clearly on either
side of the 3.0 s hesitation limit. Clip time 0 is ``PRE_ROLL`` seconds before
the flip (the microphone is always on at a table, so a detector has heard
the room before the call).
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from companion.audio import synth
from companion.audio.synth import Clip, Synth, VoiceSpec
from companion.events import Say, Tick
from companion.games.base import Match
from companion.games.nasty7 import CallOk, Flip, Mistake, Nasty7
from companion.rulings import Ruling
from companion.voice.pack import load_pack

PLAYERS = ("Abby", "Beth")
PRE_ROLL = 0.5
"""Seconds of audio before the flip."""
TAIL = 1.2
"""Seconds of audio after the call (or after the hesitation limit, for silence)."""
PREFIX_STEP = 1.0
"""Seconds between scripted prefix flips."""

KINDS: dict[str, tuple[str, str, int]] = {
    "ok_racketeer": ("racketeer", "ok", 24),
    "ok_twin_racketeer": ("twin_racketeer", "ok", 8),
    "ok_phone": ("phone", "ok", 10),
    "ok_twin_phone": ("twin_phone", "ok", 5),
    "ok_gun": ("gun", "ok", 10),
    "wrong_number": ("racketeer", "mistake:wrong_number", 15),
    "sound_on_racketeer": ("racketeer", "mistake:wrong_word", 8),
    "words_on_gun": ("gun", "mistake:wrong_word", 8),
    "late": ("racketeer", "mistake:hesitation", 12),
}
"""kind -> (card flipped, the right verdict, weight)."""

CONDITIONS: tuple[str, ...] = ("clean", "floor", "white 10 dB", "table talk 20 dB",
                               "table talk 10 dB")
"""The acoustic conditions, each applied to the same clean clips."""

FAMILIES: dict[str, tuple[VoiceSpec, ...]] = {
    "espeak-ng": synth.ESPEAK_VOICES,
    "piper": synth.PIPER_VOICES,
}


@dataclass(frozen=True)
class Trial:
    """One planned trial. Times in seconds; ``onset``/``end`` on the clip's
    clock (None for silence); ``t0``: the table time of clip sample 0."""

    id: str
    family: str
    kind: str
    card: str
    prefix: int
    text: str | None
    words: tuple[str, ...]
    listen: tuple[str, ...]
    expected: str
    voice: str
    delay: float
    t0: float
    flip: float
    onset: float | None = None
    end: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-able fields."""
        return asdict(self)


def new_game() -> Nasty7:
    """The benchmark's table: two players, default options (3.0 s hesitation)."""
    return Nasty7(list(PLAYERS))


def prefix_match(game: Nasty7, prefix: int) -> tuple[Match[Any], float]:
    """A match after ``prefix`` racketeer flips, each called right 0.4 s after
    it; returns the match and the time of the next flip."""
    match: Match[Any] = Match(game)
    for k in range(prefix):
        t = k * PREFIX_STEP
        player = game.players[match.state.turn]
        match.apply(Flip(t=t, player=player, card="racketeer"))
        words = game.expected_call(match.state)
        match.apply(Say(t=t + 0.4, text=" ".join(words)))
    return match, prefix * PREFIX_STEP + 0.5


def plan(n: int, family: str, *, seed: int) -> list[Trial]:
    """``n`` trials for a voice family, drawn with ``seed`` (kinds by weight,
    counts by a random prefix of 0-12 flips, voices from the family)."""
    rng = np.random.default_rng(seed)
    kinds = list(KINDS)
    weights = np.array([KINDS[k][2] for k in kinds], dtype=float)
    game = new_game()
    pack = load_pack("en")
    voices = FAMILIES[family]
    sound = pack.respell.get(game.lexicon.default_sound, game.lexicon.default_sound)
    numbers = [game.lexicon.number_word(i) for i in range(1, 8)]
    out: list[Trial] = []
    for i in range(n):
        kind = kinds[int(rng.choice(len(kinds), p=weights / weights.sum()))]
        card, expected, _ = KINDS[kind]
        prefix = int(rng.integers(0, 13))
        match, flip = prefix_match(game, prefix)
        player = game.players[match.state.turn]
        match.apply(Flip(t=flip, player=player, card=card))  # type: ignore[arg-type]
        right = game.expected_call(match.state)
        spoken: list[str] | None
        if kind == "wrong_number":
            spoken = [str(rng.choice([w for w in numbers if w != right[0]]))]
        elif kind == "sound_on_racketeer":
            spoken = [sound]
        elif kind == "words_on_gun":
            spoken = [str(rng.choice(numbers))]
        elif kind == "ok_gun":
            spoken = None
        else:
            spoken = [pack.respell.get(w, w) for w in right]
        delay = float(rng.uniform(3.4, 4.2) if kind == "late" else rng.uniform(0.3, 2.5))
        voice = voices[int(rng.integers(len(voices)))]
        out.append(Trial(id=f"{family}-{i:03d}", family=family, kind=kind, card=card,
                         prefix=prefix, text=None if spoken is None else " ".join(spoken),
                         words=tuple(right), listen=tuple(game.listen_words(match.state)),
                         expected=expected, voice=voice.label,
                         delay=round(delay, 4), t0=flip - PRE_ROLL, flip=flip))
    return out


def voice_of(label: str) -> VoiceSpec:
    """The voice with that ``VoiceSpec.label``."""
    for voice in (*synth.ESPEAK_VOICES, *synth.PIPER_VOICES):
        if voice.label == label:
            return voice
    raise KeyError(label)


def render(trial: Trial, sy: Synth, *, rate: int, seed: int) -> tuple[Trial, Clip]:
    """The clean clip of a trial, and the trial with its true onset and end filled in."""
    hesitation = new_game().options.hesitation
    if trial.text is None:
        clip = synth.silence(PRE_ROLL + hesitation + TAIL, rate=rate)
        return trial, clip
    rng = np.random.default_rng(seed)
    level = synth.SPEECH_DBFS + float(rng.uniform(-3.0, 3.0))
    pcm = sy.utterance(trial.text, voice_of(trial.voice), rate=rate, level_dbfs=level)
    onset = PRE_ROLL + trial.delay
    length = max(round(onset * rate) + len(pcm), round((PRE_ROLL + hesitation) * rate))
    clip = synth.place([(onset, pcm, trial.text)], seconds=length / rate + TAIL, rate=rate)
    a, b = clip.spans[0]
    return (Trial(**{**trial.to_dict(), "onset": a / rate, "end": b / rate}), clip)


def in_condition(clip: Clip, condition: str, sy: Synth, *, seed: int) -> Clip:
    """A clean clip in one of ``CONDITIONS``. Noise at an SNR is scaled
    against the call's active speech level (``synth.add_noise``); a clip with
    no speech (a gun card kept silent) gets the noise at the level it would
    have against a call at ``SPEECH_DBFS``."""
    if condition == "clean":
        return clip
    if condition == "floor":
        return synth.add_floor(clip, seed=seed)
    snr = float(condition.split()[-2])
    n = len(clip.audio)
    noise = (synth.white_noise(n, seed=seed) if condition.startswith("white")
             else synth.table_talk(n, sy, rate=clip.rate, seed=seed))
    if clip.spans:
        return synth.add_noise(clip, noise, snr)
    rms = math.sqrt(float(np.mean(noise * noise)))
    target = synth.FULL_SCALE * 10 ** ((synth.SPEECH_DBFS - snr) / 20)
    audio = np.clip(np.round(noise * (target / rms)), -32768, 32767).astype(np.int16)
    return Clip(audio=audio, speech=clip.speech, rate=clip.rate)


@dataclass
class Verdict:
    """What the engine ruled on a trial's call.

    ``verdict``: ``"ok"``, ``"mistake:<kind>"`` or ``"none"`` (left unsure).
    ``by_say``: the index of the heard ``say`` whose application produced it
    (None if a tick at the deadline did). ``onset``: the call's onset as the
    engine took it, clip seconds (None if nothing was heard). ``engine_s``:
    seconds the engine took to apply the event that ruled."""

    verdict: str
    by_say: int | None
    onset: float | None
    heard: list[str]
    engine_s: float = 0.0


def _table(trial: Trial) -> tuple[Nasty7, Match[Any], Flip]:
    """The trial's game, its match after the prefix, and the trial's flip."""
    game = new_game()
    match, flip = prefix_match(game, trial.prefix)
    player = game.players[match.state.turn]
    return game, match, Flip(t=flip, player=player, card=trial.card)  # type: ignore[arg-type]


def owed_match(trial: Trial) -> Match[Any]:
    """The trial's table just after its flip: the prefix and the flip, what
    the live table tells its ear (the call owed, by whom) before the call."""
    _, match, flip = _table(trial)
    match.apply(flip)
    return match


def judge(trial: Trial, says: list[Say]) -> Verdict:
    """Run the trial's table through the engine: the prefix, the flip, and the
    ``says`` (table times, in any order) merged with the flip by time, then a
    tick after the call's window closes."""
    game, match, flip_event = _table(trial)
    flip, player = flip_event.t, flip_event.player
    events: list[tuple[float, int, Any]] = [(flip, -1, flip_event)]
    events += [(s.t, i, s) for i, s in enumerate(says)]
    events.sort(key=lambda e: (e[0], e[1]))
    last_t = max([flip + game.options.hesitation, *(s.end or s.t for s in says)])
    tick = last_t + game.options.hesitation + 0.01
    events.append((tick, len(says), Tick(t=tick)))
    flipped = False
    for _, index, event in events:
        started = time.perf_counter()
        rulings: list[Ruling] = match.apply(event)
        spent = time.perf_counter() - started
        flipped = flipped or index == -1
        if not flipped:
            continue
        for ruling in rulings:
            if isinstance(ruling, CallOk) and ruling.player == player:
                return _verdict("ok", index, len(says), match, trial, spent)
            if isinstance(ruling, Mistake) and ruling.player == player:
                return _verdict(f"mistake:{ruling.kind}", index, len(says), match, trial, spent)
    return _verdict("none", None, len(says), match, trial, 0.0)


def _verdict(verdict: str, index: int | None, n_says: int, match: Match[Any],
             trial: Trial, spent: float) -> Verdict:
    call = match.state.call
    onset = None
    if call is not None and call.onset is not None and call.flip_t == trial.flip:
        onset = call.onset - trial.t0
    by_say = index if index is not None and 0 <= index < n_says else None
    heard = list(call.words) if call is not None else []
    return Verdict(verdict=verdict, by_say=by_say, onset=onset, heard=heard, engine_s=spent)
