"""`keystand run` playing classic: a script ends where `keystand play --game
classic` says, and the menu's Game entry switches the stand, kept across restarts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import cast

import pytest
from command import keystand, run_script
from PIL import Image, ImageChops

from keystand import screens
from keystand.drivers.display import SimPanel
from keystand.drivers.inputs import KeyName
from keystand.rules import Seat
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
press A clue   # the spymasters' keys: Clue…, the number shown 1,
press A menu   # then Clue 1: blue's clue for 1, two guesses
touch 0 1
undo
touch 0 3
press B pass
clue red unlimited
penalty 0 0    # refused: 0 0 is covered
touch 1 4
"""
SWITCH = "press A menu long\npress A clue\npress A menu\npress A menu\n"  # Game, confirmed


def same(a: Image.Image, b: Image.Image) -> bool:
    return (
        a.size == b.size and ImageChops.difference(a.convert("L"), b.convert("L")).getbbox() is None
    )


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
    events = GAME.replace("press B pass   #", "pass red #")
    events = events.replace("press A clue   #", "# press A clue").replace(
        "press A menu", "clue blue 1"
    )
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
    assert '"game":"classic"' in journal and '"clue blue 1"' in journal
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


# Blue starts on CODE (UU.UU RRUXR ..R.R .URU. .UURR): the spymasters' keys choose
# each clue's number on the minimal build's HAT keys, the operatives touch.
NUMBERED = """
press A clue   # Clue…: the number shown, 1
press A clue   # +1: 2
press A clue   # +1: 3
press A pass   # -1: 2
press A menu   # Clue 2: blue's clue for 2, three guesses
touch 0 0
touch 0 1
touch 0 3      # the third guess, a right one: the turn ends by itself
touch 0 4      # a fourth on 2: no clue now, refused
press A clue   # red's clue: Clue…
press A pass   # -1: 0
press A menu   # Clue 0: no limit
touch 1 0
touch 1 1
touch 1 4
press B pass
"""
NUMBERED_EVENTS = """
clue blue 2
touch 0 0
touch 0 1
touch 0 3
touch 0 4
clue red 0
touch 1 0
touch 1 1
touch 1 4
pass red
"""


def test_a_numbered_clue_on_the_minimal_builds_keys_ends_where_play_says(tmp_path: Path) -> None:
    """`keystand run --game classic --profile minimal --emulate DIR`: the real key
    driver on emulated pins. The spymasters' presses journal `clue blue 2` and
    `clue red 0` (the number each label named), the guess past 2 + 1 is refused,
    and the game ends where `keystand play` puts the same events; the spymasters'
    controller showed the number being chosen, labels and all, pixel for pixel."""
    pytest.importorskip("gpiozero")
    script = tmp_path / "game.txt"
    script.write_text(NUMBERED)
    out, state = tmp_path / "out", tmp_path / "state"
    done = keystand(
        "run", "--game", "classic", "--profile", "minimal", "--emulate", out,
        "--script", script, "--card-code", CODE, "--speed", "0", "--state-dir", state,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    journal = (state / "current.journal").read_text()
    assert '"clue blue 2"' in journal and '"clue red 0"' in journal
    events = tmp_path / "events.txt"
    events.write_text(NUMBERED_EVENTS)
    played = json.loads(
        keystand(
            "play", "--game", "classic", "--card-code", CODE, "--script", events, "--json"
        ).stdout
    )
    assert [r["event"] for r in played["rejected"]] == ["touch 0 4"]
    played["rejected"] = []
    ran = state_json(state)
    assert ran == played and ran["turn"] == "blue" and ran["covered"] == [0, 1, 3, 5, 6, 9]

    # What the spymasters' HAT showed while choosing: their screen with "Number: 2"
    # and the keys labelled +1, -1, Back, Clue 2 (the press that followed gave it).
    choosing = Stand(cast(Store, None), state=Classic.start(ClassicCard.from_code(CODE)))
    choosing.choosing.numbering[Seat.A] = "2"
    want = screens.render(
        choosing, Seat.A, SimPanel("epd2in7_V2", rotation=90, speed=0),
        {Seat.A: screens.KeyPlace("left", tuple(KeyName))},
    )  # fmt: skip
    shown = [png for png in sorted(out.glob("A-[0-9]*.png")) if same(Image.open(png), want)]
    assert len(shown) == 2, "A's controller did not show the number 2 being chosen twice"
