"""Seat keys as gpiozero input devices on MockFactory pins: press, release, long
press, bounce, two seats independent, pins that cannot be had, no thread at rest."""

from __future__ import annotations

import queue
import threading

import pytest

pytest.importorskip("gpiozero")

from gpiozero.pins.mock import MockFactory

from keystand.drivers.inputs import Health, InputError, KeyName, Press
from keystand.drivers.inputs.keys import SeatKeys

# The 2.7" HAT's keys are GPIO 5, 6, 13, 19; the second seat's HAT is rewired.
PINS = {
    "A": {"clue": 5, "pass": 6, "undo": 13, "menu": 19},
    "B": {"clue": 12, "pass": 16, "undo": 20, "menu": 21},
}
BOUNCE = 0.03
WAIT = 5.0  # how long a test waits for an event that must come (never a limit)
# The rig's hold: longer than any test, so a tap on a loaded machine is never
# taken for a hold; a test holds a key with `run_out`, the timer's own step.
HOLD = 10.0  # the most the driver takes


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def rig():
    factory = MockFactory()
    clock = Clock()
    events: queue.Queue = queue.Queue()
    reports: list = []
    keys = SeatKeys(PINS, hold_time=HOLD, bounce_time=BOUNCE, pin_factory=factory, clock=clock)
    keys.start(events.put, reports.append)
    yield keys, factory, clock, events, reports
    keys.stop()
    factory.reset()


def tap(factory, clock, pin: int, seconds: float = 0.1) -> None:
    """Press and let go; `seconds` of the fake clock in between (the real hold
    timer, HOLD long, does not run out)."""
    factory.pin(pin).drive_low()
    clock.advance(seconds)
    factory.pin(pin).drive_high()
    clock.advance(0.2)


def run_out(keys: SeatKeys, seat: str, key: str) -> None:
    """The hold timer of `seat`'s `key`, down now, runs out: what its thread does
    after the hold time, done here (and the thread let go)."""
    state = next(k for k in keys._keys if (k.seat, k.key) == (seat, KeyName(key)))
    timer, since = state.timer, state.down
    assert timer is not None and since is not None, f"{seat} {key} is not down"
    state.held(since)
    timer.cancel()
    timer.join(WAIT)


def drain(events: queue.Queue) -> list:
    out = []
    while not events.empty():
        out.append(events.get_nowait())
    return out


def test_start_reports_the_keys_connected(rig) -> None:
    _, _, _, _, reports = rig
    assert [(r.source, r.health) for r in reports] == [("keys", Health.CONNECTED)]
    assert "8 keys" in reports[0].detail


def test_a_press_is_emitted_when_the_key_is_let_go(rig) -> None:
    keys, factory, clock, events, _ = rig
    pin = factory.pin(keys.pin_of("A", "clue"))
    pin.drive_low()
    assert events.empty()  # it may still become a long press
    clock.advance(0.1)
    pin.drive_high()
    assert drain(events) == [Press("A", KeyName.CLUE)]


def test_each_key_gives_its_own_event(rig) -> None:
    _, factory, clock, events, _ = rig
    for seat, keys in PINS.items():
        for name, pin in keys.items():
            tap(factory, clock, pin)
            assert drain(events) == [Press(seat, KeyName(name))]


def test_a_long_press_is_emitted_once_while_held_and_the_release_adds_nothing(rig) -> None:
    keys, factory, clock, events, _ = rig
    pin = factory.pin(keys.pin_of("B", "menu"))
    pin.drive_low()
    run_out(keys, "B", "menu")
    assert events.get(timeout=WAIT) == Press("B", KeyName.MENU, long=True)
    clock.advance(2.0)
    pin.drive_high()
    clock.advance(0.005)  # release chatter after a long press
    pin.drive_low()
    pin.drive_high()
    assert drain(events) == []
    # the next ordinary press is a short one again
    clock.advance(1.0)
    tap(factory, clock, keys.pin_of("B", "menu"))
    assert drain(events) == [Press("B", KeyName.MENU)]


