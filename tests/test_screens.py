"""The stand's screens beyond the game: the menu shows nothing of the game, an
undo request shows on both seats, history is read once per visit, a failed panel
is told on the other seat's screen in every game and on every screen."""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import replace
from pathlib import Path

import pytest
from command import run_script
from page_stand import PageStand, serving, wait_for
from real_inputs import pi_profile

from keystand import games, layouts, screens
from keystand.drivers.display import SimPanel
from keystand.drivers.inputs import Act, KeyName, Press, Touch
from keystand.games import Context
from keystand.games.classic import views as classic_views
from keystand.games.duet import views
from keystand.games.duet.settings import MISSION
from keystand.layouts.menu import layout as menu_layout
from keystand.rules import Key, Seat, generate
from keystand.rules.classic_card import ClassicCard, ClassicKey
from keystand.rules.duet import Status
from keystand.stand import Item, Menu, Settings, Stand
from keystand.store import Store

PANELS = [SimPanel(m, rotation=r, speed=0) for m in layouts.MODELS for r in (0, 90)]


def stand(tmp_path: Path, seed: int) -> Stand:
    s = Stand(Store(tmp_path / f"s{seed}"), new_card=lambda: generate(seed))
    s.boot()
    return s


def test_the_menu_shows_nothing_of_the_game(tmp_path: Path) -> None:
    one, two = stand(tmp_path, 1), stand(tmp_path, 2)
    two.handle(Act("clue", "B"), 0.0)
    two.handle(Touch(*divmod(min(two.state.card.agents(Seat.B)), 5)), 0.1)
    assert one.state.card != two.state.card
    for s in (one, two):
        s.menus.open[Seat.A] = Menu(Seat.A, index=2)
    for lang in layouts.languages():
        for s in (one, two):
            s.settings = Settings(lang=(lang, lang))
        for panel in PANELS:
            a = screens.render(one, Seat.A, panel)
            b = screens.render(two, Seat.A, panel)
            assert a.tobytes() == b.tobytes(), (panel.model.name, panel.rotation, lang)


def test_an_undo_request_shows_on_both_screens(tmp_path: Path) -> None:
    s = stand(tmp_path, 3)
    s.handle(Act("clue", "A"), 0.0)
    s.handle(Touch(*divmod(min(s.state.card.agents(Seat.A)), 5)), 0.1)
    panel = PANELS[0]
    spec = screens.spec(panel)
    before = {seat: screens.render(s, seat, panel).tobytes() for seat in Seat}
    s.handle(Press("B", KeyName.UNDO), 1.0)
    for seat in Seat:
        shown = screens.render(s, seat, panel)
        want = layouts.render(views.for_seat(s.state, seat, Context(undo_asked=Seat.B)), spec)
        assert shown.tobytes() == want.tobytes()
        assert shown.tobytes() != before[seat]
    s.tick(1.0 + s.settings.undo_window + 0.5)  # the request lapses: the note goes
    assert {seat: screens.render(s, seat, panel).tobytes() for seat in Seat} == before


def test_history_is_read_once_per_visit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = stand(tmp_path, 4)
    s.handle(Act("clue", "A"), 0.0)
    s.new_game()  # the first game is abandoned: one history line
    reads = []
    real = s.store.history
    monkeypatch.setattr(s.store, "history", lambda limit=None: reads.append(1) or real(limit))
    s.menus.open[Seat.B] = Menu(Seat.B, index=s.menu_items().index(Item.HISTORY))
    s.handle(Press("B", KeyName.MENU), 1.0)
    for _ in range(3):
        view = screens.menu_view(s, Seat.B)
        s.handle(Touch(0, 0), 2.0)  # the other seat plays on: redraws
    assert len(reads) == 1
    assert view.history is not None and [g.result for g in view.history] == ["abandoned"]
    s.handle(Press("B", KeyName.UNDO), 3.0)  # undo: back to the menu
    assert screens.menu_view(s, Seat.B).history is None


