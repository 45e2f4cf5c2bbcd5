"""Learning each player's voice at setup: their takes of the count words.

The page (``/voices``) takes each player in turn through the count words
("one" to "seven" in English) and the wrong numbers just past the count
("zero", "eight", "nine": ``referee.enrollment.wrong_numbers``),
``ROUNDS`` times over, one word at a time:
``VoiceSetup.start(players)`` makes the live table hand the next utterance
it hears to ``heard`` as the prompted player's take of the prompted word
(the way ``SeatSetup`` takes the next voice's direction). A take with too
little voice, or too long to be one word, is asked for again. Each kept
take goes at once into the ``Enrollment`` the live ear compares calls with
(``companion.referee.templates``), and is written by ``TakeStore`` as a
16 kHz mono WAV under the state directory, kept by player name, so the
voices serve every game of the evening (and after a restart). ``attach``
records the game in play's ``enrollment`` header field
(``companion.referee.enrollment``; paths relative to the state directory),
so ``companion replay --game`` compares calls with the same takes.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import threading
import wave
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import soxr

from companion.errors import StoreError
from companion.referee import embedding, templates
from companion.referee.enrollment import Takes, load_enrollment
from companion.referee.templates import RATE, Enrollment, trim

log = logging.getLogger(__name__)

ROUNDS = 3
"""Takes of each word a player gives: three make the templates reliable
(the lead's figures for three takes per word are in bench/RESULTS.md)."""

MAX_TAKE_S = 1.5
"""A take whose loud part (``templates.trim``) lasts longer than this many
seconds is not one count word (a call lasts about a second: ``stream.
EARLY_MAX_S``) but talk or two words: it is asked for again."""

VOICES_DIR = "voices"
"""The folder of the state directory the takes are kept in."""

INDEX_FILE = "takes.json"
"""Each player's folder lists their current takes in this file."""


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:24] or "x"