def test_contact_chatter_makes_one_press(rig) -> None:
    keys, factory, clock, events, _ = rig
    pin = factory.pin(keys.pin_of("A", "pass"))
    # chatter as the key goes down: 2 ms closed, 1 ms open, then held
    pin.drive_low()
    clock.advance(0.002)
    pin.drive_high()
    clock.advance(0.001)
    pin.drive_low()
    clock.advance(0.12)
    # chatter as it comes up
    pin.drive_high()
    clock.advance(0.002)
    pin.drive_low()
    clock.advance(0.003)
    pin.drive_high()
    assert drain(events) == [Press("A", KeyName.PASS)]


def test_a_blip_shorter_than_the_bounce_time_is_not_a_press(rig) -> None:
    keys, factory, clock, events, _ = rig
    tap(factory, clock, keys.pin_of("A", "undo"), seconds=BOUNCE / 3)
    assert drain(events) == []


def test_a_contact_opening_mid_press_does_not_double_it(rig) -> None:
    keys, factory, clock, events, _ = rig
    pin = factory.pin(keys.pin_of("A", "clue"))
    pin.drive_low()
    clock.advance(0.08)
    pin.drive_high()  # opens for 1 ms
    clock.advance(0.001)
    pin.drive_low()
    clock.advance(0.08)
    pin.drive_high()
    assert drain(events) == [Press("A", KeyName.CLUE)]


def test_two_presses_after_the_bounce_time_are_two(rig) -> None:
    keys, factory, clock, events, _ = rig
    tap(factory, clock, keys.pin_of("A", "clue"))
    tap(factory, clock, keys.pin_of("A", "clue"))
    assert drain(events) == [Press("A", KeyName.CLUE)] * 2


def test_the_two_seats_keys_are_independent(rig) -> None:
    keys, factory, clock, events, _ = rig
    a = factory.pin(keys.pin_of("A", "menu"))
    b = factory.pin(keys.pin_of("B", "clue"))
    a.drive_low()  # A holds the menu key ...
    run_out(keys, "A", "menu")
    assert events.get(timeout=WAIT) == Press("A", KeyName.MENU, long=True)
    clock.advance(0.01)
    b.drive_low()  # ... while B presses clue, overlapping, inside A's bounce time
    clock.advance(0.1)
    b.drive_high()
    assert events.get_nowait() == Press("B", KeyName.CLUE)
    clock.advance(0.1)
    a.drive_high()
    # B presses again at once: inside A's bounce time, not B's, so it counts
    tap(factory, clock, keys.pin_of("B", "clue"), seconds=0.1)
    assert drain(events) == [Press("B", KeyName.CLUE)]


def test_stop_releases_the_pins_and_nothing_more_is_emitted() -> None:
    factory = MockFactory()
    events: queue.Queue = queue.Queue()
    keys = SeatKeys(PINS, pin_factory=factory)
    keys.start(events.put, lambda r: None)
    keys.stop()
    factory.pin(5).drive_low()
    factory.pin(5).drive_high()
    assert events.empty()
    again = SeatKeys(PINS, pin_factory=factory)  # the pins are free again
    again.start(events.put, lambda r: None)
    again.stop()
    factory.reset()


def test_a_pin_in_use_is_an_input_error_naming_the_key_and_nothing_is_left_claimed() -> None:
    from gpiozero import LED

    factory = MockFactory()
    led = LED(20, pin_factory=factory)  # something else holds GPIO20
    keys = SeatKeys(PINS, pin_factory=factory)
    with pytest.raises(InputError, match="seat B key undo on GPIO20"):
        keys.start(lambda e: None, lambda r: None)
    led.close()
    keys.start(lambda e: None, lambda r: None)  # the keys claimed before were released
    keys.stop()
    factory.reset()


