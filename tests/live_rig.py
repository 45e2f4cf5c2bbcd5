"""Test scaffolding shared by the tests that run the live table.

``TableClock`` is the table clock as a value a test moves forward, so button
presses land at chosen times against a recording's sample-count times.
``open_rig`` builds the live table's real parts around an ALSA file device:
gpiozero's MockFactory pins (this machine has no GPIO), the espeak-ng
speaker, pocketsphinx, the microphone and the SQLite-backed hub; ``Rig``
drives them (``until``, ``press``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpiozero.pins.mock import MockFactory

from companion.audio.alsa_file import FileDevice
from companion.audio.microphone import Microphone
from companion.board import Board
from companion.live import LiveHub, LiveTable
from companion.pinout import load_pinout
from companion.referee.recognizer import Recognizer, open_recognizer
from companion.store import Store
from companion.voice.pack import VoicePack
from companion.voice.speaker import Speaker, find_output


class TableClock:
    """The table clock: ``now`` seconds, set by the test."""

    def __init__(self, now: float = 0.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@dataclass
class Rig:
    """The live table's parts on one clock; ``live`` is set by the test once
    its game is started (``LiveTable``, with the microphone it wants)."""

    clock: TableClock
    factory: MockFactory
    board: Board
    speaker: Speaker
    recognizer: Recognizer
    mic: Microphone
    hub: LiveHub
    live: LiveTable | None = None

    def record(self, timeout_s: float = 30.0) -> None:
        """Open the microphone and wait (wall time) until the file device
        has delivered the whole recording."""
        self.mic.open()
        deadline = time.monotonic() + timeout_s
        while not self.mic.finished and time.monotonic() < deadline:
            time.sleep(0.01)

    def until(self, t: float) -> None:
        """Move the table clock to ``t`` in 0.1 s steps, letting the loop and
        the speaker finish at each."""
        assert self.live is not None
        while self.clock.now < t - 1e-9:
            self.clock.now = min(t, round(self.clock.now + 0.1, 6))
            self.live.step()
            assert self.speaker.wait_idle(30)

    def pin(self, seat: int) -> Any:
        """The mock pin of ``seat``'s button."""
        return self.factory.pin(self.board.pinout.seats[seat].button)

    def press(self, seat: int, at: float) -> None:
        """``seat`` presses its button at ``at`` for 0.12 s; the table runs
        on to 0.3 s after the press."""
        self.until(at)
        self.pin(seat).drive_low()
        self.clock.now = at + 0.12
        self.pin(seat).drive_high()
        self.until(at + 0.3)

    def close(self) -> None:
        self.speaker.close()
        self.mic.close()
        self.board.close()


def open_rig(tmp_path: Path, pack: VoicePack, device: FileDevice) -> Rig:
    """The parts around ``device`` (an ALSA file device), logging to
    ``tmp_path/log.sqlite3``, on a ``TableClock`` at 0."""
    clock = TableClock()
    factory = MockFactory()
    return Rig(clock=clock, factory=factory,
               board=Board(load_pinout(), factory, clock=clock),
               speaker=Speaker(pack, find_output(), clock=clock),
               recognizer=open_recognizer("pocketsphinx", pack, notice=False),
               mic=Microphone(clock=clock, origin=0.0, queue_blocks=100_000,
                              max_frames=device.frames),
               hub=LiveHub(Store(tmp_path / "log.sqlite3"), pack, clock=clock))
