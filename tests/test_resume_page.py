"""The page counts a running window down by itself (issue 20, item 4): the
live stream sends a snapshot only when the game changes, with the window's
``deadline`` and the table clock ``now``; real headless Chromium (Debian's
``/usr/bin/chromium`` via Playwright) on the real waitress server shows the
seconds left and hides them when the window has run out, with no snapshot
in between. Waits are Playwright's condition waits; no time is asserted."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from browser_rig import PHONE
from playwright.sync_api import Browser, expect

from companion.games.cheat import Claim
from companion.hub import Hub
from companion.store import Store
from companion.web import create_app
from companion.web.server import start_server

pytestmark = pytest.mark.slow




def test_the_page_counts_a_challenge_window_down_without_snapshots(
        browser: Browser, tmp_path: Path) -> None:
    hub = Hub(Store(tmp_path / "log.sqlite3"))
    app = create_app(hub, pin="2468")
    server = start_server(app, "127.0.0.1", 0, spare_threads=4)
    try:
        hub.new_game("cheat", ["Abby", "Beth", "Carter"], {"challenge_window": 4.0})
        page = browser.new_context(viewport=PHONE).new_page()
        page.goto(server.url)
        expect(page.locator("#live")).to_have_text("live")
        seq = page.locator("#live").get_attribute("data-seq")
        hub.submit(Claim(t=hub.now(), player="Abby", count=2, rank="4"))
        countdown = page.locator("#countdown")
        expect(countdown).to_have_text(re.compile(r"^[1-4] s left$"))
        expect(countdown).to_have_text("1 s left", timeout=6000)
        expect(countdown).to_be_hidden(timeout=6000)
        # One snapshot (the claim) reached the page; the countdown took none.
        assert page.locator("#live").get_attribute("data-seq") == str(int(seq or 0) + 1)
    finally:
        server.stop()
