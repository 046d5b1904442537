"""Codenames Duet behind the games seam: the rules of `keystand.rules` (`rules.duet`),
its screens (`views`), its JSON (`summary`), its settings (`settings`: the
mission, the clue order, the first clue).

Seats: A and B, each with its own side of the key card. Keys: clue gives the
clue (in sudden death "I am guessing"), pass ends the turn. Its journal start
record is the one Duet always wrote (card, mission, order, first clue), with the
game's name and rules version added.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from keystand.drivers.inputs import InputEvent
from keystand.drivers.inputs import parse_script as parse_input_script
from keystand.drivers.inputs.script import ScriptLineError

from ... import rules
from ...rules import Card, Mission, Seat
from ...rules.duet import READS_TABLE, RULES_VERSION, Duet, Outcome, Phase, Rejection, Status
from ...script import ScriptError, parse_script
from .. import Context, Game, HistoryEntry, KeySides, Options, Played, Step, refused
from . import summary
from .campaign import CAMPAIGN
from .settings import FIRST, MISSION, ORDER, SETTINGS

if TYPE_CHECKING:
    from keystand.layouts import AnyView

# RULES_VERSION (the rules' own): bumped when a change would replay an old event
# list to a different state. A start record of an older version replays by it.
__all__ = ["GAME", "RULES_VERSION", "DuetGame"]


class DuetGame(Game[Card, Duet, rules.Event, Outcome]):
    name = "duet"
    rules_version = RULES_VERSION
    card_type = Card
    state_type = Duet
    # The entries every game has keep their places (docs/screens.md "What a seat sees", the menu):
    # counted down from the top or up from the bottom, the same presses reach them
    # in every game; the game's own settings lie between.
    menu_items = (
        "close",
        "new_game",
        "penalty",
        "mission",
        "order",
        "first_clue",
        "campaign",
        "new_campaign",
        "language",
        "history",
        "game",
    )
    settings = SETTINGS
    record = CAMPAIGN  # the team's campaign: its entries are "campaign" and "new_campaign"
    legend = summary.BOARD_LEGEND
    words = ("duet", "mission", "sudden", "assassin", "campaign")
    # (no turn timer: Duet's time is its bank of turns; a clue's number is said aloud)

    def generate(self, seed: int | None = None) -> Card:
        return rules.generate(seed)

    def start(self, card: Card, options: Options | None = None) -> Duet:
        options = options or Options()
        return Duet.start(
            card,
            options.get(MISSION),
            loose_order=options.get(ORDER),
            first=options.get(FIRST),
        )

    def parse_event(self, text: str) -> rules.Event:
        return rules.parse_event(text)

    def script(self, data: bytes | str, *, source: str = "script") -> list[Step]:
        return [Step(s.line, s.event) for s in parse_script(data, source=source)]

    def input_script(
        self, data: bytes | str, *, source: str = "script"
    ) -> list[tuple[int, InputEvent | float | Played[rules.Event]]]:
        # Duet's lines are the input drivers' own (clue A, pass B): played as inputs.
        try:
            return list(parse_input_script(data, source=source))
        except ScriptLineError as e:
            raise ScriptError(e.detail, line=e.line, source=source) from None

    def start_record(self, state: Duet) -> dict[str, Any]:
        return {
            "game": self.name,
            "rules": state.rules_version,
            "card": state.card.text,
            "mission": str(state.mission),
            "loose": state.loose_order,
            "first": state.first.value if state.first else None,
        }

    def from_start_record(self, head: dict[str, Any]) -> Duet:
        card = Card.parse(str(head["card"]))
        mission = Mission.parse(str(head["mission"]))
        first = Seat(head["first"]) if head.get("first") else None
        # A game journaled before version 2 goes on by the rules it was started under
        # (games.of_record refused a version this keystand does not know).
        return Duet.start(
            card,
            mission,
            loose_order=bool(head.get("loose", False)),
            first=first,
            rules_version=int(head.get("rules", 1)),
        )

    def playing(self, state: Duet) -> bool:
        return state.status is Status.PLAYING

    def options_of(self, state: Duet) -> Options:
        return (
            Options()
            .with_(MISSION, state.mission)
            .with_(ORDER, state.loose_order)
            .with_(FIRST, state.first)
        )

    def cursor_seat(self, state: Duet) -> Seat | None:
        if state.phase in (Phase.GUESSING, Phase.SUDDEN_DEATH):
            return state.guesser
        # Once the giver is known, the guesser's first touch gives the clue (rules
        # version 2): it may pick its word before anyone presses a key.
        known = state.clue_giver is not None and state.rules_version >= READS_TABLE
        if state.phase is Phase.AWAITING_CLUE and known:
            assert state.clue_giver is not None
            return state.clue_giver.partner
        return None

    def quiet(self, state: Duet) -> bool:
        return state.phase is Phase.AWAITING_CLUE

    def clue_by(self, state: Duet, event: rules.Event) -> Seat | None:
        if state.phase is not Phase.AWAITING_CLUE:
            return None  # in sudden death the clue key says "I am guessing"
        if isinstance(event, rules.Clue):
            return event.seat
        if isinstance(event, rules.Touch):  # the first guess gives the known giver's clue
            _, result = state.apply(event)
            return None if isinstance(result, Rejection) else state.clue_giver
        return None

    def turn_marks(self, state: Duet) -> frozenset[int]:
        return state.turn_marks

    def summary(self, state: Duet, rejected: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
        return summary.state_json(state, rejected)

    def history_entry(self, state: Duet) -> HistoryEntry:
        return HistoryEntry(
            str(state.mission),  # the campaign counts a win under its mission
            state.status.value if state.status.value != "playing" else "abandoned",
            state.reason.value if state.reason else None,
            state.score,
            state.card.code,
            (("turns_used", state.turns_used), ("agents_found", state.agents_found)),
        )

    def score(self, state: Duet) -> int | None:
        return state.score

    def key_event(self, state: Duet, seat: Seat, key: str) -> rules.Event | None:
        return rules.Clue(seat) if key == "clue" else rules.Pass(seat)

    def key_label(self, state: Duet, seat: Seat, key: str) -> str | None:
        event = self.key_event(state, seat, key)
        if event is None or refused(state.apply(event)[1]):
            return None
        if key == "pass":
            return "end_turn"
        return "arm" if state.phase is Phase.SUDDEN_DEATH else "clue"

    def act_event(self, state: Duet, verb: str, seat: Seat | None) -> rules.Event | None:
        if verb == "clue" and seat is not None:
            return rules.Clue(seat)
        if verb == "pass" and seat is not None:
            return rules.Pass(seat)
        return rules.Undo() if verb == "undo" else rules.Penalty()

    def penalty_event(self, state: Duet) -> rules.Event | None:
        return rules.Penalty()

    def key_sides(self, card: Card) -> KeySides:
        return KeySides(
            about="Duet key card: both sides in table order, as seat A sees the table "
            "(row 0 farthest from seat A, column 0 seat A's leftmost). Seat B sits across "
            "the table: its screen shows its side turned a half turn (row 4 at the top, "
            "column 4 at the left).",
            sides=tuple(
                (f"seat {seat.value}'s side", "".join(k.value for k in card.side(seat)))
                for seat in Seat
            ),
            legend="G agent, X assassin, . bystander",
        )

    def text_board(self, state: Duet) -> str:
        return summary.board(state)

    def play_lines(self, state: Duet, events: int) -> list[str]:
        d = summary.state_json(state)
        reason = f" ({d['reason']})" if d["reason"] else ""
        lines = [f"mission {state.mission}, {events} events: {d['status']}{reason}"]
        if d["score"] is not None:
            lines.append(f"score {d['score']}")
        giver, guesser = d["clue_giver"] or "-", d["guesser"] or "-"
        lines.append(f"phase {d['phase']}, clue giver {giver}, guesser {guesser}")
        lines.append(
            f"turns left {d['turns_left']}, mistakes left {d['mistakes_left']}, "
            f"agents found {d['agents_found']}/15, passes {d['passes']}"
        )
        return lines

    def state_lines(self, state: Duet, game_id: str) -> list[str]:
        d = summary.state_json(state)
        why = f": {d['reason'].replace('_', ' ')}" if d["reason"] else ""  # lost: how
        return [
            f"game {game_id}: {d['status']}{why}, {d['phase']}",
            f"turns left {d['turns_left']}, mistakes left {d['mistakes_left']}",
        ]

    def view(self, state: Duet, seat: Seat, context: Context) -> AnyView:
        from . import views

        return views.for_seat(state, seat, context)


GAME = DuetGame()
