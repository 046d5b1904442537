"""systemd/install.sh into a directory tree (`--root`): the files it writes, with
their owners and modes; a second run changes nothing; `--dry-run` writes
nothing; uninstall leaves the games, `--purge` not even those.

`--no-venv` keeps these tests off the network (the venv is pip's job, and takes
minutes on a Pi); `--root` keeps them off this machine's users and services:
the script prints the commands for the running system instead of running them,
and enables the unit in the tree with `systemctl --root` (links only)."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from keystand import config

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "systemd" / "install.sh"

pytestmark = pytest.mark.skipif(
    shutil.which("systemctl") is None,
    reason="systemctl is missing: sudo apt-get install systemd (make test does, as root)",
)

FILES = {
    "etc/keystand/keystand.toml": 0o644,
    "etc/systemd/system/keystand.service": 0o644,
    "etc/sysusers.d/keystand.conf": 0o644,
    "etc/udev/rules.d/99-keystand-grid.rules": 0o644,
    "opt/keystand/README.md": 0o644,
}
DIRS = {"etc/keystand": 0o755, "opt/keystand": 0o755}
ENABLED = "etc/systemd/system/multi-user.target.wants/keystand.service"


def install(root: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        ["bash", str(SCRIPT), *args, "--root", str(root)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def tree(root: Path) -> dict[str, tuple[object, ...]]:
    """Every path under root: its kind, mode, owner, and its content or target."""
    out: dict[str, tuple[object, ...]] = {}
    for path in sorted(root.rglob("*")):
        st = path.lstat()
        rel = str(path.relative_to(root))
        if path.is_symlink():
            out[rel] = ("link", os.readlink(path))
        elif path.is_dir():
            out[rel] = ("dir", st.st_mode & 0o7777, st.st_uid, st.st_gid)
        else:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            out[rel] = ("file", st.st_mode & 0o7777, st.st_uid, st.st_gid, digest)
    return out


@pytest.fixture
def system(tmp_path: Path) -> Path:
    """A bare tree with the folders every system has."""
    root = tmp_path / "root"
    for folder in ("etc", "opt", "var/lib", "boot/firmware"):
        (root / folder).mkdir(parents=True)
    return root


def test_install_writes_each_file_with_its_owner_and_mode(system: Path) -> None:
    done = install(system, "--no-venv")
    for rel, mode in {**FILES, **DIRS}.items():
        st = (system / rel).stat()
        assert st.st_mode & 0o7777 == mode, rel
        assert (st.st_uid, st.st_gid) == (os.getuid(), os.getgid()), rel  # root's, under sudo
    assert (system / "etc/systemd/system/keystand.service").read_bytes() == (
        ROOT / "systemd/keystand.service"
    ).read_bytes()
    assert os.readlink(system / ENABLED) == "/etc/systemd/system/keystand.service"
    # The games' folder is systemd's to make (StateDirectory=), owned by the user.
    assert not (system / "var/lib/keystand").exists()
    # The running system is left alone; what would have run there is said.
    for command in (
        "systemd-sysusers",
        "udevadm control",
        "systemctl stop",
        "systemctl start",
        "doctor",
    ):
        assert any(
            line.startswith("  (--root: not run)") and command in line
            for line in done.stdout.splitlines()
        ), command
    assert "SPI is OFF" in done.stdout and "raspi-config nonint do_spi 0" in done.stdout


def test_the_user_gets_the_groups_its_profile_needs(system: Path, tmp_path: Path) -> None:
    install(system, "--no-venv", "--profile", "desktop")
    users = (system / "etc/sysusers.d/keystand.conf").read_text().splitlines()
    assert 'u keystand - "keystand stand service" /var/lib/keystand /usr/sbin/nologin' in users
    assert [u for u in users if u.startswith("m ")] == ["m keystand gpio", "m keystand spi"]

    touch = tmp_path / "touch.toml"
    touch.write_text('[input]\nkinds = ["keys", "mpr121", "serial"]\n')
    other = tmp_path / "other"
    (other / "etc").mkdir(parents=True)
    (other / "boot").mkdir()
    (other / "boot/config.txt").write_text("dtparam=spi=on\ndtparam=i2c_arm=on\n")
    done = install(other, "--no-venv", "--profile", str(touch))
    users = (other / "etc/sysusers.d/keystand.conf").read_text().splitlines()
    assert [u for u in users if u.startswith("m ")] == [
        "m keystand gpio",
        "m keystand spi",
        "m keystand i2c",
        "m keystand dialout",
    ]
    assert "SPI is on" in done.stdout and "I2C is on" in done.stdout


def test_the_settings_file_names_the_profile_and_every_key_at_its_default(
    system: Path,
) -> None:
    install(system, "--no-venv", "--profile", "desktop")
    path = system / "etc/keystand/keystand.toml"
    text = path.read_text()
    assert config.load(path).get("service", "profile") == "desktop"
    # Uncommented, every key is valid and at its declared default.
    uncommented = path.parent / "all.toml"
    uncommented.write_text(
        "\n".join(
            line[2:].split("  #")[0] if line.startswith("# ") and " = " in line else line
            for line in text.splitlines()
        )
    )
    loaded = config.load(uncommented)
    import dataclasses

    from keystand.profile import SEATS, Panel

    for table in config.TABLES:
        cls = config.table(table)
        if cls is None:  # [panels]: the profile's reset keys, for each seat
            panel = Panel()
            for key in config.PANEL_KEYS:
                for seat in SEATS:
                    found = (loaded.values or {})[table][seat][key]
                    assert found == getattr(panel, key), f"{table}.{key}"
            continue
        for field in dataclasses.fields(cls):
            assert loaded.get(table, field.name) == field.default, f"{table}.{field.name}"
    # The shipped template is the same file with the default profile.
    template = tomllib.loads((ROOT / "systemd/keystand.toml").read_text())
    assert template["service"]["profile"] == "minimal"


def test_a_second_run_changes_nothing_and_keeps_an_edited_settings_file(system: Path) -> None:
    install(system, "--no-venv")
    settings = system / "etc/keystand/keystand.toml"
    settings.write_text(settings.read_text().replace('# mission = "9-9"', 'mission = "9-5"'))
    assert config.load(settings).get("game", "mission") == "9-5"
    first = tree(system)
    done = install(system, "--no-venv")
    assert tree(system) == first
    assert f"(kept) {settings}" in done.stdout


def test_dry_run_writes_nothing_and_says_every_action(system: Path) -> None:
    before = tree(system)
    done = install(system, "--no-venv", "--dry-run")
    assert tree(system) == before
    said = done.stdout
    for rel in FILES:
        assert str(system / rel) in said, rel
    assert f"systemctl --root={system} enable keystand.service" in said

    install(system, "--no-venv")
    installed = tree(system)
    for args in (["uninstall", "--dry-run"], ["uninstall", "--purge", "--dry-run"]):
        done = install(system, *args)
        assert tree(system) == installed, args
        assert f"rm -rf {system}/etc/keystand {system}/opt/keystand" in done.stdout


def _play(system: Path) -> dict[str, tuple[object, ...]]:
    """The games as the service leaves them in its StateDirectory."""
    games = system / "var/lib/keystand"
    (games / "games").mkdir(parents=True)
    (games / "current.jsonl").write_text('{"kind": "start"}\n')
    (games / "games" / "0001.jsonl").write_text('{"kind": "start"}\n')
    return {k: v for k, v in tree(system).items() if k.startswith("var/lib/keystand")}


def test_uninstall_leaves_only_the_games_and_purge_leaves_nothing(system: Path) -> None:
    bare = tree(system)
    install(system, "--no-venv")
    games = _play(system)
    done = install(system, "uninstall")
    assert tree(system) == {**bare, **games}
    assert "kept the games" in done.stdout
    assert "(--root: not run) userdel keystand" in done.stdout
    install(system, "uninstall")  # again: nothing left to do, no error
    assert tree(system) == {**bare, **games}

    install(system, "--no-venv")
    install(system, "uninstall", "--purge")
    assert tree(system) == bare


def test_folders_the_install_made_go_with_it(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    install(empty, "--no-venv")
    install(empty, "--no-venv")
    install(empty, "uninstall", "--purge")
    assert tree(empty) == {}


def test_bad_arguments_get_one_line(tmp_path: Path) -> None:
    for args, says in (
        (["--frobnicate"], "unknown argument '--frobnicate'"),
        (["--purge"], "--purge goes with uninstall"),
        (["--root", str(tmp_path / "nowhere")], "no such directory"),
    ):
        done = subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True)
        assert done.returncode != 0
        assert says in done.stderr and len(done.stderr.splitlines()) == 1, done.stderr


def _members(root: Path) -> list[str]:
    users = (root / "etc/sysusers.d/keystand.conf").read_text().splitlines()
    return [u.split()[-1] for u in users if u.startswith("m ")]


def test_a_given_profile_changes_only_the_profile_line_and_the_groups(system: Path) -> None:
    install(system, "--no-venv", "--profile", "touch-mpr121")
    settings = system / "etc/keystand/keystand.toml"
    settings.write_text(settings.read_text().replace('# mission = "9-9"', 'mission = "9-5"'))
    assert _members(system) == ["gpio", "spi", "i2c"]

    done = install(system, "--no-venv", "--profile", "minimal")
    assert "profile touch-mpr121 -> minimal" in done.stdout
    assert config.load(settings).get("service", "profile") == "minimal"
    assert config.load(settings).get("game", "mission") == "9-5"  # the user's edit stays
    assert _members(system) == ["gpio", "spi"]

    # Without --profile the settings file's is the build's (its groups, doctor's).
    settings.write_text(settings.read_text().replace('"minimal"', '"touch-serial"'))
    done = install(system, "--no-venv")
    assert f"(kept) {settings}" in done.stdout and "profile touch-serial " in done.stdout
    assert _members(system) == ["gpio", "spi", "dialout"]


def test_a_profile_line_is_added_where_the_settings_file_has_none(system: Path) -> None:
    install(system, "--no-venv")
    settings = system / "etc/keystand/keystand.toml"
    for text in ('[game]\nmission = "9-5"\n', '[service]\n\n[game]\nmission = "9-5"\n'):
        settings.write_text(text)
        install(system, "--no-venv", "--profile", "touch-serial")
        assert config.load(settings).get("service", "profile") == "touch-serial", text
        assert config.load(settings).get("game", "mission") == "9-5", text


def test_a_profile_file_is_copied_where_the_service_can_read_it(
    system: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home" / "pi"
    home.mkdir(parents=True)
    (home / "my-build.toml").write_text('[input]\nkinds = ["keys", "mpr121"]\n')
    done = install(system, "--no-venv", "--profile", "my-build.toml", cwd=home)
    copy = system / "etc/keystand/my-build.toml"
    assert copy.read_bytes() == (home / "my-build.toml").read_bytes()
    assert copy.stat().st_mode & 0o7777 == 0o644
    settings = system / "etc/keystand/keystand.toml"
    assert config.load(settings).get("service", "profile") == "/etc/keystand/my-build.toml"
    assert _members(system) == ["gpio", "spi", "i2c"]
    assert "profile /etc/keystand/my-build.toml" in done.stdout

    # Run again without --profile (an update): the copy in the tree is the build's.
    first = tree(system)
    install(system, "--no-venv")
    assert tree(system) == first
    # An edited profile file given again is copied again.
    (home / "my-build.toml").write_text('[input]\nkinds = ["keys", "serial"]\n')
    install(system, "--no-venv", "--profile", str(home / "my-build.toml"))
    assert copy.read_bytes() == (home / "my-build.toml").read_bytes()
    assert _members(system) == ["gpio", "spi", "dialout"]

    install(system, "uninstall")  # configuration, like keystand.toml: uninstall removes it
    assert not copy.exists() and not settings.exists()


def test_a_profile_that_is_not_there_is_refused_in_one_line(system: Path) -> None:
    for given, says in (
        ("nonesuch", "--profile nonesuch: no such profile (shipped: desktop minimal"),
        ("gone.toml", "--profile gone.toml: no such file"),
    ):
        done = subprocess.run(
            ["bash", str(SCRIPT), "--no-venv", "--root", str(system), "--profile", given],
            capture_output=True,
            text=True,
        )
        assert done.returncode != 0
        assert says in done.stderr and len(done.stderr.splitlines()) == 1, done.stderr
    assert not (system / "etc/keystand").exists()


@pytest.mark.skipif(shutil.which("dpkg-query") is None, reason="dpkg-query: not a Debian system")
def test_an_image_is_told_the_packages_its_venv_build_needs(system: Path) -> None:
    """Into an image: pip compiles spidev in its chroot (no wheels anywhere);
    lgpio's wheel needs no liblgpio-dev, so neither it nor swig is named."""
    line = "  (--root: not run) apt-get install -y --no-install-recommends "
    done = install(system, "--no-venv")
    assert line + "python3-venv gcc python3-dev" in done.stdout.splitlines()
    assert "liblgpio-dev" not in done.stdout and "swig" not in done.stdout

    # An image with some of them: dpkg's database in the tree says which.
    dpkg = system / "var/lib/dpkg"
    dpkg.mkdir(parents=True)

    def have(*names: str) -> None:
        (dpkg / "status").write_text(
            "".join(
                f"Package: {name}\nStatus: install ok installed\nArchitecture: arm64\n"
                "Version: 1\nMaintainer: x\nDescription: x\n\n"
                for name in names
            )
        )

    have("python3-venv", "gcc")
    done = install(system, "--no-venv")
    assert line + "python3-dev" in done.stdout.splitlines()
    have("python3-venv", "gcc", "python3-dev")
    done = install(system, "--no-venv")
    assert "apt-get" not in done.stdout and "packages installed: python3-venv" in done.stdout


