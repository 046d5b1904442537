"""The practice game behind the games seam: one package and one entry point.

Installed for a test by `practice_plugin.install` (a distribution's metadata
naming `practice = keystand_practice:GAME` in the `keystand.games` entry points),
the way a game packaged apart from keystand is found. docs/games.md walks
through it as the example of adding a game.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from keystand.drivers.inputs import InputEvent
from keystand.games import (
    ClueNumbers,
    Context,
    Game,
    KeySides,
    Options,
    Played,
    Step,
    event_lines,
    input_lines,
    refused,
)
from keystand.rules import Grid, Seat

from . import rules
from .rules import GRID, Event, Outcome, Phase, Practice, PracticeCard

if TYPE_CHECKING:
    from keystand.layouts import AnyView


class PracticeGame:
    name: str = "practice"
    rules_version: int = rules.RULES_VERSION
    menu_items: tuple[str, ...] = ("close", "new_game", "language", "history", "game")
    # (no penalty: its rules have none; the shared entries at the bottom keep their places)
    seat_names: tuple[tuple[str, Seat], ...] = (("A", Seat.A), ("B", Seat.B))
    has_timer: bool = False
    choices: tuple[str, ...] = ()
    legend: str = "G agent, . bystander, X assassin: a covered word's key; · open"
    grid: Grid = GRID
    clue_numbers: ClueNumbers | None = None  # its clue is one press

    def parse_seat(self, text: str) -> Seat:
        return Seat.parse(text)

    def parse_card(self, text: str) -> PracticeCard:
        return PracticeCard.parse(text)

    def card_from_code(self, code: str) -> PracticeCard:
        return PracticeCard.from_code(code)

    def generate(self, seed: int | None = None) -> PracticeCard:
        return PracticeCard.generate(seed)

    def owns(self, thing: object) -> bool:
        return isinstance(thing, PracticeCard | Practice)

    def start(self, card: PracticeCard, options: Options | None = None) -> Practice:
        return Practice.start(card)

    def parse_event(self, text: str) -> Event:
        return rules.parse_event(text)

    def script(self, data: bytes | str, *, source: str = "script") -> list[Step[Event]]:
        return event_lines(data, rules.parse_event, source=source)

    def input_script(
        self, data: bytes | str, *, source: str = "script"
    ) -> list[tuple[int, InputEvent | float | Played[Event]]]:
        return input_lines(data, rules.parse_event, grid=GRID, source=source)

    def start_record(self, state: Practice) -> dict[str, Any]:
        return {"game": self.name, "rules": self.rules_version, "card": state.card.text}

    def from_start_record(self, head: dict[str, Any]) -> Practice:
        return Practice.start(PracticeCard.parse(str(head["card"])))

    def playing(self, state: Practice) -> bool:
        return state.phase is not Phase.OVER

    def options_of(self, state: Practice) -> None:
        return None

    def cursor_seat(self, state: Practice) -> Seat | None:
        return Seat.A if state.phase is Phase.GUESSING else None

    def quiet(self, state: Practice) -> bool:
        return state.phase is Phase.AWAITING_CLUE

    def clue_by(self, state: Practice, event: Event) -> Seat | None:
        return None  # one key card both seats see: no clue needs one seat's screen

    def turn_marks(self, state: Practice) -> frozenset[int]:
        marks: set[int] = set()  # the words touched since the turn's clue
        while state.previous is not None:
            marks |= state.covered - state.previous.covered
            if isinstance(state.made_by, rules.Clue):
                break
            state = state.previous
        return frozenset(marks)

    def last_outcome(self, state: Practice) -> Outcome | None:
        return state.outcome

    def summary(self, state: Practice, rejected: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
        return {
            "game": self.name,
            "status": _status(state),
            "phase": state.phase.value,
            "covered": sorted(state.covered),
            "agents_left": state.agents_left,
            "rejected": list(rejected),
        }

    def history_entry(self, state: Practice) -> dict[str, Any]:
        result = _status(state)
        return {
            "mission": self.name,
            "result": "abandoned" if result == "playing" else result,
            "reason": None,
            "score": None,
            "card_code": state.card.code,
        }

    def score(self, state: Practice) -> int | None:
        return None

    def key_event(self, state: Practice, seat: Seat, key: str) -> Event | None:
        return rules.Clue() if key == "clue" else rules.Pass() if key == "pass" else None

    def key_label(self, state: Practice, seat: Seat, key: str) -> str | None:
        event = self.key_event(state, seat, key)
        if event is None or refused(state.apply(event)[1]):
            return None
        return "clue" if key == "clue" else "end_turn"

    def numbered_clue(self, state: Practice, seat: Seat, number: str) -> Event | None:
        return None

    def act_event(self, state: Practice, verb: str, seat: Seat | None) -> Event | None:
        return rules.parse_event(verb) if verb in ("clue", "pass", "undo") else None

    def touch_event(self, state: Practice, row: int, col: int, *, penalty: bool) -> Event:
        return rules.Touch(row, col)

    def penalty_event(self, state: Practice) -> Event | None:
        return None  # no penalty entry in its menu

    def turn_of(self, state: Practice) -> object:
        return None

    def timeout_event(self, state: Practice) -> Event:
        raise TypeError("practice has no turn timer")

    def timer_step(self, seconds: int) -> int:
        return seconds

    def key_sides(self, card: PracticeCard) -> KeySides:
        return KeySides(
            about="Practice key card: the one key both seats see, in table order as seat A "
            "sees the table (row 0 farthest from seat A, column 0 seat A's leftmost).",
            sides=(("the key", "".join(k.value for k in card.keys)),),
            legend="G agent, X assassin, . bystander",
        )

    def text_board(self, state: Practice) -> str:
        rows = []
        for r in range(GRID.rows):
            cells = [GRID.cell(r, c) for c in range(GRID.cols)]
            marks = [state.card.keys[i].value if i in state.covered else "·" for i in cells]
            rows.append("  " + " ".join(marks))
        return "\n".join(rows)

    def play_lines(self, state: Practice, events: int) -> list[str]:
        return [
            f"practice, {events} events: {_status(state)}",
            f"phase {state.phase.value}, agents left {state.agents_left}",
        ]

    def state_lines(self, state: Practice, game_id: str) -> list[str]:
        return [f"practice game {game_id}: {_status(state)}, {state.phase.value}"]

    def view(self, state: Practice, seat: Seat, context: Context) -> AnyView:
        from .views import for_seat

        return for_seat(state, seat, context)


def _status(state: Practice) -> str:
    return "playing" if state.won is None else "won" if state.won else "lost"


GAME: Game[PracticeCard, Practice, Event, Outcome] = PracticeGame()
