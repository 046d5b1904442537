"""Recorded games for the benchmark: whole games played by a seeded bot, each
input with the moment it comes, at table pace or in bursts; one bot per game
(`BOTS`, by the game's name in keystand's registry), the same pace for both.

Table pace: a touch (or a pass) every 1.5 to 4 s while a clue is being
guessed; the clue giver thinks 8 to 30 s before each clue. Bursts: the same
games, but each turn's guesses come as 5 touches within 1 s. After a game the
end screen shows; the next game is dealt `DEAL_AFTER` seconds after the key is
revealed.

Duet: a giver's clue key, the guesser's touches and pass key (`Act`, as a
script names them). Classic, as the stand is used (docs/classic-screens.md):
the spymasters' keys on seat A (Clue…, +1 up to the clue's number, 1 to 3,
in bursts 4 or 5 so that a burst fits its plus one, then the clue with it:
docs/buttons-only.md), the operatives' touches and
their pass key on seat B (`Press`, the keys themselves); the turn timer off.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Protocol

from keystand import games as registry
from keystand.drivers.inputs import Act, InputEvent, KeyName, Press, Touch
from keystand.rules import Clue, Pass, Seat, classic, generate
from keystand.rules import Touch as RTouch
from keystand.rules.card import Key
from keystand.rules.classic_card import ClassicKey
from keystand.rules.duet import Duet, Phase, Status

TOUCH_GAP = (1.5, 4.0)  # seconds between a guesser's touches, at table pace
THINK = (8.0, 30.0)  # seconds a clue giver thinks before the clue
BURST = 5  # touches ...
BURST_WITHIN = 1.0  # ... within this many seconds
DEAL_AFTER = 5.0  # seconds after the end screen's reveal until the next deal
KEY_GAP = 0.6  # seconds between the spymasters' presses choosing a clue's number
CLUE_NUMBERS = (1, 1, 2, 2, 2, 3)  # the numbers the spymasters give, as often as listed
# In bursts: a clue whose number plus one leaves room for a whole burst and more.
BURST_NUMBERS = (4, 5)
DUET_GRID = registry.get("duet").grid  # the cells the bots pick from


@dataclass(frozen=True)
class Step:
    """One input at `at` seconds; `deal` is the next game being dealt instead."""

    at: float
    event: InputEvent | None
    deal: bool = False
    burst_end: bool = False  # the last touch of a burst


def _pick(state: Duet, rnd: random.Random, guesser: Seat) -> int:
    """A cell to touch: mostly one of the giver's agents, sometimes a bystander,
    rarely the assassin (so games end every way)."""
    giver = guesser.partner
    side = state.card.side(giver)
    cells = range(DUET_GRID.cells)
    open_cells = [c for c in cells if c not in state.agents and c not in state.misses(guesser)]
    agents = [c for c in open_cells if side[c] is Key.AGENT]
    others = [c for c in open_cells if side[c] is Key.BYSTANDER]
    assassins = [c for c in open_cells if side[c] is Key.ASSASSIN]
    roll = rnd.random()
    if agents and (roll < 0.72 or not others):
        return rnd.choice(agents)
    if assassins and roll > 0.985:
        return rnd.choice(assassins)
    return rnd.choice(others or agents or assassins)


def duet(seed: int, start: float, *, burst: bool = False) -> tuple[list[Step], float]:
    """One Duet game's inputs from `start`; returns them and when the game ended."""
    rnd = random.Random(seed)
    state = Duet.start(generate(seed))
    steps: list[Step] = []
    t = start
    for _ in range(400):  # a bound: the bot always ends a game well before
        if state.status is not Status.PLAYING:
            break
        if state.phase is Phase.AWAITING_CLUE:
            allowed = state.may_give_clue()
            if not allowed:
                break
            giver = rnd.choice(allowed)
            t += rnd.uniform(*THINK)
            steps.append(Step(t, Act("clue", giver.value)))
            state, _ = state.apply(Clue(giver))
            touches = 0
            continue
        guesser = state.guesser
        if guesser is None and state.phase is Phase.SUDDEN_DEATH:
            able = [seat for seat in Seat if state.can_guess(seat)]
            if not able:
                break
            seat = rnd.choice(able)  # sudden death: a seat says it guesses (its clue key)
            t += rnd.uniform(*TOUCH_GAP)
            steps.append(Step(t, Act("clue", seat.value)))
            state, _ = state.apply(Clue(seat))
            touches = 0
            continue
        if guesser is None:
            break
        in_burst = burst and touches < BURST
        t += BURST_WITHIN / BURST if in_burst and touches else rnd.uniform(*TOUCH_GAP)
        may_pass = state.phase is Phase.GUESSING and state.correct_this_turn > 0
        if may_pass and not in_burst and rnd.random() < 0.3:
            steps.append(Step(t, Act("pass", guesser.value)))
            state, _ = state.apply(Pass(guesser))
            continue
        cell = _pick(state, rnd, guesser)
        touches += 1
        row, col = DUET_GRID.row_col(cell)
        steps.append(Step(t, Touch(row, col), burst_end=burst and touches == BURST))
        state, _ = state.apply(RTouch.at(cell))
    return steps, t


