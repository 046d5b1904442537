"""How a finished game ended, as each seat's end screen says it, and the mission it
was: every way the rules end a Duet game has its own reason, told from the public
record alone (docs/design.md "Secrecy").

The ways, from docs/rules.md and the rulebook (duet-rules-en.txt):
- "So you win when the last agent card is placed", in a turn or in sudden death
  ("Subtract 1 point if you needed the sudden death turn to win");
- "If your partner touches a word you see as black ... you both lose", in a turn
  or in sudden death, by either seat;
- "A wrong guess in sudden death ends the game - both players lose, even if the
  guess was just an innocent bystander";
- "if a turn causes you to use up more tokens than you have, you lose
  immediately. This will happen only when you have 1 timer token left, it is
  checkmark side up, and the guessing side guesses a bystander" (the mistake
  costs two turns);
- the invalid-clue penalty took the last token and the turn ends "in the usual
  way" (docs/rules.md "The invalid-clue penalty"): by a bystander or by a pass,
  it needs a token the bank no longer has. With one check token left after the
  penalty and no mistakes, a bystander needs two: the first way again.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from test_layouts import says

from keystand.games import Context
from keystand.games.duet import views
from keystand.layouts import MODELS, Ending, Who, languages, panel, render
from keystand.layouts import end as end_screen
from keystand.layouts.i18n import mission_forms, strings
from keystand.rules import Card, Clue, Key, Mission, Pass, Penalty, Seat, Touch
from keystand.rules.duet import Duet, Phase, Reason, Status

CARD = Card.from_code("YAKM-S9ED-D1RD")
A, B = Seat.A, Seat.B


def cells(seat: Seat, key: Key) -> list[int]:
    """The cells `seat`'s side marks `key`, in table order."""
    return [i for i, k in enumerate(CARD.side(seat)) if k is key]


def bystander_of(giver: Seat) -> int:
    """A word the giver's side calls a bystander (its partner's touch there is a miss)."""
    return cells(giver, Key.BYSTANDER)[0]


def game(mission: str, *events: object) -> Duet:
    state = Duet.start(CARD, Mission.parse(mission))
    for event in events:
        state, result = state.apply(event)  # type: ignore[arg-type]
        assert result.__class__.__name__ == "Outcome", (event, result)
    return state


def all_of(seat: Seat, but: frozenset[int] = frozenset()) -> list[Touch]:
    return [Touch.at(i) for i in sorted(CARD.agents(seat) - but)]


# Each way a game ends: (mission, events), the ending, and who touched last.
WAYS: dict[str, tuple[Duet, Ending, Seat | None]] = {}


def _ways() -> dict[str, tuple[Duet, Ending, Seat | None]]:
    a_agents = CARD.agents(A)
    rest_of_b = all_of(B, a_agents)
    sudden = (Clue(A), Touch.at(min(a_agents)), Pass(B))  # 1 token: the pass takes it
    return {
        "won": (
            # Rules version 2: A's last agent ends B's turn by itself (a pass).
            game("9-9", Clue(A), *all_of(A), Clue(B), *rest_of_b),
            Ending.WON,
            A,
        ),
        "won in sudden death": (
            game("1-0", Clue(A), *all_of(A), *rest_of_b),
            Ending.WON_SUDDEN_DEATH,
            A,
        ),
        "assassin": (
            game("9-9", Clue(A), Touch.at(cells(A, Key.ASSASSIN)[0])),
            Ending.ASSASSIN,
            B,
        ),
        "assassin in sudden death": (
            game("1-1", *sudden, Clue(A), Touch.at(cells(B, Key.ASSASSIN)[0])),
            Ending.ASSASSIN,
            A,
        ),
        "bystander in sudden death": (
            game("1-1", *sudden, Clue(B), Touch.at(bystander_of(A))),
            Ending.SUDDEN_DEATH,
            B,
        ),
        "a mistake costs two turns, one left": (
            game("1-0", Clue(A), Touch.at(bystander_of(A))),
            Ending.OUT_OF_TIME,
            B,
        ),
        "the penalty left one, a mistake costs two": (
            game("2-0", Clue(A), Penalty(), Touch.at(bystander_of(A))),
            Ending.OUT_OF_TIME,
            B,
        ),
        "the penalty took the last, then a bystander": (
            game("1-0", Clue(A), Penalty(), Touch.at(bystander_of(A))),
            Ending.OUT_OF_TIME_PENALTY,
            B,
        ),
        "the penalty took the last, then a pass": (
            game("1-1", Clue(A), Penalty(), Touch.at(min(a_agents)), Pass(B)),
            Ending.OUT_OF_TIME_PENALTY,
            B,
        ),
    }


