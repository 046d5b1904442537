"""Duet's record: the team's campaign, the missions won, how often, the best
score of each (the store keeps it: `campaign.json`, the one in play;
`campaigns/<n>.json`, those a "New campaign" finished), what the menu's Campaign
page and `keystand campaign` show.

Both show the same rows in the same order: the menu's missions first, in the
menu's order (9-9, 10-10, 11-11, Moscow, Cairo, Jakarta, Singapore), then the
team's own T-M, longest first.
"""

from __future__ import annotations

from ...rules import Mission, MissionError
from ...rules.mission import PRESETS
from ..record import Record


class Campaign(Record):
    """The campaign's labels are missions, as the history names them ("9-5")."""

    def label(self, text: str) -> str | None:
        try:
            return str(Mission.parse(text))
        except MissionError:
            return None

    def order(self, label: str) -> tuple[int, ...]:
        m = Mission.parse(label)
        if m in PRESETS:
            return (0, PRESETS.index(m), 0)
        return (1, -m.turns, -m.mistakes)

    def named(self, label: str) -> tuple[str | None, str]:
        m = Mission.parse(label)
        return (m.name, str(m))

    def text(self, label: str) -> str:
        """A mission as the command line names it: "Cairo 9-5", "9-9"."""
        m = Mission.parse(label)
        return f"{m.name.title()} {m}" if m.name else str(m)


CAMPAIGN = Campaign(
    "campaign",
    new_item="new_campaign",
    labels="missions",
    unsaved_hint="campaign_unsaved",
    help="the team's campaign: missions won and best scores",
    description="The campaign in play: each mission won, how often, its best score. "
    '--all lists the campaigns the menu\'s "New campaign" finished too, oldest first. '
    "Read only: a new campaign is begun from the menu.",
)
