"""The games seam: each game found by name, its journal start record, old Duet
journals, and the stand and store playing classic through the same code as Duet."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from keystand import games, screens
from keystand.drivers.display import SimPanel
from keystand.drivers.inputs import KeyName, Press, Touch
from keystand.games.classic.settings import NUMBERS
from keystand.journal import encode
from keystand.menu import entry_name
from keystand.rules import Clue, Seat, generate
from keystand.rules.classic import Classic
from keystand.rules.classic_card import ClassicCard
from keystand.rules.classic_events import parse_event
from keystand.rules.duet import Duet
from keystand.stand import Item, Settings, Stand
from keystand.store import Store

CODE = "9CY-EPF-ZXQ"  # blue starts; 0 0 blue, 1 0 red, 1 3 the assassin
CLASSIC = ClassicCard.from_code(CODE)


def test_games_by_name() -> None:
    assert games.get("duet").name == "duet" and games.get("Classic").name == "classic"
    with pytest.raises(games.GameError, match="game 'chess': expected one of duet, classic"):
        games.get("chess")
    assert games.of_state(Duet.start(generate(1))).name == "duet"
    assert games.of_state(Classic.start(CLASSIC)).name == "classic"


def test_a_start_record_names_its_game_and_rules_version(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.start_game(Classic.start(CLASSIC))
    store.record(parse_event("clue blue 2"))
    store.close()
    first = (tmp_path / "current.journal").read_bytes().splitlines()[0]
    head = json.loads(first.split(b" ", 4)[4])
    assert (head["game"], head["rules"], head["card"]) == ("classic", 1, CLASSIC.text)
    resumed = Store(tmp_path).resume()
    assert resumed is not None
    assert resumed.state == Classic.replay(CLASSIC, [parse_event("clue blue 2")])


def test_a_journal_from_before_games_is_duet(tmp_path: Path) -> None:
    card = generate(5)
    start = {"t": "start", "id": "old1", "at": "", "card": card.text, "mission": "9-9"}
    (tmp_path / "current.journal").write_bytes(
        encode(0, start) + encode(1, {"t": "event", "e": "clue A", "at": ""})
    )
    resumed = Store(tmp_path).resume()
    assert resumed is not None and resumed.game_id == "old1"
    # Journaled before rules version 2 (no version named: 1): it goes on by version 1.
    assert resumed.state == Duet.replay(card, events=[Clue(Seat.A)], rules_version=1)
    assert "duet" in games.get("duet").start_record(resumed.state).values()


def test_a_duet_game_of_an_older_rules_version_goes_on_by_its_rules(tmp_path: Path) -> None:
    """docs/rules.md "What the table says without a key": a game journaled under
    version 1 (before the stand read the table) resumes after an update and plays
    on by version 1, its start record still saying so; a new game is version 2."""
    card = generate(5)
    start = {"t": "start", "id": "v1", "at": "", "game": "duet", "rules": 1}
    start |= {"card": card.text, "mission": "9-9", "loose": False, "first": None}
    events = ["clue A", "touch 0 0", "pass B"]
    (tmp_path / "current.journal").write_bytes(
        encode(0, start)
        + b"".join(encode(n, {"t": "event", "e": e, "at": ""}) for n, e in enumerate(events, 1))
    )
    stand = Stand(Store(tmp_path))
    stand.boot()
    assert stand.faults.repaired is None and stand.state.rules_version == 1
    giver = stand.state.clue_giver
    assert giver is Seat.B  # known, but version 1 waits for the clue key
    assert stand.game.start_record(stand.state)["rules"] == 1
    stand.handle(Touch(2, 2), 0.0)
    assert stand.state.last.reason.value == "no_clue"
    stand.new_game()
    assert stand.state.rules_version == 2
    assert stand.game.start_record(stand.state)["rules"] == 2


def test_a_rules_version_this_keystand_does_not_know_is_not_resumed(tmp_path: Path) -> None:
    start = {
        "t": "start",
        "id": "g",
        "at": "",
        "game": "classic",
        "rules": 99,
        "card": CLASSIC.text,
    }
    (tmp_path / "current.journal").write_bytes(encode(0, start))
    stand = Stand(Store(tmp_path))
    stand.boot()  # kept aside, and a new game dealt
    assert stand.faults.repaired is not None and stand.faults.repaired.value == "new_game"
    assert list((tmp_path / "games").glob("unreadable-*.journal"))


def classic_stand(root: Path) -> Stand:
    stand = Stand(Store(root), settings=Settings(game="classic"), new_card=lambda: CLASSIC)
    stand.boot()
    return stand


def test_the_stand_plays_classic_keys_and_touches(tmp_path: Path) -> None:
    stand = classic_stand(tmp_path)
    assert isinstance(stand.state, Classic) and stand.state.card == CLASSIC
    stand.handle(Press("B", KeyName.CLUE), 0.0)  # the operatives give no clue
    assert stand.state.phase.value == "awaiting_clue"
    # The spymasters do: its number first (Clue…, +1), then the clue with it.
    for k, key in enumerate((KeyName.CLUE, KeyName.CLUE)):
        stand.handle(Press("A", key), 0.1 + k / 100)
    assert stand.state.clue is None and stand.choosing.numbering == {Seat.A: "2"}
    stand.handle(Press("A", KeyName.MENU), 0.15)  # "Clue 2"
    assert str(stand.state.clue) == "clue blue 2" and not stand.choosing.numbering
    stand.handle(Touch(0, 0), 0.2)
    stand.handle(Press("A", KeyName.PASS), 0.3)  # not the spymasters' key
    assert stand.state.turn.value == "blue" and stand.state.guesses_left == 2
    stand.handle(Press("B", KeyName.PASS), 0.4)
    assert stand.state.turn.value == "red"
    journal = (tmp_path / "current.journal").read_text()
    assert "clue blue 2" in journal and "touch 0 0" in journal and "pass blue" in journal
    again = Stand(Store(tmp_path))
    again.boot()
    assert again.state == stand.state
    assert again.state.log[0] == parse_event("clue blue 2")  # replayed with its number


def test_with_clue_numbers_off_one_press_gives_the_clue_with_none(tmp_path: Path) -> None:
    stand = Stand(
        Store(tmp_path),
        settings=Settings(game="classic").choosing(NUMBERS, False),
        new_card=lambda: CLASSIC,
    )
    stand.boot()
    assert stand.labels(Seat.A)[KeyName.CLUE] == ("clue", False)  # "Clue given", as before
    stand.handle(Press("A", KeyName.CLUE), 0.0)
    assert str(stand.state.clue) == "clue blue" and stand.state.guesses_left is None
    assert not stand.choosing.numbering


def test_classic_penalty_from_the_menu_then_the_word(tmp_path: Path) -> None:
    stand = classic_stand(tmp_path)
    stand.handle(games.Played(parse_event("clue blue 2")), 0.0)
    stand.handle(Press("A", KeyName.MENU, long=True), 0.1)
    names = tuple(entry_name(e) for e in stand.menus[Seat.A].items)
    assert names == games.get("classic").menu_items
    while stand.menus[Seat.A].item is not Item.PENALTY:
        stand.handle(Press("A", KeyName.PASS), 0.2)
    stand.handle(Press("A", KeyName.MENU), 0.3)  # once: asks again
    stand.handle(Press("A", KeyName.MENU), 0.4)
    assert stand.penalty_pending and Seat.A not in stand.menus
    panel = SimPanel("epd2in7_V2", speed=0)
    assert screens.render(stand, Seat.B, panel) is not None  # "Red covers a word"
    stand.handle(Touch(0, 0), 0.5)  # a blue word: refused, still pending
    assert stand.penalty_pending and not stand.state.covered
    stand.handle(Touch(1, 0), 0.6)  # red covers its own word
    assert not stand.penalty_pending and stand.state.covered == {5}
    assert stand.state.turn.value == "red"
    assert "penalty 1 0" in (tmp_path / "current.journal").read_text()


def test_classic_history_entry(tmp_path: Path) -> None:
    stand = classic_stand(tmp_path)
    for line in ("clue blue 1", "touch 1 3"):  # blue touches the assassin
        stand.handle(games.Played(parse_event(line)), 0.0)
    stand.handle(Press("A", KeyName.CLUE), 100.0)  # on the end screen: the next game
    (entry,) = stand.store.history()
    assert entry["game"] == "classic" and entry["winner"] == "red"
    assert (entry["result"], entry["reason"], entry["card_code"]) == ("won", "assassin", CODE)
    # Classic keeps no record: its win counts in no campaign.
    assert games.get("classic").record is None
    assert not (tmp_path / "campaign.json").exists()
    from io import StringIO

    from keystand.cli import main

    out = StringIO()
    assert main(["history", "--state-dir", str(tmp_path)], out=out) == 0
    assert f"classic  red won: the assassin touched  card {CODE}" in out.getvalue()