WAYS = _ways()


def test_each_way_is_the_rules_own_ending() -> None:
    """The scripts reach what their names say (so the screens below are of them)."""
    reasons = {name: (s.status, s.reason, s.sudden_death) for name, (s, _, _) in WAYS.items()}
    assert reasons["won"] == (Status.WON, None, False)
    assert reasons["won in sudden death"] == (Status.WON, None, True)
    assert reasons["assassin in sudden death"] == (Status.LOST, Reason.ASSASSIN, True)
    assert reasons["bystander in sudden death"] == (Status.LOST, Reason.SUDDEN_DEATH, True)
    two_needed = (
        "a mistake costs two turns, one left",
        "the penalty left one, a mistake costs two",
    )
    for name in two_needed:
        assert reasons[name] == (Status.LOST, Reason.OUT_OF_TIME, False)
        assert WAYS[name][0].turns_left == 1  # "1 turn left" on the counter, as the issue saw
    penalty = (
        "the penalty took the last, then a bystander",
        "the penalty took the last, then a pass",
    )
    for name in penalty:
        assert reasons[name] == (Status.LOST, Reason.OUT_OF_TIME, False)
        assert WAYS[name][0].turns_left == 0
    assert all(s.phase is Phase.OVER for s, _, _ in WAYS.values())


@pytest.mark.parametrize("name", list(WAYS))
def test_each_seat_is_told_how_it_ended_and_by_whom(name: str) -> None:
    state, ending, toucher = WAYS[name]
    for seat in Seat:
        end = views.for_seat(state, seat).end
        assert end is not None and end.ending is ending, (name, seat)
        assert end.by is (Who.ME if toucher is seat else Who.PARTNER)
        if ending in (Ending.ASSASSIN, Ending.SUDDEN_DEATH):  # whose touch, as each names it
            assert end.reason == f"{ending.value}_{end.by.value}"
        else:
            assert end.reason == ending.value


def test_the_ways_have_reasons_of_their_own() -> None:
    """No two ways that differ in what happened share a sentence, in any language."""
    keys = {views.for_seat(s, A).end.reason for s, _, _ in WAYS.values()}  # type: ignore[union-attr]
    keys |= {views.for_seat(s, B).end.reason for s, _, _ in WAYS.values()}  # type: ignore[union-attr]
    assert keys == {
        "won",
        "won_sudden_death",
        "assassin_me",
        "assassin_partner",
        "sudden_death_me",
        "sudden_death_partner",
        "out_of_time",
        "out_of_time_penalty",
    }
    for lang in languages():
        texts = [strings(lang)["end_reason"][k] for k in keys]
        assert len(set(texts)) == len(texts), lang


def test_the_reason_reads_no_side_of_the_card() -> None:
    """The ending reads the tokens, the phase and the last input (the public
    record), never a side: the same record on a card whose sides are swapped ends
    the same way. (tests/test_views.py checks the whole view against cards that
    give the same outcomes.)"""
    for name, (state, ending, _) in WAYS.items():
        same_record = replace(state, card=Card(CARD.b, CARD.a))
        assert views.ending(same_record) is ending, name


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
def test_the_end_screen_says_why_and_names_the_mission(model: str, rotation: int) -> None:
    """Every way, on every panel and mounting, in every language: the reason in its
    box (a won game's beside the score), the mission under the title."""
    spec = panel(model, rotation)
    lay = end_screen.layout(spec)
    assert lay.mission is not None
    cairo = Mission.parse("cairo")
    for name, (state, ending, _) in WAYS.items():
        state = replace(state, mission=cairo)  # the mission named: Cairo 9-5
        for seat in Seat:
            view = views.for_seat(state, seat)
            assert view.end is not None
            won = ending in (Ending.WON, Ending.WON_SUDDEN_DEATH)
            box = lay.reason if won else lay.reason_lost
            for lang in languages():
                image = render(view, spec, lang)
                reason = strings(lang)["end_reason"][view.end.reason]
                assert says(image, spec, reason, box), (name, seat, lang)
                caption = end_screen.mission_caption(lang, view.mission, lay.mission)  # type: ignore[arg-type]
                assert caption in mission_forms(lang, "cairo", "9-5")
                right = lay.mission_right
                assert says(image, spec, caption, lay.mission, right=right), (name, lang)


