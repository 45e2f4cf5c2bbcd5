"""What the page does to the hub, and what it shows of it.

``Control`` is the one object behind every route: it checks a request's JSON
(raising ``RequestError`` naming the field), turns it into an event, fills
in the time and the acting player, and submits it to the hub; and it builds
the snapshot of the table that the page draws and the live stream pushes.
It never changes the game except through ``Hub.submit`` / ``Hub.new_game``,
so an input the engine refuses leaves the state and the log untouched.

Optional parts of the hub (added by the live table when present; looked up
with ``getattr`` so the page runs without them):

* ``hub.now()``: the table clock (default ``time.monotonic()``);
* ``hub.press(player, t)``: a button press, judged as the board judges one;
* ``hub.pending_press``: the player whose button was just pressed, waiting
  for a card kind from the tap pad (a name, or a ``(name, t)`` pair);
* ``hub.buttons`` / ``hub.assign_buttons(mapping)``: which button each player holds;
* ``hub.microphone`` with ``level_db`` (input level in dBFS) and ``device``;
* ``hub.recognizer`` and ``hub.speaker`` (a ``name``/``status`` each).
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Mapping
from typing import Any

from flask import Flask, current_app, render_template

from companion.errors import IllegalEventError, RequestError
from companion.events import Audio, Event, Hearing, Say, Tick, Undo
from companion.games import available_games, game_class
from companion.hub import Hub
from companion.jsonin import short
from companion.rulings import Ruling
from companion.session import check_players
from companion.table import Table
from companion.voice.phrases import sentence
from companion.web.panels import Panel, panel_for

COMPANION_ONLY = frozenset(str(e.__struct_config__.tag) for e in (Say, Audio, Hearing, Tick))
"""Events only the companion itself makes (its ear, its clock): never taken
from the page, so a phone cannot put words in a player's mouth, point the
referee at a file, or switch its hearing off (issue 20, item 5)."""

SEATED_EVENTS: dict[str, frozenset[str]] = {"finger_guns": frozenset({"choose", "discard"})}
"""Per game, the events a phone makes only for the seat it took."""

LOG_LENGTH = 30
"""Rulings shown in the table page's log (newest first)."""

T_AHEAD_S = 1.0
"""Seconds a client's ``t`` may lie ahead of the table clock (a clock read a
moment earlier and rounded). Further ahead is refused: the table would hold
the event until then."""

T_BEHIND_S = 10.0
"""Seconds a client's ``t`` may lie behind the table clock; further back is
refused (the table has moved on: leave ``t`` out to mean now)."""


def _require(body: Mapping[str, Any], name: str, kind: type, what: str) -> Any:
    """``body[name]`` if present and of ``kind`` (a bool is no number);
    ``RequestError`` naming the field otherwise."""
    if name not in body:
        raise RequestError(f"missing field {name!r}", field=name)
    value = body[name]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise RequestError(f"{name} must be {what}, not {short(value)}", field=name)
    return value


def json_body(raw: Any) -> dict[str, Any]:
    """The request's JSON object; ``RequestError`` (field ``body``) otherwise."""
    if not isinstance(raw, dict):
        raise RequestError("the request body must be a JSON object", field="body")
    return raw


