"""Grid and panel faults.

- `serial:KIND:N`, `mpr121:KIND:N`: the grids under fault through their real
  drivers (grids.py): one touch per contact, none lost, doubled or phantom.
- `noise:BUILD:GAME`: a scripted game on an emulated touch build with
  `--emulate-fault grid:noise` (random bytes and broken frames on the serial
  line, NACKs and flipped status bits on the I2C bus): the journal holds what
  the script's touches make of the game, nothing else (kill.py's check).
- `panel:GAME:SCREEN:FAULT`: `--emulate-fault A:busy-stuck` (BUSY stuck from
  the second refresh) or `B:unplugged` on the minimal build, with the other
  seat's screen ending on the game (play), its menu or the end screen. The game
  goes on to where the same script without the fault ends (else `lost`), and
  the other seat's screen tells of the failure: its frame differs, pixel for
  pixel, from the same frame of the run without the fault (else `untold`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import grids
import oracle
from common import Context, Tally, case_rng, keystand, sound_records

from keystand import games
from keystand.rules import Seat

CODES = {"duet": "JYVN-0YEP-FZX9", "classic": "9CY-EPF-ZXQ"}
SCREENS = ("play", "menu", "end")
PANEL_FAULTS = ("A:busy-stuck", "B:unplugged")


def run(ctx: Context, tally: Tally) -> None:
    with ThreadPoolExecutor(2) as pool:
        pending: list[tuple[str, Future[list[tuple[str, str]]]]] = []
        for game, screen, fault in itertools.product(CODES, SCREENS, PANEL_FAULTS):
            case = f"panel:{game}:{screen}:{fault.replace(':', '-')}"
            if ctx.wants(case) and (not ctx.quick or screen == "end"):
                pending.append((case, pool.submit(_panel, ctx, game, screen, fault)))
        for build, game in itertools.product(("touch-serial", "touch-mpr121"), CODES):
            case = f"noise:{build}:{game}"
            if ctx.wants(case) and (not ctx.quick or game == "duet"):
                pending.append((case, pool.submit(_noise, ctx, build, game)))
        _grids(ctx, tally)
        for case, future in pending:
            tally.add(case.split(":")[0] + "_runs")
            for kind, what in future.result():
                tally.fail(case, kind, what, keep=[ctx.work / "faults" / _safe(case)])


def _grids(ctx: Context, tally: Tally) -> None:
    """Grid cases, every kind in turn, until the budget is spent (once each at least)."""
    kinds = [("serial", k) for k in grids.SERIAL_KINDS] + [
        ("mpr121", k) for k in grids.MPR121_KINDS
    ]
    named = (ctx.case or "").split(":")
    rounds: Iterable[int] = itertools.count()
    if len(named) == 3 and named[2].isdigit():  # one case: its own round only
        rounds = [int(named[2])]
    for n in rounds:
        for grid, kind in kinds:
            case = f"{grid}:{kind}:{n}"
            if not ctx.wants(case):
                continue
            rng = case_rng(ctx.seed, "faults", case)
            folder = ctx.work / "faults" / _safe(case)
            folder.mkdir(parents=True, exist_ok=True)
            count = (
                grids.serial_case(folder, kind, rng)
                if grid == "serial"
                else grids.mpr121_case(kind, rng)
            )
            tally.add(f"{grid}_contacts", count.taps)
            tally.add(f"{grid}_touches", count.touches)
            for figure in ("lost", "double", "phantom"):
                if getattr(count, figure):
                    tally.fail(case, figure, "; ".join(count.said)[:300])
        if ctx.quick or ctx.case or ctx.left() <= 0:
            return


# -- a panel that fails ------------------------------------------------------------------


def _panel(ctx: Context, game: str, screen: str, fault: str) -> list[tuple[str, str]]:
    failing = fault.split(":")[0]
    other = "B" if failing == "A" else "A"
    script = _panel_script(game, screen, other)
    folder = ctx.work / "faults" / _safe(f"panel:{game}:{screen}:{fault.replace(':', '-')}")
    clean = _emulated(folder / "clean", "minimal", game, script, [])
    faulty = _emulated(folder / "faulty", "minimal", game, script, ["--emulate-fault", fault])
    problems = [p for p in (clean[0], faulty[0]) if p]
    if problems:
        return [("crashes", p) for p in problems]
    if clean[1] != faulty[1]:
        return [("lost", f"the game ends as {faulty[1]}, without the fault as {clean[1]}")]
    pick = "last" if screen == "menu" else "first"
    was = _frame(folder / "clean", other, pick)
    now = _frame(folder / "faulty", other, pick)
    if was is None or now is None:
        return [("lost", f"seat {other} showed no frame of the game's last move")]
    if was == now:
        return [("untold", f"seat {other}'s {screen} screen does not say panel {failing} failed")]
    return []


def _panel_script(game: str, screen: str, seat: str) -> str:
    """Two moves, a pause in which the failing panel's fault is found, then the
    move that puts the other seat's screen on `screen`."""
    card = games.get(game).card_from_code(CODES[game])
    if game == "duet":
        side = card.side(Seat.A)
        agents = [i for i, k in enumerate(side) if k.value == "G"]
        assassin = next(i for i, k in enumerate(side) if k.value == "X")
        clue = "clue A"
    else:
        team = card.starting
        agents = sorted(card.agents(team))
        assassin = card.assassin
        clue = f"clue {team.value} 3"
    lines = [clue, "touch {} {}".format(*divmod(agents[0], 5)), "wait 3500"]
    if screen == "play":
        lines.append("touch {} {}".format(*divmod(agents[1], 5)))
    elif screen == "menu":
        lines.append(f"press {seat} menu long")
    else:
        lines.append("touch {} {}".format(*divmod(assassin, 5)))
    return "\n".join(lines) + "\n"


