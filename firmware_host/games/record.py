"""A game's standing record: its wins by label, how often, the best score of each
(Duet's campaign: the missions won), declared by the game (`Game.record`) and
kept by the store for it alone.

The store keeps the record in play in `<name>.json` and each one finished by the
menu's entry that begins a new one (`new_item`) in `<name>s/<n>.json`, as one
JSON object: {"<labels>": {"9-5": {"won": 2, "best": 14}}, "number": 2,
"started": ..., "ended": ...}. The menu's page of it (`page`) and its command
(`keystand <name>`: `lines`, `public`) read the same rows in the same order
(`order`). A game with a record overrides how its labels sort and are named.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from keystand.layouts import MenuView


@dataclass(frozen=True)
class Won:
    """One label of a record: how many times it was won, the best score."""

    label: str
    won: int
    best: int


@dataclass(frozen=True)
class Standing:
    """A record file read as rows (`Record.of`)."""

    number: int  # 1, 2, ... in the order they were begun
    started: str | None  # when its new_item began it (None: the first, from before)
    ended: str | None  # when its new_item finished it (None: the one in play)
    wins: tuple[Won, ...]  # in the game's order (`Record.order`)

    @property
    def current(self) -> bool:
        return self.ended is None


@dataclass(frozen=True)
class Record:
    """A game's record, as the host asks for it. `name`: its menu entry (the page),
    its file's stem and its command; `new_item`: the menu entry that puts it away
    and begins a new one; `labels`: the file's key of its wins by label, and the
    word its lines name them by; `unsaved_hint`: the seat's hint when the disk
    refuses a new one; `help`, `description`: its command's."""

    name: str
    new_item: str
    labels: str
    unsaved_hint: str
    help: str = ""
    description: str = ""

    @property
    def file(self) -> str:
        """The record in play, in the state dir."""
        return f"{self.name}.json"

    @property
    def folder(self) -> str:
        """The finished ones, one file each by its number, in the state dir."""
        return f"{self.name}s"

    def label(self, text: str) -> str | None:
        """A label as the file keeps it, read back in the game's one spelling; None:
        not one of the game's labels (the file edited, or damaged), passed over as
        a history line is."""
        return text

    def order(self, label: str) -> tuple[int, ...]:
        """Where a label's row goes (rows sort by it; equal keys keep the file's order)."""
        return ()

    def named(self, label: str) -> tuple[str | None, str]:
        """A label as the menu's page names it: a name key (or None) and its text."""
        return (None, label)

    def text(self, label: str) -> str:
        """A label as its command prints it."""
        return label

    def of(self, data: dict[str, Any]) -> Standing:
        """A record file's object as rows; an entry that is not a label won is
        passed over."""
        rows: list[tuple[tuple[int, ...], Won]] = []
        wins = data.get(self.labels)
        for text, entry in wins.items() if isinstance(wins, dict) else ():
            label = self.label(str(text))
            if label is None or not isinstance(entry, dict):
                continue
            won, best = entry.get("won"), entry.get("best")
            if isinstance(won, int) and won > 0 and isinstance(best, int):
                rows.append((self.order(label), Won(label, won, best)))
        number, started, ended = data.get("number"), data.get("started"), data.get("ended")
        return Standing(
            number if isinstance(number, int) else 1,
            started if isinstance(started, str) else None,
            ended if isinstance(ended, str) else None,
            tuple(w for _, w in sorted(rows, key=lambda row: row[0])),
        )

    def lines(self, data: dict[str, Any]) -> list[str]:
        """The record as its command prints it."""
        s = self.of(data)
        since = f", since {s.started[:10]}" if s.started else ""
        until = f", finished {s.ended[:10]}" if s.ended else ""
        state = "in play" if s.current else "finished"
        out = [f"{self.name} {s.number} ({state}{since}{until})"]
        if not s.wins:
            out.append(f"  no {self.labels} won yet")
        width = max((len(self.text(w.label)) for w in s.wins), default=0)
        for w in s.wins:
            out.append(f"  {self.text(w.label):<{width}}  won {w.won}  best {w.best}")
        return out

    def public(self, data: dict[str, Any]) -> dict[str, Any]:
        """The record as its command's --json prints it: its number, dates, whether
        it is the one in play, and its wins as saved ({"9-5": {"won": 2, "best": 14}})."""
        s = self.of(data)
        return {
            "number": s.number,
            "started": s.started,
            "ended": s.ended,
            "current": s.current,
            self.labels: {w.label: {"won": w.won, "best": w.best} for w in s.wins},
        }

    def page(self, view: MenuView, data: dict[str, Any]) -> MenuView:
        """The menu's screen with the record's page on it, in the rows' order."""
        from keystand.layouts import CampaignLine

        rows = tuple(CampaignLine(self.named(w.label), w.won, w.best) for w in self.of(data).wins)
        return replace(view, campaign=rows)