class Control:
    """The page's handle on the hub. ``app``: for rendering the snapshot's
    HTML parts outside a request (live updates come from the table's thread)."""

    def __init__(self, hub: Hub, app: Flask) -> None:
        self.hub = hub
        self.app = app
        self.buttons: dict[str, int] = {}
        self.settings: dict[str, Any] = {}
        self._lock = threading.Lock()

    # -- reading ---------------------------------------------------------------

    def now(self) -> float:
        """The table clock, seconds."""
        clock = getattr(self.hub, "now", None)
        return float(clock()) if callable(clock) else time.monotonic()

    def table(self) -> Table:
        """The table in play; ``RequestError`` 409 naming ``game`` if none."""
        table = self.hub.table
        if table is None:
            raise RequestError("no game is set up yet", field="game", status=409)
        return table

    def button_map(self) -> dict[str, int]:
        """Player -> button number (1-based), from the hub if it keeps them."""
        held = getattr(self.hub, "buttons", None)
        if isinstance(held, Mapping):
            return {str(k): int(v) for k, v in held.items()}
        return dict(self.buttons)

    def log(self, table: Table) -> list[dict[str, Any]]:
        """The newest rulings, newest first: index, time, type, sentence, fields."""
        rulings: list[Ruling] = table.rulings[-LOG_LENGTH:]
        start = len(table.rulings) - len(rulings)
        out = []
        for i, ruling in enumerate(rulings, start=start):
            data = ruling.to_dict()
            undone = (table.logged_event(str(data["what"]), float(data["at"]))
                      if ruling.type == "undone" else None)
            text = sentence(ruling, self.hub.pack, shown=True, undone=undone)
            out.append({"i": i, "t": ruling.t, "type": ruling.type, "text": text, "data": data})
        out.reverse()
        return out

    def notices(self, since: float | None = None) -> list[dict[str, Any]]:
        """The hub's notices (what the terminal also prints), newest first,
        as log entries (``type`` ``notice``); only those at or after
        ``since`` (seconds on the table clock) when given."""
        kept = list(getattr(self.hub, "notices", []))
        out = [{"i": f"n{n}", "t": t, "type": "notice", "text": text, "data": {}}
               for n, (t, text) in enumerate(kept) if since is None or t >= since]
        out.reverse()
        return out

    def entries(self, table: Table | None) -> list[dict[str, Any]]:
        """The page's log: rulings and notices, newest first (by table time;
        a ruling before a notice of the same time)."""
        rulings = self.log(table) if table is not None else []
        merged = sorted([*rulings, *self.notices()],
                        key=lambda e: (e["t"], e["type"] != "notice"), reverse=True)
        return merged[:LOG_LENGTH]

    @staticmethod
    def latest(entries: list[dict[str, Any]]) -> dict[str, Any] | None:
        """The newest news for the top of the table: the rulings of the last
        event (or the newest notice), as ``i`` (the newest entry's key),
        ``type`` and ``text`` of the first of them (the headline: "Beth: wrong
        number...") and ``more`` (the rest: "Beth takes 2 cards. New round...")."""
        if not entries:
            return None
        top = entries[0]
        batch = [top]
        if top["type"] != "notice":
            for entry in entries[1:]:
                if entry["type"] == "notice" or entry["t"] != top["t"]:
                    break
                batch.append(entry)
        batch.reverse()
        return {"i": top["i"], "type": batch[0]["type"], "text": batch[0]["text"],
                "more": " ".join(e["text"] for e in batch[1:])}

    def snapshot(self) -> dict[str, Any]:
        """Everything the table page shows, as JSON builtins: the table view,
        whose turn, who a tap stands for (``actor``), who is winning, the
        companion's ``health`` (``status.health``), the newest log entry
        (``latest``), the rendered ``board`` and ``log_html``, and for a
        running countdown ``now`` and ``deadline`` (seconds on the table
        clock; ``deadline`` is null when nothing is pending): the page counts
        ``deadline - now`` down itself, so no snapshot is sent while time
        merely passes."""
        from companion.web.status import health

        table = self.hub.table
        now = self.now()
        with self.app.app_context():
            well = health(self)
            if table is None:
                entries = self.entries(None)
                return {"game": None, "game_id": None, "players": [], "view": None,
                        "leaders": [], "turn": None, "actor": None, "winner": None,
                        "now": now, "deadline": None,
                        "health": well, "latest": self.latest(entries),
                        "board": render_template("parts/no_game.html"),
                        "log_html": render_template("parts/log.html", log=entries)}
            view = table.view()
            panel = panel_for(table.game.name)
            log = self.entries(table)
            leaders = panel.leaders(view)
            board = render_template(panel.board, view=view, state=view["state"],
                                    leaders=leaders, buttons=self.button_map())
            log_html = render_template("parts/log.html", log=log)
        latest = self.latest(log)
        return {"game": table.game.name, "game_id": table.game_id,
                "players": view["players"], "view": view, "leaders": leaders,
                "turn": panel.current_player(view), "actor": self.acting_player(table, panel),
                "winner": view["winner"], "now": now,
                "deadline": None if view["winner"] else view["deadline"],
                "health": well, "latest": latest,
                "board": board, "log_html": log_html}

    def games_on_offer(self) -> list[dict[str, Any]]:
        """The installed games: name, title, player range."""
        out = []
        for name in available_games():
            try:
                cls = game_class(name)
            except Exception:  # an engine that does not import is not offered
                continue
            out.append({"name": name, "title": cls.title, "min_players": cls.min_players,
                        "max_players": cls.max_players})
        return out

    # -- acting ----------------------------------------------------------------

    def new_game(self, raw: Any) -> Table:
        """Start a game from ``{"game", "players": [...], "options": {...},
        "buttons": {player: number}}``. Raises ``RequestError``,
        ``UnknownGameError``, ``IllegalEventError`` (players), ``OptionError``."""
        body = json_body(raw)
        game = _require(body, "game", str, "a game name")
        players = _require(body, "players", list, "a list of names")
        if not all(isinstance(p, str) for p in players):
            raise RequestError("players must be a list of names", field="players")
        options = body.get("options", {})
        if not isinstance(options, dict):
            raise RequestError("options must be a JSON object", field="options")
        buttons = body.get("buttons", {})
        if not isinstance(buttons, dict):
            raise RequestError("buttons must map players to button numbers", field="buttons")
        names = [p.strip() for p in players]
        mapping: dict[str, int] = {}
        for player, number in buttons.items():
            if player.strip() not in names:
                raise RequestError(f"buttons names {short(player)}, who is not a player",
                                   field="buttons")
            if not isinstance(number, int) or isinstance(number, bool) or number < 1:
                raise RequestError(f"button of {short(player)} must be a number from 1, "
                                   f"not {short(number)}", field="buttons")
            mapping[player.strip()] = number
        if len(set(mapping.values())) != len(mapping):
            raise RequestError("two players hold the same button", field="buttons")
        unknown = set(body) - {"game", "players", "options", "buttons"}
        if unknown:
            name = sorted(unknown)[0]
            raise RequestError(f"unknown field {short(name)}", field=name)
        if "face_down_seed" in getattr(game_class(game).options_type, "__struct_fields__", ()) \
                and "face_down_seed" not in options:
            # Face-down card ids drawn from the OS's randomness (finger_guns.py).
            options = {**options, "face_down_seed": secrets.randbelow(2**62)}
        with self._lock:
            table = self.hub.new_game(game, names, options)
            self.buttons = mapping
            assign = getattr(self.hub, "assign_buttons", None)
            if callable(assign):
                assign(mapping)
        return table

    def resume(self, game_id: int) -> Table:
        """Make a stored game the table in play. Raises ``UnknownStoredGameError``."""
        with self._lock:
            return self.hub.resume(game_id)

    def acting_player(self, table: Table, panel: Panel) -> str | None:
        """Who a tap stands for: the player whose button was just pressed (the
        hub's ``pending_press``), else the player whose turn it is."""
        pending = getattr(self.hub, "pending_press", None)
        if isinstance(pending, tuple | list) and pending:
            pending = pending[0]
        if isinstance(pending, str) and pending:
            return pending
        return panel.current_player(table.view())

    def event(self, raw: Any) -> tuple[Event, list[Ruling]]:
        """Submit one event from its JSON; ``t`` is the table clock when absent,
        ``player`` the acting player for the game's ``actor_events``.
        Raises ``RequestError`` (naming ``t`` when it lies more than
        ``T_AHEAD_S`` ahead of or ``T_BEHIND_S`` behind the table clock),
        ``EventError`` (state untouched)."""
        body = dict(json_body(raw))
        table = self.table()
        if "type" not in body:
            raise RequestError("an event needs a 'type'", field="type")
        if not isinstance(body["type"], str):
            raise RequestError("type must be an event's name", field="type")
        if body["type"] in COMPANION_ONLY:
            raise RequestError(f"{body['type']!r} events come only from the companion's own "
                               "ear and clock", field="type", status=403)
        self._check_seat(table, body)
        panel = panel_for(table.game.name)
        if body.get("type") in panel.actor_events and "player" not in body:
            actor = self.acting_player(table, panel)
            if actor is None:
                raise RequestError("whose card is it? name the player", field="player")
            body["player"] = actor
        now = self.now()
        if "t" not in body:
            body["t"] = max(now, table.match.clock)
        event = table.game.parse_event(body)
        if not now - T_BEHIND_S <= event.t <= now + T_AHEAD_S:
            ahead = event.t - now
            where = f"{ahead:.1f} s ahead of" if ahead > 0 else f"{-ahead:.1f} s behind"
            raise RequestError(f"t is {where} the table clock ({now:.3f} s); leave t out "
                               "to mean now", field="t")
        check_players(table.game, event)
        return event, self.hub.submit(event)

    @staticmethod
    def _check_seat(table: Table, body: dict[str, Any]) -> None:
        """A secret pick (``SEATED_EVENTS``) is made only by the phone seated as
        that player (Finger Guns' seats, ``web/fingerguns.py``): 403 naming
        ``player`` otherwise."""
        if body["type"] not in SEATED_EVENTS.get(table.game.name, ()):
            return
        from companion.web.fingerguns import seat_of_session

        seat = seat_of_session(table)
        if seat is None:
            raise RequestError("this phone has no seat yet: claim one first", field="player",
                               status=403)
        named = body.get("player", seat)
        if not isinstance(named, str) or named.strip().casefold() != seat.casefold():
            raise RequestError(f"this phone plays as {seat!r} only", field="player",
                               status=403)
        body["player"] = seat

    def undo(self) -> list[Ruling]:
        """Undo the last event that had an effect. ``IllegalEventError`` if none."""
        table = self.table()
        return self.hub.submit(Undo(t=max(self.now(), table.match.clock)))

    def press(self, raw: Any) -> list[Ruling]:
        """A virtual button press ``{"player"}``: judged by the live table's
        ``hub.press`` when present, else by the game's panel."""
        body = json_body(raw)
        player = _require(body, "player", str, "a player's name")
        table = self.table()
        name = table.game.players[table.game.player_index(player)]
        t = max(self.now(), table.match.clock)
        press = getattr(self.hub, "press", None)
        if callable(press):
            result = press(name, t)
            return list(result) if isinstance(result, list) else []
        panel = panel_for(table.game.name)
        if panel.press is None:
            raise IllegalEventError(f"{table.game.title} has no buttons to press",
                                    field="player")
        event = table.game.parse_event({**panel.press(name, table.view()), "t": t})
        return self.hub.submit(event)


def current_control() -> Control:
    """The ``Control`` of the app handling the current request."""
    out = current_app.extensions["companion.control"]
    assert isinstance(out, Control)
    return out


def players_in_play(why: str) -> list[str]:
    """The players of the game in play; ``RequestError`` (409 naming
    ``game``) with no game, saying ``why`` a game is needed."""
    table = current_control().hub.table
    if table is None:
        raise RequestError(f"start a game first: {why}", field="game", status=409)
    return list(table.game.players)


def seated(player: Any, players: list[str], field: str = "player") -> str:
    """``player`` if they sit at the table (one of ``players``), else
    ``RequestError`` naming ``field`` (the name quoted short)."""
    if not isinstance(player, str) or player not in players:
        raise RequestError(f"{short(player)} is not at the table", field=field)
    return player
