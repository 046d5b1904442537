"""The practice game behind the games seam: one package and one entry point.

Installed for a test by `practice_plugin.install` (a distribution's metadata
naming `practice = keystand_practice:GAME` in the `keystand.games` entry points),
the way a game packaged apart from keystand is found. docs/games.md walks
through it as the example of adding a game: it overrides only what differs
from `keystand.games.Game`'s defaults.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from keystand.games import Context, Game, Options
from keystand.rules import Seat

from . import rules
from .rules import GRID, Event, Outcome, Phase, Practice, PracticeCard

if TYPE_CHECKING:
    from keystand.layouts import AnyView


class PracticeGame(Game[PracticeCard, Practice, Event, Outcome]):
    name = "practice"
    card_type = PracticeCard
    state_type = Practice
    legend = "G agent, . bystander, X assassin: a covered word's key; · open"
    grid = GRID

    def generate(self, seed: int | None = None) -> PracticeCard:
        return PracticeCard.generate(seed)

    def start(self, card: PracticeCard, options: Options | None = None) -> Practice:
        return Practice.start(card)

    def parse_event(self, text: str) -> Event:
        return rules.parse_event(text)

    def playing(self, state: Practice) -> bool:
        return state.phase is not Phase.OVER

    def cursor_seat(self, state: Practice) -> Seat | None:
        return Seat.A if state.phase is Phase.GUESSING else None

    def quiet(self, state: Practice) -> bool:
        return state.phase is Phase.AWAITING_CLUE

    def turn_marks(self, state: Practice) -> frozenset[int]:
        marks: set[int] = set()  # the words touched since the turn's clue
        while state.previous is not None:
            marks |= state.covered - state.previous.covered
            if isinstance(state.made_by, rules.Clue):
                break
            state = state.previous
        return frozenset(marks)

    def summary(self, state: Practice, rejected: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
        won = "playing" if state.won is None else "won" if state.won else "lost"
        return {
            "game": self.name,
            "status": won,
            "phase": state.phase.value,
            "covered": sorted(state.covered),
            "agents_left": state.agents_left,
            "rejected": list(rejected),
        }

    def view(self, state: Practice, seat: Seat, context: Context) -> AnyView:
        from .views import for_seat

        return for_seat(state, seat, context)


GAME = PracticeGame()
