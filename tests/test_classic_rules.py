"""One unit test per rule of classic Codenames, as the referee (keystand.rules.classic) enforces it.

Every expected value is derived from the German rulebook
/work/shared/rules/classic-rules-de.txt (quoted in each docstring, in its printed
spelling: the text file is a scan with its umlauts lost) or, for what the rulebook
leaves open, from the stand's decisions in docs/classic-rules.md; never from
running the code.

Most games are played on RED_CARD, red starts:

    row 0   R R R R R     cells  0-4   red agents
    row 1   R R R R U     cells  5-8   red agents, cell 9 blue
    row 2   U U U U U     cells 10-14  blue agents
    row 3   U U . . .     cells 15-16  blue agents, 17-19 bystanders
    row 4   . . . . X     cells 20-23  bystanders, cell 24 the assassin

BLUE_CARD is the same with the colours swapped (blue starts).
"""

from __future__ import annotations

import random
from collections import Counter
from math import factorial

import pytest

from keystand.rules.classic import (
    Classic,
    Outcome,
    Phase,
    Reason,
    RejectedEvent,
    Rejection,
    RejectReason,
    Result,
    Status,
    summary,
)
from keystand.rules.classic_card import ClassicCard, ClassicKey, Team
from keystand.rules.classic_code import CLASSIC_CARD_COUNT, decode, generate, rank, unrank
from keystand.rules.classic_events import (
    UNLIMITED,
    Clue,
    Pass,
    Penalty,
    Touch,
    Undo,
    parse_event,
)
from keystand.rules.errors import CardCodeError, CardError, EventError

RED, BLUE = Team.RED, Team.BLUE

RED_CARD = ClassicCard.parse("RRRRR RRRRU UUUUU UU... ....X")
BLUE_CARD = ClassicCard.parse("UUUUU UUUUR RRRRR RR... ....X")
REDS = tuple(range(9))  # on RED_CARD
BLUES = tuple(range(9, 17))
BYSTANDERS = tuple(range(17, 24))
ASSASSIN = 24
CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford base 32: no I, L, O, U
# Red misses, blue finds 7 of its 8 on a clue for 0 and then misses: red's turn,
# blue has one agent left (BLUES[7], cell 16).
BLUE_ALMOST_DONE = (
    "clue red 1",
    "touch 3 2",
    "clue blue 0",
    *(f"touch {c // 5} {c % 5}" for c in BLUES[:7]),
    "touch 3 3",
)


def touch(cell: int) -> str:
    return f"touch {cell // 5} {cell % 5}"


def penalty(cell: int) -> str:
    return f"penalty {cell // 5} {cell % 5}"


def play(card: ClassicCard, *lines: str) -> Classic:
    """The game after `lines` (script text), each of which must be accepted."""
    state = Classic.start(card)
    for line in lines:
        state, result = state.apply(parse_event(line))
        assert isinstance(result, Outcome), f"{line!r} refused: {result}"
    return state


def refused(state: Classic, line: str) -> RejectReason:
    """Why `line` is refused in `state`; the state must not change."""
    after, result = state.apply(parse_event(line))
    assert isinstance(result, Rejection), f"{line!r} accepted: {result}"
    assert after == state
    return result.reason


def outcome(state: Classic, line: str) -> tuple[Classic, Outcome]:
    after, result = state.apply(parse_event(line))
    assert isinstance(result, Outcome), f"{line!r} refused: {result}"
    return after, result


# ----- the first turn and the order of turns -------------------------------------------


def test_the_team_of_the_card_starts() -> None:
    """ "Die Teams sind abwechselnd am Zug, beginnend mit dem Team, dessen Farbe die
    Dreiecke auf der Codekarte haben." and "Das Start-Team muss 1 zusätzliches Wort
    erraten": the team with 9 agents starts."""
    state = Classic.start(RED_CARD)
    assert state.turn is RED and state.phase is Phase.AWAITING_CLUE
    assert refused(state, "clue blue 2") is RejectReason.CLUE_OUT_OF_TURN
    assert play(RED_CARD, "clue red 2").phase is Phase.GUESSING

    state = Classic.start(BLUE_CARD)
    assert state.turn is BLUE
    assert refused(state, "clue red 2") is RejectReason.CLUE_OUT_OF_TURN
    assert play(BLUE_CARD, "clue blue 2").turn is BLUE


