"""A game as other tools read it: the `keystand play --json` object (docs/design.md
"Contracts": the field names and values are fixed) and the text board the CLI
prints. Standard library and the rules only, so any command may import it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...rules import Seat
from ...rules.card import SIZE
from ...rules.duet import Duet


def state_json(state: Duet, rejected: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """The state as docs/design.md's `keystand play --json` names its fields."""
    return {
        "status": state.status.value,
        "reason": state.reason.value if state.reason else None,
        "phase": state.phase.value,
        "clue_giver": state.clue_giver.value if state.clue_giver else None,
        "guesser": state.guesser.value if state.guesser else None,
        "turns_left": state.turns_left,
        "mistakes_left": state.mistakes_left,
        "agents_found": state.agents_found,
        "covered": sorted(state.covered),
        "misses": {s.value: sorted(state.misses(s)) for s in Seat},
        "passes": state.passes,
        "score": state.score,
        "rejected": list(rejected),
    }


BOARD_LEGEND = "# agent found, x missed by both, a/b missed by A/B, · open"


def board(state: Duet) -> str:
    """The table as seat A sees it (row 0 farthest from A), one mark a cell."""
    rows = []
    for r in range(SIZE):
        cells = []
        for c in range(SIZE):
            i = SIZE * r + c
            if i in state.agents:
                cells.append("#")
            elif i in state.covered:
                cells.append("x")
            elif i in state.misses_a:
                cells.append("a")
            elif i in state.misses_b:
                cells.append("b")
            else:
                cells.append("·")
        rows.append("  " + " ".join(cells))
    return "\n".join(rows)
