"""Bad input from a phone or a session file: a 4xx or exit 2, naming the field,
nothing changed (issue 20, item 3). Each case below is one of the issue's
reproductions; before the fix each was a 500 (an exception), a traceback
(exit 1), a bare "Aborted!" or a silent exit 0, except a few kept as guards
that main already refused (a lone surrogate in ``first_player``, a flip's
``player`` or a ``phone_word``, and a byte-order mark).

Real parts: the Flask app and its CSRF check, the hub, the engines, a SQLite
log in a temporary folder, the ``companion`` command (click's runner, and one
real subprocess).
"""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import wave
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from flask import Flask
from flask.testing import FlaskClient

from companion.cli import main
from companion.hub import Hub
from companion.store import Store

PIN = "4321"
TRUSTED_HOSTS = ["localhost"]
"""The control page answers localhost only (the conftest ``app`` fixture)."""
PLAYERS = ["Abby", "Beth", "Carter"]
HEADER = {"game": "nasty7", "players": PLAYERS}
LONGEST_MESSAGE = 301  # access.MAX_MESSAGE and its ellipsis


@pytest.fixture
def phone(app: Flask, hub: Hub) -> tuple[FlaskClient, dict[str, str]]:
    client = app.test_client()
    headers = {"X-CSRFToken": client.get("/api/session").get_json()["csrf_token"],
               "Content-Type": "application/json"}
    assert client.post("/api/pin", json={"pin": PIN}, headers=headers).status_code == 200
    assert client.post("/api/games", json=HEADER, headers=headers).status_code == 201
    assert client.post("/api/events", json={"type": "flip", "card": "racketeer"},
                       headers=headers).status_code == 200
    return client, headers


def snapshot(hub: Hub) -> Any:
    table = hub.table
    assert table is not None
    games = [(g.id, g.events, g.winner) for g in hub.store.games()]
    return table.game_id, table.view(), len(table.rulings), games


def game(options: dict[str, Any] | None = None, players: list[str] | None = None) -> str:
    return json.dumps({"game": "nasty7", "players": players or PLAYERS,
                       "options": options or {}})


DEEP = "[" * 30_000
SURROGATE = '"\\ud800"'  # JSON text of a lone surrogate
WEB_CASES: list[tuple[str, str, str]] = [
    # (route, raw JSON body, field named)
    ("/api/events", '{"type": []}', "type"),
    ("/api/events", '{"type": {}}', "type"),
    ("/api/events", DEEP, "body"),
    ("/api/games", DEEP, "body"),
    ("/api/pin", DEEP, "body"),
    ("/api/press", DEEP, "body"),
    ("/api/settings", DEEP, "body"),
    ("/api/seats", DEEP, "body"),
    ("/api/seats/listen", DEEP, "body"),
    ("/api/voices/start", DEEP, "body"),
    ("/api/voices/redo", DEEP, "body"),
    ("/api/voices/redo", '{"player": "\\ud800"}', "player"),
    ("/api/games", game({"first_player": "S"}).replace('"S"', SURROGATE), "options.first_player"),
    ("/api/games", game({"hesitation": "S"}).replace('"S"', SURROGATE), "options.hesitation"),
    ("/api/events", '{"type": "phone_word", "text": "\\ud800"}', "text"),
    ("/api/events", '{"type": "flip", "player": "\\ud800"}', "player"),
    ("/api/games", game({"composition": {"racketeer": 10**7}}), "options.composition"),
    ("/api/games", game({"composition": {"gun": 10**9}, "virtual_deck": True}),
     "options.composition"),
    ("/api/games", game({"composition": {"racketeer": 10**12}}), "options.composition"),
    ("/api/games", game({"hesitation": 1.5}).replace("1.5", "1e400"), "options.hesitation"),
    ("/api/games", '{"game": "nasty7", "players": ["A", "B"], '
                   '"options": {"hesitation": Infinity}}', "body"),
    ("/api/games", game({"seed": 10**39}), "options.seed"),
    ("/api/games", game(players=["A" * 20_000, "Beth", "Carter"]), "players"),
    ("/api/events", '{"type": "flip", "card": "gun", "t": 1e39999}', "t"),
]


@pytest.mark.parametrize(("route", "body", "field"), WEB_CASES,
                         ids=[f"{r}-{f}-{i}" for i, (r, _, f) in enumerate(WEB_CASES)])
def test_bad_json_gets_a_4xx_naming_the_field(hub: Hub, phone: tuple[FlaskClient, dict[str, str]],
                                               route: str, body: str, field: str) -> None:
    client, headers = phone
    before = snapshot(hub)
    reply = client.post(route, data=body, headers=headers)
    assert 400 <= reply.status_code < 500, reply.get_data(as_text=True)[:300]
    answer = reply.get_json()
    assert answer["field"] == field, answer
    assert len(answer["error"]) <= LONGEST_MESSAGE
    assert "A" * 100 not in answer["error"]  # a short prefix of a bad value at most
    assert snapshot(hub) == before


