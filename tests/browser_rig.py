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
