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

The evening run (issue 20): ``--duration 180 --gap 0.5 --clients 20
--attack`` keeps 20 streams open for 3 minutes while a phone flips a card
every 0.5 s (real flips, no undo: ``--flips-only``), and reports the
server's resident memory (RSS, from ``/proc``) at the start and the end.
``--attack`` runs the slow-client attack of issue 20 beside it, from other
loopback addresses (all of 127/8 is this machine): ``ATTACK_IDLE`` idle
sockets from one address, ``ATTACK_TRICKLE`` sockets trickling one byte of
a request every 10 s, and ``ATTACK_DEAF`` streams whose client never reads,
each reopened as soon as the server drops it. Each stream and the phone
connect from an address of their own (127.0.1.x), as phones on the table's
Wi-Fi do (the page bounds streams and connections per address), so those
bounds apply to the attacker only.

    python bench/web_load.py --duration 180 --gap 0.5 --clients 20 --attack --flips-only
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


ATTACK_IDLE = 150
"""Idle sockets the attacker keeps trying to hold open (one address)."""
ATTACK_TRICKLE = 30
"""Sockets trickling one byte of a request every 10 s (one address)."""
ATTACK_DEAF = 10
"""Live streams whose client never reads (one address)."""


def serve(port_out: Any, stop: Any, max_clients: int, db: str) -> None:
    """The child process: the hub, the page and waitress (``start_server``
    with its production limits), until ``stop`` is set; then sends the
    server's counters of refused and dropped connections."""
    from companion.hub import Hub
    from companion.store import Store
    from companion.web import create_app
    from companion.web.server import start_server

    hub = Hub(Store(db))
    # A deck of 474 cards (118 a player): enough for 360 flips without undo.
    hub.new_game("nasty7", PLAYERS, {"composition": {"racketeer": 400}})
    app = create_app(hub, pin=PIN, test_config={"SSE_MAX_CLIENTS": max_clients})
    server = start_server(app, "127.0.0.1", 0)
    port_out.send(server.port)
    stop.wait(900)
    port_out.send({"refused": getattr(server.server, "refused_connections", None),
                   "dropped": getattr(server.server, "dropped_connections", None),
                   "stalled": getattr(server.server, "stalled_connections", None)})
    server.stop()


def rss_mb(pid: int) -> float:
    """Resident memory of process ``pid`` in MiB (``VmRSS`` in ``/proc``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def open_from(port: int, source: str, *, rcvbuf: int | None = None) -> socket.socket:
    """A TCP connection to the page from loopback address ``source``."""
    sock = socket.socket()
    if rcvbuf is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.settimeout(5)
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", port))
    return sock


class Probe(threading.Thread):
    """A newcomer's phone: every second a fresh connection (from 127.0.3.1)
    asks for ``/api/state`` with a 5 s timeout; ``answers`` holds (answered
    with 200, milliseconds) per try."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.stop = threading.Event()
        self.answers: list[tuple[bool, float]] = []

    def run(self) -> None:
        while not self.stop.wait(1.0):
            start = time.monotonic()
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5,
                                              source_address=("127.0.3.1", 0))
            try:
                conn.request("GET", "/api/state")
                ok = conn.getresponse().status == 200
            except OSError:
                ok = False
            finally:
                conn.close()
            self.answers.append((ok, (time.monotonic() - start) * 1000))


