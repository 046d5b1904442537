"""What a `keystand run` script does to a game, by the rules alone: the scripts the
kill chains feed the stand, and the check that what a run journaled is a prefix
of what its script makes of the game (nothing changed, invented or doubled).

The stand is mirrored only where it decides without the rules: a touch is the
game's `touch_event`, `clue A` its `act_event`, a classic line its own event;
an undo after the game's end is taken only within the end screen's reveal delay
(wall-clock time), so there it may or may not be journaled.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from keystand import games
from keystand.drivers.inputs import Act, Press, Touch
from keystand.journal import CHECKPOINT
from keystand.rules import Seat

NEW_GAME = "press A menu long\npress A pass\npress A menu\npress A menu\n"


@dataclass(frozen=True)
class Plan:
    """The script's game steps: those that go to the game in play when the run
    starts (`same`) and those that go to a game the run deals (`fresh`)."""

    same: list[tuple[int, Any]]
    fresh: list[tuple[int, Any]]
    prefix: str = ""


def replay(records: list[dict[str, Any]]) -> tuple[games.Game, Any]:
    """The game of a journal's records and its state after them (as the store
    replays it: a refused or unreadable event is passed over)."""
    head = records[0]
    game = games.of_record(head)
    state = game.from_start_record(head)
    for record in records[1:]:
        if record.get("t") == "event":
            state = _next(game, state, record)
    return game, state


def checkpoints(records: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """Each checkpoint holds the game as the records before it replay (a start
    resumes from it): its events are the undo chain of the full replay there."""
    if not records:
        return []
    game, state = replay(records[:1])
    for n, record in enumerate(records[1:], 1):
        if record.get("t") == CHECKPOINT:
            chain, at = [], state
            while at.previous is not None:
                chain.append(str(at.made_by))
                at = at.previous
            chain.reverse()
            if record.get("events") != chain:
                held = record.get("events")
                return [("changed", f"checkpoint record {n} holds {held}, the game {chain}")]
        elif record.get("t") == "event":
            state = _next(game, state, record)
    return []


def _next(game: games.Game, state: Any, record: dict[str, Any]) -> Any:
    """The state after one event record, as the store replays it."""
    try:
        event = game.parse_event(str(record["e"]))
    except (KeyError, ValueError):
        return state
    after, result = state.apply(event)
    return state if games.refused(result) else after


def plan_of(game: str, lines: str, mode: str, prefix: str = "") -> Plan:
    steps = games.get(game).input_script(lines)
    if mode == "playing" and prefix != NEW_GAME:
        return Plan(steps, [], prefix)
    return Plan([], steps, prefix)


def script(
    game: str, records: list[dict[str, Any]], mode: str, rng: random.Random, *, grid: str
) -> tuple[str, Plan]:
    """A run's script for a state dir whose current game is `records` in `mode`
    ("none", "over" or "playing"), and its plan."""
    prefix = ""
    if mode == "over":
        prefix = "press A clue\n"  # the end screen: clue deals the next game
    elif mode == "playing":
        roll = rng.random()
        if roll < 0.15:
            prefix = NEW_GAME
        elif roll < 0.25:
            prefix = (
                "press A menu long\n"
                + "press A pass\n" * games.get(game).menu_items.index("language")
                + "press A menu\npress A undo\n"
            )
    lines = []
    for _ in range(rng.randint(4, 16)):
        lines.append(line(game, rng))
        if rng.random() < 0.6:
            lines.append(f"wait {rng.randint(1, 40)}")
    body = "\n".join(lines) + "\n"
    return prefix + body, plan_of(game, body, mode, prefix)


def line(game: str, rng: random.Random) -> str:
    roll = rng.random()
    touch = f"touch {rng.randrange(5)} {rng.randrange(5)}"
    if game == "duet":
        if roll < 0.25:
            return f"clue {rng.choice('AB')}"
        if roll < 0.35:
            return f"pass {rng.choice('AB')}"
        return "undo" if roll < 0.42 else touch
    team = rng.choice(("red", "blue"))
    if roll < 0.25:
        return f"clue {team} {rng.choice(['unlimited', *map(str, range(10))])}"
    if roll < 0.35:
        return f"pass {team}"
    return "undo" if roll < 0.42 else touch


def length(plan: Plan, build: str) -> float:
    """About how long the plan takes on `build` after READY, in seconds: the kill
    moment is drawn up to it."""
    keys = 0.15 if build == "desktop" else 1.3  # the menu's long press is held 1 s
    seconds = plan.prefix.count("press") * keys
    for _line_no, step in plan.same + plan.fresh:
        if isinstance(step, float):
            seconds += step
        elif isinstance(step, Touch) and build.startswith("touch-"):
            seconds += 0.25  # a finger on the grid: dwell, lift, clear
        else:
            seconds += 0.02
    return max(0.3, seconds)


def event_of(game: games.Game, state: Any, step: Any) -> Any:
    """The rules event the stand makes of one script step (None: none)."""
    if isinstance(step, Touch):
        return game.touch_event(state, step.row, step.col, penalty=False)
    if isinstance(step, Act):
        return game.act_event(state, step.verb, Seat(step.seat) if step.seat else None)
    if isinstance(step, games.Played):
        return step.event
    if isinstance(step, Press | float):
        return None
    raise TypeError(f"not a script step: {step!r}")


def walk(
    head: list[dict[str, Any]],
    added: list[dict[str, Any]],
    steps: list[tuple[int, Any]],
    *,
    skips: bool = False,
) -> list[tuple[str, str]]:
    """Problems with the records a run `added` to the game journaled as `head`:
    they must be the events `steps` make of it, in order, possibly cut short
    (and the end record, when the game was archived, last). `skips`: a step may
    also be passed over (a full disk refused it, a failed panel held it), so the
    records must be the events of some of the steps, each from the game as the
    records before it left it; matched greedily, which finds such a choice
    whenever there is one (the state depends only on the records matched)."""
    if not head:
        return []
    game, state = replay(head)
    if added and added[-1].get("t") == "end":
        added = added[:-1]
    # A checkpoint follows an event in its write: the game as the records before
    # it left it, no step of the script (the store's resume checks it replays).
    added = [record for record in added if record.get("t") != CHECKPOINT]
    texts = []
    for record in added:
        if record.get("t") != "event" or "e" not in record:
            return [("changed", f"record {record} where an event was expected")]
        texts.append(str(record["e"]))
    taken, last_touch = 0, None
    for _line_no, step in steps:
        event = event_of(game, state, step)
        if event is None:
            continue
        after, result = state.apply(event)
        if games.refused(result):
            continue
        if taken < len(texts) and texts[taken] == str(event):
            state, taken = after, taken + 1
            last_touch = str(event) if isinstance(step, Touch) else last_touch
        elif skips:
            continue  # not taken: the disk refused it, or a failed panel held it
        elif not game.playing(state):
            continue  # an undo after the end: taken only within the reveal delay
        elif taken < len(texts):
            return [_mismatch(texts[taken], str(event), last_touch, steps, head)]
        else:
            break
    if taken < len(texts):
        return [_mismatch(texts[taken], None, last_touch, steps, head)]
    return []


def _mismatch(
    got: str, wanted: str | None, last_touch: str | None, steps: list[Any], head: list[Any]
) -> tuple[str, str]:
    where = f"game {head[0].get('id')}: journaled {got!r} where the script gives {wanted!r}"
    if got.startswith("touch"):
        if got == last_touch:
            return ("double", where)
        touched = {f"touch {s.row} {s.col}" for _n, s in steps if isinstance(s, Touch)}
        if got not in touched:
            return ("phantom", where)
    if wanted is not None and wanted.startswith("touch"):
        return ("lost", where + " (a touch not taken)")
    return ("changed", where)


def kept_whole(
    before: list[dict[str, Any]], after: list[dict[str, Any]], game_id: str
) -> list[tuple[str, str]]:
    """Every record sound before the run is there after it, unchanged."""
    if len(after) < len(before):
        return [
            ("lost", f"game {game_id}: {len(before)} records before the run, {len(after)} after")
        ]
    for n, (old, new) in enumerate(zip(before, after, strict=False)):
        if old != new:
            return [("changed", f"game {game_id}: record {n} was {old}, is {new}")]
    return []
