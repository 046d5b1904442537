"""Each key's label says what the key does now (issue 31, items 1 and 2).

The label beside a key is `Stand.labels`; what a press does is `Stand.meaning`
carried out by `_game_key` (or the menu's `press`). These tests press every key
of both seats, short and held, at every step of scripted games (Duet on a
keys-only stand and on a touch stand, classic with its clue numbers and
without, the menu, the end, the grid's calibration) on a copy of the stand, and
check that the press did what its label says and nothing else: a key labelled
"End turn" ends the turn and journals no touch, a key labelled "Clue 2" journals
the clue for 2, a key with no label journals nothing, and so on.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from real_inputs import as_played
from test_layouts import HELD_WORDS

from keystand import games, layouts, profile
from keystand.drivers.inputs import KeyName, Press, Touch, parse_line
from keystand.drivers.inputs.touchfilter import Orientation
from keystand.games.classic.settings import NUMBERS
from keystand.games.duet.settings import MISSION
from keystand.rules import Card, Mission, Seat
from keystand.rules.classic_card import Team
from keystand.rules.classic_events import Clue, Timeout
from keystand.rules.duet import Phase
from keystand.stand import Settings, Stand

CODE = "5VHK-ZHXC-WE7S"


@dataclass
class MemoryStore:
    """The stand's store, in memory: what was journaled, in order (a copy of the
    stand is a copy of its journal, so a press can be tried and thrown away)."""

    records: list[object] = field(default_factory=list)
    game_id: str = "g"

    def resume(self) -> None:
        return None

    def start_game(self, state: object, *, previous: object = None) -> None:
        self.records.append(("start", state))

    def record(self, event: object, state: object = None) -> None:
        self.records.append(event)

    def listed(self) -> bool:
        return False

    def list_finished(self, state: object) -> None:
        pass

    def load_settings(self) -> None:
        return None

    def save_settings(self, data: dict[str, Any]) -> None:
        pass

    def history(self, limit: int | None = None) -> list[dict[str, Any]]:
        return []

    def recover(self, now: float) -> bool:
        return False  # memory never fails a write


def stand(
    game: str = "duet", *, cursor_keys: bool = False, grid: bool = False, numbers: bool = True
) -> Stand:
    card: object = games.get("classic").generate(7) if game == "classic" else Card.from_code(CODE)
    s = Stand(MemoryStore(), settings=Settings().choosing(NUMBERS, numbers), new_card=lambda: card)  # type: ignore[arg-type]
    s.boot(game)
    s.cursor_keys = cursor_keys
    if grid:
        s.calibration.grid = Orientation(0)
    return s


def journal(s: Stand) -> list[object]:
    return list(s.store.records)  # type: ignore[attr-defined]


def check(word: str | None, seat: Seat, before: Stand, after: Stand) -> None:
    """That pressing a key labelled `word` did that, and nothing else."""
    new = journal(after)[len(journal(before)) :]
    kinds = [type(e).__name__ for e in new]
    in_menu = seat in before.menus
    numbers = before.game.clue_numbers
    if word is None:
        assert new == [], "a key with no label journaled something"
        assert (
            set(after.menus.open) == set(before.menus.open)
            and after.choosing.picking == before.choosing.picking
        )
        assert after.choosing.numbering == before.choosing.numbering
    elif word == "number":  # "Clue…": the number first, nothing journaled
        assert new == [] and numbers is not None
        assert after.choosing.numbering == {**before.choosing.numbering, seat: numbers.start}
    elif word.startswith("give:"):  # "Clue 2": the clue, with the number the label names
        assert kinds == ["Clue"] and seat not in after.choosing.numbering
        assert str(new[0].number) == word.removeprefix("give:") == before.choosing.numbering[seat]
    elif word in ("plus", "minus") and seat in before.choosing.numbering:
        assert new == [] and numbers is not None
        at = numbers.values.index(before.choosing.numbering[seat])
        assert after.choosing.numbering[seat] == numbers.values[at + (1 if word == "plus" else -1)]
    elif word == "back" and seat in before.choosing.numbering:
        assert new == [] and seat not in after.choosing.numbering and after.state == before.state
    elif word in ("clue", "arm"):
        assert kinds == ["Clue"]
        assert getattr(new[0], "number", None) is None  # one press: no number
        if word == "arm":
            assert after.state.armed is seat
    elif word == "end_turn":
        assert kinds == ["Pass"], "the end-turn key did more (or less) than end the turn"
    elif word == "undo":
        assert (new == [] and after.undo.request.seat is seat) or kinds == ["Undo"]
    elif word == "menu":
        assert new == [] and seat in after.menus
    elif word == "pick":
        assert new == [] and seat in after.choosing.picking and after.cursor_of(seat) is not None
    elif word in ("next", "down") and not in_menu:
        assert new == [] and after.cursor_of(seat) != before.cursor_of(seat)
    elif word == "back" and not in_menu:
        assert new == [] and seat not in after.choosing.picking
    elif word == "guess":
        at = before.cursor_of(seat)
        assert kinds in ([], ["Touch"])  # [] when the rules refuse the word
        if new:
            assert before.game.grid.row_col(at) == (new[0].row, new[0].col)
            assert seat not in after.choosing.picking
    elif word == "new_game":
        assert new and new[0][0] == "start"
    elif word == "cancel":
        assert new == [] and after.calibration.asking is None
    else:
        assert in_menu, f"{word!r} outside the menu"
        menu, now = before.menus[seat], after.menus.open.get(seat)
        paging = menu.record is not None  # the campaign's pages: up and down turn them
        if word == "up" and paging:
            assert now is not None and now.page == menu.page - 1
        elif word == "down" and paging:
            assert now is not None and now.page == menu.page + 1
        elif word == "up":
            assert now is not None and now.index == (menu.index - 1) % len(menu.items)
        elif word == "down":
            assert now is not None and now.index == (menu.index + 1) % len(menu.items)
        elif word == "back":
            shown = menu.history is not None or menu.record is not None
            assert now is None or (shown and now.history is None and now.record is None)
        elif word in ("newer", "older"):
            assert now is not None and now.page == menu.page + (1 if word == "older" else -1)
        elif word in ("plus", "minus", "done", "next_field"):
            assert now is not None and menu.editing is not None
            if word == "done":
                assert now.editing is None
            if word == "next_field":
                assert now.editing == "mistakes"
        else:
            assert word == "choose"


def try_every_key(s: Stand, now: float) -> Iterator[tuple[Seat, KeyName, bool, str | None]]:
    """Each key of each seat pressed short and held on a copy of `s`, checked."""
    for seat in Seat:
        labels = s.labels(seat)
        for key in KeyName:
            word, held = labels[key]
            if held:
                assert word in HELD_WORDS, f"{word!r} labelled as held"
            for long in (False, True):
                said = s.meaning(seat, key, long)
                if long is False:
                    assert said == (None if held else word)
                trial = copy.deepcopy(s)
                before = copy.deepcopy(s)
                trial.handle(Press(seat.value, key, long), now)
                check(said, seat, before, trial)
                yield seat, key, long, said


def play(s: Stand, lines: list[str]) -> set[str]:
    """`lines` played on `s`, every key tried before each; the labels seen."""
    seen: set[str] = set()
    for k, line in enumerate(lines):
        for *_, word in try_every_key(s, float(k)):
            if word:
                seen.add(word)
        s.handle(parse_line(line), float(k) + 0.5)
    for *_, word in try_every_key(s, float(len(lines))):
        if word:
            seen.add(word)
    return seen


def whole_game(code: str) -> list[str]:
    """A Duet game of the rules' lines: a clean turn, a miss, a pass, a refused
    pass, sudden death and a loss in it."""
    card = Card.from_code(code)
    a_agents = sorted(card.agents(Seat.A))
    b_side = card.side(Seat.B)
    bystander_b = next(i for i, k in enumerate(b_side) if k.value == "." and i not in a_agents)
    lines = ["clue A", f"touch {a_agents[0] // 5} {a_agents[0] % 5}", "pass B"]
    lines += ["clue B", f"touch {bystander_b // 5} {bystander_b % 5}"]
    return lines


KEYS_ONLY_MENU = [
    "press A menu long",
    "press A pass",
    "press A pass",
    "press A pass",  # Mission
    "press A menu",
    "press A clue",
    "press A undo",
    "press B menu long",
    "press B clue",
    "press B clue",  # History
    "press B menu",
    "press B pass",
    "press B undo",
    "press B undo",
]


def test_a_keys_only_game_does_what_each_label_says() -> None:
    lines = as_played(whole_game(CODE), cursor=True)
    seen = play(stand(cursor_keys=True), lines + KEYS_ONLY_MENU)
    assert {"clue", "pick", "next", "down", "guess", "end_turn", "undo", "menu"} <= seen
    assert {"up", "down", "choose", "back", "newer", "older"} <= seen


def test_picking_and_going_back_journal_nothing_and_end_turn_never_guesses() -> None:
    s = stand(cursor_keys=True)
    s.handle(Press("A", KeyName.CLUE), 0.0)
    assert s.labels(Seat.B)[KeyName.CLUE] == ("pick", False)
    assert s.labels(Seat.B)[KeyName.PASS] == (None, False)  # no guess yet: no end turn
    s.handle(Press("B", KeyName.CLUE), 1.0)  # pick word
    assert [s.labels(Seat.B)[k][0] for k in KeyName] == ["next", "down", "back", "guess"]
    s.handle(Press("B", KeyName.UNDO), 2.0)  # back
    agent = min(s.state.card.agents(Seat.A))
    s.choosing.cursors[Seat.B] = agent
    s.handle(Press("B", KeyName.CLUE), 3.0)
    s.handle(Press("B", KeyName.MENU), 4.0)  # guess: an agent
    assert s.labels(Seat.B)[KeyName.PASS] == ("end_turn", False)
    records = len(journal(s))
    s.handle(Press("B", KeyName.PASS), 5.0)  # end turn, pressed short
    new = journal(s)[records:]
    assert [type(e).__name__ for e in new] == ["Pass"]
    assert not any(isinstance(e, Touch) for e in new)


def test_a_touch_stand_does_what_each_label_says() -> None:
    lines = whole_game(CODE)
    played = [
        f"press {ln.split()[1]} {ln.split()[0]}" if ln.split()[0] in ("clue", "pass") else ln
        for ln in lines
    ]
    seen = play(stand(grid=True), [*played, "press A menu long", "press A clue", "press A menu"])
    assert {"clue", "end_turn", "undo", "menu"} <= seen
    assert not {"pick", "next", "guess"} & seen  # a grid names the words: no cursor


def test_sudden_death_labels_the_clue_key_i_guess() -> None:
    card = Card.from_code(CODE)
    s = Stand(
        MemoryStore(), settings=Settings().choosing(MISSION, Mission(1, 1)), new_card=lambda: card
    )  # type: ignore[arg-type]
    s.boot()
    agent = min(card.agents(Seat.A))
    s.handle(Press("A", KeyName.CLUE), 0.0)
    s.handle(Touch(agent // 5, agent % 5), 1.0)
    s.handle(Press("B", KeyName.PASS), 2.0)  # the bank's last token: sudden death
    assert s.state.phase is Phase.SUDDEN_DEATH
    assert {s.labels(seat)[KeyName.CLUE] for seat in Seat} == {("arm", False)}
    list(try_every_key(s, 3.0))
    s.handle(Press("A", KeyName.CLUE), 4.0)  # A guesses
    list(try_every_key(s, 5.0))


def test_the_end_held_and_shown_label_what_undo_and_clue_do() -> None:
    s = stand()
    card = s.state.card
    assassin = next(i for i, k in enumerate(card.side(Seat.A)) if k.value == "X")
    s.handle(Press("A", KeyName.CLUE), 0.0)
    s.handle(Touch(assassin // 5, assassin % 5), 1.0)  # lost: the end held back
    assert [s.labels(Seat.A)[k] for k in KeyName] == [
        (None, False),
        (None, False),
        ("undo", False),
        ("menu", True),
    ]
    list(try_every_key(s, 2.0))
    s.tick(1.0 + s.settings.reveal_delay)  # both sides shown
    assert s.labels(Seat.B)[KeyName.CLUE] == ("new_game", False)
    assert s.labels(Seat.B)[KeyName.UNDO] == (None, False)
    list(try_every_key(s, 20.0))


def test_calibration_labels_undo_cancel() -> None:
    s = stand(grid=True)
    s.calibration.asking = Seat.A
    assert s.labels(Seat.A)[KeyName.UNDO] == ("cancel", False)
    list(try_every_key(s, 0.0))


def test_classic_labels_each_roles_keys() -> None:
    s = stand("classic", numbers=False)  # the menu's Clue number off: one press, "Clue given"
    spymasters, operatives = games.get("classic").seat_names[0][1], Seat.B
    assert s.labels(spymasters)[KeyName.CLUE] == ("clue", False)
    assert s.labels(operatives)[KeyName.CLUE] == (None, False)  # the spymasters' key
    list(try_every_key(s, 0.0))
    s.handle(Press(spymasters.value, KeyName.CLUE), 1.0)
    assert s.labels(operatives)[KeyName.PASS] == (None, False)  # no guess yet
    list(try_every_key(s, 2.0))


def agent_touches(s: Stand, team: str, count: int) -> list[str]:
    """`count` touch lines of `team`'s agents not yet covered (classic)."""
    state = s.state
    cells = sorted(state.card.agents(Team(team)) - state.covered)[:count]
    return [f"touch {c // 5} {c % 5}" for c in cells]


