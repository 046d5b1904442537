"""The classic screens (keystand.layouts.classic) and their secrecy boundary
(keystand.games.classic.views).

Derived from docs/design.md "Secrecy" and docs/classic-screens.md "What each
screen may show": the spymasters' screen shows the key; the operatives' screen is a function of the
public record only. Checked as non-interference: random games on random cards,
then another key that differs only on words no event named (so every event has
the same outcome and the table sees the same game), and the operatives' view and
image must not change by one pixel, on every panel and language, while the
spymasters' image does change (the test is not vacuous).

Orientation, derived from the card text's definition (row 0 farthest from the
spymasters) and docs/classic-screens.md "Which way the grids turn": the spymasters'
grid reads like a page; the operatives, across the table, see table (r, c) at
(4 - r, 4 - c).

Goldens: PNGs of scripted games (tests/golden/classic/scripts) on every panel,
looked at by a person before they were committed. KEYSTAND_UPDATE_GOLDEN=1
rewrites them and the contact sheet docs/classic-screens.png (the same switch
as tests/test_layouts.py).
"""

from __future__ import annotations

import os
from dataclasses import fields, replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st
from PIL import Image, ImageChops, ImageDraw

from keystand.games import Context
from keystand.games.classic import views as classic_views
from keystand.layouts import (
    MODELS,
    ClassicLast,
    ClassicLastKind,
    ClassicPublic,
    ClassicStage,
    Colour,
    OperativesView,
    SpymastersView,
    Team,
    Win,
    languages,
    panel,
    render,
    render_with_boxes,
    text_slots,
)
from keystand.layouts import classic as screen
from keystand.layouts.classic_cells import ClassicLook, draw_classic_cell
from keystand.layouts.classic_view import END_LINES, STAND_NOTES, TIMER_MAX
from keystand.layouts.fonts import font
from keystand.layouts.i18n import strings
from keystand.layouts.play import digits
from keystand.layouts.text import draw_text, fits, wrap
from keystand.rules.classic import Classic, Phase, Rejection, RejectReason, Result
from keystand.rules.classic_card import ClassicCard
from keystand.rules.classic_card import Team as RulesTeam
from keystand.rules.classic_code import CLASSIC_CARD_COUNT, unrank
from keystand.rules.classic_events import (
    UNLIMITED,
    Clue,
    Event,
    Pass,
    Penalty,
    Touch,
    Undo,
    parse_event,
)

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "golden" / "classic"
SCRIPTS = GOLDEN / "scripts"
SHEET = ROOT / "docs" / "classic-screens.png"
UPDATE = os.environ.get("KEYSTAND_UPDATE_GOLDEN") == "1"
CODE = "9CY-EPF-ZXQ"  # UU.UU RRUXR ..R.R .URU. .UURR: blue starts

ROTATIONS = (0, 90, 180, 270)
ALL_MOUNTS = [(m, r) for m in MODELS for r in ROTATIONS]
SCREENS = (classic_views.spymasters, classic_views.operatives)
# The card text's letters, read by docs/classic-rules.md "The table and the key card",
# not by the code.
LETTER = {"R": Colour.RED, "U": Colour.BLUE, ".": Colour.BYSTANDER, "X": Colour.ASSASSIN}


def black_bbox(image: Image.Image) -> tuple[int, int, int, int] | None:
    return ImageChops.invert(image.convert("L")).getbbox()


def same(a: Image.Image, b: Image.Image) -> bool:
    return (
        a.size == b.size and ImageChops.difference(a.convert("L"), b.convert("L")).getbbox() is None
    )


def script_events(name: str) -> list[Event]:
    lines = (SCRIPTS / f"{name}.txt").read_text().splitlines()
    return [parse_event(line) for line in lines if line.strip() and not line.startswith("#")]


def play(events: list[Event], card: ClassicCard | None = None) -> list[Classic]:
    state = Classic.start(card or ClassicCard.from_code(CODE))
    states = [state]
    for e in events:
        state, _ = state.apply(e)
        states.append(state)
    return states


def final(name: str) -> Classic:
    return play(script_events(name))[-1]


def union(boxes: dict[int, tuple[int, int, int, int]]) -> tuple[int, int, int, int]:
    return (
        min(b[0] for b in boxes.values()),
        min(b[1] for b in boxes.values()),
        max(b[2] for b in boxes.values()),
        max(b[3] for b in boxes.values()),
    )


def inside(inner: tuple[int, ...], outer: tuple[int, ...]) -> bool:
    return (
        outer[0] <= inner[0]
        and outer[1] <= inner[1]
        and inner[2] <= outer[2]
        and inner[3] <= outer[3]
    )


def disjoint(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    return a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]


def public(**kw: object) -> ClassicPublic:
    base: dict[str, object] = dict(starting=Team.RED, stage=ClassicStage.GUESSING, team=Team.RED)
    base.update(kw)
    return ClassicPublic(**base)  # type: ignore[arg-type]


KEY = tuple(LETTER[ch] for ch in "RRRRR RRRRU UUUUU UU... ....X".replace(" ", ""))


# ----- random games ----------------------------------------------------------------------

# An intent is turned into an event by looking at the state and the card, so that
# random games find agents, end turns, call penalties (accepted and refused) and end
# both ways.
intent = st.tuples(st.integers(0, 12), st.integers(0, 24))
intents = st.one_of(st.lists(intent, max_size=25), st.lists(intent, min_size=40, max_size=100))
NUMBERS = (None, UNLIMITED, 0, 1, 2, 3, 9)


def event_for(state: Classic, kind: int, arg: int) -> Event:
    """The event an intent means in `state`. Words picked at random are from the first
    four rows only, so that long games still leave words no event named."""
    team = state.team
    if kind <= 4:  # the team on turn touches one of its own words, after a clue
        hidden = sorted(state.card.agents(team) - state.covered)
        if hidden and state.phase is Phase.GUESSING:
            return Touch(*divmod(hidden[arg % len(hidden)], 5))
        return Clue(team, NUMBERS[arg % len(NUMBERS)])
    if kind == 5:
        return Touch(*divmod(arg % 20, 5))
    if kind == 6:
        return Clue(team, NUMBERS[arg % len(NUMBERS)])
    if kind == 7:
        return Pass(team if arg % 5 else team.other)
    if kind == 8:  # a penalty on the other team's word (accepted while it may be)
        theirs = sorted(state.card.agents(team.other) - state.covered)
        if theirs and arg % 3:
            return Penalty(*divmod(theirs[arg % len(theirs)], 5))
        return Penalty(*divmod(arg % 20, 5))  # often refused, and that refusal is secret
    if kind == 9:
        return Undo()
    if kind == 10:
        return Clue(team.other, None)
    if kind == 11:
        return Penalty(*divmod(arg % 20, 5))
    # Now and then the assassin, so that games end that way too.
    return Touch(*divmod(state.card.assassin if arg % 4 == 0 else arg % 20, 5))


