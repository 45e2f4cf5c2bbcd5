"""Templates from takes heard at setup, against takes read from their files.

Run from the project's root::

    .venv/bin/python bench/enroll_capture.py [--speakers george,jackson,lucas]

At a table a player's takes of the count words reach the templates through
the live ear: a room's floor around them, the VAD's utterance, the loud part
the recognizer decodes (``Heard.pcm``) and the setup's checks
(``companion.voice_setup.VoiceSetup.heard``). This benchmark enrolls each
FSDD development speaker that way, from takes 0-2 of "one" to "seven" said
1.5 s apart over a -60 dBFS floor and fed through ``Listener``
(pocketsphinx, The Nasty 7's grammar), and also straight from the same
files (``templates.enrollment_of``, as ``bench/enrolled.py --files``
gives the sessions; without ``--files`` it gives them takes heard this
way). Each enrollment is then scored on the speaker's held-out takes (3
and up; never enrolled) of each word, each over the same floor with 0.3 s
around it:

* *owed fits*: the take of word w, with w owed: the gap is below zero;
* *other refused*: the take of word w, with the next word owed (w+1, seven
  -> one): the gap is above zero (a wrong number is not heard as right);
* *no answer*: ``match`` gives None (lengths too far apart to warp).

Then the whole ear: each held-out take 3-11 of each word (63 calls per
speaker), in the same floor, is heard as a call by ``Listener`` with The
Nasty 7's grammar while that word is owed by the enrolled player, with no
takes, the takes heard at setup, and the takes from the files; the second
table counts the calls ruled right, unsure, a mistake, or talk.

It prints one row per speaker and enrollment, and the setup's figures
(takes kept, asked again). Only the development speakers are in the raw set.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
import numpy.typing as npt
import soxr

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.audio import synth  # noqa: E402
from companion.games import make_game  # noqa: E402
from companion.games.base import Match  # noqa: E402
from companion.referee.judge import mono_of, read_wav_channels, set_grammar  # noqa: E402
from companion.referee.recognizer import open_recognizer  # noqa: E402
from companion.referee.stream import CallLevels, Listener  # noqa: E402
from companion.referee.templates import RATE, Enrollment, enrollment_of  # noqa: E402
from companion.voice.pack import load_pack  # noqa: E402
from companion.voice_setup import TakeStore, VoiceSetup  # noqa: E402

FSDD = ROOT.parent / "shared" / "human-calls" / "raw" / "fsdd"
if not FSDD.is_dir():  # a worktree in /work/wt/NAME
    FSDD = ROOT.parents[1] / "shared" / "human-calls" / "raw" / "fsdd"
WORDS = ("one", "two", "three", "four", "five", "six", "seven")
ENROLLED = range(3)
"""FSDD takes used for enrollment (the sessions never say them)."""


def fsdd(speaker: str, digit: int, take: int) -> npt.NDArray[np.int16] | None:
    path = FSDD / f"{digit}_{speaker}_{take}.wav"
    if not path.is_file():
        return None
    pcm, rate = read_wav_channels(path)
    return soxr.resample(mono_of(pcm), rate, RATE).astype(np.int16)


def in_room(clip: npt.NDArray[np.int16], seed: int) -> npt.NDArray[np.int16]:
    pad = round(0.3 * RATE)
    audio = synth.noise_floor(len(clip) + 2 * pad, rate=RATE, seed=seed)
    audio[pad:pad + len(clip)] += clip
    return np.clip(audio, -32768, 32767).astype(np.int16)


def heard_enrollment(speaker: str, recognizer: object) -> tuple[Enrollment, int, int]:
    """Enroll ``speaker`` through the live ear; ``(enrollment, takes kept,
    takes asked again)``."""
    order = [(w, k) for k in ENROLLED for w in WORDS]
    seconds = 2.0 + 1.5 * len(order) + 1.0
    audio = synth.noise_floor(round(seconds * RATE), rate=RATE, seed=17)
    for i, (w, k) in enumerate(order):
        clip = fsdd(speaker, WORDS.index(w) + 1, k)
        assert clip is not None
        at = round((2.0 + 1.5 * i) * RATE)
        audio[at:at + len(clip)] += clip
    pcm = np.clip(audio, -32768, 32767).astype(np.int16)
    match = Match(make_game("nasty7", ["Abby", "Beth"], {}))
    listener = Listener(recognizer, RATE)  # type: ignore[arg-type]
    set_grammar(listener, match)
    with tempfile.TemporaryDirectory() as tmp:
        setup = VoiceSetup(WORDS, TakeStore(Path(tmp)))
        setup.start(["Abby"])
        again = 0
        block = RATE // 50
        for at in range(0, len(pcm), block):
            for heard in listener.feed(pcm[at:at + block], at / RATE):
                prompt = setup.heard(heard.pcm, heard.rate)
                again += prompt is not None and setup.prompt is not None and setup.prompt.again
        for heard in listener.flush():
            setup.heard(heard.pcm, heard.rate)
    return setup.enrollment, setup.held("Abby"), again


def score(enrollment: Enrollment, speaker: str) -> tuple[int, int, int, int, int]:
    """``(owed fits, other refused, no answer, clips, comparisons)``."""
    fits = refused = none = clips = 0
    for i, w in enumerate(WORDS):
        other = WORDS[(i + 1) % len(WORDS)]
        for take in range(max(ENROLLED) + 1, 50):
            clip = fsdd(speaker, i + 1, take)
            if clip is None:
                continue
            x = in_room(clip, seed=take * 10 + i)
            clips += 1
            got = enrollment.match("Abby", [w], x)
            if got is None:
                none += 1
            elif got.gap < 0:
                fits += 1
            wrong = enrollment.match("Abby", [other], x)
            if wrong is not None and wrong.gap > 0:
                refused += 1
    return fits, refused, none, clips, 2 * clips


CALL_TAKES = range(3, 12)
"""Held-out takes heard as calls by the whole ear."""


def calls(speaker: str, recognizer: object, enrollment: Enrollment | None) -> dict[str, int]:
    """How the ear rules ``speaker``'s held-out takes as owed calls:
    ``{outcome: count}`` (``none``: no utterance heard)."""
    game = make_game("nasty7", ["Abby", "Beth"], {
        "virtual_deck": True, "seed": 1,
        "composition": {"racketeer": 12, "twin_racketeer": 0, "phone": 0, "twin_phone": 0,
                        "gun": 0}})
    match = Match(game)
    match.apply(game.parse_event({"type": "flip", "t": 1.0, "player": "Abby"}))
    out: dict[str, int] = {}
    levels = CallLevels()  # one table: the callers' loudness carries over
    for i, word in enumerate(WORDS):
        for take in CALL_TAKES:
            clip = fsdd(speaker, i + 1, take)
            if clip is None:
                continue
            listener = Listener(recognizer, RATE, levels=levels,  # type: ignore[arg-type]
                                enrollment=enrollment)
            set_grammar(listener, match)
            listener.set_expected([word], "Abby")
            x = np.concatenate([in_room(clip, seed=take), np.zeros(RATE // 2, np.int16)])
            heard = listener.feed(x, 0.0) + listener.flush()
            said = [h for h in heard if h.outcome != "talk"] or heard
            outcome = str(said[0].outcome) if said else "none"
            out[outcome] = out.get(outcome, 0) + 1
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--speakers", default="george,jackson,lucas")
    args = ap.parse_args()
    pack = load_pack("en")
    recognizer = open_recognizer("pocketsphinx", pack, notice=False)
    print("| speaker | templates from | takes kept | asked again | owed fits | "
          "other refused | no answer |")
    print("|---|---|---|---|---|---|---|")
    ruled: dict[str, dict[str, dict[str, int]]] = {}
    for speaker in args.speakers.split(","):
        heard, kept, again = heard_enrollment(speaker, recognizer)
        files = enrollment_of({"Abby": {w: [fsdd(speaker, i + 1, k) for k in ENROLLED]
                                        for i, w in enumerate(WORDS)}})
        for name, enrollment, k, a in (("heard at setup", heard, kept, again),
                                       ("the files", files, 21, 0)):
            fits, refused, none, clips, _ = score(enrollment, speaker)
            print(f"| {speaker} | {name} | {k} of 21 | {a} | {fits}/{clips} "
                  f"({100 * fits / clips:.1f} %) | {refused}/{clips} "
                  f"({100 * refused / clips:.1f} %) | {none} |")
        ruled[speaker] = {"no takes": calls(speaker, recognizer, None),
                          "heard at setup": calls(speaker, recognizer, heard),
                          "the files": calls(speaker, recognizer, files)}
    print()
    print("| speaker | takes | calls | right | unsure | mistake | talk or none |")
    print("|---|---|---|---|---|---|---|")
    for speaker, rows in ruled.items():
        for name, got in rows.items():
            n = sum(got.values())
            other = n - got.get("right", 0) - got.get("unsure", 0) - got.get("mistake", 0)
            print(f"| {speaker} | {name} | {n} | {got.get('right', 0)} | "
                  f"{got.get('unsure', 0)} | {got.get('mistake', 0)} | {other} |")


if __name__ == "__main__":
    main()