def test_a_classic_game_with_clue_numbers_does_what_each_label_says() -> None:
    """The spymasters choose each clue's number on their keys (Clue…, +1, -1, Back,
    Clue N), through 0 and unlimited and past both ends; the operatives guess to
    the number plus one, which ends the turn; then the assassin, the end held and
    shown. Every key of both seats, pressed short and held, at every step."""
    s = stand("classic")
    first = s.state.team.value
    other = s.state.team.other.value
    lines = ["press A clue", "press A clue", "press A pass", "press A undo"]  # back: no clue
    lines += ["press A clue", "press A pass", "press A pass"]  # 0, and -1 at 0 does nothing
    lines += ["press A clue"] * 2 + ["press A menu"]  # Clue 2: three guesses
    seen = play(s, lines)
    assert str(s.state.clue) == f"clue {first} 2" and s.state.guesses_left == 3
    lines = agent_touches(s, first, 3)  # the third guess on 2 ends the turn
    seen |= play(s, lines)
    assert s.state.turn.value == other and s.state.phase.value == "awaiting_clue"
    lines = ["press A clue"] + ["press A clue"] * 10  # up to unlimited, and +1 past it
    lines += ["press A menu long"]  # Clue ∞, held: the clue, not the menu
    seen |= play(s, lines)
    assert str(s.state.clue) == f"clue {other} unlimited" and s.state.guesses_left is None
    lines = [*agent_touches(s, other, 4), "press B pass"]  # no limit: as long as they like
    lines += ["press A clue", "press A pass", "press A menu"]  # Clue 0: no limit either
    seen |= play(s, lines)
    assert str(s.state.clue) == f"clue {first} 0"
    assassin = s.state.card.assassin
    seen |= play(s, [f"touch {assassin // 5} {assassin % 5}"])  # the end, held back
    assert not s.playing and not s.revealed
    s.tick(100.0)  # both sides shown
    seen |= {word for *_, word in try_every_key(s, 100.0) if word}
    assert {"number", "plus", "minus", "back", "end_turn", "undo", "menu", "new_game"} <= seen
    assert {"give:0", "give:2", "give:unlimited"} <= seen
    records = [str(e) for e in journal(s) if not isinstance(e, tuple)]
    clues = [e for e in records if e.startswith("clue")]
    assert clues == [f"clue {first} 2", f"clue {other} unlimited", f"clue {first} 0"]


