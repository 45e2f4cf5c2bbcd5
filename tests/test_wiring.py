"""The wiring diagram names every pin of a pinout, and the shipped SVG is the
output for the shipped pinout."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from click.testing import CliRunner

from companion.cli import main
from companion.pinout import load_pinout, parse_pinout
from companion.resources import data_path
from companion.wiring import wiring_svg

CHECKOUT = Path(__file__).resolve().parent.parent


def _texts(svg: str) -> list[str]:
    root = ET.fromstring(svg.split("?>", 1)[1])
    return [el.text or "" for el in root.iter() if el.tag.endswith("text")]


def test_every_pin_of_the_shipped_pinout_is_named() -> None:
    pinout = load_pinout()
    texts = _texts(wiring_svg(pinout))
    labels = [t for t in texts if " (pin " in t]
    assert len(labels) == len(pinout.uses()) == 21
    for pin, use in pinout.uses():
        assert any(t.startswith(f"{use}: GPIO{pin} (pin ") for t in labels), (pin, use)


def test_a_custom_pinout_is_drawn_with_its_own_pins() -> None:
    pinout = parse_pinout({"status_led": 21, "seat": [{"button": 2, "led": 3}]})
    labels = [t for t in _texts(wiring_svg(pinout)) if " (pin " in t]
    assert sorted(labels) == ["seat 1 LED: GPIO3 (pin 5) -> 330 ohm -> LED -> GND",
                              "seat 1 button: GPIO2 (pin 3) -> button -> GND",
                              "status LED: GPIO21 (pin 40) -> 330 ohm -> LED -> GND"]


def test_the_committed_svg_is_up_to_date() -> None:
    result = CliRunner().invoke(main, ["wiring"])
    assert result.exit_code == 0
    assert (CHECKOUT / "docs" / "wiring.svg").read_text() == result.output
    assert data_path("hardware", "pinout.toml").exists()


def test_a_bad_pinout_is_one_line_and_status_2(tmp_path: Path) -> None:
    bad = tmp_path / "pinout.toml"
    bad.write_text("status_led = 4\n[[seat]]\nbutton = 4\nled = 5\n")
    result = CliRunner().invoke(main, ["wiring", "--pinout", str(bad)])
    assert result.exit_code == 2
    assert "GPIO4 is named twice" in result.output
