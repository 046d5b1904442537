"""Classic's clue number at the table (issue 31, item 6): the number the spymasters
choose on their keys reaches the rules, both screens and the journal, the rulebook's
plus one ends the turn, and the operatives see the key once the end is final.

The rulebook: "Solange die Ermittler Wörter in ihrer eigenen Farbe erraten, dürfen
sie 1 Rateversuch mehr als die beim Hinweis angegebene Zahl ausführen.
Beispielsweise lässt der Hinweis kalt: 3 die Ermittler bis zu 4 Rateversuche
machen." So the guess after number + 1 is no guess of that clue: the turn is over.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from keystand import games, screens
from keystand.drivers.display import SimPanel
from keystand.drivers.inputs import KeyName, Press, Touch
from keystand.journal import JournalError
from keystand.layouts import classic as classic_screen
from keystand.layouts.i18n import strings
from keystand.rules import Seat
from keystand.rules.classic import Classic, RejectReason
from keystand.rules.classic_card import ClassicCard, Team
from keystand.stand import Settings, Stand
from keystand.store import Store

CODE = "9CY-EPF-ZXQ"  # UU.UU RRUXR ..R.R .URU. .UURR: blue starts
CARD = ClassicCard.from_code(CODE)
SPYMASTERS, OPERATIVES = Seat.A, Seat.B
BLUE = sorted(CARD.agents(Team.BLUE))


def classic(root: Path) -> Stand:
    stand = Stand(Store(root), settings=Settings(game="classic"), new_card=lambda: CARD)
    stand.boot()
    return stand


def give(stand: Stand, number_presses: int, now: float) -> None:
    """The spymasters' keys: Clue…, +1 `number_presses` times, then the clue."""
    stand.handle(Press(SPYMASTERS.value, KeyName.CLUE), now)
    for k in range(number_presses):
        stand.handle(Press(SPYMASTERS.value, KeyName.CLUE), now + 0.01 * (k + 1))
    stand.handle(Press(SPYMASTERS.value, KeyName.MENU), now + 0.5)


def touch(stand: Stand, cell: int, now: float) -> None:
    stand.handle(Touch(*divmod(cell, 5)), now)


def said(stand: Stand, seat: Seat) -> tuple[str, str]:
    """What `seat`'s screen says under the headline and in its message box, in English."""
    view = stand.game.view(stand.state, seat, screens.context(stand, seat))
    table = strings("en")
    key, values = classic_screen.sub(view.public, getattr(view, "choosing", None))
    line = table["classic_sub"][key].format(**values)
    message = classic_screen.message_key(view.public)
    return line, table[message[0]][message[1]] if message else ""


def test_the_spymasters_screen_shows_the_number_they_choose(tmp_path: Path) -> None:
    """Only theirs: the operatives' picture stays the same, so their panel does not
    even refresh while the spymasters choose."""
    stand = classic(tmp_path)
    panel = SimPanel("epd2in7_V2", rotation=90, speed=0)
    operatives = screens.render(stand, OPERATIVES, panel).tobytes()
    assert said(stand, SPYMASTERS)[0] == "Blue started"
    stand.handle(Press("A", KeyName.CLUE), 0.0)
    stand.handle(Press("A", KeyName.CLUE), 0.1)
    assert said(stand, SPYMASTERS)[0] == "Number: 2"
    assert said(stand, OPERATIVES)[0] == "Blue started"
    assert screens.render(stand, OPERATIVES, panel).tobytes() == operatives
    for k in range(8):
        stand.handle(Press("A", KeyName.CLUE), 0.2 + k / 10)
    assert said(stand, SPYMASTERS)[0] == "Number: \u221e"