def _emulated(
    folder: Path, build: str, game: str, script: str, extra: list[str]
) -> tuple[str | None, str]:
    """`keystand run --emulate` on `build` to its script's end: (what went wrong or
    None, the game's state as `keystand state` prints it)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "script.txt").write_text(script)
    (folder / "settings.toml").write_text("")
    done = keystand(
        "run", "--profile", build, "--config", folder / "settings.toml", "--game", game,
        "--card-code", CODES[game], "--emulate", folder / "emulate", "--state-dir",
        folder / "state", "--script", folder / "script.txt", "--speed", "0.01",
        "--shown-log", folder / "shown.log", *extra, timeout=300,
    )  # fmt: skip
    (folder / "stand.log").write_text(done.stderr)
    if done.returncode != 0 or "Traceback" in done.stderr:
        return f"{build} {' '.join(extra)}: exit {done.returncode}: {done.stderr[-300:]}", ""
    state = keystand("state", "--state-dir", folder / "state", "--json")
    return None, state.stdout.strip()


def _frame(folder: Path, seat: str, pick: str) -> bytes | None:
    """The image `seat`'s panel was handed for the game's last record count: the
    first such frame, or (`last`) the last before the neutral picture."""
    lines = (folder / "shown.log").read_text().splitlines()
    mine = [ln.split() for ln in lines if ln.split()[0] == seat]
    numbered = [(n, f) for n, f in enumerate(mine, 1) if f[1] != "neutral"]
    if not numbered:
        return None
    final = numbered[-1][1][2]
    at = [n for n, f in numbered if f[2] == final]
    n = at[-1] if pick == "last" else at[0]
    return (folder / "emulate" / f"{seat}-{n:04d}.png").read_bytes()


# -- a noisy grid in a whole game -------------------------------------------------------------


def _noise(ctx: Context, build: str, game: str) -> list[tuple[str, str]]:
    rng = case_rng(ctx.seed, "faults", "noise", build, game)
    body = "".join(
        (
            f"touch {rng.randrange(5)} {rng.randrange(5)}"
            if rng.random() < 0.6
            else oracle.line(game, rng)
        )
        + "\n"
        for _ in range(16)
    )
    folder = ctx.work / "faults" / _safe(f"noise:{build}:{game}")
    problem, _state = _emulated(folder, build, game, body, ["--emulate-fault", "grid:noise"])
    if problem:
        return [("crashes", problem)]
    records = sound_records(folder / "state" / "current.journal")
    plan = oracle.plan_of(game, body, "none")
    found = oracle.walk(records[:1], records[1:], plan.fresh)
    taken = len(records) - 1
    expected = _expected(game, records[:1], plan)
    if not found and taken < expected:
        found = [("lost", f"{taken} of the script's {expected} events journaled")]
    return found


def _expected(game: str, head: list[dict[str, object]], plan: oracle.Plan) -> int:
    """How many events the whole script makes of the game (all of it ran)."""
    if not head:
        return 0
    g, state = oracle.replay(head)
    n = 0
    for _line, step in plan.fresh:
        event = oracle.event_of(g, state, step)
        if event is None:
            continue
        after, result = state.apply(event)
        if not games.refused(result) and g.playing(state):
            state, n = after, n + 1
    return n


def _safe(case: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in case)


__all__ = ["run"]
