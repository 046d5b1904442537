"""The campaign is visible and a new team can begin its own (issue 31 item 5).

- The store keeps the campaign in play in campaign.json; "New campaign" keeps it
  under campaigns/<n>.json as a finished one (nothing shown is lost), then begins
  an empty one; both writes atomic and fsynced (store.atomic_write), the copy
  first.
- The menu's Campaign page lists each mission won, how often and its best score,
  a page at a time as the history; New campaign asks twice.
- `keystand campaign` prints the campaign in play (`--all`: every one; `--json`).
"""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from test_layouts import says

from keystand import cli, games, layouts, screens, store
from keystand.drivers.inputs import KeyName, Press
from keystand.layouts import CampaignLine, MenuView, panel, render
from keystand.layouts import menu as menu_screen
from keystand.layouts.i18n import mission, strings
from keystand.menu import RecordEntry, entry_name
from keystand.rules import Clue, Mission, Pass, Seat, Touch, generate
from keystand.rules.duet import Duet, Status
from keystand.stand import Menu, Settings, Stand
from keystand.store import Store

CAMPAIGN = games.get("duet").record  # Duet's record: the team's campaign
assert CAMPAIGN is not None
PAGE, NEW = RecordEntry("campaign"), RecordEntry("new_campaign", begins=True)


def won(mission_text: str, seed: int = 3) -> Duet:
    """A game of `mission_text` won in two turns (one pass)."""
    card = generate(seed)
    events: list[object] = [Clue(Seat.A)]
    events += [Touch.at(i) for i in sorted(card.agents(Seat.A))]
    events += [Pass(Seat.B), Clue(Seat.B)]
    events += [Touch.at(i) for i in sorted(card.agents(Seat.B) - card.agents(Seat.A))]
    state = Duet.replay(card, Mission.parse(mission_text), events)  # type: ignore[arg-type]
    assert state.status is Status.WON
    return state


def play_and_win(s: Store, mission_text: str, seed: int = 3) -> int:
    state = won(mission_text, seed)
    s.start_game(Duet.start(state.card, state.mission))
    s.finish(state)
    assert state.score is not None
    return state.score


# ----- the store ------------------------------------------------------------------------


def test_a_new_campaign_keeps_the_old_one_finished_and_begins_an_empty_one(tmp_path: Path) -> None:
    s = Store(tmp_path)
    best = play_and_win(s, "cairo")
    play_and_win(s, "cairo", seed=4)
    play_and_win(s, "9-9", seed=5)
    before = s.tally(CAMPAIGN)
    assert before["missions"]["9-5"]["won"] == 2
    fresh = s.new_tally(CAMPAIGN)
    assert fresh["missions"] == {} and fresh["number"] == 2 and fresh["started"]
    assert s.tally(CAMPAIGN) == fresh
    kept = json.loads((tmp_path / "campaigns" / "1.json").read_text())
    assert kept["missions"] == before["missions"] and kept["number"] == 1 and kept["ended"]
    assert kept["missions"]["9-5"]["best"] >= best
    listed = s.tallies(CAMPAIGN)
    assert [c["number"] for c in listed] == [1, 2]
    assert [c.get("current", False) for c in listed] == [False, True]
    # The team's next win counts in its own campaign only.
    play_and_win(s, "moscow", seed=6)
    assert list(s.tally(CAMPAIGN)["missions"]) == ["8-8"]
    assert json.loads((tmp_path / "campaigns" / "1.json").read_text()) == kept


def test_a_campaign_with_nothing_won_is_not_kept(tmp_path: Path) -> None:
    s = Store(tmp_path)
    s.new_tally(CAMPAIGN)
    s.new_tally(CAMPAIGN)
    assert not (tmp_path / "campaigns").exists()
    assert s.tally(CAMPAIGN)["number"] == 1
    assert [c["number"] for c in s.tallies(CAMPAIGN)] == [1]


def test_a_game_counted_before_a_new_campaign_is_not_counted_again(tmp_path: Path) -> None:
    """A won game is counted when its end is final (`list_finished`) and its move to
    the history at the next deal asks again: a new campaign begun between the two
    must not get the old team's win."""
    s = Store(tmp_path)
    state = won("cairo")
    s.start_game(Duet.start(state.card, state.mission))
    s.list_finished(state)
    assert s.tally(CAMPAIGN)["missions"]["9-5"]["won"] == 1
    s.new_tally(CAMPAIGN)
    s.finish(state)
    assert s.tally(CAMPAIGN)["missions"] == {}


