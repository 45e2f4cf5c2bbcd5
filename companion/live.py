"""The live table loop: buttons, page, microphone and time, merged in time order.

Every input becomes an item with a time ``t`` on the table clock: a button
press (its edge), a page event (when it arrived), words heard (their onset),
and a ``tick`` once a deadline of the game has passed (``Game.deadline``:
the end of a call's or a challenge's window; time passing with nothing
due is not an event). The engine must see events in non-decreasing ``t``,
but the inputs arrive late by different amounts: a press is known only when
the button is released, and words only once the recognizer has closed the
utterance. So items wait in a heap until the **watermark** (the earliest
time at which any input might still produce an item) has passed them:

* buttons: the edge of a press still held down (``Board.pending_since``);
* the recognizer: the onset of the utterance it is hearing, or, between
  utterances, the audio fed so far minus how far back an onset can be placed;
* a flip of a physical card waiting for its kind from the tap pad;
* the clock itself (``now``).

An item older than ``max_hold`` seconds is released anyway (a stuck source
must not stop the table); if the table has moved past it, its ``t`` is
raised to the table's clock. Presses are released only ``TIE_S`` after their
edge, so every tie partner is known and grouped (``board.group_presses``).

``LiveHub`` is the ``Hub`` the page talks to: its ``submit`` queues page
events into the same order (waiting for the result), and it carries the
optional parts the page looks for (``now``, ``press``, ``pending_press``,
``buttons``/``assign_buttons``, ``microphone``, ``recognizer``, ``speaker``, ``seat_setup``,
``voice_setup``).

Outputs: each ruling is spoken (``Priority.RULING``), the current player's
LED is lit, an offender's LED blinks, the status LED shows listening,
speaking or fault, and in virtual-deck mode the flipped card is spoken.
Words whose onset falls while the companion speaks are not judged.

Setup: while the seat setup (``hub.seat_setup``) or the voices page
(``hub.voice_setup``, ``companion.voice_setup``) waits for a player's voice,
the next utterance is theirs (its direction, or its samples as a take of a
count word), never a call. The listener compares calls with the players'
takes (``voice_setup.enrollment``) as they arrive.

Speech checking off (no microphone, or it was unplugged): the loop logs a
``hearing`` event (``on`` false) when a game starts without a microphone or
when it goes, and ``on`` true when it comes back; while off, the engine leaves
every call unheard (never a hesitation or word mistake; an accusation of such
a call is ruled unheard).
"""

from __future__ import annotations

import heapq
import itertools
import logging
import math
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from companion.board import TIE_S, Board, BoardInput, Hold, Press, Status
from companion.errors import EventError
from companion.events import Event, Hearing, Tick
from companion.hub import Hub
from companion.presses import PendingFlip, press_events
from companion.rulings import Ruling, Scores, Undone
from companion.store import Store
from companion.table import Table
from companion.voice.pack import VoicePack
from companion.voice.phrases import sentence, spoken_lines
from companion.voice.speaker import Priority

log = logging.getLogger(__name__)

TICK_S = 0.1
"""Seconds between looks at the game's deadline (a timeout is ruled at most
this late; a tick is logged only when one has passed)."""

MAX_HOLD_S = 2.0
"""Seconds an item may wait for the watermark before it is released anyway."""

PENDING_FLIP_S = 10.0
"""Seconds a press waits for its card's kind from the tap pad (physical deck
with the ``wait_for_tap`` option)."""
ANNOUNCE_WAIT_S = 5.0
"""Seconds a virtual-deck flip waits for its card's announcement to be played."""

PAGE_WAIT_S = 5.0
"""Seconds a page request waits for its event to be applied."""

Clock = Callable[[], float]


@dataclass(order=True)
class _Item:
    t: float
    seq: int
    arrived: float = field(compare=False)
    event: Event | None = field(compare=False, default=None)
    player: str | None = field(compare=False, default=None)  # a press
    done: threading.Event | None = field(compare=False, default=None)
    result: list[Ruling] | BaseException | None = field(compare=False, default=None)


