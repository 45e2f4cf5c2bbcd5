"""Load benchmark of the control page's live updates, on loopback only.

The companion's page (``create_app`` + waitress, as ``companion run`` serves
it) runs in a child process with a four-player Nasty 7 game. This process
opens N live streams (``GET /api/events/stream``, one thread each) and, as a
phone with the PIN, posts flips and their undos through ``POST /api/events``.
For every event it
measures the update latency from just before the POST to the moment each
stream has read the snapshot showing that event (matched by the event time
``t``, which the snapshot carries as ``view.clock``). Both processes read
``time.monotonic()``, one clock for the whole machine on Linux.

Bounded: ``--clients`` (default 20 and 50), ``--events`` per run (default
40), one event every ``--gap`` seconds (0.05), a 10 s wait at most for any
delivery. Prints a Markdown report (machine, then one row per N).

    python bench/web_load.py                      # 20 and 50 streams
    python bench/web_load.py --clients 10 20 50 > bench/WEB_RESULTS.md
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import multiprocessing as mp
import os
import platform
import socket
import statistics
import sys
import tempfile
import threading
import time
from importlib.metadata import version
from pathlib import Path
from typing import Any

PIN = "1357"
PLAYERS = ["Abby", "Beth", "Carter", "Debbie"]


def serve(port_out: Any, stop: Any, max_clients: int, db: str) -> None:
    """The child process: the hub, the page and waitress, until ``stop`` is set."""
    from companion.hub import Hub
    from companion.store import Store
    from companion.web import create_app
    from companion.web.server import start_server

    hub = Hub(Store(db))
    hub.new_game("nasty7", PLAYERS)
    app = create_app(hub, pin=PIN, test_config={"SSE_MAX_CLIENTS": max_clients})
    server = start_server(app, "127.0.0.1", 0)
    port_out.send(server.port)
    stop.wait(600)
    server.stop()


class Watcher(threading.Thread):
    """One live stream: records when each snapshot (by ``view.clock``) arrived."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.conn.request("GET", "/api/events/stream")
        self.sock = self.conn.sock  # the response takes it over from the connection
        self.reply = self.conn.getresponse()
        if self.reply.status != 200:
            raise RuntimeError(f"stream refused: {self.reply.status} {self.reply.read()!r}")
        self.arrivals: dict[float, float] = {}
        self.ready = threading.Event()

    def run(self) -> None:
        try:
            while True:
                line = self.reply.fp.readline()
                if not line:
                    return
                if line.startswith(b"data: "):
                    got = time.monotonic()
                    view = json.loads(line[6:]).get("view") or {}
                    self.arrivals.setdefault(float(view.get("clock", -1.0)), got)
                    self.ready.set()
        except (OSError, AttributeError, ValueError):  # closed by ``close``
            return

    def close(self) -> None:
        # Shut the socket first: the reading thread then sees the end of the
        # stream and lets go of the response's buffer, which close() needs.
        if self.sock is not None:
            with contextlib.suppress(OSError):
                self.sock.shutdown(socket.SHUT_RDWR)
        self.join(5)
        self.reply.close()
        self.conn.close()


class Phone:
    """A phone holding the session cookie, the CSRF token and the PIN."""

    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        reply = self._do("GET", "/api/session")
        self.csrf = json.loads(reply)["csrf_token"]
        self._do("POST", "/api/pin", {"pin": PIN})

    def _do(self, method: str, path: str, body: Any = None) -> bytes:
        headers = {"Content-Type": "application/json"}
        if getattr(self, "cookie", None):
            headers["Cookie"] = self.cookie
        if getattr(self, "csrf", None):
            headers["X-CSRFToken"] = self.csrf
        self.conn.request(method, path, None if body is None else json.dumps(body), headers)
        reply = self.conn.getresponse()
        data = reply.read()
        cookie = reply.getheader("Set-Cookie")
        if cookie:
            self.cookie = cookie.split(";", 1)[0]
        if reply.status >= 400:
            raise RuntimeError(f"{method} {path} {body!r}: {reply.status} {data!r}")
        return data

    def tap(self, k: int, t: float) -> None:
        """Even ``k``: a flip by the player whose turn it is; odd: its undo (so
        stacks never run out however long the run)."""
        event = {"type": "flip", "card": "racketeer"} if k % 2 == 0 else {"type": "undo"}
        self._do("POST", "/api/events", {**event, "t": t})


