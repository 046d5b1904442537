"""keystand.games.duet.views: the secrecy boundary between a game and one seat's screen.

Derived from docs/design.md "Secrecy" (a seat's screen is a function of its own side,
the public record and the announcements the rules allow), docs/design.md "Table
coordinates" and docs/rules.md "A turn" (a seat with nothing left to guess: "the one
fact about a side the rules let reach the other seat"). Games are random event streams on random
cards; the checks are:

- non-interference: change the partner's side to another valid card on which
  the same events have the same outcomes, and the seat's view, and its image on
  every panel in every language, stay the same to the pixel;
- the half turn, end to end: seat B of a game and seat A of the mirrored game
  (sides and seats swapped) see the same screen, each cell moved by the half
  turn of the grid and drawn the same.
"""

from __future__ import annotations

from dataclasses import fields, replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st
from PIL import ImageChops

from keystand.games import Context
from keystand.games.duet import views
from keystand.layouts import (
    MODELS,
    Ending,
    LastKind,
    Mark,
    Neutral,
    NeutralView,
    SeatId,
    SeatView,
    Stage,
    Who,
    languages,
    panel,
    render,
    render_with_boxes,
)
from keystand.layouts.i18n import strings
from keystand.rules import (
    Card,
    Clue,
    Event,
    Mission,
    Pass,
    Penalty,
    Seat,
    Touch,
    Undo,
    generate,
    parse_event,
)
from keystand.rules.duet import Duet, Phase, Reason, RejectReason, Result
from keystand.script import parse_script

CODE = "YAKM-S9ED-D1RD"
GOLDEN_SCRIPTS = Path(__file__).parent / "golden" / "scripts"
MARK = {"G": Mark.AGENT, "X": Mark.ASSASSIN, ".": Mark.BYSTANDER}
MISSIONS = [Mission(9, 9), Mission(9, 5), Mission(4, 2), Mission(2, 1), Mission(3, 0)]


def side_marks(card: Card, seat: Seat) -> tuple[Mark, ...]:
    """A side's marks read from the card's text (docs/design.md "Contracts")."""
    a, b = card.text.split("/")
    text = (a if seat is Seat.A else b).replace(" ", "")
    return tuple(MARK[ch] for ch in text)


def play(card: Card, script: str, mission: Mission = MISSIONS[0]) -> list[Duet]:
    state = Duet.start(card, mission)
    states = [state]
    for line in script.split(";"):
        if line.strip():
            state, _ = state.apply(parse_event(line))
            states.append(state)
    return states


# ----- random games -------------------------------------------------------------------

# An intent is turned into an event by looking at the public state and the card, so
# that random games find agents, pass, run out of time and reach sudden death.
intent = st.tuples(st.integers(0, 9), st.integers(0, 24))
intents = st.one_of(st.lists(intent, max_size=30), st.lists(intent, min_size=40, max_size=120))


def event_for(state: Duet, kind: int, arg: int) -> Event:
    seats = (Seat.A, Seat.B)
    if kind <= 3:  # a guess the rules will likely accept as correct
        judge = state.giver if state.phase is Phase.GUESSING else None
        if state.phase is Phase.SUDDEN_DEATH and state.guesser:
            judge = state.guesser.partner
        if judge is not None:
            hidden = sorted(state.card.agents(judge) - state.agents)
            if hidden:
                return Touch.at(hidden[arg % len(hidden)])
        return Touch.at(arg)
    if kind == 4:
        return Touch.at(arg)
    if kind == 5:
        allowed = state.may_give_clue() or seats
        return Clue(allowed[arg % len(allowed)])
    if kind == 6:
        return Pass(state.guesser or seats[arg % 2])
    if kind == 7:
        return Clue(seats[arg % 2])  # in sudden death: arm
    if kind == 8:
        return Undo() if arg % 3 == 0 else Pass(seats[arg % 2])
    return Penalty() if arg % 4 == 0 else Clue(seats[arg % 2])


def run(card: Card, mission: Mission, loose: bool, events: list[Event]) -> list[Duet]:
    state = Duet.start(card, mission, loose_order=loose)
    states = [state]
    for e in events:
        state, _ = state.apply(e)
        states.append(state)
    return states


