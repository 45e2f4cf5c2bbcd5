"""Real headless Chromium for the page tests: Debian's ``/usr/bin/chromium``
(the test extra's apt packages, ``scripts/install test``) driven by
Playwright, with the flags this machine's closed network needs (no
background connections, no QUIC, no first-run or sync calls). The
``browser`` fixture in ``conftest.py`` launches it once per test module and
skips the test where Chromium is not installed."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
PHONE = {"width": 360, "height": 780}
"""A phone's viewport, CSS pixels."""


@contextmanager
def launched() -> Iterator[Any]:
    """A running headless Chromium (a Playwright ``Browser``), closed after."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


def hold_polls(page: Any, pattern: str) -> list[tuple[Any, Any]]:
    """Hold the replies to ``page``'s GET requests matching ``pattern`` (a
    Playwright URL glob), from now on: each request's route and the reply
    the server gave it at once, in the order asked, for the test to let
    through (``route.fulfill(response=reply)``) when it chooses; other
    methods pass. Returns that list once the first poll is held (raises
    ``AssertionError`` when none comes within 5 s). Only the network's
    timing is staged: the server answers every request when it is made."""
    held: list[tuple[Any, Any]] = []

    def hold(route: Any) -> None:
        if route.request.method == "GET":
            held.append((route, route.fetch()))
        else:
            route.continue_()

    page.route(pattern, hold)
    for _ in range(200):
        if held:
            break
        page.wait_for_timeout(25)
    assert held, "the page did not poll"
    return held