def test_a_guess_past_the_number_plus_one_is_refused_the_turn_being_over(
    tmp_path: Path,
) -> None:
    """A clue for 2: the operatives' screen counts three guesses down; the third,
    a right one, ends the turn ("no guesses left"), and the touch after it is no
    guess of that clue: refused on both screens, nothing covered, nothing
    journaled."""
    stand = classic(tmp_path)
    give(stand, 1, 0.0)
    assert said(stand, OPERATIVES) == ("Clue 2: 3 left", "Clue given")
    touch(stand, BLUE[0], 1.0)
    assert said(stand, OPERATIVES) == ("Clue 2: 2 left", "Blue agent: go on")
    touch(stand, BLUE[1], 2.0)
    assert said(stand, OPERATIVES)[0] == "Clue 2: 1 left"
    touch(stand, BLUE[2], 3.0)  # the number plus one: the turn ends
    assert stand.state.turn is Team.RED and stand.state.phase.value == "awaiting_clue"
    for seat in (SPYMASTERS, OPERATIVES):
        assert said(stand, seat) == ("Blue started", "Blue agent: no guesses left")
    journal = (tmp_path / "current.journal").read_text()
    touch(stand, BLUE[3], 4.0)  # a fourth guess on 2
    assert stand.state.last.reason is RejectReason.NO_CLUE
    assert BLUE[3] not in stand.state.covered
    assert said(stand, OPERATIVES)[1] == "No clue given yet"
    assert (tmp_path / "current.journal").read_text() == journal
    replayed = Classic.replay(CARD, [e for e in stand.state.log])
    assert replayed.covered == {BLUE[0], BLUE[1], BLUE[2]}


def test_0_and_unlimited_have_no_limit_and_say_so(tmp_path: Path) -> None:
    stand = classic(tmp_path)
    give(stand, 9, 0.0)  # 1 + 9 steps: unlimited
    assert str(stand.state.clue) == "clue blue unlimited"
    for k, cell in enumerate(BLUE[:4]):
        touch(stand, cell, 1.0 + k)
        assert said(stand, OPERATIVES)[0] == "Clue \u221e: no limit"
    assert stand.state.turn is Team.BLUE  # four right guesses on it: still guessing
    stand.handle(Press("B", KeyName.PASS), 6.0)
    stand.handle(Press("A", KeyName.CLUE), 7.0)
    stand.handle(Press("A", KeyName.PASS), 7.1)  # -1: 0
    stand.handle(Press("A", KeyName.MENU), 7.2)
    assert str(stand.state.clue) == "clue red 0"
    assert said(stand, OPERATIVES)[0] == "Clue 0: no limit"


def test_the_operatives_see_the_key_once_the_end_is_final(tmp_path: Path) -> None:
    """The end is held back a few seconds so undo can take a stray touch back: the
    operatives' screen keeps to the tiles until then, and shows the key after."""
    stand = classic(tmp_path)
    give(stand, 0, 0.0)
    touch(stand, CARD.assassin, 1.0)  # blue touches the assassin: red wins
    assert not stand.playing and not stand.revealed
    view = stand.game.view(stand.state, OPERATIVES, screens.context(stand, OPERATIVES))
    assert view.key is None
    panel = SimPanel("epd2in7_V2", rotation=90, speed=0)
    held = screens.render(stand, OPERATIVES, panel)
    stand.tick(1.0 + stand.settings.reveal_delay)
    assert stand.revealed
    view = stand.game.view(stand.state, OPERATIVES, screens.context(stand, OPERATIVES))
    assert view.key == games.get("classic").view(stand.state, SPYMASTERS, games.Context()).key
    assert screens.render(stand, OPERATIVES, panel).tobytes() != held.tobytes()


def test_a_clue_the_disk_refuses_keeps_its_number_for_another_press(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Durability: the clue is journaled (fsync) before any screen shows it; a full
    disk takes nothing, both screens say it cannot save, and the spymasters' number
    stays on their keys until a press the disk takes."""
    stand = classic(tmp_path)
    stand.handle(Press("A", KeyName.CLUE), 0.0)
    stand.handle(Press("A", KeyName.CLUE), 0.1)  # Number: 2
    record = stand.store.record

    def full(event: object, state: object = None) -> None:
        raise JournalError("no space left on the device")

    monkeypatch.setattr(stand.store, "record", full)
    stand.handle(Press("A", KeyName.MENU), 0.2)  # Clue 2: not saved, not taken
    assert stand.state.clue is None and stand.choosing.numbering == {SPYMASTERS: "2"}
    view = stand.game.view(stand.state, OPERATIVES, screens.context(stand, OPERATIVES))
    assert view.public.cannot_save and view.public.clue_number is None
    monkeypatch.setattr(stand.store, "record", record)
    stand.handle(Press("A", KeyName.MENU), 0.3)
    assert str(stand.state.clue) == "clue blue 2" and not stand.choosing.numbering
    assert '"clue blue 2"' in (tmp_path / "current.journal").read_text()