@st.composite
def games(draw: st.DrawFn) -> tuple[Card, Mission, bool, list[Event]]:
    card = generate(draw(st.integers(0, 2**32 - 1)))
    mission = draw(st.sampled_from(MISSIONS))
    loose = draw(st.booleans())
    state = Duet.start(card, mission, loose_order=loose)
    events = []
    for kind, arg in draw(intents):
        e = event_for(state, kind, arg)
        state, _ = state.apply(e)
        events.append(e)
    return card, mission, loose, events


def public(state: Duet) -> tuple:
    """Everything anyone at the table sees happen, and the allowed announcements."""
    last = state.last
    return (
        state.status,
        state.reason,
        state.phase,
        state.agents,
        state.misses_a,
        state.misses_b,
        state.turns_left,
        state.mistakes_left,
        state.passes,
        state.clue_giver,
        state.guesser,
        state.armed,
        state.nothing_left_to_guess(Seat.A),
        state.nothing_left_to_guess(Seat.B),
        state.score,
        last,
    )


def same_image(a, b) -> bool:
    return a.size == b.size and ImageChops.difference(a, b).getbbox() is None


# ----- non-interference ---------------------------------------------------------------


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=games(), viewer=st.sampled_from([Seat.A, Seat.B]), data=st.data())
def test_the_partners_side_never_reaches_the_screen(game, viewer, data):
    card, mission, loose, events = game
    own = card.side(viewer)
    theirs = list(card.side(viewer.partner))
    # Another partner side with the same outcomes: the partner's marks moved among
    # words nobody touched, within words that look the same on the seat's own side
    # (so the card keeps its distribution, and no judgment, cover, announcement or
    # count of the game can differ).
    touched = {e.cell for e in events if isinstance(e, Touch)}
    for mark in set(own):
        cells = [i for i in range(25) if i not in touched and own[i] is mark]
        moved = data.draw(st.permutations([theirs[i] for i in cells]), label=f"{mark}")
        for i, key in zip(cells, moved, strict=True):
            theirs[i] = key
    other = Card(own, tuple(theirs)) if viewer is Seat.A else Card(tuple(theirs), own)
    assume(other != card)
    states = run(card, mission, loose, events)
    others = run(other, mission, loose, events)
    # The partner's panel failing is told on this screen: that fact, nothing of its side.
    failed = data.draw(st.booleans(), label="partner's panel failed")
    for s, o in zip(states, others, strict=True):
        assert public(s) == public(o)  # the premise: the same game in public
        mine = views.for_seat(s, viewer, Context(partner_panel_failed=failed))
        alt = views.for_seat(o, viewer, Context(partner_panel_failed=failed))
        if s.phase is Phase.OVER:
            # The end screen shows both sides and the code: only they may differ.
            assert mine.end is not None and alt.end is not None
            assert replace(mine, end=None, stage=Stage.GUESSING) == replace(
                alt, end=None, stage=Stage.GUESSING
            )
            assert mine.end.score == alt.end.score and mine.end.ending == alt.end.ending
        else:
            assert mine == alt
    final, alt_final = states[-1], others[-1]
    event(f"final phase: {final.phase.value}")
    event(f"reached sudden death: {any(s.sudden_death for s in states)}")
    if final.phase is not Phase.OVER:
        mine = views.for_seat(final, viewer, Context(partner_panel_failed=failed))
        alt = views.for_seat(alt_final, viewer, Context(partner_panel_failed=failed))
        for model in MODELS:
            for lang in languages():
                spec = panel(model)
                assert same_image(render(mine, spec, lang), render(alt, spec, lang)), (
                    model,
                    lang,
                )


def test_the_view_holds_the_own_side_in_table_order_and_nothing_of_the_other():
    card = Card.from_code(CODE)
    for seat in Seat:
        for state in play(card, "clue A; touch 3 0; touch 0 0; clue B; touch 2 2"):
            v = views.for_seat(state, seat)
            assert v.seat is SeatId(seat.value)
            assert v.side == side_marks(card, seat)
            assert v.end is None
            assert side_marks(card, seat.partner) not in [
                getattr(v, f.name) for f in fields(SeatView)
            ]