class TakeStore:
    """Each player's takes as WAV files under ``state/voices/``: one folder
    per player name (a readable slug and a digest of the exact name, so
    "Abby" and "abby" differ), ``<word>-<n>.wav`` in it (16-bit mono PCM at
    ``templates.RATE`` Hz) and ``takes.json`` listing the current ones.
    A take file is never overwritten or deleted: an older game's header may
    name it (``forget`` only empties the list). A file that cannot be
    written raises ``StoreError`` (an ``OSError``)."""

    def __init__(self, state: Path) -> None:
        self.state = Path(state)
        self.root = self.state / VOICES_DIR

    def folder(self, player: str) -> Path:
        """The folder of ``player``'s takes."""
        digest = hashlib.sha256(player.encode()).hexdigest()[:8]
        return self.root / f"{_slug(player)}-{digest}"

    def takes(self, player: str) -> dict[str, list[str]]:
        """``{word: [path relative to the state directory, ...]}`` of
        ``player``'s current takes (empty when none, or when the list is
        unreadable, which is logged)."""
        index = self.folder(player) / INDEX_FILE
        try:
            data = json.loads(index.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.warning("cannot read %s: %s; %s's voice is learnt anew", index, exc, player)
            return {}
        words = data.get("takes") if isinstance(data, dict) else None
        if not isinstance(words, dict):
            return {}
        rel = self.folder(player).relative_to(self.state)
        return {str(w): [str(rel / str(f)) for f in files if isinstance(f, str)]
                for w, files in words.items() if isinstance(files, list) and files}

    def add(self, player: str, word: str, pcm: npt.NDArray[np.int16]) -> str:
        """Write one take (mono samples at ``templates.RATE`` Hz) and list
        it; returns its path relative to the state directory."""
        try:
            return self._add(player, word, pcm)
        except OSError as exc:
            raise StoreError(f"cannot keep {player}'s voice in {str(self.root)!r}: {exc}") \
                from None

    def _add(self, player: str, word: str, pcm: npt.NDArray[np.int16]) -> str:
        folder = self.folder(player)
        folder.mkdir(parents=True, exist_ok=True)
        stem = _slug(word)
        used = [int(m.group(1)) for p in folder.glob(f"{stem}-*.wav")
                if (m := re.fullmatch(rf"{re.escape(stem)}-(\d+)\.wav", p.name))]
        name = f"{stem}-{max(used, default=0) + 1}.wav"
        tmp = folder / f".{name}.{os.getpid()}"
        with wave.open(str(tmp), "wb") as wf:
            wf.setnchannels(1)
            wf.setsampwidth(2)
            wf.setframerate(RATE)
            wf.writeframes(np.ascontiguousarray(pcm, dtype="<i2").tobytes())
        os.replace(tmp, folder / name)
        files = {w: [Path(p).name for p in paths] for w, paths in self.takes(player).items()}
        files.setdefault(word, []).append(name)
        self._write_index(player, files)
        return str((folder / name).relative_to(self.state))

    def forget(self, player: str) -> None:
        """Empty ``player``'s list of takes (the files stay)."""
        try:
            if (self.folder(player) / INDEX_FILE).exists():
                self._write_index(player, {})
        except OSError as exc:
            raise StoreError(f"cannot forget {player}'s voice in {str(self.root)!r}: {exc}") \
                from None

    def _write_index(self, player: str, files: dict[str, list[str]]) -> None:
        index = self.folder(player) / INDEX_FILE
        tmp = index.with_name(f".{INDEX_FILE}.{os.getpid()}")
        tmp.write_text(json.dumps({"player": player, "takes": files}), encoding="utf-8")
        os.replace(tmp, index)


@dataclass(frozen=True)
class Prompt:
    """What the setup waits for: ``player`` saying ``word``, their take
    number ``take`` (1 to ``ROUNDS``) of it; ``again``: the last try was
    not kept (too little voice, or not one word)."""

    player: str
    word: str
    take: int
    again: bool = False


class VoiceSetup:
    """The players' takes of ``words`` and then ``wrong`` (``ROUNDS`` each),
    learnt one at a time. ``words``: the count words; ``wrong``: wrong
    numbers enrolled besides them, whose takes the ear compares with a
    call only when it heard that number (``Enrollment.counted`` is set to
    ``words`` when any are given). ``store``: where takes are kept (None:
    in memory only). ``enrollment``: the templates the live ear uses (a
    new one by default); kept takes are added to it at once.
    ``on_change()`` is called after every change of anyone's takes (to
    record them with the game)."""

    def __init__(self, words: Sequence[str], store: TakeStore | None = None, *,
                 rounds: int = ROUNDS, enrollment: Enrollment | None = None,
                 on_change: Callable[[], None] | None = None,
                 wrong: Sequence[str] = ()) -> None:
        counted = tuple(w.strip().lower() for w in words)
        self.words = counted + tuple(w.strip().lower() for w in wrong
                                     if w.strip().lower() not in counted)
        self.store = store
        self.rounds = rounds
        self.enrollment = enrollment if enrollment is not None else Enrollment()
        if wrong:
            self.enrollment.counted = frozenset(counted)
        self.on_change = on_change
        self.queue: list[str] = []
        self._again = False
        self._lock = threading.Lock()
        self._warming: threading.Thread | None = None  # ``load``'s takes being embedded

    # -- what is held --------------------------------------------------------------

    def held(self, player: str) -> int:
        """How many of ``player``'s takes of ``words`` are held (each word
        counts up to ``rounds``)."""
        mine = self.enrollment.takes.get(player, {})
        return sum(min(len(mine.get(w, [])), self.rounds) for w in self.words)

    @property
    def needed(self) -> int:
        """Takes a player gives in all: ``len(words) * rounds``."""
        return len(self.words) * self.rounds

    def _next(self, player: str) -> tuple[str, int] | None:
        """The word ``player`` says next and its take number: the words in
        order, once over, then again (each round needs every word once)."""
        mine = self.enrollment.takes.get(player, {})
        for r in range(self.rounds):
            for word in self.words:
                if len(mine.get(word, [])) <= r:
                    return word, r + 1
        return None

    @property
    def prompt(self) -> Prompt | None:
        """The take awaited now, or None (not listening)."""
        with self._lock:
            return self._prompt()

    def _prompt(self) -> Prompt | None:
        while self.queue:
            step = self._next(self.queue[0])
            if step is not None:
                return Prompt(self.queue[0], step[0], step[1], self._again)
            self.queue.pop(0)  # done: the next player's turn
            self._again = False
        return None

    def takes_of(self, players: Sequence[str]) -> Takes:
        """The kept takes of ``players`` who have any, as the session
        header's ``enrollment`` field gives them (paths relative to the
        state directory); empty without a store."""
        if self.store is None:
            return {}
        out: Takes = {}
        for player in players:
            takes = self.store.takes(player)
            if takes:
                out[player] = takes
        return out

    # -- the steps the page asks for -----------------------------------------------

    def start(self, players: Sequence[str]) -> None:
        """Take ``players`` in turn, each from the first take they lack
        (players whose takes are complete are passed over)."""
        with self._lock:
            self.queue = list(dict.fromkeys(players))
            self._again = False

    def redo(self, player: str) -> None:
        """Forget ``player``'s takes and take them again now (then go on
        with whoever was waiting)."""
        with self._lock:
            self.enrollment.forget(player)
            if self.store is not None:
                self.store.forget(player)
            self.queue = [player] + [p for p in self.queue if p != player]
            self._again = False
        self._changed()

    def skip(self) -> None:
        """Leave the player being asked (their takes so far are kept) and
        go to the next."""
        with self._lock:
            if self.queue:
                self.queue.pop(0)
            self._again = False

    def stop(self) -> None:
        """Stop listening (every take kept stays)."""
        with self._lock:
            self.queue = []
            self._again = False

    def heard(self, pcm: npt.ArrayLike, rate: int) -> Prompt | None:
        """An utterance (16-bit mono samples at ``rate`` Hz) heard while a
        take is awaited: kept as that take if it holds one word's voice,
        else asked for again. Returns the prompt it answered (None: nothing
        was awaited; ``again`` set on the prompt now awaited if it was not
        kept). A kept take's speech embedding is made now
        (``embedding.prepare``), while nobody waits for a ruling, not at
        the player's first call that needs it. Raises ``OSError`` if the
        take cannot be written."""
        x = np.asarray(pcm, dtype=np.int16).reshape(-1)
        if rate != RATE:
            x = soxr.resample(x, rate, RATE).astype(np.int16)
        with self._lock:
            prompt = self._prompt()
            if prompt is None:
                return None
            long = len(trim(x)) / RATE > MAX_TAKE_S
            if long or not self.enrollment.add(prompt.player, prompt.word, x):
                self._again = True
                return prompt
            self._again = False
            if self.store is not None:
                try:
                    self.store.add(prompt.player, prompt.word, x)
                except OSError:
                    self.enrollment.remove_last(prompt.player, prompt.word)
                    raise
            embedding.prepare(self.enrollment, prompt.player)  # this take: the rest are kept
        self._changed()
        return prompt

    def load(self, players: Sequence[str]) -> None:
        """Give the ear the kept takes of ``players`` (a new game's): a
        player whose takes cannot be read is left out (logged) and learnt
        anew. Their speech embeddings and their copies in noise are then
        made in a thread of their own (``embedding.warm``,
        ``templates.warm``; ``warmed`` waits for it), before the first calls
        that would otherwise wait for them."""
        if self.store is None:
            return
        voices: list[dict[str, list[npt.NDArray[np.int16]]]] = []
        for player in players:
            takes = self.store.takes(player)
            try:
                loaded = load_enrollment({player: takes}, self.store.state,
                                         counted=None) if takes else None
            except OSError as exc:
                log.warning("%s's kept voice cannot be read (%s): learnt anew", player, exc)
                self.store.forget(player)  # new takes start a new list
                loaded = None
            with self._lock:
                self.enrollment.take_over(player, loaded if loaded is not None else Enrollment())
            if loaded is not None:
                voices.append(loaded.voice(player, learnt=False))
        if any(word_takes for voice in voices for word_takes in voice.values()):
            self._warming = threading.Thread(target=_warm, args=(voices,), daemon=True,
                                             name="companion-takes")
            self._warming.start()

    def warmed(self, timeout: float | None = None) -> bool:
        """Wait until the speech embeddings and noisy copies of the takes
        ``load`` read are made (or ``timeout`` seconds); whether they are."""
        if self._warming is not None:
            self._warming.join(timeout)
        return self._warming is None or not self._warming.is_alive()

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()


def _warm(voices: list[dict[str, list[npt.NDArray[np.int16]]]]) -> None:
    """What the ear derives from kept takes (``voices``, one ``{word: takes}``
    per player), made before the game's first calls: the takes' speech
    embeddings, then their copies in noise."""
    embedding.warm(x for voice in voices for takes in voice.values() for x in takes)
    templates.warm(voices)


def attach(setup: VoiceSetup, hub: Any) -> None:
    """Keep ``setup`` with ``hub``'s games (a ``companion.hub.Hub``): each
    game installed gets its players' kept takes in the ear and in its
    header's ``enrollment`` field, which every change of takes updates."""

    def record() -> None:
        table = hub.table
        if table is not None:
            hub.store.set_header_fields(
                table.game_id, {"enrollment": setup.takes_of(list(table.game.players))})

    def installed(table: Any, event: Any, _rulings: Any) -> None:
        if event is None:  # a game was started or resumed
            setup.load(list(table.game.players))
            if setup.takes_of(list(table.game.players)):
                record()

    setup.on_change = record
    hub.voice_setup = setup
    hub.subscribe(installed)
