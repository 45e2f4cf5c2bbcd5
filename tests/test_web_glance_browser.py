"""The page at a glance on a phone (issue 19), in real headless Chromium
(Debian's ``/usr/bin/chromium`` driven by Playwright) at 360 and 390 px wide,
for every game, with six players of 12-character names.

Each game is played a little through the hub (so its log holds several kinds
of rulings), then from the page. Checked on every page: nothing scrolls
sideways (``scrollWidth <= clientWidth``, and no element reaches past the
right edge); every log entry is a sentence without internal names; the
health line is at the top; the newest ruling shows big in view after a tap,
and the undo toast says what was undone without covering Undo. Screenshots
of each game's table at 390 px go to ``docs/screenshots/``. Waits are
Playwright's condition waits; no time is asserted.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from companion.events import Say
from companion.hub import Hub
from companion.store import Store
from companion.web import create_app
from companion.web.server import PageServer, start_server

pytestmark = pytest.mark.slow

WIDTHS = [360, 390]
HEIGHT = 780
PIN = "2468"
NAMES = ["Abigail Rose", "Beth Anne Ko", "Christabelle", "Maximilianus", "Wilhelmina J",
         "Bartholomews"]
GAMES = ["nasty7", "cheat", "finger_guns", "cheap_shot", "rummy_battle"]
SCREENSHOTS = Path(__file__).resolve().parents[1] / "docs" / "screenshots"
_FIELD = r"(player|count|rank|hand|next|kind|what|at|expected|heard|cards|label|scores|target)"
INTERNAL = re.compile(r"_|\{|\}|\b(tick|say|undo|nasty7)\b|\b" + _FIELD + r" \S+ " + _FIELD + r"\b")
"""Internal names and raw ``field value field value`` dumps."""

assert all(len(n) == 12 for n in NAMES)



@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Hub, PageServer]]:
    hub = Hub(Store(tmp_path / "log.sqlite3"))
    server = start_server(create_app(hub, pin=PIN), "127.0.0.1", 0, spare_threads=4)
    yield hub, server
    server.stop()


def phone(browser: Browser, server: PageServer, width: int, path: str = "/") -> Page:
    context = browser.new_context(viewport={"width": width, "height": HEIGHT},
                                  device_scale_factor=1, is_mobile=True, has_touch=True)
    page = context.new_page()
    response = page.goto(server.url.rstrip("/") + path)
    assert response is not None and response.ok, (path, response and response.status)
    return page


def enter_pin(page: Page) -> None:
    page.fill("#pin", PIN)
    page.click("#pin-form button")
    expect(page.locator("#pin-form")).to_be_hidden()


def assert_no_sideways_scroll(page: Page, what: str) -> None:
    widths = page.evaluate("""() => {
        const root = document.documentElement, w = root.clientWidth, out = [];
        for (const el of document.querySelectorAll('body *')) {
          const r = el.getBoundingClientRect();
          if (r.width > 0 && r.right > w + 0.5 && getComputedStyle(el).position !== 'fixed')
            out.push(el.tagName.toLowerCase() + '.' + el.className + ' ' + Math.round(r.right));
        }
        return {scroll: root.scrollWidth, client: w, over: out.slice(0, 5)};
    }""")
    assert widths["scroll"] <= widths["client"], (what, widths)
    assert not widths["over"], (what, widths)


def assert_sentences(page: Page) -> list[str]:
    texts = [t.strip() for t in page.locator("#log li").all_inner_texts()]
    assert texts and "No rulings yet." not in texts
    for text in texts:
        assert text and text[-1] in ".!?:\u201d", f"not a sentence: {text!r}"
        assert not INTERNAL.search(text), f"an internal name or a raw dump: {text!r}"
    return texts


def play(hub: Hub, game: str) -> None:
    """A little of each game through the hub, so the log has several kinds of ruling."""
    table = hub.new_game(game, NAMES, {})

    def ev(body: dict[str, Any]) -> None:
        hub.submit(table.game.parse_event({"t": time.monotonic(), **body}))

    if game == "nasty7":
        ev({"type": "flip", "player": NAMES[0], "card": "racketeer"})
        ev({"type": "say", "text": "one"})
        ev({"type": "flip", "player": NAMES[1], "card": "racketeer"})
        ev({"type": "say", "text": "five"})  # a wrong number: mistake, pile, new round
    elif game == "cheat":
        hub.submit(Say(t=time.monotonic(), text="two fives", confidence=0.95))
        ev({"type": "challenge", "player": NAMES[1]})
        ev({"type": "reveal", "cards": ["5", "7"]})
    elif game == "finger_guns":
        ev({"type": "countdown_start"})
        for i, name in enumerate(NAMES):
            ev({"type": "choose", "player": name, "target": NAMES[(i + 1) % 6]})
        ev({"type": "lock"})
        ev({"type": "countdown_start"})
        for name in NAMES[:3]:
            ev({"type": "choose", "player": name, "card": f"{name}-3"})
        ev({"type": "lock"})
    elif game == "cheap_shot":
        ev({"type": "insult", "player": NAMES[0], "target": NAMES[1], "cards": 4,
            "subjects": 1, "connectors": 1})
        ev({"type": "block", "player": NAMES[1]})
    elif game == "rummy_battle":
        ev({"type": "round_end", "played": {NAMES[0]: {"aces": 2}},
            "in_hand": {NAMES[1]: {"jokers": 1}}, "out": [NAMES[0]], "marker_revealed": False})


def act_nasty7(page: Page, hub: Hub) -> None:
    page.click("button.card-racketeer")  # the turn player's flip
    expect(page.locator("#count")).to_have_text("1")
    hub.submit(Say(t=time.monotonic(), text="seven"))


def act_cheat(page: Page, hub: Hub) -> None:
    page.click('button[data-set="claim-count"][data-value="3"]')
    page.click('.claim-pad button[aria-label="claim 6"]')


def act_finger_guns(page: Page, hub: Hub) -> None:
    page.click("text=Start the countdown")


def act_cheap_shot(page: Page, hub: Hub) -> None:
    page.click("text=Block by Abigail Rose")


def act_rummy_battle(page: Page, hub: Hub) -> None:
    page.fill(f'input[data-sg="played.{NAMES[2]}.aces"]', "1")
    page.check(f'input[data-sg="out"][value="{NAMES[2]}"]')
    page.click("text=Score the round")


ACTS: dict[str, Callable[[Page, Hub], None]] = {
    "nasty7": act_nasty7, "cheat": act_cheat, "finger_guns": act_finger_guns,
    "cheap_shot": act_cheap_shot, "rummy_battle": act_rummy_battle}


def boxes_meet(a: dict[str, float], b: dict[str, float]) -> bool:
    return not (a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"]
                or a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"])


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("game", GAMES)
def test_the_table_at_a_glance(browser: Browser, served: tuple[Hub, PageServer],
                               game: str, width: int) -> None:
    hub, server = served
    play(hub, game)
    page = phone(browser, server, width)
    enter_pin(page)
    expect(page.locator("#live")).to_have_text("live")

    # One health line at the top: speech checking is off, the buttons are the page's.
    health = page.locator("#health")
    expect(health.locator(".h")).to_have_count(4)
    expect(health).to_contain_text("speech checking off")
    expect(health).to_contain_text("no buttons: use the page's")
    assert health.bounding_box()["y"] < 160  # type: ignore[index]

    assert_sentences(page)
    first_key = str(page.locator("#log li").first.get_attribute("data-i"))
    assert_no_sideways_scroll(page, f"{game} table")

    # A tap from the bottom of the page: the ruling shows big, in view.
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    ACTS[game](page, hub)
    latest = page.locator("#latest")
    expect(latest).to_have_class(re.compile(r"\bfresh\b"))
    expect(page.locator("#log li").first).not_to_have_attribute("data-i", first_key)
    # the headline is the first ruling of the newest event; the rest follow it
    key = page.locator("#log li").first.get_attribute("data-i")
    expect(latest).to_have_attribute("data-i", str(key))
    batch = [t.strip() for t in page.locator("#log li").all_inner_texts()]
    head = latest.locator(".head").inner_text()
    assert head in batch, (head, batch)
    more = latest.locator(".after").inner_text()
    shown = list(reversed(batch[:batch.index(head) + 1]))  # the event's rulings, in order
    assert " ".join(shown) == " ".join(x for x in (head, more) if x), (shown, head, more)
    # big: at least 22 px (the log's entries are 17), once its growth has run
    page.wait_for_function(
        "parseFloat(getComputedStyle(document.getElementById('latest')).fontSize) >= 22")
    box = latest.bounding_box()
    # in view, at the top of the screen
    assert box is not None and 0 <= box["y"] <= HEIGHT / 3, box
    assert box["y"] + box["height"] <= HEIGHT, box
    assert_sentences(page)
    assert_no_sideways_scroll(page, f"{game} table after a tap")
    if width == 390:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.evaluate("window.scrollTo(0, 0)")
        expect(page.locator("#msg")).to_be_hidden()  # the "PIN accepted" toast has gone
        page.screenshot(path=str(SCREENSHOTS / f"{game}-390.png"))

    # Undo: the toast says in words what was undone, and never covers Undo.
    page.locator("[data-undo]").click()
    # both boxes read in the same frame as the toast shows (it hides after a while)
    seen = page.wait_for_function("""() => {
        const m = document.getElementById('msg');
        if (m.hidden || !m.textContent.startsWith('Undone: ')) return null;
        const box = (e) => { const r = e.getBoundingClientRect();
                             return {x: r.left, y: r.top, width: r.width, height: r.height}; };
        return {text: m.textContent, toast: box(m),
                undo: box(document.querySelector('[data-undo]'))};
    }""").json_value()
    words = seen["text"]
    assert not INTERNAL.search(words.replace("Undone: ", "")) and "the last move" not in words
    assert not boxes_meet(seen["toast"], seen["undo"]), seen
    expect(page.locator("#log li").first).to_have_text(words)

    for path in ("/setup", "/games", "/settings"):
        other = phone(browser, server, width, path)
        assert_no_sideways_scroll(other, f"{game} {path}")
        if path == "/games":
            expect(other.locator("#past-games")).not_to_contain_text(game)
        other.context.close()
    page.context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_finger_guns_phone_shows_lives_and_last_round(browser: Browser,
                                                      served: tuple[Hub, PageServer],
                                                      width: int) -> None:
    hub, server = served
    play(hub, "finger_guns")
    page = phone(browser, server, width, "/finger-guns")
    enter_pin(page)
    page.click(f'#fg-seats button:has-text("{NAMES[1]}")')
    expect(page.locator("#fg-me")).to_have_text(NAMES[1])
    assert hub.table is not None
    row = next(p for p in hub.table.view()["state"]["players"] if p["name"] == NAMES[1])
    expect(page.locator("#fg-lives")).to_have_text(str(row["lives"]))
    last = page.locator("#fg-last")
    expect(last).to_be_visible()
    expect(last).to_contain_text("Last round")
    # Abigail Rose pointed her third card (an attack of 2) at Beth Anne Ko.
    expect(last).to_contain_text(f"Abigail Rose shoots {NAMES[1]} for 2.")
    for text in last.locator("li").all_inner_texts():
        assert not INTERNAL.search(text), text
    assert_no_sideways_scroll(page, "finger guns phone")


@pytest.mark.parametrize("width", WIDTHS)
def test_setup_reads_as_house_rules(browser: Browser, served: tuple[Hub, PageServer],
                                    width: int) -> None:
    hub, server = served
    page = phone(browser, server, width, "/setup")
    enter_pin(page)
    start = page.locator("text=Start the game")
    for game in GAMES:
        page.check(f'input[name="game"][value="{game}"]')
        assert_no_sideways_scroll(page, f"setup {game}")
        # "Start the game" in view without scrolling through the options.
        page.evaluate("window.scrollTo(0, 0)")
        box = start.bounding_box()
        assert box is not None and box["y"] + box["height"] <= HEIGHT, (game, box)
        options = page.locator(f'fieldset.options[data-game="{game}"]')
        text = options.inner_text()
        assert "companion." not in text and "bench" not in text and "%" not in text, text
        advanced = options.locator("details.advanced")
        if advanced.count():
            expect(advanced).not_to_have_attribute("open", "")
    page.check('input[name="game"][value="nasty7"]')
    while page.locator('input[name="player"]').count() < 6:
        page.click("#add-player")
    for i, name in enumerate(NAMES):
        page.locator('input[name="player"]').nth(i).fill(name)
    first = page.locator("#first-player")
    expect(first.locator("option")).to_have_count(7)
    first.select_option(NAMES[2])
    assert_no_sideways_scroll(page, "setup with six long names")
    start.click()
    page.wait_for_url(server.url)
    assert hub.table is not None and list(hub.table.game.players) == NAMES
    assert hub.table.view()["state"]["turn"] == NAMES[2]
