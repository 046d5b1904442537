"""The stand controller and its state dir: keys to rules events, undo by both
seats, the menu, journaling before anything is shown, resuming after a restart."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from keystand import layouts, rules, screens
from keystand.drivers.display import SimPanel
from keystand.drivers.inputs import Act, KeyName, Press, Touch
from keystand.games import Context, Options, Setting
from keystand.games.duet import views
from keystand.games.duet.campaign import CAMPAIGN
from keystand.games.duet.settings import FIRST, MISSION, ORDER, SETTINGS
from keystand.journal import JournalError, encode
from keystand.rules import Card, Key, Mission, Seat, generate
from keystand.rules.duet import Duet, Phase, Rejection, Status
from keystand.stand import REFUSAL_SHOWN, Item, Menu, Settings, Stand
from keystand.store import Store


def card_seq(seed: int = 0):
    n = iter(range(seed, seed + 10_000))
    return lambda: generate(next(n))


def agent_cell(card: Card, judge: Seat, not_in: frozenset[int] = frozenset()) -> int:
    return min(i for i in card.agents(judge) if i not in not_in)


def cell_of(card: Card, judge: Seat, key: Key) -> int:
    return min(i for i, k in enumerate(card.side(judge)) if k is key)


def touch(i: int) -> Touch:
    return Touch(*divmod(i, 5))


@pytest.fixture
def stand(tmp_path: Path) -> Stand:
    s = Stand(Store(tmp_path / "state"), new_card=card_seq())
    s.boot()
    return s


def test_boots_into_a_new_game_journaled(stand: Stand, tmp_path: Path) -> None:
    assert stand.state is not None and stand.state.phase is Phase.AWAITING_CLUE
    lines = (tmp_path / "state" / "current.journal").read_bytes().splitlines()
    assert len(lines) == 1 and b'"t":"start"' in lines[0]


def test_keys_become_rules_events_and_each_is_journaled_before_handle_returns(
    stand: Stand, tmp_path: Path
) -> None:
    card = stand.state.card
    path = tmp_path / "state" / "current.journal"
    assert stand.handle(Press("A", KeyName.CLUE), 0.0)
    assert stand.state.clue_giver is Seat.A
    assert b"clue A" in path.read_bytes().splitlines()[-1]
    stand.handle(touch(agent_cell(card, Seat.A)), 1.0)
    assert stand.state.agents_found == 1
    assert f"touch {divmod(agent_cell(card, Seat.A), 5)[0]}".encode() in path.read_bytes()
    stand.handle(Press("B", KeyName.PASS), 2.0)
    assert stand.state.phase is Phase.AWAITING_CLUE
    assert path.read_bytes().count(b"\n") == 4  # start + three accepted events


def test_a_rejected_input_is_shown_but_not_journaled(stand: Stand, tmp_path: Path) -> None:
    path = tmp_path / "state" / "current.journal"
    size = path.stat().st_size
    assert stand.handle(Touch(0, 0), 0.0)  # before any clue: a rejection to show
    assert stand.state.last is not None and stand.state.last.reason.value == "no_clue"
    assert path.stat().st_size == size


def test_undo_needs_both_seats_within_the_window(stand: Stand) -> None:
    card = stand.state.card
    stand.handle(Press("A", KeyName.CLUE), 0.0)
    stand.handle(touch(agent_cell(card, Seat.A)), 1.0)
    stand.handle(Press("B", KeyName.UNDO), 2.0)
    assert stand.state.agents_found == 1  # one seat alone takes nothing back
    assert stand.undo.request is not None and stand.undo.request.seat is Seat.B
    stand.handle(Press("B", KeyName.UNDO), 3.0)  # the same seat again: still one seat
    assert stand.state.agents_found == 1
    stand.handle(Press("A", KeyName.UNDO), 3.5)
    assert stand.state.agents_found == 0
    assert stand.undo.request is None


def test_an_undo_request_lapses(stand: Stand) -> None:
    card = stand.state.card
    stand.handle(Press("A", KeyName.CLUE), 0.0)
    stand.handle(touch(agent_cell(card, Seat.A)), 1.0)
    stand.handle(Press("B", KeyName.UNDO), 2.0)
    assert stand.tick(2.0 + stand.settings.undo_window + 0.1)
    stand.handle(Press("A", KeyName.UNDO), 20.0)
    assert stand.state.agents_found == 1
    assert stand.undo.request is not None and stand.undo.request.seat is Seat.A


def test_a_restart_resumes_the_same_turn(stand: Stand, tmp_path: Path) -> None:
    card = stand.state.card
    for i, ev in enumerate(
        [
            Act("clue", "B"),
            touch(agent_cell(card, Seat.B)),
            touch(cell_of(card, Seat.B, Key.BYSTANDER)),
        ]
    ):
        stand.handle(ev, float(i))
    before = stand.state
    stand.store.close()
    again = Stand(Store(tmp_path / "state"), new_card=card_seq(99))
    again.boot()
    assert again.state == before
    assert again.state.card == card


def test_new_game_archives_the_old_one_in_history(stand: Stand, tmp_path: Path) -> None:
    card = stand.state.card
    stand.handle(Act("clue", "A"), 0.0)
    stand.handle(touch(cell_of(card, Seat.A, Key.ASSASSIN)), 1.0)
    assert stand.state.status is Status.LOST
    stand.handle(Press("A", KeyName.CLUE), 2.0)  # the key still held back: nothing
    assert stand.state.card == card
    later = 1.0 + stand.settings.reveal_delay
    stand.handle(Press("A", KeyName.CLUE), later)  # on the end screen: the next game
    assert stand.state.status is Status.PLAYING and stand.state.card != card
    (entry,) = stand.store.history()
    assert entry["result"] == "lost" and entry["reason"] == "assassin"
    assert entry["card_code"] == card.code
    assert (tmp_path / "state" / "games" / f"{entry['id']}.journal").exists()


def winning_events(card: Card) -> list[rules.Event]:
    """Two clean turns: B finds A's agents, passes; A finds the rest on B's clue."""
    events: list[rules.Event] = [rules.Clue(Seat.A)]
    events += [rules.Touch.at(i) for i in sorted(card.agents(Seat.A))]
    events += [rules.Pass(Seat.B), rules.Clue(Seat.B)]
    events += [rules.Touch.at(i) for i in sorted(card.agents(Seat.B) - card.agents(Seat.A))]
    return events


def test_a_won_game_counts_in_the_campaign(tmp_path: Path) -> None:
    store = Store(tmp_path / "s")
    state = Duet.start(generate(3))
    store.start_game(state)
    card = state.card
    events = winning_events(card)
    state = Duet.replay(card, state.mission, events)
    assert state.status is Status.WON
    store.finish(state)
    # Won during turn 2 with 8 tokens in the bank (one taken by the pass), one
    # counted for the winning turn, and one pass: 3 * (8 - 1) + 1.
    assert state.score == 22
    assert store.tally(CAMPAIGN)["missions"]["9-9"] == {"won": 1, "best": 22}
    saved = json.loads((tmp_path / "s" / "campaign.json").read_text())
    assert saved["missions"]["9-9"]["won"] == 1
    # Played in 2 turns: the pass took a token, the winning turn used one too.
    (entry,) = store.history()
    assert entry["turns_used"] == 2


def test_the_menu_sets_the_next_game(stand: Stand) -> None:
    first = stand.state
    stand.handle(Press("B", KeyName.MENU, long=True), 0.0)
    assert stand.menus[Seat.B] == Menu(Seat.B)
    assert stand.menus[Seat.B].item is Item.CLOSE  # a double press does nothing
    # down past "new game" and "invalid clue" to "mission", choose twice: 9-9 -> 10-10 -> 11-11
    stand.handle(Press("B", KeyName.PASS), 0.05)
    stand.handle(Press("B", KeyName.PASS), 0.07)
    stand.handle(Press("B", KeyName.PASS), 0.1)
    assert stand.menus[Seat.B].item is MISSION
    stand.handle(Press("B", KeyName.MENU), 0.2)
    stand.handle(Press("B", KeyName.MENU), 0.3)
    assert stand.settings.of(MISSION) == Mission(11, 11)
    stand.handle(Press("B", KeyName.PASS), 0.4)  # order
    stand.handle(Press("B", KeyName.MENU), 0.5)
    assert stand.settings.of(ORDER)
    stand.handle(Press("B", KeyName.PASS), 0.55)  # first clue: left as it is
    stand.handle(Press("B", KeyName.PASS), 0.56)  # campaign: left as it is
    stand.handle(Press("B", KeyName.PASS), 0.57)  # new campaign: left as it is
    stand.handle(Press("B", KeyName.PASS), 0.6)  # language: B's only
    assert stand.menus[Seat.B].item is Item.LANGUAGE
    stand.handle(Press("B", KeyName.MENU), 0.7)
    assert stand.settings.lang == ("en", "de")
    assert stand.state is first  # nothing of this touches the game in play
    for t in (0.8, 0.82, 0.84, 0.85, 0.9, 0.95, 1.0):
        stand.handle(Press("B", KeyName.CLUE), t)
    assert stand.menus[Seat.B].item is Item.NEW_GAME
    stand.handle(Press("B", KeyName.MENU), 1.1)  # a game is in play: asks again
    assert stand.state is first
    stand.handle(Press("B", KeyName.MENU), 1.2)
    assert stand.state.mission == Mission(11, 11) and stand.state.loose_order
    assert Seat.B not in stand.menus


def test_keys_of_the_seat_in_the_menu_do_not_reach_the_game(stand: Stand) -> None:
    stand.handle(Press("A", KeyName.MENU, long=True), 0.0)
    stand.handle(Press("A", KeyName.CLUE), 0.1)  # moves the menu cursor
    assert stand.state.phase is Phase.AWAITING_CLUE
    stand.handle(Press("B", KeyName.CLUE), 0.2)  # the other seat plays on
    assert stand.state.clue_giver is Seat.B
    stand.handle(Press("A", KeyName.UNDO), 0.3)  # back: closes the menu
    assert Seat.A not in stand.menus


def test_custom_mission_past_the_presets(stand: Stand) -> None:
    stand.settings = Settings().choosing(MISSION, Mission(6, 6))  # the last preset
    stand.menus.open[Seat.A] = Menu(Seat.A, index=stand.menu_items().index(MISSION))
    stand.handle(Press("A", KeyName.MENU), 0.0)
    assert stand.menus[Seat.A].editing == "turns"
    stand.handle(Press("A", KeyName.PASS), 0.1)  # 5 turns
    stand.handle(Press("A", KeyName.MENU), 0.2)  # now the mistakes
    stand.handle(Press("A", KeyName.PASS), 0.3)
    stand.handle(Press("A", KeyName.PASS), 0.4)
    stand.handle(Press("A", KeyName.MENU), 0.5)
    assert stand.settings.of(MISSION) == Mission(5, 3)
    assert stand.menus[Seat.A].editing is None


def test_penalty_from_the_menu_takes_a_second_press(stand: Stand) -> None:
    """Invalid clue costs a token and ends the turn: one press (easy to land on
    while scrolling) changes nothing and asks again; the second one acts."""
    stand.handle(Act("clue", "A"), 0.0)
    before = stand.state
    stand.menus.open[Seat.A] = Menu(Seat.A, index=stand.menu_items().index(Item.PENALTY))
    stand.handle(Press("A", KeyName.MENU), 0.1)
    assert stand.state == before and stand.menus[Seat.A].confirming
    assert screens.menu_view(stand, Seat.A).lines[stand.menus[Seat.A].index].value_key == (
        "confirm"
    )
    stand.handle(Press("A", KeyName.PASS), 0.2)  # moving on forgets the first press
    stand.handle(Press("A", KeyName.CLUE), 0.3)
    stand.handle(Press("A", KeyName.MENU), 0.4)
    assert stand.state == before
    stand.handle(Press("A", KeyName.MENU), 0.5)
    assert stand.state.turns_left == 8
    assert stand.state.discarded == 1
    assert Seat.A not in stand.menus


def test_an_unreadable_history_line_is_passed_over(tmp_path: Path) -> None:
    store = Store(tmp_path / "s")
    (tmp_path / "s" / "history.jsonl").write_text('{"id": "a", "result": "won"}\n{"id": "b", "res')
    assert [e["id"] for e in store.history()] == ["a"]


class PowerCut(BaseException):
    """Not an error the store answers: the machine stopped."""


def test_finishing_again_after_a_power_cut_counts_the_game_once(tmp_path: Path) -> None:
    """A cut between the history line and the journal's move: on restart the game
    is archived, not resumed; history and campaign count it once."""
    store = Store(tmp_path / "s")
    state = Duet.start(generate(3))
    store.start_game(state)
    card = state.card
    events = winning_events(card)
    for event in events:
        state, _ = state.apply(event)
        store.record(event)
    assert state.status is Status.WON
    game_id = store.game_id

    def cut(*args, **kwargs):
        raise PowerCut  # the process stops here: nothing of the step is taken back

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(os, "replace", cut)
        with pytest.raises(PowerCut):
            store.finish(state)
    store.close()
    again = Store(tmp_path / "s")
    assert again.resume() is None  # the end record: archived now, not resumed
    assert [g["id"] for g in again.history()] == [game_id]
    assert again.history()[0]["result"] == "won"
    assert again.tally(CAMPAIGN)["missions"]["9-9"]["won"] == 1
    assert not again.current_path.exists()


def test_an_abandoned_game_is_not_resumed_after_a_cut_while_archiving(tmp_path: Path) -> None:
    store = Store(tmp_path / "s")
    state = Duet.start(generate(4))
    store.start_game(state)
    state, _ = state.apply(rules.Clue(Seat.A))
    store.record(rules.Clue(Seat.A))

    def cut(*args, **kwargs):
        raise PowerCut  # the process stops here: nothing of the step is taken back

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(os, "replace", cut)
        with pytest.raises(PowerCut):
            store.finish(state)  # history written, the journal not yet moved
    store.close()
    stand = Stand(Store(tmp_path / "s"), new_card=card_seq(50))
    assert stand.boot() is None  # a new game, not the one the players left
    assert stand.state.card == generate(50)
    assert [g["result"] for g in stand.store.history()] == ["abandoned"]


def test_an_unreadable_journal_is_kept_aside_and_the_stand_still_boots(tmp_path: Path) -> None:
    root = tmp_path / "s"
    root.mkdir()
    (root / "current.journal").write_bytes(encode(0, {"t": "start", "card": "no card"}))
    stand = Stand(Store(root), new_card=card_seq(60))
    stand.boot()
    assert stand.state is not None and stand.state.card == generate(60)
    kept = list((root / "games").glob("unreadable-*.journal"))
    assert len(kept) == 1 and b"no card" in kept[0].read_bytes()


def test_the_mission_entry_cycles_through_presets_custom_and_back(stand: Stand) -> None:
    stand.menus.open[Seat.A] = Menu(Seat.A, index=stand.menu_items().index(MISSION))
    seen = [stand.settings.of(MISSION)]
    for t in range(7):
        stand.handle(Press("A", KeyName.MENU), float(t))
        seen.append(stand.settings.of(MISSION))
    assert seen == [
        Mission(9, 9),
        Mission(10, 10),
        Mission(11, 11),
        Mission(8, 8),
        Mission(9, 5),
        Mission(7, 7),
        Mission(6, 6),
        Mission(6, 6),  # past the presets: now set any T-M
    ]
    assert stand.menus[Seat.A].editing == "turns"
    stand.handle(Press("A", KeyName.MENU), 8.0)  # turns kept: on to the mistakes
    stand.handle(Press("A", KeyName.MENU), 9.0)  # mistakes kept: 6-6, custom, done
    assert stand.menus[Seat.A].editing is None
    stand.handle(Press("A", KeyName.MENU), 10.0)
    assert stand.settings.of(MISSION) == Mission(9, 9)  # round again


def test_who_gives_the_first_clue_is_chosen_in_the_menu_and_journaled(
    stand: Stand, tmp_path: Path
) -> None:
    stand.menus.open[Seat.B] = Menu(Seat.B, index=stand.menu_items().index(FIRST))
    stand.handle(Press("B", KeyName.MENU), 0.0)
    assert stand.settings.of(FIRST) is Seat.B  # either -> this seat
    stand.handle(Press("B", KeyName.MENU), 0.1)
    assert stand.settings.of(FIRST) is Seat.A  # -> the partner
    stand.new_game()
    stand.handle(Press("B", KeyName.UNDO), 0.2)  # back out of the menu (closed by new game)
    stand.handle(Act("clue", "B"), 0.3)
    assert stand.state.phase is Phase.AWAITING_CLUE  # refused: A opens this game
    stand.handle(Act("clue", "A"), 0.4)
    assert stand.state.clue_giver is Seat.A
    stand.store.close()
    again = Stand(Store(tmp_path / "state"), new_card=card_seq(77))
    again.boot()
    assert again.state == stand.state and again.state.first is Seat.A


def test_an_input_that_cannot_be_saved_is_not_taken_and_the_screens_say_so(
    stand: Stand, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = stand.state
    real = stand.store.record

    def full(event, state=None):
        raise JournalError("journal current.journal: cannot write record 1: No space left")

    monkeypatch.setattr(stand.store, "record", full)
    assert stand.handle(Act("clue", "A"), 0.0)  # a change to show: the fault
    assert stand.state == before  # not taken: never shown as if it were
    assert stand.faults.saving is not None and "No space left" in stand.faults.saving
    panel = SimPanel("epd2in13_V4", rotation=90, speed=0)
    want = views.for_seat(before, Seat.A, Context(cannot_save=True))
    assert (
        screens.render(stand, Seat.A, panel).tobytes()
        == layouts.render(want, screens.spec(panel)).tobytes()
    )
    monkeypatch.setattr(stand.store, "record", real)
    stand.handle(Act("clue", "A"), 1.0)  # the card is back: taken, the note gone
    assert stand.state.clue_giver is Seat.A and stand.faults.saving is None


def screens_of(stand: Stand) -> dict[Seat, bytes]:
    panel = SimPanel("epd2in13_V4", rotation=90)
    return {seat: screens.render(stand, seat, panel).tobytes() for seat in Seat}


def test_a_double_touch_keeps_agent_found_on_both_screens(stand: Stand) -> None:
    """A bouncy grid or a double click: the second touch on the word just found is
    refused by the rules (already covered) but never shown instead of the result."""
    stand.handle(Act("clue", "A"), 0.0)
    agent = min(stand.state.card.agents(Seat.A))
    stand.handle(Touch(*divmod(agent, 5)), 1.0)
    found = screens_of(stand)
    stand.handle(Touch(*divmod(agent, 5)), 1.2)
    assert isinstance(stand.state.last, Rejection)  # the rules did refuse it
    assert screens_of(stand) == found


def test_a_refusal_shows_for_a_few_seconds_then_the_last_result_is_back(stand: Stand) -> None:
    stand.handle(Act("clue", "A"), 0.0)
    agent = min(stand.state.card.agents(Seat.A))
    stand.handle(Touch(*divmod(agent, 5)), 1.0)
    found = screens_of(stand)
    stand.handle(Act("clue", "B"), 2.0)  # B may not clue now: refused
    refused = screens_of(stand)
    assert refused != found
    assert not stand.tick(2.0 + REFUSAL_SHOWN - 0.5)
    assert stand.tick(2.0 + REFUSAL_SHOWN)  # a change for the loop to redraw
    assert screens_of(stand) == found


def test_undone_says_what_was_undone(stand: Stand) -> None:
    stand.handle(Act("clue", "A"), 0.0)
    stand.handle(Touch(*divmod(min(stand.state.card.agents(Seat.A)), 5)), 1.0)
    stand.handle(Act("undo"), 2.0)
    view = views.for_seat(stand.state, Seat.B)
    assert view.last is not None and view.last.undone == "touch"
    from keystand.layouts import play as play_screen

    assert play_screen.last_key(view) == ("last", "undo_touch")
    stand.handle(Act("undo"), 3.0)
    assert views.for_seat(stand.state, Seat.A).last.undone == "clue"


def test_keys_that_do_nothing_say_what_would(stand: Stand) -> None:
    """A short press of menu says to hold it; on the end screen (both sides shown)
    undo and pass say it is too late to undo and clue deals the next game, touches
    that clue does; the hint goes after a few seconds, or at once with the next
    thing that counts."""
    stand.handle(Press("A", KeyName.MENU), 0.0)
    assert stand.hints.said == {Seat.A: ("hold_menu", 0.0)}
    assert views_hint(stand, Seat.A) == "hold_menu" and views_hint(stand, Seat.B) is None
    assert stand.tick(REFUSAL_SHOWN) and stand.hints.said == {}
    assassin = next(i for i, k in enumerate(stand.state.card.a) if k is Key.ASSASSIN)
    stand.handle(Act("clue", "A"), 10.0)
    stand.handle(Touch(*divmod(assassin, 5)), 11.0)
    stand.tick(11.0 + stand.settings.reveal_delay)  # both sides shown
    stand.handle(Press("B", KeyName.UNDO), 30.0)
    assert stand.hints.said[Seat.B][0] == "too_late"  # not only the end line again: why not
    stand.handle(Press("A", KeyName.PASS), 30.5)
    assert stand.hints.said[Seat.A][0] == "too_late"
    stand.hints.clear()
    stand.handle(Touch(0, 0), 31.0)
    assert {s: h[0] for s, h in stand.hints.said.items()} == {
        Seat.A: "new_game",
        Seat.B: "new_game",
    }
    panel = SimPanel("epd2in7_V2", rotation=90)
    drawn = screens.render(stand, Seat.A, panel)
    stand.hints.clear()
    # Once both sides are shown, the end screen says it without a key pressed.
    assert screens.render(stand, Seat.A, panel).tobytes() == drawn.tobytes()
    stand.hints.said[Seat.A] = ("hold_menu", 31.5)
    assert screens.render(stand, Seat.A, panel).tobytes() != drawn.tobytes()  # hints show
    stand.hints.clear()
    stand.handle(Press("A", KeyName.CLUE), 32.0)
    assert stand.state.status is Status.PLAYING and stand.hints.said == {}


def views_hint(stand: Stand, seat: Seat) -> str | None:
    return stand.hints.of(seat)


def test_a_mission_chosen_mid_game_shows_as_next_game_until_it_applies(stand: Stand) -> None:
    stand.menus.open[Seat.A] = Menu(Seat.A, index=stand.menu_items().index(MISSION))
    for t in range(4):  # 9-9 -> 10-10 -> 11-11 -> Moscow 8-8 -> Cairo 9-5
        stand.handle(Press("A", KeyName.MENU), float(t))
    assert stand.settings.of(MISSION) == Mission(9, 5)
    line = screens.menu_view(stand, Seat.A).lines[stand.menu_items().index(MISSION)]
    assert line.next_game and line.named == ("cairo", "9-5")
    stand.menus.open.clear()
    assert stand.state is not None and stand.state.mission == Mission(9, 9)
    for seat in Seat:
        v = views.for_seat(stand.state, seat, Context(chosen=stand.settings.options))
        assert v.next_mission == layouts.MissionLabel("cairo", "9-5")
        assert layouts.play.note_key(v) == "next_mission"
    # Drawn in each language, by the mission's name there.
    drawn = {
        lang: layouts.render(
            views.for_seat(
                stand.state, Seat.A, Context(chosen=Options().with_(MISSION, Mission(9, 5)))
            ),
            layouts.panel("epd2in9_V2", 90),
            lang,
        ).tobytes()
        for lang in ("en", "de", "ru")
    }
    plain = layouts.render(
        views.for_seat(stand.state, Seat.A), layouts.panel("epd2in9_V2", 90), "en"
    ).tobytes()
    assert len(set(drawn.values())) == 3 and plain not in drawn.values()
    assert layouts.i18n.mission("de", "cairo", "9-5") == "Kairo 9-5"
    assert stand.new_game()
    assert stand.state.mission == Mission(9, 5)
    v = views.for_seat(stand.state, Seat.B, Context(chosen=stand.settings.options))
    assert v.next_mission is None  # applied: nothing more to announce
    stand.menus.open[Seat.A] = Menu(Seat.A)
    line = screens.menu_view(stand, Seat.A).lines[stand.menu_items().index(MISSION)]
    assert not line.next_game and line.named == ("cairo", "9-5")


def test_clue_order_and_first_clue_chosen_mid_game_show_as_next_game(stand: Stand) -> None:
    """The rules fix the order and the first clue at the start: chosen during a
    game they wait for the next one, and both seats' menus say so, as for a mission."""

    def waits(seat: Seat) -> set[Setting[Any]]:
        opened = seat in stand.menus
        stand.menus.open.setdefault(seat, Menu(seat))
        lines = screens.menu_view(stand, seat).lines
        if not opened:
            del stand.menus.open[seat]
        own = {s.item: s for s in SETTINGS}
        return {own[line.item.value] for line in lines if line.next_game}

    assert waits(Seat.A) == waits(Seat.B) == set()
    stand.menus.open[Seat.A] = Menu(Seat.A, index=stand.menu_items().index(ORDER))
    stand.handle(Press("A", KeyName.MENU), 0.0)
    assert stand.settings.of(ORDER) and not stand.state.loose_order  # not mid-game
    assert waits(Seat.A) == waits(Seat.B) == {ORDER}
    stand.menus[Seat.A].index = stand.menu_items().index(FIRST)
    stand.handle(Press("A", KeyName.MENU), 1.0)  # either -> A
    assert stand.settings.of(FIRST) is Seat.A and stand.state.first is None
    assert waits(Seat.A) == waits(Seat.B) == {ORDER, FIRST}
    for t in (2.0, 3.0):  # A -> B -> either: as the game in play again
        stand.handle(Press("A", KeyName.MENU), t)
    assert waits(Seat.A) == {ORDER}
    # A second clue in a row by A is still refused: the game in play alternates.
    stand.menus.open.clear()
    stand.handle(Act("clue", "A"), 4.0)
    stand.handle(touch(agent_cell(stand.state.card, Seat.A)), 4.1)
    stand.handle(Act("pass", "B"), 4.2)
    stand.handle(Act("clue", "A"), 4.3)
    assert stand.state.last.reason.value == "clue_out_of_turn"
    assert stand.new_game()
    assert stand.state.loose_order and waits(Seat.A) == waits(Seat.B) == set()