def test_a_loss_with_one_turn_left_says_the_mistake_cost_two() -> None:
    """The issue's case: Cairo, "1 turn left" on the counter, a bystander: the end
    screen said only "Out of time"; it says why one turn was not enough."""
    state = game("9-5", Clue(A), Touch.at(bystander_of(A)))
    for _ in range(4):  # four more mistakes: the bystander side of the bank is spent
        state, _ = state.apply(Clue(state.givers[-1].partner))
        missed = state.misses(state.giver.partner) | state.covered  # type: ignore[union-attr]
        word = next(i for i in cells(state.giver, Key.BYSTANDER) if i not in missed)  # type: ignore[arg-type]
        state, _ = state.apply(Touch.at(word))
    assert (state.bank_check, state.bank_bystander) == (4, 0)
    for _ in range(3):  # three passes after a correct guess each: one token left
        giver = state.givers[-1].partner
        state, _ = state.apply(Clue(giver))
        word = min(CARD.agents(giver) - state.covered)
        state, _ = state.apply(Touch.at(word))
        state, _ = state.apply(Pass(giver.partner))
    assert state.turns_left == 1 and state.mission == Mission.parse("cairo")
    giver = state.givers[-1].partner
    state, _ = state.apply(Clue(giver))
    missed = state.misses(giver.partner) | state.covered
    word = next(i for i in cells(giver, Key.BYSTANDER) if i not in missed)
    state, _ = state.apply(Touch.at(word))
    assert state.status is Status.LOST and state.turns_left == 1
    view = views.for_seat(state, A, Context())
    assert view.end is not None and view.end.reason == "out_of_time"
    said = strings("en")["end_reason"]["out_of_time"]
    assert said == "Out of time: a bystander costs 2 turns, 1 left"


# ----- classic: who ended it -----------------------------------------------------------


def test_classic_says_whose_touch_or_clue_ended_the_game() -> None:
    """classic-rules-de.txt: a team wins when its last word is covered, "auch, wenn
    das andere Team euer letztes Wort in seinem Zug errät", or when the other team
    touches the assassin; an invalid clue lets the other spymaster cover one of
    their words, which may be their last. Each way names who ended it."""
    from keystand.games.classic import views as classic_views
    from keystand.layouts import ClassicPublic, Win
    from keystand.layouts import classic as classic_screen
    from keystand.rules.classic import Classic
    from keystand.rules.classic_card import ClassicCard, ClassicKey
    from keystand.rules.classic_events import UNLIMITED
    from keystand.rules.classic_events import Clue as CClue
    from keystand.rules.classic_events import Penalty as CPenalty
    from keystand.rules.classic_events import Touch as CTouch

    card = ClassicCard.parse("RRRRR RRRRU UUUUU UU... ....X")  # red starts (9 agents)
    red = sorted(card.agents(card.starting))
    blue = sorted(i for i, k in enumerate(card.keys) if k is ClassicKey.BLUE)

    def at(i: int) -> CTouch:
        return CTouch(*divmod(i, 5))

    red_team, blue_team = card.starting, card.starting.other
    all_but_one = [CClue(red_team, UNLIMITED), *map(at, red[:-1]), at(blue[0])]  # blue's turn
    ways = {
        "own": ([CClue(red_team, UNLIMITED), *map(at, red)], Win.ALL_FOUND, "all_found"),
        "given": ([*all_but_one, CClue(blue_team, 1), at(red[-1])], Win.GIVEN, "given_blue"),
        "penalty": (
            [*all_but_one, CClue(blue_team, 1), CPenalty(*divmod(red[-1], 5))],
            Win.PENALTY,
            "penalty_blue",
        ),
        "assassin": ([CClue(red_team, 1), at(card.assassin)], Win.ASSASSIN, "assassin_red"),
    }
    for name, (events, expected, key) in ways.items():
        state = Classic.replay(card, events)
        assert classic_views.win(state) is expected, name
        public = classic_views.public_record(state)
        assert isinstance(public, ClassicPublic) and public.win is expected
        assert classic_screen.sub(public)[0] == key, name
    texts = {strings("en")["classic_sub"][k] for _, _, k in ways.values()}
    assert len(texts) == len(ways)
