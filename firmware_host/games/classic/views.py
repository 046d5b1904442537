"""The classic secrecy boundary: a classic game state -> what each screen may show.

Classic Codenames has one key card and two roles at the table
(docs/classic-rules.md): the spymasters see the key, the operatives only what the
table knows. `spymasters(state)` and `operatives(state)` are the only code that
looks at a classic state on behalf of a screen.

The operatives' view is built from the public record alone, `public_record`:

- the tiles on the table: the covered cells and, for those only, their colour
  (a touched word gets the tile of its colour, for everyone to see);
- the team that started (it gave the first clue), the phase, the team on turn,
  the clue's number (said aloud) and the guesses it still allows, the winner
  and how;
- what the last input did, or why it was refused, except a refusal that tells
  something of the key: a penalty cover on a word that is not the covering
  team's agent (`penalty_not_their_word`) is the spymasters' business, so the
  operatives keep seeing the last public input before it;
- the stand's own state, passed in by the caller: a pending penalty (the table
  called the clue invalid), the turn timer, a fault, the other screen failing
  (a public fact: everyone can see a panel that does not change).

The spymasters' view adds the key, in table order, shows every refusal, and
the number they are choosing for their clue on their keys. Once the end is
final (`context.reveal`) the operatives' view has the key too: the game is
over and cannot be taken back, so nothing of it is secret any more.
"""

from __future__ import annotations

from ...layouts import (
    ClassicLast,
    ClassicLastKind,
    ClassicPublic,
    ClassicStage,
    Colour,
    OperativesView,
    SpymastersView,
    Team,
    Win,
)
from ...rules import Seat
from ...rules.card import GRID
from ...rules.classic import Classic, Outcome, Phase, Reason, Rejection, RejectReason, Result
from ...rules.classic_card import ClassicKey
from ...rules.classic_card import Team as RulesTeam
from ...rules.classic_events import Penalty, Touch
from .. import Context
from .roles import OPERATIVES, ROLES, SPYMASTERS

NO_CONTEXT = Context()  # a bare view: no fault, no note, the end shown
SHAPE = GRID  # classic's grid: the layouts take it as it is

_TEAM = {RulesTeam.RED: Team.RED, RulesTeam.BLUE: Team.BLUE}
_COLOUR = {
    ClassicKey.RED: Colour.RED,
    ClassicKey.BLUE: Colour.BLUE,
    ClassicKey.BYSTANDER: Colour.BYSTANDER,
    ClassicKey.ASSASSIN: Colour.ASSASSIN,
}
_STAGE = {
    Phase.AWAITING_CLUE: ClassicStage.AWAITING_CLUE,
    Phase.GUESSING: ClassicStage.GUESSING,
    Phase.OVER: ClassicStage.OVER,
}
_WIN = {Reason.ALL_FOUND: Win.ALL_FOUND, Reason.ASSASSIN: Win.ASSASSIN}
# The last agent covered by whom: the public record's last outcome says it.
_FOUND_BY = {Result.OTHER_AGENT: Win.GIVEN, Result.PENALTY: Win.PENALTY}


def win(state: Classic) -> Win | None:
    """How a finished game was won: the rules' reason, and for the last agent, whose
    touch (or the other team's invalid clue) covered it."""
    if state.reason is None:
        return None
    if state.reason is Reason.ALL_FOUND and state.outcome is not None:
        return _FOUND_BY.get(state.outcome.result, Win.ALL_FOUND)
    return _WIN[state.reason]


_LAST = {
    Result.CLUE: ClassicLastKind.CLUE,
    Result.OWN_AGENT: ClassicLastKind.AGENT,
    Result.OTHER_AGENT: ClassicLastKind.AGENT,
    Result.BYSTANDER: ClassicLastKind.BYSTANDER,
    Result.ASSASSIN: ClassicLastKind.ASSASSIN,
    Result.PASS: ClassicLastKind.PASS,
    Result.PENALTY: ClassicLastKind.PENALTY,
    Result.UNDO: ClassicLastKind.UNDO,
    Result.TIME_UP: ClassicLastKind.TIME_UP,
}
# Refusals whose reason depends on the key: shown to the spymasters only.
SECRET_REFUSALS = frozenset({RejectReason.PENALTY_NOT_THEIR_WORD})
# Refusals of a penalty for the word it named (the others are about the phase).
WORD_REFUSALS = frozenset({RejectReason.COVERED, RejectReason.PENALTY_NOT_THEIR_WORD})


def _team(team: RulesTeam | None) -> Team | None:
    return None if team is None else _TEAM[team]


def key_colours(state: Classic) -> tuple[Colour, ...]:
    """The whole key card in table order: for the spymasters only."""
    return tuple(_COLOUR[k] for k in state.card.keys)


def revealed(state: Classic) -> tuple[Colour | None, ...]:
    """The tile on each table cell: its colour where a word is covered, else None.
    Reads the card at covered cells only (their colour lies on the table)."""
    cells = range(GRID.cells)
    return tuple(_COLOUR[state.card.key(i)] if i in state.covered else None for i in cells)


