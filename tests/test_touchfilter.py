"""The touch filter both grids share, and the grid's orientation on the table."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from keystand.drivers.inputs.touchfilter import Orientation, TouchFilter

DWELL, PALM, BOUNCE = 0.08, 0.04, 0.5
STEP = 0.01  # a sample every 10 ms, like the MPR121 poll


def make(stuck: float | None = 5.0) -> TouchFilter:
    return TouchFilter(dwell=DWELL, palm=PALM, bounce=BOUNCE, stuck=stuck)


def run(f: TouchFilter, plan: list[tuple[float, set]], start: float = 0.0) -> list:
    """Feed `plan` (seconds, contacts) sample by sample; return (time, cell) touches."""
    touches = []
    t = start
    for seconds, cells in plan:
        for _ in range(round(seconds / STEP)):
            cell = f.feed(cells, at=t)
            if cell is not None:
                touches.append((round(t, 3), cell))
            t = round(t + STEP, 6)
    return touches


def test_a_steady_finger_counts_once_when_the_dwell_has_run() -> None:
    f = make()
    touches = run(f, [(0.5, set()), (1.0, {(2, 3)}), (0.5, set())])
    assert touches == [(0.58, (2, 3))]  # 80 ms after it landed, not before, once
    assert (f.stats.touch, f.stats.hover) == (1, 0)


def test_a_hover_shorter_than_the_dwell_does_not_count() -> None:
    f = make()
    assert run(f, [(0.07, {(1, 1)}), (0.2, set())]) == []
    assert f.stats.hover == 1


def test_a_palm_over_several_cells_does_not_count_nor_does_the_finger_it_leaves() -> None:
    f = make()
    plan = [(0.3, {(1, 1), (1, 2), (2, 1)}), (0.5, {(1, 1)}), (0.2, set())]
    assert run(f, plan) == []
    assert f.stats.palm == 1
    # the next contact is a new episode and counts
    assert run(f, [(0.2, {(1, 1)})], start=2.0) == [(2.08, (1, 1))]


def test_a_flicker_of_a_second_cell_does_not_break_the_dwell() -> None:
    f = make()
    plan = [(0.05, {(0, 0)}), (0.02, {(0, 0), (4, 4)}), (0.2, {(0, 0)}), (0.1, set())]
    assert run(f, plan) == [(0.08, (0, 0))]
    # the dwell may run out under the flicker; the touch waits for the finger alone
    plan = [(0.07, {(1, 1)}), (0.03, {(1, 1), (4, 4)}), (0.2, {(1, 1)})]
    assert run(f, plan, start=5.0) == [(5.1, (1, 1))]


def test_a_second_contact_on_the_same_cell_soon_after_is_a_bounce() -> None:
    f = make()
    # a double tap: 150 ms, 100 ms off, 150 ms
    plan = [(0.15, {(3, 3)}), (0.1, set()), (0.15, {(3, 3)}), (0.1, set())]
    assert run(f, plan) == [(0.08, (3, 3))]
    assert f.stats.bounce == 1


def test_a_chain_of_quick_taps_is_one_touch_and_a_later_one_counts_again() -> None:
    f = make()
    taps = [(0.12, {(3, 3)}), (0.3, set())] * 4
    assert len(run(f, taps)) == 1
    # after the bounce window, the same word counts again (a real second touch)
    assert run(f, [(0.6, set()), (0.2, {(3, 3)})], start=10.0) == [(10.68, (3, 3))]


def test_a_blip_of_noise_on_the_word_does_not_stretch_the_bounce_window() -> None:
    f = make()
    plan = [(0.1, {(3, 3)}), (0.3, set()), (0.01, {(3, 3)}), (0.3, set()), (0.2, {(3, 3)})]
    assert [t for t, _ in run(f, plan)] == [0.08, 0.79]


def test_a_quick_touch_on_another_word_is_not_a_bounce() -> None:
    f = make()
    plan = [(0.12, {(3, 3)}), (0.05, set()), (0.12, {(3, 4)})]
    assert [cell for _, cell in run(f, plan)] == [(3, 3), (3, 4)]


def test_a_finger_sliding_to_the_next_word_makes_one_touch() -> None:
    f = make()
    plan = [(0.2, {(2, 2)}), (0.02, {(2, 2), (2, 3)}), (0.5, {(2, 3)}), (0.1, set())]
    assert [cell for _, cell in run(f, plan)] == [(2, 2)]


def test_a_cup_left_on_a_word_is_left_out_after_stuck_seconds() -> None:
    f = make()
    cup = (4, 0)
    plan = [(6.0, {cup}), (0.2, {cup, (1, 1)}), (0.1, {cup}), (0.2, {cup, (1, 2)})]
    # the cup itself counted once when it landed; later touches are not palms
    assert [cell for _, cell in run(f, plan)] == [cup, (1, 1), (1, 2)]
    assert f.stats.stuck == 1


def test_settled_only_when_nothing_is_left_to_time() -> None:
    """A driver may stop sampling when the filter is settled: no contact, or only
    stuck ones. A finger down, a touch counted but the finger still resting, a
    cup not yet stuck: each still has a time to run out (the dwell, the bounce
    window's last sighting, the stuck time)."""
    f = make()
    cup, finger = (4, 0), (1, 1)
    assert f.settled and f.idle
    looks = []
    for t, cells in [(0.0, {cup}), (0.1, {cup}), (4.9, {cup}), (5.0, {cup}), (9.0, {cup})]:
        f.feed(cells, at=t)
        looks.append(f.settled)
    assert looks == [False, False, False, True, True]
    assert not f.idle  # a contact, though a stuck one
    f.feed({cup, finger}, at=9.5)
    assert not f.settled  # a finger beside the cup: its dwell runs
    f.feed({cup}, at=9.7)
    assert f.settled
    f.feed(set(), at=10.0)
    assert f.settled and f.idle


def test_tick_lets_the_dwell_run_out_between_reports() -> None:
    f = make()
    assert f.feed({(0, 4)}, at=1.0) is None
    assert f.tick(at=1.05) is None
    assert f.tick(at=1.08) == (0, 4)
    assert f.tick(at=1.5) is None


def test_the_clock_is_injectable() -> None:
    now = [100.0]
    f = TouchFilter(dwell=0.1, clock=lambda: now[0])
    assert f.feed({(2, 2)}) is None
    now[0] = 100.1
    assert f.tick() == (2, 2)


# -- a grid that is lost and comes back ---------------------------------------------

ALL_CELLS = frozenset((r, c) for r in range(5) for c in range(5))


def run_lossy(f: TouchFilter, plan: list[tuple[float, set, frozenset]], start: float = 0.0):
    """As `run`, each step with the cells the grid cannot tell (`unknown`)."""
    touches = []
    t = start
    for seconds, cells, unknown in plan:
        for _ in range(round(seconds / STEP)):
            cell = f.feed(cells, at=t, unknown=unknown)
            if cell is not None:
                touches.append((round(t, 3), cell))
            t = round(t + STEP, 6)
    return touches


LOST = (set(), ALL_CELLS)  # what a driver feeds while the whole grid is lost


def test_a_finger_resting_across_a_loss_counts_once() -> None:
    """Longer than the bounce window away: the first full state after it shows
    the finger still there, and that is the same contact, not a new one."""
    f = make()
    plan = [(1.0, {(2, 2)}, frozenset()), (2.0, *LOST), (1.0, {(2, 2)}, frozenset())]
    assert run_lossy(f, plan) == [(0.08, (2, 2))]
    # lifted, and touched again after the bounce window: a new contact counts
    assert run(f, [(0.6, set()), (0.2, {(2, 2)})], start=4.0) == [(4.68, (2, 2))]


def test_a_finger_that_slid_on_while_the_grid_was_lost_is_the_same_episode() -> None:
    f = make()
    plan = [(0.5, {(2, 2)}, frozenset()), (2.0, *LOST), (1.0, {(2, 3)}, frozenset())]
    assert run_lossy(f, plan) == [(0.08, (2, 2))]
    assert run(f, [(0.2, set()), (0.2, {(2, 3)})], start=3.5) == [(3.78, (2, 3))]


def test_a_grid_seen_clear_when_it_is_back_ends_the_episode() -> None:
    f = make()
    plan = [(0.5, {(2, 2)}, frozenset()), (2.0, *LOST), (0.1, set(), frozenset())]
    assert run_lossy(f, plan) == [(0.08, (2, 2))]
    assert f.idle
    assert run(f, [(0.2, {(4, 0)})], start=2.6) == [(2.68, (4, 0))]


def test_a_contact_in_its_dwell_when_the_grid_went_counts_once_seen_for_the_dwell() -> None:
    f = make()
    plan = [(0.05, {(0, 4)}, frozenset()), (1.0, *LOST), (0.2, {(0, 4)}, frozenset())]
    assert run_lossy(f, plan) == [(1.13, (0, 4))]  # 80 ms after it was seen again


def test_no_touch_counts_on_a_cell_the_grid_cannot_see() -> None:
    f = make()
    hidden = frozenset({(0, 4)})
    # the finger was seen landing, then its cell went dark: the dwell stops
    plan = [(0.05, {(0, 4)}, frozenset()), (1.0, {(0, 4)}, hidden)]
    assert run_lossy(f, plan) == []


def test_part_of_the_grid_lost_touches_elsewhere_count() -> None:
    """A chip that stops answering: its cells are unknown, the others count."""
    f = make()
    row4 = frozenset((4, c) for c in range(5))
    plan = [(0.3, {(0, 0)}, row4), (0.6, set(), row4), (0.3, {(1, 1)}, row4)]
    assert [cell for _, cell in run_lossy(f, plan)] == [(0, 0), (1, 1)]


def test_a_finger_resting_on_the_lost_part_holds_its_episode() -> None:
    f = make()
    row4 = frozenset((4, c) for c in range(5))
    plan = [
        (0.3, {(4, 4)}, frozenset()),  # counted
        (0.5, set(), row4),  # its chip lost: the finger may rest still
        (0.3, {(4, 4)}, frozenset()),  # back, still there: no second touch
    ]
    assert run_lossy(f, plan) == [(0.08, (4, 4))]


def test_a_cup_stuck_before_a_loss_stays_left_out_after_it() -> None:
    f = make()
    cup = (4, 0)
    plan = [(6.0, {cup}, frozenset()), (1.0, *LOST), (0.3, {cup, (1, 1)}, frozenset())]
    assert [cell for _, cell in run_lossy(f, plan)] == [cup, (1, 1)]
    assert f.stats.stuck == 1


def test_every_cell_is_the_whole_grid() -> None:
    assert make().every_cell == ALL_CELLS
    assert len(TouchFilter(size=3).every_cell) == 9


@pytest.mark.parametrize(
    ("cells", "message"),
    [([(5, 0)], "0..4"), ([(1,)], r"expected \(row, col\)"), ([(1.0, 2)], "whole numbers")],
)
def test_a_bad_cell_is_refused_with_its_value(cells, message) -> None:
    with pytest.raises(ValueError, match=message):
        make().feed(cells, at=0.0)


@pytest.mark.parametrize(
    "kwargs",
    [{"dwell": -1}, {"bounce": "x"}, {"palm": 100}, {"stuck": 0.01}, {"dwell": True}],
)
def test_bad_times_are_refused(kwargs) -> None:
    with pytest.raises(ValueError, match="touch filter"):
        TouchFilter(**kwargs)


cells = st.tuples(st.integers(0, 4), st.integers(0, 4))
samples = st.lists(
    st.tuples(st.integers(1, 30), st.frozensets(cells, max_size=3)), min_size=1, max_size=40
)


@settings(max_examples=300, deadline=None)
@given(samples)
# A flicker of a second cell ending just before the dwell runs out (hypothesis found it).
@example(
    plan=[(3, frozenset({(1, 0)})), (4, frozenset({(0, 0), (1, 0)})), (2, frozenset({(1, 0)}))]
)
def test_touches_obey_the_rules_whatever_the_samples(plan) -> None:
    """Any sequence: at most one touch per episode, each after a dwell of one
    cell alone, never the same cell again within the bounce window."""
    f = make()
    t, history, touches, episodes, in_episode = 0.0, [], [], 0, False
    for steps, contacts in plan:
        for _ in range(steps):
            if contacts and not in_episode:
                episodes += 1
            in_episode = bool(contacts)
            history.append((t, contacts))
            cell = f.feed(contacts, at=t)
            if cell is not None:
                touches.append((t, cell, episodes))
            t = round(t + STEP, 6)
    assert len({ep for _, _, ep in touches}) == len(touches) <= episodes
    for when, cell, _ in touches:
        dwell = [c for tt, c in history if when - DWELL - 1e-9 <= tt <= when]
        assert all(cell in c for c in dwell)
        assert dwell[-1] == {cell}
        assert not palm_before(history, when)  # a flicker of a second cell may be; no palm
    for (t1, c1, _), (t2, c2, _) in itertools.pairwise(touches):
        if c1 == c2:  # the cell was free for the bounce window between the two contacts
            assert run_start(history, c2, t2) - run_end(history, c1, t1) >= BOUNCE - 1e-9


unknowns = st.one_of(st.just(frozenset()), st.just(ALL_CELLS), st.frozensets(cells))
lossy = st.lists(
    st.tuples(st.integers(1, 30), st.frozensets(cells, max_size=2), unknowns),
    min_size=1,
    max_size=40,
)


@settings(max_examples=300, deadline=None)
@given(lossy)
# A finger resting across a loss longer than the bounce window.
@example(
    plan=[
        (20, frozenset({(2, 2)}), frozenset()),
        (30, frozenset({(2, 2)}), ALL_CELLS),
        (30, frozenset({(2, 2)}), ALL_CELLS),
        (20, frozenset({(2, 2)}), frozenset()),
    ]
)
def test_one_touch_per_contact_whatever_the_grid_cannot_see(plan) -> None:
    """The fingers' truth, of which the grid sees only the cells it can tell at
    each step (none while it is lost): every run of contact on a cell yields at
    most one touch on it; a touch counts only on a cell that was seen, alone and
    in contact, for the dwell; and while the grid is either wholly lost or
    wholly seen, no stretch of contact (the truth's episode) yields two."""
    f = make(stuck=None)
    t, history, touches = 0.0, [], []
    for steps, contacts, unknown in plan:
        for _ in range(steps):
            history.append((t, contacts, unknown))
            cell = f.feed(contacts, at=t, unknown=unknown)
            if cell is not None:
                touches.append((t, cell))
            t = round(t + STEP, 6)
    for when, cell in touches:
        dwell = [(c, u) for tt, c, u in history if when - DWELL - 1e-9 <= tt <= when]
        assert all(cell in c and cell not in u for c, u in dwell)
        assert dwell[-1][0] - dwell[-1][1] == {cell}  # alone, of the cells seen
    runs = [contact_run(history, cell, when) for when, cell in touches]
    assert len(set(runs)) == len(runs)
    if all(u in (frozenset(), ALL_CELLS) for _, _, u in history):
        episodes = [episode_of(history, when) for when, _ in touches]
        assert len(set(episodes)) == len(episodes)


def contact_run(history, cell, when) -> tuple:
    """(cell, the first step of the unbroken run of truth with `cell` that holds `when`)."""
    start = when
    for tt, c, _ in reversed(history):
        if tt > when:
            continue
        if cell not in c:
            break
        start = tt
    return cell, start


def episode_of(history, when) -> float:
    """The first step of the truth's stretch of any contact that holds `when`."""
    start = when
    for tt, c, _ in reversed(history):
        if tt > when:
            continue
        if not c:
            break
        start = tt
    return start


def palm_before(history, when) -> bool:
    """Whether the episode that holds time `when` had several cells in contact
    for the palm time (its samples from the last empty one up to `when`)."""
    episode = []
    for tt, c in history:
        if tt > when:
            break
        episode = [] if not c else [*episode, (tt, c)]
    since = None
    for tt, c in episode:
        if len(c) > 1:
            since = tt if since is None else since
            if tt - since >= PALM - 1e-9:
                return True
        else:
            since = None
    return False


def run_end(history, cell, t) -> float:
    """The last sample of the unbroken run of samples with `cell` that holds time t."""
    later = [tt for tt, c in history if tt >= t]
    end = t
    for tt in later:
        if cell not in dict(history)[tt]:
            break
        end = tt
    return end


def run_start(history, cell, t) -> float:
    earlier = [tt for tt, c in history if tt <= t][::-1]
    start = t
    for tt in earlier:
        if cell not in dict(history)[tt]:
            break
        start = tt
    return start


# -- orientation ---------------------------------------------------------------

ALL = [Orientation(turns, mirror) for mirror in (False, True) for turns in range(4)]
GRID = [(r, c) for r in range(5) for c in range(5)]


@pytest.mark.parametrize("o", ALL, ids=str)
def test_each_orientation_is_a_bijection_and_to_grid_undoes_it(o) -> None:
    assert sorted(o.to_table(c) for c in GRID) == GRID
    assert all(o.to_grid(o.to_table(c)) == c for c in GRID)


def test_the_eight_orientations_are_different() -> None:
    assert len({tuple(o.to_table(c) for c in GRID) for o in ALL}) == 8


def test_the_convention_mirror_first_then_clockwise_turns() -> None:
    # a grid wired with its row 0 along seat A's right edge: one quarter turn
    assert Orientation(1).to_table((0, 0)) == (0, 4)
    assert Orientation(1).to_table((4, 0)) == (0, 0)
    assert Orientation(2).to_table((1, 2)) == (3, 2)
    assert Orientation(0, mirror=True).to_table((1, 0)) == (1, 4)
    assert Orientation(1, mirror=True).to_table((0, 0)) == (4, 4)


@pytest.mark.parametrize("o", ALL, ids=str)
def test_one_touch_on_the_top_left_word_finds_the_turns(o) -> None:
    touched = o.to_grid((0, 0))
    assert Orientation.from_corner(touched, mirror=o.mirror) == o
    # the menu sees the touch in table coordinates under whatever was set before
    for before in (Orientation(0, o.mirror), Orientation(3, o.mirror)):
        assert before.calibrated(before.to_table(touched)) == o


@pytest.mark.parametrize("o", ALL, ids=str)
def test_two_touches_find_turns_and_mirror(o) -> None:
    assert Orientation.from_corners(o.to_grid((0, 0)), o.to_grid((0, 4))) == o


def test_a_calibration_touch_off_the_corners_is_refused() -> None:
    with pytest.raises(ValueError, match=r"\(2, 2\): not a corner"):
        Orientation.from_corner((2, 2))
    with pytest.raises(ValueError, match="not two corners"):
        Orientation.from_corners((0, 0), (4, 4))


@pytest.mark.parametrize("o", ALL, ids=str)
def test_the_text_form_round_trips(o) -> None:
    assert Orientation.parse(str(o)) == o
    assert eval(repr(o)) == o


@pytest.mark.parametrize("text", ["", "45", "90 mirror", "90 mirrored x", "ninety"])
def test_a_bad_orientation_text_is_refused(text) -> None:
    with pytest.raises(ValueError, match="orientation"):
        Orientation.parse(text)


def test_bad_orientation_values_are_refused() -> None:
    with pytest.raises(ValueError, match="turns 4"):
        Orientation(4)
    with pytest.raises(ValueError, match="mirror"):
        Orientation(0, "yes")
