"""The classic turn timer: its expiry is a rules event (`timeout red|blue`) that
ends the turn and is journaled, so a replay agrees; the stand runs it by the
service's clock (a fake one here: no wall-clock asserts) and both screens draw
it in coarse steps, counted as frames."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from clue_keys import give_clue

from keystand import games, layouts, screens
from keystand.drivers.display import SimPanel
from keystand.drivers.inputs import Act, KeyName, Press, Touch
from keystand.games import Context
from keystand.games.classic import views as classic_views
from keystand.games.classic.settings import TIMER, TIMER_CHOICES
from keystand.layouts import classic as classic_screen
from keystand.layouts.classic_view import ClassicLastKind
from keystand.rules import EventError, Seat
from keystand.rules.classic import Classic, Phase, RejectReason, Result
from keystand.rules.classic_card import ClassicCard, Team
from keystand.rules.classic_events import Timeout, parse_event
from keystand.service import Service
from keystand.stand import Settings, Stand
from keystand.store import Store

CODE = "9CY-EPF-ZXQ"  # blue starts; 0 0 blue, 1 0 red
CARD = ClassicCard.from_code(CODE)


def replay(*lines: str) -> Classic:
    return Classic.replay(CARD, [parse_event(line) for line in lines])


# ----- the rules ----------------------------------------------------------------------


def test_a_timeout_ends_the_turn_in_either_phase() -> None:
    state, outcome = replay().apply(Timeout(Team.BLUE))  # no clue found in time
    assert (outcome.result, outcome.turn_over, state.turn) == (Result.TIME_UP, True, Team.RED)
    assert state.phase is Phase.AWAITING_CLUE
    state = replay("clue blue 3", "touch 0 0", "timeout blue")  # mid-guessing
    assert (state.turn, state.phase, state.covered) == (Team.RED, Phase.AWAITING_CLUE, {0})
    assert state.guesses_left is None and state.clue is None


def test_a_timeout_out_of_turn_or_after_the_end_is_refused() -> None:
    state, refusal = replay().apply(Timeout(Team.RED))
    assert refusal.reason is RejectReason.TIMEOUT_OUT_OF_TURN and state == replay()
    over = replay("clue blue 1", "touch 1 3")  # the assassin
    _, refusal = over.apply(Timeout(Team.BLUE))
    assert refusal.reason is RejectReason.GAME_OVER


def test_the_timeout_text_and_undo() -> None:
    assert str(parse_event("timeout red")) == "timeout red"
    with pytest.raises(EventError, match=re.escape("timeout red|blue")):
        parse_event("timeout")
    assert replay("clue blue", "timeout blue", "undo") == replay("clue blue")


def test_play_takes_timeout_lines(tmp_path: Path) -> None:
    from keystand.cli import main

    script = tmp_path / "s.txt"
    script.write_text("clue blue 2\ntimeout blue\ntimeout blue\n")
    out = tmp_path / "out.json"
    with out.open("w") as f:
        assert main(["play", "--game", "classic", "--card-code", CODE, "--script", str(script),
                     "--json"], out=f) == 0  # fmt: skip
    data = json.loads(out.read_text())
    assert data["turn"] == "red" and data["phase"] == "awaiting_clue"
    assert data["rejected"] == [
        {"line": 3, "event": "timeout blue", "reason": "timeout_out_of_turn"}
    ]


# ----- the stand and its clock -------------------------------------------------------


def timed_stand(root: Path, timer: int = 120) -> Stand:
    stand = Stand(
        Store(root), settings=Settings(game="classic").choosing(TIMER, timer), new_card=lambda: CARD
    )
    stand.boot()
    return stand


def journal_events(root: Path) -> list[str]:
    lines = (root / "current.journal").read_text().splitlines()[1:]
    return [json.loads(line.split(" ", 4)[4])["e"] for line in lines]


def test_expiry_ends_the_turn_as_a_journaled_event_and_replay_agrees(tmp_path: Path) -> None:
    stand = timed_stand(tmp_path)
    assert stand.timer.left == 120  # drawn full before the clock starts
    stand.tick(1000.0)  # the service's first tick starts the clock
    give_clue(stand, "A", 1010.0)  # Clue…, Clue 1
    stand.handle(Touch(0, 0), 1030.0)
    stand.tick(1119.5)
    assert stand.timer.left == 1 and stand.state.turn is Team.BLUE
    stand.tick(1120.0)
    assert stand.state.turn is Team.RED and stand.state.last.result is Result.TIME_UP
    assert stand.timer.left == 120  # red's turn has its full time
    assert journal_events(tmp_path) == ["clue blue 1", "touch 0 0", "timeout blue"]
    assert stand.state == replay(*journal_events(tmp_path))
    again = Stand(Store(tmp_path))
    again.boot()
    assert again.state == stand.state
    # Red's turn ends on its own clock, which started at blue's timeout.
    stand.tick(1239.0)
    assert stand.state.turn is Team.RED
    stand.tick(1240.0)
    assert stand.state.turn is Team.BLUE and journal_events(tmp_path)[-1] == "timeout red"


def test_a_turn_ended_by_a_pass_starts_the_next_clock_then(tmp_path: Path) -> None:
    stand = timed_stand(tmp_path, timer=60)
    stand.tick(0.0)
    for line, t in (("clue blue 2", 10.0), ("touch 0 0", 20.0), ("pass blue", 50.0)):
        stand.handle(games.Played(parse_event(line)), t)
    stand.tick(109.0)
    assert stand.state.turn is Team.RED and stand.timer.left == 1
    stand.tick(110.0)
    assert stand.state.turn is Team.BLUE


def test_an_empty_table_stops_the_timer_after_each_team_timed_out_once(tmp_path: Path) -> None:
    """Nobody at the table: one timeout a team, then the timer waits, drawn full, for
    the next input (which starts its clock), so the panels may sleep."""
    stand = timed_stand(tmp_path, timer=60)
    stand.tick(0.0)
    stand.tick(60.0)
    stand.tick(120.0)
    assert journal_events(tmp_path) == ["timeout blue", "timeout red"]
    version = stand.version
    for t in (180.0, 240.0, 3600.0):
        assert not stand.tick(t)  # nothing changes: no more frames
    assert journal_events(tmp_path) == ["timeout blue", "timeout red"]
    assert stand.version == version and stand.timer.left == 60
    stand.handle(Press("A", KeyName.CLUE), 4000.0)  # somebody is back: the clock runs
    stand.tick(4059.0)
    assert stand.timer.left == 1 and stand.state.turn is Team.BLUE
    stand.tick(4060.0)
    assert journal_events(tmp_path)[-1] == "timeout blue" and stand.state.turn is Team.RED


def test_no_timeout_while_an_invalid_clues_cover_is_awaited(tmp_path: Path) -> None:
    stand = timed_stand(tmp_path, timer=60)
    stand.tick(0.0)
    stand.handle(games.Played(parse_event("clue blue 2")), 1.0)
    stand.handle(Act("penalty"), 2.0)  # as the menu's Invalid clue, chosen twice
    assert stand.penalty_pending
    stand.tick(70.0)
    assert stand.timer.left == 0 and stand.state.turn is Team.BLUE  # "Time is up"
    view = classic_views.operatives(stand.state, Context(penalty_pending=True, timer=0))
    assert classic_screen.message_key(view.public) == ("classic_note", "time_up")
    stand.handle(Touch(1, 0), 71.0)  # red covers its word: the turn ends by the penalty
    assert stand.state.turn is Team.RED and "timeout" not in " ".join(journal_events(tmp_path))
    assert stand.timer.left == 60


def test_the_timer_is_off_by_default_and_duet_has_none(tmp_path: Path) -> None:
    stand = Stand(Store(tmp_path / "c"), settings=Settings(game="classic"), new_card=lambda: CARD)
    stand.boot()
    stand.tick(0.0)
    stand.tick(10_000.0)
    assert stand.timer.left is None and stand.state == replay()
    duet = Stand(Store(tmp_path / "d"), settings=Settings().choosing(TIMER, 60))
    duet.boot()
    duet.tick(0.0)
    duet.tick(10_000.0)
    assert duet.timer.left is None and duet.state.events_applied == 0


def test_the_menu_sets_the_timer_and_it_survives_a_restart(tmp_path: Path) -> None:
    stand = Stand(Store(tmp_path), settings=Settings(game="classic"), new_card=lambda: CARD)
    stand.boot()
    stand.handle(Press("B", KeyName.MENU, long=True), 0.0)
    while stand.menus[Seat.B].item is not TIMER:
        stand.handle(Press("B", KeyName.PASS), 0.1)
    panel = SimPanel("epd2in7_V2", speed=0)
    assert screens.menu_view(stand, Seat.B).lines[3].value_key == "timer_off"
    stand.handle(Press("B", KeyName.MENU), 0.2)
    stand.handle(Press("B", KeyName.MENU), 0.3)
    assert stand.settings.of(TIMER) == TIMER_CHOICES[2] == 90
    assert screens.menu_view(stand, Seat.B).lines[3].value_text == "1:30"
    assert screens.render(stand, Seat.B, panel).size == panel.size
    assert json.loads((tmp_path / "settings.json").read_text())["timer"] == 90
    stand.handle(Press("B", KeyName.UNDO), 0.4)  # close: the running turn gets the clock
    assert stand.timer.left == 90
    stand.store.close()
    again = Stand(Store(tmp_path))
    again.boot()
    assert again.settings.of(TIMER) == 90 and again.settings.game == "classic"


# ----- the screens: coarse steps, counted as frames ---------------------------------


def test_both_screens_count_down_in_coarse_steps(tmp_path: Path) -> None:
    """A two-minute turn with no input: each panel gets the turn's first picture,
    one per step (1:30 1:00 0:50 0:40 0:30 0:20 0:10 0:05 0:04 0:03 0:02 0:01),
    and the time-up picture that starts the next turn: 14 frames, whatever the
    service's tick (and the clearings the refresh policy does while a clue is
    awaited)."""
    now = [5000.0]
    stand = timed_stand(tmp_path, timer=120)
    drawn: list[int | None] = []

    def render(st: Stand, seat: Seat, panel: SimPanel) -> object:
        if seat.value == "A":
            drawn.append(st.timer.left)
        return screens.render(st, seat, panel)

    panels = {s: SimPanel("epd2in7_V2", rotation=90, speed=0) for s in (Seat.A, Seat.B)}
    service = Service(stand, panels, render=render, blank=screens.blank, clock=lambda: now[0])
    service.start_workers()
    try:
        service.redraw()  # what the loop draws first
        assert service.drain(30)
        for _ in range(2 * 120 + 1):  # the loop's idle tick, every half second
            if stand.tick(service.clock()):
                service.redraw()
                assert service.drain(30)
            now[0] += 0.5
        assert drawn == [120, 90, 60, 50, 40, 30, 20, 10, 5, 4, 3, 2, 1, 120]
        # Beside them, the ghosting cleared in the quiet moments (a clue awaited).
        cleared = {s.value: service.workers[s].cleared for s in panels}
        assert {s.value: p.frames_shown - cleared[s.value] for s, p in panels.items()} == {
            "A": 14,
            "B": 14,
        }
        assert stand.state.last.result is Result.TIME_UP
        ops = classic_views.operatives(stand.state, Context(timer=120))
        assert ops.public.last is not None and ops.public.last.kind is ClassicLastKind.TIME_UP
        expect = layouts.render(ops, screens.spec(panels[Seat.B]))
        assert panels[Seat.B].shown.tobytes() == expect.tobytes()
    finally:
        service.shutdown(30)