def test_a_view_carries_only_the_public_record_and_the_announcements():
    """No field of a seat view may count the words a seat has left (the rulebook: tell
    your partner nothing but that none are left)."""
    assert {f.name for f in fields(SeatView)} == {
        "seat",
        "side",
        "stage",
        "agents",
        "my_misses",
        "partner_misses",
        "clue_giver",
        "guesser",
        "armed",
        "counters",  # the game's own: the tokens left in the bank (turns, mistakes)
        "nothing_left_for_me",
        "nothing_left_for_partner",
        "undo_asked",  # public: both saw a seat press undo
        "cannot_save",  # the stand's own state, nothing of any side
        "input_lost",  # the stand's own state: a device stopped answering
        "partner_panel_failed",  # the stand's own state: the other screen fails
        "held",  # that, and the public phase: the partner's clue is next
        "hint",  # the stand's own state: a key that did nothing, what to press
        "repaired",  # the stand's own state: the journal was damaged on start
        "next_mission",  # the stand's own settings: the mission chosen for the next game
        "mission",  # public: the mission in play (the time bank on the table)
        "cursor",  # buttons only: this seat's own cursor, never the partner's
        "last",
        "end",
        "grid",  # the game's rows and columns: the same for both seats
    }


def test_the_end_screen_gets_both_sides_the_code_and_the_score():
    card = Card.from_code(CODE)
    won = states_of("won")
    lost = states_of("lost")
    for states, ending in ((won, Ending.WON), (lost, Ending.ASSASSIN)):
        final = states[-1]
        assert final.phase is Phase.OVER
        for seat in Seat:
            v = views.for_seat(final, seat)
            assert v.stage is Stage.OVER and v.end is not None
            assert v.end.ending is ending
            assert v.end.partner_side == side_marks(card, seat.partner)
            assert v.end.card_code == card.code
            assert v.end.score == final.score
        # One step before the end nothing of it shows.
        assert views.for_seat(states[-2], Seat.A).end is None
    assert views.for_seat(won[-1], Seat.A).end.score is not None
    assert views.for_seat(lost[-1], Seat.A).end.score is None


# ----- announcements, roles, the last input -------------------------------------------


def states_of(name: str, mission: str = "9-9") -> list[Duet]:
    state = Duet.start(Card.from_code(CODE), Mission.parse(mission))
    states = [state]
    for step in parse_script((GOLDEN_SCRIPTS / f"{name}.txt").read_text()):
        state, _ = state.apply(step.event)
        states.append(state)
    return states


def test_nothing_left_is_announced_to_the_seat_and_known_to_its_partner():
    """A finds every agent of B's side: A has nothing left to guess (told by B);
    B knows it from its own side."""
    states = states_of("announced")
    before = states[-4]  # one agent of B's side still hidden
    assert not views.for_seat(before, Seat.A).nothing_left_for_me
    final = states[-1]
    a, b = views.for_seat(final, Seat.A), views.for_seat(final, Seat.B)
    assert a.nothing_left_for_me and not a.nothing_left_for_partner
    assert b.nothing_left_for_partner and not b.nothing_left_for_me
    # From now on A gives every clue and B guesses.
    assert a.clue_giver is Who.ME and a.guesser is Who.PARTNER
    assert b.clue_giver is Who.PARTNER and b.guesser is Who.ME
    # B's clue was refused, for both screens, by the rules' code.
    assert a.last.kind is LastKind.REJECTED
    assert a.last.reject == RejectReason.PARTNER_HAS_NOTHING_LEFT.value == b.last.reject


def test_roles_are_told_relative_to_the_seat():
    states = play(Card.from_code(CODE), "clue A; touch 3 0")
    a, b = views.for_seat(states[1], Seat.A), views.for_seat(states[1], Seat.B)
    assert (a.clue_giver, a.guesser) == (Who.ME, Who.PARTNER)
    assert (b.clue_giver, b.guesser) == (Who.PARTNER, Who.ME)
    assert a.last.kind is LastKind.CLUE and a.last.by is Who.ME and b.last.by is Who.PARTNER
    agent = views.for_seat(states[2], Seat.B).last
    assert (agent.kind, agent.by, agent.cell) == (LastKind.AGENT, Who.ME, 15)


