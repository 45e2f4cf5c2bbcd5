"""The pocketsphinx backend: the bundled US English model with a grammar of the call.

The embedded default (no download): pocketsphinx 5's ``en-us`` acoustic model
and CMU dictionary. Each utterance is decoded with the **grammar** of a call:
one to ``max_words`` of the words that can matter now, in a row
(``call_grammar``: the language of the JSGF rule ``<call> = <word> [<word>]
[<word>]``, built as a finite-state grammar of its own).

A game word's **confidence** is the lower of two figures: (a) the word's
acoustic score per frame (pocketsphinx's, relative to the best senone of
each frame) through a logistic: a word the speaker really said fits its
frames closely; a word forced onto noise, a cough or table talk fits them
far worse; (b) the word's posterior probability in the grammar's lattice
(low when another game word fits the sound about as well, or for a word
tacked onto the trailing breath). ``SphinxSettings`` holds these thresholds.
Words the dictionary lacks take phones from the pack's ``[listen.phones]``.

The first figure was once the gap to a free phone loop (pocketsphinx's
``allphone`` search) decoded beside the grammar. pocketsphinx reports that
search's scores in its internal units (``SENSCR_SHIFT``: 1,024 times
smaller than a grammar word's), so the loop's score over a word's frames
was next to nothing beside the word's own: the confidences never depended
on it, while it was a large part of the ear's CPU. Scaled as a word's, the
gap told right words from wrong ones no better than the word's own score
(bench/RESULTS.md, "The phone loop dropped").
"""

from __future__ import annotations

import math
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from companion.errors import RecognizerError
from companion.referee import sphinx_decoder
from companion.referee.cmudict import CmuDictionary
from companion.referee.recognizer import Pcm, Recognizer, Spellings, Word

FRAME_S = 0.01
"""pocketsphinx's frame step, seconds."""


@dataclass(frozen=True)
class SphinxSettings:
    """Rejection and search settings (defaults in brackets).

    ``llr_center``: the word's acoustic score per frame, negated (nats
    below the best senone of each frame), at which its confidence is 0.5
    [5.5]. ``llr_slope``: nats per frame for a factor e in the odds [1.0].
    ``min_frames``: a word shorter than this many 10 ms frames gets
    confidence 0 [8]. ``wip``: the decoder's word insertion probability
    (pocketsphinx's default; far lower values cut real words) [0.65].
    ``max_words``: the most game words one utterance may hold [3]. More
    lets talk around a call come out as extra words the stream can weigh
    and drop, but the search grows fast; a loop grammar (``<word>+``) is as
    cheap as 3 but made more false mistakes. A game's ``utterance_items``
    (``Recognizer.set_vocabulary``'s ``items``) overrides it (see
    ``companion.games.cheat.CLAIM_ITEMS``). ``floor_dbfs``: the level
    (dBFS, RMS) of a seeded white noise floor added before decoding [-60.0];
    the acoustic model was trained on recordings that always hold some
    noise, and stretches of digital silence (zeros) around a call throw its
    energy and cepstral-mean features off (a microphone's own floor is about
    this level, so real input is barely changed). None adds nothing. The
    figures behind these are in bench/RESULTS.md, "Where the ear's constants
    came from".
    ``noise_fillers``: whether the grammar search also has the model's
    ``[NOISE]`` and ``[SPEECH]`` fillers, not only silence, between and
    around words [False]; without them it hears the same words with the
    same posteriors, and builds its lattice (``seg()``) with less CPU
    (``sphinx_decoder.SILENCE_FILLERS``; bench/RESULTS.md).
    ``wbeam``: the grammar search's word beam (pocketsphinx's ``-wbeam``: a
    word ending this far below the best word end of its 10 ms frame, as a
    ratio of likelihoods, is dropped) [7e-29, pocketsphinx's own]. The
    lattice the posteriors come from holds every word end that survives it.
    With the grammar compiled from JSGF, whose lattice cost grew with the
    square of its size, a narrower 1e-24 was chosen for CPU; with
    ``call_grammar`` the lattice is cheap enough for pocketsphinx's own,
    which on the human development split ruled more calls right and caught
    more wrong numbers than 1e-24, whose narrower beam also lost some calls
    that end with the audio (the word end into the grammar's final state
    fell outside it) (bench/RESULTS.md, "A grammar of the call built for
    pocketsphinx's lattice", "A narrower word beam for the grammar
    decoder").
    ``grammar``: ``"call"`` builds the call's grammar as a small finite-state
    grammar (``call_grammar``) [the default]; ``"jsgf"`` has pocketsphinx
    compile the same language from its JSGF rule, whose lattice holds far
    more nodes: much slower, and the posteriors the decision was first
    calibrated on (``SphinxRecognizer.confirmer``).
    ``model``: the folder of the acoustic model (pocketsphinx's ``-hmm``)
    [None: the bundled ``en-us``]; a player's adapted model
    (``companion.referee.adaptation``, ``SphinxRecognizer.adapted``)."""

    llr_center: float = 5.5
    llr_slope: float = 1.0
    min_frames: int = 8
    wip: float = 0.65
    max_words: int = 3
    floor_dbfs: float | None = -60.0
    noise_fillers: bool = False
    wbeam: float = 7e-29
    grammar: Literal["call", "jsgf"] = "call"
    model: str | None = None