def test_both_steps_are_atomic_and_the_copy_comes_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each write replaces its file whole (atomic_write: a temporary file, fsync,
    rename, fsync of the folder); a power cut after the copy leaves the old
    campaign in play, listed once, and the next New campaign completes the step."""
    s = Store(tmp_path)
    play_and_win(s, "cairo")
    writes: list[str] = []
    real = store.atomic_write

    def cut_after_the_copy(path: Path, text: str) -> None:
        writes.append(path.relative_to(tmp_path).as_posix())
        if path.name == "campaign.json":
            raise OSError(28, "No space left on device")
        real(path, text)

    monkeypatch.setattr(store, "atomic_write", cut_after_the_copy)
    with pytest.raises(OSError):
        s.new_tally(CAMPAIGN)
    assert writes == ["campaigns/1.json", "campaign.json"]
    assert s.tally(CAMPAIGN)["missions"]["9-5"]["won"] == 1  # the old one still in play
    assert [c["number"] for c in s.tallies(CAMPAIGN)] == [1]  # its copy not listed twice
    monkeypatch.setattr(store, "atomic_write", real)
    assert s.new_tally(CAMPAIGN)["number"] == 2
    assert [c["number"] for c in s.tallies(CAMPAIGN)] == [1, 2]


def test_a_damaged_finished_campaign_is_passed_over(tmp_path: Path) -> None:
    s = Store(tmp_path)
    play_and_win(s, "cairo")
    s.new_tally(CAMPAIGN)
    (tmp_path / "campaigns" / "7.json").write_text("{torn")
    assert [c["number"] for c in s.tallies(CAMPAIGN)] == [1, 2]


# ----- the rows ---------------------------------------------------------------------------


def test_the_rows_follow_the_menu_s_missions_then_the_team_s_own() -> None:
    data = {
        "missions": {
            "12-3": {"won": 1, "best": 4},
            "9-5": {"won": 2, "best": 14},
            "9-9": {"won": 1, "best": 22},
            "20-1": {"won": 1, "best": 0},
            "bad": {"won": 1, "best": 1},
            "8-8": "torn",
        },
        "number": 3,
        "started": "2026-11-20T10:00:00+0100",
    }
    assert [w.label for w in CAMPAIGN.of(data).wins] == ["9-9", "9-5", "20-1", "12-3"]
    assert CAMPAIGN.lines(data) == [
        "campaign 3 (in play, since 2026-11-20)",
        "  9-9        won 1  best 22",
        "  Cairo 9-5  won 2  best 14",
        "  20-1       won 1  best 0",
        "  12-3       won 1  best 4",
    ]


# ----- the menu ---------------------------------------------------------------------------


def stand(tmp_path: Path) -> Stand:
    s = Stand(Store(tmp_path / "s"), new_card=lambda: generate(9))
    s.boot()
    return s


def test_the_menu_shows_the_campaign_and_a_new_one_asks_twice(tmp_path: Path) -> None:
    s = stand(tmp_path)
    play_and_win(s.store, "cairo", seed=11)
    s.boot()  # the stand as the service starts it: a game in play
    s.menus.open[Seat.A] = Menu(Seat.A, index=s.menu_items().index(PAGE))
    s.handle(Press("A", KeyName.MENU), 1.0)
    view = screens.menu_view(s, Seat.A)
    assert view.campaign is not None
    (line,) = view.campaign
    assert line.mission == ("cairo", "9-5") and line.won == 1
    s.handle(Press("A", KeyName.UNDO), 2.0)  # back to the entries
    assert screens.menu_view(s, Seat.A).campaign is None
    s.handle(Press("A", KeyName.PASS), 2.1)  # New campaign
    assert s.menus[Seat.A].item == NEW
    s.handle(Press("A", KeyName.MENU), 2.2)  # once: it asks again
    shown = screens.menu_view(s, Seat.A)
    entry = next(line for line in shown.lines if line.item.value == "new_campaign")
    assert entry.value_key == "confirm"
    assert s.store.tally(CAMPAIGN)["missions"]  # nothing begun yet
    s.handle(Press("A", KeyName.MENU), 2.3)
    after = screens.menu_view(s, Seat.A)
    assert after.campaign == ()  # the new campaign, empty, on the page
    assert s.store.tally(CAMPAIGN)["missions"] == {}
    assert [c["number"] for c in s.store.tallies(CAMPAIGN)] == [1, 2]


def test_a_new_campaign_the_disk_refuses_is_told(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = stand(tmp_path)
    play_and_win(s.store, "cairo", seed=11)

    def refuse(kind: games.Record) -> dict[str, object]:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(s.store, "new_tally", refuse)
    s.menus.open[Seat.B] = Menu(Seat.B, index=s.menu_items().index(NEW))
    s.handle(Press("B", KeyName.MENU), 1.0)
    s.handle(Press("B", KeyName.MENU), 1.1)
    assert Seat.B not in s.menus  # back to its screen, which says so
    assert s.hints.said[Seat.B][0] == "campaign_unsaved"
    assert s.store.tally(CAMPAIGN)["missions"]["9-5"]["won"] == 1


MENU = tuple(
    layouts.MenuLine(layouts.MenuItem(entry_name(i))) for i in Menu(Seat.A).items
)  # Duet's entries
ROWS = tuple(
    CampaignLine(m, won, best)
    for m, won, best in [
        ((None, "9-9"), 3, 22),
        (("moscow", "8-8"), 1, 14),
        (("cairo", "9-5"), 2, 9),
        (("jakarta", "7-7"), 120, 5),
        (("singapore", "6-6"), 1, -1),
        ((None, "12-3"), 1, 0),
        ((None, "25-25"), 4, 40),
    ]
)


@pytest.mark.parametrize("model", layouts.MODELS)
@pytest.mark.parametrize("rotation", [0, 90])
def test_the_campaign_page_draws_each_mission_its_wins_and_best(model: str, rotation: int) -> None:
    spec = panel(model, rotation)
    lay = menu_screen.layout(spec)
    per = len(lay.rows)
    pages = -(-len(ROWS) // per)
    for lang in layouts.languages():
        s = strings(lang)
        for page in range(pages):
            shown = render(MenuView(MENU, 0, campaign=ROWS, history_page=page), spec, lang)
            for row, value, line in zip(lay.rows, lay.values, ROWS[page * per :], strict=False):
                assert says(shown, spec, mission(lang, *line.mission), row), (lang, line)
                won = str(line.won) if line.won < 100 else "99+"
                text = s["campaign"]["row"].format(won=won, best=line.best)
                assert says(shown, spec, text, value, right=not spec.landscape), (lang, text)
            assert says(shown, spec, s["menu_hint"]["back"], lay.hint, center=True)
        empty = render(MenuView(MENU, 0, campaign=()), spec, lang)
        assert says(empty, spec, s["campaign_empty"]["none"], lay.first_line)


# ----- keystand campaign ------------------------------------------------------------------


def campaign_cli(*argv: str) -> tuple[int, str, str]:
    out, err = StringIO(), StringIO()
    code = cli.main(["campaign", *argv], out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_keystand_campaign_prints_the_campaign_in_play_and_all(tmp_path: Path) -> None:
    s = Store(tmp_path)
    code, out, _ = campaign_cli("--state-dir", str(tmp_path))
    assert code == 0 and out.splitlines() == ["campaign 1 (in play)", "  no missions won yet"]
    score = play_and_win(s, "cairo")
    s.new_tally(CAMPAIGN)
    play_and_win(s, "9-9", seed=5)
    code, out, _ = campaign_cli("--state-dir", str(tmp_path))
    assert code == 0
    first = out.splitlines()[0]
    assert first.startswith("campaign 2 (in play, since ") and "9-9" in out and "Cairo" not in out
    code, out, _ = campaign_cli("--state-dir", str(tmp_path), "--all")
    assert out.splitlines()[0].startswith("campaign 1 (finished")
    assert f"  Cairo 9-5  won 1  best {score}" in out.splitlines()
    code, out, _ = campaign_cli("--state-dir", str(tmp_path), "--all", "--json")
    objects = [json.loads(line) for line in out.splitlines()]
    assert [(o["number"], o["current"]) for o in objects] == [(1, False), (2, True)]
    assert objects[0]["missions"] == {"9-5": {"won": 1, "best": score}}
    assert set(objects[0]) == {"number", "started", "ended", "current", "missions"}


def test_keystand_campaign_refuses_a_bad_state_dir_in_one_line(tmp_path: Path) -> None:
    code, out, err = campaign_cli("--state-dir", str(tmp_path / "none"))
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and "does not exist" in err
    (tmp_path / "campaign.json").mkdir()
    code, out, err = campaign_cli("--state-dir", str(tmp_path))
    assert code == 2 and len(err.splitlines()) == 1 and "is not a file" in err


def test_classic_keeps_no_campaign_entries(tmp_path: Path) -> None:
    s = Stand(Store(tmp_path / "c"), settings=Settings(game="classic"))
    s.boot()
    assert PAGE not in s.menu_items() and NEW not in s.menu_items()
    assert games.get("classic").record is None
