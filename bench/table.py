"""Figures for the live table: speech synthesis, the speaker's start-up
latency, button edge timing on mock pins, and the table loop's cost.

Run: ``.venv/bin/python bench/table.py``. Prints figures; asserts nothing.
The speaker runs through an ALSA ``file`` device (no sound card here), which
plays faster than real time, so its latency is the software part only
(synthesis, resampling, opening the stream), not the card's buffer.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from gpiozero.pins.mock import MockFactory

from companion.audio.alsa_file import use_file_device
from companion.board import Board, BoardInput
from companion.live import LiveHub, LiveTable
from companion.pinout import load_pinout
from companion.store import Store
from companion.voice.pack import load_pack
from companion.voice.speaker import Speaker, find_output
from companion.voice.synth import render

SENTENCES = [
    "Abby: wrong number, it was five.",
    "Beth takes 11 cards.",
    "New round. Carter starts at one.",
    "Debbie: false accusation, Abby was right.",
    "twin racketeer",
]


def _ms(values: list[float]) -> str:
    values = sorted(values)
    p95 = values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]
    return f"median {statistics.median(values) * 1000:.3f} ms, p95 {p95 * 1000:.3f} ms"


def synthesis() -> None:
    pack = load_pack("en")
    render("warm up", pack)
    times, rtf = [], []
    for _ in range(4):
        for text in SENTENCES:
            start = time.perf_counter()
            out = render(text, pack)
            took = time.perf_counter() - start
            times.append(took)
            rtf.append(took / out.seconds)
    print(f"espeak-ng via pyttsx3, render to WAV: {_ms(times)}; "
          f"real-time factor median {statistics.median(rtf):.3f}")


def speaker_latency(folder: Path) -> None:
    pack = load_pack("en")
    with use_file_device(folder):
        speaker = Speaker(pack, find_output())
        delays = []
        for _ in range(3):
            for text in SENTENCES:
                queued = time.monotonic()
                utterance = speaker.say(text)
                speaker.wait_idle(30)
                if utterance.start is not None:
                    delays.append(utterance.start - queued)
        speaker.close()
    print(f"speaker, say() to playback start (ALSA file device): {_ms(delays)}")


def button_edges() -> None:
    factory = MockFactory()
    got: list[BoardInput] = []
    pinout = load_pinout()
    board = Board(pinout, factory, on_input=got.append)
    errors, callback = [], []
    pin = factory.pin(pinout.seats[0].button)
    for _ in range(200):
        before = time.monotonic()
        pin.drive_low()
        pressed = time.monotonic()
        time.sleep(0.021)  # longer than bounce_time: a real press
        pin.drive_high()
        time.sleep(0.021)  # quiet before the next press, or it counts as bounce
        edge = got[-1].t
        errors.append(abs(edge - before))
        callback.append(pressed - before)
    board.close()
    factory.close()
    print(f"mock pins, {len(got)} presses reported of 200: edge time vs. drive time "
          f"{_ms(errors)}; drive_low() to its return (callbacks run inline) {_ms(callback)}")


def loop_cost(folder: Path) -> None:
    hub = LiveHub(Store(folder / "log.sqlite3"), load_pack("en"))
    live = LiveTable(hub)
    hub.new_game("nasty7", ["Abby", "Beth", "Carter"], {"virtual_deck": True, "seed": 0})
    steps = []
    for _ in range(2000):
        start = time.perf_counter()
        live.step()
        steps.append(time.perf_counter() - start)
    before = len(hub.table.match.effective)
    t = time.monotonic() - 10.0
    for i in range(300):  # 10 ms apart, in the past: all releasable at once
        live.press(["Abby", "Beth", "Carter"][i % 3], t + i * 0.01)
    start = time.perf_counter()
    while live._heap:
        live.step()
    took = time.perf_counter() - start
    events = len(hub.table.match.effective) - before
    print(f"table loop: idle step {_ms(steps)}; 300 presses released in {took:.2f} s, "
          f"{events} events applied ({events / took:.0f} events/s, each logged to SQLite "
          "with synchronous=FULL)")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        synthesis()
        speaker_latency(folder / "alsa")
        button_edges()
        loop_cost(folder)


if __name__ == "__main__":
    main()
