"""The systemd unit that starts the table at boot, and ``companion install-service``.

``systemd/companion.service`` is written for a checkout in ``/opt/companion``;
``render_unit`` rewrites its paths for the checkout actually in use (the
``companion`` script next to the running Python). ``install-service`` (as
root) creates the dedicated ``companion`` system user in the ``gpio`` and
``audio`` groups, writes the unit to ``/etc/systemd/system``, reloads systemd
and enables and starts the service. ``--print`` only prints the unit.
"""

from __future__ import annotations

import grp
import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

import click

from companion.resources import data_path

SHIPPED_EXEC = "/opt/companion/.venv/bin/companion"
SHIPPED_DOCS = "file:///opt/companion/docs/live-table.md"
UNIT_PATH = Path("/etc/systemd/system/companion.service")
GROUPS = ("gpio", "audio")


def shipped_unit() -> str:
    """The text of ``systemd/companion.service``."""
    try:
        return data_path("systemd", "companion.service").read_text(encoding="utf-8")
    except FileNotFoundError:
        return (Path(__file__).resolve().parent.parent / "systemd" /
                "companion.service").read_text(encoding="utf-8")


def render_unit(executable: Path, *, port: int = 8080) -> str:
    """The unit with ``ExecStart`` running ``executable`` (the ``companion``
    script) and the page on ``port``; ``ProtectHome=read-only`` instead of
    ``yes`` when that script lives in a home directory."""
    text = shipped_unit().replace(f"{SHIPPED_EXEC} run --port 8080",
                                  f"{executable} run --port {port}")
    if str(executable.resolve()).startswith(("/home/", "/root/")):
        # A checkout in a home directory must stay readable to the service.
        text = text.replace("ProtectHome=yes", "ProtectHome=read-only")
    docs = executable.resolve().parent.parent.parent / "docs" / "live-table.md"
    if docs.exists():
        text = text.replace(SHIPPED_DOCS, f"file://{docs}")
    return text


def companion_executable() -> Path:
    """The ``companion`` script of the running installation."""
    beside = Path(sys.executable).parent / "companion"
    if beside.exists():
        return beside
    found = shutil.which("companion")
    if found is None:
        raise click.ClickException("cannot find the 'companion' script; install the package")
    return Path(found)


def _run(command: list[str]) -> None:
    click.echo("+ " + " ".join(command))
    subprocess.run(command, check=True)


@click.command("install-service")
@click.option("--port", type=click.IntRange(1, 65535), default=8080, show_default=True,
              help="Port of the control page.")
@click.option("--print", "print_only", is_flag=True, help="Print the unit; change nothing.")
def install_service(port: int, print_only: bool) -> None:
    """Install and start the systemd service that runs the table at boot (as root)."""
    unit = render_unit(companion_executable(), port=port)
    if print_only:
        click.echo(unit, nl=False)
        return
    if os.geteuid() != 0:
        click.echo("companion: install-service needs root (try: sudo "
                   f"{companion_executable()} install-service)", err=True)
        sys.exit(2)
    groups = []
    for name in GROUPS:
        try:
            grp.getgrnam(name)
            groups.append(name)
        except KeyError:
            click.echo(f"companion: warning: no group {name!r} on this machine; skipped",
                       err=True)
    try:
        pwd.getpwnam("companion")
    except KeyError:
        _run(["useradd", "--system", "--home-dir", "/var/lib/companion", "--shell",
              "/usr/sbin/nologin", "--user-group", "companion"])
    if groups:
        _run(["usermod", "--append", "--groups", ",".join(groups), "companion"])
    if "SupplementaryGroups=gpio audio" in unit and len(groups) < len(GROUPS):
        unit = unit.replace("SupplementaryGroups=gpio audio",
                            f"SupplementaryGroups={' '.join(groups)}")
    UNIT_PATH.write_text(unit, encoding="utf-8")
    click.echo(f"wrote {UNIT_PATH}")
    _run(["systemctl", "daemon-reload"])
    _run(["systemctl", "enable", "--now", "companion.service"])