def test_a_stray_last_touch_can_be_undone_before_the_key_is_shown(tmp_path: Path) -> None:
    """The end screen holds back the partner's side and the card code for a few
    seconds; both seats' undo then reopens the game, no key having been shown.
    Once the key is shown, undo is refused: the players have seen the whole card."""
    s = stand(tmp_path, 5)
    card = s.state.card
    assassin = min(i for i, k in enumerate(card.a) if k.value == "X")
    s.handle(Act("clue", "A"), 0.0)
    s.handle(Touch(*divmod(assassin, 5)), 1.0)
    assert s.state.status is Status.LOST and not s.revealed
    for seat in Seat:
        view = views.for_seat(s.state, seat, Context(reveal=s.revealed))
        assert view.end is not None and view.end.held
        assert view.end.card_code is None and view.end.partner_side is None
        shown = screens.render(s, seat, PANELS[0])
        assert shown.tobytes() == layouts.render(view, screens.spec(PANELS[0])).tobytes()
    s.handle(Press("A", KeyName.UNDO), 2.0)
    s.handle(Press("B", KeyName.UNDO), 3.0)
    assert s.state.status is Status.PLAYING  # the stray touch taken back
    s.handle(Touch(*divmod(assassin, 5)), 4.0)  # touched again, for real this time
    assert s.tick(4.0 + s.settings.reveal_delay)
    assert s.revealed
    full = views.for_seat(s.state, Seat.A, Context(reveal=s.revealed))
    assert full.end.card_code == card.code and full.end.partner_side is not None
    s.handle(Press("A", KeyName.UNDO), 20.0)
    s.handle(Press("B", KeyName.UNDO), 21.0)
    assert s.state.status is Status.LOST  # refused: the whole card has been seen


def test_the_menu_opens_on_close_and_leaving_a_game_needs_a_second_press(tmp_path: Path):
    s = stand(tmp_path, 6)
    first = s.state
    s.handle(Press("A", KeyName.MENU, long=True), 0.0)
    s.handle(Press("A", KeyName.MENU), 0.1)  # a double press: closes, nothing else
    assert Seat.A not in s.menus and s.state is first
    s.handle(Press("A", KeyName.MENU, long=True), 0.2)
    s.handle(Press("A", KeyName.PASS), 0.3)  # down to New game
    s.handle(Press("A", KeyName.MENU), 0.4)
    assert s.state is first  # a game in play: asks once more
    assert screens.menu_view(s, Seat.A).lines[1].value_key == "confirm"
    s.handle(Press("A", KeyName.MENU), 0.5)
    assert s.state is not first and s.state.agents_found == 0


# ----- a failed panel is told on the other seat's screen, in every game and screen -----


CLASSIC_CARD = ClassicCard.from_code("9CY-EPF-ZXQ")  # ..X.. in row 1: the assassin at 8


def playing(tmp_path: Path, game: str) -> Stand:
    """A game in play: the first clue given, nothing touched yet."""
    card = CLASSIC_CARD if game == "classic" else generate(11)
    s = Stand(Store(tmp_path / game), settings=Settings(game=game), new_card=lambda: card)
    s.boot()
    s.handle(Act("clue", "A"), 0.0)
    return s


def to_screen(s: Stand, screen: str, seat: Seat) -> None:
    """Take `seat`'s screen to the menu, or end the game (the key held back, then shown)."""
    if screen == "menu":
        s.handle(Press(seat.value, KeyName.MENU, long=True), 1.0)
        assert seat in s.menus
    elif screen.startswith("end"):
        if isinstance(s.state.card, ClassicCard):
            assassin = s.state.card.keys.index(ClassicKey.ASSASSIN)
        else:  # A gave the clue: B guesses, judged by A's side
            assassin = next(i for i, k in enumerate(s.state.card.a) if k is Key.ASSASSIN)
        s.handle(Touch(*divmod(assassin, 5)), 1.0)
        assert not s.playing and not s.revealed
        if screen == "end-shown":
            assert s.tick(1.0 + s.settings.reveal_delay)
            assert s.revealed


def told_view(s: Stand, seat: Seat) -> layouts.AnyView:
    """What `seat`'s screen must show while the other seat's panel fails, built here
    from the game's own views with the flag set, not through `screens.context`."""
    if seat in s.menus:
        return replace(screens.menu_view(s, seat), other_panel_failed=True)
    if isinstance(s.state.card, ClassicCard):
        build = classic_views.spymasters if seat is Seat.A else classic_views.operatives
        return build(s.state, Context(reveal=s.revealed, partner_panel_failed=True))
    return views.for_seat(s.state, seat, Context(reveal=s.revealed, partner_panel_failed=True))