@pytest.mark.parametrize(
    ("pins", "message"),
    [
        ({"C": {"clue": 5}}, "seat 'C' is not A or B"),
        ({"A": {"enter": 5}}, "key 'enter' is not one of clue, pass, undo, menu"),
        ({"A": {"clue": 40}}, "pin 40 is not a BCM GPIO"),
        ({"A": {"clue": "5"}}, "pin '5' is not a BCM GPIO"),
        ({"A": {"clue": 5}, "B": {"menu": 5}}, "GPIO5 is given to both A clue and B menu"),
        ({"A": [5, 6]}, "expected {key: BCM pin}"),
        ({}, "seat keys"),
    ],
)
def test_a_bad_key_map_is_refused_naming_what_is_wrong(pins, message) -> None:
    with pytest.raises(ValueError, match=message.replace("{", r"\{").replace("}", r"\}")):
        SeatKeys(pins)


@pytest.mark.parametrize(
    "kwargs", [{"hold_time": 0}, {"hold_time": "1"}, {"bounce_time": 2.0}, {"bounce_time": -1}]
)
def test_bad_times_are_refused(kwargs) -> None:
    with pytest.raises(ValueError, match="seat keys"):
        SeatKeys(PINS, **kwargs)


def test_importing_the_driver_does_not_import_gpiozero() -> None:
    import subprocess
    import sys

    code = "import sys, keystand.drivers.inputs.keys; print('gpiozero' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def _hold_timers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("key-")]


def test_an_idle_stand_s_keys_keep_no_thread_of_their_own() -> None:
    """gpiozero's `Button` keeps a thread per key that wakes ten times a second
    for ever (its hold thread): eight keys, 80 wake-ups a second at rest. The
    driver's keys are plain input devices and time a hold only while one is down."""
    factory = MockFactory()
    before = set(threading.enumerate())
    keys = SeatKeys(PINS, pin_factory=factory)
    keys.start(lambda e: None, lambda r: None)
    try:
        assert set(threading.enumerate()) - before == set()
    finally:
        keys.stop()
        factory.reset()


def test_a_key_let_go_leaves_no_hold_timer_behind(rig) -> None:
    keys, factory, clock, events, _ = rig
    pin = factory.pin(keys.pin_of("A", "undo"))
    pin.drive_low()
    assert [t.name for t in _hold_timers()] == ["key-A-undo-hold"]
    clock.advance(0.1)
    pin.drive_high()
    for timer in _hold_timers():
        timer.join(WAIT)
    assert _hold_timers() == []
    assert drain(events) == [Press("A", KeyName.UNDO)]


def test_a_hold_that_runs_out_after_the_key_was_let_go_is_not_a_long_press(rig) -> None:
    """A hold timer cancelled too late (it was already running) must not make the
    short press, nor the next press of the key, a long one."""
    keys, factory, clock, events, _ = rig
    pin = factory.pin(keys.pin_of("A", "clue"))
    state = next(k for k in keys._keys if (k.seat, k.key) == ("A", KeyName.CLUE))
    pin.drive_low()
    first = state.down
    clock.advance(0.1)
    pin.drive_high()
    clock.advance(0.2)
    pin.drive_low()  # the next press, down before the first one's timer ran
    state.held(first)  # the first press's timer, late
    assert drain(events) == [Press("A", KeyName.CLUE)]
    run_out(keys, "A", "clue")
    assert events.get(timeout=WAIT) == Press("A", KeyName.CLUE, long=True)  # its own
    pin.drive_high()


def test_a_key_held_down_is_a_long_press_when_its_hold_timer_runs_out() -> None:
    """The timer's own thread, on a short hold: the key stays down until the long
    press comes (waited for, never timed), then goes up adding nothing."""
    factory = MockFactory()
    events: queue.Queue = queue.Queue()
    keys = SeatKeys(PINS, hold_time=0.05, bounce_time=BOUNCE, pin_factory=factory)
    keys.start(events.put, lambda r: None)
    try:
        pin = factory.pin(keys.pin_of("A", "menu"))
        pin.drive_low()
        assert events.get(timeout=WAIT) == Press("A", KeyName.MENU, long=True)
        pin.drive_high()
        assert drain(events) == []
    finally:
        keys.stop()
        factory.reset()
