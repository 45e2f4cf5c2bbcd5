"""``companion run``: the whole table in one process.

Starts, in order: the event log, the speaker (a missing one is a warning),
the board (lgpio on a Pi; gpiozero's mock pins elsewhere, and it says so), the
microphone and recognizer (without them speech checking is off, and it says
so), the table loop, the control page (waitress on ``0.0.0.0:PORT``) and the
Finger Guns countdown caller. It prints and speaks the page's address and
the table PIN, prints every ruling as a sentence, and tells systemd
``READY=1`` and ``WATCHDOG=1`` from the table loop (sd_notify; nothing
happens outside systemd). Ctrl-C or SIGTERM stops everything in reverse
order; every event was already committed to the log when it was applied.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import socket
import sys
import threading
from pathlib import Path
from typing import Any

import click


def lan_address() -> str:
    """This machine's address on the local network (the source address of a
    route to a private range; no packet is sent), else ``127.0.0.1``."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 9))
            return str(probe.getsockname()[0])
        except OSError:
            return "127.0.0.1"


def _say_digits(text: str) -> str:
    return " ".join(text)


def _echo(message: str) -> None:
    click.echo(message)
    sys.stdout.flush()


@click.command("run")
@click.option("--port", type=click.IntRange(0, 65535), default=8080, show_default=True,
              help="Port of the control page (0 picks a free one).")
@click.option("--host", default="0.0.0.0", show_default=True,
              help="Address the control page listens on.")
@click.option("--pinout", "pinout_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Wiring of buttons and LEDs (default: the shipped hardware/pinout.toml).")
@click.option("--db", type=click.Path(dir_okay=False, path_type=Path),
              help="The event log (default: $COMPANION_DB or ~/.local/share/companion).")
@click.option("--microphone", default=None,
              help="Input device (PortAudio index or name; default: the system's).")
@click.option("--speaker", "speaker_device", default=None,
              help="Output device (PortAudio index or name; default: the system's).")
@click.option("--recognizer", default=None, help="Speech backend: vosk or pocketsphinx.")
@click.option("--no-microphone", is_flag=True, help="Run with speech checking off.")
@click.option("--game", default=None, help="Start this game at once (else set it up on the page).")
@click.option("--players", default=None, help="Comma-separated players for --game, in seat order.")
@click.option("--options", "options_json", default=None, help="Game options for --game, as JSON.")
@click.option("--pin", default=None,
              help="The table PIN for this run (default: the one kept in the state "
                   "directory; see companion pin).")
@click.option("--array", "array_spec", default=None,
              help="The microphone is an array: usb4, hat6 (hardware/arrays.toml) or a TOML "
                   "file; the seats are found on the page's /seats.")
def run_command(port: int, host: str, pinout_path: Path | None, db: Path | None,
                microphone: str | None, speaker_device: str | None, recognizer: str | None,
                no_microphone: bool, game: str | None, players: str | None,
                options_json: str | None, pin: str | None,
                array_spec: str | None = None) -> None:
    """Run the table: buttons, LEDs, microphone, voice and the control page."""
    from companion.errors import BoardError, CompanionError

    def fail(message: str) -> None:
        click.echo(f"companion: {message}", err=True)
        sys.exit(2)

    options: dict[str, Any] = {}
    if options_json is not None:
        try:
            options = json.loads(options_json)
        except json.JSONDecodeError as exc:
            fail(f"--options is not JSON: {exc}")
        if not isinstance(options, dict):
            fail("--options must be a JSON object")
    if (game is None) != (players is None):
        fail("give --game and --players together")
    if pin is not None and not pin.isdigit():
        fail(f"--pin must be digits, not {pin!r}")
    try:
        from companion.pinout import load_pinout

        pinout = load_pinout(pinout_path)
    except BoardError as exc:
        fail(str(exc))
        return
    busy = _port_problem(host, port)
    if busy is not None:
        fail(busy)
    try:
        _run(port=port, host=host, pinout=pinout, db=db, microphone=microphone,
             speaker_device=speaker_device, recognizer=recognizer, no_microphone=no_microphone,
             game=game, players=players, options=options, pin=pin, array_spec=array_spec)
    except (CompanionError, OSError) as exc:
        fail(str(exc))
    except KeyboardInterrupt:  # Ctrl-C before the table was up (then it stops the table)
        click.echo("Stopped before the table was up.", err=True)
        sys.exit(0)