def last_input(last: Outcome | Rejection | None) -> ClassicLast | None:
    """The last input as the screens tell it: what was touched and what it turned out
    to be, or the refusal's code."""
    if last is None:
        return None
    if isinstance(last, Rejection):
        event = last.event
        # A touch names its word; a penalty only when refused for that word (the
        # menu's penalty, refused for the phase, names none: its cell is a stand-in).
        named = isinstance(event, Touch) or (
            isinstance(event, Penalty) and last.reason in WORD_REFUSALS
        )
        cell = event.cell if named and isinstance(event, Touch | Penalty) else None
        return ClassicLast(ClassicLastKind.REJECTED, cell=cell, reject=last.reason.value)
    return ClassicLast(
        _LAST[last.result],
        team=_team(last.team),
        cell=last.cell,
        colour=None if last.key is None else _COLOUR[last.key],
        turn_over=last.turn_over,
    )


def public_last(state: Classic) -> Outcome | Rejection | None:
    """The last input the whole table may be told of: `state.last`, or, after a
    refusal that tells something of the key, the last one before it.

    A refused event changes nothing but `last`, so the state before it is the same
    game; it is rebuilt from the card and the log without that event (pure and
    deterministic, as any replay)."""
    last = state.last
    while isinstance(last, Rejection) and last.reason in SECRET_REFUSALS:
        state = Classic.replay(state.card, state.log[:-1])
        last = state.last
    return last


def accepted_last(state: Classic) -> Outcome | Rejection | None:
    """The last input the rules took, past any refusals after it (a refusal is
    shown for a few seconds, then the result it followed is back)."""
    last = state.last
    while isinstance(last, Rejection):
        state = Classic.replay(state.card, state.log[:-1])
        last = state.last
    return last


def _public(
    state: Classic, last: Outcome | Rejection | None, context: Context, seat: Seat
) -> ClassicPublic:
    over = state.phase is Phase.OVER
    return ClassicPublic(
        starting=_TEAM[state.card.starting],
        stage=_STAGE[state.phase],
        team=_team(state.turn),
        revealed=revealed(state),
        guesses_left=state.guesses_left,
        clue_number=clue_number(state),
        winner=_team(state.winner),
        win=win(state),
        # Pending while the other spymaster picks the word to cover (guessing only).
        penalty=context.penalty_pending and state.phase is Phase.GUESSING,
        timer=None if over else context.timer,
        last=last_input(last),
        cannot_save=context.cannot_save,
        input_lost=context.input_lost,
        note=stand_note(seat, context),
        end=("new_game" if context.reveal else "hold") if over else None,
        panel_failed=ROLES[seat.partner] if context.partner_panel_failed else None,
        grid=SHAPE,
    )


def clue_number(state: Classic) -> str | None:
    """The number of the clue being guessed, as the screens name it ("0".."9",
    "unlimited"); None: no clue, or one given without a number. Public: the
    spymaster said it aloud."""
    if state.phase is not Phase.GUESSING or state.clue is None or state.clue.number is None:
        return None
    return str(state.clue.number)


def stand_note(seat: Seat, context: Context) -> str | None:
    """What the stand tells `seat`'s screen beside the game: why its key did nothing
    (a hint), that the other side left the game for a new one, else that one side
    asked to undo (this side waits for the other, or the other asks this one)."""
    if context.hint == "partner_new_game":  # the other side left the game: named by role
        return f"new_game_by_{ROLES[seat.partner]}"
    if context.hint is not None:
        return f"hint_{context.hint}"
    asked = context.undo_asked
    if asked is None:
        return None
    if asked is seat:
        return f"undo_wait_{ROLES[seat.partner]}"
    return f"undo_asked_{ROLES[asked]}"


def public_record(state: Classic, context: Context = NO_CONTEXT) -> ClassicPublic:
    """What everyone at the table may know of `state`, with the stand's own state
    (`context`) as the operatives' screen tells it: a pending penalty (the table
    called the clue invalid and the other team's spymaster is choosing a word to
    cover), the turn timer, faults, the stand's notes, whether the end is held
    back (undo can still take it back), the spymasters' screen failing. A
    finished game has neither a pending penalty nor a timer. Once its few
    seconds are over (`show_refusal` False), a refusal gives way to the result
    before it."""
    last = public_last(state) if context.show_refusal else accepted_last(state)
    return _public(state, last, context, OPERATIVES)


def operatives(state: Classic, context: Context = NO_CONTEXT) -> OperativesView:
    """The operatives' screen: the public record and nothing else, until the end is
    final (over, and no longer held back for undo: `context.reveal`); then the key
    card too, turned round for the whole table."""
    final = state.phase is Phase.OVER and context.reveal
    return OperativesView(public_record(state, context), key_colours(state) if final else None)


def spymasters(state: Classic, context: Context = NO_CONTEXT) -> SpymastersView:
    """The spymasters' screen: the key card, the public record, and every refusal
    (a penalty on a word that is not the covering team's is told here only); and
    the number they are choosing on their keys for the clue they are about to give."""
    last = state.last if context.show_refusal else accepted_last(state)
    public = _public(state, last, context, SPYMASTERS)
    choosing = context.number if public.stage is ClassicStage.AWAITING_CLUE else None
    return SpymastersView(key_colours(state), public, choosing)