class LiveHub(Hub):
    """A ``Hub`` whose events are applied in time order by a ``LiveTable``.

    ``clock``: the process's clock (seconds, monotonic), which the board, the
    microphone and the speaker also run on; the table clock is ``now()``
    (``Hub``). Until a ``LiveTable`` runs on its thread, ``submit`` applies at
    once, as the plain ``Hub`` does."""

    def __init__(self, store: Store, pack: VoicePack | None = None, *,
                 clock: Clock = time.monotonic) -> None:
        super().__init__(store, pack, clock=clock)
        self.pending_press: tuple[str, float] | None = None
        self.buttons: dict[str, int] = {}
        self.microphone: Any = None
        self.recognizer: Any = None
        self.speaker: Any = None
        self.live: LiveTable | None = None
        self.seat_setup: Any = None  # companion.seat_setup.SeatSetup with an array
        self.voice_setup: Any = None  # companion.voice_setup.VoiceSetup

    def apply(self, event: Event) -> list[Ruling]:
        """Apply ``event`` at once (the loop's way in)."""
        return super().submit(event)

    def submit(self, event: Event) -> list[Ruling]:
        """Apply ``event`` in time order with the other inputs; wait for its
        rulings. Raises what ``Table.submit`` raises."""
        live = self.live
        if live is None or not live.running or live.on_loop_thread():
            return self.apply(event)
        return live.submit_and_wait(event)

    def press(self, player: str, t: float) -> list[Ruling]:
        """A virtual button press from the page, judged as a real one."""
        if self.live is not None:
            self.live.press(player, t)
        return []

    def assign_buttons(self, mapping: dict[str, int]) -> None:
        """Which button (1-based seat number) each player holds."""
        self.buttons = dict(mapping)