def test_turns_alternate() -> None:
    """ "Wenn euer Zug endet, ist das andere Team am Zug. Führt abwechselnd Züge aus,
    bis ein Team gewinnt.\""""
    state = play(RED_CARD, "clue red 2", touch(0), "pass red")
    assert state.turn is BLUE and state.phase is Phase.AWAITING_CLUE
    assert refused(state, "clue red 1") is RejectReason.CLUE_OUT_OF_TURN
    state = play(RED_CARD, "clue red 2", touch(0), "pass red", "clue blue 1", touch(17))
    assert state.turn is RED
    assert refused(state, "clue blue 1") is RejectReason.CLUE_OUT_OF_TURN


def test_one_clue_per_turn() -> None:
    """ "Ihr bekommt einen weiteren Rateversuch, keinen neuen Hinweis.\""""
    state = play(RED_CARD, "clue red 3", touch(0))
    assert refused(state, "clue red 1") is RejectReason.TURN_IN_PROGRESS
    assert refused(state, "clue blue 1") is RejectReason.TURN_IN_PROGRESS


def test_no_guess_before_the_clue() -> None:
    """ "Der Agentenchef gibt 1 Hinweis." ... "Danach muss einer der Ermittler einen
    Rateversuch machen, indem er eine Karte berührt.\""""
    assert refused(Classic.start(RED_CARD), touch(0)) is RejectReason.NO_CLUE
    after_turn = play(RED_CARD, "clue red 1", touch(17))
    assert refused(after_turn, touch(9)) is RejectReason.NO_CLUE


# ----- a touch judged by the key ----------------------------------------------------------


def test_own_colour_guess_again() -> None:
    """ "Habt ihr ein Wort eurer eigenen Farbe erraten, dürft ihr erneut raten." and
    "Der Agentenchef deckt diese Karte mit einem Plättchen ab, dessen Farbe der auf
    der Codekarte dort angezeigten Farbe entspricht.\""""
    state, result = outcome(play(RED_CARD, "clue red 2"), touch(3))
    assert result.result is Result.OWN_AGENT and result.key is ClassicKey.RED
    assert result.cell == 3 and result.team is RED and not result.turn_over
    assert state.phase is Phase.GUESSING and state.turn is RED
    assert state.covered == {3}
    assert state.agents_left(RED) == 8 and state.agents_left(BLUE) == 8


def test_bystander_ends_the_turn() -> None:
    """ "Wenn ihr auf einen unbeteiligten Zuschauer tippt, endet euer Zug.\""""
    state, result = outcome(play(RED_CARD, "clue red 3", touch(0)), touch(20))
    assert result.result is Result.BYSTANDER and result.turn_over
    assert state.turn is BLUE and state.phase is Phase.AWAITING_CLUE
    assert state.covered == {0, 20}  # the bystander gets its tile too
    assert state.agents_left(RED) == 8 and state.agents_left(BLUE) == 8


def test_other_colour_ends_the_turn_and_helps_them() -> None:
    """ "Wenn ihr auf ein Wort des anderen Teams tippt, endet euer Zug und ihr habt dem
    anderen Team geholfen!\""""
    state, result = outcome(play(RED_CARD, "clue red 3"), touch(12))
    assert result.result is Result.OTHER_AGENT and result.key is ClassicKey.BLUE
    assert result.turn_over and result.winner is None
    assert state.turn is BLUE and state.phase is Phase.AWAITING_CLUE
    assert state.agents_left(BLUE) == 7 and state.agents_left(RED) == 9


def test_assassin_loses_for_the_touching_team() -> None:
    """ "Wenn ihr auf den Attentäter tippt, verliert ihr das Spiel!" and "Ihr gewinnt
    auch, wenn das andere Team auf den Attentäter tippt.\""""
    state, result = outcome(play(RED_CARD, "clue red 2", touch(0)), touch(ASSASSIN))
    assert result.result is Result.ASSASSIN and result.winner is BLUE
    assert state.status is Status.OVER and state.phase is Phase.OVER
    assert state.winner is BLUE and state.reason is Reason.ASSASSIN
    assert state.turn is None

    # the other way round: blue touches it on its turn, red wins
    state = play(RED_CARD, "clue red 1", touch(17), "clue blue 1", touch(ASSASSIN))
    assert state.winner is RED and state.reason is Reason.ASSASSIN