def _port_problem(host: str, port: int) -> str | None:
    """Why the page could not listen on ``host``:``port``, in words naming
    the port, or None if it can (checked by listening there for a moment,
    before any device is opened; port 0 always can)."""
    if port == 0:
        return None
    try:
        socket.create_server((host, port)).close()
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            return (f"port {port} is already in use (is another companion running?); "
                    "choose another with --port")
        if exc.errno == errno.EACCES:
            return f"port {port} needs root; choose one above 1023 with --port"
        return f"cannot serve the page on {host}:{port}: {exc.strerror or exc}"
    return None


def _device(spec: str | None) -> int | str | None:
    return int(spec) if spec is not None and spec.isdigit() else spec


def _run(*, port: int, host: str, pinout: Any, db: Path | None, microphone: str | None,
         speaker_device: str | None, recognizer: str | None, no_microphone: bool,
         game: str | None, players: str | None, options: dict[str, Any],
         pin: str | None, array_spec: str | None = None) -> None:
    import sdnotify

    from companion.audio.microphone import Microphone
    from companion.board import Board, choose_pin_factory
    from companion.errors import AudioDeviceError, RecognizerError
    from companion.live import LiveHub, LiveTable
    from companion.store import Store
    from companion.voice.pack import load_pack
    from companion.voice.speaker import Priority, open_speaker

    # SIGTERM or Ctrl-C from here on stops the table once it is up, cleanly.
    stop = threading.Event()

    def on_signal(signum: int, _frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    pack = load_pack("en")
    store = Store(db)
    hub = LiveHub(store, pack)
    from companion.referee.enrollment import count_words, wrong_numbers
    from companion.store import state_dir
    from companion.voice_setup import TakeStore, VoiceSetup, attach

    state = state_dir(store.path)
    # Each player's takes of the count words and of the wrong numbers just
    # past the count, kept in the state directory by name, for the ear and
    # for every game's header (the page's /voices).
    number = pack.lexicon.number_word
    attach(VoiceSetup(count_words(number), TakeStore(state), wrong=wrong_numbers(number)), hub)
    array = None
    if array_spec is not None:
        from companion.audio.array import load_array
        from companion.seat_setup import SeatSetup

        array = load_array(array_spec)  # ArrayError / OSError: one line, exit 2
        positions = array.positions

        def store_seats(seats: dict[str, float]) -> None:
            if hub.table is not None:
                store.set_header_fields(hub.table.game_id, {
                    "microphones": [list(p) for p in positions],
                    "seats": {p: seats[p] for p in hub.table.game.players if p in seats}})

        hub.seat_setup = SeatSetup(positions, on_change=store_seats)
    if game is not None and players is not None:  # refused before any device opens
        hub.new_game(game, [p.strip() for p in players.split(",")], options)
    def speaker_warning(message: str) -> None:  # the terminal, and the page in words
        click.echo(f"companion: warning: {message}", err=True)
        hub.notice("The speaker is not working: rulings are shown on this page only.")

    speaker = open_speaker(pack, device=_device(speaker_device), warn=speaker_warning)

    def tell(message: str, page: str) -> None:
        """``message`` on the terminal, ``page`` (the same news in players'
        words) in the page's log."""
        _echo(message)
        hub.notice(page)

    choice = choose_pin_factory()
    if choice.mock:
        tell(f"No GPIO: running on gpiozero's mock pins ({choice.reason}); "
             "use the page's virtual buttons.",
             "No buttons are wired: the buttons on this page stand in for them.")
    board = Board(pinout, choice.factory)

    mic = None
    listener_for = None
    if no_microphone:
        tell("Speech checking is off (--no-microphone).",
             "Speech checking is off: calls are not checked by ear.")
    else:
        try:
            from companion.referee.adaptation import KEEP_MODELS, Adapter, background_builders
            from companion.referee.recognizer import open_recognizer
            from companion.referee.stream import CallLevels, Listener

            engine = open_recognizer(recognizer, pack)
            mic = Microphone(_device(microphone), channels=None if array else 1)
            mic.open()
            tell(f"Listening on {mic.name!r} at {mic.rate} Hz with {type(engine).__name__}.",
                 "Listening: calls are checked by ear.")

            levels = CallLevels()  # the callers' loudness outlives a reopened stream
            # each player's adapted model, built in the background from their takes
            adapter = Adapter(wait=False, builders=background_builders(), keep=KEEP_MODELS)

            def listener_for(rate: int) -> Any:
                return Listener(engine, rate, levels=levels, adapter=adapter)
        except (AudioDeviceError, RecognizerError) as exc:
            mic, listener_for = None, None
            why = str(exc)
            tell(f"{why[:1].upper()}{why[1:]}: speech checking is off; the game goes on.",
                 "The microphone could not be opened: speech checking is off; "
                 "the game goes on.")

    def show(ruling: Any, line: str) -> None:
        if line:
            _echo(line)

    notifier = sdnotify.SystemdNotifier()
    ear_for = None
    if array is not None and mic is not None:
        from companion.audio.array import Seating
        from companion.referee.steered import SteeredEar

        chosen = array

        def ear_for(rate: int) -> Any:
            return SteeredEar(Seating(positions=chosen.positions), rate, channels=chosen.channels)

        _echo(f"Microphone array {chosen.name!r}: {chosen.size} microphones; "
              "find the seats on the page (/seats).")
    live = LiveTable(hub, board=board, microphone=mic, listener_for=listener_for,
                     speaker=speaker, notify=notifier.notify, on_ruling=show, ear_for=ear_for)

    from companion.countdown import CountdownCaller

    def all_leds(on: bool) -> None:
        for led in board.leds:
            led.on() if on else led.off()

    countdown = CountdownCaller(hub, say=lambda word: speaker.say(word, Priority.RULING),
                                leds=all_leds)

    from companion.web import create_app
    from companion.web.server import start_server

    app = create_app(hub, pin=pin, state=state)
    page = start_server(app, host=host, port=port)
    table_pin = str(app.config["TABLE_PIN"])
    address = lan_address() if host in ("0.0.0.0", "") else host
    # The kept PIN is not written to the journal: it is spoken, and
    # `companion pin` shows it. A PIN given with --pin, or a terminal, shows it.
    shown = table_pin if pin is not None or sys.stdout.isatty() else (
        f"kept in {state / 'table_pin'} (companion pin shows it)")
    _echo(f"Control page: http://{address}:{page.port}/  table PIN {shown}")
    speaker.say(f"The control page is at {address.replace('.', ' dot ')}, port {page.port}. "
                f"The table PIN is {_say_digits(table_pin)}.", Priority.CHATTER)

    if game is not None:
        _echo(f"Started {game}: {players}")

    live.start()
    try:
        while not stop.wait(0.5):
            pass
    finally:
        notifier.notify("STOPPING=1")
        _echo("Stopping the table.")
        live.stop()
        countdown.cancel()
        page.stop()
        if mic is not None:
            mic.close()
        board.close()
        speaker.close(timeout=10)
        store.close()
        _echo("Stopped; the event log is closed.")
        sys.stderr.flush()
        # espeak-ng (C++) keeps a native thread that aborts the process when the
        # interpreter's exit destroys it ("terminate called without an active
        # exception"); everything is closed and flushed, so leave at once.
        os._exit(0 if stop.is_set() else 1)