def test_nothing_waits_for_the_next_game_without_a_game_in_play(stand: Stand) -> None:
    from keystand.games import Options
    from keystand.menu import waiting

    chosen = (
        Settings().choosing(MISSION, Mission(9, 5)).choosing(ORDER, True).choosing(FIRST, Seat.B)
    )
    assert waiting(chosen, None, SETTINGS) == frozenset()
    assert waiting(chosen, chosen.options, SETTINGS) == frozenset()
    started = Options().with_(MISSION, Mission(9, 5)).with_(ORDER, False).with_(FIRST, Seat.B)
    assert waiting(chosen, started, SETTINGS) == {ORDER}
    assert waiting(chosen, Options(), SETTINGS) == {MISSION, ORDER, FIRST}
    # The end screen (the game over): the next game is dealt with them as they are.
    stand.state = stand.state.apply(stand.game.act_event(stand.state, "clue", Seat.A))[0]
    stand.settings = chosen
    stand.menus.open[Seat.A] = Menu(Seat.A)
    assert any(line.next_game for line in screens.menu_view(stand, Seat.A).lines)
    assassin = next(i for i, k in enumerate(stand.state.card.a) if k.value == "X")
    stand.handle(touch(assassin), 5.0)
    assert not stand.playing
    assert not any(line.next_game for line in screens.menu_view(stand, Seat.A).lines)