@st.composite
def games(draw: st.DrawFn) -> tuple[ClassicCard, list[Event]]:
    card = unrank(draw(st.integers(0, CLASSIC_CARD_COUNT - 1)))
    state = Classic.start(card)
    events = []
    for kind, arg in draw(intents):
        e = event_for(state, kind, arg)
        state, _ = state.apply(e)
        events.append(e)
    return card, events


def public_record(state: Classic) -> tuple:
    """Everything anyone at the table sees happen: the tiles and their colours, the
    turn, the counts, what each input did or why it was refused."""
    return (
        state.status,
        state.winner,
        state.reason,
        state.phase,
        state.turn,
        state.guesses_left,
        state.covered,
        tuple(state.card.key(i) for i in sorted(state.covered)),
        state.agents_left(RulesTeam.RED),
        state.agents_left(RulesTeam.BLUE),
        state.card.starting,
        state.last,
    )


def named_cells(events: list[Event]) -> set[int]:
    return {e.cell for e in events if isinstance(e, Touch | Penalty)}


# ----- the views ---------------------------------------------------------------------------


def test_the_operatives_view_holds_the_key_only_once_the_end_is_final():
    """The type is the boundary: an operatives' view is the public record, and the
    key only once the game is over and its end no longer held back for undo (the
    card turned round for the table); the public record has the tiles (colours of
    covered words), never the key."""
    assert [f.name for f in fields(OperativesView)] == ["public", "key"]
    assert {f.name for f in fields(SpymastersView)} == {"key", "public", "choosing"}
    over = public(stage=ClassicStage.OVER, team=None, winner=Team.RED, win=Win.ASSASSIN)
    for p in (public(), public(stage=ClassicStage.AWAITING_CLUE), replace(over, end="hold")):
        with pytest.raises(ValueError, match="only once the end is final"):
            OperativesView(p, KEY)
    with pytest.raises(ValueError, match="only once the end is final"):
        OperativesView(over, KEY)  # no end line: not known to be final
    assert OperativesView(replace(over, end="new_game"), KEY).key == KEY
    with pytest.raises(ValueError, match="key has 3"):
        OperativesView(replace(over, end="new_game"), KEY[:3])
    assert {f.name for f in fields(ClassicPublic)} == {
        "starting",  # public: that team gave the first clue
        "stage",
        "team",
        "revealed",  # the tiles: a colour only where a word is covered
        "guesses_left",
        "clue_number",  # public: the spymaster said it aloud with the clue
        "winner",
        "win",
        "penalty",  # public: the table called the clue invalid
        "timer",  # the stand's own clock
        "last",
        "cannot_save",
        "input_lost",
        "note",  # the stand's answer to a press (a STAND_NOTES key: no key in it)
        "end",  # the end screen's line: undo can still take it back, or a new game
        "panel_failed",  # the stand's own state: the other screen fails (whom it faces)
        "grid",  # the game's rows and columns: the same for both screens
    }


@pytest.mark.parametrize("name", ["mid", "end", "penalty"])
def test_the_views_hold_the_key_the_tiles_and_the_counts(name):
    card = ClassicCard.from_code(CODE)
    letters = card.text.replace(" ", "")
    for state in play(script_events(name)):
        spy = classic_views.spymasters(state)
        ops = classic_views.operatives(state)
        assert spy.key == tuple(LETTER[ch] for ch in letters)
        for view in (spy, ops):
            p = view.public
            assert p.covered == state.covered
            for i in range(25):
                expected = LETTER[letters[i]] if i in state.covered else None
                assert p.revealed[i] is expected
            for team, rules_team in ((Team.RED, RulesTeam.RED), (Team.BLUE, RulesTeam.BLUE)):
                assert p.agents_left(team) == state.agents_left(rules_team)
            assert p.starting is Team.BLUE
            assert p.guesses_left == state.guesses_left
            number = state.clue.number if state.clue and state.phase is Phase.GUESSING else None
            assert p.clue_number == (None if number is None else str(number))
            assert p.stage.value == state.phase.value
            assert (p.team and p.team.value) == (state.turn and state.turn.value)
            assert (p.winner and p.winner.value) == (state.winner and state.winner.value)
        if not isinstance(state.last, Rejection):
            assert spy.public == ops.public


def test_the_mid_game_view_reads_as_the_script_says():
    p = classic_views.operatives(final("mid"), Context(timer=75)).public
    assert p.stage is ClassicStage.GUESSING and p.team is Team.RED
    assert p.guesses_left == 2 and p.clue_number == "2"  # three guesses, one made
    assert (p.agents_left(Team.RED), p.agents_left(Team.BLUE)) == (5, 5)
    assert p.last == ClassicLast(ClassicLastKind.AGENT, Team.RED, 14, Colour.RED, False)
    assert p.timer == 75
    end = classic_views.operatives(final("end"), Context(timer=75)).public
    assert (end.winner, end.win, end.team, end.timer) == (Team.BLUE, Win.ASSASSIN, None, None)
    assert end.last == ClassicLast(ClassicLastKind.ASSASSIN, Team.RED, 8, Colour.ASSASSIN, True)


def test_a_refusal_that_tells_of_the_key_reaches_the_spymasters_only():
    """`penalty 1 1` is refused because that word is not blue's (it is red's): that
    says something of the key. The spymasters see the refusal and the word framed;
    the operatives keep seeing the last public input, to the pixel."""
    states = play(script_events("penalty"))
    before, after = states[-2], states[-1]
    assert after.last.reason is RejectReason.PENALTY_NOT_THEIR_WORD
    # The one refusal decided by the key: every other is decided by the public record
    # (a covered word, the phase, the team on turn, a guess made, the log).
    assert {RejectReason.PENALTY_NOT_THEIR_WORD} == classic_views.SECRET_REFUSALS
    spy = classic_views.spymasters(after, Context(penalty_pending=True))
    assert spy.public.last == ClassicLast(
        ClassicLastKind.REJECTED, cell=6, reject="penalty_not_their_word"
    )
    ops_before = classic_views.operatives(before, Context(penalty_pending=True))
    ops_after = classic_views.operatives(after, Context(penalty_pending=True))
    assert ops_after == ops_before
    assert ops_after.public.last == ClassicLast(ClassicLastKind.CLUE, Team.RED)
    for model, rotation in ALL_MOUNTS:
        spec = panel(model, rotation)
        assert same(render(ops_before, spec), render(ops_after, spec))
        assert not same(
            render(classic_views.spymasters(before, Context(penalty_pending=True)), spec),
            render(spy, spec),
        )
    # Refused twice in a row: still the last public input.
    again, _ = after.apply(Penalty(1, 4))  # a red agent too
    assert classic_views.operatives(again, Context(penalty_pending=True)) == ops_before
    # A public refusal (a covered word) reaches both screens.
    covered, _ = after.apply(Penalty(0, 0))
    for f in SCREENS:
        assert f(covered).public.last == ClassicLast(
            ClassicLastKind.REJECTED, cell=0, reject="covered"
        )


