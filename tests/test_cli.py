"""The command line's small courtesies: an unknown card or rank lists the
valid ones, a busy port is named, and ``--help`` gives every command's whole
summary."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from companion.cli import main


def _session(tmp_path: Path, header: dict[str, object], event: dict[str, object]) -> Path:
    path = tmp_path / "session.jsonl"
    path.write_text(json.dumps(header) + "\n" + json.dumps(event) + "\n")
    return path


@pytest.mark.parametrize(("header", "event", "field", "valid"), [
    ({"game": "nasty7", "players": ["Abby", "Beth"]},
     {"t": 1.0, "type": "flip", "player": "Abby", "card": "joker"},
     "card", "racketeer, twin_racketeer, phone, twin_phone, gun"),
    ({"game": "cheat", "players": ["Abby", "Beth", "Carter"]},
     {"t": 1.0, "type": "claim", "player": "Abby", "count": 1, "rank": "joker"},
     "rank", "A, 2, 3, 4, 5, 6, 7, 8, 9, 10, J, Q, K"),
])
def test_an_unknown_card_lists_the_valid_ones(tmp_path: Path, header: dict[str, object],
                                              event: dict[str, object], field: str,
                                              valid: str) -> None:
    result = CliRunner().invoke(main, ["replay", str(_session(tmp_path, header, event))])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1
    assert f"line 2, field '{field}': unknown {field} 'joker'; one of: {valid}" in lines[0]


def test_a_busy_port_is_named(tmp_path: Path) -> None:
    with socket.create_server(("0.0.0.0", 0)) as taken:
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "companion.cli", "run", "--port", str(port),
                               "--no-microphone", "--db", str(tmp_path / "log.sqlite3")],
                              capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert lines == [f"companion: port {port} is already in use (is another companion "
                     "running?); choose another with --port"]
    assert "Traceback" not in done.stderr


def _commands(group: click.Group) -> list[tuple[list[str], click.Command]]:
    found: list[tuple[list[str], click.Command]] = []
    for name, command in group.commands.items():
        found.append(([name], command))
        if isinstance(command, click.Group):
            found += [([name, *path], sub) for path, sub in _commands(command)]
    return found


@pytest.mark.parametrize("path", [[], ["models"]])
def test_help_gives_whole_command_summaries(path: list[str]) -> None:
    result = CliRunner().invoke(main, [*path, "--help"], terminal_width=80)
    assert result.exit_code == 0
    commands = result.output.split("Commands:")[1]
    assert "..." not in commands
    listing = " ".join(commands.split())
    group = main if not path else main.commands[path[0]]
    assert isinstance(group, click.Group)
    for name, command in group.commands.items():
        first = " ".join((command.help or "").split("\n\n")[0].split())
        assert f"{name} {first}" in listing, name


def test_every_command_has_a_summary() -> None:
    assert all(command.short_help for _, command in _commands(main))
