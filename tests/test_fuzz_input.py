"""Property-based fuzzing of the JSON API and of the session reader (issue 20, item 3).

hypothesis builds request bodies and session files from valid ones with one
part replaced by anything JSON can hold (deep nesting, huge and non-finite
numbers, lone surrogates, long text, wrong types), plus raw bytes. The
properties: the page never answers 5xx, and a refusal (4xx) names a field,
keeps its message short and leaves the game and its log as they were;
``companion replay`` exits 0 or 2, never with a traceback, and on exit 2
prints one line. Bounded by ``max_examples`` so the suite stays fast.

Real parts: the Flask app and CSRF check, the hub, every engine, a SQLite
log in a temporary folder, the ``companion`` command through click's runner.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from companion.cli import main
from companion.hub import Hub
from companion.store import Store
from companion.voice_setup import TakeStore, VoiceSetup, attach
from companion.web import create_app

PIN = "2468"
PLAYERS = ["Abby", "Beth", "Carter", "Debbie"]
FUZZ = settings(max_examples=80, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

NASTY = ["text", "\ud800", "A" * 5000, 10**39, -(10**30), 1e308, -0.0, 2**63, True, None,
         [], {}, [[[[]]]], "Abby", "racketeer", 0, -1, 3.5]

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(),
    st.text(max_size=30), st.sampled_from(NASTY),
    st.text(alphabet=st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1,
            max_size=3))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=10), inner, max_size=4)),
    max_leaves=12)

EVENTS: list[dict[str, Any]] = [
    {"type": "flip", "card": "racketeer"}, {"type": "flip", "player": "Beth", "card": "gun"},
    {"type": "accuse", "by": ["Carter"]}, {"type": "phone_word", "text": "ring"},
    {"type": "undo"}, {"type": "claim", "player": "Abby", "count": 2, "rank": "7"},
    {"type": "challenge", "player": "Beth"}, {"type": "reveal", "cards": ["7", "7"]},
    {"type": "choose", "player": "Abby", "target": "Beth"}, {"type": "say", "text": "one"},
    {"type": "audio", "path": "x.wav"}, {"type": "hearing", "on": False}, {"type": "tick"},
]
SETUPS: list[dict[str, Any]] = [
    {"game": "nasty7", "players": PLAYERS},
    {"game": "nasty7", "players": PLAYERS, "options": {"hesitation": 2.0, "seed": 3,
                                                       "virtual_deck": True}},
    {"game": "cheat", "players": PLAYERS}, {"game": "finger_guns", "players": PLAYERS[:3]},
    {"game": "cheap_shot", "players": PLAYERS}, {"game": "rummy_battle", "players": PLAYERS},
]


def mutate(base: dict[str, Any], key: str | None, value: Any, drop: bool) -> Any:
    """``base`` with ``key`` set to ``value`` (or dropped)."""
    out = dict(base)
    if key is None:
        return value
    if drop:
        out.pop(key, None)
    else:
        out[key] = value
    return out


@st.composite
def bodies(draw: st.DrawFn, bases: list[dict[str, Any]]) -> Any:
    base = draw(st.sampled_from(bases))
    keys = [*base, "options", "t", "player", "extra", None]
    key = draw(st.sampled_from(keys))
    if key == "options" and "options" in base and draw(st.booleans()):
        inner = draw(st.sampled_from([*base["options"], "composition", "first_player",
                                      "hesitation", "seed"]))
        return {**base, "options": {**base["options"], inner: draw(values)}}
    return mutate(base, key, draw(values), draw(st.booleans()))


def encode(body: Any) -> bytes:
    """JSON text of ``body`` as a phone could send it (lone surrogates escaped)."""
    return json.dumps(body).encode()


raw_bodies = st.one_of(
    st.binary(max_size=200),
    st.sampled_from([b"[" * 30_000, b"{" * 5000, b"\xef\xbb\xbf{}", b'{"type": NaN}',
                     b'{"type": "flip", "t": Infinity}', b"1" * 5000, b"\xff\xfe"]))


def _snapshot(hub: Hub) -> Any:
    table = hub.table
    games = [(g.id, g.events, g.winner) for g in hub.store.games()]
    if table is None:
        return None, games
    return table.game_id, table.view(), len(table.rulings), games


@given(requests=st.lists(st.tuples(
    st.sampled_from(["/api/events", "/api/games", "/api/press", "/api/pin",
                     "/api/settings", "/api/finger-guns/choose", "/api/finger-guns/seat",
                     "/api/undo", "/api/voices/start", "/api/voices/redo",
                     "/api/voices/skip"]),
    st.one_of(bodies(EVENTS), bodies(SETUPS).map(lambda b: b), raw_bodies)),
    min_size=1, max_size=6))
@FUZZ
def test_fuzzed_requests_get_no_5xx_and_refusals_change_nothing(
        requests: list[tuple[str, Any]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        hub = Hub(Store(Path(tmp) / "log.sqlite3"))
        attach(VoiceSetup(["one", "two"], TakeStore(Path(tmp))), hub)
        hub.new_game("nasty7", PLAYERS)
        app = create_app(hub, pin=PIN, test_config={"TRUSTED_HOSTS": ["localhost"]})
        client = app.test_client()
        headers = {"X-CSRFToken": client.get("/api/session").get_json()["csrf_token"],
                   "Content-Type": "application/json"}
        client.post("/api/pin", json={"pin": PIN}, headers=headers)
        for route, body in requests:
            data = body if isinstance(body, bytes) else encode(body)
            before = _snapshot(hub)
            reply = client.post(route, data=data, headers=headers)
            assert reply.status_code < 500, (route, data[:200], reply.get_data()[:300])
            if reply.status_code >= 400:
                answer = reply.get_json()
                assert isinstance(answer, dict) and "field" in answer, answer
                assert len(answer["error"]) <= 301
                if route != "/api/pin":  # a wrong PIN is counted, nothing else
                    assert _snapshot(hub) == before, (route, data[:200])
        hub.store.close()


session_lines = st.one_of(
    bodies(EVENTS).map(lambda b: mutate(b, "t", 1.0, False) if isinstance(b, dict) and
                       "t" not in b else b).map(encode),
    raw_bodies)


@given(header=st.one_of(bodies(SETUPS).map(encode), raw_bodies),
       lines=st.lists(session_lines, max_size=5))
@example(header=b'{"game": "nasty7", "players": ["Abby", "Beth", "Carter", "Debbie"], '
                b'"options": {"\\n": null}}', lines=[])  # a newline in an option's name
@FUZZ
def test_fuzzed_sessions_exit_0_or_2_with_one_line(header: bytes, lines: list[bytes]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "session.jsonl"
        data = b"\n".join([header, *lines]) + b"\n"
        path.write_bytes(data)
        result = CliRunner().invoke(main, ["replay", str(path)])
        assert result.exit_code in (0, 2), (data[:300], result.output, result.exception)
        if result.exit_code == 2:
            assert result.stderr.count("\n") == 1, result.stderr
            assert len(result.stderr) < 600
        assert path.read_bytes() == data
