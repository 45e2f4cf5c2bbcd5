"""The page's words and parts for players, through Flask's test client
(issue 19): setup help in plain words for every option of every game, the
health line, notices in the log, the favicon and the app manifest.
The same page in real Chromium at 360 and 390 px is tests/test_web_glance_browser.py."""

from __future__ import annotations

import json
import re

import pytest
from flask import Flask

from companion.games import available_games, game_class
from companion.hub import Hub
from companion.web import control_of
from companion.web.optionform import option_fields
from companion.web.setupwords import WORDS
from companion.web.status import health

PIN = "1357"
FIGURES = re.compile(r"companion\.|bench|measured|%|\bclips?\b|pocketsphinx|SNR|\bdB\b"
                     r"|[A-Z]{3,}_[A-Z]")
"""What a tuning sheet says and players need not read: module paths,
benchmark words and figures, constants."""


@pytest.mark.parametrize("game", available_games())
def test_every_option_has_plain_words_on_the_setup_page(game: str) -> None:
    names = [f.name for f in option_fields(game_class(game).options_type)]
    missing = [n for n in names if n not in WORDS.get(game, {})]
    assert not missing, f"{game}: options without words in companion/web/setupwords.py: {missing}"
    for name in names:
        words = WORDS[game][name]
        assert words.label and "_" not in words.label and not FIGURES.search(words.help), words


def test_the_setup_page_quotes_no_constants_or_figures(app: Flask) -> None:
    page = app.test_client().get("/setup").get_data(as_text=True)
    text = re.sub(r"<[^>]+>", " ", page)
    assert not FIGURES.search(text), FIGURES.search(text)
    assert "QUIET_CAP" not in page and "measured on" not in page
    assert '<details class="advanced">' in page and "First player" in page


def test_notices_reach_the_page_s_log(app: Flask, hub: Hub) -> None:
    hub.new_game("nasty7", ["Abby", "Beth"])
    hub.notice("No card was tapped for Beth's press; it is ignored.")
    snap = control_of(app).snapshot()
    assert "No card was tapped for Beth&#39;s press; it is ignored." in snap["log_html"]
    assert snap["latest"]["text"] == "No card was tapped for Beth's press; it is ignored."
    assert "r-notice" in snap["log_html"]


def test_health_says_speech_checking_is_off_and_the_buttons_are_the_page_s(app: Flask) -> None:
    parts = {h["part"]: h for h in health(control_of(app))}
    assert list(parts) == ["microphone", "recognizer", "speaker", "buttons"]
    assert parts["recognizer"]["text"] == "speech checking off"
    assert parts["buttons"]["state"] == "sim" and "the page's" in parts["buttons"]["text"]
    page = app.test_client().get("/").get_data(as_text=True)
    assert 'id="health"' in page and "speech checking off" in page


def test_favicon_and_manifest(app: Flask) -> None:
    client = app.test_client()
    with client.get("/favicon.ico") as icon:
        assert icon.status_code == 200 and icon.data[:8] == b"\x89PNG\r\n\x1a\n"
    reply = client.get("/manifest.webmanifest")
    assert reply.status_code == 200 and reply.mimetype == "application/manifest+json"
    manifest = json.loads(reply.data)
    assert manifest["display"] == "standalone" and manifest["start_url"] == "/"
    sizes = {i["sizes"] for i in manifest["icons"]}
    assert {"192x192", "512x512"} <= sizes
    for entry in manifest["icons"]:
        with client.get(entry["src"]) as got:
            assert got.status_code == 200, entry
    page = client.get("/").get_data(as_text=True)
    assert 'rel="manifest"' in page and 'rel="icon"' in page