SPYMASTERS, OPERATIVES = Seat.A, Seat.B  # classic's roles on the stand


def _classic_pick(state: classic.Classic, rnd: random.Random, streak: bool = False) -> int:
    """A word for the operatives to touch: mostly their own team's agent, else a
    bystander or the other team's agent, rarely the assassin. In a `streak` (a
    burst: five touches within a second, words they are sure of) their own agent
    while one is left, so a burst is not cut short by a wrong guess."""
    grid = registry.get("classic").grid
    open_cells = [c for c in range(grid.cells) if c not in state.covered]
    own = [c for c in open_cells if c in state.card.agents(state.team)]
    wrong_keys = (ClassicKey.BYSTANDER, state.team.other.key)
    wrong = [c for c in open_cells if state.card.key(c) in wrong_keys]
    assassins = [c for c in open_cells if state.card.key(c) is ClassicKey.ASSASSIN]
    roll = rnd.random()
    if own and (streak or roll < 0.72 or not wrong):
        return rnd.choice(own)
    if assassins and roll > 0.985:
        return rnd.choice(assassins)
    return rnd.choice(wrong or own or assassins)


def _key(state: classic.Classic, seat: Seat, key: KeyName) -> tuple[InputEvent, classic.Classic]:
    """A seat's key as the stand reads it: the press and the state it leads to."""
    event = registry.get("classic").key_event(state, seat, key.value)
    if event is None:
        raise RuntimeError(f"classic: seat {seat.value}'s {key.value} key does nothing now")
    after, result = state.apply(event)
    if registry.refused(result):
        raise RuntimeError(f"classic: seat {seat.value}'s {key.value} key refused: {result}")
    return Press(seat.value, key), after


def _numbered_clue(
    state: classic.Classic, rnd: random.Random, burst: bool
) -> tuple[list[InputEvent], classic.Classic]:
    """The spymasters' presses for a clue with a number, as the stand takes them:
    Clue… (clue), +1 (clue) up to the number, then the clue (menu); and the state
    after the clue."""
    game = registry.get("classic")
    numbers = game.clue_numbers
    assert numbers is not None
    number = rnd.choice(BURST_NUMBERS if burst else CLUE_NUMBERS)
    steps = number - int(numbers.start)
    presses: list[InputEvent] = [Press(SPYMASTERS.value, KeyName.CLUE)] * (1 + steps)
    clue = game.numbered_clue(state, SPYMASTERS, str(number))
    if clue is None:
        raise RuntimeError("classic: the spymasters' keys give no clue now")
    after, result = state.apply(clue)
    if registry.refused(result):
        raise RuntimeError(f"classic: the spymasters' clue for {number} refused: {result}")
    return [*presses, Press(SPYMASTERS.value, KeyName.MENU)], after


def classic_game(seed: int, start: float, *, burst: bool = False) -> tuple[list[Step], float]:
    """One classic game's inputs from `start`; returns them and when the game ended."""
    rnd = random.Random(seed)
    game = registry.get("classic")
    state: classic.Classic = game.start(game.generate(seed))
    steps: list[Step] = []
    t = start
    touches = 0
    for _ in range(400):  # a bound: the bot always ends a game well before
        if state.status is not classic.Status.PLAYING:
            break
        if state.phase is classic.Phase.AWAITING_CLUE:
            t += rnd.uniform(*THINK)
            presses, state = _numbered_clue(state, rnd, burst)
            for k, press in enumerate(presses):
                steps.append(Step(t + k * KEY_GAP, press))
            t += (len(presses) - 1) * KEY_GAP
            touches = 0
            continue
        in_burst = burst and touches < BURST
        t += BURST_WITHIN / BURST if in_burst and touches else rnd.uniform(*TOUCH_GAP)
        # A pass follows a right guess (a wrong one ends the turn by itself).
        if state.guesses and not in_burst and rnd.random() < 0.3:
            press, state = _key(state, OPERATIVES, KeyName.PASS)
            steps.append(Step(t, press))
            continue
        row, col = game.grid.row_col(_classic_pick(state, rnd, streak=in_burst))
        touches += 1
        steps.append(Step(t, Touch(row, col), burst_end=burst and touches == BURST))
        state, _ = state.apply(game.touch_event(state, row, col, penalty=False))
    return steps, t


class Bot(Protocol):
    def __call__(
        self, seed: int, start: float, *, burst: bool = False
    ) -> tuple[list[Step], float]: ...


BOTS: dict[str, Bot] = {"duet": duet, "classic": classic_game}


def session(
    games: int, seed: int, *, burst: bool = False, reveal: float = 10.0, game: str = "duet"
) -> list[Step]:
    """`games` games of `game` back to back: the first is dealt at boot, each next
    one `DEAL_AFTER` seconds after the previous end screen's reveal."""
    bot = BOTS[game]
    steps: list[Step] = []
    t = 0.0
    for n in range(games):
        if n:
            t += reveal + DEAL_AFTER
            steps.append(Step(t, None, deal=True))
        played, t = bot(seed + n, t, burst=burst)
        steps.extend(played)
    return steps
