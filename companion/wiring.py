"""The wiring diagram: the Pi's 40-pin header with every pin of a pinout, as SVG.

``wiring_svg(pinout)`` draws the J8 header as gpiozero describes it (pin
numbers, names, rows and columns from ``MockFactory().board_info``), and for
each pin the pinout uses, a lead to a label saying what it connects to. The
``companion wiring`` command prints it; ``docs/wiring.svg`` is its output
for the shipped ``hardware/pinout.toml``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import click

from companion.pinout import Pinout

ROW_H = 26
"""Height of one header row, in SVG user units (px)."""
TOP = 90
COL_W = 60
LABEL_W = 300

SVG_NS = "http://www.w3.org/2000/svg"


def _el(parent: ET.Element, tag: str, text: str | None = None, **attrs: object) -> ET.Element:
    el = ET.SubElement(parent, tag, {k.replace("_", "-"): str(v) for k, v in attrs.items()})
    if text is not None:
        el.text = text
    return el


def _fill(name: str) -> str:
    if name == "GND":
        return "#444444"
    if name in ("3V3", "5V"):
        return "#d94c4c"
    return "#e8c547" if name.startswith("GPIO") else "#bbbbbb"


def wiring_svg(pinout: Pinout) -> str:
    """The diagram of ``pinout`` as an SVG document (text)."""
    from gpiozero.pins.mock import MockFactory

    factory = MockFactory()
    try:
        header = factory.board_info.headers["J8"]
    finally:
        factory.close()
    uses = {pin: use for pin, use in pinout.uses()}
    height = TOP + header.rows * ROW_H + 150
    margin = LABEL_W + 150  # room for the labels on either side of the header
    width = 2 * margin + 2 * COL_W
    ET.register_namespace("", SVG_NS)
    svg = ET.Element(f"{{{SVG_NS}}}svg", {"width": str(width), "height": str(height),
                                           "viewBox": f"0 0 {width} {height}",
                                           "font-family": "sans-serif", "font-size": "13"})
    _el(svg, "title", "Card Table Companion wiring")
    _el(svg, "rect", x=0, y=0, width=width, height=height, fill="white")
    _el(svg, "text", "Card Table Companion: wiring on the Raspberry Pi 40-pin header (J8)",
        x=20, y=30, font_size=18, font_weight="bold")
    _el(svg, "text", f"from {pinout.source}; GPIO numbers are BCM (gpiozero's names)",
        x=20, y=55, fill="#555555")
    x0 = margin
    _el(svg, "rect", x=x0 - 10, y=TOP - 10, width=2 * COL_W + 20,
        height=header.rows * ROW_H + 20, rx=6, fill="#1f5f3a")
    for number, info in sorted(header.pins.items()):
        col = info.col - 1
        cx = x0 + col * COL_W + COL_W // 2
        cy = TOP + (info.row - 1) * ROW_H + ROW_H // 2
        _el(svg, "circle", cx=cx, cy=cy, r=8, fill=_fill(info.name), stroke="black")
        _el(svg, "text", str(number), x=cx, y=cy + 4, font_size=9, text_anchor="middle",
            fill="white" if info.name == "GND" else "black")
        side = -1 if col == 0 else 1
        name_x = cx + side * 14
        _el(svg, "text", info.name, x=name_x, y=cy + 4, font_size=11,
            text_anchor="end" if side < 0 else "start")
        bcm = int(info.name[4:]) if info.name.startswith("GPIO") else None
        if bcm is None or bcm not in uses:
            continue
        use = uses[bcm]
        lead_end = cx + side * (COL_W + 40)
        _el(svg, "line", x1=name_x + side * 50, y1=cy,
            x2=lead_end, y2=cy, stroke="#1a4fa0", stroke_width=2)
        if use.endswith("button"):
            detail = f"{use}: GPIO{bcm} (pin {number}) -> button -> GND"
        else:
            detail = f"{use}: GPIO{bcm} (pin {number}) -> 330 ohm -> LED -> GND"
        box_x = lead_end if side > 0 else lead_end - LABEL_W
        _el(svg, "rect", x=box_x, y=cy - 10, width=LABEL_W, height=20, rx=4,
            fill="#eef3fb", stroke="#1a4fa0")
        _el(svg, "text", detail, x=box_x + 6, y=cy + 4, font_size=10.5)
    notes_y = TOP + header.rows * ROW_H + 40
    for i, line in enumerate((
            "Buttons: momentary arcade buttons between the GPIO and GND; the Pi's internal "
            f"pull-up is used. Debounce {pinout.bounce_time * 1000:g} ms, "
            f"hold {pinout.hold_time:g} s for the scores.",
            "LEDs: GPIO -> 330 ohm -> LED anode (long leg); cathode (short leg) -> GND. "
            "The status LED is wired the same way.",
            f"Seats clockwise from seat 1; {len(pinout.seats)} seats. "
            "Any GND pin (dark) will do; share them with a ground bus.")):
        _el(svg, "text", line, x=20, y=notes_y + 22 * i, font_size=12)
    ET.indent(svg)
    return ET.tostring(svg, encoding="unicode", xml_declaration=True) + "\n"


@click.command("wiring")
@click.option("--pinout", "pinout_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Wiring to draw (default: the shipped hardware/pinout.toml).")
def wiring_command(pinout_path: Path | None) -> None:
    """Print a pinout's wiring diagram as SVG (companion wiring > docs/wiring.svg)."""
    import sys

    from companion.errors import BoardError
    from companion.pinout import load_pinout

    try:
        pinout = load_pinout(pinout_path)
    except BoardError as exc:
        click.echo(f"companion: {exc}", err=True)
        sys.exit(2)
    if pinout_path is None:
        pinout = Pinout(seats=pinout.seats, status_led=pinout.status_led,
                        bounce_time=pinout.bounce_time, hold_time=pinout.hold_time,
                        source="hardware/pinout.toml")
    click.echo(wiring_svg(pinout), nl=False)