class Attacker(threading.Thread):
    """The slow-client attack of issue 20, from 127.0.0.2-4, until ``stop``.

    Keeps trying to hold ``ATTACK_IDLE`` idle sockets, ``ATTACK_TRICKLE``
    trickling ones and ``ATTACK_DEAF`` unread streams, reopening each one the
    server closes (at most 30 new idle, 10 trickling and 10 deaf connections
    a second)."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.stop = threading.Event()
        self.opened = 0
        self.failed = 0
        self.closed_by_server = 0
        self.held_max = 0

    def _open(self, kind: str) -> socket.socket | None:
        source = {"idle": "127.0.0.2", "trickle": "127.0.0.3", "deaf": "127.0.0.4"}[kind]
        try:
            sock = open_from(self.port, source, rcvbuf=4096 if kind == "deaf" else None)
            if kind == "deaf":
                sock.sendall(b"GET /api/events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            sock.setblocking(False)
        except OSError:
            self.failed += 1
            return None
        self.opened += 1
        return sock

    def run(self) -> None:
        request = b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 4000
        wanted = {"idle": ATTACK_IDLE, "trickle": ATTACK_TRICKLE, "deaf": ATTACK_DEAF}
        held: dict[str, list[list[Any]]] = {k: [] for k in wanted}  # [sock, next byte, due]
        rate = {"idle": 30.0, "trickle": 10.0, "deaf": 10.0}  # new connections a second
        budgets = dict.fromkeys(rate, 0.0)
        last = time.monotonic()
        while not self.stop.wait(0.1):
            now = time.monotonic()
            for kind in rate:
                budgets[kind] = min(rate[kind], budgets[kind] + rate[kind] * (now - last))
            last = now
            for kind, entries in held.items():
                for entry in list(entries):
                    sock = entry[0]
                    gone = False
                    try:
                        if kind != "deaf" and sock.recv(65536) == b"":
                            gone = True
                    except BlockingIOError:
                        pass
                    except OSError:
                        gone = True
                    if not gone and kind == "deaf":
                        # A client that never reads sees the server close its
                        # connection only in the TCP state (1: established).
                        info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1)
                        gone = info[0] != 1
                    if not gone and kind == "trickle" and now >= entry[2]:
                        try:
                            sock.send(request[entry[1]:entry[1] + 1])
                            entry[1] = (entry[1] + 1) % len(request)
                            entry[2] = now + 10.0
                        except OSError:
                            gone = True
                    if gone:
                        self.closed_by_server += 1
                        sock.close()
                        entries.remove(entry)
                while len(entries) < wanted[kind] and budgets[kind] >= 1:
                    budgets[kind] -= 1
                    sock = self._open(kind)
                    if sock is None:
                        break
                    entries.append([sock, 0, now])
            self.held_max = max(self.held_max, sum(len(e) for e in held.values()))
        for entries in held.values():
            for entry in entries:
                entry[0].close()


class Watcher(threading.Thread):
    """One live stream: records when each snapshot (by ``view.clock``) arrived."""

    def __init__(self, port: int, source: str = "127.0.0.1") -> None:
        super().__init__(daemon=True)
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30,
                                               source_address=(source, 0))
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

    def __init__(self, port: int, source: str = "127.0.0.1") -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30,
                                               source_address=(source, 0))
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

    def tap(self, k: int, t: float, *, flips_only: bool = False) -> None:
        """Even ``k``: a flip by the player whose turn it is; odd: its undo (so
        stacks never run out however long the run). ``flips_only``: every
        ``k`` a flip, by each player in seat order (out of turn ones are
        mistakes: rulings and a pile, as at a real table)."""
        if flips_only:  # each player in turn, so every stack is drawn on alike
            event = {"type": "flip", "card": "racketeer", "player": PLAYERS[k % len(PLAYERS)]}
        else:
            event = {"type": "flip", "card": "racketeer"} if k % 2 == 0 else {"type": "undo"}
        self._do("POST", "/api/events", {**event, "t": t})


def run(port: int, clients: int, events: int, gap: float, base_t: float, *,
        server_pid: int | None = None, flips_only: bool = False,
        spread: bool = False) -> dict[str, Any]:
    """One measurement with ``clients`` streams; returns the figures.
    ``spread``: each stream and the phone connect from an address of their own."""
    watchers = []
    refused = 0
    for i in range(clients):
        try:
            watchers.append(Watcher(port, f"127.0.1.{i + 1}" if spread else "127.0.0.1"))
        except (OSError, RuntimeError) as exc:  # the page is down: counted, not fatal
            refused += 1
            print(f"stream {i}: {exc}", file=sys.stderr)
    probe = Probe(port)
    probe.start()
    for w in watchers:
        w.start()
    for w in watchers:
        w.ready.wait(10)
    rss_start = rss_mb(server_pid) if server_pid else float("nan")
    phone: Phone | None = None
    sent: dict[float, float] = {}
    posts = []
    failed = 0
    began = time.monotonic()
    for k in range(events):
        t = base_t + k
        start = time.monotonic()
        try:
            if phone is None:
                phone = Phone(port, "127.0.2.1" if spread else "127.0.0.1")
            phone.tap(k, t, flips_only=flips_only)
            posts.append(time.monotonic() - start)
            sent[t] = start
        except (OSError, RuntimeError) as exc:
            failed += 1
            print(f"event {k}: {exc}", file=sys.stderr)
            phone = None  # a new connection (and session) for the next event
        time.sleep(max(0.0, began + (k + 1) * gap - time.monotonic()))
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not all(
            all(t in w.arrivals for t in sent) for w in watchers):
        time.sleep(0.05)
    probe.stop.set()
    probe.join(10)
    latencies = [w.arrivals[t] - s for w in watchers for t, s in sent.items() if t in w.arrivals]
    for w in watchers:
        w.close()
    if phone is not None:
        phone.conn.close()
    latencies.sort()
    ms = [x * 1000 for x in latencies]
    return {
        "rss_start": rss_start, "rss_end": rss_mb(server_pid) if server_pid else float("nan"),
        "failed_posts": failed, "seconds": time.monotonic() - began,
        "streams_refused": refused, "probes": len(probe.answers),
        "probes_ok": sum(1 for ok, _ in probe.answers if ok),
        "probe_p95": (sorted(ms for ok, ms in probe.answers if ok) or [float("nan")])[
            int(0.95 * (sum(1 for ok, _ in probe.answers if ok) - 1))]
        if any(ok for ok, _ in probe.answers) else float("nan"),
        "post_p95": sorted(posts)[int(0.95 * (len(posts) - 1))] * 1000 if posts else float("nan"),
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
    parser.add_argument("--duration", type=float, default=None,
                        help="seconds per run (sets --events to duration / gap)")
    parser.add_argument("--attack", action="store_true",
                        help="run the slow-client attack beside the streams")
    parser.add_argument("--flips-only", action="store_true",
                        help="every event a flip (default: flips and their undos)")
    args = parser.parse_args()
    if args.duration is not None:
        args.events = max(1, round(args.duration / args.gap))
    # Streams of a finished run are let go only at their next keep-alive (15 s),
    # so the server allows all runs' streams at once.
    if sum(args.clients) > 200 or args.events > 1000 or args.events * args.gap > 600:
        parser.error("keep it bounded: at most 200 clients, 1000 events and 10 minutes")
    ctx = mp.get_context("spawn")
    with tempfile.TemporaryDirectory() as tmp:
        here, there = ctx.Pipe()
        stop = ctx.Event()
        streams = 40 if args.attack else sum(args.clients) + 2  # 40: the page's own bound
        child = ctx.Process(target=serve, args=(there, stop, streams,
                                                str(Path(tmp) / "log.sqlite3")))
        child.start()
        port = here.recv()
        rows = []
        base = time.monotonic()
        attacker = Attacker(port) if args.attack else None
        counters: dict[str, Any] = {}
        try:
            if attacker is not None:
                attacker.start()
                time.sleep(3)  # let the attack reach its hold before the streams connect
            for n in args.clients:
                rows.append(run(port, n, args.events, args.gap, base, server_pid=child.pid,
                                flips_only=args.flips_only, spread=True))
                base += args.events + 10
        finally:
            if attacker is not None:
                attacker.stop.set()
                attacker.join(10)
            stop.set()
            if here.poll(30):
                counters = here.recv()
            child.join(30)
    print("# Control page: live-update latency under load\n")
    print(f"Machine: {machine()}.\n")
    where = ("each stream and the phone from a loopback address of its own (127.0.1.x, "
             "127.0.2.1), as phones on the table's Wi-Fi")
    what = ("Nasty 7 flips, one after another" if args.flips_only
            else "Nasty 7 flips, each followed by its undo")
    print("Server (hub, Flask app, waitress with its production limits) in one process; the "
          f"streams and the tapping phone in another, {where}. Latency: from just before "
          f"`POST /api/events` ({what}) to the snapshot showing it, read by each stream; "
          f"{args.events} events {args.gap * 1000:.0f} ms apart per run. RSS: the server "
          "process's resident memory once the streams are connected and after the last "
          "event.\n")
    print("| streams | seconds | deliveries | median ms | p95 ms | max ms | POST median ms | "
          "POST p95 ms | failed POSTs | streams refused | newcomer GETs answered | "
          "newcomer p95 ms | server RSS start MiB | server RSS end MiB |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
          "| ---: | ---: |")
    for r in rows:
        print(f"| {r['clients']} | {r['seconds']:.0f} | {r['delivered']}/{r['expected']} | "
              f"{r['median']:.1f} | {r['p95']:.1f} | {r['max']:.1f} | {r['post_median']:.1f} | "
              f"{r['post_p95']:.1f} | {r['failed_posts']} | {r['streams_refused']} | "
              f"{r['probes_ok']}/{r['probes']} | {r['probe_p95']:.1f} | {r['rss_start']:.1f} | "
              f"{r['rss_end']:.1f} |")
    if attacker is not None:
        print(f"\nAttack beside it (127.0.0.2-4): {ATTACK_IDLE} idle sockets, {ATTACK_TRICKLE} "
              f"sockets trickling a byte every 10 s, {ATTACK_DEAF} streams never read, each "
              f"reopened when dropped. Attack connections opened: {attacker.opened}; closed "
              f"by the server: {attacker.closed_by_server}; at most held at once: "
              f"{attacker.held_max}; connects that failed: {attacker.failed}. Server's "
              f"counters: refused over the per-address bound {counters.get('refused')}, "
              f"dropped by the request deadline (10 s) {counters.get('dropped')}, dropped by "
              f"the send deadline (30 s) {counters.get('stalled')}.")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