def test_a_penalty_refused_for_the_phase_frames_no_word():
    """The menu's penalty names no word (its event carries a stand-in cell 0 0):
    refused as too late or with no clue, it frames nothing; a touch refused frames
    the word touched, and a penalty refused for its word frames that word."""
    blue = RulesTeam.BLUE
    too_late = play([Clue(blue), Touch(0, 1), Penalty(0, 0)])[-1]
    no_clue = play([Penalty(0, 0)])[-1]
    assert too_late.last.reason is RejectReason.PENALTY_AFTER_GUESS
    assert no_clue.last.reason is RejectReason.PENALTY_NO_CLUE
    spec = panel("epd2in7_V2", 90)
    for state in (too_late, no_clue):
        for f in SCREENS:
            view = f(state)
            assert view.public.last is not None and view.public.last.cell is None
            assert not any(look.framed for look in screen.looks(view).values())
            render(view, spec)  # draws with nothing framed
    touched = play([Touch(2, 3)])[-1]  # no clue yet: the word touched is framed
    assert touched.last.reason is RejectReason.NO_CLUE
    for f in SCREENS:
        assert f(touched).public.last.cell == 13


def test_the_stand_notes_come_before_a_refusal_and_the_end_line_after_it():
    """A hint or an undo asked answers a press: it shows before a refusal (a fault
    before both); the end screen's line replaces the last input, not a refusal."""
    key = screen.message_key
    refused = ClassicLast(ClassicLastKind.REJECTED, cell=3, reject="covered")
    assert key(public(last=refused, note="hint_useless_pass")) == (
        "classic_note",
        "hint_useless_pass",
    )
    assert key(public(note="undo_wait_operatives", cannot_save=True)) == (
        "classic_note",
        "cannot_save",
    )
    over = dict(stage=ClassicStage.OVER, team=None, winner=Team.BLUE, win=Win.ASSASSIN)
    last = ClassicLast(ClassicLastKind.ASSASSIN, Team.RED, 9, Colour.ASSASSIN, True)
    assert key(public(**over, last=last, end="hold")) == ("classic_note", "end_hold")
    assert key(public(**over, last=last, end="new_game")) == ("classic_note", "end_new_game")
    assert key(public(**over, last=refused, end="hold")) == ("classic_reject", "covered")
    assert key(public(**over, last=last, end="hold", note="undo_asked_spymasters")) == (
        "classic_note",
        "undo_asked_spymasters",
    )
    with pytest.raises(ValueError, match="end line 'hold'"):
        public(end="hold")  # not over
    with pytest.raises(ValueError, match="note 'nonsense'"):
        public(note="nonsense")


def test_the_other_screen_failing_is_told_before_any_note_and_named_by_whom_it_faces():
    """That panel cannot say it: the other one does, before a hint, an undo asked, a
    refusal, the timer and the end line; only a fault that stops input comes first."""
    key = screen.message_key
    refused = ClassicLast(ClassicLastKind.REJECTED, cell=3, reject="covered")
    for role in ("spymasters", "operatives"):
        told = ("classic_note", f"panel_failed_{role}")
        assert key(public(panel_failed=role)) == told
        assert key(public(panel_failed=role, last=refused, note="undo_wait_operatives")) == told
        assert key(public(panel_failed=role, timer=0)) == told
        over = dict(stage=ClassicStage.OVER, team=None, winner=Team.BLUE, win=Win.ASSASSIN)
        for end in END_LINES:
            assert key(public(**over, end=end, panel_failed=role)) == told
        assert key(public(panel_failed=role, cannot_save=True)) == ("classic_note", "cannot_save")
        assert key(public(panel_failed=role, input_lost=True)) == ("classic_note", "input_lost")
    mid, end = final("mid"), final("end")
    for state in (mid, end):
        assert classic_views.spymasters(state).public.panel_failed is None
        assert classic_views.operatives(state).public.panel_failed is None
        spy = classic_views.spymasters(state, Context(partner_panel_failed=True))
        ops = classic_views.operatives(state, Context(partner_panel_failed=True))
        assert spy.public.panel_failed == "operatives"
        assert ops.public.panel_failed == "spymasters"
    with pytest.raises(ValueError, match="panel failed 'seat A'"):
        public(panel_failed="seat A")
    with pytest.raises(ValueError, match="cannot tell its own failure"):
        OperativesView(public(panel_failed="operatives"))
    with pytest.raises(ValueError, match="cannot tell its own failure"):
        SpymastersView(KEY, public(panel_failed="spymasters"))


@pytest.mark.parametrize(("model", "rotation"), ALL_MOUNTS)
def test_each_classic_screen_says_when_the_other_fails_in_play_and_at_the_end(model, rotation):
    spec = panel(model, rotation)
    for name, timer in (("mid", 75), ("end", None)):
        state = final(name)
        lay = screen.layout(spec, timed=timer is not None)
        for build, other in (
            (classic_views.spymasters, "operatives"),
            (classic_views.operatives, "spymasters"),
        ):
            for reveal in (False, True):
                kw = dict(timer=timer, reveal=reveal)
                healthy = render(build(state, Context(**kw)), spec, "en")
                for lang in languages():
                    failed = render(
                        build(state, Context(**kw, partner_panel_failed=True)), spec, lang
                    )
                    alone = Image.new("1", spec.size, 1)
                    d = ImageDraw.Draw(alone)
                    d.fontmode = "1"
                    notice = strings(lang)["classic_note"][f"panel_failed_{other}"]
                    draw_text(d, notice, lay.message, middle=True)
                    box = lay.message.box
                    assert same(failed.crop(box), alone.crop(box)), (name, other, lang)
                    if lang == "en":  # nothing but the message changed
                        diff = ImageChops.difference(healthy, failed).getbbox()
                        assert diff is not None and inside(diff, lay.frame), (name, other)


