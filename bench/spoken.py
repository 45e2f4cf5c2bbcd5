"""How long the companion takes to say its rulings: the spoken lines of one
event, rendered with espeak-ng at the speaker's rate and measured with sox
(leading and trailing silence trimmed), in seconds, for a four-letter and a
twelve-letter name. Run: ``.venv/bin/python bench/spoken.py``.

The length of synthesized speech is a property of the sentence, so the
figures are the same on a Raspberry Pi; ``tests/test_spoken_length.py``
checks the four-letter case against issue 19's 3 s.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from companion.games.cheat import ChallengeWon, Turn
from companion.games.nasty7 import AccusationUnheard, Mistake, PenaltyCards, Pile, Round
from companion.rulings import Ruling, Undone, Winner
from companion.voice.pack import load_pack
from companion.voice.phrases import respelled, spoken_lines
from companion.voice.synth import DEFAULT_WORDS_PER_MINUTE

OLD = ("{p}: wrong number. I heard five, it was one. {p} takes 11 cards. "
       "New round. {p} starts at one.")
"""The ruling as it was said before issue 19 (four sentences)."""


def seconds(text: str, folder: Path) -> float:
    """Seconds of speech in ``text`` at the speaker's rate, silence trimmed."""
    pack = load_pack("en")
    wav, trimmed = folder / "said.wav", folder / "trimmed.wav"
    subprocess.run(["espeak-ng", "-v", pack.espeak_voice, "-s", str(DEFAULT_WORDS_PER_MINUTE),
                    "-w", str(wav), respelled(text, pack)], check=True)
    subprocess.run(["sox", str(wav), str(trimmed), "silence", "1", "0.02", "1%",
                    "reverse", "silence", "1", "0.02", "1%", "reverse"], check=True)
    out = subprocess.run(["soxi", "-D", str(trimmed)], check=True, capture_output=True,
                         text=True)
    return float(out.stdout)


def events(p: str, q: str, r: str) -> dict[str, list[Ruling]]:
    """One event's rulings per case, with the offender ``p`` and other players ``q``, ``r``."""
    def mistake(kind: str, heard: list[str], expected: list[str],
                **extra: str) -> list[Ruling]:
        return [Mistake(t=1.0, player=p, kind=kind, heard=heard, expected=expected, **extra),
                Pile(t=1.0, player=p, cards=11), Round(t=1.0, starter=p)]
    return {
        "wrong number": mistake("wrong_number", ["five"], ["one"]),
        "wrong twin number": mistake("wrong_number", ["seven"], ["eleven", "twelve"]),
        "wrong word": mistake("wrong_word", ["seven"], ["hmmrrr"]),
        "wrong sound": mistake("wrong_sound", ["pfft"], ["hmmrrr", "hmmrrr"]),
        "too slow": mistake("hesitation", [], ["nine"]),
        "not your turn": mistake("out_of_turn", [], []),
        "false accusation": mistake("false_accusation", [], [], accused=q),
        "even more nasty": [*mistake("wrong_number", ["two"], ["one"]),
                            PenaltyCards(t=1.0, player=p, cards=3)],
        "unheard call": [AccusationUnheard(t=1.0, player=q)],
        "two false accusers": [
            Mistake(t=1.0, player=p, kind="false_accusation", heard=[], expected=[], accused=r),
            Mistake(t=1.0, player=q, kind="false_accusation", heard=[], expected=[], accused=r),
            Pile(t=1.0, player=p, cards=4), Pile(t=1.0, player=q, cards=3),
            Round(t=1.0, starter=q)],
        "cheat challenge": [ChallengeWon(t=1.0, player=q, claimant=p, cards=["4", "6"],
                                         rank="5", next=q),
                            Pile(t=1.0, player=p, cards=9), Turn(t=1.0, player=q)],
        "undo": [Undone(t=2.0, what="flip", at=1.0)],
        "winner": [Winner(t=1.0, player=p)],
    }


def main() -> None:
    pack = load_pack("en")
    undone = {"type": "flip", "t": 1.0, "player": "Beth", "card": "twin_racketeer"}
    short = events("Abby", "Beth", "Cleo")
    long = events("Christabelle", "Maximilianus", "Wilhelmina J")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print(f"espeak-ng {pack.espeak_voice} at {DEFAULT_WORDS_PER_MINUTE} words per minute")
        print(f"{'event':<20}{'4 letters':>10}{'12 letters':>11}  said (4 letters)")
        for name in short:
            lines = [s for s in spoken_lines(short[name], pack, undone=undone) if s]
            lines_long = [s for s in spoken_lines(long[name], pack, undone=undone) if s]
            a = sum(seconds(s, folder) for s in lines)
            b = sum(seconds(s, folder) for s in lines_long)
            print(f"{name:<20}{a:>9.2f}s{b:>10.2f}s  {' / '.join(lines)}")
        print(f"{'before (issue 19)':<20}{seconds(OLD.format(p='Abby'), folder):>9.2f}s"
              f"{seconds(OLD.format(p='Christabelle'), folder):>10.2f}s  {OLD.format(p='Abby')}")


if __name__ == "__main__":
    main()
