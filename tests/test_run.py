"""``companion run`` as a process: starts everything, tells systemd it is
ready and alive, serves the page, and stops cleanly on SIGTERM.

This machine has no GPIO (the board runs on gpiozero's mock pins, as the
command says) and no sound card; one test gives it a microphone and speaker
through an ALSA ``file`` device, the other runs with neither."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from companion.audio.alsa_file import CONFIG, write_raw_input

pytestmark = pytest.mark.slow


def _start(tmp_path: Path, env: dict[str, str], *args: str) -> tuple[subprocess.Popen[str],
                                                                     socket.socket]:
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(tmp_path / "notify.sock"))
    notify.settimeout(30)
    env = {**{k: v for k, v in os.environ.items() if k != "ALSA_CONFIG_PATH"}, **env,
           "NOTIFY_SOCKET": str(tmp_path / "notify.sock"), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", "run", "--port", "0",
         "--db", str(tmp_path / "log.sqlite3"), *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    return proc, notify


def _notices(notify: socket.socket, wanted: set[str]) -> set[str]:
    seen: set[str] = set()
    deadline = time.monotonic() + 60
    while not wanted <= seen and time.monotonic() < deadline:
        seen |= set(notify.recv(4096).decode().split("\n"))
    return seen


def _stop(proc: subprocess.Popen[str]) -> tuple[str, str]:
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    return out, err


def test_run_without_gpio_microphone_or_speaker(tmp_path: Path) -> None:
    proc, notify = _start(tmp_path, {}, "--game", "nasty7", "--players", "Abby,Beth",
                          "--pin", "2468")
    try:
        assert {"READY=1", "WATCHDOG=1"} <= _notices(notify, {"READY=1", "WATCHDOG=1"})
    finally:
        out, err = _stop(proc)
        notify.close()
    assert proc.returncode == 0, err
    assert "running on gpiozero's mock pins" in out
    assert "speech checking is off" in out
    assert err.count("no sound output device") == 1  # one warning, no crash
    assert re.search(r"Control page: http://[\d.]+:\d+/  table PIN 2468", out)
    assert "Started nasty7: Abby,Beth" in out
    assert out.rstrip().endswith("Stopped; the event log is closed.")
    assert "Traceback" not in err


def test_run_with_a_microphone_and_speaker_serves_the_page(tmp_path: Path) -> None:
    infile, outfile = tmp_path / "mic.raw", tmp_path / "played.raw"
    write_raw_input(None, infile, 16000, tail_s=120.0)
    config = tmp_path / "asound.conf"
    config.write_text(CONFIG.format(infile=infile, outfile=outfile))
    proc, notify = _start(tmp_path, {"ALSA_CONFIG_PATH": str(config)},
                          "--recognizer", "pocketsphinx")
    try:
        _notices(notify, {"READY=1"})
        line, head = "", []
        deadline = time.monotonic() + 60
        assert proc.stdout is not None
        while "Control page" not in line and time.monotonic() < deadline:
            line = proc.stdout.readline()
            head.append(line)
        port = int(re.search(r":(\d+)/", line).group(1))  # type: ignore[union-attr]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as response:
            assert response.status == 200
            page = response.read().decode()
            assert "<html" in page.lower()
        # What the terminal said at start is in the page's log too, in players' words.
        assert '<li class="ruling r-notice"' in page
        assert "Listening: calls are checked by ear." in page
        assert "No buttons are wired: the buttons on this page stand in for them." in page
    finally:
        out, err = _stop(proc)
        notify.close()
    assert proc.returncode == 0, err
    assert "Listening on 'default' at 16000 Hz" in "".join(head) + out
    assert "no sound output device" not in err
    # The page's address and PIN were spoken: the speaker wrote audio.
    played = sorted(tmp_path.glob("played.raw*"))
    assert any(p.stat().st_size > 22050 for p in played)


def test_demo_without_a_sound_card_prints_every_ruling_and_warns_once(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "ALSA_CONFIG_PATH"}
    done = subprocess.run([sys.executable, "-m", "companion.cli", "demo"], capture_output=True,
                          text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "no sound output device" in warnings[0]
    assert "wrong number" in done.stdout and "takes" in done.stdout


@pytest.mark.parametrize(("args", "message"), [
    (["--options", "{not json"], "--options is not JSON"),
    (["--game", "nasty7"], "give --game and --players together"),
    (["--game", "poker", "--players", "A,B"], "unknown game 'poker'"),
    (["--game", "nasty7", "--players", "A,B", "--options", '{"hesitation": -1}'],
     "hesitation"),
    (["--pin", "12ab"], "--pin must be digits"),
])
def test_bad_run_options_are_one_line_and_status_2(tmp_path: Path, args: list[str],
                                                   message: str) -> None:
    done = subprocess.run([sys.executable, "-m", "companion.cli", "run", "--port", "0",
                           "--db", str(tmp_path / "log.sqlite3"), *args],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("companion: ") and message in lines[0]


def test_a_pin_named_twice_stops_run_with_its_name(tmp_path: Path) -> None:
    pinout = tmp_path / "pinout.toml"
    pinout.write_text("status_led = 18\n[[seat]]\nbutton = 4\nled = 18\n")
    done = subprocess.run([sys.executable, "-m", "companion.cli", "run", "--pinout",
                           str(pinout)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "GPIO18 is named twice: status LED and seat 1 LED" in done.stderr


def test_ctrl_c_stops_the_table_as_cleanly_as_sigterm(tmp_path: Path) -> None:
    # With the microphone and pocketsphinx loaded.
    # A terminal's Ctrl-C is SIGINT to the whole foreground process group:
    # the companion in a session of its own, and the signal to its group.
    infile, outfile = tmp_path / "mic.raw", tmp_path / "played.raw"
    write_raw_input(None, infile, 16000, tail_s=120.0)
    config = tmp_path / "asound.conf"
    config.write_text(CONFIG.format(infile=infile, outfile=outfile))
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(tmp_path / "notify.sock"))
    notify.settimeout(30)
    env = {**os.environ, "ALSA_CONFIG_PATH": str(config),
           "NOTIFY_SOCKET": str(tmp_path / "notify.sock"), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", "run", "--port", "0", "--recognizer",
         "pocketsphinx", "--db", str(tmp_path / "log.sqlite3")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        start_new_session=True)
    try:
        assert "READY=1" in _notices(notify, {"READY=1"})
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        notify.close()
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert out.rstrip().endswith("Stopped; the event log is closed.")