def test_a_finished_game_says_undo_while_held_then_how_to_deal_the_next():
    state = final("end")
    for f in SCREENS:
        assert f(state, Context(reveal=False)).public.end == "hold"
        assert f(state).public.end == "new_game"
        assert f(play([])[-1], Context(reveal=False)).public.end is None  # not over: no end line
    spec = panel("epd2in13_V4")
    held = render(classic_views.operatives(state, Context(reveal=False)), spec)
    shown = render(classic_views.operatives(state), spec)
    assert not same(held, shown)


def test_a_finished_game_has_no_pending_penalty_and_no_timer():
    state = final("end")
    for f in SCREENS:
        p = f(state, Context(penalty_pending=True, timer=30)).public
        assert (p.penalty, p.timer) == (False, None)


def test_bad_views_are_refused_with_what_is_wrong():
    with pytest.raises(ValueError, match="revealed has 24"):
        public(revealed=(None,) * 24)
    with pytest.raises(ValueError, match="penalty"):
        public(stage=ClassicStage.AWAITING_CLUE, penalty=True)
    with pytest.raises(ValueError, match="winner"):
        public(stage=ClassicStage.OVER, team=None)
    with pytest.raises(ValueError, match="team on turn"):
        public(stage=ClassicStage.OVER, team=Team.RED, winner=Team.RED, win=Win.ALL_FOUND)
    with pytest.raises(ValueError, match="guesses left"):
        public(stage=ClassicStage.AWAITING_CLUE, guesses_left=2)
    with pytest.raises(ValueError, match="a clue's number limits them"):
        public(guesses_left=2)
    with pytest.raises(ValueError, match="its number plus one at most"):
        public(clue_number="2", guesses_left=4)
    with pytest.raises(ValueError, match="none for 0 and unlimited"):
        public(clue_number="unlimited", guesses_left=1)
    with pytest.raises(ValueError, match="its number plus one at most"):
        public(clue_number="3")  # a count for 1 to 9
    with pytest.raises(ValueError, match="while guessing only"):
        public(stage=ClassicStage.AWAITING_CLUE, clue_number="2")
    with pytest.raises(ValueError, match="clue number '10'"):
        public(clue_number="10", guesses_left=1)
    with pytest.raises(ValueError, match=r"choosing '2': .* while a clue is awaited"):
        SpymastersView(KEY, public(), choosing="2")  # guessing: the clue was given
    with pytest.raises(ValueError, match="choosing 'many'"):
        SpymastersView(KEY, public(stage=ClassicStage.AWAITING_CLUE), choosing="many")
    with pytest.raises(ValueError, match="timer"):
        public(timer=-1)
    with pytest.raises(ValueError, match="timer 541"):
        public(timer=TIMER_MAX + 1)
    with pytest.raises(ValueError, match="2 words of assassin"):
        public(revealed=(Colour.ASSASSIN,) * 2 + (None,) * 23)
    with pytest.raises(ValueError, match="cells \\[0\\]"):
        SpymastersView(KEY, public(revealed=(Colour.BLUE,) + (None,) * 24))
    with pytest.raises(ValueError, match="key has 3"):
        SpymastersView(KEY[:3], public())
    with pytest.raises(ValueError, match="reject code"):
        ClassicLast(ClassicLastKind.AGENT, colour=Colour.RED, reject="covered")
    with pytest.raises(ValueError, match="not a team's colour"):
        ClassicLast(ClassicLastKind.AGENT, colour=Colour.BYSTANDER)
    start = Classic.start(ClassicCard.from_code(CODE))
    with pytest.raises(ValueError, match="penalty pending"):
        replace(classic_views.public_record(start), penalty=True)  # it follows a clue
    # The stand's flag is the view's to weigh: no penalty is pending before a clue.
    assert not classic_views.spymasters(start, Context(penalty_pending=True)).public.penalty
    with pytest.raises(TypeError, match="not a classic view"):
        screen.render(public(), panel("epd2in7_V2"))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="language"):
        screen.render(OperativesView(public()), panel("epd2in7_V2"), "fr")


# ----- non-interference --------------------------------------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=games(), data=st.data())
def test_the_key_never_reaches_the_operatives_screen(game, data):
    card, events = game
    keys = list(card.keys)
    # Another key: the colours moved among words no event named. Every event is then
    # judged the same (a touch or penalty is judged by its own word and the counts),
    # so the table sees the same game.
    free = sorted(set(range(25)) - named_cells(events))
    assume(len({keys[i] for i in free}) > 1)  # else every such key is this one
    moved = data.draw(st.permutations([keys[i] for i in free]), label="moved")
    for i, key in zip(free, moved, strict=True):
        keys[i] = key
    if keys == list(card.keys):  # the permutation kept every colour: swap two that differ
        a = free[0]
        b = next(i for i in free if keys[i] is not keys[a])
        keys[a], keys[b] = keys[b], keys[a]
    other = ClassicCard(tuple(keys))
    assert other != card
    states, others = play(events, card), play(events, other)
    pending = data.draw(st.booleans(), label="penalty pending")
    timer = data.draw(st.one_of(st.none(), st.integers(0, 300)), label="timer")
    # The spymasters' panel failing is told here: that fact, nothing of the key.
    failed = data.draw(st.booleans(), label="spymasters' panel failed")
    # Until the end is final: in play the stand's `reveal` is True (no end to hold),
    # and either value must keep the key away; an end is held back (False).
    playing_reveal = data.draw(st.booleans(), label="reveal while playing")
    for s, o in zip(states, others, strict=True):
        assert public_record(s) == public_record(o)  # the premise: the same game in public
        kw = dict(
            penalty_pending=pending and s.phase is Phase.GUESSING,
            timer=timer,
            partner_panel_failed=failed,
            reveal=playing_reveal and s.phase is not Phase.OVER,
        )
        assert classic_views.operatives(s, Context(**kw)) == classic_views.operatives(
            o, Context(**kw)
        )
        del kw["partner_panel_failed"]
        assert classic_views.public_record(s, Context(**kw)) == classic_views.public_record(
            o, Context(**kw)
        )
    last, alt = states[-1], others[-1]
    event(f"final phase: {last.phase.value}")
    secret = any(
        isinstance(s.last, Rejection) and s.last.reason in classic_views.SECRET_REFUSALS
        for s in states
    )
    event(f"a refusal kept from the operatives: {secret}")
    kw = dict(
        penalty_pending=pending and last.phase is Phase.GUESSING,
        timer=timer,
        partner_panel_failed=failed,
        reveal=playing_reveal and last.phase is not Phase.OVER,
    )
    mine, theirs = (
        classic_views.operatives(last, Context(**kw)),
        classic_views.operatives(alt, Context(**kw)),
    )
    rotation = data.draw(st.sampled_from(ROTATIONS), label="rotation")
    for model in MODELS:
        spec = panel(model, rotation)
        for lang in languages():
            assert same(render(mine, spec, lang), render(theirs, spec, lang)), (model, lang)
        # Not vacuous: the same change of key shows on the spymasters' screen.
        assert not same(
            render(classic_views.spymasters(last, Context(**kw)), spec),
            render(classic_views.spymasters(alt, Context(**kw)), spec),
        )