def test_a_covered_word_is_not_a_guess() -> None:
    """A covered word has a tile on it ("deckt diese Karte mit einem Plättchen ab"):
    there is no word left to touch, so the stand refuses it and the turn goes on."""
    state = play(RED_CARD, "clue red 3", touch(0))
    assert refused(state, touch(0)) is RejectReason.COVERED
    state = play(RED_CARD, "clue red 3", touch(17), "clue blue 2")
    assert refused(state, touch(17)) is RejectReason.COVERED


# ----- the number: plus one, 0, unlimited, none --------------------------------------------


def test_plus_one_rule() -> None:
    """ "Solange die Ermittler Wörter in ihrer eigenen Farbe erraten, dürfen sie 1
    Rateversuch mehr als die beim Hinweis angegebene Zahl ausführen. Beispielsweise
    lässt der Hinweis kalt: 3 die Ermittler bis zu 4 Rateversuche machen.\""""
    state = play(RED_CARD, "clue red 3")
    assert state.guesses_left == 4
    for n, cell in enumerate(REDS[:3], start=1):
        state, result = outcome(state, touch(cell))
        assert not result.turn_over and state.guesses_left == 4 - n
    state, result = outcome(state, touch(REDS[3]))  # the fourth, the "plus 1"
    assert result.result is Result.OWN_AGENT and result.turn_over
    assert state.turn is BLUE and state.phase is Phase.AWAITING_CLUE
    assert state.guesses_left is None
    assert state.agents_left(RED) == 5
    assert refused(state, touch(REDS[4])) is RejectReason.NO_CLUE


def test_plus_one_also_on_the_first_turn() -> None:
    """ "Diesen Zusatz-Rateversuch braucht ihr in eurem ersten Zug nicht. Später jedoch
    könnt ihr diese „Plus 1“-Regel nutzen": advice (nothing from earlier clues is
    left to find on the first turn), not a prohibition; the stand allows the extra
    guess on every turn (docs/classic-rules.md "The number: plus one, 0, unlimited, none")."""
    state = play(RED_CARD, "clue red 1")
    assert state.guesses_left == 2
    state = play(RED_CARD, "clue red 1", touch(0), touch(1))
    assert state.turn is BLUE and state.agents_left(RED) == 7


def test_clue_for_zero_has_no_limit() -> None:
    """ "Ein Hinweis wie Federn: 0 erlaubt beliebig viele Rateversuche. (Ignoriert die
    Regel „plus 1“.)\""""
    state = play(RED_CARD, "clue red 0", *(touch(c) for c in REDS[:8]))
    assert state.phase is Phase.GUESSING and state.turn is RED
    assert state.guesses_left is None
    assert state.agents_left(RED) == 1


def test_unlimited_clue_has_no_limit() -> None:
    """ "Anstelle einer Zahl darfst du sagen, dass dein Hinweis unbegrenzt ist ... Das
    erlaubt es deinen Ermittlern, so viele Rateversuche zu machen, wie sie wollen, so
    lange sie korrekt raten.\""""
    state = play(RED_CARD, "clue red unlimited", *(touch(c) for c in REDS[:8]))
    assert state.phase is Phase.GUESSING and state.guesses_left is None
    # "so lange sie korrekt raten": a wrong one still ends the turn
    state, result = outcome(state, touch(20))
    assert result.turn_over and state.turn is BLUE


def test_clue_without_a_number_has_no_limit() -> None:
    """ "Dein Hinweis muss aus 1 Wort und 1 Zahl bestehen": the number is said aloud;
    when the group does not enter it, the stand does not know the limit and sets
    none (docs/classic-rules.md "The number: plus one, 0, unlimited, none"), as for 0 and
    unlimited."""
    state = play(RED_CARD, "clue red", *(touch(c) for c in REDS[:8]))
    assert state.phase is Phase.GUESSING and state.guesses_left is None
    assert state.clue == Clue(RED)