def test_a_mission_of_the_rulebook_has_its_name_and_ones_own_have_none() -> None:
    assert Mission(9, 5).name == "cairo" and Mission(8, 8).name == "moscow"
    assert Mission(9, 9).name is None  # the standard game
    assert Mission(5, 3).name is None


def test_a_finished_game_is_dated_by_its_last_move(tmp_path: Path, monkeypatch) -> None:
    """History dates a won or lost game by its last move, even when the next game
    starts much later (or after a restart); a game left in play, by when it was left."""
    from keystand import store as store_module

    now = ["2026-11-23T09:00:00+0000"]
    monkeypatch.setattr(store_module, "_now", lambda: now[0])
    stand = Stand(Store(tmp_path / "state"), new_card=card_seq())
    stand.boot()
    card = stand.state.card
    stand.handle(Act("clue", "A"), 0.0)
    now[0] = "2026-11-23T09:32:10+0000"
    stand.handle(touch(cell_of(card, Seat.A, Key.ASSASSIN)), 1.0)
    assert stand.state.status is Status.LOST
    now[0] = "2026-11-23T09:40:00+0000"
    again = Stand(Store(tmp_path / "state"), new_card=card_seq(5))  # a restart in between
    again.boot()
    assert again.new_game()
    now[0] = "2026-11-23T09:50:00+0000"
    assert again.new_game()  # the game in play is left
    left, lost = again.store.history()
    assert lost["result"] == "lost" and lost["date"] == "2026-11-23T09:32:10+0000"
    assert left["date"] == "2026-11-23T09:50:00+0000"