def test_the_number_on_the_label_is_the_number_journaled() -> None:
    """The confirming key's label is drawn from the meaning that is carried out: its
    words on the screen ("Clue 2", "Clue ∞") and the clue journaled agree."""
    from keystand.layouts import keys as key_labels
    from keystand.layouts.i18n import strings

    for steps, shown, journaled in (
        (1, "Clue 2", "2"),
        (0, "Clue 1", "1"),
        (9, "Clue ∞", "unlimited"),
    ):
        s = stand("classic")
        s.handle(Press("A", KeyName.CLUE), 0.0)
        for k in range(steps):
            s.handle(Press("A", KeyName.CLUE), 0.1 + k)
        word, held = s.labels(Seat.A)[KeyName.MENU]
        assert key_labels.text(strings("en"), layouts.KeyLabel(word, held)) == shown
        s.handle(Press("A", KeyName.MENU), 20.0)
        assert journal(s)[-1] == Clue(s.state.clue.team, s.state.clue.number)
        assert str(journal(s)[-1]) == f"clue {s.state.team.value} {journaled}"


def test_choosing_the_number_ends_with_the_turn_it_was_for() -> None:
    """The timer ends the turn while the spymasters choose: the number was for that
    team's clue, so the keys are the next team's again (Clue…), not its number."""
    s = stand("classic")
    s.handle(Press("A", KeyName.CLUE), 0.0)
    s.handle(Press("A", KeyName.CLUE), 1.0)
    team = s.state.team
    s.handle(games.Played(Timeout(team)), 2.0)
    assert s.state.team is team.other and not s.choosing.numbering
    assert s.labels(Seat.A)[KeyName.CLUE] == ("number", False)
    list(try_every_key(s, 3.0))


