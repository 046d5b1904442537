"""The steps a full disk can stop half way, for real: the state dir on a tiny
tmpfs with one page (or none) left. Each step (a game moved to the history, a
game switch, a setting) happens whole or leaves everything as it was, on disk
and on screen, across a restart; a step refused for space is taken when space
is back, without a restart. Needs root for the tmpfs (skipped otherwise)."""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import tmpfs

from keystand import screens
from keystand.drivers.inputs import Act, KeyName, Press, Touch
from keystand.journal import read
from keystand.rules import Seat, generate
from keystand.rules.classic import Classic
from keystand.stand import Item, Stand
from keystand.store import KEEP_GAMES, Store

PAGE = 4096  # tmpfs hands out whole pages


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    with tmpfs.mounted(tmp_path, "512k") as mount:
        yield mount


def fill(disk: Path, leave_pages: int = 0) -> Path:
    """Fill the filesystem to the last page, then free `leave_pages` pages."""
    filler = disk / "filler"
    with open(filler, "ab", buffering=0) as f:
        try:
            while True:
                f.write(b"\0" * PAGE)
        except OSError as e:
            assert e.errno == errno.ENOSPC
    size = filler.stat().st_size
    assert size % PAGE == 0
    os.truncate(filler, size - leave_pages * PAGE)
    return filler


def stand_on(root: Path, seed: int = 40) -> Stand:
    cards = iter(range(seed, seed + 50))
    stand = Stand(Store(root), new_card=lambda: generate(next(cards)))
    stand.boot()
    return stand


def choose(stand: Stand, seat: str, item: Item, now: float) -> None:
    """Open `seat`'s menu, walk to `item` and choose it (twice where it asks)."""
    stand.handle(Press(seat, KeyName.MENU, long=True), now)
    menu = stand.menus[Seat(seat)]
    while menu.item is not item:
        stand.handle(Press(seat, KeyName.PASS), now)
    stand.handle(Press(seat, KeyName.MENU), now)
    if Seat(seat) in stand.menus and stand.menus[Seat(seat)].confirming:
        stand.handle(Press(seat, KeyName.MENU), now)


def safe_cell(stand: Stand) -> int:
    """A word the guesser may touch without ending the game: an agent of the clue giver."""
    side = stand.state.card.a if stand.state.guesser is Seat.B else stand.state.card.b
    return next(i for i, k in enumerate(side) if k.value == "G")


def last_record(root: Path) -> dict:
    records, _, _ = read(root / "current.journal")
    return records[-1].data


def history_ids(root: Path) -> list[str]:
    path = root / "history.jsonl"
    if not path.exists():
        return []
    return [json.loads(line)["id"] for line in path.read_text().splitlines()]


def test_a_new_game_refused_for_the_history_line_leaves_the_game_in_play(disk: Path) -> None:
    """One free page: the new game's start fits, the old journal's end record fits
    in its last page, the history line does not. The game in play stays, on disk
    too: a restart resumes it (it was once listed as abandoned and replaced)."""
    root = disk / "state"
    stand = stand_on(root)
    stand.handle(Act("clue", "A"), 0.0)
    stand.handle(Touch(*divmod(safe_cell(stand), 5)), 0.0)
    game, played = stand.store.game_id, stand.state
    filler = fill(disk, leave_pages=1)

    choose(stand, "A", Item.NEW_GAME, 1.0)
    assert stand.faults.saving and stand.state == played and stand.store.game_id == game
    assert last_record(root)["t"] == "event"  # no end record left behind
    assert history_ids(root) == [] and not (root / "next.journal").exists()

    stand.store.close()  # a restart, the disk still full
    again = stand_on(root, seed=90)
    assert again.store.game_id == game and again.state == played
    assert history_ids(root) == []

    filler.unlink()  # space again: the same choice now deals, without a restart
    choose(again, "B", Item.NEW_GAME, 2.0)
    assert again.faults.saving is None and again.store.game_id != game
    assert history_ids(root) == [game]
    assert (root / "games" / f"{game}.journal").exists()


def history_lines(root: Path, count: int) -> None:
    """`count` finished games in history.jsonl, the next finish rewriting it."""
    line = json.dumps({"id": "0" * 12, "date": "2026-01-01T00:00:00+0000", "game": "duet"})
    (root / "history.jsonl").write_text((line + "\n") * count)


def test_a_history_rewrite_refused_for_space_strands_nothing(disk: Path) -> None:
    """400 lines in the history: the next finished game rewrites it, and the
    rewrite needs pages the disk does not have. The game moves to the history
    whole and the new game takes input once space is back (it used to answer
    every touch with "no game is being journaled" until a restart)."""
    root = disk / "state"
    stand = stand_on(root)
    history_lines(root, 2 * KEEP_GAMES)
    stand.handle(Act("clue", "A"), 0.0)
    game = stand.store.game_id
    filler = fill(disk, leave_pages=1)

    choose(stand, "A", Item.NEW_GAME, 1.0)
    assert stand.faults.saving is None and stand.store.game_id not in (None, game)
    assert history_ids(root)[-1] == game  # the history line is there, once
    assert (root / "games" / f"{game}.journal").exists()

    filler.unlink()
    stand.handle(Act("clue", "A"), 2.0)
    assert stand.faults.saving is None and stand.store.records == 2
    # The rewrite put off is done at the next finish, with room for it.
    choose(stand, "A", Item.NEW_GAME, 3.0)
    assert len(history_ids(root)) <= KEEP_GAMES + 1