def test_the_limit_counts_only_own_colour_guesses_that_go_on() -> None:
    """ "Solange ihr richtig liegt, dürft ihr weiterraten": the limit ends a turn of
    right guesses; a wrong guess before it ends the turn at once."""
    state, result = outcome(play(RED_CARD, "clue red 2", touch(0)), touch(9))
    assert result.result is Result.OTHER_AGENT and result.turn_over
    assert state.turn is BLUE


# ----- ending a turn ------------------------------------------------------------------


def test_operatives_may_end_their_turn() -> None:
    """ "Wenn euer Zug nicht durch einen falschen Rateversuch endet, dürft ihr ihn
    freiwillig beenden.\""""
    state, result = outcome(play(RED_CARD, "clue red 3", touch(0)), "pass red")
    assert result.result is Result.PASS and result.turn_over
    assert state.turn is BLUE and state.phase is Phase.AWAITING_CLUE


def test_at_least_one_guess() -> None:
    """ "Ihr müsst aber auf jeden Fall 1 Rateversuch machen." and "Sie sind aber
    gezwungen, mindestens 1 Rateversuch zu machen.\""""
    assert refused(play(RED_CARD, "clue red 3"), "pass red") is RejectReason.PASS_BEFORE_GUESS
    # also for a clue for 0 and an unlimited one
    assert refused(play(RED_CARD, "clue red 0"), "pass red") is RejectReason.PASS_BEFORE_GUESS
    assert (
        refused(play(RED_CARD, "clue red unlimited"), "pass red") is RejectReason.PASS_BEFORE_GUESS
    )


def test_only_the_team_on_turn_ends_it() -> None:
    """ "Wenn euer Zug nicht durch einen falschen Rateversuch endet, dürft ihr ihn
    freiwillig beenden": "ihr", the team whose turn it is."""
    state = play(RED_CARD, "clue red 3", touch(0))
    assert refused(state, "pass blue") is RejectReason.PASS_OUT_OF_TURN
    assert refused(Classic.start(RED_CARD), "pass red") is RejectReason.PASS_NO_TURN


# ----- winning ---------------------------------------------------------------------------


def test_a_team_wins_with_its_last_agent() -> None:
    """ "Wenn euer Team keine Wörter mehr zu erraten hat, gewinnt ihr. Oft werdet ihr
    gewinnen, indem ihr euer letztes Wort erratet.\""""
    state = play(RED_CARD, "clue red 0", *(touch(c) for c in REDS[:8]))
    state, result = outcome(state, touch(REDS[8]))
    assert result.winner is RED and result.turn_over
    assert state.status is Status.OVER and state.winner is RED
    assert state.reason is Reason.ALL_FOUND
    assert state.agents_left(RED) == 0


def test_winning_on_the_other_teams_touch() -> None:
    """ "Ihr könnt aber auch gewinnen, wenn das andere Team euer letztes Wort in seinem
    Zug errät.\""""
    # Blue finds 7 of its 8, then red touches blue's last one.
    state = play(RED_CARD, *BLUE_ALMOST_DONE)
    assert state.turn is RED and state.agents_left(BLUE) == 1
    state, result = outcome(play(RED_CARD, *BLUE_ALMOST_DONE, "clue red 2"), touch(BLUES[7]))
    assert result.result is Result.OTHER_AGENT and result.winner is BLUE
    assert state.winner is BLUE and state.reason is Reason.ALL_FOUND
    assert state.phase is Phase.OVER and state.turn is None


def test_a_finished_game_refuses_everything_but_undo() -> None:
    """ "Führt abwechselnd Züge aus, bis ein Team gewinnt": after that, no more turns."""
    over = play(RED_CARD, "clue red 2", touch(ASSASSIN))
    for line in ("clue red 1", "clue blue 1", touch(0), "pass blue", penalty(0)):
        assert refused(over, line) is RejectReason.GAME_OVER
    back, result = outcome(over, "undo")
    assert result.result is Result.UNDO and back == play(RED_CARD, "clue red 2")


# ----- the invalid-clue penalty ----------------------------------------------------------