def test_a_failed_spymasters_panel_holds_the_numbered_clue() -> None:
    """Their panel fails while they choose: the clue needs their side, so the key
    that gives it loses its label and gives nothing until the panel is back."""
    s = stand("classic")
    s.handle(Press("A", KeyName.CLUE), 0.0)
    s.panel_health(Seat.A, "seat A: BUSY stayed high")
    assert s.labels(Seat.A)[KeyName.MENU] == (None, False)
    list(try_every_key(s, 1.0))
    s.handle(Press("A", KeyName.MENU), 2.0)
    assert s.state.clue is None and s.choosing.numbering == {Seat.A: "1"}
    s.panel_health(Seat.A, None)
    assert s.labels(Seat.A)[KeyName.MENU] == ("give:1", False)


def test_the_profile_and_the_layouts_name_the_same_edges() -> None:
    assert profile.KEY_EDGES == layouts.EDGES


@pytest.mark.parametrize("name", ["minimal", "touch-mpr121", "touch-serial", "desktop"])
def test_each_shipped_build_says_where_its_keys_are(name: str) -> None:
    p = profile.load(name)
    for seat_panel in p.panels.values():
        assert seat_panel.keys != "none"
        assert sorted(seat_panel.key_order) == sorted(profile.KEY_NAMES)


