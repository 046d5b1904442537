"""`make soak`'s own checks, so the harness cannot rot or pass what it should not:
each oracle is shown a fault it must name (a dropped, changed or invented
record, a cut with no copy, a doubled or phantom touch, a game in play with an
end record) and the right behaviour it must pass; and a quick run of the
damage category writes its figures. The soak itself is `make soak`, not here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "soak"))

import damage  # noqa: E402  (soak/ is a folder of scripts, as bench/ is)
import grids  # noqa: E402
import oracle  # noqa: E402
from common import load_journal  # noqa: E402

from keystand import games  # noqa: E402
from keystand.journal import Journal  # noqa: E402

CODE = "JYVN-0YEP-FZX9"  # seat A's agents: 4 5 6 7 10 11 16 19 23; assassins 0 17 22
AT = "2026-01-01T12:00:00+0000"


def start_record() -> dict:
    game = games.get("duet")
    return {
        "t": "start",
        "id": "0a1b2c3d4e5f",
        "at": AT,
        **game.start_record(game.start(game.card_from_code(CODE))),
    }


def events(*texts: str) -> list[dict]:
    return [{"t": "event", "e": text, "at": AT} for text in texts]


@pytest.fixture
def original() -> damage.Original:
    return damage.original_of("duet", [start_record(), *events("clue A", "touch 0 4", "touch 1 0")])


# -- damaged journals -----------------------------------------------------------------


def test_the_journal_as_written_and_every_torn_tail_pass(original, tmp_path: Path) -> None:
    for variant in [
        damage.damaged(original, "whole", original.data),
        *damage._cuts(original, False),
    ]:
        path = tmp_path / "current.journal"
        path.write_bytes(variant.data)
        got = [data for _seq, data in load_journal(path).records]
        assert damage.judge(variant, got, path.read_bytes(), []) == [], variant.case


def test_a_record_dropped_changed_or_invented_is_named(original) -> None:
    v = damage.damaged(original, "whole", original.data)
    records = original.records
    assert damage.judge(v, records[:3], original.data, [])[0][0] == "lost"
    changed = [*records[:3], {**records[3], "e": "touch 4 4"}]
    assert damage.judge(v, changed, original.data, [])[0][0] == "changed"
    invented = [*records, *events("pass B")]
    assert damage.judge(v, invented, original.data, [])[0][0] == "changed"


def test_a_cut_of_damage_needs_its_copy_a_torn_tail_does_not(original) -> None:
    end = original.spans[-2][1]
    hurt = bytearray(original.data)
    hurt[end + 3] ^= 0x10  # inside the last record's head: damage, with a line end after it
    v = damage.damaged(original, "bit", bytes(hurt))
    kept = original.records[:-1]
    assert v.keep == len(kept) and not v.torn_ok
    assert damage.judge(v, kept, original.data[:end], [])[0][0] == "lost"
    assert damage.judge(v, kept, original.data[:end], [bytes(hurt)]) == []
    torn = damage.Variant(
        "cut", original.data[: end + 5], len(kept), original.records, torn_ok=True
    )
    assert damage.judge(torn, kept, original.data[:end], []) == []


def test_a_damaged_line_end_alone_leaves_its_record_one_to_keep(original) -> None:
    hurt = bytearray(original.data)
    hurt[-1] ^= 0x01  # the last record's "\n": its length and CRC are sound
    v = damage.damaged(original, "bit", bytes(hurt))
    assert v.keep == len(original.records)
    assert (
        damage.judge(v, original.records[:-1], original.data[: original.spans[-1][0]], [])[0][0]
        == "lost"
    )


def test_the_loaders_call_is_the_journals_own(tmp_path: Path) -> None:
    path = tmp_path / "current.journal"
    with Journal.open(path)[0] as journal:
        journal.append({"t": "start"})
    assert load_journal(path).records == [(0, {"t": "start"})]


# -- what a kill chain's run journaled --------------------------------------------------


def plan(lines: str) -> list:
    return oracle.plan_of("duet", lines, "playing").same


def test_the_scripts_events_in_order_or_a_prefix_of_them_pass() -> None:
    script = plan("clue A\ntouch 0 4\nwait 5\ntouch 1 1\npass B\n")
    head = [start_record()]
    assert oracle.walk(head, events("clue A", "touch 0 4", "touch 1 1", "pass B"), script) == []
    assert oracle.walk(head, events("clue A", "touch 0 4"), script) == []
    assert oracle.walk(head, [], script) == []


@pytest.mark.parametrize(
    ("journaled", "kind"),
    [
        (("clue A", "touch 0 4", "touch 0 4"), "double"),
        (("clue A", "touch 3 3"), "phantom"),
        (("clue A", "touch 1 1"), "lost"),
        (("clue B",), "changed"),
        (("clue A", "touch 0 4", "touch 1 1", "pass B", "clue B"), "changed"),
    ],
)
def test_an_event_the_script_does_not_make_is_named(journaled, kind) -> None:
    script = plan("clue A\ntouch 0 4\ntouch 1 1\npass B\n")
    problems = oracle.walk([start_record()], events(*journaled), script)
    assert [k for k, _ in problems] == [kind]


def test_with_steps_passed_over_the_events_of_some_steps_pass_and_no_others() -> None:
    """The edges' chains (a full disk, a stuck panel): a step may not be taken, so
    the records are the events of some of the steps, each judged from the game
    the records before it left (the touch after an untaken clue is judged
    without it); a touch no step makes, or one taken twice, is still named."""
    script = plan("clue A\ntouch 0 4\nclue A\ntouch 1 1\npass B\n")
    head = [start_record()]
    walk = oracle.walk
    assert walk(head, events("clue A", "touch 1 1", "pass B"), script, skips=True) == []
    assert walk(head, events("clue A", "touch 0 4", "pass B"), script, skips=True) == []
    assert walk(head, events("clue A", "touch 1 1"), script) != []  # without skips: lost
    assert [k for k, _ in walk(head, events("clue A", "touch 3 3"), script, skips=True)] == [
        "phantom"
    ]
    double = events("clue A", "touch 0 4", "touch 0 4")
    assert [k for k, _ in walk(head, double, script, skips=True)] == ["double"]


def test_a_checkpoint_is_passed_over_by_the_walk_and_checked_against_the_game() -> None:
    """A checkpoint follows an event in its write: no step of the script; what it
    holds must be the game's undo chain there (the start resumes from it)."""
    script = plan("clue A\ntouch 0 4\nundo\ntouch 1 1\n")
    head = [start_record()]
    mark = {"t": "checkpoint", "events": ["clue A", "touch 1 1"], "size": 1, "crc": "0"}
    added = [*events("clue A", "touch 0 4", "undo", "touch 1 1"), mark]
    assert oracle.walk(head, added, script) == []
    assert oracle.checkpoints([*head, *added]) == []
    wrong = {**mark, "events": ["clue A", "touch 0 4", "touch 1 1"]}  # the undone one kept
    assert [k for k, _ in oracle.checkpoints([*head, *added[:-1], wrong])] == ["changed"]


