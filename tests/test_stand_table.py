"""The stand reads the table as the cardboard does (issue 31, item 3; docs/rules.md
"What the table says without a key"): the guesser's first touch once the giver
is known, the turn that ends when nothing is left to find, and the clue giver's
hand covering or marking words, which shows no refusal."""

from __future__ import annotations

from pathlib import Path

import pytest
from clue_keys import give_clue

from keystand import games, screens
from keystand.drivers.display import SimPanel
from keystand.drivers.inputs import Act, KeyName, Press, Touch
from keystand.layouts import Stage, Who
from keystand.rules import Card, Key, Seat, generate
from keystand.rules.duet import Phase
from keystand.settings import Settings
from keystand.stand import Stand
from keystand.store import Store

A, B = Seat.A, Seat.B


def cells(card: Card, judge: Seat, key: Key) -> list[int]:
    return [i for i, k in enumerate(card.side(judge)) if k is key]


def touch(i: int) -> Touch:
    return Touch(*divmod(i, 5))


def shown(stand: Stand) -> dict[Seat, object]:
    """What each seat's screen shows now (its view: the same view, the same frame)."""
    return {s: stand.game.view(stand.state, s, screens.context(stand, s)) for s in Seat}


def journal(tmp_path: Path) -> list[bytes]:
    return (tmp_path / "state" / "current.journal").read_bytes().splitlines()


@pytest.fixture
def stand(tmp_path: Path) -> Stand:
    s = Stand(Store(tmp_path / "state"), new_card=lambda: generate(3))
    s.boot()
    return s


def a_turn_by_a(stand: Stand, now: float = 0.0) -> None:
    """A gives the first clue, B finds one of A's agents and passes: B gives next."""
    card = stand.state.card
    stand.handle(Press("A", KeyName.CLUE), now)
    stand.handle(touch(cells(card, A, Key.AGENT)[0]), now + 1)
    stand.handle(Press("B", KeyName.PASS), now + 2)
    assert (stand.state.phase, stand.state.clue_giver) == (Phase.AWAITING_CLUE, B)


def test_the_guessers_first_touch_starts_the_turn_with_no_key(stand: Stand, tmp_path: Path) -> None:
    """Alternating order after the first clue: A's touch is A's first guess on B's
    clue, journaled (fsync) as the one event it is before anything shows it; both
    screens then show the turn in play."""
    a_turn_by_a(stand)
    card = stand.state.card
    before = len(journal(tmp_path))
    word = cells(card, B, Key.AGENT)[1]
    assert stand.handle(touch(word), 5.0)
    lines = journal(tmp_path)
    assert len(lines) == before + 1 and b'"touch ' in lines[-1]
    assert (stand.state.phase, stand.state.giver, stand.state.givers) == (
        Phase.GUESSING,
        B,
        (A, B),
    )
    assert word in stand.state.agents
    panel = SimPanel("epd2in9_V2", speed=0)
    views = {s: stand.game.view(stand.state, s, screens.context(stand, s)) for s in Seat}
    assert (views[A].stage, views[A].guesser, views[B].clue_giver) == (
        Stage.GUESSING,
        Who.ME,
        Who.ME,
    )
    assert screens.render(stand, A, panel) is not None


def test_a_script_that_presses_clue_plays_as_before(stand: Stand, tmp_path: Path) -> None:
    """The clue key is still there: pressed, then the touch, the same game."""
    a_turn_by_a(stand)
    keyed = Stand(Store(tmp_path / "keyed"), new_card=lambda: generate(3))
    keyed.boot()
    a_turn_by_a(keyed)
    word = cells(stand.state.card, B, Key.AGENT)[1]
    stand.handle(touch(word), 5.0)
    keyed.handle(Press("B", KeyName.CLUE), 5.0)
    keyed.handle(touch(word), 6.0)
    assert stand.state == keyed.state


def test_a_touch_before_the_first_clue_is_still_refused_and_shown(stand: Stand) -> None:
    """Either seat may give the first clue: the stand does not know whose side would
    judge the touch, so it asks for the clue key (framed, a few seconds)."""
    assert stand.handle(Touch(0, 0), 0.0)
    assert stand.state.last.reason.value == "no_clue" and stand.refusal.shown


def test_the_turn_ends_by_itself_when_nothing_is_left_to_find(stand: Stand) -> None:
    """B finds A's ninth agent: the turn ends as a pass (+1 to the score), the
    headlines say who clues now, and the partner's pass key, pressed from habit,
    is refused as a turn that is over."""
    card = stand.state.card
    stand.handle(Press("A", KeyName.CLUE), 0.0)
    for n, i in enumerate(sorted(card.agents(A)), start=1):
        stand.handle(touch(i), float(n))
    state = stand.state
    assert (state.phase, state.passes, state.clue_giver) == (Phase.AWAITING_CLUE, 1, B)
    views = {s: stand.game.view(state, s, screens.context(stand, s)) for s in Seat}
    assert (views[B].clue_giver, views[B].nothing_left_for_me) == (Who.ME, True)
    assert views[B].last is not None and views[B].last.announced
    stand.handle(Press("B", KeyName.PASS), 20.0)
    assert stand.state.last.reason.value == "pass_no_turn"


