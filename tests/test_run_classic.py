"""`keystand run` playing classic: a script ends where `keystand play --game
classic` says, and the menu's Game entry switches the stand, kept across restarts."""

from __future__ import annotations

import json
from pathlib import Path

from command import keystand, run_script

from keystand.rules.classic import Classic
from keystand.rules.classic_card import ClassicCard
from keystand.rules.duet import Duet
from keystand.stand import Stand
from keystand.store import Store

CODE = "9CY-EPF-ZXQ"  # blue starts
GAME = """
clue blue 2
touch 0 0
touch 2 0      # a bystander: red's turn
clue red 1
press B pass   # the operatives' key: refused, no guess yet
touch 1 0
touch 1 1      # two guesses on 1: the turn ends by itself
press A clue   # the spymasters' key: blue's clue, no number
touch 0 1
undo
touch 0 3
press B pass
clue red unlimited
penalty 0 0    # refused: 0 0 is covered
touch 1 4
"""
SWITCH = "press A menu long\npress A clue\npress A menu\npress A menu\n"  # Game, confirmed


def state_json(state: Path) -> dict[str, object]:
    done = keystand("state", "--state-dir", str(state), "--json")
    assert done.returncode == 0, done.stderr
    data: dict[str, object] = json.loads(done.stdout)
    return data


def test_a_classic_run_ends_where_play_says(tmp_path: Path) -> None:
    script = tmp_path / "game.txt"
    script.write_text(GAME)
    state = tmp_path / "state"
    done = run_script(state, script, "--game", "classic", "--card-code", CODE)
    assert done.returncode == 0, done.stderr
    # play takes no press lines: the same game with the keys written as events
    events = GAME.replace("press B pass   #", "pass red #").replace("press A clue", "clue blue")
    events = events.replace("press B pass", "pass blue")
    (tmp_path / "events.txt").write_text(events)
    played = json.loads(
        keystand(
            "play", "--game", "classic", "--card-code", CODE, "--script",
            str(tmp_path / "events.txt"), "--json",
        ).stdout
    )  # fmt: skip
    assert [r["event"] for r in played["rejected"]] == ["pass red", "penalty 0 0"]
    played["rejected"] = []  # `state` has no script to name refused lines of
    ran = state_json(state)
    assert ran == played
    assert ran["covered"] == [0, 3, 5, 6, 9, 10] and ran["turn"] == "red"
    journal = (state / "current.journal").read_text()
    assert '"game":"classic"' in journal and "clue blue" in journal
    text = keystand("state", "--state-dir", str(state)).stdout
    assert text.startswith("classic game ") and ": playing, guessing, red's turn" in text
    assert f"agents left: red {ran['agents_left']['red']}, blue " in text


def test_the_menus_game_switch_survives_a_restart(tmp_path: Path) -> None:
    state = tmp_path / "state"
    switch = tmp_path / "switch.txt"
    switch.write_text(SWITCH)
    done = run_script(state, switch)  # a Duet game in play: Game asks again, then switches
    assert done.returncode == 0, done.stderr
    assert json.loads((state / "settings.json").read_text())["game"] == "classic"
    assert set(state_json(state)) == {
        "status", "winner", "reason", "phase", "turn", "guesses_left", "agents_left",
        "covered", "rejected",
    }  # fmt: skip
    (entry,) = Store.reader(state).history()
    assert (entry["game"], entry["result"]) == ("duet", "abandoned")

    # Started again without --game: the classic game resumes, and its script is classic's.
    moves = tmp_path / "moves.txt"
    card = classic_card_of(state)
    moves.write_text(f"clue {card.starting.value} 1\n")
    done = run_script(state, moves)
    assert done.returncode == 0, done.stderr
    assert state_json(state)["phase"] == "guessing"
    stand = Stand(Store(state))
    stand.boot()
    assert isinstance(stand.state, Classic) and stand.settings.game == "classic"
    stand.store.close()

    # And back to Duet the same way: the second press is asked again.
    done = run_script(state, switch)
    assert done.returncode == 0, done.stderr
    assert json.loads((state / "settings.json").read_text())["game"] == "duet"
    stand = Stand(Store(state))
    stand.boot()
    assert isinstance(stand.state, Duet) and stand.settings.game == "duet"


def classic_card_of(state: Path) -> ClassicCard:
    found = Store.reader(state).peek()
    assert found is not None and isinstance(found[0], Classic)
    return found[0].card


def test_a_classic_script_is_refused_while_a_duet_game_is_in_play(tmp_path: Path) -> None:
    state = tmp_path / "state"
    duet = tmp_path / "duet.txt"
    duet.write_text("clue A\n")
    assert run_script(state, duet).returncode == 0
    classic = tmp_path / "classic.txt"
    classic.write_text("clue red 2\n")
    done = run_script(state, classic, "--game", "classic")
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"keystand run: a duet game is in play in {state}: a --game classic script cannot go "
        "to it. Finish it, abandon it (menu > Game), or give another --state-dir"
    )


def test_game_option_with_a_duet_game_in_play_says_it_goes_on_and_classic_comes_next(
    tmp_path: Path,
) -> None:
    """`run --game classic` on a state dir with a Duet game in play (no script: the
    stand's own run) keeps the game and says what --game did."""
    state = tmp_path / "state"
    duet = tmp_path / "duet.txt"
    duet.write_text("clue A\n")
    assert run_script(state, duet).returncode == 0
    done = keystand(
        "run", "--profile", "desktop", "--state-dir", state, "--speed", "0", "--no-page",
        "--game", "classic",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (
        "keystand: INFO a duet game is in play: it goes on; classic starts with the next "
        "new game (menu > New game)"
    ) in done.stderr.splitlines()
    found = Store.reader(state).peek()
    assert found is not None and isinstance(found[0], Duet) and len(found[0].log) == 1
    assert json.loads((state / "settings.json").read_text())["game"] == "classic"