def test_records_gone_or_changed_across_a_restart_are_named() -> None:
    before = [start_record(), *events("clue A", "touch 0 4")]
    assert oracle.kept_whole(before, [*before, *events("pass B")], "g") == []
    assert oracle.kept_whole(before, before[:2], "g")[0][0] == "lost"
    assert oracle.kept_whole(before, [*before[:2], *events("touch 1 1")], "g")[0][0] == "changed"


# -- touches ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("got", "figures"),
    [
        ([(2, 2)], (0, 0, 0)),
        ([], (1, 0, 0)),
        ([(2, 2), (2, 2)], (0, 1, 0)),
        ([(2, 2), (1, 1)], (0, 0, 1)),
    ],
)
def test_one_touch_per_contact(got, figures) -> None:
    count = grids.Count()
    count.judge((2, 2), got)
    assert (count.lost, count.double, count.phantom) == figures


# -- a quick run writes its figures ----------------------------------------------------------


def test_a_quick_damage_run_writes_every_figure(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "soak" / "run.py"), "--only", "damage", "--quick",
         "--seed", "1", "--json", str(out), "--markdown", str(tmp_path / "r.md"),
         "--keep", str(tmp_path / "kept")],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr  # 1: it found failures, and said which
    results = json.loads(out.read_text())
    figures = results["categories"]["damage"]
    assert figures["variants"] > 500 and figures["stand_starts"] > 0
    for key in ("lost", "changed", "stranded", "phantom", "double"):
        assert isinstance(figures[key], int)
    assert all(
        f["repro"].startswith('make soak SOAK_ARGS="--seed 1 --only damage --case ')
        for f in figures["failures"]
    )
    text = (tmp_path / "r.md").read_text()
    assert text.startswith("# Reliability") and "| damage |" in text and "seed: 1" in text


