"""`keystand run` around the game: a chosen first card, a state dir that cannot be
written, a journaled event the rules now refuse, the loop's idle tick, and the
read-only commands that must create nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from command import keystand, run_script

from keystand import screens
from keystand.drivers.display import SimPanel
from keystand.drivers.inputs import Act, KeyName, Press, Touch
from keystand.games import Context
from keystand.games.duet import views
from keystand.games.duet.settings import MISSION, ORDER
from keystand.journal import Journal
from keystand.rules import Card, Seat, generate
from keystand.rules.duet import Status
from keystand.service import Service
from keystand.stand import Settings, Stand
from keystand.store import Store

CODE = generate(41).code
GAME = """
clue A
touch 0 0
touch 1 1
pass B
clue B
touch 2 2
undo
touch 3 3
touch 4 4
clue A
touch 0 4
"""


def wait_until(check, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.01)
    return check()


# ----- --card / --card-code -----------------------------------------------------------


def test_run_on_a_card_code_ends_where_play_says(tmp_path: Path) -> None:
    script = tmp_path / "game.txt"
    script.write_text(GAME)
    done = run_script(tmp_path / "state", script, "--card-code", CODE)
    assert done.returncode == 0, done.stderr
    ran = json.loads(keystand("state", "--state-dir", str(tmp_path / "state"), "--json").stdout)
    played = json.loads(
        keystand("play", "--card-code", CODE, "--script", str(script), "--json").stdout
    )
    played["rejected"] = []  # `state` has no script to name refused lines of
    assert ran == played


def test_card_text_is_taken_too(tmp_path: Path) -> None:
    script = tmp_path / "one.txt"
    script.write_text("clue B\n")
    card = generate(7)
    done = run_script(tmp_path / "state", script, "--card", card.text)
    assert done.returncode == 0, done.stderr
    state, _ = Store.reader(tmp_path / "state").peek()
    assert state.card == card


def test_a_card_is_refused_while_a_game_is_in_play(tmp_path: Path) -> None:
    script = tmp_path / "one.txt"
    script.write_text("clue A\n")
    state = tmp_path / "state"
    assert run_script(state, script).returncode == 0
    before = (state / "current.journal").read_bytes()
    done = run_script(state, script, "--card-code", CODE)
    assert done.returncode == 2
    assert "a game is in play in" in done.stderr
    assert "Finish it, abandon it (menu > New game), or give another --state-dir" in done.stderr
    assert "Traceback" not in done.stderr
    assert (state / "current.journal").read_bytes() == before  # nothing touched


def test_a_bad_card_code_is_refused_before_anything_starts(tmp_path: Path) -> None:
    script = tmp_path / "one.txt"
    script.write_text("clue A\n")
    done = run_script(tmp_path / "state", script, "--card-code", "0000-0000-0000-0000")
    assert done.returncode == 2
    assert "card code" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "state").exists()


# ----- a state dir that cannot be written ---------------------------------------------


def test_a_state_dir_that_refuses_writes_still_runs_and_says_it_cannot_save(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The disk refuses the first record: the stand runs, deals nothing it cannot
    save, and both screens say "Cannot save" on the neutral picture (no key). The
    first key pressed after the disk takes writes again deals the game, on the
    card that was dealt first."""
    real_append = Journal.append

    def refuse(self: Journal, data: dict) -> object:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Journal, "append", refuse)
    cards = iter(range(5, 100))
    stand = Stand(Store(tmp_path), new_card=lambda: generate(next(cards)))
    stand.boot()  # does not raise
    assert stand.state is None and "No space left on device" in str(stand.faults.saving)
    panels = {s: SimPanel("epd2in7_V2", rotation=90, speed=0) for s in Seat}
    service = Service(
        stand, panels, render=screens.render, blank=screens.blank, describe=screens.public
    ).start()
    try:
        assert wait_until(lambda: all(p.shown is not None for p in panels.values()))
        assert service.drain(30)
        for seat, panel in panels.items():
            want = screens.layouts.render(
                screens.neutral(screens.layouts.Neutral.CANNOT_SAVE), screens.spec(panel), "en"
            ).convert("1")
            assert panel.shown.tobytes() == want.tobytes(), f"seat {seat.value}"
        service.submit(Press("A", KeyName.CLUE))  # still full: nothing dealt
        handled = threading.Event()
        service.submit_then(handled.set)
        assert handled.wait(30)
        assert stand.state is None and service.snapshot.public["cannot_save"]
        assert list(tmp_path.iterdir()) == [tmp_path / "games"]  # no half-written start

        monkeypatch.setattr(Journal, "append", real_append)  # space again
        service.submit(Press("B", KeyName.PASS))
        assert wait_until(lambda: service.snapshot.public["game"] is not None)
        assert service.snapshot.public["cannot_save"] is None
    finally:
        assert service.shutdown(30)
    state, game = Store.reader(tmp_path).peek()
    assert state.card == generate(5) and game != "None"


