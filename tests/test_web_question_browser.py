"""The accusation's question in real headless Chromium (Debian's
``/usr/bin/chromium`` driven by Playwright), served by the real waitress
server on 127.0.0.1, on phones 360 px wide with six 12-character names.

A Nasty 7 flip of a physical deck nobody tapped: the companion infers the
card from the call. When a player accuses, every phone is asked which card
the accused player flipped; one taps "Gun", and every phone shows the
ruling. Waits are Playwright's condition waits; no time is asserted.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_rig import PHONE
from playwright.sync_api import Browser, Page, expect

from companion.events import Say
from companion.games.nasty7 import Accuse, Flip
from companion.hub import Hub
from companion.store import Store
from companion.web import create_app
from companion.web.server import PageServer, start_server

pytestmark = pytest.mark.slow

PIN = "2468"
PLAYERS = ["Abigail-Rose", "Bartholomew1", "Christabella", "Dominique-Jo",
           "Evangelina-M", "Fitzgerald-K"]
OUTPUT = Path(__file__).resolve().parents[1] / "test-output"



@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Hub, PageServer]]:
    hub = Hub(Store(tmp_path / "log.sqlite3"))
    app = create_app(hub, pin=PIN)
    server = start_server(app, "127.0.0.1", 0, spare_threads=8)
    yield hub, server
    server.stop()


def phone(browser: Browser, server: PageServer) -> Page:
    context = browser.new_context(viewport=PHONE, device_scale_factor=2,
                                  is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(server.url)
    return page


def fits_the_phone(page: Page) -> None:
    """The question box fits the phone's width and nothing in it scrolls
    sideways. (The rest of the page is the page rework's to fit: with six
    long names the stacks overflow the phone before any question.)"""
    box = page.locator("#card-question").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    assert page.evaluate("""() => [...document.querySelectorAll('#card-question, #card-question *')]
        .every((e) => e.scrollWidth <= e.clientWidth + 1)""")


def test_an_accusation_asks_every_phone_for_the_card_and_rules_from_the_tap(
        browser: Browser, served: tuple[Hub, PageServer]) -> None:
    hub, server = served
    table = hub.new_game("nasty7", PLAYERS)
    abby, beth = PLAYERS[0], PLAYERS[1]
    phones = [phone(browser, server) for _ in range(3)]
    for page in phones:
        expect(page.locator("#live")).to_have_text("live")
    # Abby's button press alone (no tap): her card is left to the call.
    hub.submit(Flip(t=time.monotonic(), player=abby))
    hub.submit(Say(t=time.monotonic(), text="one"))
    for page in phones:
        expect(page.locator(".call")).to_contain_text("by ear")
        expect(page.locator("#card-question")).to_have_count(0)
    hub.submit(Accuse(t=time.monotonic(), by=[beth]))
    for page in phones:
        question = page.locator("#card-question")
        expect(question).to_be_visible()
        expect(question.locator("h2")).to_have_text(f"Which card did {abby} flip?")
        expect(question.locator("button")).to_have_count(5)
        expect(page.locator("#log li").first).to_contain_text(f"Which card did {abby} flip?")
        fits_the_phone(page)
        for button in question.locator("button").all():
            box = button.bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 360
            assert box["height"] >= 48
    OUTPUT.mkdir(exist_ok=True)
    phones[0].screenshot(path=str(OUTPUT / "nasty7-question-360.png"))

    tapper = phones[1]
    tapper.fill("#pin", PIN)
    tapper.click("#pin-form button")
    expect(tapper.locator("#msg")).to_have_text("PIN accepted")
    tapper.locator("#card-question button[data-card='gun']").click()
    # A number said on a gun card: Abby's mistake, shown on every phone.
    for page in phones:
        expect(page.locator("#card-question")).to_have_count(0)
        expect(page.locator("#log")).to_contain_text(f"{abby}: wrong word")
        expect(page.locator("#log")).to_contain_text(f"{abby} takes 1 card")
    events = [e.to_dict() for e in table.match.effective]
    assert events[-1] == {"type": "card", "t": events[-1]["t"], "player": abby, "card": "gun"}
    assert table.view()["state"]["turn"] == abby