def test_a_merged_run_keeps_the_other_categories_each_naming_its_run() -> None:
    """`--only edges --merge`: the edges' figures replace theirs in the figures
    files; kill's stay as the earlier whole run wrote them, and the page says
    which run each category comes from."""
    import report
    import run as soak

    machine = {"cpu": "cpu", "cores": 2, "arch": "x86_64", "python": "3.11", "system": "Linux"}
    whole = {"command": "make soak", "date": "2026-11-25", "seed": 873108}
    before = {**whole, "categories": {"kill": {"lost": 0, "cuts": 1744}, "edges": {"lost": 3}}}
    part = {
        "command": 'make soak SOAK_ARGS="--only edges --merge"',
        "date": "2026-11-28",
        "seed": 7,
    }
    edges = {"lost": 0, "eio_windows": 6, "seconds": 300.0, "run": part}
    now = {**part, "machine": {**machine, "root": True}, "seconds": 301.0, "quick": False,
           "categories": {"edges": edges}}  # fmt: skip
    merged = soak.merged(before, now)
    assert list(merged["categories"]) == ["edges", "kill"] and merged["merged"]
    assert merged["categories"]["edges"] == edges
    kept_run = {**whole, "machine": "a machine not recorded"}  # none in `before`
    assert merged["categories"]["kill"] == {"lost": 0, "cuts": 1744, "run": kept_run}
    merged["goals"] = report.goals(merged)
    text = report.markdown(merged)
    assert "- from `make soak` on 2026-11-25, seed 873108, a machine not recorded" in text
    assert '- from `make soak SOAK_ARGS="--only edges --merge"` on 2026-11-28, seed 7' in text
    assert "| kill | 1,744 cuts" in text and "| eio_windows | 6 |" in text
    alone = soak.merged({"categories": {}}, now)  # nothing before: one run, said once
    alone["goals"] = report.goals(alone)
    assert not alone["merged"] and "- from `" not in report.markdown(alone)


# -- a full disk's checks (the tmpfs itself is `make soak`'s) ------------------------------


def test_a_game_in_play_with_an_end_record_or_settings_not_saved_are_named(
    tmp_path: Path,
) -> None:
    import disk

    t = disk.Table(tmp_path / "state")
    disk._played(t)
    before, records = t.seen(), load_journal(tmp_path / "state" / "current.journal").records
    kept = [data for _seq, data in records]
    assert disk._durable(t, before, kept) == [] and disk._settings_saved(t)
    t.stand.settings = disk.Settings(lang=("de", "en"))  # shown, never saved
    assert not disk._settings_saved(t)
    with Journal.open(tmp_path / "state" / "current.journal")[0] as journal:
        journal.append({"t": "end", "at": AT, "result": "playing"})  # as a refused New game left it
    assert [k for k, _ in disk._durable(t, before, kept)] == ["lost"]
    t.stand.store.close()