def test_the_last_input_and_its_tokens():
    card = Card.from_code(CODE)
    # Mission 3-0: no mistakes allowed, a bystander costs two check tokens.
    states = play(
        card, "clue A; touch 0 0; clue B; touch 3 1; touch 3 1; penalty; undo", Mission(3, 0)
    )
    lasts = [views.for_seat(s, Seat.A).last for s in states[1:]]
    assert (
        lasts[1].kind is LastKind.BYSTANDER and lasts[1].tokens == 2 and lasts[1].by is Who.PARTNER
    )
    assert views.for_seat(states[2], Seat.A).my_misses == frozenset()
    assert views.for_seat(states[2], Seat.A).partner_misses == frozenset({0})
    assert lasts[3].kind is LastKind.AGENT and lasts[3].by is Who.ME
    assert (
        lasts[4].kind is LastKind.REJECTED and lasts[4].reject == "covered" and lasts[4].cell == 16
    )
    assert lasts[5].kind is LastKind.PENALTY
    assert lasts[6].kind is LastKind.UNDO
    lost = play(card, "clue A; touch 0 4")
    v = views.for_seat(lost[-1], Seat.B)
    assert v.last.kind is LastKind.ASSASSIN and v.last.cell == 4
    assert v.end.ending is Ending.ASSASSIN


def test_sudden_death_names_the_armed_seat():
    states = states_of("sudden", "2-1")
    before, armed = states[-2], states[-1]
    assert before.phase is Phase.SUDDEN_DEATH
    a = views.for_seat(before, Seat.A)
    assert a.stage is Stage.SUDDEN_DEATH and a.guesser is None and a.armed is None
    a, b = views.for_seat(armed, Seat.A), views.for_seat(armed, Seat.B)
    assert a.armed is Who.PARTNER and a.guesser is Who.PARTNER
    assert b.armed is Who.ME and b.guesser is Who.ME
    assert b.last.kind is LastKind.ARMED and b.last.by is Who.ME


def test_every_rule_code_has_a_short_text_in_every_language():
    codes = {r.value for r in RejectReason}
    seat_named = {"first_clue_me", "first_clue_partner"}  # layouts/play.py FIRST_CLUE_CODES
    for lang in languages():
        assert set(strings(lang)["reject"]) == codes | seat_named, lang


def test_every_result_phase_and_reason_has_a_view():
    assert set(views._LAST) == set(Result)
    assert set(views._STAGE) == set(Phase)
    assert set(views._ENDING) == set(Reason)


def test_the_neutral_picture_is_not_a_seat_view():
    v = NeutralView(Neutral.IDLE)
    assert not isinstance(v, SeatView)
    assert render_with_boxes(v, panel("epd2in9_V2"))[1] == {}


# ----- the half turn, end to end ------------------------------------------------------


def mirrored(e: Event) -> Event:
    if isinstance(e, Clue):
        return Clue(e.seat.partner)
    if isinstance(e, Pass):
        return Pass(e.seat.partner)
    return e


def half_turn(box, around):
    x0, y0, x1, y1 = box
    ax0, ay0, ax1, ay1 = around
    return (ax0 + ax1 - x1, ay0 + ay1 - y1, ax0 + ax1 - x0, ay0 + ay1 - y0)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=games(), model=st.sampled_from(MODELS))
