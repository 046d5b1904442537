"""The team's campaign as people read it: the missions won, how often, the best
score of each, from the store's campaign files (store.py: `campaign.json`, the
one in play; `campaigns/<n>.json`, those a "New campaign" finished): what the
menu's Campaign page and `keystand campaign` show.

The menu's Campaign page and the command show the same rows in the same order:
the menu's missions first, in the menu's order (9-9, 10-10, 11-11, Moscow,
Cairo, Jakarta, Singapore), then the team's own T-M, longest first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .rules import Mission, MissionError
from .rules.mission import PRESETS


@dataclass(frozen=True)
class Won:
    """One mission of a campaign: how many times it was won, the best score."""

    mission: Mission
    won: int
    best: int


@dataclass(frozen=True)
class Campaign:
    number: int  # 1, 2, ... in the order the campaigns were begun
    started: str | None  # when "New campaign" began it (None: the first, from before)
    ended: str | None  # when "New campaign" finished it (None: the one in play)
    missions: tuple[Won, ...]  # in the menu's order

    @property
    def current(self) -> bool:
        return self.ended is None


def _order(won: Won) -> tuple[int, int, int]:
    m = won.mission
    if m in PRESETS:
        return (0, PRESETS.index(m), 0)
    return (1, -m.turns, -m.mistakes)


def of(data: dict[str, Any]) -> Campaign:
    """A campaign file's object as rows; an entry that is not a mission won (the
    file edited, or damaged) is passed over, as a history line is."""
    rows = []
    missions = data.get("missions")
    for text, entry in missions.items() if isinstance(missions, dict) else ():
        try:
            mission = Mission.parse(str(text))
        except MissionError:
            continue
        if not isinstance(entry, dict):
            continue
        won, best = entry.get("won"), entry.get("best")
        if isinstance(won, int) and won > 0 and isinstance(best, int):
            rows.append(Won(mission, won, best))
    number = data.get("number")
    started, ended = data.get("started"), data.get("ended")
    return Campaign(
        number if isinstance(number, int) else 1,
        started if isinstance(started, str) else None,
        ended if isinstance(ended, str) else None,
        tuple(sorted(rows, key=_order)),
    )


def mission_text(mission: Mission) -> str:
    """A mission as the command line names it: "Cairo 9-5", "9-9"."""
    return f"{mission.name.title()} {mission}" if mission.name else str(mission)


def lines(campaign: Campaign) -> list[str]:
    """The campaign as `keystand campaign` prints it."""
    since = f", since {campaign.started[:10]}" if campaign.started else ""
    until = f", finished {campaign.ended[:10]}" if campaign.ended else ""
    state = "in play" if campaign.current else "finished"
    out = [f"campaign {campaign.number} ({state}{since}{until})"]
    if not campaign.missions:
        out.append("  no missions won yet")
    width = max((len(mission_text(w.mission)) for w in campaign.missions), default=0)
    for w in campaign.missions:
        out.append(f"  {mission_text(w.mission):<{width}}  won {w.won}  best {w.best}")
    return out


def public(data: dict[str, Any]) -> dict[str, Any]:
    """A campaign as `keystand campaign --json` prints it: its number, dates, whether
    it is the one in play, and its missions as saved ({"9-5": {"won": 2, "best": 14}})."""
    c = of(data)
    return {
        "number": c.number,
        "started": c.started,
        "ended": c.ended,
        "current": c.current,
        "missions": {str(w.mission): {"won": w.won, "best": w.best} for w in c.missions},
    }