def write(tmp_path, text: str):
    path = tmp_path / "build.toml"
    path.write_text(text)
    return str(path)


KEYS_TABLE = """
[input.keys.A]
clue = 5
pass = 6
undo = 13
menu = 19
[input.keys.B]
clue = 12
pass = 16
undo = 20
menu = 21
"""


def test_a_keys_only_profile_must_say_where_its_keys_are(tmp_path) -> None:
    path = write(tmp_path, f'[input]\nkinds = ["keys"]\n{KEYS_TABLE}')
    with pytest.raises(profile.ProfileError) as e:
        profile.load(path)
    assert e.value.key == "panels.keys" and "say which edge" in e.value.detail
    path = write(tmp_path, f'[panels]\nkeys = "left"\n[input]\nkinds = ["keys"]\n{KEYS_TABLE}')
    assert profile.load(path).panels["A"].keys == "left"


@pytest.mark.parametrize(
    ("panels", "key", "says"),
    [
        ('keys = "left"\nkey_order = ["clue", "pass", "undo"]', "panels.key_order", "each of"),
        ('keys = "left"\nkey_order = ["clue", "clue", "undo", "menu"]', "panels.key_order", "once"),
        ('keys = "sideways"', "panels.keys", "sideways"),
        ('model = "epd2in9_V2"\nrotation = 0\nkeys = "left"', "panels.keys", "no room"),
    ],
)
def test_a_bad_key_place_is_one_line_naming_it(tmp_path, panels: str, key: str, says: str) -> None:
    path = write(tmp_path, f"[panels]\n{panels}\n")
    with pytest.raises(profile.ProfileError) as e:
        profile.load(path)
    assert e.value.key == key and says in e.value.detail
    assert "\n" not in str(e.value)


