"""systemd/keystand.service, checked by systemd itself: `systemd-analyze verify`
says nothing, `systemd-analyze security --offline=true` scores 2.0 or lower, and
the unit asks for exactly the devices, users and timings the stand needs."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "systemd" / "keystand.service"
INSTALLED_EXEC = "/opt/keystand/venv/bin/keystand"
ANALYZE = shutil.which("systemd-analyze")

needs_systemd = pytest.mark.skipif(
    ANALYZE is None,
    reason="systemd-analyze is missing: sudo apt-get install systemd (make test does, as root)",
)


def directives(text: str) -> list[tuple[str, str]]:
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith(("#", "[")):
            key, _, value = line.partition("=")
            out.append((key, value))
    return out


def values(key: str) -> list[str]:
    return [v for k, v in directives(UNIT.read_text()) if k == key]


def unit_copy(tmp_path: Path) -> Path:
    """The unit with ExecStart pointing at this machine's keystand (verify checks
    that the program exists)."""
    keystand = Path(sys.executable).parent / "keystand"
    assert keystand.exists(), keystand
    text = UNIT.read_text()
    assert INSTALLED_EXEC in text
    copy = tmp_path / "keystand.service"
    copy.write_text(text.replace(INSTALLED_EXEC, str(keystand)))
    return copy


@needs_systemd
def test_systemd_analyze_verify_says_nothing(tmp_path: Path) -> None:
    assert ANALYZE is not None
    done = subprocess.run(
        [ANALYZE, "verify", str(unit_copy(tmp_path))], capture_output=True, text=True
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


@needs_systemd
def test_systemd_analyze_security_scores_two_or_lower(tmp_path: Path) -> None:
    assert ANALYZE is not None
    done = subprocess.run(
        [ANALYZE, "security", "--offline=true", str(unit_copy(tmp_path))],
        capture_output=True,
        text=True,
    )
    found = re.search(r"Overall exposure level for keystand\.service: (\d+\.\d+)", done.stdout)
    assert found, done.stdout + done.stderr
    assert float(found.group(1)) <= 2.0, done.stdout


def test_the_unit_reaches_exactly_the_stands_devices_and_nothing_else() -> None:
    assert values("DevicePolicy") == ["closed"]
    assert sorted(values("DeviceAllow")) == sorted(
        [
            "/dev/spidev0.0 rw",  # seat A's panel (CE0)
            "/dev/spidev0.1 rw",  # seat B's panel (CE1)
            "char-gpiochip rw",  # RST, DC, BUSY, PWR, the keys (gpiochip0, or 4 on a Pi 5)
            "/dev/i2c-1 rw",  # the MPR121 touch chips
            "char-ttyACM rw",  # the touch grid's controller (USB serial)
        ]
    )
    assert values("CapabilityBoundingSet") == [""]
    assert values("PrivateNetwork") == ["yes"]
    assert values("ProtectSystem") == ["strict"]
    assert values("PrivateDevices") == []  # it would hide /dev/spidev*, /dev/gpiochip*


def test_the_unit_runs_the_installed_stand_as_a_watched_notify_service() -> None:
    assert values("ExecStart") == [f"{INSTALLED_EXEC} run --config /etc/keystand/keystand.toml"]
    assert values("Type") == ["notify"]
    assert values("User") == ["keystand"]
    assert values("StateDirectory") == ["keystand"]  # /var/lib/keystand: the games
    assert values("Restart") == ["on-failure"]
    watchdog = int(values("WatchdogSec")[0])
    # The loop pings every half of it; a stop blanks both panels (the slowest
    # full refresh is about 6 s, a sleep 2 s; a stuck panel gets 30 s): all
    # inside the stop timeout.
    from keystand.run import STOP_TIMEOUT

    assert 10 <= watchdog <= 60
    assert int(values("TimeoutStopSec")[0]) > STOP_TIMEOUT + 5


def test_the_unit_starts_as_early_as_its_needs_allow() -> None:
    """Issue 33: after sysinit.target (local file systems, udev's coldplug of the
    devices, the users) and nothing later: not basic.target, not the network; and
    still stopped before shutdown and before the file systems go."""
    assert values("DefaultDependencies") == ["no"]
    after = " ".join(values("After")).split()
    assert set(after) == {"sysinit.target", "local-fs.target"}
    assert values("Requires") == ["sysinit.target"]
    assert values("Conflicts") == values("Before") == ["shutdown.target"]
    wanted = " ".join(values("Wants") + values("Requires") + after)
    assert "network" not in wanted and "basic.target" not in wanted
