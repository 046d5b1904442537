"""One unit test per rule of Codenames Duet, as the referee (keystand.rules.Duet) enforces it.

Every expected value is derived from the rulebook /work/shared/rules/duet-rules-en.txt
(quoted in each docstring) or, for what the rulebook leaves open, from the stand's
decisions in docs/rules.md; never from running the code. Where the code
disagrees with the rulebook the test stays, marked xfail(strict=True).

The games are played on small hand-made cards. `layout` builds the 25 (side A, side B)
pairs of a valid card with chosen pairs at chosen cells; most tests use DEFAULT:

    cells  0-2   GG  agent on both sides
    cells  3-7   G.  agent on A's side, bystander on B's
    cells  8-12  .G  bystander on A's side, agent on B's
    cell  13     GX  agent on A's side, assassin on B's
    cell  14     XG  assassin on A's side, agent on B's
    cell  15     XX  assassin on both sides
    cell  16     X.  assassin on A's side, bystander on B's
    cell  17     .X  bystander on A's side, assassin on B's
    cells 18-24  ..  bystander on both sides

Seat B guesses on A's clues, so A's side judges B's touches, and the other way round:
B must find A_AGENTS (0-7, 13), A must find B_AGENTS (0-2, 8-12, 14).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import pytest

from keystand.rules import (
    STANDARD,
    Card,
    Clue,
    Event,
    EventError,
    Mission,
    Pass,
    Penalty,
    Seat,
    Touch,
    Undo,
    parse_event,
)
from keystand.rules.duet import (
    Duet,
    Outcome,
    Phase,
    Reason,
    Rejection,
    RejectReason,
    Result,
    Status,
)

A, B = Seat.A, Seat.B

# ----- cards ------------------------------------------------------------------------

# docs/rules.md "The table and the key card": the (side A, side B) pairs every card
# has, and how many.
PAIR_COUNTS: dict[str, int] = {
    "GG": 3,
    "G.": 5,
    ".G": 5,
    "GX": 1,
    "XG": 1,
    "XX": 1,
    "X.": 1,
    ".X": 1,
    "..": 7,
}


def layout(chosen: dict[int, str] | None = None) -> tuple[str, ...]:
    """The 25 (side A, side B) pairs of a valid card, table order (cell 5*row + col):
    the chosen cells get the chosen pairs, the other cells the pairs still left, in the
    order of PAIR_COUNTS. Asking for more of a pair than a card has is an error."""
    chosen = dict(chosen or {})
    left = dict(PAIR_COUNTS)
    for index, pair in chosen.items():
        assert 0 <= index < 25, f"cell {index} is off the grid"
        left[pair] -= 1
        assert left[pair] >= 0, f"a card has only {PAIR_COUNTS[pair]} {pair!r} cells"
    rest = iter([pair for pair, n in left.items() for _ in range(n)])
    return tuple(chosen[i] if i in chosen else next(rest) for i in range(25))


def card_of(pairs: tuple[str, ...]) -> Card:
    """The card in the card text of docs/design.md "Contracts": `side A / side B`, rows of five."""

    def side(k: int) -> str:
        text = "".join(pair[k] for pair in pairs)
        return " ".join(text[i : i + 5] for i in range(0, 25, 5))

    return Card.parse(f"{side(0)} / {side(1)}")


def agents_of(pairs: tuple[str, ...], seat: Seat) -> tuple[int, ...]:
    """The cells `seat` sees green: the words its partner must find."""
    k = 0 if seat is A else 1
    return tuple(i for i, pair in enumerate(pairs) if pair[k] == "G")


DEFAULT = layout()
BOTH_AGENT = (0, 1, 2)
A_ONLY = (3, 4, 5, 6, 7)  # agent on A's side, bystander on B's
B_ONLY = (8, 9, 10, 11, 12)  # bystander on A's side, agent on B's
A_AGENT_B_ASSASSIN = 13
A_ASSASSIN_B_AGENT = 14
BOTH_ASSASSIN = 15
A_ASSASSIN_B_BYSTANDER = 16
A_BYSTANDER_B_ASSASSIN = 17
NOBODY = (18, 19, 20, 21, 22, 23, 24)  # bystander on both sides
A_AGENTS = (*BOTH_AGENT, *A_ONLY, A_AGENT_B_ASSASSIN)  # B finds these on A's clues
B_AGENTS = (*BOTH_AGENT, *B_ONLY, A_ASSASSIN_B_AGENT)  # A finds these on B's clues

# ----- events and playing -----------------------------------------------------------

CLUE_A, CLUE_B = Clue(A), Clue(B)
PASS_A, PASS_B = Pass(A), Pass(B)
PENALTY = Penalty()
UNDO = Undo()


def T(index: int) -> Touch:
    """A touch of table cell `index` (row index // 5, column index % 5)."""
    return Touch(index // 5, index % 5)


def touches(cells: Iterable[int]) -> list[Touch]:
    return [T(i) for i in cells]


def seq(*parts: Iterable[Event]) -> list[Event]:
    """The events of several lists, one after the other."""
    return [event for part in parts for event in part]


def start(
    mission: Mission = STANDARD, *, loose: bool = False, pairs: tuple[str, ...] = DEFAULT
) -> Duet:
    return Duet.start(card_of(pairs), mission, loose_order=loose)


def step(state: Duet, event: Event) -> tuple[Duet, Outcome]:
    """Apply an event the rules must accept."""
    after, outcome = state.apply(event)
    assert isinstance(outcome, Outcome), f"{event} was refused: {outcome}"
    return after, outcome


def play(state: Duet, *events: Event) -> Duet:
    """Apply events the rules must all accept."""
    for event in events:
        state, _ = step(state, event)
    return state


def refused(state: Duet, event: Event, reason: RejectReason) -> None:
    """The rules must refuse `event` for `reason`, without raising and without a change."""
    after, outcome = state.apply(event)
    assert isinstance(outcome, Rejection), f"{event} was accepted: {outcome}"
    assert outcome.reason is reason
    assert outcome.event == event
    assert after == state


# ----- the cards the tests build ----------------------------------------------------


@pytest.mark.parametrize(
    "chosen",
    [{}, {20: "G.", 4: ".X", 12: "GX"}, {24: "XX", 0: "..", 7: "GG", 11: "GG", 12: "GG"}],
)
def test_layout_helper_keeps_the_distribution(chosen):
    """docs/rules.md "The table and the key card": "Each side of a key card has 9
    agents, 3 assassins and 13 bystanders. Across the two sides every card has exactly:
    [the pairs]" on "25 word cards": "15 different agents to find." (The card
    constructor refuses any other.)"""
    pairs = layout(chosen)
    assert all(pairs[i] == pair for i, pair in chosen.items())
    assert Counter(pairs) == Counter(PAIR_COUNTS)
    card = card_of(pairs)
    for seat in Seat:
        side = [pair[0 if seat is A else 1] for pair in pairs]
        assert Counter(side) == {"G": 9, "X": 3, ".": 13}
        assert card.agents(seat) == frozenset(agents_of(pairs, seat))
    assert len(set(agents_of(pairs, A)) | set(agents_of(pairs, B))) == 15


def test_default_layout_is_the_documented_one():
    """The module docstring's table of DEFAULT (the cells every other test relies on)."""
    assert DEFAULT == (
        ("GG",) * 3 + ("G.",) * 5 + (".G",) * 5 + ("GX", "XG", "XX", "X.", ".X") + ("..",) * 7
    )
    assert agents_of(DEFAULT, A) == A_AGENTS
    assert agents_of(DEFAULT, B) == tuple(sorted(B_AGENTS))


# ----- a turn: who judges a touch ---------------------------------------------------


def test_a_touch_is_judged_only_by_the_givers_side():
    """Rulebook: "When a player touches a word, its identity depends only on the other player's
    side of the key card." and "When you are guessing, only your partner's side of the
    key card is relevant." Also docs/rules.md "A turn": "A touched word is judged by the
    clue giver's side only." Cells are table cells, 5*row + col, the same for both seats."""
    pairs = layout({20: "G.", 4: ".X", 12: "GX"})  # (4,0), (0,4), (2,2)
    # A gives the clue, B guesses: A's side judges.
    s = play(start(pairs=pairs), CLUE_A)
    s, out = step(s, Touch(4, 0))
    assert (out.result, out.cell, out.guesser) == (Result.AGENT, 20, B)
    assert 20 in s.covered
    s, out = step(s, Touch(2, 2))  # an assassin on B's own side: irrelevant
    assert out.result is Result.AGENT
    assert s.status is Status.PLAYING
    s, out = step(s, Touch(0, 4))  # bystander for A (assassin for B: irrelevant)
    assert (out.result, out.guesser) == (Result.BYSTANDER, B)
    assert s.status is Status.PLAYING
    # B gives the clue, A guesses: B's side judges the very same words.
    s = play(start(pairs=pairs), CLUE_B)
    s, out = step(s, Touch(4, 0))
    assert (out.result, out.cell, out.guesser) == (Result.BYSTANDER, 20, A)
    assert 20 not in s.covered
    for row, col in ((2, 2), (0, 4)):
        s = play(start(pairs=pairs), CLUE_B)
        s, out = step(s, Touch(row, col))
        assert out.result is Result.ASSASSIN
        assert (s.status, s.reason) == (Status.LOST, Reason.ASSASSIN)


def test_guessers_own_assassin_is_harmless():
    """Rulebook: "The words your partner wants you to guess could appear green, tan, or even black
    on your side." A word that is an assassin on the guesser's side is judged by the
    giver's side."""
    s = play(start(), CLUE_B)  # A guesses, B's side judges
    s, out = step(s, T(A_ASSASSIN_B_AGENT))
    assert out.result is Result.AGENT
    s, out = step(s, T(A_ASSASSIN_B_BYSTANDER))
    assert out.result is Result.BYSTANDER
    assert s.status is Status.PLAYING


# ----- a turn: correct guesses, bystanders, assassins -------------------------------


def test_correct_guess_covers_and_the_guesser_goes_on_without_limit():
    """Rulebook: "If your partner touches a word that you see as green, that is a correct guess.
    Cover it with a green agent card." and "Your partner can make an unlimited number of
    correct guesses." A turn's token is used only when the turn ends."""
    s = play(start(), CLUE_A)
    for n, cell in enumerate(A_AGENTS[:-1], start=1):  # the last one ends the turn: below
        s, out = step(s, T(cell))
        assert (out.result, out.cell, out.guesser) == (Result.AGENT, cell, B)
        assert cell in s.covered
        assert s.agents_found == n
        assert s.phase is Phase.GUESSING
        assert (s.clue_giver, s.guesser) == (A, B)
        assert not out.turn_over
    assert s.status is Status.PLAYING
    assert s.turns_left == 9


def test_bystander_marks_missed_by_guesser_and_ends_the_turn():
    """Rulebook: "If your partner touches a word you see as tan, mark it with a timer token. Take a
    token from the time bank and place it on the word card, bystander side up, with the
    arrow pointing from you to your partner." "Do not cover the word." "Running into an
    innocent bystander ends the turn immediately"."""
    s = play(start(), CLUE_A, T(0))
    s, out = step(s, T(8))  # bystander on A's side
    assert (out.result, out.cell, out.guesser) == (Result.BYSTANDER, 8, B)
    assert out.turn_over
    assert out.tokens == 1
    assert s.misses(B) == {8}
    assert s.misses(A) == frozenset()
    assert 8 not in s.covered
    assert s.phase is Phase.AWAITING_CLUE
    assert (s.turns_left, s.mistakes_left) == (8, 8)
    # The turn is over: B's guesses on it are done, and the next touch is A's, on B's clue.
    assert (s.clue_giver, s.guesser) == (B, A)


def test_missed_word_found_as_agent_by_the_other_seat_keeps_its_token():
    """Rulebook: "A word marked by a timer token might need to be guessed by the other player."
    "Your partner might see it as a green agent, in which case your partner covers it
    with a green agent card. The timer token should be put on top of the agent card"."""
    s = play(start(), CLUE_A, T(8))  # B misses 8 (bystander on A's side)
    s = play(s, CLUE_B)
    s, out = step(s, T(8))  # A guesses it: agent on B's side
    assert (out.result, out.guesser) == (Result.AGENT, A)
    assert 8 in s.covered
    assert 8 in s.misses(B)  # the token stays, on top of the agent card
    assert s.agents_found == 1


def test_word_missed_by_both_seats_is_covered():
    """Rulebook: "Your partner might see it as an innocent bystander, in which case your partner
    marks it with a second timer token, with the arrow pointing toward you. The timer
    tokens should be arranged to cover the word, since neither of you can guess it
    again." """
    s = play(start(), CLUE_A, T(18))
    assert 18 not in s.covered
    s = play(s, CLUE_B)
    s, out = step(s, T(18))
    assert (out.result, out.guesser) == (Result.BYSTANDER, A)
    assert 18 in s.misses(A) and 18 in s.misses(B)
    assert 18 in s.covered
    assert s.agents_found == 0
    assert s.turns_left == 7
    s = play(s, CLUE_A)
    refused(s, T(18), RejectReason.COVERED)
    s = play(s, T(3), PASS_B, CLUE_B)
    refused(s, T(18), RejectReason.COVERED)


def test_missed_word_can_be_an_assassin_for_the_other_seat():
    """Rulebook: "Your partner might see it as an assassin, in which case you lose the game." """
    s = play(start(), CLUE_A, T(A_BYSTANDER_B_ASSASSIN), CLUE_B)
    s, out = step(s, T(A_BYSTANDER_B_ASSASSIN))
    assert (out.result, out.guesser) == (Result.ASSASSIN, A)
    assert (s.status, s.reason, s.phase) == (Status.LOST, Reason.ASSASSIN, Phase.OVER)


@pytest.mark.parametrize("cell", [A_ASSASSIN_B_AGENT, BOTH_ASSASSIN, A_ASSASSIN_B_BYSTANDER])
def test_assassin_loses_at_once(cell):
    """Rulebook: "If your partner touches a word you see as black, that is an assassin. The game is
    over and you both lose." Also mid-turn, after correct guesses."""
    s = play(start(), CLUE_A, T(0), T(3))
    s, out = step(s, T(cell))
    assert (out.result, out.cell, out.guesser) == (Result.ASSASSIN, cell, B)
    assert (s.status, s.reason, s.phase) == (Status.LOST, Reason.ASSASSIN, Phase.OVER)
    assert s.score is None


# ----- a turn: one clue, at least one guess -------------------------------------------


def test_pass_before_a_correct_guess_is_refused_even_for_a_clue_for_zero():
    """Rulebook: "Each turn has exactly one clue and at least one guess." "After one or more correct
    guesses, your partner may choose to end the turn by taking a timer token from the time
    bank." "Even when your clue is for zero, your partner still must guess at least one
    word." (The stand is not told the clue's number: a clue for 0 is any clue.)"""
    s = play(start(), CLUE_A)
    refused(s, PASS_B, RejectReason.PASS_BEFORE_GUESS)
    s = play(s, PENALTY)  # a penalty is no guess either
    refused(s, PASS_B, RejectReason.PASS_BEFORE_GUESS)
    s, out = step(s, T(3))
    assert out.result is Result.AGENT
    s, out = step(s, PASS_B)
    assert (out.result, out.guesser, out.tokens, out.turn_over) == (Result.PASS, B, 1, True)
    assert s.phase is Phase.AWAITING_CLUE
    assert s.passes == 1


def test_pass_without_a_turn_is_refused():
    """Rulebook: "Each turn consists of exactly one clue and one or more guesses." No clue, no turn
    to end."""
    s = start()
    refused(s, PASS_A, RejectReason.PASS_NO_TURN)
    refused(s, PASS_B, RejectReason.PASS_NO_TURN)
    s = play(s, CLUE_A, T(3), PASS_B)
    refused(s, PASS_A, RejectReason.PASS_NO_TURN)
    refused(s, PASS_B, RejectReason.PASS_NO_TURN)


def test_pass_by_the_giver_is_refused():
    """Rulebook: "After one or more correct guesses, your partner may choose to end the turn by
    taking a timer token from the time bank." Only the guesser (the giver's partner)
    ends a turn."""
    s = play(start(), CLUE_A, T(3))
    refused(s, PASS_A, RejectReason.PASS_BY_GIVER)
    s = play(start(), CLUE_B, T(8))
    refused(s, PASS_B, RejectReason.PASS_BY_GIVER)


def test_touch_before_the_first_clue_is_refused():
    """Rulebook: "Each turn consists of exactly one clue and one or more guesses." and "On a turn
    when you give the clue, your partner will make guesses." Before anyone has declared a
    clue nobody is guessing."""
    s = start()
    for cell in (0, 3, 8, 15, 18):
        refused(s, T(cell), RejectReason.NO_CLUE)
    assert s.phase is Phase.AWAITING_CLUE


@pytest.mark.parametrize("seat", [A, B])
def test_either_seat_may_give_the_first_clue(seat):
    """Rulebook: "Either player may give the first clue." """
    s = start()
    assert set(s.may_give_clue()) == {A, B}
    assert s.clue_giver is None
    s, out = step(s, Clue(seat))
    assert (out.result, out.guesser) == (Result.CLUE, seat.partner)
    assert s.phase is Phase.GUESSING
    assert (s.clue_giver, s.guesser) == (seat, seat.partner)


def test_clues_alternate_and_a_clue_out_of_turn_is_refused():
    """Rulebook: "You and your partner will take turns giving clues. So if you gave the clue on the
    first turn, your partner gives the clue for the next turn." However the turn ended."""
    s = play(start(), CLUE_A, T(3), PASS_B)  # ended by a pass
    assert s.may_give_clue() == (B,)
    assert (s.clue_giver, s.guesser) == (B, A)
    refused(s, CLUE_A, RejectReason.CLUE_OUT_OF_TURN)
    s = play(s, CLUE_B, T(18))  # ended by a bystander
    assert (s.clue_giver, s.guesser) == (A, B)
    refused(s, CLUE_B, RejectReason.CLUE_OUT_OF_TURN)
    s = play(s, CLUE_A, T(4), PASS_B)
    refused(s, CLUE_A, RejectReason.CLUE_OUT_OF_TURN)
    play(s, CLUE_B)
    # The same when B starts.
    s = play(start(), CLUE_B, T(8), PASS_A)
    refused(s, CLUE_B, RejectReason.CLUE_OUT_OF_TURN)
    play(s, CLUE_A)


def test_a_clue_during_a_turn_is_refused():
    """Rulebook: "Your partner can make another guess if the first guess was correct. (You do not
    give another clue)." and "Each turn has exactly one clue and at least one guess." """
    s = play(start(), CLUE_A)
    refused(s, CLUE_A, RejectReason.TURN_IN_PROGRESS)
    refused(s, CLUE_B, RejectReason.TURN_IN_PROGRESS)
    s = play(s, T(3))
    refused(s, CLUE_A, RejectReason.TURN_IN_PROGRESS)
    refused(s, CLUE_B, RejectReason.TURN_IN_PROGRESS)
    s = play(start(loose=True), CLUE_B)
    refused(s, CLUE_A, RejectReason.TURN_IN_PROGRESS)
    refused(s, CLUE_B, RejectReason.TURN_IN_PROGRESS)


def test_looser_order_allows_two_clues_in_a_row_never_three():
    """Rulebook: "You can allow a player to give two clues in a row, if you like. But then the other
    player should give a clue." (docs/rules.md "A turn": "a seat may give two clues in a
    row, never three.")"""
    s = start(loose=True)
    s = play(s, CLUE_A, T(3), PASS_B)
    assert set(s.may_give_clue()) == {A, B}
    s = play(s, CLUE_A, T(4), PASS_B)  # two in a row
    assert s.may_give_clue() == (B,)
    refused(s, CLUE_A, RejectReason.THIRD_CLUE_IN_ROW)
    s = play(s, CLUE_B, T(8), PASS_A)
    s = play(s, CLUE_A, T(5), PASS_B)
    s = play(s, CLUE_A, T(6), PASS_B)  # two in a row again, after B's clue
    refused(s, CLUE_A, RejectReason.THIRD_CLUE_IN_ROW)
    s = play(s, CLUE_B, T(9), PASS_A)
    s = play(s, CLUE_B, T(10), PASS_A)
    refused(s, CLUE_B, RejectReason.THIRD_CLUE_IN_ROW)
    play(s, CLUE_A)


# ----- what is not a guess -------------------------------------------------------------


def test_a_covered_word_is_refused():
    """Rulebook: "A word that is covered by a green agent card does not need to be guessed anymore."
    docs/rules.md "A turn": "Refused, with the reason on the screen: a covered word"."""
    s = play(start(), CLUE_A, T(0))
    refused(s, T(0), RejectReason.COVERED)  # same turn, same guesser
    s = play(s, T(3), PASS_B, CLUE_B)
    refused(s, T(0), RejectReason.COVERED)  # the other seat
    refused(s, T(3), RejectReason.COVERED)  # covered on an earlier turn
    s, out = step(s, T(8))
    assert out.result is Result.AGENT


def test_a_word_this_guesser_already_missed_is_refused_but_the_other_seat_may_guess_it():
    """docs/rules.md "A turn": "Refused, with the reason on the screen: ... a word this
    guesser already missed (the same side would judge it again)". Rulebook: "A word
    marked by a timer token for one player may still be guessed by the other player." """
    s = play(start(), CLUE_A, T(18))  # B misses 18
    s = play(s, CLUE_B, T(8), PASS_A, CLUE_A)
    refused(s, T(18), RejectReason.ALREADY_MISSED)
    s, out = step(s, T(4))  # B still guesses on this turn
    assert out.result is Result.AGENT
    s = play(s, PASS_B, CLUE_B)
    s, out = step(s, T(18))  # A may guess it
    assert (out.result, out.guesser) == (Result.BYSTANDER, A)
    assert 18 in s.covered


# ----- the last words -------------------------------------------------------------------


@pytest.mark.parametrize("loose", [False, True], ids=["strict", "loose"])
@pytest.mark.parametrize("seat", [A, B])
def test_when_all_of_a_seats_agents_are_covered_its_partner_gives_every_clue(seat, loose):
    """Rulebook: "If all 9 words that you see as green have been covered by agent cards, tell your
    partner that he or she has no words left to guess. Your partner will be the one who
    gives clues on all remaining turns." So S's own clue is refused, and S's partner gives
    clues in a row, in strict order and beyond two in a looser one."""
    partner = seat.partner
    own = A_AGENTS if seat is A else B_AGENTS
    left = [c for c in (B_AGENTS if seat is A else A_AGENTS) if c not in own]
    s = play(start(loose=loose), Clue(seat))
    for cell in own[:-1]:
        s, out = step(s, T(cell))
        assert out.announced == ()
    s, out = step(s, T(own[-1]))
    assert out.result is Result.AGENT
    assert out.announced == (seat,)
    assert out.turn_over  # nothing left to find: the turn ended as a pass (see below)
    for cell in left[:3]:  # three clues in a row by the partner
        assert s.may_give_clue() == (partner,)
        assert (s.clue_giver, s.guesser) == (partner, seat)
        refused(s, Clue(seat), RejectReason.PARTNER_HAS_NOTHING_LEFT)
        s, out = step(s, Clue(partner))
        assert out.guesser is seat
        s, out = step(s, T(cell))
        assert out.announced == ()
        s = play(s, Pass(seat))
    refused(s, Clue(seat), RejectReason.PARTNER_HAS_NOTHING_LEFT)


def test_seat_announces_when_it_covers_its_own_last_agent_as_guesser():
    """Rulebook: "If all 9 words that you see as green have been covered by agent cards, tell your
    partner that he or she has no words left to guess." A word green on both sides counts
    for both, whoever guessed it: A guessing a GG word may cover A's own last agent."""
    s = play(start(), CLUE_A, *touches(A_AGENTS[1:]), PASS_B)  # all of A's but cell 0
    s = play(s, CLUE_B)
    s, out = step(s, T(0))  # judged by B's side: agent, and A's ninth
    assert (out.result, out.guesser) == (Result.AGENT, A)
    assert out.announced == (A,)
    s, out = step(s, T(8))
    assert out.announced == ()
    s = play(s, PASS_A)
    refused(s, CLUE_A, RejectReason.PARTNER_HAS_NOTHING_LEFT)
    s, out = step(s, CLUE_B)  # B twice in a row, in strict order
    assert out.guesser is A


# ----- what the table says without a key (rules version 2; docs/rules.md) ----------------


def test_the_guessers_first_touch_gives_the_known_givers_clue():
    """Rulebook: "Each turn consists of exactly one clue and one or more guesses." "On a turn when
    you give the clue, your partner will make guesses ... by touching one of the word
    cards." "You and your partner will take turns giving clues." Once the order names
    the giver, the guesser's touch is that clue's first guess: the same game as the
    clue key then the touch, in one event."""
    turn = play(start(), CLUE_A, T(3), PASS_B)  # B gives next: A guesses
    assert (turn.phase, turn.clue_giver, turn.guesser) == (Phase.AWAITING_CLUE, B, A)
    for cell, result in ((8, Result.AGENT), (18, Result.BYSTANDER), (17, Result.ASSASSIN)):
        s, out = step(turn, T(cell))  # judged by B's side
        assert (out.result, out.cell, out.guesser, out.event) == (result, cell, A, T(cell))
        keyed = play(turn, CLUE_B, T(cell))
        assert s == keyed and s.givers == (A, B)
    s, _ = step(turn, T(8))
    assert (s.phase, s.clue_giver, s.guesser) == (Phase.GUESSING, B, A)
    refused(s, CLUE_B, RejectReason.TURN_IN_PROGRESS)  # the clue is given
    s = play(s, PASS_A)  # and the turn ends as any
    assert s.passes == 2


def test_a_first_touch_gives_the_clue_of_the_seat_the_group_chose():
    """Rulebook: "Either player may give the first clue"; docs/rules.md: "unless the group
    names a seat in the menu". Then the giver is known from the start."""
    s = Duet.start(card_of(DEFAULT), first=B)
    s, out = step(s, T(8))
    assert (out.result, out.guesser) == (Result.AGENT, A)
    assert s.givers == (B,)


def test_a_touch_before_a_clue_either_seat_may_give_is_refused():
    """Rulebook: "Either player may give the first clue." and, in the looser order, "You can
    allow a player to give two clues in a row". While either seat may give the clue,
    whose side judges the touch is not known: the clue key says it."""
    refused(start(), T(3), RejectReason.NO_CLUE)
    s = play(start(loose=True), CLUE_A, T(3), PASS_B)  # A may give a second, or B
    assert s.may_give_clue() == (A, B)
    refused(s, T(8), RejectReason.NO_CLUE)
    s = play(s, CLUE_A, T(4), PASS_B)  # two in a row: now only B may
    s, out = step(s, T(8))
    assert (out.result, out.guesser) == (Result.AGENT, A)


def test_a_first_touch_the_rules_refuse_gives_no_clue():
    """Rulebook: "A word that is covered by a green agent card does not need to be guessed
    anymore." A first touch on it (or on a word this guesser missed) is refused as
    during the turn, and no clue is taken with it: the turn has not started."""
    s = play(start(), CLUE_A, T(18), CLUE_B, T(8), PASS_A)  # B missed 18; A found 8
    assert (s.phase, s.clue_giver, s.guesser) == (Phase.AWAITING_CLUE, A, B)
    refused(s, T(8), RejectReason.COVERED)
    refused(s, T(18), RejectReason.ALREADY_MISSED)


def test_the_word_the_last_turn_missed_waits_for_its_timer_token():
    """Rulebook: "If your partner touches a word you see as tan, mark it with a timer token. Take a
    token from the time bank and place it on the word card". That hand comes after the
    turn's end: a touch on the word before the next clue starts no turn (it would be the
    next guesser's guess, judged by the other side). With the clue key first, the word
    may be guessed: "A word marked by a timer token for one player may still be guessed
    by the other player." """
    s = play(start(), CLUE_A, T(0), T(8))  # B misses 8 (A's side): the turn ends
    assert (s.clue_giver, s.guesser, s.token_due) == (B, A, 8)
    refused(s, T(8), RejectReason.NO_CLUE)
    keyed, out = step(play(s, CLUE_B), T(8))  # A guesses it on B's clue: agent on B's side
    assert (out.result, out.guesser) == (Result.AGENT, A)
    assert keyed.token_due is None
    other, out = step(s, T(9))  # any other word: A's first guess
    assert (out.result, out.guesser, other.token_due) == (Result.AGENT, A, None)
    passed = play(other, PASS_A)  # a turn ended by a pass leaves no token to place
    assert passed.token_due is None
    s, out = step(passed, T(1))
    assert (out.result, out.guesser) == (Result.AGENT, B)


def test_undo_takes_back_the_first_touch_with_the_clue_it_gave():
    """Stand decision (docs/rules.md "Undo"): undo returns to the state before the last accepted
    event. A first touch and its clue are one event: back to awaiting the clue."""
    before = play(start(), CLUE_A, T(3), PASS_B)
    after, _ = step(before, T(8))
    undone, out = step(after, UNDO)
    assert (out.result, out.undone) == (Result.UNDO, T(8))
    assert undone == before and undone.phase is Phase.AWAITING_CLUE


def test_the_turn_ends_as_a_pass_when_the_guesser_has_nothing_left_to_find():
    """Rulebook: "If all 9 words that you see as green have been covered by agent cards, tell your
    partner that he or she has no words left to guess." Every open word is then a
    bystander or an assassin on the giver's side; the guesser ends the turn "by taking a
    timer token from the time bank" (check side first: "If only bystander-side-up
    tokens are left, the guesser takes one of these instead"), and it scores: "1 point
    for each timer token that a player took when ending a turn after a correct guess".
    "Your partner will be the one who gives clues on all remaining turns." """
    for mission, bank in ((Mission(9, 5), (3, 5)), (STANDARD, (0, 8))):
        s = play(start(mission), CLUE_A, *touches(A_AGENTS[:-1]))
        assert s.phase is Phase.GUESSING
        s, out = step(s, T(A_AGENTS[-1]))
        assert (out.result, out.guesser, out.announced) == (Result.AGENT, B, (A,))
        assert (out.turn_over, out.tokens) == (True, 1)
        assert (s.phase, s.passes, (s.bank_check, s.bank_bystander)) == (
            Phase.AWAITING_CLUE,
            1,
            bank,
        )
        assert (s.clue_giver, s.guesser) == (B, A)
        refused(s, PASS_B, RejectReason.PASS_NO_TURN)  # nothing left to end
        s = play(s, T(8))  # A's touch gives B's clue (B gives every clue now)
        assert s.givers == (A, B)
    # The last token: sudden death follows, as after any turn.
    s = play(start(Mission(1, 1)), CLUE_A, *touches(A_AGENTS))
    assert (s.phase, s.passes, s.guesser) == (Phase.SUDDEN_DEATH, 1, A)


def test_a_game_of_rules_version_1_replays_by_them():
    """docs/rules.md: a game journaled before version 2 goes on by the rules it was started
    under, so an update leaves a game in play as it was: a touch waits for the clue key,
    and finding the giver's last word leaves the turn to the pass key."""
    s = Duet.start(card_of(DEFAULT), rules_version=1)
    s = play(s, CLUE_A, T(3), PASS_B)
    refused(s, T(8), RejectReason.NO_CLUE)
    s = play(s, CLUE_B, *touches(B_AGENTS))
    assert s.phase is Phase.GUESSING and s.nothing_left_to_guess(A)
    s, out = step(s, PASS_A)
    assert (out.result, s.passes) == (Result.PASS, 2)
    assert "rules_version=1" in repr(s) and eval(repr(s)) == s
    with pytest.raises(ValueError):
        Duet.start(card_of(DEFAULT), rules_version=3)


def test_turn_marks_are_the_words_the_givers_hand_covers_or_marks():
    """Rulebook: the giver covers a found word ("Cover it with a green agent card") and marks a
    missed one with a timer token, for this turn's touches; until the next clue, a
    touch on such a word is that hand (the stand shows no refusal of it)."""
    s = play(start(), CLUE_A, T(3), T(4))
    assert s.turn_marks == {3, 4}
    s = play(s, T(18))  # the turn ends on a bystander: its token too
    assert s.turn_marks == {3, 4, 18}
    assert play(s, CLUE_B).turn_marks == frozenset()
    first = play(s, T(8))  # a first touch gives the clue: the new turn's first mark
    assert first.turn_marks == {8}
    assert play(first, UNDO).turn_marks == {3, 4, 18}


# ----- the time bank ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "mission", "check", "bystander"),
    [
        ("9-9", Mission(9, 9), 0, 9),
        ("prague", Mission(9, 9), 0, 9),
        ("9-5", Mission(9, 5), 4, 5),
        ("cairo", Mission(9, 5), 4, 5),
        ("moscow", Mission(8, 8), 0, 8),
        ("jakarta", Mission(7, 7), 0, 7),
        ("6-6", Mission(6, 6), 0, 6),
        ("singapore", Mission(6, 6), 0, 6),
        ("11-11", Mission(11, 11), 0, 11),
    ],
)
def test_mission_sets_up_the_time_bank(text, mission, check, bystander):
    """Rulebook: "Place 9 timer tokens bystander side up beside the word grid" "The first number is
    the total number of turns." "The second number is the number of acceptable mistakes.
    Only this many tokens are bystander side up. The rest are flipped to the checkmark
    side." "When setting up Cairo, for example, only 5 of the 9 tokens will be bystander
    side up" "Moscow 8-8, Jakarta 7-7, and Singapore 6-6"."""
    assert Mission.parse(text) == mission
    s = Duet.start(card_of(DEFAULT), Mission.parse(text))
    assert (s.bank_check, s.bank_bystander) == (check, bystander)
    assert s.turns_left == mission.turns
    assert s.mistakes_left == bystander
    assert Mission(9, 9) == STANDARD


def test_pass_takes_a_check_token_else_a_bystander_token():
    """Rulebook: "If the guesser chooses to stop guessing after one or more correct guesses, he or
    she takes a checkmark-side-up token from the time bank. If only bystander-side-up
    tokens are left, the guesser takes one of these instead and places it checkmark side
    up on his or her side of the table." (Mission 9-5: 4 check, 5 bystander.)"""
    s = start(Mission(9, 5))
    turns = [(A, 3), (B, 8), (A, 4), (B, 9)]
    for n, (giver, cell) in enumerate(turns, start=1):
        s = play(s, Clue(giver), T(cell))
        s, out = step(s, Pass(giver.partner))
        assert out.tokens == 1
        assert (s.bank_check, s.bank_bystander) == (4 - n, 5)
    s = play(s, CLUE_A, T(5))
    s, out = step(s, PASS_B)
    assert out.tokens == 1
    assert (s.bank_check, s.bank_bystander) == (0, 4)
    assert s.passes == 5
    assert s.turns_left == 4
    # The standard game has only bystander-side tokens: a pass takes one of those.
    s = play(start(), CLUE_A, T(3), PASS_B)
    assert (s.bank_check, s.bank_bystander) == (0, 8)


def test_bystander_takes_a_bystander_token_else_two_check_tokens():
    """Rulebook: "If the turn ends by guessing a bystander, the clue giver takes a bystander-side-up
    token from the time bank and uses it to mark the incorrect guess, as usual." "In this
    case, you mark a bystander by removing two checkmark-side-up tokens and flipping them
    over to mark the bystander. The mistake costs you two turns instead of one."
    (Mission 9-5.)"""
    s = start(Mission(9, 5))
    for n, (giver, cell) in enumerate([(A, 18), (B, 19), (A, 20), (B, 21), (A, 22)], 1):
        s = play(s, Clue(giver))
        s, out = step(s, T(cell))
        assert (out.result, out.tokens) == (Result.BYSTANDER, 1)
        assert (s.bank_check, s.bank_bystander) == (4, 5 - n)
    assert s.mistakes_left == 0
    s = play(s, CLUE_B)
    s, out = step(s, T(23))
    assert (out.result, out.tokens, out.turn_over) == (Result.BYSTANDER, 2, True)
    assert (s.bank_check, s.bank_bystander) == (2, 0)
    assert s.turns_left == 2
    assert s.phase is Phase.AWAITING_CLUE


def test_last_two_check_tokens_spent_on_a_bystander_lead_to_sudden_death():
    """Rulebook: "If a turn uses up your last token or your last two tokens, you play a
    sudden-death turn, as usual." (Mission 9-5: five bystanders, then two more.)"""
    s = start(Mission(9, 5))
    for giver, cell in [(A, 18), (B, 19), (A, 20), (B, 21), (A, 22), (B, 23)]:
        s = play(s, Clue(giver), T(cell))
    assert (s.bank_check, s.bank_bystander) == (2, 0)
    s = play(s, CLUE_A)
    s, out = step(s, T(24))
    assert out.tokens == 2
    assert s.turns_left == 0
    assert s.status is Status.PLAYING
    assert s.phase is Phase.SUDDEN_DEATH


def test_one_check_token_left_and_a_bystander_loses_at_once():
    """Rulebook: "However, if a turn causes you to use up more tokens than you have, you lose
    immediately. This will happen only when you have 1 timer token left, it is checkmark
    side up, and the guessing side guesses a bystander." "If you have only one token when
    you must give up two, you skip the sudden death turn and lose the game." """
    s = start(Mission(9, 5))
    for giver, cell in [(A, 18), (B, 19), (A, 20), (B, 21), (A, 22)]:
        s = play(s, Clue(giver), T(cell))
    s = play(s, CLUE_B, T(8), PASS_A, CLUE_A, T(3), PASS_B, CLUE_B, T(9), PASS_A)
    assert (s.bank_check, s.bank_bystander) == (1, 0)
    s = play(s, CLUE_A)
    lost, out = step(s, T(23))
    assert out.result is Result.BYSTANDER
    assert (lost.status, lost.reason, lost.phase) == (Status.LOST, Reason.OUT_OF_TIME, Phase.OVER)
    assert not lost.sudden_death
    # The same last token taken by a pass: sudden death, as usual.
    s = play(s, T(4), PASS_B)
    assert (s.phase, s.status) == (Phase.SUDDEN_DEATH, Status.PLAYING)


@pytest.mark.parametrize(
    ("mission", "status", "phase"),
    [
        (Mission(1, 0), Status.LOST, Phase.OVER),  # 1 token, check side up
        (Mission(1, 1), Status.PLAYING, Phase.SUDDEN_DEATH),  # 1 token, bystander side up
        (Mission(2, 0), Status.PLAYING, Phase.SUDDEN_DEATH),  # the last two check tokens
    ],
)
def test_bystander_on_the_last_tokens(mission, status, phase):
    """Rulebook: "If a turn uses up your last token or your last two tokens, you play a
    sudden-death turn, as usual. However, if a turn causes you to use up more tokens than
    you have, you lose immediately. This will happen only when you have 1 timer token
    left, it is checkmark side up, and the guessing side guesses a bystander." """
    s = play(start(mission), CLUE_A)
    s, out = step(s, T(18))
    assert out.result is Result.BYSTANDER
    assert (s.status, s.phase) == (status, phase)
    assert s.reason == (Reason.OUT_OF_TIME if status is Status.LOST else None)


def test_mission_6_6_example_every_turn_takes_one_token():
    """Rulebook: "Moscow 8-8, Jakarta 7-7, and Singapore 6-6 are just like the standard mission, but
    with fewer tokens." "A turn always uses up a timer token." "If only bystander-side-up
    tokens are left, the guesser takes one of these instead". Six turns, then sudden
    death; won in it, the score is 0 for the bank + 4 passes - 1 = 3."""
    s = start(Mission.parse("6-6"))
    s = play(s, CLUE_A, *touches(A_AGENTS))  # A announces
    assert (s.turns_left, s.passes) == (5, 1)
    s = play(s, CLUE_B, T(8), T(18))  # agent, then a bystander on B's side
    assert (s.turns_left, s.mistakes_left) == (4, 4)
    s = play(s, CLUE_B, T(9), PASS_A)
    assert s.turns_left == 3
    s = play(s, CLUE_B, T(19))
    assert s.turns_left == 2
    s = play(s, CLUE_B, T(10), T(11), PASS_A)
    assert s.turns_left == 1
    s = play(s, CLUE_B, T(12), PASS_A)
    assert (s.turns_left, s.passes) == (0, 4)
    assert s.phase is Phase.SUDDEN_DEATH
    s, out = step(s, T(A_ASSASSIN_B_AGENT))  # only A can guess: no arming needed
    assert (out.result, out.guesser) == (Result.AGENT, A)
    assert s.status is Status.WON
    assert s.score == 3


def test_mission_9_5_example_won_with_a_score():
    """Rulebook: "When setting up Cairo, for example, only 5 of the 9 tokens will be bystander side
    up". Score: "Give yourselves 3 points for each timer token left in the time bank. (But
    do not forget that you also used a token on the last, victorious turn)." "Give
    yourselves 1 point for each timer token that a player took when ending a turn after a
    correct guess." Bank 6 at the win: 3 * 5 + 2 passes = 17."""
    s = start(Mission.parse("cairo"))
    s = play(s, CLUE_A, *touches([0, 1, 2, 3, 4]), T(18))
    assert (s.bank_check, s.bank_bystander) == (4, 4)
    s = play(s, CLUE_B, T(8), T(9), PASS_A)
    assert (s.bank_check, s.bank_bystander) == (3, 4)
    s = play(s, CLUE_A, T(5), T(6), T(7))
    s, out = step(s, T(13))
    assert out.announced == (A,)
    assert (out.turn_over, out.tokens) == (True, 1)  # nothing left for B: a pass, taken
    assert (s.bank_check, s.bank_bystander) == (2, 4)
    s = play(s, CLUE_B, T(10), T(11), T(12))
    assert s.status is Status.PLAYING
    s, out = step(s, T(14))
    assert out.result is Result.AGENT
    assert (s.status, s.phase) == (Status.WON, Phase.OVER)
    assert s.turns_left == 6
    assert s.score == 17


# ----- the invalid-clue penalty ---------------------------------------------------------


def test_penalty_discards_a_check_token_first_then_the_guesser_guesses():
    """Rulebook: "If someone accidentally gives an invalid clue, you should take a one-turn penalty
    by discarding one of the timer tokens from the time bank." "Then the guesser should
    guess as though the clue were valid. (So the turn ends in the usual way, which in most
    cases will use up another timer token)." docs/rules.md "The invalid-clue penalty": "It
    discards a check-side token first, else a bystander-side one." """
    s = play(start(Mission(9, 5)), CLUE_A)
    s, out = step(s, PENALTY)
    assert (out.result, out.tokens) == (Result.PENALTY, 1)
    assert (s.bank_check, s.bank_bystander) == (3, 5)
    assert (s.phase, s.clue_giver, s.guesser) == (Phase.GUESSING, A, B)
    s, out = step(s, T(3))
    assert out.result is Result.AGENT
    s = play(s, PASS_B)
    assert (s.bank_check, s.bank_bystander) == (2, 5)
    assert s.passes == 1


def test_penalty_without_check_tokens_discards_a_bystander_token():
    """docs/rules.md "The invalid-clue penalty": "It discards a check-side token first,
    else a bystander-side one." The standard 9-9 game has bystander-side tokens only."""
    s = play(start(), CLUE_A, PENALTY)
    assert (s.bank_check, s.bank_bystander) == (0, 8)
    s, out = step(s, T(18))
    assert (out.result, out.tokens) == (Result.BYSTANDER, 1)
    assert (s.bank_check, s.bank_bystander) == (0, 7)


def test_second_penalty_for_the_same_clue_is_refused():
    """Rulebook: "you should take a one-turn penalty by discarding one of the timer tokens from the
    time bank." One clue, one penalty; the next clue may be penalised again."""
    s = play(start(), CLUE_A, PENALTY)
    refused(s, PENALTY, RejectReason.PENALTY_TWICE)
    s = play(s, T(3))
    refused(s, PENALTY, RejectReason.PENALTY_TWICE)
    s = play(s, PASS_B, CLUE_B, PENALTY)
    assert s.turns_left == 9 - 3


def test_penalty_without_a_clue_is_refused():
    """Rulebook: "If someone accidentally gives an invalid clue, you should take a one-turn penalty"
    docs/rules.md "The invalid-clue penalty": "The group calls the penalty ..., once per
    clue, only while a clue is being guessed." No clue, nothing to call invalid."""
    s = start()
    refused(s, PENALTY, RejectReason.PENALTY_NO_CLUE)
    s = play(s, CLUE_A, T(3), PASS_B)
    refused(s, PENALTY, RejectReason.PENALTY_NO_CLUE)


# The English rulebook, "Mission Map": "If a turn uses up your last token or your last
# two tokens, you play a sudden-death turn, as usual. However, if a turn causes you to
# use up more tokens than you have, you lose immediately." Its summary: "If you have only
# one token when you must give up two, you skip the sudden death turn and lose the game."
# The penalty: "(So the turn ends in the usual way, which in most cases will use up
# another timer token)." The German book: "Falls ihr in einem Zug jedoch mehr Marker
# benutzen müsstet, als ihr noch habt, verliert ihr sofort." A turn after a penalty took
# the last token needs a token the bank does not have: lost, as without the penalty.
LOSES_AT_ONCE = (Status.LOST, Reason.OUT_OF_TIME, Phase.OVER)


def outcome_of(state: Duet) -> tuple[Status, Reason | None, Phase]:
    return (state.status, state.reason, state.phase)


def test_penalty_on_the_last_token_then_a_pass_loses():
    """Rulebook: "if a turn causes you to use up more tokens than you have, you lose
    immediately." Under 1-1 the penalty discards the only token; ending the turn by a pass
    would take one more, which the bank no longer has. Without the penalty the same pass
    takes the last token and sudden death follows, so the penalty never helps."""
    s = play(start(Mission(1, 1)), CLUE_A, PENALTY)
    assert s.turns_left == 0
    s = play(s, T(3))
    assert s.phase is Phase.GUESSING  # correct guesses go on: no token needed
    s, out = step(s, PASS_B)
    assert (out.result, out.tokens, out.turn_over) == (Result.PASS, 0, True)
    assert outcome_of(s) == LOSES_AT_ONCE
    without = play(start(Mission(1, 1)), CLUE_A, T(3), PASS_B)
    assert (without.status, without.phase) == (Status.PLAYING, Phase.SUDDEN_DEATH)


def test_penalty_on_the_last_token_then_a_bystander_loses_under_2_0():
    """Rulebook (2-0, two check tokens): "This will happen only when you have 1 timer token
    left, it is checkmark side up, and the guessing side guesses a bystander." Without a
    penalty, `clue A / agent / pass B / clue B / bystander` is that case and loses; with
    `penalty` before the bystander the bank is empty, and the bystander loses the same way."""
    without = play(start(Mission(2, 0)), CLUE_A, T(3), PASS_B, CLUE_B, T(18))
    assert outcome_of(without) == LOSES_AT_ONCE
    s = play(start(Mission(2, 0)), CLUE_A, T(3), PASS_B, CLUE_B, PENALTY)
    assert s.turns_left == 0
    s, out = step(s, T(18))
    assert (out.result, out.tokens, out.turn_over) == (Result.BYSTANDER, 0, True)
    assert outcome_of(s) == LOSES_AT_ONCE
    assert s.misses(A) == {18}  # the word was touched and judged; nothing marks it


def test_penalty_on_the_last_token_then_a_bystander_loses_under_1_1():
    """Rulebook: "if a turn causes you to use up more tokens than you have, you lose
    immediately." Under 1-1, `clue A / penalty / bystander`: the penalty takes the only
    token (bystander side up: no check token to take first), the bystander needs one more.
    Without the penalty the bystander takes that token and sudden death follows."""
    s = play(start(Mission(1, 1)), CLUE_A, PENALTY, T(18))
    assert outcome_of(s) == LOSES_AT_ONCE
    without = play(start(Mission(1, 1)), CLUE_A, T(18))
    assert (without.status, without.phase) == (Status.PLAYING, Phase.SUDDEN_DEATH)


def test_penalty_under_2_2_leaves_one_token_for_the_bystander():
    """Under 2-2 the penalty takes one bystander-side token and one is left: the bystander
    uses it ("If a turn uses up your last token ... you play a sudden-death turn, as
    usual"). A second turn's penalty, when the bank is down to one, loses on a bystander."""
    s = play(start(Mission(2, 2)), CLUE_A, PENALTY, T(18))
    assert (s.status, s.phase, s.turns_left) == (Status.PLAYING, Phase.SUDDEN_DEATH, 0)
    s = play(start(Mission(2, 2)), CLUE_A, T(3), PASS_B, CLUE_B, PENALTY)
    assert s.turns_left == 0
    s = play(s, T(18))
    assert outcome_of(s) == LOSES_AT_ONCE


def test_penalty_in_a_long_9_9_game_brought_down_to_one_token_then_a_bystander_loses():
    """A standard game played down to one token (eight turns, each ended by a pass or a
    bystander), then an invalid clue takes the last token: the bystander that follows needs
    a token the bank does not have, and the game is lost ("you lose immediately"). Without
    the penalty the same bystander takes the last token and sudden death follows."""
    turns = [
        [CLUE_A, T(3), PASS_B],
        [CLUE_B, T(8), PASS_A],
        [CLUE_A, T(4), T(18)],
        [CLUE_B, T(9), PASS_A],
        [CLUE_A, T(5), PASS_B],
        [CLUE_B, T(19)],
        [CLUE_A, T(6), PASS_B],
        [CLUE_B, T(10), PASS_A],
    ]
    s = play(start(), *(e for turn in turns for e in turn))
    assert (s.status, s.phase, s.turns_left) == (Status.PLAYING, Phase.AWAITING_CLUE, 1)
    lost = play(s, CLUE_A, PENALTY, T(7), T(20))
    assert lost.agents_found == 8
    assert outcome_of(lost) == LOSES_AT_ONCE
    without = play(s, CLUE_A, T(7), T(20))
    assert (without.status, without.phase) == (Status.PLAYING, Phase.SUDDEN_DEATH)


def test_penalty_on_the_last_token_then_the_last_agent_still_wins():
    """ "So you win when the last agent card is placed": a turn that finds the last agent
    needs no token, so the penalty's empty bank does not stop it. Only the turn's end
    (a pass or a bystander) needs a token."""
    s = play(start(Mission(1, 1)), CLUE_A, PENALTY, *touches(A_AGENTS[:-1]))
    assert s.turns_left == 0 and s.phase is Phase.GUESSING
    lost = play(s, PASS_B)
    assert outcome_of(lost) == LOSES_AT_ONCE  # passing would need a token
    # So does the turn's end by itself, once nothing is left to find.
    s, out = step(s, T(A_AGENTS[-1]))
    assert (out.result, out.turn_over, out.tokens) == (Result.AGENT, True, 0)
    assert outcome_of(s) == LOSES_AT_ONCE
    s = play(start(Mission(2, 0)), CLUE_A, *touches(A_AGENTS), CLUE_B, PENALTY)
    s = play(s, *touches(B_ONLY), T(14))
    assert (s.status, s.phase) == (Status.WON, Phase.OVER)


# ----- sudden death -------------------------------------------------------------------


def sudden_death_both_guess() -> Duet:
    """Mission 1-1: one turn (B finds cell 3), then sudden death; both seats have words."""
    s = play(start(Mission(1, 1)), CLUE_A, T(3), PASS_B)
    assert s.phase is Phase.SUDDEN_DEATH
    return s


def test_sudden_death_when_a_turn_ends_with_the_bank_empty():
    """Rulebook: "If you have used up your last timer token and there are still words to be guessed,
    it is time for the sudden death turn." "No one gives any more clues." """
    s = sudden_death_both_guess()
    assert s.sudden_death
    assert (s.status, s.turns_left) == (Status.PLAYING, 0)
    assert s.may_give_clue() == ()
    refused(s, PASS_A, RejectReason.PASS_IN_SUDDEN_DEATH)
    refused(s, PASS_B, RejectReason.PASS_IN_SUDDEN_DEATH)
    refused(s, PENALTY, RejectReason.PENALTY_NO_CLUE)
    # Ended by a bystander on the last token: sudden death too.
    s = play(start(Mission(1, 1)), CLUE_B, T(18))
    assert s.phase is Phase.SUDDEN_DEATH
    # Tokens left: no sudden death.
    s = play(start(Mission(2, 2)), CLUE_A, T(3), PASS_B)
    assert s.phase is Phase.AWAITING_CLUE
    assert not s.sudden_death


def test_sudden_death_clue_key_arms_a_seat_and_unarmed_touches_are_refused():
    """Rulebook: "If you both have words left, you are both guessers. You can make your guesses in
    any order, and you do not have to take turns" "when your partner touches a word, your
    side of the key card determines whether the guess is correct or not." docs/rules.md
    "Sudden death": "a seat presses its clue key ("I am guessing") before touching,
    unless only one seat can guess." """
    s = sudden_death_both_guess()
    assert s.guesser is None
    refused(s, T(8), RejectReason.NOT_ARMED)
    s, out = step(s, CLUE_A)
    assert (out.result, out.guesser) == (Result.ARMED, A)
    assert (s.armed, s.guesser) == (A, A)
    s, out = step(s, T(8))  # judged by B's side
    assert (out.result, out.guesser) == (Result.AGENT, A)
    s, out = step(s, T(9))  # armed until another seat arms
    assert (out.result, out.guesser) == (Result.AGENT, A)
    s, out = step(s, CLUE_B)
    assert (out.result, out.guesser) == (Result.ARMED, B)
    s, out = step(s, T(4))  # judged by A's side
    assert (out.result, out.guesser) == (Result.AGENT, B)
    refused(s, T(9), RejectReason.COVERED)
    assert s.phase is Phase.SUDDEN_DEATH


def test_sudden_death_a_word_this_seat_already_missed_is_refused_not_lost():
    """docs/rules.md "A turn": "Refused, with the reason on the screen: ... a word this
    guesser already missed (the same side would judge it again)". "Sudden death": "Guesses
    come one at a time, each judged by the partner's side", so the same holds there; the
    other seat may still guess the word."""
    s = play(start(Mission(2, 2)), CLUE_A, T(3), T(18))  # B misses 18: bank 1
    s = play(s, CLUE_B, T(8), PASS_A)  # bank 0: sudden death
    assert s.phase is Phase.SUDDEN_DEATH
    s = play(s, CLUE_B)
    refused(s, T(18), RejectReason.ALREADY_MISSED)
    s = play(s, CLUE_A)
    s, out = step(s, T(18))  # A guessing: a bystander on B's side loses
    assert (out.result, out.guesser) == (Result.BYSTANDER, A)
    assert (s.status, s.reason) == (Status.LOST, Reason.SUDDEN_DEATH)


@pytest.mark.parametrize(("seat", "cell"), [(A, 18), (B, 18), (A, 4), (B, 8)])
def test_any_bystander_in_sudden_death_loses(seat, cell):
    """Rulebook: "A wrong guess in sudden death ends the game - both players lose, even if the guess
    was just an innocent bystander." (4 is a bystander on B's side, 8 on A's.)"""
    s = play(sudden_death_both_guess(), Clue(seat))
    s, out = step(s, T(cell))
    assert (out.result, out.guesser) == (Result.BYSTANDER, seat)
    assert (s.status, s.reason, s.phase) == (Status.LOST, Reason.SUDDEN_DEATH, Phase.OVER)


def test_assassin_in_sudden_death_loses():
    """Rulebook: "If either player guesses a word that the other player sees as black, your team has
    been caught by the assassins and you both lose." """
    s = play(sudden_death_both_guess(), CLUE_A)
    s, out = step(s, T(A_BYSTANDER_B_ASSASSIN))
    assert out.result is Result.ASSASSIN
    assert (s.status, s.reason) == (Status.LOST, Reason.ASSASSIN)


def test_sudden_death_only_the_seat_with_words_left_guesses_and_the_last_agent_wins():
    """Rulebook: "If only one player has words left to guess, that player is the guesser." "If all
    your guesses are correct and you find the last green agent, you both win!" docs/rules.md
    "Sudden death": "unless only one seat can guess" (then touches count without arming).
    Score: "Subtract 1 point if you needed the sudden death turn to win." (1 pass - 1 = 0)."""
    s = play(start(Mission(1, 1)), CLUE_A, *touches(A_AGENTS))
    assert s.phase is Phase.SUDDEN_DEATH
    # B has nothing left to guess (A's agents are all covered): B cannot arm.
    refused(s, CLUE_B, RejectReason.NOTHING_LEFT_TO_GUESS)
    assert s.guesser is A
    for cell in (8, 9, 10, 11, 12):
        s, out = step(s, T(cell))
        assert (out.result, out.guesser) == (Result.AGENT, A)
        assert s.status is Status.PLAYING
    s, out = step(s, T(A_ASSASSIN_B_AGENT))
    assert (out.result, out.guesser) == (Result.AGENT, A)
    assert (s.status, s.phase) == (Status.WON, Phase.OVER)
    assert s.score == 0


def test_sudden_death_armed_seat_runs_out_then_the_other_guesses_without_arming():
    """Rulebook: "If only one player has words left to guess, that player is the guesser." Once A
    has found all of B's agents, B's touches count with A still armed, and A may no
    longer arm. Won in sudden death: 0 for the bank + 1 pass - 1 = 0."""
    s = play(sudden_death_both_guess(), CLUE_A)
    for cell in B_AGENTS[:-1]:
        s, out = step(s, T(cell))
        assert (out.result, out.guesser, out.announced) == (Result.AGENT, A, ())
    s, out = step(s, T(B_AGENTS[-1]))
    assert out.announced == (B,)
    assert s.guesser is B
    refused(s, CLUE_A, RejectReason.NOTHING_LEFT_TO_GUESS)
    for cell in (4, 5, 6, 7):
        s, out = step(s, T(cell))  # judged by A's side
        assert (out.result, out.guesser) == (Result.AGENT, B)
    s, out = step(s, T(A_AGENT_B_ASSASSIN))
    assert (out.result, out.guesser) == (Result.AGENT, B)
    assert s.status is Status.WON
    assert s.score == 0


# ----- winning and the score ------------------------------------------------------------


def test_win_at_once_even_in_the_middle_of_a_turn():
    """Rulebook: "Once all green words from both sides of the card have been guessed, both players
    win the game!" "So you win when the last agent card is placed." No pass needed, and a
    finished game takes no more guesses. Score: bank 8, minus the winning turn's token:
    3 * 7 + 1 pass = 22."""
    s = play(start(), CLUE_A, *touches(A_AGENTS), CLUE_B)
    s = play(s, *touches([8, 9, 10, 11, 12]))
    assert s.status is Status.PLAYING
    assert s.agents_found == 14
    s, out = step(s, T(A_ASSASSIN_B_AGENT))
    assert out.result is Result.AGENT
    assert (s.status, s.phase, s.reason) == (Status.WON, Phase.OVER, None)
    assert s.agents_found == 15
    refused(s, PASS_A, RejectReason.GAME_OVER)
    refused(s, T(18), RejectReason.GAME_OVER)
    assert s.score == 22


def score_game(events: list[Event], mission: Mission = STANDARD) -> Duet:
    s = play(start(mission), *events)
    assert s.status is Status.WON
    return s


@pytest.mark.parametrize(
    ("events", "mission", "score"),
    [
        # Two turns: bank 8 at the win -> 3 * 7 + 1 pass.
        ([CLUE_A, *touches(A_AGENTS), CLUE_B, *touches([8, 9, 10, 11, 12, 14])], None, 22),
        # A bystander, two passes: bank 6 at the win -> 3 * 5 + 2.
        (
            seq(
                [CLUE_A, T(0), T(18), CLUE_B, T(8), PASS_A],
                [CLUE_A, *touches(A_AGENTS[1:]), CLUE_B, *touches([9, 10, 11, 12, 14])],
            ),
            None,
            17,
        ),
        # A penalty: bank 7 at the win -> 3 * 6 + 1.
        (
            seq([CLUE_A, PENALTY, *touches(A_AGENTS)], [CLUE_B, *touches(B_ONLY), T(14)]),
            None,
            19,
        ),
        # Sudden death after two passes (mission 2-2): 0 + 2 - 1.
        (
            seq(
                [CLUE_A, T(3), PASS_B, CLUE_B, T(8), PASS_A, CLUE_A],
                touches([0, 1, 2, 9, 10, 11, 12, 14, 4, 5, 6, 7, 13]),
            ),
            Mission(2, 2),
            1,
        ),
        # Mission 9-5, two check tokens spent on the sixth bystander: bank 1 at the win,
        # the winning turn's own token -> 0 + 1 pass.
        (
            seq(
                [CLUE_A, T(18), CLUE_B, T(19), CLUE_A, T(20), CLUE_B, T(21), CLUE_A, T(22)],
                [CLUE_B, T(23), CLUE_A, *touches(A_AGENTS)],
                [CLUE_B, *touches([8, 9, 10, 11, 12, 14])],
            ),
            Mission(9, 5),
            1,
        ),
    ],
    ids=["two-turns", "bystander-and-passes", "penalty", "sudden-death", "9-5-double-token"],
)
def test_score_of_constructed_games(events, mission, score):
    """Rulebook: "Give yourselves 3 points for each timer token left in the time bank. (But do not
    forget that you also used a token on the last, victorious turn)." "Give yourselves 1
    point for each timer token that a player took when ending a turn after a correct
    guess." "Subtract 1 point if you needed the sudden death turn to win." docs/rules.md
    "Winning and the score": "the stand shows it for every win", "(0 if won in sudden
    death)"."""
    s = score_game(events, mission or STANDARD)
    assert s.score == score


def test_no_score_unless_won():
    """Rulebook: "You can evaluate how well you did by counting up your score" (of a won game;
    docs/rules.md "Winning and the score": "the stand shows it for every win")."""
    s = start()
    assert s.score is None
    s = play(s, CLUE_A, T(3), PASS_B)
    assert s.score is None
    s = play(s, CLUE_B, T(A_BYSTANDER_B_ASSASSIN))
    assert s.status is Status.LOST
    assert s.score is None


# ----- undo (the stand's own addition) ------------------------------------------------


def test_undo_of_the_last_touch_returns_the_exact_previous_state():
    """Stand decision (duet.py, events.Undo: "Take back the last accepted event (the game
    returns to just before it)"); not a rule of the rulebook. Redoing the same event
    gives the same state again."""
    before = play(start(), CLUE_A, T(3))
    after, _ = step(before, T(4))
    undone, out = step(after, UNDO)
    assert (out.result, out.undone) == (Result.UNDO, T(4))
    assert undone == before
    assert 4 not in undone.covered
    redone, _ = step(undone, T(4))
    assert redone == after
    # After an undo, a new event and its undo come back to the state after the undo.
    other = play(undone, T(5))
    assert other != after
    assert play(other, UNDO) == before


def test_undo_of_a_pass_and_of_a_bystander():
    """Stand decision: undo takes back the last accepted event, tokens included."""
    guessing = play(start(), CLUE_A, T(3))
    passed = play(guessing, PASS_B)
    s, out = step(passed, UNDO)
    assert out.undone == PASS_B
    assert s == guessing
    assert (s.phase, s.turns_left, s.passes) == (Phase.GUESSING, 9, 0)
    missed = play(guessing, T(18))
    s = play(missed, UNDO)
    assert s == guessing
    assert s.misses(B) == frozenset()


def test_multiple_undos_walk_back_one_accepted_event_each():
    """Stand decision: each undo returns to the state before the last accepted event not
    yet undone; rejected events are not in that history. With nothing left: refused."""
    events = [CLUE_A, T(3), T(18), CLUE_B, PENALTY, T(8), PASS_A]
    # after each, an event the rules refuse: it changes nothing, not even what undo takes
    refusals = [PASS_B, T(3), CLUE_A, CLUE_A, PENALTY, PASS_B, PASS_A]
    states = [start()]
    for event, refusal in zip(events, refusals, strict=True):
        s, out = play(states[-1], event).apply(refusal)
        assert isinstance(out, Rejection)
        states.append(s)
    s = states[-1]
    for event, earlier in zip(reversed(events), reversed(states[:-1]), strict=True):
        s, out = step(s, UNDO)
        assert out.undone == event
        assert s == earlier
    assert s == start()
    refused(s, UNDO, RejectReason.NOTHING_TO_UNDO)


def test_undo_with_nothing_to_undo_is_refused():
    """Stand decision: undo needs an accepted event to take back."""
    refused(start(), UNDO, RejectReason.NOTHING_TO_UNDO)
    s, _ = start().apply(T(0))  # refused: no clue
    refused(s, UNDO, RejectReason.NOTHING_TO_UNDO)


def test_finished_game_accepts_only_undo_which_reopens_it():
    """Project decision (the referee's brief; duet.py: "Undo also reopens a game a stray
    touch ended."): a finished game refuses everything but undo."""
    playing = play(start(), CLUE_A, T(0))
    lost, out = step(playing, T(A_ASSASSIN_B_BYSTANDER))  # a stray touch
    assert lost.status is Status.LOST
    for event in [T(3), T(18), CLUE_A, CLUE_B, PASS_A, PASS_B, PENALTY]:
        refused(lost, event, RejectReason.GAME_OVER)
    s, out = step(lost, UNDO)
    assert out.undone == T(A_ASSASSIN_B_BYSTANDER)
    assert s == playing
    assert (s.status, s.reason, s.phase) == (Status.PLAYING, None, Phase.GUESSING)
    s, out = step(s, T(3))
    assert out.result is Result.AGENT
    # A won game too.
    almost = play(start(), CLUE_A, *touches(A_AGENTS), CLUE_B, *touches(B_ONLY))
    won = play(almost, T(A_ASSASSIN_B_AGENT))
    assert won.status is Status.WON
    refused(won, CLUE_A, RejectReason.GAME_OVER)
    assert play(won, UNDO) == almost


# ----- rejections and malformed events --------------------------------------------------

EVERY_EVENT: tuple[Event, ...] = (
    *(Touch(r, c) for r in range(5) for c in range(5)),
    CLUE_A,
    CLUE_B,
    PASS_A,
    PASS_B,
    PENALTY,
    UNDO,
)

GAMES: list[tuple[Mission, bool, list[Event]]] = [
    (STANDARD, False, [CLUE_A, T(0), T(18), CLUE_B, T(18), CLUE_A, *touches(A_AGENTS[1:])]),
    (Mission(9, 5), True, [CLUE_B, T(8), PASS_A, CLUE_B, PENALTY, T(3), CLUE_A, T(4), PASS_B]),
    (Mission(1, 1), False, [CLUE_A, T(3), PASS_B, CLUE_A, T(8), CLUE_B, T(18)]),
    (Mission(1, 1), False, [CLUE_A, *touches(A_AGENTS), *touches(B_ONLY), T(14)]),
    (Mission(1, 0), False, [CLUE_A, T(18), UNDO, T(3), PASS_B]),
]


def test_rejections_never_raise_and_leave_the_state_equal():
    """The referee's contract (rules/core.py): a well-formed event the rules refuse comes back
    as a Rejection naming it, and the game is as it was. Every event is tried on every
    state of a few games (turns, last words, penalty, sudden death, won, lost)."""
    rejected = 0
    for mission, loose, events in GAMES:
        s = start(mission, loose=loose)
        for event in [*events, None]:
            for attempt in EVERY_EVENT:
                after, out = s.apply(attempt)
                assert isinstance(out, Outcome | Rejection)
                assert out.event == attempt
                if isinstance(out, Rejection):
                    rejected += 1
                    assert isinstance(out.reason, RejectReason)
                    assert out.message
                    assert after == s
            if event is not None:
                s = play(s, event)
    assert rejected > 0


@pytest.mark.parametrize(("row", "col"), [(5, 0), (0, 5), (-1, 0), (0, -1), (25, 25)])
def test_touch_off_the_grid_raises_event_error(row, col):
    """docs/rules.md "The table and the key card": "25 word cards in a 5 x 5 grid. Cells are
    numbered `5 * row + column`" (rows and columns 0..4). A touch off the grid is
    malformed: it cannot be built."""
    with pytest.raises(EventError):
        Touch(row, col)
    assert issubclass(EventError, ValueError)
    with pytest.raises(ValueError):
        Touch(row, col)


@pytest.mark.parametrize("index", [-1, 25, 99])
def test_touch_of_a_cell_index_off_the_grid_raises_event_error(index):
    """docs/rules.md "The table and the key card": "Cells are numbered `5 * row + column`"
    (0..24)."""
    with pytest.raises(EventError):
        Touch.at(index)
    assert Touch.at(7) == Touch(1, 2)


@pytest.mark.parametrize(
    "text",
    [
        *("", "jump", "guess 1 2", "touch 1", "touch 1 2 3", "touch a b", "touch 5 0"),
        *("clue", "clue C", "pass", "pass A B", "undo 1", "penalty A"),
    ],
)
def test_malformed_script_text_raises_event_error(text):
    """docs/design.md "Contracts": "`touch R C` (table coordinates), `clue A|B`, `pass A|B`,
    `undo`, `penalty`". Anything else is malformed: EventError, a ValueError."""
    with pytest.raises(EventError):
        parse_event(text)
    with pytest.raises(ValueError):
        parse_event(text)


def test_well_formed_script_text_parses():
    """docs/design.md "Contracts": the five verbs, table coordinates."""
    assert parse_event("touch 2 3") == Touch(2, 3) == T(13)
    assert parse_event("clue A") == CLUE_A
    assert parse_event("pass B") == PASS_B
    assert parse_event("undo") == UNDO
    assert parse_event("penalty") == PENALTY


def test_not_allowed_now_is_a_rejection_not_an_error():
    """A well-formed event the rules refuse is a Rejection, never an exception."""
    s = start()
    for text in ["pass A", "penalty", "undo", "touch 0 0"]:
        after, out = s.apply(parse_event(text))
        assert isinstance(out, Rejection)
        assert after == s
    s = play(s, CLUE_A)
    after, out = s.apply(parse_event("clue B"))
    assert isinstance(out, Rejection)
    assert out.reason is RejectReason.TURN_IN_PROGRESS
    assert after == s


def test_the_group_may_choose_who_gives_the_first_clue():
    """Rulebook: "Either player may give the first clue." The stand's menu lets the
    group name the seat instead; then only that seat may open, and the order
    alternates from it as usual."""
    card = card_of(DEFAULT)
    s = Duet.start(card, first=B)
    refused(s, CLUE_A, RejectReason.FIRST_CLUE_B)  # the refusal names the rule: B opens
    refused(Duet.start(card, first=A), CLUE_B, RejectReason.FIRST_CLUE_A)
    s, out = step(s, CLUE_B)
    assert out.result is Result.CLUE
    assert Duet.start(card).may_give_clue() == (A, B)
    assert Duet.start(card, first=A).may_give_clue() == (A,)
    assert "first=Seat.B" in repr(s) and eval(repr(s)) == s