def test_a_huge_stored_game_id_is_not_found(hub: Hub, phone: tuple[FlaskClient, dict[str, str]]
                                            ) -> None:
    client, headers = phone
    before = snapshot(hub)
    reply = client.post("/api/games/99999999999999999999999/resume", headers=headers)
    assert reply.status_code == 404
    assert reply.get_json()["field"] == "game_id"
    assert snapshot(hub) == before


def test_a_huge_stored_game_id_in_replay_exits_2(tmp_path: Path) -> None:
    Store(tmp_path / "log.sqlite3").close()
    result = CliRunner().invoke(main, ["replay", "--db", str(tmp_path / "log.sqlite3"),
                                       "--game", "99999999999999999999999"])
    assert result.exit_code == 2, result.output
    assert "no stored game" in result.stderr


# --- the session reader ----------------------------------------------------------


def write_wav(path: Path, seconds: float = 0.5) -> None:
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(16000)
        wav.writeframes(b"\0\0" * int(16000 * seconds))


def wav_claiming(channels: int) -> bytes:
    fmt = struct.pack("<HHIIHH", 1, channels, 16000, 0, 0, 16)
    data = b"\0" * 8
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + \
        b"data" + struct.pack("<I", len(data)) + data
    return b"RIFF" + struct.pack("<I", len(body)) + body


def session_bytes(tmp_path: Path, case: str) -> tuple[bytes, int, str | None]:
    """The session file of one reproduction, the line and the field to name."""
    header = json.dumps(HEADER).encode()
    audio = b'{"t": 0.0, "type": "audio", "path": "table.wav"}'
    wav = tmp_path / "table.wav"
    if case == "deep":
        return header + b"\n" + DEEP.encode() + b"\n", 2, None
    if case == "latin-1":
        return header + b'\n{"t": 0.0, "type": "say", "text": "caf\xe9"}\n', 2, None
    if case == "bom":
        return b"\xef\xbb\xbf" + header + b"\n", 1, None
    if case in ("empty wav", "text wav", "truncated wav", "65535 channels"):
        if case == "empty wav":
            wav.write_bytes(b"")
        elif case == "text wav":
            wav.write_text("this is not audio\n")
        elif case == "truncated wav":
            write_wav(wav)
            wav.write_bytes(wav.read_bytes()[:30])
        else:
            wav.write_bytes(wav_claiming(65535))
        return header + b"\n" + audio + b"\n", 2, "path"
    options = {"composition": ({"racketeer": 10**7}, "options.composition"),
               "deck 10^12": ({"racketeer": 10**12, "virtual_deck": True},
                              "options.composition"),
               "inf": ({"hesitation": 1.5}, "options.hesitation"),
               "seed": ({"seed": 10**39}, "options.seed")}
    if case in options:
        value, field = options[case]
        if case == "composition":
            value = {"composition": value}
        if case == "deck 10^12":
            value = {"composition": {"racketeer": 10**12}, "virtual_deck": True}
        text = json.dumps({**HEADER, "options": value}).replace("1.5", "1e400")
        return text.encode() + b'\n{"t": 0.0, "type": "flip", "player": "Abby"}\n', 1, field
    if case == "long name":
        text = json.dumps({"game": "nasty7", "players": ["A" * 20_000, "Beth"]})
        return text.encode() + b"\n", 1, "players"
    if case == "surrogate":
        return header + b'\n{"t": 0.0, "type": "say", "text": "\\ud800"}\n', 2, "text"
    raise AssertionError(case)


SESSION_CASES = ["deep", "latin-1", "bom", "empty wav", "text wav", "truncated wav",
                 "65535 channels", "composition", "deck 10^12", "inf", "seed", "long name",
                 "surrogate"]


@pytest.mark.parametrize("case", SESSION_CASES)
def test_a_bad_session_exits_2_with_one_line_naming_line_and_field(tmp_path: Path,
                                                                    case: str) -> None:
    data, line, field = session_bytes(tmp_path, case)
    path = tmp_path / "session.jsonl"
    path.write_bytes(data)
    result = CliRunner().invoke(main, ["replay", str(path)])
    assert result.exit_code == 2, (result.output, result.exception)
    assert result.stdout == ""
    message = result.stderr.strip()
    assert "\n" not in message, message
    assert f"line {line}" in message, message
    if field is not None:
        assert f"field {field!r}" in message, message
    assert len(message) < 500 and "A" * 100 not in message
    assert path.read_bytes() == data


def test_a_bad_wav_exits_2_from_the_real_command(tmp_path: Path) -> None:
    data, _, _ = session_bytes(tmp_path, "empty wav")
    path = tmp_path / "session.jsonl"
    path.write_bytes(data)
    done = subprocess.run([sys.executable, "-m", "companion.cli", "replay", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "line 2, field 'path'" in done.stderr
    assert "Aborted" not in done.stderr and "Traceback" not in done.stderr
