"""The scorekeeping games' page parts in real headless Chromium (Debian's
``/usr/bin/chromium`` driven by Playwright), served by the real waitress
server on 127.0.0.1: Finger Guns picks on two phones (each sees only its
own), Cheap Shot and Rummy Battle score entry through the pads' forms.
Waits are Playwright's condition waits; no time is asserted.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.hub import Hub
from companion.store import Store
from companion.web import create_app
from companion.web.server import PageServer, start_server

pytestmark = pytest.mark.slow

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

PIN = "1357"



@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Hub, PageServer]]:
    hub = Hub(Store(tmp_path / "log.sqlite3"))
    server = start_server(create_app(hub, pin=PIN), "127.0.0.1", 0, spare_threads=4)
    yield hub, server
    server.stop()


def phone(browser: Any, server: PageServer, path: str = "/") -> Any:
    context = browser.new_context(viewport={"width": 360, "height": 780}, is_mobile=True,
                                  has_touch=True)
    page = context.new_page()
    page.goto(server.url.rstrip("/") + path)
    page.fill("#pin", PIN)
    page.click("#pin-form button")
    expect(page.locator("#pin-form")).to_be_hidden()
    return page


def test_finger_guns_picks_on_two_phones(browser: Any, served: tuple[Hub, PageServer]) -> None:
    hub, server = served
    hub.new_game("finger_guns", ["Abby", "Beth", "Carter"], {"cards": ["A1", "A3", "S2"]})
    table = phone(browser, server)
    abby = phone(browser, server, "/finger-guns")
    beth = phone(browser, server, "/finger-guns")
    abby.click('#fg-seats button:has-text("Abby")')
    expect(abby.locator("#fg-me")).to_have_text("Abby")
    expect(beth.locator('#fg-seats button:has-text("Abby")')).to_be_disabled()
    beth.click('#fg-seats button:has-text("Beth")')
    expect(beth.locator("#fg-me")).to_have_text("Beth")

    table.click("text=Start the countdown")
    expect(table.locator("text=Lock (countdown over)")).to_be_visible()
    abby.click('#fg-targets button:has-text("Carter")')
    expect(abby.locator("#fg-mine")).to_have_text("Your picks: at Carter, no card.")
    expect(table.locator('#stacks li[data-player="Abby"] .picked')).to_contain_text("target ✓")
    beth.click('#fg-targets button:has-text("Abby")')
    expect(beth.locator("#fg-mine")).to_have_text("Your picks: at Abby, no card.")
    assert "Carter" not in table.locator('#stacks li[data-player="Abby"] .picked').inner_text()

    table.click("text=Lock (countdown over)")
    expect(table.locator('#stacks li[data-player="Abby"] .picked')).to_contain_text("→ Carter")
    expect(abby.locator('#fg-targets button:has-text("Beth")')).to_be_disabled()
    table.click("text=Start the countdown")
    abby.click('#fg-own button:has-text("Abby-2")')
    beth.click('#fg-own button:has-text("Beth-3")')
    # Both picks reach the table before the lock (under load one arrived after it).
    expect(abby.locator("#fg-mine")).to_have_text("Your picks: at Carter, card Abby-2 (locked).")
    expect(beth.locator("#fg-mine")).to_have_text("Your picks: at Abby, card Beth-3 (locked).")
    table.click("text=Lock (countdown over)")
    # Abby's 3 hits Carter, who held fire; Beth's shield guards only Beth.
    expect(table.locator('#stacks li[data-player="Carter"] .stack')).to_have_attribute(
        "data-lives", "0")
    expect(table.locator(".winner")).to_contain_text("Abby and Beth share the win")
    expect(table.locator("#log")).to_contain_text("Lives: Abby 3, Beth 3, Carter 0.")


def test_finger_guns_phone_keeps_the_picks_when_an_older_refresh_answers_late(
        browser: Any, served: tuple[Hub, PageServer]) -> None:
    """The table's push asks Abby's phone to fetch its view just before she
    taps her name, and on a busy table that reply (no seat yet) can arrive
    after the tap's own: it once put the seats back over her picks (seen
    once in CI, the glance test's phone showing "Who are you?" again).
    Playwright holds that one reply until her picks are shown, then lets it
    through: the page keeps her picks. Only the network's timing is staged
    here (the held route); the server, the game and the page are real."""
    hub, server = served
    hub.new_game("finger_guns", ["Abby", "Beth", "Carter"], {"cards": ["A1", "A3", "S2"]})
    abby = phone(browser, server, "/finger-guns")
    expect(abby.locator('#fg-seats button:has-text("Abby")')).to_be_enabled()
    held: list[tuple[Any, Any]] = []

    def hold(route: Any) -> None:
        if held:
            route.continue_()
        else:  # the reply as the table gives it now, before the tap
            held.append((route, route.fetch()))

    abby.route("**/api/finger-guns/me", hold)
    assert hub.table is not None
    hub.submit(hub.table.game.parse_event({"t": 1.0, "type": "countdown_start"}))
    for _ in range(200):  # until the push's fetch is held
        if held:
            break
        abby.wait_for_timeout(25)
    assert held, "the table's push did not reach the phone"
    abby.click('#fg-seats button:has-text("Abby")')
    expect(abby.locator("#fg-me")).to_have_text("Abby")
    route, stale = held[0]
    assert stale.json()["seat"] is None
    route.fulfill(response=stale)
    abby.wait_for_timeout(300)  # the late reply is in; what does the page show?
    expect(abby.locator("#fg-picks")).to_be_visible()
    expect(abby.locator("#fg-seat")).to_be_hidden()


def test_cheap_shot_hand_entered_from_the_pad(browser: Any,
                                              served: tuple[Hub, PageServer]) -> None:
    hub, server = served
    hub.new_game("cheap_shot", ["Lauren", "Steve", "Sandy"], {})
    page = phone(browser, server)
    insult = page.locator("details:has(summary:has-text('Insult laid down'))")
    insult.locator('select[data-sg="cards"]').select_option("5")
    insult.locator('select[data-sg="connectors"]').select_option("1")
    insult.locator("button:has-text('Insult')").click()
    expect(page.locator(".call")).to_contain_text("Insult 1 by Lauren at Steve (5 cards, 15")
    insult.locator('select[data-sg="subjects"]').select_option("2")
    insult.locator("button:has-text('Insult')").click()
    expect(page.locator("#msg")).to_contain_text("only one green subject card, not 2")
    expect(page.locator("#msg")).not_to_contain_text("(subjects)")  # no field names
    page.click("text=Block by Steve")
    expect(page.locator(".call")).to_contain_text("is blocked")
    page.click("text=Block by Lauren")
    expect(page.locator(".call")).to_contain_text("stands")
    end = page.locator("details:has(summary:has-text('End of the hand'))")
    end.locator("summary").click()
    end.locator('input[data-sg="cards_left.Lauren"]').fill("2")
    end.locator('input[data-sg="cards_left.Steve"]').fill("4")
    end.locator("button:has-text('Score the hand')").click()
    expect(page.locator('#stacks li[data-player="Lauren"] .stack')).to_have_attribute(
        "data-total", "14")
    expect(page.locator("#log")).to_contain_text("Scores: Lauren 14, Steve 0, Sandy 0.")
    assert hub.table is not None and hub.table.view()["state"]["totals"]["Lauren"] == 14


def test_rummy_battle_round_entered_from_the_pad(browser: Any,
                                                 served: tuple[Hub, PageServer]) -> None:
    hub, server = served
    hub.new_game("rummy_battle", ["Abby", "Beth"], {"rounds": 2})
    page = phone(browser, server)
    page.fill('input[data-sg="played.Abby.aces"]', "2")
    page.fill('input[data-sg="played.Abby.jokers"]', "1")
    page.fill('input[data-sg="in_hand.Beth.tens_to_kings"]', "3")
    page.check('input[data-sg="out"][value="Abby"]')
    page.check('input[data-sg="marker_revealed"]')
    page.click("text=Score the round")
    expect(page.locator("#log")).to_contain_text("Round 1: Abby 60, Beth -30.")
    expect(page.locator('#stacks li[data-player="Abby"] .stack')).to_have_attribute(
        "data-total", "60")
    # The form was cleared; a round with nobody out is refused, naming the field.
    expect(page.locator('input[data-sg="played.Abby.aces"]')).to_have_value("")
    page.click("text=Score the round")
    expect(page.locator("#msg")).to_have_text("someone must have gone out to end the round")
    assert hub.table is not None and len(hub.table.view()["state"]["scores"]) == 1