def test_the_known_guessers_first_pick_gives_the_clue_on_keys() -> None:
    """Rules version 2: once the giver is known, the guesser's first touch gives the
    clue; on keys only, its clue key picks a word before anyone presses clue."""
    s = stand(cursor_keys=True)
    card = s.state.card
    a_agent = min(card.agents(Seat.A))
    s.handle(Press("A", KeyName.CLUE), 0.0)  # A's clue: B guesses, then passes
    s.choosing.cursors[Seat.B] = a_agent
    s.handle(Press("B", KeyName.CLUE), 1.0)
    s.handle(Press("B", KeyName.MENU), 2.0)
    s.handle(Press("B", KeyName.PASS), 3.0)
    assert s.state.phase is Phase.AWAITING_CLUE and s.state.clue_giver is Seat.B
    assert s.labels(Seat.A)[KeyName.CLUE] == ("pick", False)  # A guesses next
    assert s.labels(Seat.B)[KeyName.CLUE] == ("clue", False)  # B may still press it
    list(try_every_key(s, 4.0))
    b_agent = min(card.agents(Seat.B) - {a_agent})
    s.handle(Press("A", KeyName.CLUE), 5.0)  # pick word
    s.choosing.cursors[Seat.A] = b_agent
    records = len(journal(s))
    s.handle(Press("A", KeyName.MENU), 6.0)  # guess: B's clue and A's first guess
    assert [type(e).__name__ for e in journal(s)[records:]] == ["Touch"]
    assert s.state.phase is Phase.GUESSING and s.state.guesser is Seat.A


def test_a_failed_panel_takes_the_labels_of_what_it_holds() -> None:
    s = stand()
    s.panel_health(Seat.B, "seat B: BUSY stayed high")
    assert s.labels(Seat.A)[KeyName.UNDO] == (None, False)  # B could not confirm it
    list(try_every_key(s, 0.0))
    s.handle(Press("A", KeyName.CLUE), 1.0)  # A's clue: B guesses (on the grid)
    agent = min(s.state.card.agents(Seat.A))
    s.handle(Touch(agent // 5, agent % 5), 2.0)
    s.handle(Press("B", KeyName.PASS), 3.0)  # B's clue is next: held while B's panel fails
    assert s.labels(Seat.B)[KeyName.CLUE] == (None, False)
    list(try_every_key(s, 4.0))
    s.panel_health(Seat.B, None)  # back: the labels too
    assert s.labels(Seat.B)[KeyName.CLUE] == ("clue", False)
    assert s.labels(Seat.A)[KeyName.UNDO] == ("undo", False)