def test_a_game_switch_refused_for_space_switches_nothing(disk: Path) -> None:
    """Menu > Game on a full disk: refused, and the menu still says Duet (it used
    to say Classic with Duet in play, and the next Game dealt a Duet)."""
    root = disk / "state"
    stand = stand_on(root)
    stand.handle(Act("clue", "A"), 0.0)
    played = stand.state
    filler = fill(disk)

    choose(stand, "A", Item.GAME, 1.0)
    assert stand.faults.saving and stand.state == played
    assert stand.settings.game == "duet"
    filler.unlink()
    choose(stand, "A", Item.GAME, 2.0)
    assert isinstance(stand.state, Classic) and stand.settings.game == "classic"
    stand.store.close()
    assert stand_on(root).settings.game == "classic"


def test_a_language_chosen_on_a_full_disk_is_told_and_saved_when_space_is_back(
    disk: Path,
) -> None:
    root = disk / "state"
    stand = stand_on(root)
    filler = fill(disk)

    choose(stand, "B", Item.LANGUAGE, 1.0)
    chosen = stand.settings.lang_of(Seat.B)
    assert chosen != "en"  # it holds for this run
    assert Seat.B not in stand.menus  # B is back on its screen, which says so
    assert screens.context(stand, Seat.B).hint == "settings_unsaved"
    assert screens.context(stand, Seat.A).hint is None  # A chose nothing
    stand.tick(3.0)  # still full: still said
    assert screens.context(stand, Seat.B).hint == "settings_unsaved"

    filler.unlink()
    stand.tick(30.0)  # a quiet moment once space is back: saved, and said no more
    assert screens.context(stand, Seat.B).hint is None
    saved = json.loads((root / "settings.json").read_text())
    assert saved["lang"][1] == chosen
    stand.store.close()
    assert stand_on(root).settings.lang_of(Seat.B) == chosen


# ----- the same steps with the refusal injected (no tmpfs needed) ---------------------


def test_a_journal_move_refused_takes_back_the_history_line_and_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last part of the step fails (the journal's move under games/):
    everything before it is taken back, and the same step done later writes
    each thing once."""
    stand = stand_on(tmp_path)
    stand.handle(Act("clue", "A"), 0.0)
    game, played = stand.store.game_id, stand.state
    journal = (tmp_path / "current.journal").read_bytes()
    real_replace = os.replace

    def refuse_games(src: object, dst: object) -> None:
        if Path(str(dst)).parent.name == "games":
            raise OSError(errno.ENOSPC, "No space left on device")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", refuse_games)
    assert not stand.new_game()
    assert "No space left on device" in str(stand.faults.saving)
    assert (tmp_path / "current.journal").read_bytes() == journal
    assert not (tmp_path / "history.jsonl").exists()
    assert stand.store.game_id == game and stand.state == played
    stand.handle(Touch(*divmod(safe_cell(stand), 5)), 1.0)  # the game goes on, journaled
    assert stand.faults.saving is None and stand.store.records == 3
    monkeypatch.undo()
    assert stand.new_game()
    assert history_ids(tmp_path) == [game]


def test_a_restart_with_no_room_to_finish_a_cut_step_resumes_the_game(
    disk: Path,
) -> None:
    """A power cut after the end record, then a start on a full disk: the step
    cannot be finished, so the game is resumed as it was left (not dropped), and
    the step is finished by the next new game once there is room."""
    root = disk / "state"
    stand = stand_on(root)
    stand.handle(Act("clue", "A"), 0.0)
    game, played = stand.store.game_id, stand.state
    stand.store._journal.append({"t": "end", "at": "", "result": "playing"})  # then the cut
    stand.store.close()
    filler = fill(disk)

    again = stand_on(root, seed=90)
    assert again.store.game_id == game and again.state == played
    filler.unlink()
    choose(again, "A", Item.NEW_GAME, 1.0)
    assert again.faults.saving is None and history_ids(root) == [game]
    ends = [r.data for r in read(root / "games" / f"{game}.journal")[0] if r.data["t"] == "end"]
    assert len(ends) == 1  # the step's own end record, not a second one


def test_a_history_that_is_a_folder_is_one_line_and_an_empty_page(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    stand = stand_on(tmp_path)
    (tmp_path / "history.jsonl").mkdir()
    stand.handle(Press("A", KeyName.MENU, long=True), 0.0)
    menu = stand.menus[Seat.A]
    while menu.item is not Item.HISTORY:
        stand.handle(Press("A", KeyName.PASS), 0.0)
    stand.handle(Press("A", KeyName.MENU), 0.0)
    assert menu.history == []
    assert "cannot read the history" in caplog.text and "Traceback" not in caplog.text
    assert not stand.new_game() and stand.faults.saving  # nowhere to write its line: the game stays


def test_a_game_switch_whose_setting_was_lost_boots_naming_the_game_in_play(
    tmp_path: Path,
) -> None:
    """The switch dealt a classic game but settings.json still says duet (the disk
    refused it, then a restart): the stand boots naming the game in play, so the
    menu's Game entry switches away from what is on the table."""
    stand = stand_on(tmp_path)
    assert stand.new_game("classic")
    stand.store.close()
    (tmp_path / "settings.json").write_text(json.dumps({"game": "duet"}))
    again = stand_on(tmp_path, seed=90)
    assert isinstance(again.state, Classic) and again.settings.game == "classic"
    assert json.loads((tmp_path / "settings.json").read_text())["game"] == "classic"