def test_penalty_ends_the_turn_and_the_other_team_covers_its_word() -> None:
    """ "Wenn ein Agentenchef versehentlich einen ungültigen Hinweis gibt, endet der
    Zug seines Teams sofort, ohne Rateversuche und der gegnerische Agentenchef darf
    eines seiner eigenen Wörter abdecken, bevor er einen neuen Hinweis gibt.\""""
    state, result = outcome(play(RED_CARD, "clue red 2"), penalty(14))
    assert result.result is Result.PENALTY and result.turn_over
    assert result.team is RED and result.cell == 14 and result.key is ClassicKey.BLUE
    assert state.turn is BLUE and state.phase is Phase.AWAITING_CLUE
    assert state.covered == {14}
    assert state.agents_left(BLUE) == 7 and state.agents_left(RED) == 9
    # "bevor er einen neuen Hinweis gibt": blue's clue is next
    assert play(RED_CARD, "clue red 2", penalty(14), "clue blue 1").turn is BLUE


def test_penalty_covers_only_the_other_teams_own_word() -> None:
    """ "der gegnerische Agentenchef darf eines seiner eigenen Wörter abdecken": one of
    the other team's agents, not yet covered."""
    state = play(RED_CARD, "clue red 2")
    for cell in (0, 17, ASSASSIN):  # red's own, a bystander, the assassin
        assert refused(state, penalty(cell)) is RejectReason.PENALTY_NOT_THEIR_WORD
    # blue's turn: red's spymaster covers a red word
    state = play(RED_CARD, "clue red 2", touch(17), "clue blue 2")
    assert refused(state, penalty(9)) is RejectReason.PENALTY_NOT_THEIR_WORD
    after = play(RED_CARD, "clue red 2", touch(17), "clue blue 2", penalty(0))
    assert after.turn is RED and after.agents_left(RED) == 8
    # a word with a tile on it cannot be covered again
    state = play(RED_CARD, "clue red 2", touch(0), touch(9), "clue blue 2")
    assert refused(state, penalty(0)) is RejectReason.COVERED


def test_penalty_only_before_the_first_guess() -> None:
    """ "endet der Zug seines Teams sofort, ohne Rateversuche" and "Außerdem ist ein
    ungültiger Hinweis automatisch gültig, wenn er erst später als ungültig bemerkt
    wird": once a word was touched on the clue, it stands."""
    state = play(RED_CARD, "clue red 2", touch(0))
    assert refused(state, penalty(9)) is RejectReason.PENALTY_AFTER_GUESS


def test_penalty_needs_a_clue() -> None:
    """ "Wenn ein Agentenchef versehentlich einen ungültigen Hinweis gibt": no clue, no
    penalty."""
    assert refused(Classic.start(RED_CARD), penalty(9)) is RejectReason.PENALTY_NO_CLUE


def test_penalty_on_their_last_word_wins_for_them() -> None:
    """ "Wenn euer Team keine Wörter mehr zu erraten hat, gewinnt ihr": also when the
    penalty covers the other team's last word."""
    state = play(RED_CARD, *BLUE_ALMOST_DONE, "clue red 3")
    state, result = outcome(state, penalty(BLUES[7]))
    assert result.winner is BLUE
    assert state.status is Status.OVER and state.winner is BLUE
    assert state.reason is Reason.ALL_FOUND


# ----- undo ---------------------------------------------------------------------------------


def test_undo_returns_to_the_state_before_the_last_accepted_event() -> None:
    """Not in the rulebook: the stand's undo (a stray touch taken back), as in Duet."""
    before = play(RED_CARD, "clue red 2", touch(0))
    after = play(RED_CARD, "clue red 2", touch(0), touch(20))
    back, result = outcome(after, "undo")
    assert back == before and result.undone == Touch(4, 0)
    # refused events are skipped: undo takes back the last accepted one
    with_refusal, _ = after.apply(parse_event("pass blue"))
    assert outcome(with_refusal, "undo")[0] == before
    # undo after undo goes one more step back; then nothing is left to undo
    state = back
    for _ in range(2):
        state, _ = outcome(state, "undo")
    assert state == Classic.start(RED_CARD)
    assert refused(state, "undo") is RejectReason.NOTHING_TO_UNDO
    # the log keeps everything, undo included: it is an appended event
    assert state.log[-1] == Undo() and len(state.log) == 6


def test_undo_reopens_a_game_a_stray_touch_ended() -> None:
    """The stand's undo, as in Duet: a game ended by a stray touch of the assassin
    goes on."""
    over = play(RED_CARD, "clue red 2", touch(ASSASSIN))
    back, _ = outcome(over, "undo")
    assert back.status is Status.PLAYING and back.turn is RED and back.guesses_left == 3