def test_seat_b_sees_what_seat_a_sees_in_the_mirrored_game_turned_half_a_turn(game, model):
    card, mission, loose, events = game
    mirror = Card(card.b, card.a)
    states = run(card, mission, loose, events)
    mirror_states = run(mirror, mission, loose, [mirrored(e) for e in events])
    for s, m in zip(states, mirror_states, strict=True):
        b, a = views.for_seat(s, Seat.B), views.for_seat(m, Seat.A)
        if s.phase is Phase.OVER:  # the two cards have different codes
            b = replace(b, end=replace(b.end, card_code=""))
            a = replace(a, end=replace(a.end, card_code=""))
        assert b == replace(a, seat=SeatId.B)
    spec = panel(model)
    b_img, b_boxes = render_with_boxes(views.for_seat(states[-1], Seat.B), spec)
    a_img, a_boxes = render_with_boxes(views.for_seat(mirror_states[-1], Seat.A), spec)
    grid = (
        min(x[0] for x in a_boxes.values()),
        min(x[1] for x in a_boxes.values()),
        max(x[2] for x in a_boxes.values()),
        max(x[3] for x in a_boxes.values()),
    )
    for i in range(25):
        assert b_boxes[i] == half_turn(a_boxes[i], grid)
        # Inside the two pixels a neighbour's last-touch frame may lie over (its
        # spill and the white around it: layouts/cells.py), on whichever side the
        # half turn puts it.
        assert same_image(b_img.crop(inset(b_boxes[i], 2)), a_img.crop(inset(a_boxes[i], 2))), i
    last = views.for_seat(states[-1], Seat.B).last
    if last is not None and last.cell is not None:  # the frame itself, with what is around it
        b_frame, a_frame = inset(b_boxes[last.cell], -3), inset(a_boxes[last.cell], -3)
        assert same_image(b_img.crop(b_frame), a_img.crop(a_frame))
    if states[-1].phase is not Phase.OVER:
        # Outside the grid (and a frame over its outer line) the two screens are
        # the same picture.
        outside_a, outside_b = a_img.copy(), b_img.copy()
        for im in (outside_a, outside_b):
            im.paste(0, inset(grid, -3))
        assert same_image(outside_a, outside_b)


def inset(box: tuple[int, int, int, int], by: int) -> tuple[int, int, int, int]:
    x0, y0, x1, y1 = box
    return (x0 + by, y0 + by, x1 - by, y1 - by)


@pytest.mark.parametrize("seat", list(Seat))
def test_a_cell_lands_at_the_turned_place_for_seat_b(seat):
    """Table (r, c) is at (r, c) on seat A's screen and at (4 - r, 4 - c) on seat B's:
    a cell's mark, read off the image, is in the box the geometry names."""
    card = Card.from_code(CODE)
    v = views.for_seat(Duet.start(card), seat)
    spec = panel("epd2in7_V2")
    image, boxes = render_with_boxes(v, spec)
    w = boxes[0][2] - boxes[0][0]
    for i, mark in enumerate(side_marks(card, seat)):
        r, c = divmod(i, 5)
        row, col = (r, c) if seat is Seat.A else (4 - r, 4 - c)
        x0, y0 = boxes[0][0], boxes[0][1]
        if seat is Seat.B:
            x0, y0 = boxes[24][0], boxes[24][1]
        pitch = boxes[1][0] - boxes[0][0] if seat is Seat.A else boxes[0][0] - boxes[1][0]
        assert boxes[i][:2] == (x0 + col * pitch, y0 + row * pitch)
        centre = image.getpixel((boxes[i][0] + w // 2, boxes[i][1] + w // 2))
        # An agent's disc and an assassin's square are black in the middle of the
        # cell... except the assassin's white cross; a bystander's cell is white.
        if mark is Mark.AGENT:
            assert centre == 0
        else:
            assert centre == 1


def test_a_first_clue_refusal_names_the_seats_as_each_screen_does() -> None:
    """The stand labels no seat A or B: the seat that may not open reads that its
    partner gives the first clue, the other that it does (the menu's me/partner)."""
    from keystand.layouts.play import last_key
    from keystand.rules import Clue, generate
    from keystand.rules.duet import Duet

    state, result = Duet.start(generate(3), first=Seat.B).apply(Clue(Seat.A))
    assert result.reason.value == "first_clue_b"
    a, b = views.for_seat(state, Seat.A), views.for_seat(state, Seat.B)
    assert last_key(a) == ("reject", "first_clue_partner")
    assert last_key(b) == ("reject", "first_clue_me")
    for lang in languages():
        assert "B" not in strings(lang)["reject"]["first_clue_partner"]
