"""How fast ``scripts/start`` brings the table up once the companion is installed.

Run: ``.venv/bin/python bench/startup.py [--runs N]``. Prints figures;
asserts nothing.

Every run is offline: pip's index is an address where nothing listens, so
a run that tried to install would fail instead of being timed. The
environment is the state a first install leaves (``installed_env``): a
virtual environment in a temporary folder whose ``companion`` script runs
this checkout with the libraries of the environment running this
benchmark, and the stamp ``scripts/install`` writes. Timed from the moment
the process is started (wall clock, ``time.monotonic``):

- ``scripts/install`` alone: the check that finds nothing to do;
- ``scripts/start``: to the "Control page:" line, to the page's first
  answer (HTTP 200), and from SIGTERM to the process's exit; with speech
  checking off (``--no-microphone``), and with a microphone and speaker
  through ALSA's ``file`` device and the pocketsphinx recognizer;
- the same start with Ctrl-C (SIGINT to the process group) to stop it;
- the CPU time of each whole run (start, the page's answer and the stop,
  every process of it): on a machine shared with other work the wall clock
  grows with the load, the CPU time much less.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import re
import resource
import signal
import site
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent
OFFLINE = {"PIP_INDEX_URL": "http://127.0.0.1:9/simple", "PIP_NO_INDEX": "1",
           "PIP_FIND_LINKS": "", "PIP_RETRIES": "0"}


def stamp(mode: str = "run") -> str:
    """The stamp ``scripts/install`` writes after installing in ``mode`` with
    this Python and this checkout's ``pyproject.toml``."""
    digest = hashlib.sha256((CHECKOUT / "pyproject.toml").read_bytes()).hexdigest()
    return (f"mode: {mode}\npython: {platform.python_version()}\n"
            f"pyproject.toml sha256: {digest}\n")


def installed_env(venv: Path) -> dict[str, str]:
    """Make ``venv`` look as a first ``scripts/install`` leaves it (without
    downloading: its libraries, pip included, are this interpreter's, its
    package this checkout) and return the environment variables that
    make ``scripts/start`` use it, offline."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    probe = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    purelib = Path(subprocess.run([str(venv / "bin" / "python"), "-c", probe], check=True,
                                  capture_output=True, text=True).stdout.strip())
    (purelib / "00-checkout.pth").write_text(f"{CHECKOUT}\n")
    (purelib / "01-libraries.pth").write_text("".join(f"{p}\n" for p in site.getsitepackages()))
    script = venv / "bin" / "companion"
    script.write_text(f"#!{venv / 'bin' / 'python'}\nimport sys\n"
                      "from companion.cli import main\nsys.exit(main())\n")
    script.chmod(0o755)
    (venv / "companion-install.stamp").write_text(stamp())
    return {**os.environ, **OFFLINE, "COMPANION_VENV": str(venv), "PYTHONUNBUFFERED": "1"}


def _alsa_env(folder: Path) -> dict[str, str]:
    from companion.audio.alsa_file import CONFIG, write_raw_input

    infile, outfile = folder / "mic.raw", folder / "played.raw"
    write_raw_input(None, infile, 16000, tail_s=60.0)
    config = folder / "asound.conf"
    config.write_text(CONFIG.format(infile=infile, outfile=outfile))
    return {"ALSA_CONFIG_PATH": str(config)}


def time_start(env: dict[str, str], db: Path, args: list[str], *,
               stop: signal.Signals = signal.SIGTERM
               ) -> tuple[float, float, float, float, int]:
    """One ``scripts/start``: seconds to the "Control page:" line, to the
    page's first answer, and from ``stop`` (sent to the whole process group,
    as a terminal's Ctrl-C is) to the exit; the CPU seconds (user + system)
    of the whole run, every process of it; and the exit status."""
    cpu_before = _children_cpu()
    began = time.monotonic()
    proc = subprocess.Popen([str(CHECKOUT / "scripts" / "start"), "--port", "0", "--db", str(db),
                             *args], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, env=env, start_new_session=True)
    assert proc.stdout is not None
    line = ""
    try:
        while "Control page:" not in line:
            line = proc.stdout.readline()
            if not line:
                raise RuntimeError(f"scripts/start ended before serving (status {proc.wait()})")
        to_line = time.monotonic() - began
        port = int(re.search(r":(\d+)/", line).group(1))  # type: ignore[union-attr]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as answer:
            answer.read()
        to_page = time.monotonic() - began
        stopped = time.monotonic()
        os.killpg(proc.pid, stop)
        proc.stdout.read()
        status = proc.wait(timeout=60)
        return (to_line, to_page, time.monotonic() - stopped, _children_cpu() - cpu_before,
                status)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} / {max(values):.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="starts per configuration [5]")
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        env = installed_env(folder / "venv")
        checks = []
        for _ in range(runs):
            began = time.monotonic()
            subprocess.run([str(CHECKOUT / "scripts" / "install")], env=env, check=True)
            checks.append(time.monotonic() - began)
        configs = [
            ("speech checking off (`--no-microphone`)", env, ["--no-microphone"],
             signal.SIGTERM),
            ("microphone and speaker (ALSA file device), pocketsphinx",
             {**env, **_alsa_env(folder)}, ["--recognizer", "pocketsphinx"], signal.SIGTERM),
            ("microphone and speaker, stopped with Ctrl-C (SIGINT)",
             {**env, **_alsa_env(folder)}, ["--recognizer", "pocketsphinx"], signal.SIGINT),
        ]
        print(f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
              f"Python {platform.python_version()}, load average "
              f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}; {runs} runs each.\n")
        print(f"`scripts/install` with nothing to do: median / max {_ms(checks)} s\n")
        print("| start | to the page's address, s (median / max) | to the page's first "
              "answer, s | stop to exit, s | CPU s, whole run | exit statuses |")
        print("|---|---|---|---|---|---|")
        for name, config_env, args, stop in configs:
            got = [time_start(config_env, folder / f"log{i}.sqlite3", args, stop=stop)
                   for i in range(runs)]
            print(f"| {name} | {_ms([g[0] for g in got])} | {_ms([g[1] for g in got])} | "
                  f"{_ms([g[2] for g in got])} | {_ms([g[3] for g in got])} | "
                  f"{sorted({g[4] for g in got})} |")


if __name__ == "__main__":
    main()