def test_a_new_game_the_disk_refuses_keeps_the_game_in_play(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Menu > New game on a full disk: the old game stays (on screen and on disk),
    "Cannot save" shows, nothing is archived, no history line, nothing named None."""
    cards = iter(range(30, 100))
    stand = Stand(Store(tmp_path), new_card=lambda: generate(next(cards)))
    stand.boot()
    stand.handle(Act("clue", "A"), 0.0)
    before = stand.state
    game = stand.store.game_id
    monkeypatch.setattr(
        Journal, "append", lambda self, data: (_ for _ in ()).throw(OSError(28, "disk full"))
    )
    assert not stand.new_game()
    assert stand.state == before and stand.store.game_id == game and stand.faults.saving
    fds = len(os.listdir("/proc/self/fd"))
    for _ in range(30):
        assert not stand.new_game()
    assert len(os.listdir("/proc/self/fd")) == fds  # no descriptor left open by a failed start
    assert not (tmp_path / "history.jsonl").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["current.journal", "games"]
    assert list((tmp_path / "games").iterdir()) == []
    monkeypatch.undo()
    assert stand.new_game()
    history = (tmp_path / "history.jsonl").read_text().splitlines()
    assert len(history) == 1 and json.loads(history[0])["id"] == game
    assert (tmp_path / "games" / f"{game}.journal").exists()
    assert "None" not in " ".join(p.name for p in tmp_path.rglob("*"))


def test_a_state_dir_that_is_a_file_is_refused_in_one_line(tmp_path: Path) -> None:
    script = tmp_path / "one.txt"
    script.write_text("clue A\n")
    (tmp_path / "state").write_text("not a folder")
    done = run_script(tmp_path / "state", script)
    assert done.returncode == 2
    assert f"state dir {str(tmp_path / 'state')!r} is not a directory" in done.stderr


# ----- the journal on start ------------------------------------------------------------


def test_a_journaled_event_the_rules_refuse_is_reported_on_start(tmp_path: Path) -> None:
    card = generate(12)
    journal, _, _ = Journal.open(tmp_path / "current.journal")
    journal.append(
        {"t": "start", "id": "g1", "at": "", "card": card.text, "mission": "9-9", "first": None}
    )
    journal.append({"t": "event", "e": "clue A", "at": ""})
    journal.append({"t": "event", "e": "clue B", "at": ""})  # A gave a clue: B may not
    journal.close()
    script = tmp_path / "none.txt"
    script.write_text("# nothing\n")
    done = run_script(tmp_path, script)
    assert done.returncode == 0, done.stderr
    assert "journal record not used:" in done.stderr
    assert "clue B" in done.stderr
    state, game = Store.reader(tmp_path).peek()
    assert game == "g1" and state.clue_giver is Seat.A


# ----- the idle tick -----------------------------------------------------------------


def test_with_no_input_an_undo_request_lapses_and_the_key_is_revealed(tmp_path: Path) -> None:
    now = [1000.0]
    card = generate(21)
    stand = Stand(
        Store(tmp_path),
        settings=Settings(undo_window=5, reveal_delay=10),
        new_card=lambda: card,
    )
    stand.boot()
    panels = {s: SimPanel("epd2in9_V2", rotation=90, speed=0) for s in Seat}
    service = Service(
        stand,
        panels,
        render=screens.render,
        blank=screens.blank,
        tick=0.01,
        clock=lambda: now[0],
    ).start()
    try:
        service.submit(Act("clue", "A"))
        service.submit(Press("A", KeyName.UNDO))
        assert wait_until(lambda: stand.undo.request is not None)
        now[0] += 6  # no input at all: the loop's tick lets the request lapse
        assert wait_until(lambda: stand.undo.request is None)

        assassin = next(i for i, k in enumerate(card.a) if k.value == "X")
        service.submit(Touch(*divmod(assassin, 5)))
        assert wait_until(lambda: stand.state.status is Status.LOST)
        assert not stand.revealed
        shown = {s: p.frames_shown for s, p in panels.items()}
        now[0] += 11
        assert wait_until(lambda: stand.revealed)
        # The loop hands the end screen over just after it reveals the key: wait for
        # it to be shown (a drain right after the reveal may come before the hand-over).
        assert wait_until(lambda: all(p.frames_shown > shown[s] for s, p in panels.items()))
    finally:
        assert service.shutdown(30)


# ----- read-only commands ------------------------------------------------------------


@pytest.mark.parametrize("command", ["state", "history"])
def test_read_only_commands_with_a_mistyped_state_dir_create_nothing(
    tmp_path: Path, command: str
) -> None:
    wrong = tmp_path / "stat"
    done = keystand(command, "--state-dir", str(wrong))
    assert done.returncode == 2
    assert f"state dir {str(wrong)!r} does not exist" in done.stderr
    assert not wrong.exists()
    assert list(tmp_path.iterdir()) == []


def test_state_on_an_empty_state_dir_creates_nothing(tmp_path: Path) -> None:
    done = keystand("state", "--state-dir", str(tmp_path))
    assert done.returncode == 2
    assert "no game in" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_card_new_loads_neither_pillow_nor_the_service() -> None:
    code = (
        "import io, sys\n"
        "from keystand.cli import main\n"
        "main(['card', 'new'], out=io.StringIO())\n"
        "heavy = ('PIL', 'http', 'keystand.service', 'keystand.layouts', 'keystand.stand',\n"
        "         'keystand.drivers.display', 'keystand.screens')\n"
        "print(','.join(m for m in sys.modules if m.startswith(heavy)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""


def test_a_card_parses_back_from_the_code_run_takes() -> None:
    assert Card.from_code(CODE) == generate(41)


def test_the_page_thread_reads_only_the_snapshot(tmp_path: Path) -> None:
    """While the loop works, the page's status comes from the published snapshot:
    an immutable object whose state matches some version the loop finished."""
    stand = Stand(Store(tmp_path), new_card=lambda: generate(2))
    stand.boot()
    panels = {s: SimPanel("epd2in7_V2", rotation=90, speed=0) for s in Seat}
    service = Service(
        stand, panels, render=screens.render, blank=screens.blank, describe=screens.public
    ).start()
    seen = []
    stop = threading.Event()

    def poll() -> None:
        while not stop.is_set():
            seen.append(service.snapshot)

    reader = threading.Thread(target=poll)
    reader.start()
    try:
        for k in range(30):
            service.submit(Act("clue", "AB"[k % 2]) if k % 3 == 0 else Touch(k % 5, k // 5 % 5))
        service.submit_then(stop.set)
        reader.join(30)
    finally:
        assert service.shutdown(30)
    versions = [s.version for s in seen]
    assert versions == sorted(versions)  # published in order, never torn
    assert seen[-1].public["game"] == service.snapshot.game


def test_an_input_device_lost_and_back_is_shown_on_both_screens(tmp_path: Path) -> None:
    """A driver's health report reaches the screens: "input lost" while the grid
    is away, gone when it is back; the page's snapshot lists it too."""
    from keystand.drivers.inputs import Health, HealthReport, InputDriver

    class Grid(InputDriver):
        name = "grid"

        def start(self, emit, report) -> None:
            self.report = report

        def stop(self) -> None:
            pass

    stand = Stand(Store(tmp_path), new_card=lambda: generate(4))
    stand.boot()
    panels = {s: SimPanel("epd2in7_V2", rotation=90, speed=0) for s in Seat}
    grid = Grid()
    service = Service(stand, panels, render=screens.render, blank=screens.blank)
    service.add_input(grid)
    service.start()

    def shows(lost: bool) -> bool:
        service.drain(30)
        return all(
            p.shown is not None
            and p.shown.tobytes()
            == screens.layouts.render(
                views.for_seat(stand.state, seat, Context(input_lost=lost)), screens.spec(p), "en"
            )
            .convert("1")
            .tobytes()
            for seat, p in panels.items()
        )

    try:
        assert wait_until(lambda: shows(False))
        grid.report(HealthReport("grid", Health.LOST, "no answer on /dev/ttyACM0"))
        assert wait_until(lambda: shows(True))
        assert [h.health for h in service.snapshot.health] == [Health.LOST]
        grid.report(HealthReport("grid", Health.BACK))
        assert wait_until(lambda: shows(False))
        assert [h.health for h in service.snapshot.health] == [Health.BACK]
    finally:
        assert service.shutdown(30)


@pytest.mark.parametrize(("record", "repaired"), [(-1, "resumed"), (0, "new_game")])
def test_a_damaged_journal_is_reported_in_the_log_and_on_both_screens(
    tmp_path: Path, record: int, repaired: str
) -> None:
    """A bit flip in the last record (resumed before it) or in the start record
    (a new game): a sentence in the log naming the copy, a note on both screens
    until the players go on."""
    from keystand.journal import encode

    card = generate(12)
    start = {"t": "start", "id": "g1", "at": "", "card": card.text, "mission": "9-9"}
    lines = [encode(0, start), encode(1, {"t": "event", "e": "clue A", "at": ""})]
    spoiled = bytearray(lines[record])
    spoiled[40] ^= 0x02
    lines[record] = bytes(spoiled)
    (tmp_path / "current.journal").write_bytes(b"".join(lines))
    script = tmp_path / "none.txt"
    script.write_text("# nothing\n")
    done = run_script(tmp_path, script)
    assert done.returncode == 0, done.stderr
    copy = tmp_path / "current.journal.damaged-1"
    assert f"the whole file was first copied to {copy}" in done.stderr
    assert copy.exists()

    (tmp_path / "current.journal").unlink(missing_ok=True)
    (tmp_path / "current.journal").write_bytes(b"".join(lines))
    stand = Stand(Store(tmp_path), new_card=lambda: generate(13))
    stand.boot()
    assert stand.faults.repaired is not None and stand.faults.repaired.value == repaired
    panel = SimPanel("epd2in7_V2", rotation=90)
    for seat in Seat:
        want = screens.layouts.render(
            views.for_seat(stand.state, seat, Context(repaired=repaired)),
            screens.spec(panel),
            "en",
        )
        assert screens.render(stand, seat, panel).tobytes() == want.tobytes()
    stand.handle(Act("clue", "B") if repaired == "resumed" else Act("clue", "A"), 0.0)
    assert stand.faults.repaired is None


def test_the_menus_choices_survive_a_restart(tmp_path: Path) -> None:
    """Seat B picks Russian, seat A the next game's mission and loose order in a
    `keystand run`; the stand started again on the same state dir has them back
    (B's screen is in Russian), while the game in play keeps its own mission."""
    script = tmp_path / "menu.txt"
    script.write_text(
        "press B menu long\n"
        + "press B clue\n" * 3  # up from Close past Game and History to Language
        + "press B menu\npress B menu\n"  # en -> de -> ru
        + "press B undo\n"  # close
        + "press A menu long\n"
        + "press A pass\n" * 3  # down past New game and Invalid clue to Mission
        + "press A menu\n"  # mission: next
        + "press A pass\npress A menu\npress A undo\n"  # order: loose
    )
    state = tmp_path / "state"
    done = run_script(state, script)
    assert done.returncode == 0, done.stderr
    saved = json.loads((state / "settings.json").read_text())
    assert saved["lang"] == ["en", "ru"] and saved["loose_order"] is True
    assert saved["mission"] == "10-10"

    stand = Stand(Store(state), new_card=lambda: generate(1))
    stand.boot()
    assert stand.settings.lang == ("en", "ru")
    assert str(stand.settings.of(MISSION)) == "10-10" and stand.settings.of(ORDER)
    assert str(stand.state.mission) == "9-9"  # the game in play keeps its own
    panel = SimPanel("epd2in7_V2", rotation=90)
    # In Russian, and saying which mission the next game will be.
    shown = views.for_seat(stand.state, Seat.B, Context(chosen=stand.settings.options))
    assert shown.next_mission == screens.layouts.MissionLabel(None, "10-10")
    russian = screens.layouts.render(shown, screens.spec(panel), "ru")
    assert screens.render(stand, Seat.B, panel).tobytes() == russian.tobytes()


def test_a_failing_panel_is_named_on_the_other_screen_until_it_answers(tmp_path: Path) -> None:
    """A's panel fails (BUSY stuck, unplugged): the game goes on, B's screen says
    A's screen fails; when A answers again, the note goes and A shows the game."""
    from keystand.drivers.display import PanelError

    class Flaky(SimPanel):
        broken = False

        def _display(self, frame, refresh):
            if self.broken:
                raise PanelError("seat A (epd2in7_V2): BUSY on GPIO24 stayed high")
            return super()._display(frame, refresh)

    stand = Stand(Store(tmp_path), new_card=lambda: generate(8))
    stand.boot()
    a = Flaky("epd2in7_V2", rotation=90, speed=0)
    b = SimPanel("epd2in7_V2", rotation=90, speed=0)
    service = Service(stand, {Seat.A: a, Seat.B: b}, render=screens.render, blank=screens.blank)
    for worker in service.workers.values():
        worker.retry = (0.05, 0.2)
    service.start()

    def b_shows(failed: bool) -> bool:
        want = screens.layouts.render(
            views.for_seat(stand.state, Seat.B, Context(partner_panel_failed=failed)),
            screens.spec(b),
            "en",
        ).convert("1")
        return b.shown is not None and b.shown.tobytes() == want.tobytes()

    try:
        assert wait_until(lambda: b_shows(False) and a.shown is not None)
        a.broken = True
        service.submit(Act("clue", "A"))
        assert wait_until(lambda: b_shows(True))
        assert stand.state.clue_giver is Seat.A  # the game went on
        a.broken = False
        assert wait_until(lambda: b_shows(False))
        assert service.drain(30)
        assert Seat.A not in stand.faults.panels
    finally:
        assert service.shutdown(30)


def test_a_start_refused_for_its_inputs_deals_and_saves_nothing(tmp_path: Path) -> None:
    """Keys on a desktop without --emulate: the pins cannot be had, so the run is
    refused in one line before the stand deals a game; the same card can then be
    played in that state dir."""
    profile = tmp_path / "keys-on-desktop.toml"
    profile.write_text(
        '[stand]\ndriver = "sim"\n[panels]\nkeys = "left"\n[input]\nkinds = ["keys"]\n'
        "[input.keys.A]\nclue = 5\npass = 6\nundo = 13\nmenu = 19\n"
        "[input.keys.B]\nclue = 12\npass = 16\nundo = 20\nmenu = 21\n"
    )
    script = tmp_path / "game.txt"
    script.write_text(GAME)
    state = tmp_path / "state"
    refused = keystand(
        "run", "--profile", str(profile), "--state-dir", str(state), "--speed", "0",
        "--script", str(script), "--card-code", CODE,
    )  # fmt: skip
    assert refused.returncode == 2
    assert "key clue on GPIO5" in refused.stderr and "Traceback" not in refused.stderr
    assert not (state / "current.journal").exists()
    assert not list(state.glob("games/*"))
    played = run_script(state, script, "--card-code", CODE)
    assert played.returncode == 0, played.stderr