@pytest.mark.parametrize("game", ["duet", "classic"])
@pytest.mark.parametrize("screen", ["play", "menu", "end-held", "end-shown"])
@pytest.mark.parametrize("failing", list(Seat))
def test_a_failed_panel_is_told_on_the_other_seats_screen(
    tmp_path: Path, game: str, screen: str, failing: Seat
) -> None:
    s = playing(tmp_path, game)
    healthy = failing.partner
    to_screen(s, screen, healthy)
    panel = PANELS[0]
    before = {seat: screens.render(s, seat, panel).tobytes() for seat in Seat}
    assert screens.public(s)["panel_failed"] == []
    s.panel_health(failing, "seat A (epd2in13_V4): BUSY on GPIO24 stayed high")
    shown = screens.render(s, healthy, panel)
    want = layouts.render(told_view(s, healthy), screens.spec(panel), "en")
    assert shown.tobytes() == want.tobytes()
    assert shown.tobytes() != before[healthy]
    # The failing panel is not told of itself (it could not show it anyway).
    assert screens.render(s, failing, panel).tobytes() == before[failing]
    assert screens.public(s)["panel_failed"] == [failing.value]
    s.panel_health(failing, None)  # it shows frames again: the notice goes
    assert {seat: screens.render(s, seat, panel).tobytes() for seat in Seat} == before
    assert screens.public(s)["panel_failed"] == []


# ----- end to end: `keystand run --emulate` with a panel stuck -------------------------

DUET_CODE = "5VHK-ZHXC-WE7S"


def emulated_stand(
    tmp_path: Path, game: str, code: str | None
) -> AbstractContextManager[PageStand]:
    """`keystand run --emulate`: two 2.7" V2 panels on the real drivers over
    emulated controllers, seat A's stuck from its second refresh, the simulator
    page to play on, the key held back for one second at the end; a new game on
    the card `code`, or (None) the game in play in the state dir."""
    profile = tmp_path / "pi.toml"
    profile.write_text(pi_profile('["simulator"]', stand="reveal_delay = 1\n"))
    card = ("--card-code", code) if code is not None else ()
    return serving(
        tmp_path,
        *("--profile", str(profile), "--game", game, *card, "--speed", "0.01"),
        *("--emulate", str(tmp_path / "frames"), "--emulate-fault", "A:busy-stuck"),
    )


@pytest.mark.parametrize("game", ["duet", "classic"])
def test_a_stuck_panel_is_told_on_the_other_emulated_screen_in_play_at_the_end_and_in_the_menu(
    tmp_path: Path, game: str
) -> None:
    """Seat A's panel sticks (BUSY high) at its second refresh; the page's status says
    it fails, and seat B's emulated panel says so in play, on the end screen once the
    key is shown, and in the menu."""
    rules_game = games.get(game)
    card = rules_game.card_from_code(DUET_CODE if game == "duet" else CLASSIC_CARD.code)
    spec = layouts.panel("epd2in7_V2", 90)

    def b_view(state: object, failed: bool = True) -> layouts.AnyView:
        if game == "classic":
            return classic_views.operatives(state, Context(partner_panel_failed=failed))
        return views.for_seat(state, Seat.B, Context(partner_panel_failed=failed))

    state = rules_game.start(card)
    first = "press A clue"  # the clue, A's second refresh: its BUSY stays high
    if game == "classic":
        # Its clue key would choose the number first, and that frame would be A's
        # second: the clue journaled before, and an agent found is that refresh.
        script = tmp_path / "clue.txt"
        script.write_text("clue blue 2\n")
        done = run_script(tmp_path / "state", script, "--game", game, "--card-code", card.code)
        assert done.returncode == 0, done.stderr
        state, _ = state.apply(rules_game.parse_event("clue blue 2"))
        agent = min(card.agents(state.team))
        first = f"touch {agent // 5} {agent % 5}"
    with emulated_stand(tmp_path, game, card.code if game == "duet" else None) as stand:
        # The page answers before the loop's first status: wait for that, not a time.
        wait_for(lambda: stand.status().get("panel_failed") == [], "the stand's first status")
        stand.send(first)
        if game == "duet":
            state, _ = state.apply(rules_game.key_event(state, Seat.A, "clue"))
        else:
            state, _ = state.apply(rules_game.touch_event(state, *divmod(agent, 5), penalty=False))
        wait_for(lambda: stand.status().get("panel_failed") == ["A"], "A's panel to fail")
        wait_for(lambda: stand.shows("B", layouts.render(b_view(state), spec)), "B's play screen")

        if game == "classic":
            assassin = card.keys.index(ClassicKey.ASSASSIN)
        else:
            assassin = next(i for i, k in enumerate(card.a) if k is Key.ASSASSIN)
        stand.send(f"touch {assassin // 5} {assassin % 5}")
        state, _ = state.apply(rules_game.touch_event(state, *divmod(assassin, 5), penalty=False))
        assert not rules_game.playing(state)
        ended = layouts.render(b_view(state), spec)
        assert ended.tobytes() != layouts.render(b_view(state, failed=False), spec).tobytes()
        wait_for(lambda: stand.shows("B", ended), "B's end screen with the key shown")

        stand.send("press B menu long")
        foot = menu_layout(spec).hint
        notice = layouts.render(
            layouts.MenuView((layouts.MenuLine(layouts.MenuItem.CLOSE),), other_panel_failed=True),
            spec,
        ).crop(foot.box)
        wait_for(
            lambda: stand.screen("B").crop(foot.box).tobytes() == notice.tobytes(),
            "B's menu with the notice at its foot",
        )
        assert stand.status()["panel_failed"] == ["A"]  # A never came back
    assert "panel A" in stand.err.read_text() and "BUSY" in stand.err.read_text()


