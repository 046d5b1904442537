"""A full disk, for real: the state dir on a tiny tmpfs, filled to the last byte,
through dealing, playing, finishing and restarting. Nothing the stand refused to
save is shown as taken, nothing is ever named None, and every event the stand
took is on disk. Needs to mount a tmpfs (root on Linux); skipped otherwise, with
the reason (tests/test_run.py covers the same paths with an injected ENOSPC)."""

from __future__ import annotations

import errno
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import tmpfs

from keystand.drivers.inputs import Act, KeyName, Press, Touch
from keystand.rules import generate
from keystand.rules.duet import Status
from keystand.stand import Stand
from keystand.store import Store


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    with tmpfs.mounted(tmp_path, "256k") as mount:
        yield mount


def fill(disk: Path) -> Path:
    """Write until the filesystem refuses: the disk is full to the last byte."""
    filler = disk / "filler"
    with open(filler, "ab", buffering=0) as f:
        for size in (4096, 1):
            try:
                while True:
                    f.write(b"\0" * size)
            except OSError as e:
                assert e.errno == errno.ENOSPC
    return filler


def no_none(root: Path) -> None:
    for path in root.rglob("*"):
        assert "None" not in path.name, path
    for name in ("history.jsonl", "campaign.json"):
        if (root / name).exists():
            assert "None" not in (root / name).read_text()
            assert "null" not in json.dumps(
                [json.loads(ln).get("id") for ln in (root / name).read_text().splitlines()]
                if name == "history.jsonl"
                else []
            )


def test_a_full_disk_through_dealing_playing_finishing_and_restarting(tiny_disk: Path) -> None:
    root = tiny_disk / "state"
    card = generate(77)
    assassin = next(i for i, k in enumerate(card.a) if k.value == "X")
    cards = iter([card, generate(78), generate(79)])
    stand = Stand(Store(root), new_card=lambda: next(cards))
    stand.boot()
    stand.handle(Act("clue", "A"), 0.0)
    taken = stand.state
    filler = fill(tiny_disk)

    # Playing on a full disk. The journal's last block still has room (as on any
    # filesystem), so events are taken until it is full; then none is.
    for k in range(1000):
        taken = stand.state
        stand.handle(Act("undo") if k % 2 == 0 else Act("clue", "A"), 1.0)
        if stand.faults.saving:
            break
    else:
        pytest.fail("the disk never refused a record")
    assert stand.state == taken  # the refused event was not taken
    assert Store.reader(root).peek()[0] == taken  # and everything taken is on disk
    stand.handle(Touch(*divmod(assassin, 5)), 1.0)
    assert stand.state == taken and stand.faults.saving
    # Menu > New game on a full disk: the game in play stays, nothing archived.
    game = stand.store.game_id
    assert not stand.new_game()
    assert stand.state == taken and stand.store.game_id == game
    assert not (root / "next.journal").exists()
    no_none(root)

    filler.unlink()  # space again: the next input is taken
    if stand.state.clue_giver is None:
        stand.handle(Act("clue", "A"), 2.0)
    stand.handle(Touch(*divmod(assassin, 5)), 2.0)
    assert stand.state.status is Status.LOST and stand.faults.saving is None
    stand.tick(100.0)  # the key revealed
    filler = fill(tiny_disk)
    stand.handle(Press("A", KeyName.CLUE), 101.0)  # the next game: refused by the disk
    assert stand.state.status is Status.LOST and stand.faults.saving
    filler.unlink()
    stand.handle(Press("A", KeyName.CLUE), 102.0)
    assert stand.state.status is Status.PLAYING and stand.state.card == generate(78)
    assert stand.faults.saving is None
    history = [json.loads(ln) for ln in (root / "history.jsonl").read_text().splitlines()]
    assert [h["id"] for h in history] == [game]
    no_none(root)

    # Restart on the same dir, full again: the game in play resumes as it was.
    stand.handle(Act("clue", "B"), 103.0)
    now = stand.state
    stand.store.close()
    fill(tiny_disk)
    again = Stand(Store(root), new_card=lambda: generate(80))
    again.boot()
    assert again.state == now
    no_none(root)


def test_keystand_run_on_a_full_disk_with_no_game_starts_and_says_cannot_save(
    tiny_disk: Path,
) -> None:
    """Nothing to resume and no room for a new game: `keystand run` starts (exit 0
    once its script is done), deals nothing, logs why, and leaves the neutral
    picture; no frame is logged under a game named None."""
    import sys

    state = tiny_disk / "state"
    (state / "games").mkdir(parents=True)
    fill(tiny_disk)
    script = tiny_disk.parent / "presses.txt"
    script.write_text("press A clue\ntouch 0 0\n")
    shown = tiny_disk.parent / "shown.log"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "keystand",
            "run",
            "--state-dir",
            str(state),
            "--script",
            str(script),
            "--no-page",
            "--speed",
            "0",
            "--shown-log",
            str(shown),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "cannot save" in done.stderr and "No space left on device" in done.stderr
    assert "Traceback" not in done.stderr
    assert sorted(shown.read_text().splitlines()) == ["A neutral", "B neutral"]
    # No journal; the run's lock file (empty: its pid found no room; a file needs none).
    assert sorted(p.name for p in state.iterdir()) == ["games", "screens", "stand.lock"]
