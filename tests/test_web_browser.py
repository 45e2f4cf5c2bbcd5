"""The control page in real headless Chromium (Debian's ``/usr/bin/chromium``
driven by Playwright), served by the real waitress server on 127.0.0.1.

A four-player Nasty 7 game is set up from the page, flips are tapped on one
phone and seen live on a second, undone, and a wrong PIN is refused. A
screenshot of the table at 360 px wide is saved under ``test-output/``.
Waits are Playwright's condition waits; no time is asserted.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_rig import PHONE
from playwright.sync_api import Browser, Locator, Page, expect

from companion.events import Say
from companion.hub import Hub
from companion.store import Store
from companion.web import create_app
from companion.web.server import PageServer, start_server

pytestmark = pytest.mark.slow


PIN = "2468"
PLAYERS = ["Abby", "Beth", "Carter", "Debbie"]
OUTPUT = Path(__file__).resolve().parents[1] / "test-output"



@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Hub, PageServer]]:
    hub = Hub(Store(tmp_path / "log.sqlite3"))
    app = create_app(hub, pin=PIN)
    server = start_server(app, "127.0.0.1", 0, spare_threads=4)
    yield hub, server
    server.stop()


def phone(browser: Browser, server: PageServer, path: str = "/") -> Page:
    context = browser.new_context(viewport=PHONE, device_scale_factor=2,
                                  is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(server.url.rstrip("/") + path)
    return page


def enter_pin(page: Page, pin: str) -> None:
    page.fill("#pin", pin)
    page.click("#pin-form button")


def stack(page: Page, player: str) -> Locator:
    return page.locator(f'#stacks li[data-player="{player}"] .stack')


def test_a_game_set_up_played_and_undone_from_two_phones(
        browser: Browser, served: tuple[Hub, PageServer]) -> None:
    hub, server = served
    host = phone(browser, server, "/setup")
    enter_pin(host, PIN)
    expect(host.locator("#msg")).to_have_text("PIN accepted")
    expect(host.locator("#pin-form")).to_be_hidden()
    host.check('input[name="game"][value="nasty7"]')
    names = host.locator('input[name="player"]')
    for i, name in enumerate(PLAYERS):
        names.nth(i).fill(name)
    expect(host.locator('fieldset.options[data-game="nasty7"] [data-opt="hesitation"]')
           ).to_have_value("3.0")
    host.click("text=Start the game")
    host.wait_for_url(server.url)
    assert hub.table is not None and list(hub.table.game.players) == PLAYERS

    watcher = phone(browser, server)
    for page in (host, watcher):
        expect(page.locator("#live")).to_have_text("live")
        expect(page.locator("#count")).to_have_text("0")
        expect(stack(page, "Abby")).to_have_attribute("data-stack", "27")

    host.click("button.card-racketeer")
    expect(watcher.locator("#count")).to_have_text("1")
    expect(stack(watcher, "Abby")).to_have_attribute("data-stack", "26")
    expect(watcher.locator("#turn")).to_have_text("Beth")
    # Abby's call, as the microphone's recognizer would hand it to the hub.
    hub.submit(Say(t=time.monotonic(), text="one"))
    expect(watcher.locator(".call")).to_contain_text("heard one")

    host.click("button.card-twin_phone")
    expect(watcher.locator("#count")).to_have_text("3")
    expect(stack(watcher, "Beth")).to_have_attribute("data-stack", "26")
    expect(watcher.locator("#pile")).to_have_text("2")

    host.click("button[data-undo]")
    expect(watcher.locator("#count")).to_have_text("1")
    expect(stack(watcher, "Beth")).to_have_attribute("data-stack", "27")
    expect(watcher.locator("#turn")).to_have_text("Beth")
    expect(watcher.locator("#log li").first).to_contain_text("ndo")
    assert hub.table.view()["state"]["pile"] == 1

    OUTPUT.mkdir(exist_ok=True)
    expect(host.locator("#msg")).to_be_hidden()
    host.evaluate("window.scrollTo(0, 0)")
    host.screenshot(path=str(OUTPUT / "table-360.png"))
    host.screenshot(path=str(OUTPUT / "table-360-full.png"), full_page=True)
    setup = phone(browser, server, "/setup")
    setup.screenshot(path=str(OUTPUT / "setup-360.png"), full_page=True)


def test_a_wrong_pin_is_refused_and_changes_nothing(browser: Browser,
                                                    served: tuple[Hub, PageServer]) -> None:
    hub, server = served
    table = hub.new_game("nasty7", PLAYERS)
    page = phone(browser, server)
    expect(page.locator("#live")).to_have_text("live")
    enter_pin(page, "0000")
    expect(page.locator("#msg")).to_contain_text("wrong table PIN")
    expect(page.locator("body")).to_have_attribute("data-pin-ok", "no")
    page.click("button.card-gun")
    expect(page.locator("#msg")).to_contain_text("needs the table PIN")
    page.click(f'button[data-press="{PLAYERS[0]}"]')
    expect(page.locator("#msg")).to_contain_text("needs the table PIN")
    assert table.view()["state"]["pile"] == 0 and table.rulings == []
    assert hub.store.games()[0].events == 0


def test_settings_and_past_games_pages(browser: Browser, served: tuple[Hub, PageServer]) -> None:
    hub, server = served
    hub.new_game("nasty7", PLAYERS)
    page = phone(browser, server, "/games")
    expect(page.locator("#past-games li").first).to_contain_text("The Nasty 7")
    expect(page.locator("#past-games")).not_to_contain_text("nasty7")
    expect(page.locator("#past-games li").first).to_contain_text("in play")
    page.click("text=Settings")
    expect(page.locator("#level-text")).to_contain_text("none")
    expect(page.locator(".health")).to_contain_text("speech checking off")
    expect(page.locator("summary", has_text="Details")).to_be_visible()


def test_cheat_a_misheard_claim_fixed_revealed_and_a_hand_counted_from_a_phone(
        browser: Browser, served: tuple[Hub, PageServer]) -> None:
    hub, server = served
    hub.new_game("cheat", PLAYERS)
    page = phone(browser, server)
    enter_pin(page, PIN)
    expect(page.locator("#msg")).to_have_text("PIN accepted")
    # Abby said "two sevens"; the recognizer handed the hub "one seven".
    hub.submit(Say(t=time.monotonic(), text="one seven", confidence=0.95))
    expect(stack(page, "Abby")).to_have_attribute("data-stack", "12")
    page.click('button[data-press="Beth"]')  # Beth's virtual button: a challenge
    expect(page.locator(".call-pending")).to_contain_text("Beth challenges Abby's 1 × 7")
    fix = page.locator("details", has=page.locator('button[data-event*="fix_claim"]'))
    fix.locator("summary").click()
    fix.locator('select[name="count"]').select_option("2")
    fix.locator('select[name="rank"]').select_option("7")
    fix.locator("button.go").click()
    expect(page.locator(".call-pending")).to_contain_text("Beth challenges Abby's 2 × 7")
    expect(stack(page, "Abby")).to_have_attribute("data-stack", "11")
    expect(page.locator("#log li").first).to_contain_text("Fixed: Abby's claim is two sevens.")
    reveal = page.locator("details", has=page.locator("#reveal-cards"))
    for _ in range(2):
        reveal.locator('button[data-value="7"]').click()
    reveal.locator("button.go").click()
    expect(page.locator("#log")).to_contain_text("Abby told the truth: seven, seven.")
    expect(stack(page, "Beth")).to_have_attribute("data-stack", "15")
    assert hub.table is not None and hub.table.view()["state"]["challenge"] is None
    # The table counts Debbie's hand: 12, not 13; the pile takes the difference.
    count = page.locator("details", has=page.locator('button[data-event*="set_hand"]'))
    count.locator("summary").click()
    count.locator('select[name="player"]').select_option("Debbie")
    count.locator('input[name="cards"]').fill("12")
    count.locator("button.go").click()
    expect(stack(page, "Debbie")).to_have_attribute("data-stack", "12")
    expect(page.locator("#log li").first).to_contain_text("Counted: Debbie holds 12 cards.")