FAKES = {
    # pip: a wheel of everything but spidev (as PyPI has for Debian 12 arm64)
    "pip": """case "$*" in *download*spidev*) exit 1 ;; *download*) exit 0 ;; esac""",
    "dpkg-query": "exit 1",  # nothing installed
    # apt knows every package but liblgpio-dev (Debian has none)
    "apt-cache": """case "$*" in *liblgpio-dev*) echo '  Candidate: (none)' ;;
        *) echo '  Candidate: 1.0' ;; esac""",
    "apt-get": """echo "apt-get $*" >> "$LOG\"""",
    "udevadm": """echo "udevadm $*" >> "$LOG"; [ "$1 $2" != "control --ping" ]""",
    "systemctl": """echo "systemctl $*" >> "$LOG"; [ "$1" != is-system-running ] || echo offline""",
}


def fakes_on_path(tmp_path: Path, **fakes: str) -> dict[str, str]:
    """An environment whose PATH finds the stand-ins (FAKES, then these) first."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name, body in {**FAKES, **fakes}.items():
        (bin_dir / name).write_text(f"#!/bin/bash\n{body}\n")
        (bin_dir / name).chmod(0o755)
    (tmp_path / "log").write_text("")
    return {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "LOG": str(tmp_path / "log")}


def sourced(tmp_path: Path, script: str, **fakes: str) -> subprocess.CompletedProcess[str]:
    """install.sh's functions (sourced: nothing runs) with stand-ins on PATH for
    pip, dpkg-query, apt-cache, apt-get, udevadm and systemctl."""
    return subprocess.run(
        ["bash", "-c", f'source "{SCRIPT}" --dry-run; DRY=0; {script}'],
        capture_output=True,
        text=True,
        timeout=60,
        env=fakes_on_path(tmp_path, **fakes),
    )


def test_only_what_pip_must_compile_gets_build_packages(tmp_path: Path) -> None:
    done = sourced(tmp_path, f'compile_deps "{tmp_path}/bin/pip"')
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["gcc", "python3-dev"]  # for spidev; lgpio has a wheel
    assert "no wheel of spidev for this machine: pip compiles it" in done.stderr
    assert "lgpio" not in done.stderr


def test_a_compile_needing_lgpio_names_the_package_apt_lacks(tmp_path: Path) -> None:
    """A machine with no lgpio wheel (32-bit Arm, say) and no liblgpio-dev in apt:
    one line naming the package and why, and nothing installed."""
    pip = 'case "$*" in *download*lgpio*|*download*spidev*) exit 1 ;; esac'
    done = sourced(
        tmp_path, f'apt_install "pip compiles lgpio" $(compile_deps "{tmp_path}/bin/pip")', pip=pip
    )
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == (
        "keystand install: package liblgpio-dev is not in this system's apt sources, and "
        "pip compiles lgpio (Raspberry Pi OS's archive has it)"
    )
    assert "apt-get install" not in (tmp_path / "log").read_text()


def test_missing_packages_are_installed_with_apt(tmp_path: Path) -> None:
    done = sourced(tmp_path, 'apt_install "pip compiles spidev" gcc python3-dev')
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "log").read_text().splitlines() == [
        "apt-get update -qq",
        "apt-get install -y --no-install-recommends gcc python3-dev",
    ]


def test_without_udevd_or_systemd_the_steps_wait_for_boot(tmp_path: Path) -> None:
    """A container, a chroot, an image build: the reload and start are not run,
    each says so in one line, and the install goes on."""
    done = sourced(
        tmp_path,
        'if_running udevd "the rule takes effect at boot" udevadm control --reload-rules; '
        'if_running systemd "the stand starts at boot" systemctl start keystand.service; '
        "echo went on",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "  (udevd is not running: the rule takes effect at boot) udevadm control --reload-rules",
        "  (systemd is not running: the stand starts at boot) systemctl start keystand.service",
        "went on",
    ]
    assert (tmp_path / "log").read_text().splitlines() == [
        "udevadm control --ping",
        "systemctl is-system-running",
    ]


def test_with_udevd_and_systemd_the_steps_run(tmp_path: Path) -> None:
    done = sourced(
        tmp_path,
        'if_running udevd "the rule takes effect at boot" udevadm control --reload-rules; '
        'if_running systemd "the stand starts at boot" systemctl start keystand.service',
        udevadm='echo "udevadm $*" >> "$LOG"',
        systemctl='echo "systemctl $*" >> "$LOG"; echo running',
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "log").read_text().splitlines() == [
        "udevadm control --ping",
        "udevadm control --reload-rules",
        "systemctl is-system-running",
        "systemctl start keystand.service",
    ]


@pytest.mark.skipif(Path("/opt/keystand").exists(), reason="keystand is installed on this machine")
def test_a_dry_run_without_udevd_systemd_or_packages_goes_through(tmp_path: Path) -> None:
    """install.sh on the live system (no --root), dry: a container or chroot with
    neither udevd nor systemd and none of the Debian packages. Every step is said;
    the reload, stop and start say when they take effect, and the install goes on
    to its end. Only the read-only questions reach the stand-ins."""
    done = subprocess.run(
        ["bash", str(SCRIPT), "--dry-run", "--profile", "minimal"],
        capture_output=True,
        text=True,
        timeout=60,
        env=fakes_on_path(tmp_path),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    for line in (
        "  apt-get install -y --no-install-recommends python3-venv",
        "  (udevd is not running: the rule takes effect at boot) udevadm control --reload-rules",
        "  (systemd is not running: the unit takes effect at boot) systemctl daemon-reload",
        "  systemctl enable keystand.service",
        "  (systemd is not running: nothing to stop) systemctl stop keystand.service",
        "  (systemd is not running: the stand starts at boot) systemctl start keystand.service",
    ):
        assert line in lines, done.stdout
    # pip takes the wheels the check found even where a newer release has none.
    assert any("pip install" in ln and "--prefer-binary" in ln for ln in lines)
    assert lines[-1].startswith("keystand install: done.")
    assert "liblgpio-dev" not in done.stdout and "swig" not in done.stdout
    assert (tmp_path / "log").read_text().splitlines() == [
        "udevadm control --ping",
        "systemctl is-system-running",
        "systemctl is-system-running",
        "systemctl is-system-running",
    ]


def test_the_venv_is_built_from_the_source_not_from_a_build_left_in_the_checkout(
    tmp_path: Path,
) -> None:
    """A build/ (a wheel built there before a `git pull`) or an egg-info in the
    checkout stays out of the source the venv is built from: source_tar gives every
    file one mtime, so setuptools would take build/'s old copies as up to date."""
    checkout = tmp_path / "checkout"
    for name in ("firmware_host/run.py", "build/lib/keystand/run.py", "dist/x.whl"):
        (checkout / name).parent.mkdir(parents=True, exist_ok=True)
        (checkout / name).write_text("# " + name)
    (checkout / "keystand.egg-info").mkdir()
    done = sourced(tmp_path, f'SRC="{checkout}"; source_tar | tar -tf -')
    assert done.returncode == 0, done.stderr
    listed = {line.rstrip("/") for line in done.stdout.split()}
    assert "./firmware_host/run.py" in listed
    assert not {n for n in listed if n.startswith(("./build", "./dist", "./keystand.egg"))}