def _token(phrase: str) -> str:
    return " ".join(phrase.split())


def call_grammar(decoder: Any, phrases: list[list[str]], most: int) -> Any:
    """The finite-state grammar of a call: a phrase, then up to ``most - 1``
    more, each any of ``phrases`` (a phrase: its words, each in
    ``decoder``'s dictionary). It is the language of the JSGF rule ``<call>
    = <word> [<word>] ...`` with its weights (each phrase equally likely at
    each place, each optional place taken or passed by with even odds), built
    as a ``pocketsphinx.FsgModel`` instead of compiled from the rule:
    pocketsphinx's JSGF compiler adds a state for each rule, group and
    phrase, the search puts a silence loop on every state, and its lattice
    (``fsg_search_lattice``) then holds a node of silence for each of them
    after every word end, and finds each node by a walk over all of them,
    which took most of the grammar decode's CPU (bench/RESULTS.md). Here
    each place is one state, each phrase at each place ends in a state of
    its own (so word ends of different words stay apart in the search, as
    in the compiled rule, and the lattice still holds the words that
    compete with the one heard), and a place passed by is one empty arc.
    The language weight is the decoder's (``-lw``). Raises what
    ``pocketsphinx.FsgModel`` raises."""
    import pocketsphinx

    inner = sum(len(p) - 1 for p in phrases)
    n_states = most + 1 + most * (len(phrases) + inner)
    lines = [f"FSG_BEGIN call\nNUM_STATES {n_states}\nSTART_STATE 0\nFINAL_STATE {most}"]
    state = most + 1
    for place in range(most):
        take = 1.0 if place == 0 else 0.5
        for words in phrases:
            at, p = place, take / len(phrases)
            for word in words:
                lines.append(f"TRANSITION {at} {state} {p!r} {word}")
                at, p, state = state, 1.0, state + 1
            lines.append(f"TRANSITION {at} {place + 1} 1.0")
        if place > 0:
            lines.append(f"TRANSITION {place} {place + 1} 0.5")
    lines.append("FSG_END\n")
    # pocketsphinx's reader also adds the closure of the empty arcs, which
    # its search needs (it follows one empty arc per word end).
    with tempfile.TemporaryDirectory(prefix="companion-") as folder:
        path = Path(folder) / "call.fsg"
        path.write_text("\n".join(lines), encoding="ascii")
        return pocketsphinx.FsgModel.readfile(str(path), decoder.get_logmath(),
                                              float(decoder.config["lw"]))