# ----- replay, the summary, play ----------------------------------------------------------


def test_replay_gives_the_same_state() -> None:
    """docs/design.md "Data flow": "a game is its card and its events. Replaying the journal
    gives the same state"."""
    lines = ["clue red 2", touch(0), "pass blue", touch(9), "clue blue", penalty(1), "undo"]
    state = Classic.start(RED_CARD)
    for line in lines:
        state, _ = state.apply(parse_event(line))
    again = Classic.replay(RED_CARD, state.log)
    assert again == state and again.log == state.log
    assert summary(again) == summary(state)
    assert eval(repr(state)) == state


def test_summary_has_designs_fields() -> None:
    """docs/design.md "Contracts": status, winner, reason, phase, turn,
    guesses_left (null when no limit), agents_left, covered, rejected."""
    state = play(RED_CARD, "clue red 2", touch(3), touch(12), "clue blue 3", touch(10))
    assert summary(state, [{"line": 4, "event": "pass red", "reason": "pass_out_of_turn"}]) == {
        "status": "playing",
        "winner": None,
        "reason": None,
        "phase": "guessing",
        "turn": "blue",
        "guesses_left": 3,
        "agents_left": {"red": 8, "blue": 6},
        "covered": [3, 10, 12],
        "rejected": [{"line": 4, "event": "pass red", "reason": "pass_out_of_turn"}],
    }
    over = play(RED_CARD, "clue red unlimited", touch(ASSASSIN))
    assert summary(over) == {
        "status": "over",
        "winner": "blue",
        "reason": "assassin",
        "phase": "over",
        "turn": None,
        "guesses_left": None,
        "agents_left": {"red": 9, "blue": 8},
        "covered": [ASSASSIN],
        "rejected": [],
    }
    assert summary(Classic.start(BLUE_CARD))["turn"] == "blue"
    assert summary(Classic.start(BLUE_CARD))["agents_left"] == {"red": 8, "blue": 9}


def test_play_raises_the_refusal() -> None:
    """`play` is `apply` for callers that want a refusal raised (a ValueError too)."""
    state = Classic.start(RED_CARD)
    with pytest.raises(RejectedEvent) as info:
        state.play(Touch(0, 0))
    assert info.value.rejection == Rejection(Touch(0, 0), RejectReason.NO_CLUE)
    assert isinstance(info.value, ValueError)
    assert "no clue" in str(info.value)
    state, result = state.play(Clue(RED, 1))
    assert result.result is Result.CLUE


# ----- event text ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "event"),
    [
        ("clue red 2", Clue(RED, 2)),
        ("clue blue 0", Clue(BLUE, 0)),
        ("clue red unlimited", Clue(RED, UNLIMITED)),
        ("clue blue", Clue(BLUE)),
        ("touch 4 0", Touch(4, 0)),
        ("pass red", Pass(RED)),
        ("penalty 0 4", Penalty(0, 4)),
        ("undo", Undo()),
    ],
)
def test_event_text_round_trip(text: str, event: object) -> None:
    """docs/design.md "Contracts", the script lines: `clue red|blue [N|unlimited]`, `touch R C`,
    `pass red|blue`, `penalty R C`, `undo`."""
    assert parse_event(text) == event
    assert str(event) == text
    assert parse_event(f"  {text.upper()}  ") == event


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "empty event"),
        ("clue green 2", "expected red or blue"),
        ("clue red 10", "0..9 or unlimited"),
        ("clue red -1", "0..9 or unlimited"),
        ("clue red two", "not 'two'"),
        ("clue red \u00b2", "not '\u00b2'"),  # a digit to str.isdigit, not to int()
        ("touch \u00b2 0", "ROW and COL are numbers"),
        ("clue red 2 3", "expected 'clue red|blue [N|unlimited]'"),
        ("clue", "expected 'clue red|blue [N|unlimited]'"),
        ("pass", "expected 'pass red|blue'"),
        ("pass A", "expected red or blue"),
        ("touch 5 0", "rows and columns are 0..4"),
        ("touch x 0", "ROW and COL are numbers"),
        ("penalty", "expected 'penalty ROW COL'"),
        ("penalty 0 5", "rows and columns are 0..4"),
        ("undo 1", "expected 'undo'"),
        ("guess 1 1", "unknown event 'guess'"),
    ],
)
def test_malformed_events_name_what_is_wrong(text: str, says: str) -> None:
    """Malformed input cannot be built (EventError, a ValueError), unlike a refusal."""
    with pytest.raises(EventError, match=None) as info:
        parse_event(text)
    assert says in str(info.value)
    assert isinstance(info.value, ValueError)


