"""Recorded games for the benchmark: whole Duet games played by a seeded bot, each
input with the moment it comes, at table pace or in bursts.

Table pace: a touch (or a pass) every 1.5 to 4 s while a clue is being
guessed; the clue giver thinks 8 to 30 s before each clue. Bursts: the same
games, but each turn's guesses come as 5 touches within 1 s. After a game the
end screen shows; the next game is dealt `DEAL_AFTER` seconds after the key is
revealed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from keystand.drivers.inputs import Act, InputEvent, Touch
from keystand.rules import Clue, Duet, Pass, Phase, Seat, Status, generate
from keystand.rules import Touch as RTouch
from keystand.rules.card import Key

TOUCH_GAP = (1.5, 4.0)  # seconds between a guesser's touches, at table pace
THINK = (8.0, 30.0)  # seconds a clue giver thinks before the clue
BURST = 5  # touches ...
BURST_WITHIN = 1.0  # ... within this many seconds
DEAL_AFTER = 5.0  # seconds after the end screen's reveal until the next deal


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
    open_cells = [c for c in range(25) if c not in state.agents and c not in state.misses(guesser)]
    agents = [c for c in open_cells if side[c] is Key.AGENT]
    others = [c for c in open_cells if side[c] is Key.BYSTANDER]
    assassins = [c for c in open_cells if side[c] is Key.ASSASSIN]
    roll = rnd.random()
    if agents and (roll < 0.72 or not others):
        return rnd.choice(agents)
    if assassins and roll > 0.985:
        return rnd.choice(assassins)
    return rnd.choice(others or agents or assassins)


def game(seed: int, start: float, *, burst: bool = False) -> tuple[list[Step], float]:
    """One game's inputs from `start`; returns them and when the game ended."""
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
        steps.append(Step(t, Touch(*divmod(cell, 5)), burst_end=burst and touches == BURST))
        state, _ = state.apply(RTouch.at(cell))
    return steps, t


def session(games: int, seed: int, *, burst: bool = False, reveal: float = 10.0) -> list[Step]:
    """`games` games back to back: the first is dealt at boot, each next one
    `DEAL_AFTER` seconds after the previous end screen's reveal."""
    steps: list[Step] = []
    t = 0.0
    for n in range(games):
        if n:
            t += reveal + DEAL_AFTER
            steps.append(Step(t, None, deal=True))
        played, t = game(seed + n, t, burst=burst)
        steps.extend(played)
    return steps