# ----- the clue giver's hand ------------------------------------------------------------


def test_covering_any_word_found_this_turn_shows_no_refusal(stand: Stand) -> None:
    """The rulebook has the giver cover a found word with an agent card: a touch on a
    word found earlier in the turn (not only the one just found) is that hand."""
    card = stand.state.card
    first, second = cells(card, A, Key.AGENT)[:2]
    stand.handle(Press("A", KeyName.CLUE), 0.0)
    stand.handle(touch(first), 1.0)
    stand.handle(touch(second), 2.0)
    found = shown(stand)
    stand.handle(touch(first), 3.0)  # covering the first, late: the screens stay
    assert stand.state.last.reason.value == "covered" and not stand.refusal.shown
    assert shown(stand) == found
    stand.handle(touch(first), 3.5)  # and again, adjusting the card
    assert not stand.refusal.shown and shown(stand) == found


def test_covering_after_the_turn_ended_shows_no_refusal(stand: Stand) -> None:
    """The turn ended by a pass before the giver covered the last word found: the
    covering touch, whose clue is known, gives no clue and shows nothing."""
    a_turn_by_a(stand)
    found = cells(stand.state.card, A, Key.AGENT)[0]
    before = shown(stand)
    stand.handle(touch(found), 5.0)
    assert stand.state.phase is Phase.AWAITING_CLUE and stand.state.givers == (A,)
    assert not stand.refusal.shown and shown(stand) == before


def test_a_word_covered_on_an_earlier_turn_is_still_a_refusal_shown(stand: Stand) -> None:
    a_turn_by_a(stand)
    word = cells(stand.state.card, B, Key.AGENT)[1]
    stand.handle(touch(word), 5.0)  # A's first guess on B's clue: a new turn
    assert stand.handle(touch(cells(stand.state.card, A, Key.AGENT)[0]), 6.0)
    assert stand.state.last.reason.value == "covered" and stand.refusal.shown


def test_the_timer_token_on_the_missed_word_is_no_guess(stand: Stand, tmp_path: Path) -> None:
    """The turn ends on a bystander; the giver marks it with a timer token. That
    touch gives no clue and shows nothing; a second one in a row shows that the clue
    key is wanted (it may be the next guesser's guess on that word)."""
    card = stand.state.card
    stand.handle(Press("A", KeyName.CLUE), 0.0)
    missed = next(i for i in cells(card, A, Key.BYSTANDER) if card.side(B)[i] is Key.AGENT)
    stand.handle(touch(missed), 1.0)
    assert stand.state.phase is Phase.AWAITING_CLUE and missed in stand.state.misses(B)
    records, before = len(journal(tmp_path)), shown(stand)
    stand.handle(touch(missed), 2.0)  # the token's hand
    assert stand.state.last.reason.value == "no_clue" and not stand.refusal.shown
    assert shown(stand) == before
    stand.handle(touch(missed), 8.0)  # again: a guess? the clue key first
    assert stand.refusal.shown and shown(stand) != before
    assert len(journal(tmp_path)) == records
    stand.handle(Press("B", KeyName.CLUE), 9.0)
    stand.handle(touch(missed), 10.0)  # A guesses it on B's clue: B's agent
    assert missed in stand.state.agents


@pytest.mark.parametrize("name", games.SHIPPED)
def test_a_covering_touch_shows_no_refusal_in_every_game(name: str, tmp_path: Path) -> None:
    """Classic too: the spymaster covers every touched word with its tile."""
    stand = Stand(Store(tmp_path), settings=Settings(game=name))
    stand.boot()
    give_clue(stand, "A", 1.0)
    state = stand.state
    if name == "classic":
        words = sorted(state.card.agents(state.team))[:2]
    else:
        words = cells(state.card, state.clue_giver, Key.AGENT)[:2]
    for n, word in enumerate(words):
        stand.handle(touch(word), 2.0 + n)
    assert not games.refused(stand.state.last)
    stand.handle(touch(words[0]), 5.0)
    assert games.refused(stand.state.last) and not stand.refusal.shown


def test_a_scripted_clue_line_still_plays(stand: Stand) -> None:
    """`clue B` in a `keystand run` script (an Act) is the clue key, as before."""
    a_turn_by_a(stand)
    stand.handle(Act("clue", "B"), 5.0)
    assert stand.state.phase is Phase.GUESSING and stand.state.giver is B


def test_a_game_keeps_its_rules_version_across_a_restart(tmp_path: Path) -> None:
    stand = Stand(Store(tmp_path), new_card=lambda: generate(3))
    stand.boot()
    a_turn_by_a(stand)
    stand.handle(touch(cells(stand.state.card, B, Key.AGENT)[1]), 5.0)  # a first touch
    stand.store.close()
    again = Stand(Store(tmp_path))
    again.boot()
    assert again.state == stand.state and again.state.rules_version == 2