class LiveTable:
    """The loop that feeds a ``LiveHub`` from the board, the microphone and
    the page, and drives the speaker and the LEDs.

    ``board``, ``microphone``, ``speaker`` may each be None (no pins, speech
    checking off, silent). ``listener_for(rate)`` makes a recognizer stream
    (``companion.referee.stream.Listener``) for a microphone at ``rate`` Hz.
    ``ear_for(rate)``: with a microphone array, makes the array stage
    (``companion.referee.steered.SteeredEar``) the microphone's blocks pass
    through: steered at ``Game.speaker`` after every event, giving each say
    its seat. ``notify``: called with sd_notify strings (``READY=1``, ``WATCHDOG=1``).
    ``on_ruling``: called with each ruling and its sentence (to print), and
    with None and the sentence of each announcement (microphone news, the
    card flipped in virtual-deck mode)."""

    def __init__(self, hub: LiveHub, *, board: Board | None = None,
                 microphone: Any = None, listener_for: Callable[[int], Any] | None = None,
                 speaker: Any = None, notify: Callable[[str], None] | None = None,
                 on_ruling: Callable[[Ruling | None, str], None] | None = None,
                 tick_s: float = TICK_S, max_hold: float = MAX_HOLD_S,
                 ear_for: Callable[[int], Any] | None = None) -> None:
        self.hub = hub
        self.ear_for = ear_for
        self.ear: Any = None
        self._steered_for: str | None = None  # whom the array was last steered at
        self.clock = hub.now  # the table clock; devices report on hub.clock
        self.board = board
        self.microphone = microphone
        self.listener_for = listener_for
        self.listener: Any = None
        self.speaker = speaker
        self.notify = notify or (lambda _s: None)
        self.on_ruling = on_ruling or (lambda _r, _s: None)
        self.tick_s = tick_s
        self.max_hold = max_hold
        self.ignored_while_speaking = 0
        self.errors: list[str] = []
        self._heap: list[_Item] = []
        self._seq = itertools.count()
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._inputs: queue.SimpleQueue[BoardInput] = queue.SimpleQueue()
        self._pending_flip: tuple[PendingFlip, float] | None = None
        self._announced: tuple[dict[str, Any], Any, float] | None = None
        self._vocabulary: tuple[tuple[str, ...], int | None, bool] | None = None
        # the game and its players whose adapted models were asked for ahead
        # (``_adapt_ahead``)
        self._adapting: tuple[object, ...] = ()
        self._audio_done = False
        self._last_tick = -math.inf
        self._last_watchdog = -math.inf
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        hub.speaker = speaker
        hub.microphone = microphone
        hub.live = self
        if board is not None:
            board.on_input = self._board_input
        if microphone is not None and listener_for is not None and microphone.rate:
            self.listener = listener_for(microphone.rate)
            self._new_ear(microphone.rate)
            hub.recognizer = getattr(self.listener, "recognizer", None)
            self._set_vocabulary()
        hub.subscribe(self._after_event)

    @property
    def speech_checking(self) -> bool:
        """Whether calls are heard and judged (a microphone is working)."""
        return self.listener is not None and not getattr(self.microphone, "lost", True)

    def _audio_pending(self) -> bool:
        return self.listener is not None and not self._audio_done

    # -- inputs from other threads ---------------------------------------------------

    @property
    def running(self) -> bool:
        """Whether the loop runs on its own thread (``start``)."""
        return self._thread is not None and self._thread.is_alive()

    def on_loop_thread(self) -> bool:
        """Whether the caller is the loop's own thread."""
        return self._thread is not None and threading.current_thread() is self._thread

    def _push(self, item: _Item) -> None:
        with self._lock:
            heapq.heappush(self._heap, item)
        self._wake.set()

    def _board_input(self, what: BoardInput) -> None:
        self._inputs.put(what)
        self._wake.set()

    def press(self, player: str, t: float) -> None:
        """A press by ``player`` (a name) whose edge was at ``t``."""
        self._push(_Item(t=t, seq=next(self._seq), arrived=self.clock(), player=player))

    def submit_and_wait(self, event: Event) -> list[Ruling]:
        """Queue a page event, wait until the loop applied it; return its
        rulings or raise its error. A flip tapped on the pad while a button
        press waits for its card takes the press's time; a flip tapped for the
        player whose pressed flip is still judged without its card names that
        card instead (a ``card`` event: the tap wins over inference)."""
        pending = self._pending_flip
        player = getattr(event, "player", None)
        if event.type == "flip" and pending is not None and player == pending[0].player:
            event = msgspec.structs.replace(event, t=pending[0].t)
            self._pending_flip = None
            self.hub.pending_press = None
        elif event.type == "flip" and getattr(event, "card", None) is not None \
                and player is not None and self._naming(player):
            table = self.hub.table
            assert table is not None
            event = table.game.parse_event({"type": "card", "t": event.t, "player": player,
                                            "card": getattr(event, "card", None)})
        item = _Item(t=event.t, seq=next(self._seq), arrived=self.clock(), event=event,
                     done=threading.Event())
        self._push(item)
        assert item.done is not None
        if not item.done.wait(PAGE_WAIT_S):
            raise EventError("the table did not take the event in time", field="t")
        if isinstance(item.result, BaseException):
            raise item.result
        return list(item.result or [])

    def _naming(self, player: str | None = None) -> str | None:
        """The player whose last flip is judged without its card (the call
        still open, not their turn): a tap stands for naming that card.
        With ``player``, that player or None."""
        table = self.hub.table
        if table is None:
            return None
        view = table.game.view(table.state)
        call = view.get("call")
        if not isinstance(call, dict) or call.get("card_from") not in ("unknown", "inferred"):
            return None
        if call.get("status") not in ("pending", "ok", "unsure", "asked"):
            return None
        name = call.get("player")
        if not isinstance(name, str) or view.get("turn") == name or view.get("winner"):
            return None
        return name if player is None or player == name else None

    # -- the loop -------------------------------------------------------------------------

    def start(self) -> None:
        """Run the loop on its own thread; ``READY=1`` is notified once it runs."""
        self._thread = threading.Thread(target=self._run, name="companion-table", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        self.notify("READY=1")
        while not self._stop.is_set():
            try:
                self.step()
            except Exception as exc:  # one bad input must not stop the table
                log.exception("table loop step failed")
                self.errors.append(str(exc))
            self._wake.wait(0.02)
            self._wake.clear()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the loop (the log is written event by event: nothing to flush)."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
        self.hub.live = None

    def step(self) -> int:
        """One round of the loop: take inputs, release what the watermark
        allows, tick. Returns how many items were applied."""
        now = self.clock()
        self._take_board_inputs()
        self._take_audio(now)
        applied = self._release(now)
        self._tick(now)
        self._show_status()
        if now - self._last_watchdog >= 1.0:
            self._last_watchdog = now
            self.notify("WATCHDOG=1")
        return applied

    def _take_board_inputs(self) -> None:
        while True:
            try:
                what = self._inputs.get_nowait()
            except queue.Empty:
                return
            name = self._player_at(what.seat)
            if name is None:
                continue
            if isinstance(what, Press):
                self.press(name, self.hub.to_table(what.t))
            elif isinstance(what, Hold):
                self._say_scores(self.hub.to_table(what.t))

    def _player_at(self, seat: int) -> str | None:
        table = self.hub.table
        if table is None:
            return None
        for name, number in self.hub.buttons.items():
            if number - 1 == seat:
                return name
        assigned = set(self.hub.buttons.values())
        players = table.game.players
        if seat < len(players) and (seat + 1) not in assigned and \
                players[seat] not in self.hub.buttons:
            return players[seat]
        return None

    def _seat_of(self, player: str) -> int | None:
        table = self.hub.table
        if player in self.hub.buttons:
            return self.hub.buttons[player] - 1
        if table is not None and player in table.game.players:
            return table.game.players.index(player)
        return None

    # -- audio ------------------------------------------------------------------------------

    def _take_audio(self, now: float) -> None:
        mic = self.microphone
        if mic is None:
            return
        change = mic.check()
        if change == "lost":
            self.listener = None
            self._set_hearing(now)
            self._announce("The microphone is unplugged. Calls are not checked until it is back.")
        elif change in ("back", "switched") and self.listener_for is not None:
            self.listener = self.listener_for(mic.rate)
            self._new_ear(mic.rate)
            self._vocabulary, self._adapting = None, ()
            self._set_vocabulary()
            if change == "back":
                self._set_hearing(now)
                self._announce("The microphone is back. Calls are checked again.")
        listener = self.listener
        if listener is None or self._audio_done:
            return
        for block in mic.blocks():
            if self._stop.is_set():  # stopping: the rest of a backlog goes unheard
                break
            samples, t = block.samples, block.t
            copy = None
            if samples.ndim == 2:  # an array: steered to one channel, or its first
                if self.ear is None:
                    samples = samples[:, 0]
                else:
                    if self._listening_for() != self._steered_for:
                        self._steer()  # a take asked of another player at setup
                    samples, t = self.ear.feed(samples, block.t)
                    copy = self.ear.masked
                    if not len(samples):
                        continue
            for heard in listener.feed(samples, t, copy=copy):
                self._heard(heard)
        if getattr(mic, "finished", False) and not mic.waiting:
            for heard in listener.flush():
                self._heard(heard)
            self._audio_done = True  # the recording is over: nothing more to wait for

    def _new_ear(self, rate: int) -> None:
        self.ear = self.ear_for(rate) if self.ear_for is not None else None
        self._steer()

    def _listening_for(self) -> str | None:
        """The player expected to speak now: the one asked for a take while
        the voices page records them (``voice_setup``), else the game's
        ``speaker``."""
        voices = self.hub.voice_setup
        prompt = voices.prompt if voices is not None else None
        if prompt is not None:
            return str(prompt.player)
        table = self.hub.table
        return None if table is None else table.game.speaker(table.state)

    def _steer(self, at: float | None = None) -> None:
        """Point the array at the player expected to speak now
        (``_listening_for``; with the seats the setup has learnt, if it
        runs), against the interference of the second before ``at`` (the
        event that made them the speaker; not the newest audio, which may
        already hold their voice)."""
        table = self.hub.table
        if self.ear is None or table is None:
            return
        setup = getattr(self.hub, "seat_setup", None)
        if setup is not None:
            self.ear.seating = setup.seating(list(table.game.players))
        # The beam keeps the devices' times (the process clock); ``at`` is on
        # the table clock, which a resumed game shifts.
        device_at = None if at is None else at - self.hub.offset
        self._steered_for = self._listening_for()
        self.ear.steer_at(self._steered_for, device_at)

    def _heard(self, heard: Any) -> None:
        setup = getattr(self.hub, "seat_setup", None)
        if setup is not None and setup.listening is not None and self.ear is not None:
            from companion.referee.seats import locate

            if heard.brief:
                return  # a cough or a click, not a name
            azimuth = locate(self.ear.beam, heard.onset)
            if azimuth is not None and setup.heard(azimuth) is not None:
                self._steer()
            return  # a player saying their name at setup: no call
        speaker = self.speaker
        voices = self.hub.voice_setup
        if voices is not None and voices.prompt is not None:
            # A player's take of a count word at setup: no call.
            if heard.pcm is not None and not (
                    speaker is not None and speaker.speaking.overlaps(heard.onset)):
                voices.heard(heard.pcm, heard.rate)
            return
        says = self.ear.says(heard) if self.ear is not None else [heard.to_say()]
        to_table = self.hub.to_table
        for say in says:  # one per voice the array told apart
            if speaker is not None and speaker.speaking.overlaps(say.t):
                self.ignored_while_speaking += 1
                log.info("ignored %r: the companion was speaking at %.2f", say.text, say.t)
                continue
            say = msgspec.structs.replace(
                say, t=to_table(say.t), end=None if say.end is None else to_table(say.end))
            self._push(_Item(t=say.t, seq=next(self._seq), arrived=self.clock(), event=say))

    def _audio_watermark(self) -> float:
        return self.hub.to_table(self._audio_watermark_on_device())

    def _audio_watermark_on_device(self) -> float:
        listener = self.listener
        if listener is None or not self._audio_pending():
            return math.inf
        seg = listener.segmenter
        if seg.in_speech:
            # The open utterance's first kept sample: its onset is no earlier.
            start = getattr(seg, "_start", None)
            if isinstance(start, int):
                return float(listener.time_of(start))
            return float(listener.time_of(seg.position)) - seg.settings.max_length
        s = seg.settings
        # An utterance not yet opened may place its onset this far back.
        back = s.start_window * 0.01 + s.backtrack_max + 0.01
        return float(listener.time_of(seg.position)) - back

    def watermark(self, now: float | None = None) -> float:
        """The earliest time an input may still produce an item at."""
        marks = [self.clock() if now is None else now, self._audio_watermark()]
        if self.board is not None:
            pending = self.board.pending_since()
            if pending is not None:
                marks.append(self.hub.to_table(pending))
        if self._pending_flip is not None:
            marks.append(self._pending_flip[0].t)
        if self._announced is not None:
            marks.append(self._announced[2])
        return min(marks)

    # -- releasing items in order ------------------------------------------------------

    def _release(self, now: float) -> int:
        self._expire_pending_flip(now)
        self._release_announced_flip(now)
        applied = 0
        while True:
            mark = self.watermark(now)
            with self._lock:
                if not self._heap:
                    return applied
                item = self._heap[0]
                need = item.t + (TIE_S if item.player is not None else 0.0)
                if need > mark and (now - item.arrived < self.max_hold or item.t > now):
                    return applied
                heapq.heappop(self._heap)
                group = [item]
                if item.player is not None:
                    while self._heap and self._heap[0].player is not None \
                            and self._heap[0].t - item.t < TIE_S:
                        group.append(heapq.heappop(self._heap))
            if item.player is not None:
                self._apply_presses(group)
            else:
                self._apply_item(item)
            applied += 1

    def _announce_flip(self, meaning: dict[str, Any]) -> bool:
        """Virtual deck with a working speaker: say the card first, and hold
        the flip until the sentence has been played. Returns False when the
        flip should be applied at once instead (no speaker, card unknown)."""
        table, speaker = self.hub.table, self.speaker
        top_card = getattr(table.game, "top_card", None) if table is not None else None
        if table is None or speaker is None or not speaker.available or top_card is None:
            return False
        card = top_card(table.state, meaning["player"])
        if card is None:
            return False
        words = self.hub.pack.phrases.get(f"card.{card}") or str(card).replace("_", " ")
        self.on_ruling(None, words)
        utterance = speaker.say(words, Priority.NOTICE)
        self._announced = ({**meaning, "card": card}, utterance, float(meaning["t"]))
        return True

    def _release_announced_flip(self, now: float) -> None:
        """A virtual-deck flip counts from the end of its card's announcement:
        the player cannot call before they know the card, and their voice is
        not judged while the companion speaks (DESIGN.md, Speech)."""
        if self._announced is None:
            return
        meaning, utterance, pressed = self._announced
        played = utterance.end is not None or utterance.interrupted
        if not played and now - pressed < ANNOUNCE_WAIT_S:
            return
        self._announced = None
        shown = self.hub.to_table(utterance.end) if utterance.end is not None else now
        event = {**meaning, "t": max(pressed, min(shown, now))}
        table = self.hub.table
        if table is None:
            return
        try:
            self._apply(table.game.parse_event(event))
        except EventError as exc:
            log.info("an announced flip was refused: %s", exc)

    def _expire_pending_flip(self, now: float) -> None:
        pending = self._pending_flip
        if pending is not None and now >= pending[1]:
            self._pending_flip = None
            self.hub.pending_press = None
            self._announce(f"No card was tapped for {pending[0].player}'s press; it is ignored.")

    def _at_table_clock(self, event: Event) -> Event:
        table = self.hub.table
        if table is not None and event.t < table.match.clock:
            return msgspec.structs.replace(event, t=table.match.clock)
        return event

    def _apply_item(self, item: _Item) -> None:
        assert item.event is not None
        try:
            item.result = self._apply(item.event, quiet=item.done is not None)
        except Exception as exc:  # handed to the waiting page thread
            item.result = exc
        finally:
            if item.done is not None:
                item.done.set()

    def _apply(self, event: Event, *, quiet: bool = False) -> list[Ruling]:
        event = self._at_table_clock(event)
        try:
            return self.hub.apply(event)
        except EventError as exc:
            if quiet:
                raise
            log.info("the table refused %s at %.3f: %s", event.type, event.t, exc)
            return []

    def _apply_presses(self, group: list[_Item]) -> None:
        table = self.hub.table
        if table is None:
            return
        t = group[0].t
        players = list(dict.fromkeys(i.player for i in group if i.player is not None))
        view = table.game.view(table.state)
        for meaning in press_events(table.game, view, players, t):
            if isinstance(meaning, PendingFlip):
                self._pending_flip = (meaning, self.clock() + PENDING_FLIP_S)
                self.hub.pending_press = (meaning.player, meaning.t)
                continue
            if meaning.get("type") == "flip" and "card" not in meaning:
                if self._announced is not None:
                    continue  # the previous card is still being announced
                if self._announce_flip(meaning):
                    continue
            try:
                event = table.game.parse_event(meaning)
            except EventError as exc:
                log.info("a press meant %r, refused: %s", meaning, exc)
                continue
            self._apply(event)

    def _tick(self, now: float) -> None:
        """Tick once the pending deadline (``Game.deadline``) has passed and
        no input can still come from before it; time alone is not logged."""
        table = self.hub.table
        if table is None or now - self._last_tick < self.tick_s:
            return
        self._last_tick = now
        deadline = table.game.deadline(table.state)
        if deadline is None or now <= deadline:
            return
        t = min(now, self.watermark(now))
        with self._lock:
            if self._heap:
                t = min(t, self._heap[0].t)
        if t > deadline and t > table.match.clock:
            self._apply(Tick(t=t))

    # -- outputs -----------------------------------------------------------------------------

    def _after_event(self, table: Table, event: Event | None, rulings: list[Ruling]) -> None:
        pack = self.hub.pack
        self._steer(event.t if event is not None else None)
        if event is None:  # a new game: a press waiting for its card is void
            self._pending_flip = None
            self._announced = None
            self.hub.pending_press = None
            if not self.speech_checking:
                self._set_hearing(self.clock())
        undone = None
        for ruling in rulings:
            if isinstance(ruling, Undone):
                undone = table.logged_event(ruling.what, ruling.at)
        spoken = spoken_lines(rulings, pack, undone=undone)
        for ruling, said in zip(rulings, spoken, strict=True):
            self.on_ruling(ruling, sentence(ruling, pack, shown=True, undone=undone))
            if said and self.speaker is not None:
                self.speaker.say(said, Priority.RULING)
            offender = getattr(ruling, "player", None)
            if ruling.type == "mistake" and isinstance(offender, str) and self.board:
                seat = self._seat_of(offender)
                if seat is not None and seat < len(self.board.leds):
                    self.board.blink_offender(seat)
        view = table.game.view(table.state)
        if self.board is not None:
            turn = view.get("turn") if not view.get("winner") else None
            seat = self._seat_of(turn) if isinstance(turn, str) else None
            self.board.show_turn(seat if seat is not None and seat < len(self.board.leds)
                                 else None)
        if event is not None and event.type == "flip":
            self._after_flip(table, event, view)
        if self._pending_flip is None:
            # A tap on the pad now names the card of the flip being judged.
            naming = self._naming()
            call = view.get("call") or {}
            self.hub.pending_press = (naming, float(call.get("flip_t", 0.0))) if naming else None
        self._set_vocabulary()

    def _after_flip(self, table: Table, event: Event, view: dict[str, Any]) -> None:
        call = view.get("call") or {}
        if getattr(event, "card", "x") is None and call.get("player") == event.player \
                and call.get("card") and call.get("card_from", "seen") == "seen":
            card = str(call.get("card", ""))
            words = self.hub.pack.phrases.get(f"card.{card}") or card.replace("_", " ")
            self._announce(words, notice=False)

    def _set_hearing(self, now: float) -> None:
        """Log whether calls can be heard now (a ``hearing`` event), so the
        engine stops or resumes judging by ear, and a replay of the log agrees."""
        table = self.hub.table
        if table is None:
            return
        on = self.speech_checking
        if getattr(table.state, "hearing", True) != on:
            self._apply(Hearing(t=max(now, table.match.clock), on=on))

    def _set_vocabulary(self) -> None:
        listener, table = self.listener, self.hub.table
        if listener is None or table is None:
            return
        words = tuple(table.game.listen_words(table.state))
        items = table.game.utterance_items(table.state)
        early = table.game.early_endpoint(table.state)
        if words and (words, items, early) != self._vocabulary:
            self._vocabulary = (words, items, early)
            listener.set_vocabulary(list(words), items, early=early)
        voices = self.hub.voice_setup
        if voices is not None and hasattr(listener, "enrollment"):
            listener.enrollment = voices.enrollment  # the players' takes, as they arrive
            self._adapt_ahead(listener, table, voices)
        if hasattr(listener, "set_expected"):  # the call owed, for the ear's decision
            from companion.referee.judge import expect

            expect(listener, table.match)

    def _adapt_ahead(self, listener: Any, table: Table, voices: Any) -> None:
        """Have the ear build the adapted models of the game's players whose
        takes are complete (``VoiceSetup.held``) now, from the player whose
        turn it is on (``Listener.adapt_ahead``), not at each one's first
        turn; asked again only for a new game or when that set of players
        changes (takes finished or loaded), so a player still recording
        gets no model of half their takes, and one who recorded anew between
        games has the new takes' model built. Only in a game whose calls the
        ear judges against a call owed (``expected_call``: The Nasty 7);
        no other game hears with the players' models."""
        if not hasattr(listener, "adapt_ahead") or not hasattr(table.game, "expected_call"):
            return
        players = list(table.game.players)
        ready = tuple(p for p in players if voices.held(p) >= voices.needed)
        if (table.game_id, *ready) == self._adapting:
            return
        self._adapting = (table.game_id, *ready)
        speaker = table.game.speaker(table.state)
        first = players.index(speaker) if speaker in players else 0
        listener.adapt_ahead([p for p in players[first:] + players[:first] if p in ready])

    def _announce(self, text: str, *, notice: bool = True) -> None:
        """Say and print ``text``; a ``notice`` (device news, an ignored
        press) is also kept for the page's log (``Hub.notice``)."""
        log.info("announce: %s", text)
        self.on_ruling(None, text)
        if notice:
            self.hub.notice(text, self.clock())
        if self.speaker is not None:
            self.speaker.say(text, Priority.NOTICE)

    def _say_scores(self, t: float) -> None:
        table = self.hub.table
        if table is None:
            return
        view = table.game.view(table.state)
        scores: dict[str, int] = {}
        label = "cards"
        for entry in view.get("players", []):
            if not isinstance(entry, dict) or "name" not in entry:
                continue
            for key in ("stack", "hand", "cards", "lives", "points", "score", "total"):
                if isinstance(entry.get(key), int) and not isinstance(entry.get(key), bool):
                    scores[str(entry["name"])] = int(entry[key])
                    label = key
                    break
        if not scores:
            return
        ruling = Scores(t=t, scores=scores, label=label)
        line = sentence(ruling, self.hub.pack)
        self.on_ruling(ruling, line)
        if line and self.speaker is not None:
            self.speaker.say(line, Priority.NOTICE)

    def _show_status(self) -> None:
        board = self.board
        if board is None:
            return
        speaker = self.speaker
        if speaker is not None and speaker.speaking.is_speaking():
            board.show_status(Status.SPEAKING)
        elif not self.speech_checking or (speaker is not None and not speaker.available):
            board.show_status(Status.FAULT)
        else:
            board.show_status(Status.LISTENING)
