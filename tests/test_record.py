"""A game's record is the game's own declaration (`Game.record`, games/record.py):
the host keeps, pages and prints whatever record the game declares, under the
names it gives. Duet's campaign is one (tests/test_campaign.py); here a record
of another name stands in for it, so nothing of the campaign's names can be the
host's own: its file and folder, its key of wins, its menu entries and its command
all follow the declaration, and the defaults read, sort and print it plainly.
"""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest

from keystand import cli, games
from keystand.menu import RecordEntry, items_of
from keystand.rules import Clue, Mission, Pass, Seat, Touch, generate
from keystand.rules.duet import Duet, Status
from keystand.store import Store

LEAGUE = games.Record(
    "league",
    new_item="new_league",
    labels="teams",
    unsaved_hint="campaign_unsaved",
    help="the league's table",
    description="Each team's wins.",
)


@pytest.fixture
def league(monkeypatch: pytest.MonkeyPatch) -> games.Record:
    """Duet keeping LEAGUE instead of its campaign, its menu naming its entries."""
    duet = games.get("duet")
    items = tuple(
        {"campaign": "league", "new_campaign": "new_league"}.get(n, n) for n in duet.menu_items
    )
    monkeypatch.setattr(duet, "record", LEAGUE)
    monkeypatch.setattr(duet, "menu_items", items)
    return LEAGUE


def win(s: Store, mission: str, seed: int) -> int:
    card = generate(seed)
    events: list[object] = [Clue(Seat.A), *(Touch.at(i) for i in sorted(card.agents(Seat.A)))]
    events += [Pass(Seat.B), Clue(Seat.B)]
    events += [Touch.at(i) for i in sorted(card.agents(Seat.B) - card.agents(Seat.A))]
    state = Duet.replay(card, Mission.parse(mission), events)  # type: ignore[arg-type]
    assert state.status is Status.WON and state.score is not None
    s.start_game(Duet.start(card, state.mission))
    s.finish(state)
    return state.score


def test_the_store_keeps_a_record_under_the_names_it_declares(
    tmp_path: Path, league: games.Record
) -> None:
    s = Store(tmp_path)
    score = win(s, "9-5", 3)
    saved = json.loads((tmp_path / "league.json").read_text())
    assert saved["teams"] == {"9-5": {"won": 1, "best": score}}
    assert not (tmp_path / "campaign.json").exists()
    assert s.tally(league) == saved
    fresh = s.new_tally(league)
    assert fresh["teams"] == {} and fresh["number"] == 2
    kept = json.loads((tmp_path / "leagues" / "1.json").read_text())
    assert kept["teams"] == saved["teams"] and kept["ended"]
    assert [c["number"] for c in s.tallies(league)] == [1, 2]


def test_a_game_without_a_record_counts_no_win(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(games.get("duet"), "record", None)
    s = Store(tmp_path)
    win(s, "9-9", 3)
    assert [g["result"] for g in s.history()] == ["won"]  # in the history, in no record
    assert sorted(p.name for p in tmp_path.glob("*.json")) == []


def test_the_menu_takes_a_record_s_entries_from_its_game(league: games.Record) -> None:
    items = items_of("duet")
    assert RecordEntry("league") in items
    assert RecordEntry("new_league", begins=True) in items
    assert not any(getattr(i, "value", None) == "campaign" for i in items)


def test_the_defaults_read_sort_and_print_a_record_plainly() -> None:
    data = {
        "teams": {"red": {"won": 2, "best": 5}, "blue": {"won": 1, "best": 9}, "x": "torn"},
        "number": 4,
        "ended": "2026-11-21T10:00:00+0100",
    }
    assert [w.label for w in LEAGUE.of(data).wins] == ["red", "blue"]  # the file's order
    assert LEAGUE.lines(data) == [
        "league 4 (finished, finished 2026-11-21)",
        "  red   won 2  best 5",
        "  blue  won 1  best 9",
    ]
    assert LEAGUE.lines({"teams": {}}) == ["league 1 (in play)", "  no teams won yet"]
    assert LEAGUE.public(data)["teams"] == {
        "red": {"won": 2, "best": 5},
        "blue": {"won": 1, "best": 9},
    }
    assert LEAGUE.named("red") == (None, "red")


def test_the_cli_names_a_record_s_command_as_its_game_declares(
    tmp_path: Path, league: games.Record
) -> None:
    win(Store(tmp_path), "9-5", 3)
    out, err = StringIO(), StringIO()
    assert cli.main(["league", "--state-dir", str(tmp_path), "--json"], out=out, err=err) == 0
    (line,) = out.getvalue().splitlines()
    assert json.loads(line)["teams"]["9-5"]["won"] == 1
    out, err = StringIO(), StringIO()
    assert cli.main(["campaign", "--state-dir", str(tmp_path)], out=out, err=err) == 2
    assert "campaign" in err.getvalue() and out.getvalue() == ""