def test_the_history_pages_through_the_newest_games(tmp_path: Path) -> None:
    """After an evening of games the History entry reaches back through them: pass
    pages down (older), clue up (newer), both wrap round as the menu's entries do;
    undo goes back to the entries, and the next visit starts on the newest page."""
    from keystand.menu import HISTORY_GAMES
    from keystand.rules import Mission

    s = stand(tmp_path, 6)
    for turns in range(1, 17):  # 17 games left for a new one: each listed as abandoned
        s.settings = s.settings.choosing(MISSION, Mission(turns, 0))
        assert s.new_game()  # the one before it (the first, dealt at boot: 9-9) listed
    s.menus.open[Seat.B] = Menu(Seat.B, index=s.menu_items().index(Item.HISTORY))
    s.handle(Press("B", KeyName.MENU), 0.0)
    view = screens.menu_view(s, Seat.B)
    assert view.history is not None and len(view.history) == 16  # all, newest first
    assert [g.label for g in view.history] == [*(f"{t}-0" for t in range(15, 0, -1)), "9-9"]
    for panel in PANELS:  # each visit starts on the newest page
        s.handle(Press("B", KeyName.UNDO), 0.5)
        s.handle(Press("B", KeyName.MENU), 0.6)
        per = len(menu_layout(screens.spec(panel)).rows)
        pages = -(-16 // per)
        seen, drawn = [], set()
        for k in range(pages):
            v = screens.menu_view(s, Seat.B)
            page, count = layouts.menu.history_page(v, per)
            assert (page, count) == (k, pages)
            seen += [g.label for g in v.history[page * per : (page + 1) * per]]
            drawn.add(screens.render(s, Seat.B, panel).tobytes())
            s.handle(Press("B", KeyName.PASS), 1.0)  # down: the older games
        assert seen == [g.label for g in view.history]  # every game, once, in order
        assert len(drawn) == pages
        assert layouts.menu.history_page(screens.menu_view(s, Seat.B), per)[0] == 0  # wrapped
        s.handle(Press("B", KeyName.CLUE), 2.0)  # up from the newest: the oldest page
        assert layouts.menu.history_page(screens.menu_view(s, Seat.B), per)[0] == pages - 1
        s.handle(Press("B", KeyName.PASS), 3.0)
    s.handle(Press("B", KeyName.UNDO), 4.0)  # back to the entries
    assert s.menus[Seat.B].history is None and s.menus[Seat.B].item is Item.HISTORY
    s.handle(Press("B", KeyName.MENU), 5.0)
    s.handle(Press("B", KeyName.PASS), 5.1)
    assert s.menus[Seat.B].page == 1
    s.handle(Press("B", KeyName.MENU), 5.2)  # menu goes back too
    assert s.menus[Seat.B].history is None and s.menus[Seat.B].page == 0
    assert HISTORY_GAMES == 50  # README and docs/screens.md say the newest 50


def test_the_history_holds_the_newest_fifty_games(tmp_path: Path) -> None:
    s = stand(tmp_path, 7)
    for _ in range(55):
        assert s.new_game()
    s.menus.open[Seat.A] = Menu(Seat.A, index=s.menu_items().index(Item.HISTORY))
    s.handle(Press("A", KeyName.MENU), 0.0)
    listed = [g["id"] for g in s.store.history()]
    assert [g["id"] for g in s.menus[Seat.A].history] == listed[:50]