class SphinxRecognizer(Recognizer):
    """pocketsphinx with the bundled ``en-us`` model at 16,000 Hz.
    ``dictionary``: where the
    pronunciations of the words listened for are read (default: the bundled
    CMU dictionary, ``CmuDictionary``); the decoder holds only those words,
    with the pack's phones added. Raises ``RecognizerError`` if pocketsphinx
    or its model cannot be loaded."""

    name = "pocketsphinx"
    sample_rate = 16000
    twins = True
    adaptable = True

    def __init__(self, spellings: Spellings | None = None,
                 settings: SphinxSettings | None = None, *,
                 dictionary: CmuDictionary | None = None) -> None:
        super().__init__(spellings)
        self.settings = settings or SphinxSettings()
        try:
            self.dictionary = dictionary or CmuDictionary()
            """Where the words' pronunciations come from."""
            self._decoder = sphinx_decoder.one_word_decoder(
                None if self.settings.noise_fillers else sphinx_decoder.SILENCE_FILLERS,
                wip=self.settings.wip, wbeam=self.settings.wbeam,
                **({"hmm": self.settings.model} if self.settings.model else {}))
        except (ImportError, RuntimeError, OSError) as exc:
            raise RecognizerError(f"pocketsphinx cannot be loaded: {exc}") from None
        self._logmath = self._decoder.get_logmath()
        self._by_spoken: dict[str, str] = {}
        self._grammars = 0
        self._added: set[str] = set()
        self._twin: SphinxRecognizer | None = None
        self._confirmer: SphinxRecognizer | None = None

    def twin(self) -> SphinxRecognizer:
        """A second pocketsphinx recognizer with a decoder of its own (made
        on the first call): the model's noise removal (``-remove_noise``)
        carries its noise estimate from one utterance to the next, so a
        second hearing decoded by this one would move the verdicts on the
        utterances after it. It reads the same dictionary. Costs a second
        acoustic model's memory (bench/RESULTS.md). Raises
        ``RecognizerError`` if pocketsphinx cannot load it."""
        if self._twin is None:
            self._twin = self._sibling(self.settings)
        return self._twin

    def _sibling(self, settings: SphinxSettings) -> SphinxRecognizer:
        """A recognizer with ``settings``, this one's spellings and
        dictionary, and a decoder of its own. Raises ``RecognizerError`` if
        pocketsphinx cannot load it."""
        return SphinxRecognizer(self.spellings, settings, dictionary=self.dictionary)

    def confirmer(self) -> SphinxRecognizer | None:
        """With the call's small grammar (``SphinxSettings.grammar`` "call"),
        a recognizer with the grammar compiled from JSGF at the word beam
        the ear had with it (1e-24) and a decoder of its own (made on the
        first call: a ``Listener`` asks for it when it starts); None with
        the JSGF grammar already. The small grammar's lattice gives its
        words higher posteriors, which on the simulated arrays' development
        tables let correct calls come out as surer wrong words than the
        decision was calibrated for; a mistake is ruled only when the JSGF
        hearing, on which it was, agrees, and a game that never says what a
        call owes (Cheat) gets its sure words from that hearing
        (``companion.referee.stream``). A mistake is rare, so its slower
        decode is too. Costs a third acoustic model's memory. Raises
        ``RecognizerError`` if pocketsphinx cannot load it."""
        if self.settings.grammar == "jsgf":
            return None
        if self._confirmer is None:
            self._confirmer = self._sibling(replace(self.settings, grammar="jsgf", wbeam=1e-24))
        return self._confirmer

    def adapted(self, model: Path) -> SphinxRecognizer:
        """A recognizer like this one (its settings, spellings and
        dictionary) on the acoustic model in folder ``model`` (a player's,
        ``companion.referee.adaptation.Adapter``), with a decoder of its
        own. Raises ``RecognizerError`` if pocketsphinx cannot load it."""
        return self._sibling(replace(self.settings, model=str(model)))

    def _known(self, word: str, game_word: str) -> bool:
        """Whether the decoder can listen for ``word`` (one word of
        ``game_word``'s spoken form), adding its pronunciations the first
        time: the dictionary's as ``word``, ``word(2)``, ..., then the pack's
        phones ("|" separates alternatives) after them. Raises ``OSError``
        if the dictionary cannot be read (``_compile`` reads it first)."""
        if word not in self._added:
            for k, alt in enumerate(self.dictionary.pronunciations(word), start=1):
                name = word if k == 1 else f"{word}({k})"
                if self._decoder.lookup_word(name) is None:  # (the one word is "a")
                    self._decoder.add_word(name, alt, True)
            phones = self.spellings.phones.get(word) or self.spellings.phones.get(game_word)
            k = 1
            for alt in (p.strip() for p in phones.split("|")) if phones else ():
                name = word if k == 1 else f"{word}({k})"
                while self._decoder.lookup_word(name) is not None:
                    k += 1
                    name = f"{word}({k})"
                self._decoder.add_word(name, alt, True)
            self._added.add(word)
        return self._decoder.lookup_word(word) is not None

    def _compile(self, vocabulary: tuple[str, ...]) -> None:
        by_spoken: dict[str, str] = {}
        spoken_words = {w for g in vocabulary for w in self.spellings.spoken(g).split()}
        try:
            self.dictionary.look_up(spoken_words)  # one pass over the file for all
        except OSError as exc:
            raise RecognizerError(f"pocketsphinx's dictionary cannot be read: {exc}") from None
        for game_word in vocabulary:
            spoken = _token(self.spellings.spoken(game_word))
            if all(self._known(w, game_word) for w in spoken.split()):
                by_spoken[spoken] = game_word
        if not by_spoken:
            raise RecognizerError(
                f"pocketsphinx knows none of the words {list(vocabulary)!r}; "
                "give them phones in the voice pack's [listen.phones]")
        most = max(1, self.items or self.settings.max_words)
        self._grammars += 1
        name = f"call{self._grammars}"
        try:
            if self.settings.grammar == "jsgf":
                alternatives = " | ".join(f"( {s} )" for s in by_spoken)
                self._decoder.add_jsgf_string(name, (
                    "#JSGF V1.0;\ngrammar call;\n"
                    f"<word> = {alternatives};\n"
                    f"public <call> = <word>{' [ <word> ]' * (most - 1)};\n"))
            else:
                self._decoder.add_fsg(name, call_grammar(
                    self._decoder, [s.split() for s in by_spoken], most))
        except (RuntimeError, ValueError) as exc:
            raise RecognizerError(f"pocketsphinx refused the grammar: {exc}") from None
        if self._grammars > 1:
            self._decoder.remove_search(f"call{self._grammars - 1}")
        self._search = name
        self._by_spoken = by_spoken

    def decode(self, pcm: Pcm) -> list[Word]:
        """Game words in one utterance at 16 kHz; see the module docstring."""
        if not self.vocabulary:
            raise RecognizerError("set_vocabulary() before decode()")
        raw = with_floor(np.asarray(pcm, dtype=np.int16), self.settings.floor_dbfs).tobytes()
        self._decoder.activate_search(self._search)
        segs = sphinx_decoder.best_path(self._decoder, raw)
        s = self.settings
        words: list[Word] = []
        spoken_parts: list[tuple[str, int, int, float, float]] = []
        for word, start, end, score, posterior in segs:
            base = word.split("(")[0]
            if base.startswith(("<", "[", "+")):
                continue
            spoken_parts.append((base, start, end, score, posterior))
        # Join multi-word phrases back into their game word.
        i = 0
        while i < len(spoken_parts):
            matched = False
            for spoken, game_word in sorted(self._by_spoken.items(), key=lambda kv: -len(kv[0])):
                n = len(spoken.split())
                chunk = spoken_parts[i:i + n]
                if " ".join(p[0] for p in chunk) == spoken:
                    start, end = chunk[0][1], chunk[-1][2]
                    score = sum(p[3] for p in chunk)
                    conf = word_confidence(s, score, end - start + 1,
                                           min(p[4] for p in chunk))
                    words.append(Word(game_word, start * FRAME_S, (end + 1) * FRAME_S,
                                      round(conf, 3)))
                    i += n
                    matched = True
                    break
            if not matched:
                i += 1
        return words