def alternative_keys(events: list[Event], card: ClassicCard) -> list[ClassicCard]:
    """Other keys with the same public game: the colours of the unnamed words
    rotated by one, two and three places among them."""
    free = sorted(set(range(25)) - named_cells(events))
    out = []
    for k in (1, 2, 3):
        keys = list(card.keys)
        for i, j in zip(free, free[k:] + free[:k], strict=True):
            keys[i] = card.keys[j]
        alt = ClassicCard(tuple(keys))
        if alt != card:
            out.append(alt)
    return out


@pytest.mark.parametrize(("model", "rotation"), ALL_MOUNTS)
@pytest.mark.parametrize("name", ["mid", "end", "penalty"])
def test_the_golden_games_look_the_same_to_the_operatives_on_another_key(model, rotation, name):
    """Every mounting and language, over every state of the scripted games."""
    card = ClassicCard.from_code(CODE)
    events = script_events(name)
    states = play(events, card)
    spec = panel(model, rotation)
    alts = alternative_keys(events, card)
    assert len(alts) == 3
    for alt in alts:
        for k, (s, o) in enumerate(zip(states, play(events, alt), strict=True)):
            assert public_record(s) == public_record(o)
            held = s.phase is Phase.OVER  # the end held back for undo: still secret
            kw = dict(
                penalty_pending=name == "penalty" and k >= len(states) - 2,
                timer=42,
                reveal=not held,
            )
            mine, theirs = (
                classic_views.operatives(s, Context(**kw)),
                classic_views.operatives(o, Context(**kw)),
            )
            assert mine == theirs
            if k == len(states) - 1:
                for lang in languages():
                    assert same(render(mine, spec, lang), render(theirs, spec, lang)), lang


