"""The documentation: the docs/ site builds with MkDocs in strict mode (every
link and anchor between pages resolves), and every link and picture in the
README points at a file of the repository."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import markdown

CHECKOUT = Path(__file__).resolve().parent.parent


def test_docs_site_builds_strict(tmp_path: Path) -> None:
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=CHECKOUT, capture_output=True, text=True, timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stderr
    assert "WARNING" not in done.stderr, done.stderr
    for page in ("index.html", "hardware/index.html", "live-table/index.html",
                 "session-format/index.html", "table.svg"):
        assert (site / page).is_file(), page
    assert "Raspberry Pi" in (site / "hardware" / "index.html").read_text(encoding="utf-8")


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.targets: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value and ((tag == "a" and name == "href") or (tag == "img" and name == "src")):
                self.targets.append(value)


def test_readme_links_point_at_files_in_the_repository() -> None:
    links = _Links()
    links.feed(markdown.markdown((CHECKOUT / "README.md").read_text(encoding="utf-8")))
    local = [t for t in links.targets if "://" not in t and not t.startswith("#")]
    assert "docs/table.svg" in local
    missing = [t for t in local if not (CHECKOUT / t.split("#")[0]).exists()]
    assert missing == []


def test_the_hardware_page_gives_the_shipped_pinout() -> None:
    from companion.pinout import load_pinout

    pinout = load_pinout(None)
    page = (CHECKOUT / "docs" / "hardware.md").read_text(encoding="utf-8")
    rows = [line.strip("| ").split(" | ") for line in page.splitlines()
            if re.fullmatch(r"\| \d+ \| GPIO\d+ \| GPIO\d+ \|", line)]
    assert rows == [[str(n), f"GPIO{seat.button}", f"GPIO{seat.led}"]
                    for n, seat in enumerate(pinout.seats, start=1)]
    assert f"The status LED is on GPIO{pinout.status_led}." in page
