"""Give human-voice sessions the players' enrollment, as setup would record it.

Run from the project's root::

    .venv/bin/python bench/enrolled.py --out DIR [--data DIR] [--takes 3] [--files] [--at-table]

For every session of a human-voice set in ``tools/score.py``'s layout (the
shared ``../shared/human-calls/sessions`` by default, or ``bench/humanset.py``'s
output), writes the same session to ``DIR`` with an ``enrollment`` header
field: each player's takes of the count words "one" to "seven" and of the
wrong numbers the voices page also asks for ("zero", "eight", "nine";
``--extra ""`` for the count words alone), taken from that player's FSDD
speaker (the ground truth's ``voices``) at the takes kept
for enrollment (0 .. ``--takes``-1: never a take any session says).

With ``--at-table`` (a ``bench/humanset.py`` set), the players of a round in
a room (the far field) enroll at that table, as the voices page records
them through the companion's own microphone: each take said from the
player's seat in the session's room, at the player's level in the round
(``table_takes``), kept per session under ``DIR/enroll/table``. The other
conditions keep each voice's takes said close to the microphone.

The takes are heard as the voices page hears them (``heard_takes``): each
FSDD take said over the table's -60 dBFS floor, heard by the live ear
(``Listener``, The Nasty 7's grammar) and kept by ``VoiceSetup.heard`` as
the utterance the ear hands over, written by its ``TakeStore`` under
``DIR/enroll/VOICE``. ``--files`` links the FSDD files themselves instead,
as this script did before (an FSDD file is cut close to its word, and
``templates.voiced`` refuses a few of them for want of a floor to rise
from, which the page would have asked for again). The session WAVs are
linked, not copied; ``truth.jsonl`` and ``mix.jsonl`` come along, so
``score.py --data DIR`` scores the enrolled ear on exactly the same rounds.
Only the development speakers (george, jackson, lucas) are in the raw set.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
HUMAN = ROOT.parent / "shared" / "human-calls"
COUNT_WORDS = ("one", "two", "three", "four", "five", "six", "seven")
WRONG_NUMBERS = ("zero", "eight", "nine")
"""The wrong numbers the voices page asks for besides the count words
(``companion.referee.enrollment.wrong_numbers``)."""
DIGIT = {w: i for i, w in enumerate(
    ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"))}


VOICES = ("george", "jackson", "lucas")
"""The FSDD development speakers, the only ones in the raw set."""
INDEX = "kept.json"
"""In a cache folder of heard takes: the takes per word, as ``heard_takes``
gives them."""
GAP_S = 1.5
"""Seconds from one take's start to the next as the page hears them (the
floor runs on between them)."""
TAIL_S = 1.0
"""Seconds added to ``GAP_S`` for a take said in a room (``at_seat``): its
reverberant tail (up to 1.2 times the room's RT60 of at most 0.6 s) left
no quiet between takes, and the ear heard two takes as one utterance."""


Render = Callable[[Any], Any]
"""A take's samples (16,000 Hz, 16-bit scale) as the table's microphone gets
them."""


class TakeRefused(RuntimeError):
    """A take the voices page would ask for again: this set has no other
    take of that word to give it (the later ones are said in sessions)."""


def heard_takes(voice: str, words: tuple[str, ...], takes: int, raw: Path,
                folder: Path, render: Render | None = None) -> dict[str, list[str]]:
    """``voice``'s FSDD takes 0..``takes``-1 of ``words``, in the order the
    voices page asks for them (each first passed through ``render``, when
    given: ``at_seat``, and then said ``TAIL_S`` further apart), each said
    ``GAP_S`` apart over the table's
    floor (``synth.noise_floor``, -60 dBFS; seeded by the voice), heard by
    the live ear (``Listener`` at 16,000 Hz with The Nasty 7's grammar) and
    kept by ``VoiceSetup.heard`` into a ``TakeStore`` under ``folder``: per
    word, the kept WAVs' paths relative to ``folder``. Raises
    ``TakeRefused`` when the page would ask for a take again, or kept more
    than one take from one (a word heard as two utterances)."""
    import numpy as np
    import soxr

    from companion.audio import synth
    from companion.games import make_game
    from companion.games.base import Match
    from companion.referee.judge import mono_of, read_wav_channels, set_grammar
    from companion.referee.recognizer import open_recognizer
    from companion.referee.stream import Listener
    from companion.referee.templates import RATE
    from companion.voice.pack import load_pack
    from companion.voice_setup import TakeStore, VoiceSetup

    count = tuple(w for w in words if w in COUNT_WORDS)
    setup = VoiceSetup(count, TakeStore(folder), rounds=takes,
                       wrong=tuple(w for w in words if w not in count))
    setup.start([voice])
    listener = Listener(open_recognizer(None, load_pack("en"), notice=False), RATE)
    set_grammar(listener, Match(make_game("nasty7", ["Abby", "Beth"], {})))
    block, seed = RATE // 50, VOICES.index(voice) if voice in VOICES else 0
    gap = GAP_S if render is None else GAP_S + TAIL_S  # seconds from take to take
    # the floor alone first, as before anyone speaks
    quiet = np.round(synth.noise_floor(2 * RATE, rate=RATE, seed=seed * 1000 + 1)).astype(np.int16)
    for at in range(0, len(quiet), block):
        listener.feed(quiet[at:at + block], at / RATE)
    now = len(quiet)
    while (prompt := setup.prompt) is not None:
        if prompt.again:
            raise TakeRefused(f"{voice}'s take {prompt.take - 1} of {prompt.word!r} "
                              "was not kept")
        held = setup.held(voice)
        pcm, rate = read_wav_channels(raw / f"{DIGIT[prompt.word]}_{voice}_{prompt.take - 1}.wav")
        clip = soxr.resample(mono_of(pcm), rate, RATE).astype(np.float64)
        if render is not None:
            clip = render(clip)
        audio = synth.noise_floor(round(gap * RATE), rate=RATE, seed=seed * 1000 + now)
        lead = round(0.3 * RATE)
        audio[lead:lead + len(clip)] += clip[:len(audio) - lead]
        chunk = np.clip(np.round(audio), -32768, 32767).astype(np.int16)
        for at in range(0, len(chunk), block):
            for heard in listener.feed(chunk[at:at + block], now / RATE):
                setup.heard(heard.pcm, heard.rate)
            now += len(chunk[at:at + block])
        if setup.prompt == prompt:  # nothing heard yet: the floor runs on
            tail = synth.noise_floor(RATE, rate=RATE, seed=seed * 1000 + now)
            for heard in listener.feed(np.round(tail).astype(np.int16), now / RATE):
                setup.heard(heard.pcm, heard.rate)
            now += RATE
            if setup.prompt == prompt:
                raise TakeRefused(f"{voice}'s take {prompt.take - 1} of "
                                  f"{prompt.word!r} was not heard")
        if setup.held(voice) > held + 1:  # a piece of it kept as the next word's take
            raise TakeRefused(f"{voice}'s take {prompt.take - 1} of {prompt.word!r} "
                              "was heard as more than one utterance")
    return setup.takes_of([voice]).get(voice, {})


def kept_heard(voice: str, words: tuple[str, ...], takes: int, raw: Path, folder: Path,
               cache: Path | None = None) -> dict[str, list[str]]:
    """``heard_takes`` into ``folder``, or the same takes copied from
    ``cache`` (a folder; None: none) where an earlier call kept them: the
    ear hears the same takes the same way every time, and hearing them
    takes seconds per voice; one process hears a voice's takes while any
    other asking for them waits (``companion.made_once.making``, which
    also removes what a hearing cut short left in ``cache``). Raises
    ``TakeRefused`` as ``heard_takes``."""
    from companion.made_once import making

    if cache is None:
        return heard_takes(voice, words, takes, raw, folder)
    kept = cache / f"{voice}-{takes}-{'-'.join(words)}"
    with making(cache, kept.name) as made:  # another process hearing them: wait for its copy
        if not (kept / INDEX).is_file():
            (made / INDEX).write_text(json.dumps(heard_takes(voice, words, takes, raw, made)))
            made.rename(kept)  # one step: a copy cut short is never found
    shutil.copytree(kept, folder, dirs_exist_ok=True)
    return dict(json.loads((kept / INDEX).read_text()))


AT_TABLE = ("farfield_babble15",)
"""The conditions whose sessions are in a room (``humanset.mix_parts``):
with ``--at-table``, each player's takes there are heard from their seat."""


def at_seat(rir: Any, gain: float, level_dbfs: float) -> Render:
    """A take as the table's microphone hears it from a seat: set to
    ``level_dbfs`` (active level, dBFS, as ``humanset.plan_round`` sets a
    call), convolved whole (its reverberant tail kept) with the seat's
    impulse response ``rir`` (samples at 16,000 Hz) and scaled by ``gain``
    (a factor), as ``humanset.mix_parts`` scales the room's speech. The
    render takes and gives 16,000 Hz samples at 16-bit scale; the output
    is longer than the take by the response's length less one sample."""
    import humanset
    from scipy.signal import fftconvolve

    def render(clip: Any) -> Any:
        x = clip / 32768.0
        x = x * 10 ** ((level_dbfs - humanset.active_level(x)) / 20)
        return fftconvolve(x, rir) * gain * 32768.0

    return render


def table_takes(data: Path, split: str, session: str, words: tuple[str, ...], takes: int,
                fsdd: Path, folder: Path) -> dict[str, dict[str, list[str]]]:
    """The takes of each player with a card in a far-field session (the
    players its header enrolls) as the voices page records them at that
    table (``heard_takes`` through ``at_seat``: the session's room, the
    player's seat, the player's level in the round: the median of their
    calls', the calls' own level when they said none), kept under
    ``folder``/PLAYER: per player, per word, paths relative to ``folder``.
    The room is the set's own (``humanset.plan_round`` and ``mix_parts``
    from its ``SUMMARY.json``; the rooms' cache ``data/.rir-cache`` when the
    set has one). Raises ``TakeRefused`` as ``heard_takes``."""
    import statistics

    import humanset

    summary = json.loads((data / "SUMMARY.json").read_text())
    raw = humanset.Raw(fsdd.parent)
    rnd = humanset.plan_round(raw, split, int(session[1:]), summary["seed"],
                              summary.get("evening", 0))
    cache = data / ".rir-cache"
    parts = humanset.mix_parts(rnd, raw, AT_TABLE[0], summary["seed"], cache)
    assert parts.rirs is not None
    kept: dict[str, dict[str, list[str]]] = {}
    for seat, player in enumerate(humanset.PLAYERS):
        if not any(c.seat == seat for c in rnd.calls):
            continue  # no card in the round: not in the session's enrollment
        gains = [c.gain_db for c in rnd.calls if c.seat == seat and c.gain_db is not None]
        level = humanset.CALL_LEVEL_DBFS + (statistics.median(gains) if gains else 0.0)
        where = folder / player
        shutil.rmtree(where, ignore_errors=True)
        got = heard_takes(rnd.voices[seat], words, takes, fsdd, where,
                          at_seat(parts.rirs[seat], parts.speech_gain, level))
        kept[player] = {w: [f"{player}/{p}" for p in ps] for w, ps in got.items()}
    return kept


def enroll_set(data: Path, out: Path, takes: int, raw: Path,
               words: tuple[str, ...] = COUNT_WORDS, *, files: bool = False,
               cache: Path | None = None, at_table: bool = False) -> int:
    """Write the enrolled copy of ``data`` to ``out`` (each player's takes of
    ``words``: heard as the voices page hears them, ``heard_takes``, kept
    in ``cache`` for the next call when given, or with ``files`` the FSDD
    files themselves); the number of sessions. With ``at_table``, the
    sessions in a room (``AT_TABLE``) get each player's takes as heard at
    that table instead (``table_takes``). Raises ``TakeRefused`` as
    ``heard_takes``."""
    (out / "enroll").mkdir(parents=True, exist_ok=True)
    kept: dict[str, dict[str, list[str]]] = {}
    for voice in VOICES:
        if files:
            kept[voice] = {w: [f"{DIGIT[w]}_{voice}_{k}.wav" for k in range(takes)]
                           for w in words}
            for name in (n for ns in kept[voice].values() for n in ns):
                link = out / "enroll" / name
                if not link.exists():
                    os.symlink((raw / name).resolve(), link)
        else:
            # the voices page's store adds to the takes a folder holds: takes
            # left by an earlier run into the same ``out`` would be kept
            # again beside these, each word's copies identical
            shutil.rmtree(out / "enroll" / voice, ignore_errors=True)
            kept[voice] = kept_heard(voice, words, takes, raw, out / "enroll" / voice, cache)
            kept[voice] = {w: [f"{voice}/{p}" for p in ps] for w, ps in kept[voice].items()}
    if (data / "SUMMARY.json").is_file():  # what the set is (``--evening``: seats keep voices)
        shutil.copy(data / "SUMMARY.json", out / "SUMMARY.json")
    n = 0
    for split_dir in sorted(p for p in data.iterdir() if p.is_dir()):
        truth_file = split_dir / "truth.jsonl"
        if not truth_file.is_file():
            continue
        voices = {}
        for line in truth_file.read_text().splitlines():
            rec = json.loads(line)
            voices[rec["session"]] = {c["player"]: c["voice"] for c in rec["calls"]
                                      if c.get("voice")}
        (out / split_dir.name).mkdir(parents=True, exist_ok=True)
        shutil.copy(truth_file, out / split_dir.name / "truth.jsonl")
        for cond in sorted(p for p in split_dir.iterdir() if p.is_dir()):
            dest = out / split_dir.name / cond.name
            dest.mkdir(parents=True, exist_ok=True)
            for extra in cond.glob("*.jsonl"):
                if not extra.name.startswith("s"):
                    shutil.copy(extra, dest / extra.name)
            for session in sorted(cond.glob("s*.jsonl")):
                lines = session.read_text().splitlines()
                header = json.loads(lines[0])
                if at_table and cond.name in AT_TABLE:
                    where = out / "enroll" / "table" / split_dir.name / session.stem
                    players = table_takes(data, split_dir.name, session.stem, words, takes,
                                          raw, where)
                else:
                    where = out / "enroll"
                    players = {player: kept[voice]
                               for player, voice in voices.get(session.stem, {}).items()}
                up = os.path.relpath(where, dest)
                header["enrollment"] = {
                    player: {w: [f"{up}/{p}" for p in ps] for w, ps in got.items()}
                    for player, got in players.items()}
                (dest / session.name).write_text(
                    "\n".join([json.dumps(header), *lines[1:]]) + "\n")
                for wav in cond.glob(f"{session.stem}*.wav"):
                    link = dest / wav.name
                    if not link.exists():
                        os.symlink(wav.resolve(), link)
                n += 1
    return n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--data", type=Path, default=HUMAN / "sessions")
    ap.add_argument("--takes", type=int, default=3, help="takes per word (FSDD takes 0..N-1)")
    ap.add_argument("--files", action="store_true",
                    help="link the FSDD files as the takes, not the takes heard as the "
                         "voices page hears them")
    ap.add_argument("--at-table", action="store_true",
                    help="the far field's players enroll at that table: their takes heard "
                         "from their seat in the session's room (bench/humanset.py sets)")
    ap.add_argument("--extra", default=",".join(WRONG_NUMBERS),
                    help="comma-separated words enrolled besides the count words "
                         "(FSDD digits: zero, eight, nine)")
    args = ap.parse_args()
    extra = tuple(w for w in args.extra.split(",") if w)
    if any(w not in DIGIT for w in extra):
        ap.error("--extra words must be FSDD digits (zero to nine)")
    if not 1 <= args.takes <= 3:
        ap.error("--takes must be 1 to 3: later takes are said in the sessions")
    words = COUNT_WORDS + tuple(w for w in extra if w not in COUNT_WORDS)
    try:
        n = enroll_set(args.data, args.out, args.takes, HUMAN / "raw" / "fsdd", words,
                       files=args.files, at_table=args.at_table)
    except TakeRefused as exc:
        raise SystemExit(f"enrolled.py: {exc}") from None
    how = "the FSDD files" if args.files else "heard as the voices page hears them"
    print(f"{n} sessions with enrollment ({args.takes} takes a word, {how}) in {args.out}")


if __name__ == "__main__":
    main()