def test_an_unreadable_settings_file_is_kept_aside_before_the_defaults_replace_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The seats' choices in a settings file the stand cannot read (a hand edit's
    trailing comma) are kept beside it, durably, and the log names the copy."""
    root = tmp_path / "s"
    root.mkdir()
    broken = b'{"lang": ["de", "ru"], "mission": "7-3", "timer": 120,}\n'
    (root / "settings.json").write_bytes(broken)
    stand = Stand(Store(root), new_card=card_seq(61))
    stand.boot()
    assert stand.settings.lang == Settings().lang  # the defaults, for now
    assert (root / "settings.json.damaged-1").read_bytes() == broken
    assert "settings.json: unreadable" in caplog.text
    assert "the file is kept as settings.json.damaged-1" in caplog.text
    # The defaults are saved in its place: a second start copies nothing again.
    assert json.loads((root / "settings.json").read_text())["lang"] == ["en", "en"]
    stand.store.close()
    Stand(Store(root), new_card=card_seq(61)).boot()
    assert sorted(p.name for p in root.glob("settings.json*")) == [
        "settings.json",
        "settings.json.damaged-1",
    ]
    assert (root / "settings.json.damaged-1").read_bytes() == broken


def test_a_fifo_for_the_settings_file_does_not_hang_the_start(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = tmp_path / "s"
    root.mkdir()
    os.mkfifo(root / "settings.json")  # no writer: a plain read would wait for ever
    stand = Stand(Store(root), new_card=card_seq(62))
    stand.boot()
    assert stand.state is not None and stand.state.card == generate(62)
    assert "settings.json: is a pipe (FIFO), not a regular file" in caplog.text
