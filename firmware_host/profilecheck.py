"""`keystand profile check [PROFILE...]`: load each profile (its keys and its pin
plan, as `keystand run` would) and print one line for it. Exit 0 only when every
one passes; with no PROFILE, every profile installed with keystand."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from . import pins
from . import profile as profiles

EXIT_FAILED = 1


def add_parser(sub: Any) -> None:
    p = sub.add_parser("profile", help="check build profiles")
    actions = p.add_subparsers(dest="profile_command", required=True, metavar="ACTION")
    check = actions.add_parser(
        "check",
        help="load profiles and check their pin plans, one line each",
        description="Load each profile as `keystand run` would and check its pin plan: no "
        "GPIO used twice, the SPI, I2C and UART lines free when the build needs them, every "
        "pin a header GPIO (2..27); and that a player can play it (an input that gives a "
        "clue and names a word). Exit 0 only when all pass.",
    )
    check.add_argument(
        "profiles",
        nargs="*",
        metavar="PROFILE",
        help="a profile's name (minimal) or a file's path; default: every installed profile",
    )
    check.add_argument(  # as `run` and `doctor` take it, so the habit works here too
        "--profile",
        action="append",
        default=[],
        dest="named",
        metavar="PROFILE",
        help="the same as naming it without --profile (may be given more than once)",
    )


def summary(profile: profiles.Profile) -> str:
    """What a passing profile wires, in a few words."""
    plan = pins.check(profile)
    buses = [*(["SPI0"] if pins.needs_spi(profile) else []), *profile.input.bus_names()]
    panels = f"{profile.stand.driver} panels"
    # Each kind's lines, in the words its declaration gives them ("8 keys").
    counted = [kind.counted(settings) for kind, settings in profile.input.wired()]
    parts = [panels, *buses, *(words for words in counted if words)]
    return f"ok: {len(plan)} GPIOs ({', '.join(parts)})" if plan else f"ok: no GPIO ({panels})"


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    names = [*args.profiles, *args.named] or sorted(profiles.shipped())
    failed = 0
    for name in names:
        try:
            loaded = profiles.load(name)
            profiles.check_playable(loaded)  # a stand no player could play is no build
        except profiles.ProfileError as e:
            failed += 1
            print(e, file=out)
            continue
        print(f"{loaded.source}: {summary(loaded)}", file=out)
    if failed:
        print(f"keystand profile check: {failed} of {len(names)} profiles refused", file=err)
    return EXIT_FAILED if failed else 0


__all__ = ["add_parser", "run"]