def run(port: int, clients: int, events: int, gap: float, base_t: float) -> dict[str, Any]:
    """One measurement with ``clients`` streams; returns the figures."""
    watchers = [Watcher(port) for _ in range(clients)]
    for w in watchers:
        w.start()
    for w in watchers:
        w.ready.wait(10)
    phone = Phone(port)
    sent: dict[float, float] = {}
    posts = []
    for k in range(events):
        t = base_t + k
        start = time.monotonic()
        phone.tap(k, t)
        posts.append(time.monotonic() - start)
        sent[t] = start
        time.sleep(gap)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not all(
            all(t in w.arrivals for t in sent) for w in watchers):
        time.sleep(0.05)
    latencies = [w.arrivals[t] - s for w in watchers for t, s in sent.items() if t in w.arrivals]
    for w in watchers:
        w.close()
    phone.conn.close()
    latencies.sort()
    ms = [x * 1000 for x in latencies]
    return {
        "clients": clients, "events": events, "expected": clients * events,
        "delivered": len(ms),
        "median": statistics.median(ms) if ms else float("nan"),
        "p95": ms[int(0.95 * (len(ms) - 1))] if ms else float("nan"),
        "max": ms[-1] if ms else float("nan"),
        "post_median": statistics.median(posts) * 1000,
    }


def machine() -> str:
    """One line on the machine the figures come from."""
    cpu = platform.processor() or platform.machine()
    try:
        info = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        info = []
    for key in ("model name", "hardware", "model"):  # x86, then the Pi's names
        hits = [line.split(":", 1)[1].strip() for line in info
                if line.lower().startswith(key) and ":" in line]
        if hits:
            cpu = hits[0]
            break
    return (f"{cpu}, {os.cpu_count()} logical CPUs, {platform.system()} {platform.release()}, "
            f"{platform.machine()}, Python {platform.python_version()}, "
            f"Flask {version('flask')}, waitress {version('waitress')}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, nargs="+", default=[20, 50])
    parser.add_argument("--events", type=int, default=40)
    parser.add_argument("--gap", type=float, default=0.05, help="seconds between events")
    args = parser.parse_args()
    # Streams of a finished run are let go only at their next keep-alive (15 s),
    # so the server allows all runs' streams at once.
    if sum(args.clients) > 200 or args.events > 500:
        parser.error("keep it bounded: at most 200 clients and 500 events")
    ctx = mp.get_context("spawn")
    with tempfile.TemporaryDirectory() as tmp:
        here, there = ctx.Pipe()
        stop = ctx.Event()
        child = ctx.Process(target=serve, args=(there, stop, sum(args.clients) + 2,
                                                str(Path(tmp) / "log.sqlite3")))
        child.start()
        port = here.recv()
        rows = []
        base = time.monotonic()
        try:
            for n in args.clients:
                rows.append(run(port, n, args.events, args.gap, base))
                base += args.events + 10
        finally:
            stop.set()
            child.join(30)
    print("# Control page: live-update latency under load\n")
    print(f"Machine: {machine()}.\n")
    print("Server (hub, Flask app, waitress) in one process; the streams and the tapping "
          "phone in another, all on 127.0.0.1. Latency: from just before `POST /api/events` "
          "(Nasty 7 flips, each followed by its undo) to the snapshot showing it, read by "
          f"each stream; {args.events} events {args.gap * 1000:.0f} ms apart per run.\n")
    print("| streams | deliveries | median ms | p95 ms | max ms | POST median ms |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        print(f"| {r['clients']} | {r['delivered']}/{r['expected']} | {r['median']:.1f} | "
              f"{r['p95']:.1f} | {r['max']:.1f} | {r['post_median']:.1f} |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