def test_malformed_events_cannot_be_constructed() -> None:
    for build in (
        lambda: Clue(RED, 10),
        lambda: Clue(RED, -1),
        lambda: Clue(RED, True),
        lambda: Clue("red"),
        lambda: Pass("blue"),
        lambda: Penalty(5, 0),
    ):
        with pytest.raises(EventError):
            build()


# ----- key cards -------------------------------------------------------------------------


def test_card_counts_and_starting_team() -> None:
    """The box: "8 rote Agenten", "8 blaue Agenten", "7 unbeteiligte Zuschauer",
    "1 Attentäter", and "Gebt den Doppelagenten an das Start-Team": 9 agents for the
    team that starts."""
    assert RED_CARD.starting is RED and BLUE_CARD.starting is BLUE
    assert RED_CARD.agents(RED) == frozenset(REDS) and RED_CARD.agents(BLUE) == frozenset(BLUES)
    assert RED_CARD.assassin == ASSASSIN
    assert Counter(RED_CARD.keys) == {
        ClassicKey.RED: 9,
        ClassicKey.BLUE: 8,
        ClassicKey.BYSTANDER: 7,
        ClassicKey.ASSASSIN: 1,
    }
    # spaces, newlines and lower case are all the same card
    assert ClassicCard.parse("rrrrrrrrru\nuuuuu uu... ....x") == RED_CARD
    assert RED_CARD.text == "RRRRR RRRRU UUUUU UU... ....X"
    assert eval(repr(RED_CARD)) == RED_CARD


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("RRRRR RRRRU UUUUU UU... ....", "24 cells, expected 25"),
        ("RRRRR RRRRU UUUUU UU... ....XX", "26 cells, expected 25"),
        ("RRRRR RRRRB UUUUU UU... ....X", "character 'B' at cell 9 is not R (red agent)"),
        ("RRRRR RRRRB UUUUU UU... ....X", "(blue is U)"),
        ("RRRRR RRRRG UUUUU UU... ....X", "character 'G' at cell 9"),
        ("RRRRR RRRRU UUUUU UU... ..../RRRRR", "is it a Duet card?"),
        ("RRRRR RRRRU UUUUU UU... ...XX", "2 assassins (cells 23, 24), expected 1"),
        ("RRRRR RRRRU UUUUU UU... ....U", "0 assassins, expected 1"),
        (
            "RRRRR RRRRU UUUUU UUU.. ....X",
            "6 bystanders (cells 18, 19, 20, 21, 22, 23), expected 7",
        ),
        (
            "RRRRR RRRRR UUUUU UU... ...X.",
            "10 red agents and 7 blue agents, expected 9 of the starting team's colour and 8",
        ),
    ],
)
def test_card_validation_names_what_is_wrong(text: str, says: str) -> None:
    """docs/design.md "Contracts": "9 of the starting team's colour, 8 of the other, 7 bystanders, 1
    assassin"; a card that breaks it "is refused with a message naming what is wrong"."""
    with pytest.raises(CardError) as info:
        ClassicCard.parse(text)
    assert says in str(info.value)


def code_of_rank(value: int) -> str:
    """The code of rank `value`, built here: 8 base-32 digits and the textbook Luhn
    mod 32 check symbol."""
    digits = []
    for _ in range(8):
        value, d = divmod(value, 32)
        digits.append(d)
    digits.reverse()
    factor, total = 2, 0
    for v in reversed(digits):
        addend = factor * v
        factor = 1 if factor == 2 else 2
        total += addend // 32 + addend % 32
    body = "".join(CROCKFORD[d] for d in [*digits, (32 - total % 32) % 32])
    return f"{body[:3]}-{body[3:6]}-{body[6:]}"


