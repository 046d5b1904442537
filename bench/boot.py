"""Power-on to a playable stand, and New game to both panels readable, estimated
for a Raspberry Pi Zero 2 W from figures measured here (scaled by the Python
reference) and public ones (cited). Standard library only.

What a player waits for from the plug: the Pi's firmware and kernel, systemd up to
the unit's start, keystand's start to both first frames handed (the bench's Pi
path, scaled), then the first frame's refresh on the panel (the fast waveform
where the panel has a quicker one: panel_worker.RefreshPolicy rule 5).
"""

from __future__ import annotations

from typing import Any

# Public boot figures. No Zero 2 W figure was found; these are the nearest:
# a Raspberry Pi Zero W on Raspbian with services trimmed and the stock kernel:
# "2.70 s before userspace", "7.42 s to local-fs", "7.94 s to basic"
# (Michael Hope, juju.nz/michaelh/post/2017/piboot). The Zero W's one ARM11 core
# is slower than the Zero 2 W's A53s, so these err long. keystand's unit is
# ordered after sysinit.target only (systemd/keystand.service), which follows
# local-fs.target closely (tmpfiles, sysusers, udev's coldplug run beside it):
# `to local-fs` is the nearest published moment it can start (`to basic`, where
# the default dependencies would have put it, half a second later).
BEFORE_USERSPACE_S = 2.70
TO_SYSINIT_S = 7.42
BOOT_SOURCE = "juju.nz/michaelh/post/2017/piboot (a Pi Zero W, Raspbian, services trimmed)"

POWER_ON_GOAL_S = 15.0  # issue 33: the minimal build, plug to both panels readable
NEW_GAME_GOAL_S = 2.0  # issue 33: New game to both panels readable, every panel


def first_refresh_ms(model: dict[str, Any], fast: bool) -> float:
    """The first frame's refresh on the panel, as the stand draws it (ms)."""
    return model["panel_busy_ms"]["fast" if fast else "full"]


def power_on(
    build: str, start_ms: float, slower: float, name: str, model: dict[str, Any], fast: bool
) -> dict[str, Any]:
    """Plug to both panels readable for `build` (its slowest panel `name`, whose
    figures are `model`), part by part (seconds)."""
    parts = {
        "firmware and kernel": BEFORE_USERSPACE_S,
        "systemd to the unit's start (sysinit.target)": TO_SYSINIT_S - BEFORE_USERSPACE_S,
        "keystand's start to both first frames handed (CPU here x the Python reference)": (
            start_ms * slower / 1e3
        ),
        "the first frame's refresh": first_refresh_ms(model, fast) / 1e3,
    }
    return {
        "build": build,
        "model": name,
        "waveform": "fast" if fast else "full",
        "parts_s": {k: round(v, 2) for k, v in parts.items()},
        "total_s": round(sum(parts.values()), 2),
        "source": BOOT_SOURCE,
    }


def new_game(model: dict[str, Any], slower: float, fast: bool) -> dict[str, float]:
    """New game to both panels readable on a Zero 2 W: both frames prepared (the
    software p99 of a touch, scaled: a new game's frames are the same work), then
    the refresh the stand draws a new game with."""
    software = model["software"]["p99_ms"] * slower
    refresh = first_refresh_ms(model, fast)
    return {
        "software_ms": round(software, 1),
        "refresh_ms": refresh,
        "total_ms": round(software + refresh, 1),
    }