@pytest.mark.parametrize(("model", "rotation"), ALL_MOUNTS)
def test_the_operatives_see_the_key_once_the_end_is_final(model, rotation):
    """At the end the key card is turned round for the table: once the stand no
    longer holds the end back for undo, each word on the operatives' screen looks
    as it does on the spymasters' (their own grid, turned half for them); while it
    is held, only the tiles."""
    state = final("end")
    spec = panel(model, rotation)
    held = classic_views.operatives(state, Context(reveal=False))
    shown = classic_views.operatives(state, Context(reveal=True))
    assert held.key is None and shown.key == classic_views.spymasters(state).key
    spy, spy_boxes = render_with_boxes(classic_views.spymasters(state), spec)
    ops, ops_boxes = render_with_boxes(shown, spec)
    before, _ = render_with_boxes(held, spec)

    def inside(box: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
        # The last touch's frame spills a pixel over its neighbours' edges, on
        # different sides of the two screens (one turned half round): inside 2 px.
        x0, y0, x1, y1 = box
        return (x0 + 2, y0 + 2, x1 - 2, y1 - 2)

    for i in range(25):
        assert same(spy.crop(inside(spy_boxes[i])), ops.crop(inside(ops_boxes[i]))), i
    hidden = [i for i in range(25) if i not in state.covered and state.card.keys[i].team]
    assert hidden and all(
        not same(before.crop(ops_boxes[i]), ops.crop(ops_boxes[i])) for i in hidden
    )


# ----- orientation --------------------------------------------------------------------------


@pytest.mark.parametrize(("model", "rotation"), ALL_MOUNTS)
def test_the_spymasters_read_the_table_like_a_page_and_the_operatives_see_it_turned(
    model, rotation
):
    spec = panel(model, rotation)
    state = final("mid")
    _, spy = render_with_boxes(classic_views.spymasters(state), spec)
    _, ops = render_with_boxes(classic_views.operatives(state), spec)
    for i, (x0, y0, x1, y1) in spy.items():
        r, c = divmod(i, 5)
        if c < 4:
            assert spy[i + 1][0] >= x1 and spy[i + 1][1] == y0  # column 0 on the left
        if r < 4:
            assert spy[i + 5][1] >= y1 and spy[i + 5][0] == x0  # row 0 at the top
        assert x1 - x0 == y1 - y0 > 0
    grid = union(spy)
    assert union(ops) == grid
    for i in range(25):
        r, c = divmod(i, 5)
        assert ops[i] == spy[5 * (4 - r) + (4 - c)]  # table (r, c) at (4 - r, 4 - c)


@pytest.mark.parametrize("model", MODELS)
def test_a_tile_appears_in_its_own_cell_on_each_screen(model):
    """A word covered at table cell i changes the picture of the grid inside the box
    of cell i only, on both screens (the counters beside the grid may change too)."""
    spec = panel(model)
    views = {
        "operatives": lambda p: OperativesView(p),
        "spymasters": lambda p: SpymastersView(KEY, p),
    }
    boxes = {}
    for name, make in views.items():
        plain, boxes[name] = render_with_boxes(make(public()), spec)
        grid = union(boxes[name])
        for i in range(25):
            tiles = tuple(KEY[i] if k == i else None for k in range(25))
            probe = render(make(public(revealed=tiles)), spec)
            diff = ImageChops.difference(plain.convert("L"), probe.convert("L")).crop(grid)
            changed = diff.getbbox()
            assert changed is not None, (name, i)
            x0, y0, x1, y1 = changed
            changed = (x0 + grid[0], y0 + grid[1], x1 + grid[0], y1 + grid[1])
            assert inside(changed, boxes[name][i]), (name, i, changed, boxes[name][i])
    assert boxes["operatives"][0] == boxes["spymasters"][24]
    assert boxes["operatives"][24] == boxes["spymasters"][0]


# ----- cells ---------------------------------------------------------------------------------


def cell_picture(look: ClassicLook, size: int) -> bytes:
    image = Image.new("1", (size, size), 1)
    draw_classic_cell(ImageDraw.Draw(image), (0, 0, size, size), look)
    return image.tobytes()


CELL_SIZES = sorted({screen.layout(panel(m, r)).cell - 1 for m, r in ALL_MOUNTS})


@pytest.mark.parametrize("size", CELL_SIZES)
def test_every_cell_look_is_a_different_picture(size):
    """Four colours, covered or not, framed or not, and the operatives' unknown word:
    every look a cell can have is its own picture (a bystander looks like an unknown
    word only where nothing else could tell them apart: uncovered, on the spymasters'
    screen a bystander; on the operatives' an uncovered word)."""
    looks = [
        ClassicLook(colour, covered, framed)
        for colour in Colour
        for covered in (False, True)
        for framed in (False, True)
    ]
    pictures = {cell_picture(look, size) for look in looks}
    assert len(pictures) == len(looks) == 16
    assert cell_picture(ClassicLook(None), size) == cell_picture(
        ClassicLook(Colour.BYSTANDER), size
    )


def test_red_and_blue_differ_in_shape_not_only_in_ink():
    """Red: a disc; blue: a diamond. A disc's box has white corners and its widest
    row is half way down; a diamond's widest row too, but its top row is one pixel."""
    size = 30
    for colour, top_row_max in ((Colour.RED, 12), (Colour.BLUE, 1)):
        image = Image.new("1", (size, size), 1)
        draw_classic_cell(ImageDraw.Draw(image), (0, 0, size, size), ClassicLook(colour))
        x0, y0, x1, y1 = black_bbox(image)
        px = image.load()
        top = sum(1 for x in range(size) if px[x, y0] == 0)
        assert 1 <= top <= top_row_max, colour
        assert px[x0, y0] == 1 and px[x1 - 1, y1 - 1] == 1  # both leave the corners white
        ink = sum(1 for x in range(size) for y in range(size) if px[x, y] == 0)
        assert 0.15 * size * size < ink < 0.35 * size * size  # about the same ink
    red = Image.new("1", (size, size), 1)
    draw_classic_cell(ImageDraw.Draw(red), (0, 0, size, size), ClassicLook(Colour.RED))
    x0, y0, x1, y1 = black_bbox(red)
    assert sum(1 for x in range(size) if red.load()[x, y0] == 0) > 3  # a disc's flat top


# ----- strings -----------------------------------------------------------------------------

CLASSIC_TABLES = (
    "classic_headline",
    "classic_sub",
    "classic_last",
    "classic_reject",
    "classic_note",
)
# A clue's number as drawn (the digits are all one width; unlimited is "∞") and
# the guesses its plus one leaves (0..10).
WORST_NUMBERS = ("8", "\u221e")
WORST_GUESSES = ("10", "0")


def classic_texts(lang: str) -> list[tuple[str, str, str]]:
    """(table, key, text) of every classic string as the screen draws it."""
    out = []
    for table in CLASSIC_TABLES:
        for key, text in strings(lang)[table].items():
            if "{n}" in text:
                out += [
                    (table, key, text.format(n=n, left=left))
                    for n in WORST_NUMBERS
                    for left in WORST_GUESSES
                ]
            else:
                out.append((table, key, text))
    return out


@pytest.mark.parametrize(("model", "rotation"), ALL_MOUNTS)
@pytest.mark.parametrize("timed", [False, True])
def test_every_classic_string_fits_its_box(model, rotation, timed):
    lay = screen.layout(panel(model, rotation), timed)
    slots = lay.slots()
    misfits = []
    for lang in languages():
        for table, key, text in classic_texts(lang):
            for box in slots[table]:
                if not fits(text, box):
                    lines = wrap(text, box.size, box.w)
                    misfits.append(f"{lang} {table}.{key} {text!r}: {lines} in {box.w}px")
    for tally in lay.teams:
        for n in "0123456789":
            if not fits(n, tally.text):
                misfits.append(f"agents left {n} in {tally.text}")
    if timed:
        assert lay.timer is not None
        for seconds in (0, 5, 59, 60, 90, TIMER_MAX):
            if not fits(screen.timer_text(seconds), lay.timer.text):
                misfits.append(f"timer {seconds}")
    assert not misfits, "\n".join(misfits)


def test_the_classic_strings_are_measured_by_the_house_test_too():
    """tests/test_layouts.py measures every table's strings in its slot's boxes:
    the classic tables are among the slots it knows."""
    slots = text_slots(panel("epd2in13_V4"))
    assert set(CLASSIC_TABLES) <= set(slots)


def test_the_screens_ask_for_exactly_the_strings_there_are():
    asked: dict[str, set[str]] = {t: set() for t in CLASSIC_TABLES}
    for starting in Team:
        for team in Team:
            for stage in (ClassicStage.AWAITING_CLUE, ClassicStage.GUESSING):
                guessing = stage is ClassicStage.GUESSING
                # A clue with no number, for 2 (three guesses), for 0 and unlimited.
                numbers = ((None, None), ("2", 2), ("0", None), ("unlimited", None))
                for number, guesses in numbers if guessing else ((None, None),):
                    for penalty in (False, True) if guessing else (False,):
                        p = public(
                            starting=starting,
                            stage=stage,
                            team=team,
                            clue_number=number,
                            guesses_left=guesses,
                            penalty=penalty,
                        )
                        asked["classic_headline"].add(screen.headline(p)[0])
                        asked["classic_sub"].add(screen.sub(p)[0])
                        if not guessing:  # the spymasters choosing the clue's number
                            asked["classic_sub"].add(screen.sub(p, "2")[0])
            for win in Win:
                p = public(stage=ClassicStage.OVER, team=None, winner=team, win=win)
                asked["classic_headline"].add(screen.headline(p)[0])
                asked["classic_sub"].add(screen.sub(p)[0])
    for kind in ClassicLastKind:
        if kind is ClassicLastKind.REJECTED:
            continue
        for colour, team in ((c, t) for c in (Colour.RED, Colour.BLUE) for t in Team):
            for turn_over in (False, True):
                for stage in (ClassicStage.GUESSING, ClassicStage.OVER):
                    last = ClassicLast(kind, team, 3, colour, turn_over)
                    over = stage is ClassicStage.OVER
                    p = public(
                        stage=stage,
                        team=None if over else Team.RED,
                        winner=Team.RED if over else None,
                        win=Win.ALL_FOUND if over else None,
                        last=last,
                    )
                    table, key = screen.last_key(p)
                    asked[table].add(key)
    for reason in RejectReason:  # every code the rules have
        p = public(last=ClassicLast(ClassicLastKind.REJECTED, reject=reason.value))
        table, key = screen.last_key(p)
        asked[table].add(key)
    for kw in (
        dict(cannot_save=True),
        dict(input_lost=True),
        dict(timer=0),
        dict(panel_failed="spymasters"),
        dict(panel_failed="operatives"),
    ):
        asked["classic_note"].add(screen.note_key(public(**kw)))
    for note in STAND_NOTES:
        asked["classic_note"].add(screen.message_key(public(note=note))[1])
    for end in END_LINES:
        over = public(stage=ClassicStage.OVER, team=None, winner=Team.RED, win=Win.ALL_FOUND)
        asked["classic_note"].add(screen.message_key(replace(over, end=end))[1])
    for lang in languages():
        table = strings(lang)
        for name, keys in asked.items():
            assert keys == set(table[name]), f"{lang} [{name}]"


def test_every_result_of_the_rules_has_a_last_input():
    assert set(classic_views._LAST) == set(Result)


# ----- the column ---------------------------------------------------------------------------


@pytest.mark.parametrize(("model", "rotation"), ALL_MOUNTS)
@pytest.mark.parametrize("timed", [False, True])
def test_the_classic_screen_has_room_for_everything(model, rotation, timed):
    spec = panel(model, rotation)
    canvas = (0, 0, *spec.size)
    lay = screen.layout(spec, timed)
    assert (lay.timer is not None) is timed
    _, boxes = render_with_boxes(OperativesView(public(timer=60 if timed else None)), spec)
    grid = union(boxes)
    frame = (grid[0] - 2, grid[1] - 2, grid[2] + 2, grid[3] + 2)
    assert inside(frame, canvas)
    blocks = lay.blocks()
    for k, block in enumerate(blocks):
        assert inside(block, lay.status) and inside(block, canvas), block
        assert disjoint(block, frame)
        for other in blocks[k + 1 :]:
            assert disjoint(block, other), (block, other)
    for tally in (*lay.teams, *([lay.timer] if lay.timer else [])):
        # The digits' ink (not the font's whole line) and the sign, inside the frame.
        t = tally.text
        top, bottom = digits(t.size)
        ink = (t.x, t.y + top, t.x + t.w, t.y + bottom)
        frame_inside = (tally.box[0] + 1, tally.box[1] + 1, tally.box[2] - 1, tally.box[3] - 1)
        assert inside(tally.sign, frame_inside) and inside(ink, frame_inside), tally
        assert disjoint(tally.sign, ink)
    assert grid[2] - grid[0] >= 0.7 * min(spec.size)


def headline_inverted(view: SpymastersView | OperativesView, model: str = "epd2in9_V2") -> bool:
    spec = panel(model)
    x0, y0, x1, y1 = screen.layout(spec, view.public.timer is not None).bar
    image = render(view, spec)
    return image.getpixel((x0, y0)) == 0 and image.getpixel((x1 - 1, y1 - 1)) == 0


def test_the_headline_is_inverted_when_the_people_facing_the_screen_must_act():
    """The spymasters give the clue and cover a word for a penalty; the operatives
    guess; nobody acts once it is over."""
    states = {
        "start": Classic.start(ClassicCard.from_code(CODE)),
        "guessing": final("mid"),
        "over": final("end"),
    }
    expect = {"start": (True, False), "guessing": (False, True), "over": (False, False)}
    for name, state in states.items():
        spy, ops = expect[name]
        assert headline_inverted(classic_views.spymasters(state)) is spy, name
        assert headline_inverted(classic_views.operatives(state)) is ops, name
    pending = final("penalty")
    assert headline_inverted(classic_views.spymasters(pending, Context(penalty_pending=True)))
    assert not headline_inverted(classic_views.operatives(pending, Context(penalty_pending=True)))


def test_the_counter_of_the_team_the_headline_names_is_inverted():
    spec = panel("epd2in7_V2")
    lay = screen.layout(spec)
    for team in Team:
        image = render(OperativesView(public(team=team)), spec)
        for tally, t in zip(lay.teams, Team, strict=True):
            x0, y0, _, _ = tally.box
            assert (image.getpixel((x0 + 1, y0 + 1)) == 0) is (t is team)


def test_a_fault_shows_before_a_refusal_and_a_refusal_before_time_up():
    spec = panel("epd2in13_V4")
    refused = ClassicLast(ClassicLastKind.REJECTED, cell=3, reject="covered")
    key = screen.message_key
    assert key(public(last=refused, cannot_save=True)) == ("classic_note", "cannot_save")
    assert key(public(last=refused, input_lost=True)) == ("classic_note", "input_lost")
    assert key(public(last=refused, timer=0)) == ("classic_reject", "covered")
    clue = ClassicLast(ClassicLastKind.CLUE, Team.RED)
    assert key(public(last=clue, timer=0)) == ("classic_note", "time_up")
    assert key(public(last=clue, timer=1)) == ("classic_last", "clue")
    box = screen.layout(spec, timed=True).frame
    a = render(OperativesView(public(last=refused, cannot_save=True)), spec)
    b = render(OperativesView(public(cannot_save=True)), spec)
    assert same(a.crop(box), b.crop(box))
    assert black_bbox(b.crop(box)) is not None


def test_an_unknown_refusal_code_is_shown_not_a_crash():
    last = ClassicLast(ClassicLastKind.REJECTED, reject="new_code")
    assert black_bbox(render(OperativesView(public(last=last)), panel("epd2in7_V2"))) is not None


# ----- the timer --------------------------------------------------------------------------


def test_the_timer_is_drawn_coarsely_and_never_shows_less_than_is_left():
    for seconds in range(0, TIMER_MAX + 1):
        shown = screen.timer_shown(seconds)
        assert shown >= seconds
        step = 1 if seconds <= 5 else 10 if seconds <= 60 else 30
        assert shown - seconds < step
        nxt = screen.next_change(seconds)
        if seconds == 0:
            assert nxt is None
            continue
        assert nxt is not None and nxt < seconds
        assert screen.timer_shown(nxt) != shown
        assert all(screen.timer_shown(s) == shown for s in range(nxt + 1, seconds + 1))
    # A two-minute turn is 14 pictures: 2:00 1:30 1:00 0:50 ... 0:10, the last five
    # seconds, then 0:00.
    frames = {screen.timer_text(s) for s in range(0, 121)}
    assert sorted(frames) == sorted(
        ["2:00", "1:30", "1:00", "0:50", "0:40", "0:30", "0:20", "0:10"]
        + [f"0:0{k}" for k in range(6)]
    )
    with pytest.raises(ValueError, match="timer"):
        screen.timer_shown(-1)


@pytest.mark.parametrize("model", MODELS)
def test_the_picture_changes_only_when_the_shown_time_does(model):
    spec = panel(model)
    state = final("mid")
    pictures = {
        s: render(classic_views.operatives(state, Context(timer=s)), spec) for s in range(0, 96)
    }
    for s in range(1, 96):
        changed = not same(pictures[s], pictures[s - 1])
        assert changed is (screen.timer_shown(s) != screen.timer_shown(s - 1)), s
    # The last seconds inverted; time up said in words.
    lay = screen.layout(spec, timed=True)
    assert lay.timer is not None
    x0, y0, _, _ = lay.timer.box
    assert pictures[5].getpixel((x0 + 1, y0 + 1)) == 0
    assert pictures[6].getpixel((x0 + 1, y0 + 1)) == 1
    assert screen.message_key(classic_views.operatives(state, Context(timer=0)).public) == (
        "classic_note",
        "time_up",
    )


# ----- goldens ------------------------------------------------------------------------------

# name: (script or None for the start, screen, keyword arguments for the view)
SCENES: dict[str, tuple[str | None, str, dict[str, object]]] = {
    "start-spymasters": (None, "spymasters", {}),
    "mid-spymasters": ("mid", "spymasters", {"timer": 75}),
    "mid-operatives": ("mid", "operatives", {"timer": 75}),
    "seconds-operatives": ("mid", "operatives", {"timer": 4}),
    "penalty-spymasters": ("penalty", "spymasters", {"penalty_pending": True}),
    "penalty-operatives": ("penalty", "operatives", {"penalty_pending": True}),
    # The spymasters choose their clue's number on their keys (their screen only).
    "number-spymasters": (None, "spymasters", {"number": "2"}),
    "unlimited-operatives": ("unlimited", "operatives", {}),
    # The clue's last guess (its number plus one) found an agent: the turn is over.
    "used-up-operatives": ("used_up", "operatives", {}),
    "end-spymasters": ("end", "spymasters", {}),
    # The end held back for undo: the operatives see the tiles only; then the key.
    "end-held-operatives": ("end", "operatives", {"reveal": False}),
    "end-operatives": ("end", "operatives", {}),
    # The other screen fails: that panel cannot say so, this one does.
    "mid-spymasters-panel-failed": (
        "mid",
        "spymasters",
        {"timer": 75, "partner_panel_failed": True},
    ),
    "end-operatives-panel-failed": ("end", "operatives", {"partner_panel_failed": True}),
}
DE_RU = ("de", "ru")
# (scene, language, portrait): every scene in English, the mid-game and the clue's
# number in German and Russian, and mounted on end.
GOLDENS = [
    *((name, "en", False) for name in SCENES),
    *(
        (name, lang, False)
        for name in (
            "mid-spymasters",
            "mid-operatives",
            "number-spymasters",
            "unlimited-operatives",
            "used-up-operatives",
        )
        for lang in ("de", "ru")
    ),
    ("mid-spymasters", "en", True),
    ("mid-operatives", "en", True),
]


def golden_image(model: str, name: str, lang: str, portrait: bool) -> Image.Image:
    spec = panel(model)
    if portrait:
        spec = panel(model, 0 if spec.rotation else 90)
    script, which, kw = SCENES[name]
    state = final(script) if script else Classic.start(ClassicCard.from_code(CODE))
    view = getattr(classic_views, which)(state, Context(**kw))
    return render(view, spec, lang)


def golden_path(model: str, name: str, lang: str, portrait: bool) -> Path:
    suffix = ("" if lang == "en" else f"-{lang}") + ("-portrait" if portrait else "")
    return GOLDEN / model / f"{name}{suffix}.png"


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize(("name", "lang", "portrait"), GOLDENS)
def test_golden(model, name, lang, portrait, tmp_path):
    image = golden_image(model, name, lang, portrait)
    path = golden_path(model, name, lang, portrait)
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        image.save(path, optimize=True)
    assert path.is_file(), f"no golden {path}: run with KEYSTAND_UPDATE_GOLDEN=1 and look at it"
    with Image.open(path) as stored:
        stored.load()
    if not same(image, stored):
        got = tmp_path / path.name
        image.save(got)
        raise AssertionError(f"{path.relative_to(ROOT)} differs; this run drew {got}")


def contact_sheet() -> Image.Image:
    """Every classic golden, a row of scenes per panel, at real pixel size, captioned."""
    label, title = font(12), font(16)
    gap, pad = 10, 16
    sections = []
    for model in MODELS:
        tiles = []
        for name, lang, portrait in GOLDENS:
            with Image.open(golden_path(model, name, lang, portrait)) as im:
                im.load()
            caption = (
                name + ("" if lang == "en" else f" ({lang})") + (" portrait" if portrait else "")
            )
            tiles.append((caption, im.convert("L")))
        sections.append((model, tiles))
    per_row = 4
    plans, width, height = [], 0, 0
    for model, tiles in sections:
        rows = [tiles[k : k + per_row] for k in range(0, len(tiles), per_row)]
        row_h = [max(im.height for _, im in row) + 18 for row in rows]
        width = max(width, *(sum(im.width + gap for _, im in row) for row in rows))
        height += 26 + sum(row_h) + gap * len(rows) + pad
        plans.append((model, rows, row_h))
    sheet = Image.new("L", (width + 2 * pad, height + pad), 200)
    draw = ImageDraw.Draw(sheet)
    draw.fontmode = "1"
    y = pad
    for model, rows, row_h in plans:
        spec = panel(model)
        draw.text((pad, y), f"{model}  {spec.diagonal}  {spec.size[0]}x{spec.size[1]}", font=title)
        y += 26
        for row, h in zip(rows, row_h, strict=True):
            x = pad
            for caption, im in row:
                draw.text((x, y), caption, font=label, fill=0)
                sheet.paste(im, (x, y + 16))
                x += im.width + gap
            y += h + gap
        y += pad
    return sheet.convert("P", palette=Image.Palette.ADAPTIVE, colors=4)


def test_contact_sheet_is_current():
    """docs/classic-screens.png shows exactly the classic goldens."""
    sheet = contact_sheet()
    if UPDATE:
        sheet.save(SHEET, optimize=True)
    with Image.open(SHEET) as stored:
        stored.load()
    assert same(sheet.convert("L"), stored.convert("L")), "docs/classic-screens.png is out of date"


def test_a_view_without_a_timer_draws_no_timer():
    spec = panel("epd2in13_V4")
    state = final("mid")
    plain = render(classic_views.operatives(state), spec)
    timed = render(classic_views.operatives(state, Context(timer=75)), spec)
    assert not same(plain, timed)
    untimed = screen.layout(spec, timed=False)
    assert untimed.timer is None and untimed == screen.layout(spec)
    # The counters take the whole row: nothing is drawn where no timer is.
    assert untimed.teams[1].box[2] == untimed.status[2]