def test_card_code_round_trip() -> None:
    """Every card has a code that names it, in Duet's style: 8 base-32 digits and a
    check symbol, `XXX-XXX-XXX` (rules/classic_code.py)."""
    assert 2 * factorial(25) // (factorial(9) * factorial(8) * factorial(7)) == CLASSIC_CARD_COUNT
    rng = random.Random(15)
    for card in [RED_CARD, BLUE_CARD, unrank(0), unrank(CLASSIC_CARD_COUNT - 1)] + [
        generate(rng) for _ in range(200)
    ]:
        code = card.code
        assert len(code) == 11 and code[3] == code[7] == "-"
        assert ClassicCard.from_code(code) == card
        assert code == code_of_rank(rank(card))
        assert ClassicCard.from_code(code.lower().replace("-", " ")) == card
        assert unrank(rank(card)) == card
    # the red-starting cards come first, the first of all is R..RU..U.......X
    assert unrank(0) == ClassicCard.parse("RRRRR RRRRU UUUUU UU... ....X")
    assert unrank(CLASSIC_CARD_COUNT // 2).starting is BLUE


def test_card_code_catches_typos() -> None:
    code = RED_CARD.code
    body = code.replace("-", "")
    for pos in range(len(body)):
        for ch in CROCKFORD:
            if ch == body[pos]:
                continue
            typo = body[:pos] + ch + body[pos + 1 :]
            with pytest.raises(CardCodeError):
                decode(typo)
    with pytest.raises(CardCodeError, match="12 symbols is a Duet card code"):
        decode("J6VN-GH6B-CFNE")
    with pytest.raises(CardCodeError, match="'U' \\(symbol 1\\) is not a code symbol"):
        decode("U" + body[1:])
    # O, I and L are read as 0, 1 and 1 (Crockford); the second card's code is
    # 000-000-01Y by the ranking of the module docstring (R before U before . before X)
    second = ClassicCard.parse("RRRRR RRRRU UUUUU UU... ...X.")
    assert rank(second) == 1 and second.code == code_of_rank(1)
    assert code_of_rank(1)[:-1] == "000-000-01"
    check = code_of_rank(1)[-1]
    assert decode(f"OOO-OOO-OI{check}") == decode(f"ooo-ooo-ol{check.lower()}") == second


def test_generator_is_seeded_and_can_name_the_starting_team() -> None:
    assert generate(random.Random(7)) == generate(random.Random(7))
    rng = random.Random(3)
    assert {generate(rng, starting=RED).starting for _ in range(30)} == {RED}
    assert {generate(rng, starting=BLUE).starting for _ in range(30)} == {BLUE}
    assert isinstance(generate(), ClassicCard)  # unseeded: from the system's random source


def test_generator_is_uniform() -> None:
    """Every card equally likely: so each team starts half the time, and each cell is
    the assassin 1/25 of the time. Chi-square at the 99.9% level (1 and 24 degrees of
    freedom: 10.83 and 51.18, from standard tables)."""
    rng = random.Random(2024)
    n = 5000
    cards = [generate(rng) for _ in range(n)]
    reds = sum(1 for c in cards if c.starting is RED)
    chi_start = (reds - n / 2) ** 2 / (n / 2) + (n - reds - n / 2) ** 2 / (n / 2)
    assert chi_start < 10.83
    seen = Counter(c.assassin for c in cards)
    chi_cell = sum((seen[i] - n / 25) ** 2 / (n / 25) for i in range(25))
    assert chi_cell < 51.18


# ----- the rules stay pure ------------------------------------------------------------------


def test_classic_rules_import_only_the_standard_library() -> None:
    """The brief and docs/design.md "Layout": `rules/` imports nothing but the standard library
    (and its own siblings)."""
    import ast
    import sys
    from pathlib import Path

    import keystand.rules

    folder = Path(keystand.rules.__file__).parent
    for name in ("classic.py", "classic_card.py", "classic_code.py", "classic_events.py"):
        tree = ast.parse((folder / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                roots = [alias.name.split(".")[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level == 1:
                    assert (folder / f"{(node.module or '').split('.')[0]}.py").exists(), name
                    continue
                assert node.level == 0, f"{name}: imports from outside rules/"
                roots = [(node.module or "").split(".")[0]]
            else:
                continue
            for root in roots:
                assert root in sys.stdlib_module_names or root == "__future__", (name, root)
