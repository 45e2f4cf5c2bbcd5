"""The ``companion`` command line (click).

Errors a user can cause (a bad session file, an unknown game id) print one
line on standard error and exit with status 2, never a traceback.
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path
from typing import Any

import click

from companion import __version__
from companion.errors import CompanionError, SessionError
from companion.rulings import Ruling


def _fail(message: str) -> None:
    click.echo(f"companion: {message}", err=True)
    sys.exit(2)


@click.group()
@click.version_option(__version__, prog_name="companion")
def main() -> None:
    """Card Table Companion: referee and scorekeeper for a real card table."""


def _emit(rulings: list[Ruling] | Any, *, text: bool, speak: bool, pack: Any) -> None:
    from companion.voice.phrases import sentence

    speaker = None
    if speak:
        from companion.voice.speaker import open_speaker

        speaker = open_speaker(pack)
    for ruling in rulings:
        if text:
            # the written form of each ruling the companion would say
            line = sentence(ruling, pack, shown=True) if sentence(ruling, pack) else ""
            if line:
                click.echo(line)
        else:
            click.echo(ruling.to_json().decode())
        if speaker is not None:
            line = sentence(ruling, pack)
            if line:
                speaker.say(line)
    if speaker is not None:
        speaker.close()


@main.command()
@click.argument("session", type=click.Path(dir_okay=False, path_type=Path), required=False)
@click.option("--game", "game_id", type=int, help="Replay a stored game by its id instead.")
@click.option("--db", type=click.Path(dir_okay=False, path_type=Path),
              help="The event log (default: $COMPANION_DB or ~/.local/share/companion).")
@click.option("--speak", is_flag=True, help="Also speak the rulings.")
@click.option("--text", is_flag=True, help="Print sentences instead of JSON lines.")
@click.option("--recognizer", default=None,
              help="Speech backend for audio events: vosk or pocketsphinx.")
def replay(session: Path | None, game_id: int | None, db: Path | None, speak: bool,
           text: bool, recognizer: str | None) -> None:
    """Replay a recorded SESSION (JSON Lines) or a stored game; print its rulings."""
    from companion.replay import replay as run
    from companion.session import load_session
    from companion.voice.pack import lexicon_for_header, load_pack

    if (session is None) == (game_id is None):
        _fail("give a SESSION file or --game ID (one of them)")
    try:
        if session is not None:
            if not session.exists():
                _fail(f"no such session file: {str(session)!r}")
            raw: dict[str, Any] = {}  # the file's header, for its "voice"

            def lexicon_for(h: dict[str, Any]) -> Any:
                raw.update(h)
                return lexicon_for_header(h)

            parsed = load_session(session, lexicon_for=lexicon_for)
            header = {**parsed.game.header(), "voice": raw.get("voice", "en")}
        else:
            from companion.replay import stored_session
            from companion.store import Store

            assert game_id is not None
            store = Store(db)
            header = store.header(game_id)
            parsed = stored_session(store, game_id, lexicon_for=lexicon_for_header)
        pack = load_pack(str(header.get("voice", "en")))
        on_audio = None
        if any(ev.type == "audio" for ev in parsed.events):
            from companion.referee import audio_handler

            on_audio = audio_handler(recognizer, pack)
        _emit(run(parsed, on_audio=on_audio), text=text, speak=speak, pack=pack)
    except SessionError as exc:
        _fail(f"{session if session is not None else f'game {game_id}'}: {exc}")
    except (CompanionError, OSError) as exc:
        _fail(str(exc))


@main.command()
@click.option("--db", type=click.Path(dir_okay=False, path_type=Path),
              help="The event log (default: $COMPANION_DB or ~/.local/share/companion).")
def games(db: Path | None) -> None:
    """List the stored games, newest first."""
    import datetime as dt

    from companion.store import Store

    try:
        rows = Store(db).games()
    except CompanionError as exc:
        _fail(str(exc))
        return
    if not rows:
        click.echo("No stored games yet.")
    for row in rows:
        when = dt.datetime.fromtimestamp(row.created).strftime("%Y-%m-%d %H:%M")
        winner = f"winner {row.winner}" if row.winner else "in play"
        click.echo(f"{row.id:>4}  {when}  {row.game:<13} {', '.join(row.players)}  "
                   f"({row.events} events, {winner})")


@main.command()
@click.option("--db", type=click.Path(dir_okay=False, path_type=Path),
              help="The event log, whose folder is the state directory (default: "
                   "$STATE_DIRECTORY, else the folder of $COMPANION_DB or "
                   "~/.local/share/companion).")
@click.option("--set", "new", default=None, metavar="DIGITS", help="Change the PIN to DIGITS.")
@click.option("--new", "fresh", is_flag=True, help="Change the PIN to 4 random digits.")
def pin(db: Path | None, new: str | None, fresh: bool) -> None:
    """Show the table PIN, or change it (--set DIGITS, --new). A running table
    takes the new PIN at once; phones then enter it again."""
    import secrets

    from companion.store import state_dir
    from companion.web.access import stored_pin

    if new is not None and fresh:
        _fail("give --set or --new, not both")
    if fresh:
        new = "".join(secrets.choice("0123456789") for _ in range(4))
    try:
        click.echo(stored_pin(state_dir(db), new=new))
    except ValueError as exc:  # StoreError is an OSError, not a ValueError
        _fail(f"--set: {exc}")
    except (CompanionError, OSError) as exc:
        _fail(str(exc))


@main.command()
@click.option("--quiet", is_flag=True, help="Print only; do not speak.")
def demo(quiet: bool) -> None:
    """Replay the shipped example game (the Nasty 7 rulebook example), spoken and printed."""
    from companion.resources import data_path
    from companion.session import load_session
    from companion.voice.pack import lexicon_for_header, load_pack

    path = data_path("voices", "en", "examples", "nasty7-rulebook.jsonl")
    try:
        parsed = load_session(path, lexicon_for=lexicon_for_header)
    except SessionError as exc:
        _fail(f"{path}: {exc}")
        return
    click.echo(f"Replaying {path.name}: {', '.join(parsed.game.players)}")
    pack = load_pack("en")
    speaker = None
    if not quiet:
        from companion.voice.speaker import open_speaker

        speaker = open_speaker(pack)
    from companion.games.base import Match
    from companion.voice.phrases import describe, sentence

    match: Match[Any] = Match(parsed.game)
    for event in parsed.events:
        click.echo(f"{event.t:6.1f}s  {describe(event)}")
        for ruling in match.apply(event):
            line = sentence(ruling, pack, shown=True) or describe(ruling)
            click.echo(f"{'':8}-> {line}")
            if speaker is not None and sentence(ruling, pack):
                speaker.say(sentence(ruling, pack))
    if speaker is not None:
        speaker.close()


from companion.referee.models_cli import models as _models  # noqa: E402

main.add_command(_models)

from companion.run import run_command as _run_command  # noqa: E402 - the live table (issue 4)

main.add_command(_run_command)

from companion.service import install_service as _install_service  # noqa: E402 - issue 4

main.add_command(_install_service)

from companion.wiring import wiring_command as _wiring_command  # noqa: E402 - issue 4

main.add_command(_wiring_command)


def _whole_summaries(group: click.Group) -> None:
    """Give every command of ``group`` (and of its subgroups) a summary for
    ``--help``'s list: the first paragraph of its help, which click then
    wraps, instead of the first 45 characters or so cut with "...".
    Commands that set ``short_help`` keep it."""
    for command in group.commands.values():
        if command.short_help is None and command.help:
            paragraph = inspect.cleandoc(command.help).split("\f")[0].split("\n\n")[0]
            command.short_help = " ".join(paragraph.split())
        if isinstance(command, click.Group):
            _whole_summaries(command)


_whole_summaries(main)

if __name__ == "__main__":
    main()