def with_floor(pcm: Pcm, dbfs: float | None, seed: int = 0) -> Pcm:
    """``pcm`` (int16) plus white noise at ``dbfs`` RMS relative to int16 full
    scale, the same noise for the same length and ``seed`` (decoding is
    repeatable); ``pcm`` itself when ``dbfs`` is None."""
    if dbfs is None or len(pcm) == 0:
        return pcm
    noise = _floors.get((dbfs, seed))
    if noise is None or len(noise) < len(pcm):
        # Drawn once and sliced: a generator's first n draws are the same
        # whatever the length asked for, so this is the noise drawn anew.
        noise = np.random.default_rng(seed).normal(
            0.0, 32768.0 * 10 ** (dbfs / 20), max(len(pcm), FLOOR_DRAWN))
        noise.flags.writeable = False
        _floors[(dbfs, seed)] = noise
    return np.clip(np.round(pcm + noise[:len(pcm)]), -32768, 32767).astype(np.int16)


FLOOR_DRAWN = 4 * 16000
"""Samples of each floor's noise drawn at once (an utterance is at most a
few seconds at 16 kHz); a longer one draws it again at its length."""
_floors: dict[tuple[float, int], npt.NDArray[np.float64]] = {}


def word_confidence(settings: SphinxSettings, score: float, frames: int,
                    posterior: float) -> float:
    """A game word's confidence, 0..1, from its acoustic ``score`` (nats,
    pocketsphinx's, over its ``frames`` 10 ms frames) and its lattice
    ``posterior``: the lower of the score per frame through the logistic of
    ``settings.llr_center`` and ``llr_slope`` and the posterior; 0 for a
    word shorter than ``settings.min_frames``."""
    if frames < settings.min_frames:
        return 0.0
    gap = -score / frames
    return min(_logistic((settings.llr_center - gap) / settings.llr_slope), posterior)


def _logistic(x: float) -> float:
    if x < -50:
        return 0.0
    return 1.0 / (1.0 + math.exp(-x))
