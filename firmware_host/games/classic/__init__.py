"""Classic Codenames behind the games seam: the rules of `keystand.rules.classic`,
the screens of `keystand.games.classic.views`.

On the stand the two screens take the two roles (docs/classic-screens.md): seat
A's panel faces the spymasters and shows the key, seat B's faces the operatives
and shows only what the table knows. So the keys: the spymasters' clue key
gives the clue of the team on turn with its number, chosen on their keys first
(`clue_numbers`: 0 to 9 and unlimited, as the rulebook has them; with the
menu's Clue number off, one press gives it without a number: no guess limit,
the group keeps the count), the operatives' pass key ends their turn (the
other two keys do nothing; the stand's hint says whose key it is); undo needs
both seats, as in Duet. The penalty from the menu needs a word: the next touch
names the other team's word its spymaster covers. A script names every event
in full (`clue red 2`, `penalty 1 3`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ...rules import Seat
from ...rules import classic as rules
from ...rules.classic_card import OTHER_AGENTS, STARTING_AGENTS, ClassicCard
from ...rules.classic_code import generate
from ...rules.classic_events import (
    MAX_NUMBER,
    UNLIMITED,
    Clue,
    Event,
    Pass,
    Penalty,
    Timeout,
    Touch,
    Undo,
    parse_event,
)
from .. import ClueNumbers, Context, Game, HistoryEntry, KeySides, Options
from .roles import OPERATIVES, SPYMASTERS
from .settings import NUMBERS, SETTINGS, TIMER

if TYPE_CHECKING:
    from keystand.layouts import AnyView


# A history line's reason codes as a player reads them (`--json` keeps the codes).
REASON_WORDS = {"assassin": "the assassin touched", "all_found": "all agents found"}


class ClassicGame(Game[ClassicCard, rules.Classic, Event, rules.Outcome]):
    name = "classic"
    rules_version = rules.RULES_VERSION
    card_type = ClassicCard
    state_type = rules.Classic
    menu_items = (  # the shared entries where Duet has them
        "close",
        "new_game",
        "penalty",
        "timer",
        "numbers",
        "language",
        "history",
        "game",
    )
    seat_names = (("spymasters", SPYMASTERS), ("operatives", OPERATIVES))
    settings = SETTINGS
    turn_timer = TIMER  # the rulebook's variant; off unless the menu sets a length
    words = ("classic", "spymaster", "operative", "red", "blue", "assassin")
    legend = "R red, U blue, . bystander, X assassin: the tile on a covered word; · open"
    # "Dein Hinweis muss aus 1 Wort und 1 Zahl bestehen", 0 ("Null-Hinweis") and
    # "unbegrenzt" among them; choosing starts at 1, a clue for one word, the
    # rulebook's smallest that counts words.
    clue_numbers = ClueNumbers(
        (*(str(n) for n in range(MAX_NUMBER + 1)), UNLIMITED.value), "1", switch=NUMBERS
    )

    def parse_seat(self, text: str) -> Seat:
        """A role's name, or the letter of the stand's seat whose panel faces it
        (docs/games.md "Classic on the stand": A the spymasters, B the operatives)."""
        names = dict(self.seat_names)
        given = text.strip().lower()
        if given in names:
            return names[given]
        if given in ("a", "b"):
            return Seat(given.upper())
        either = " or ".join(f"{name} ({seat.value})" for name, seat in self.seat_names)
        raise ValueError(f"seat {text!r}: a {self.name} seat is {either}")

    def generate(self, seed: int | None = None) -> ClassicCard:
        if seed is not None and seed < 0:
            raise ValueError(f"seed {seed}: expected 0 or more")
        return generate(None if seed is None else random.Random(seed))

    def start(self, card: ClassicCard, options: Options | None = None) -> rules.Classic:
        return rules.Classic.start(card)

    def parse_event(self, text: str) -> Event:
        return parse_event(text)

    def playing(self, state: rules.Classic) -> bool:
        return state.status is rules.Status.PLAYING

    def quiet(self, state: rules.Classic) -> bool:
        return state.phase is rules.Phase.AWAITING_CLUE

    def clue_by(self, state: rules.Classic, event: Event) -> Seat | None:
        # Both spymasters give their clues from the key: the spymasters' seat.
        awaiting = state.phase is rules.Phase.AWAITING_CLUE
        return SPYMASTERS if awaiting and isinstance(event, Clue) else None

    def turn_marks(self, state: rules.Classic) -> frozenset[int]:
        # Every touched word gets its tile from the spymaster ("Der Agentenchef deckt
        # diese Karte mit einem Plättchen ab"), since the turn's clue.
        marks: set[int] = set()
        while state.previous is not None:
            before = state.previous
            marks |= state.covered - before.covered
            if isinstance(state.made_by, Clue):
                break
            state = before
        return frozenset(marks)

    def last_outcome(self, state: rules.Classic) -> rules.Outcome | None:
        return state.last if isinstance(state.last, rules.Outcome) else None

    def summary(
        self, state: rules.Classic, rejected: Sequence[dict[str, Any]] = ()
    ) -> dict[str, Any]:
        return rules.summary(state, rejected)

    def history_entry(self, state: rules.Classic) -> HistoryEntry:
        over = state.status is rules.Status.OVER
        return HistoryEntry(
            self.name,
            "won" if over else "abandoned",  # classic always has a winner
            state.reason.value if state.reason else None,
            card_code=state.card.code,
            extra=(("winner", state.winner.value if state.winner else None),),
        )

    def ended_words(self, entry: dict[str, Any]) -> str:
        """ "red won: all agents found", "red won: the assassin touched"."""
        reason = entry.get("reason")
        why = REASON_WORDS.get(str(reason), str(reason).replace("_", " ")) if reason else None
        said = f"{entry['winner']} won" if entry.get("winner") else str(entry.get("result", "?"))
        return f"{said}: {why}" if why else said

    def key_event(self, state: rules.Classic, seat: Seat, key: str) -> Event | None:
        team = state.turn
        if team is None:
            return None
        if key == "clue" and seat is SPYMASTERS:
            return Clue(team)
        if key == "pass" and seat is OPERATIVES:
            return Pass(team)
        return None

    def numbered_clue(self, state: rules.Classic, seat: Seat, number: str) -> Event | None:
        team = state.turn
        if team is None or seat is not SPYMASTERS:
            return None
        return Clue(team, UNLIMITED if number == UNLIMITED.value else int(number))

    def act_event(self, state: rules.Classic, verb: str, seat: Seat | None) -> Event | None:
        if verb == "undo":
            return Undo()
        team = state.turn
        if team is None:
            return None
        return Clue(team) if verb == "clue" else Pass(team) if verb == "pass" else None

    def touch_event(self, state: rules.Classic, row: int, col: int, *, penalty: bool) -> Event:
        return Penalty(row, col) if penalty else Touch(row, col)

    def penalty_event(self, state: rules.Classic) -> Event | None:
        if state.phase is rules.Phase.GUESSING and not state.guesses:
            return None  # the other spymaster's next touch names the word
        # No cover is possible now; the rules judge the phase and the guesses before
        # the word, so any word gets the refusal that says why (no clue, too late).
        return Penalty(0, 0)

    def turn_of(self, state: rules.Classic) -> object:
        return state.turn

    def timeout_event(self, state: rules.Classic) -> Event:
        return Timeout(state.team)

    def timer_step(self, seconds: int) -> int:
        from ...layouts.classic import timer_shown  # the screens' own steps

        return timer_shown(seconds)

    def play_lines(self, state: rules.Classic, events: int) -> list[str]:
        d = self.summary(state)
        won = f", {d['winner']} wins ({d['reason']})" if d.get("winner") else ""
        lines = [f"{self.name}, {events} events: {d['status']}{won}"]
        for key, value in d.items():
            if key not in ("status", "winner", "reason", "covered", "rejected"):
                lines.append(_field_text(key, value))
        return lines

    def state_lines(self, state: rules.Classic, game_id: str) -> list[str]:
        d = self.summary(state)
        won = f", {d['winner']} wins ({d['reason']})" if d.get("winner") else ""
        turn = f", {d['turn']}'s turn" if d.get("turn") else ""
        lines = [f"{self.name} game {game_id}: {d['status']}{won}, {d['phase']}{turn}"]
        if "agents_left" in d:
            lines.append(_field_text("agents_left", d["agents_left"]))
        return lines

    def key_sides(self, card: ClassicCard) -> KeySides:
        starting = card.starting
        return KeySides(
            about="Classic key card: the spymasters' key in table order, as the spymasters "
            "see the grid (row 0 farthest from them, column 0 their leftmost). The "
            "operatives sit across the table.",
            sides=(("the spymasters' key", "".join(k.value for k in card.keys)),),
            legend=f"R red agent, U blue agent, . bystander, X assassin; {starting.value} "
            f"starts ({STARTING_AGENTS} agents, {starting.other.value} {OTHER_AGENTS})",
        )

    def view(self, state: rules.Classic, seat: Seat, context: Context) -> AnyView:
        from . import views

        build = views.spymasters if seat is SPYMASTERS else views.operatives
        return build(state, context)


GAME = ClassicGame()


def _field_text(key: str, value: object) -> str:
    """One field of the summary as a line of words: "guesses left 2", "turn -", a
    count per team as "agents left: red 8, blue 9"."""
    name = key.replace("_", " ")
    if isinstance(value, dict):
        return f"{name}: {', '.join(f'{k} {v}' for k, v in value.items())}"
    return f"{name} {value if value is not None else '-'}"
