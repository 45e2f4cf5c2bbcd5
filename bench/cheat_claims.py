"""Cheat claims by ear: how often each recognizer lets the engine take the right claim.

Run ``.venv/bin/python bench/cheat_claims.py`` (``--quick`` for a small
run); ``bench/referee.py`` prints the same section after its own tables.

A *claim trial* is one spoken claim ("three fours", "a king", "one jack"),
with a random count (1-4) and rank, said by a voice of the family (espeak-ng
or Piper, ``companion.audio.synth``) 0.3-1.5 s into the clip, in each
acoustic condition of ``trials.CONDITIONS``. Each clip is heard twice, at
two places in a four-player game:

- *first*: the first claim of the game (any rank is legal);
- *mid-pile*: Beth's claim after Abby's claim of one card of a rank that
  makes the spoken claim legal (one below, the same or one above, in turn
  over the trials), Abby's challenge window still open.

Each backend (``backends.py``) streams the clip in 30 ms frames with the
grammar ``Cheat.listen_words`` gives for that moment; the words of each
utterance become one ``say`` event, judged by the real engine
(``companion.games.cheat``) from that moment's state.

Figures, over trials, by the engine's first ruling on the claim:

- *right*: ``claim_ok`` with the spoken count and rank.
- *wrong claim*: ``claim_ok`` with another claim (harmful: the table plays
  on a misheard claim).
- *ruled a breach*: ``claim_illegal`` or ``claim_too_many`` for a claim that
  was legal (the worst outcome: a player who claimed rightly is told they
  broke a rule).
- *asked again*: ``ask_claim`` (the player says it again, or the page
  enters it).
- *missed*: nothing ruled. At a table, the turn LED staying on the player is
  then the only sign, and the next claim heard would be taken as theirs.
- *RTF*: wall-clock compute seconds over audio seconds; *CPU RTF*: CPU
  seconds over audio seconds (as in ``referee.py``).

Words heard with confidence below the engine's ``min_confidence`` (0.5) are
never acted on, so a backend whose confidences run low scores *missed*.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import numpy as np

# This checkout's bench modules and companion, not the companion the environment
# installed (a worktree's run with another checkout's venv measured that one).
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import backends
import trials as tr

from companion.audio import synth
from companion.audio.synth import Synth
from companion.events import Say
from companion.games import make_game
from companion.games.base import Match
from companion.games.cheat import RANKS, Cheat, CheatState, Claim
from companion.voice.pack import load_pack

DEFAULT_BACKENDS = ("companion-pocketsphinx", "companion-vosk", "ps-lm", "whisper-tiny")
"""The backends of a full run, the default recognizer first (as ``referee.py``)."""

OUTCOMES = ("right", "wrong", "breach", "asked", "missed")
"""A claim trial's outcomes (see the module docstring), in the table's order."""

PILES = ("first", "mid-pile")
"""Where in the game each clip is heard (see the module docstring)."""


@dataclass(frozen=True)
class ClaimTrial:
    """One spoken claim: ``text`` said by ``voice`` at ``onset`` seconds."""

    id: str
    family: str
    voice: str
    text: str
    count: int
    rank: str
    onset: float


def new_match(after: str | None = None) -> Match[CheatState]:
    """A four-player game at its first claim (any rank is legal), or, given
    ``after``, at Beth's claim after Abby's claim of one ``after`` (at
    t = 0, so Abby's challenge window is open)."""
    match = Match(make_game("cheat", ["Abby", "Beth", "Carter", "Debbie"],
                            lexicon=load_pack("en").lexicon))
    if after is not None:
        match.apply(Claim(t=0.0, player="Abby", count=1, rank=after))
    return match


def after_rank(trial: ClaimTrial, index: int) -> str:
    """The rank of the claim before ``trial``'s mid-pile hearing: one below,
    the same or one above its rank, by ``index`` (so all three occur)."""
    i = RANKS.index(trial.rank)
    return RANKS[(i + (-1, 0, 1)[index % 3]) % len(RANKS)]


def phrase(game: Cheat, count: int, rank: str, rng: np.random.Generator) -> str:
    """How a player says a claim: "three fours"; for one card "one king",
    "a king" or "an ace" (the article that fits the word,
    ``Lexicon.articles_for``)."""
    words = [w for w, r in game.lexicon.ranks.items() if r == rank]
    singular, plural = words[0], words[-1]
    lex = game.lexicon
    if count > 1:
        return f"{lex.number_word(count)} {plural}"
    article = lex.articles_for(singular)[0]
    return f"{rng.choice([lex.number_word(1), article])} {singular}"


def plan(n: int, family: str, *, seed: int) -> list[ClaimTrial]:
    """``n`` seeded claim trials for one voice family."""
    rng = np.random.default_rng(seed)
    game = new_match().game
    assert isinstance(game, Cheat)
    voices = tr.FAMILIES[family]
    out = []
    for i in range(n):
        count = int(rng.integers(1, 5))
        rank = str(rng.choice(RANKS))
        voice = voices[int(rng.integers(len(voices)))]
        out.append(ClaimTrial(id=f"{family}-{i}", family=family, voice=voice.label,
                              text=phrase(game, count, rank, rng), count=count, rank=rank,
                              onset=float(rng.uniform(0.3, 1.5))))
    return out


def render(trial: ClaimTrial, sy: Synth, condition: str, *, seed: int) -> np.ndarray:
    """The trial's clip in ``condition`` (16-bit PCM at ``backends.RATE``)."""
    pcm = sy.utterance(trial.text, tr.voice_of(trial.voice), rate=backends.RATE)
    clip = synth.place([(trial.onset, pcm, trial.text)],
                       seconds=trial.onset + len(pcm) / backends.RATE + tr.TAIL,
                       rate=backends.RATE)
    return tr.in_condition(clip, condition, sy, seed=seed).audio


def judge(trial: ClaimTrial, says: list[Say], after: str | None = None) -> str:
    """One of ``OUTCOMES`` (see the module docstring) for ``says`` heard at
    the first claim, or mid-pile after a claim of ``after``."""
    match = new_match(after)
    for say in says:
        for ruling in match.apply(say):
            data = ruling.to_dict()
            if data["type"] == "claim_ok":
                ok = (data["count"], data["rank"]) == (trial.count, trial.rank)
                return "right" if ok else "wrong"
            if data["type"] in ("claim_illegal", "claim_too_many"):
                return "breach"
            if data["type"] == "ask_claim":
                return "asked"
    return "missed"


def hear(backend: backends.Backend, audio: np.ndarray, words: list[str],
         items: int | None = None) -> tuple[list[Say], float, float]:
    """Stream ``audio`` through ``backend`` with the grammar ``words`` (at
    most ``items`` per utterance); one ``say`` per utterance (the words one
    ``feed`` returned), the wall-clock compute seconds and the CPU seconds."""
    cpu_started = time.process_time()
    backend.begin(words, items)
    frame = backends.FRAME
    says: list[Say] = []
    spent = 0.0

    def collect(items: list[backends.Heard]) -> None:
        items = [h for h in items if h.text]
        if items:
            says.append(Say(t=max(0.0, items[0].onset), text=" ".join(h.text for h in items),
                            confidence=min(h.confidence for h in items),
                            end=max(0.0, items[-1].end)))

    for k in range(len(audio) // frame + 1):
        started = time.perf_counter()
        chunk = audio[k * frame:(k + 1) * frame]
        items = backend.feed(chunk.tobytes()) if len(chunk) == frame else backend.finish()
        spent += time.perf_counter() - started
        collect(items)
    return says, spent, time.process_time() - cpu_started


def run_backend(name: str, planned: dict[str, list[tuple[ClaimTrial, np.ndarray]]]
                ) -> dict[str, Any]:
    """One backend over every condition's clips, each heard at both places
    of ``PILES``: outcome counts per (condition, pile)."""
    if name == "companion-vosk" and (reason := backends.vosk_english_missing()):
        return {"backend": name, "skipped": reason}
    try:
        backend = backends.make(name)
    except (ImportError, OSError, RuntimeError) as exc:
        return {"backend": name, "skipped": f"cannot be loaded here ({exc})"}
    rows: dict[tuple[str, str], dict[str, float]] = {}
    for condition, items in planned.items():
        for pile in PILES:
            counts = dict.fromkeys((*OUTCOMES, "compute", "cpu", "seconds"), 0.0)
            for index, (trial, audio) in enumerate(items):
                after = after_rank(trial, index) if pile == "mid-pile" else None
                moment = new_match(after)
                words = moment.game.listen_words(moment.state)
                most = moment.game.utterance_items(moment.state)
                says, spent, cpu = hear(backend, audio, words, most)
                counts[judge(trial, says, after)] += 1
                counts["compute"] += spent
                counts["cpu"] += cpu
                counts["seconds"] += len(audio) / backends.RATE
            rows[(condition, pile)] = counts
    return {"backend": name, "rows": rows}


def section(names: list[str], n: int, seed: int) -> str:
    """The printed Markdown section: per backend and condition, ``n`` claim
    trials per voice family pooled."""
    sy = Synth()
    trials = [t for f_index, family in enumerate(tr.FAMILIES)
              for t in plan(n, family, seed=seed * 1000 + f_index)]
    planned = {c: [(t, render(t, sy, c, seed=seed + 31 * i)) for i, t in enumerate(trials)]
               for c in tr.CONDITIONS}
    lines = [f"Cheat claims by ear: {n} claims per voice family "
             f"({', '.join(tr.FAMILIES)}), each in {len(tr.CONDITIONS)} conditions; "
             f"seed {seed}; each heard as the first claim and mid-pile (legal there). "
             "Grammar: Cheat.listen_words at that moment.", "",
             "| backend | condition | pile | right | wrong claim | ruled a breach | "
             "asked again | missed | n | RTF | CPU RTF |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    skipped = []
    for name in names:
        res = run_backend(name, planned)
        if "skipped" in res:
            skipped.append(f"{name}: skipped: {res['skipped']}")
            continue
        for (condition, pile), c in res["rows"].items():
            total = sum(c[k] for k in OUTCOMES)
            pct = " | ".join(f"{100 * c[k] / total:.1f}%" for k in OUTCOMES)
            rtf = c["compute"] / c["seconds"] if c["seconds"] else 0.0
            cpu = c["cpu"] / c["seconds"] if c["seconds"] else 0.0
            lines.append(f"| {name} | {condition} | {pile} | {pct} | {total:.0f} | {rtf:.3f} "
                         f"| {cpu:.3f} |")
    if skipped:
        lines += ["", *skipped]
    return "\n".join(lines)


@click.command()
@click.option("--quick", is_flag=True, help="A small run: 3 claims per voice family.")
@click.option("--claims", "n", type=click.IntRange(1, 1000), default=12, show_default=True,
              help="Claims per voice family (each in every condition).")
@click.option("--backends", "names", default=",".join(DEFAULT_BACKENDS), show_default=True,
              help="Comma-separated backends.")
@click.option("--seed", type=int, default=1, show_default=True)
def main(quick: bool, n: int, names: str, seed: int) -> None:
    """Benchmark Cheat claim recognition on generated speech."""
    started = time.perf_counter()
    chosen = [x.strip() for x in names.split(",") if x.strip()]
    click.echo(section(chosen, 3 if quick else n, seed))
    click.echo(f"\nWall time: {time.perf_counter() - started:.0f} s.")


if __name__ == "__main__":
    main()
