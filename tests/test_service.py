"""The systemd unit: rendered for this checkout and checked by systemd itself."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from companion.cli import main
from companion.service import render_unit, shipped_unit

EXECUTABLE = Path(sys.executable).parent / "companion"


def test_shipped_unit_has_what_the_table_needs() -> None:
    unit = shipped_unit()
    for line in ("Type=notify", "User=companion", "SupplementaryGroups=gpio audio",
                 "WorkingDirectory=/var/lib/companion", "StateDirectory=companion",
                 "Environment=PYTHONUNBUFFERED=1", "Restart=always", "RestartSec=3",
                 "WatchdogSec=30", "WantedBy=multi-user.target"):
        assert line in unit.splitlines(), line


@pytest.mark.skipif(shutil.which("systemd-analyze") is None,
                    reason="systemd-analyze is not installed, so the unit cannot be verified")
def test_rendered_unit_passes_systemd_analyze_verify(tmp_path: Path) -> None:
    unit = tmp_path / "companion.service"
    unit.write_text(render_unit(EXECUTABLE, port=8123))
    assert f"ExecStart={EXECUTABLE} run --port 8123" in unit.read_text()
    done = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == "", done.stderr  # parse problems are only warnings


@pytest.mark.skipif(shutil.which("systemd-analyze") is None,
                    reason="systemd-analyze is not installed, so the unit cannot be verified")
def test_verify_catches_a_broken_unit(tmp_path: Path) -> None:
    unit = tmp_path / "companion.service"
    unit.write_text(render_unit(EXECUTABLE).replace("Restart=always", "Restart=sometimes"))
    done = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True,
                          text=True, timeout=120)
    assert "restart specifier" in done.stderr


@pytest.mark.skipif(shutil.which("systemd-analyze") is None,
                    reason="systemd-analyze is not installed, so the unit cannot be rated")
def test_unit_rates_under_5_in_systemd_analyze_security(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Before issue 20 the unit rated 9.2 UNSAFE.
    unit = tmp_path / "companion.service"
    unit.write_text(render_unit(EXECUTABLE, port=8123))
    done = subprocess.run(["systemd-analyze", "security", "--offline=true", "--no-pager",
                           str(unit)], capture_output=True, text=True, timeout=120)
    found = re.search(r"Overall exposure level for \S+: ([\d.]+) (\w+)", done.stdout)
    assert found, done.stdout + done.stderr
    with capsys.disabled():  # shown in every test run's output, not only with -s
        print(f"\n[systemd-analyze security] companion.service: {found[1]} {found[2]}")
    assert float(found[1]) < 5.0, done.stdout


def test_shipped_unit_is_hardened() -> None:
    unit = shipped_unit().splitlines()
    for line in ("UMask=0077", "NoNewPrivileges=yes", "ProtectSystem=strict",
                 "ProtectHome=yes", "PrivateTmp=yes", "CapabilityBoundingSet=",
                 "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK",
                 "SystemCallFilter=@system-service", "DevicePolicy=closed",
                 "DeviceAllow=char-gpiochip rw", "DeviceAllow=char-alsa rw"):
        assert line in unit, line


def test_a_checkout_in_a_home_directory_stays_readable() -> None:
    unit = render_unit(Path("/home/pi/companion/.venv/bin/companion")).splitlines()
    assert "ProtectHome=read-only" in unit and "ProtectHome=yes" not in unit


def test_install_service_print_changes_nothing() -> None:
    result = CliRunner().invoke(main, ["install-service", "--print", "--port", "9000"])
    assert result.exit_code == 0, result.output
    assert "run --port 9000" in result.output and "Type=notify" in result.output
