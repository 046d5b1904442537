"""Secrecy through the stand: the operatives' panel (seat B) of a classic game is
built from the public record only. Two stands play the same inputs on cards that
differ only on words no input covered; the operatives' screens stay the same to
the pixel, the spymasters' do not."""

from __future__ import annotations

from pathlib import Path

from keystand import games, screens
from keystand.drivers.display import SimPanel
from keystand.games.classic.settings import TIMER
from keystand.rules import Seat
from keystand.rules.classic_card import ClassicCard, ClassicKey
from keystand.rules.classic_events import parse_event
from keystand.stand import Settings, Stand
from keystand.store import Store

CARD = ClassicCard.from_code("9CY-EPF-ZXQ")  # blue starts
LINES = ("clue blue 2", "touch 0 0", "touch 2 0", "clue red 1", "touch 1 0")


def swapped(card: ClassicCard, covered: set[int]) -> ClassicCard:
    """The card with an uncovered bystander and an uncovered red agent swapped."""
    keys = list(card.keys)
    a = next(i for i, k in enumerate(keys) if k is ClassicKey.BYSTANDER and i not in covered)
    b = next(i for i, k in enumerate(keys) if k is ClassicKey.RED and i not in covered)
    keys[a], keys[b] = keys[b], keys[a]
    return ClassicCard(tuple(keys))


def play(root: Path, card: ClassicCard) -> Stand:
    stand = Stand(
        Store(root), settings=Settings(game="classic").choosing(TIMER, 90), new_card=lambda: card
    )
    stand.boot()
    for t, line in enumerate(LINES):
        stand.handle(games.Played(parse_event(line)), float(t))
    return stand


def test_the_operatives_screen_does_not_depend_on_the_hidden_key(tmp_path: Path) -> None:
    one = play(tmp_path / "one", CARD)
    other = play(tmp_path / "other", swapped(CARD, set(one.state.covered)))
    assert one.state.covered == other.state.covered
    for model, rotation in (("epd2in7_V2", 90), ("epd2in13_V4", 90), ("epd4in2_V2", 0)):
        panel = SimPanel(model, rotation=rotation, speed=0)
        ops = [screens.render(s, Seat.B, panel).tobytes() for s in (one, other)]
        assert ops[0] == ops[1]
        spy = [screens.render(s, Seat.A, panel).tobytes() for s in (one, other)]
        assert spy[0] != spy[1]
