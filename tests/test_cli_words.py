"""`keystand history` and `keystand state` in words a player reads: how a game
ended ("lost: the assassin touched", "red won: all agents found"), not the raw
codes (`lost (sudden_death)`); `--json` keeps the codes for tools."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

from keystand import cli, games
from keystand.rules import Seat
from keystand.store import Store


def lost_duet() -> tuple[object, list[object]]:
    """A Duet game lost on the assassin, and the events that lost it."""
    duet = games.get("duet")
    state = start = duet.start(duet.generate(1))
    side = state.card.side(Seat.A)
    assassin = next(i for i, k in enumerate(side) if k.value == "X")
    events = [duet.parse_event("clue A"), duet.parse_event(f"touch {assassin // 5} {assassin % 5}")]
    for event in events:
        state, _ = state.play(event)
    assert not duet.playing(state)
    return start, events


def test_state_says_why_a_lost_game_was_lost(tmp_path: Path) -> None:
    start, events = lost_duet()
    store = Store(tmp_path)
    store.start_game(start)
    for event in events:
        store.record(event)
    out = StringIO()
    assert cli.main(["state", "--state-dir", str(tmp_path)], out=out, err=StringIO()) == 0
    assert out.getvalue().splitlines()[0].endswith(": lost: assassin, over")


def history(tmp_path: Path, entries: list[dict[str, object]], *flags: str) -> list[str]:
    (tmp_path / "history.jsonl").write_text("".join(json.dumps(e) + "\n" for e in entries))
    out = StringIO()
    argv = ["history", "--state-dir", str(tmp_path), *flags]
    assert cli.main(argv, out=out, err=StringIO()) == 0
    return out.getvalue().splitlines()


def test_history_says_how_each_game_ended_in_words(tmp_path: Path) -> None:
    base = {"date": "2026-11-25T10:00:00", "card_code": "ABCD"}
    entries = [
        {**base, "mission": "9-9", "result": "lost", "reason": "sudden_death", "score": None},
        {
            **base,
            "game": "classic",
            "mission": "classic",
            "result": "won",
            "winner": "red",
            "reason": "all_found",
        },
        {**base, "mission": "9-9", "result": "abandoned", "reason": None},
        {**base, "mission": "9-9", "result": "won", "reason": None, "score": 3},
    ]
    assert [line.split("  ")[2] for line in history(tmp_path, entries)] == [
        "won, score 3",
        "abandoned",
        "red won: all agents found",
        "lost: sudden death",
    ]
    as_json = [json.loads(line) for line in history(tmp_path, entries, "--json")]
    assert [e["reason"] for e in as_json] == [None, None, "all_found", "sudden_death"]
