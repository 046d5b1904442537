"""Stopping never leaves the key on a panel: 200 stops at random moments during a
flood of inputs with slow simulated panels (most through `Service.shutdown`, some
by SIGTERM to `keystand run`). After every one, the last frame each panel shows
is the neutral picture, nothing follows it, and the journal holds every event
the stand accepted."""

from __future__ import annotations

import fcntl
import os
import pty
import random
import select
import signal
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

import pytest
from real_inputs import pi_profile

from keystand import screens
from keystand.drivers.display import SimPanel, Timing
from keystand.drivers.inputs import Act, KeyName, Press, Touch
from keystand.panel_worker import NEUTRAL
from keystand.rules import Seat, generate
from keystand.service import Phase, Service
from keystand.stand import Stand
from keystand.store import Store

IN_PROCESS = int(os.environ.get("KEYSTAND_STOPS", "190"))
BY_SIGNAL = 10
SLOW = Timing(full=0.02, fast=0.02, partial=0.01, source="test")  # caught mid-refresh


def flood(rng: random.Random) -> list[object]:
    events: list[object] = []
    for _ in range(400):
        roll = rng.random()
        if roll < 0.2:
            events.append(Act("clue", rng.choice("AB")))
        elif roll < 0.25:
            events.append(Act("pass", rng.choice("AB")))
        elif roll < 0.3:
            events.append(Press(rng.choice("AB"), rng.choice(list(KeyName))))
        else:
            events.append(Touch(rng.randrange(5), rng.randrange(5)))
    return events


class Seen:
    """Every frame each panel finished showing, with its tag, in order."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.frames: dict[Seat, list[object]] = {Seat.A: [], Seat.B: []}

    def __call__(self, seat: Seat, image: object, refresh: object, tag: object) -> None:
        with self.lock:
            self.frames[seat].append(tag)


def test_stops_at_random_moments_leave_the_neutral_picture_and_the_journal_whole(
    tmp_path: Path,
) -> None:
    rng = random.Random(8)
    for run in range(IN_PROCESS):
        root = tmp_path / f"s{run}"
        stand = Stand(Store(root), new_card=lambda r=run: generate(r))
        stand.boot()
        seen = Seen()
        panels = {
            Seat.A: SimPanel("epd2in13_V4", rotation=90, timing=SLOW),
            Seat.B: SimPanel("epd2in7_V2", rotation=90, timing=SLOW),
        }
        service = Service(
            stand,
            panels,
            render=screens.render,
            blank=screens.blank,
            describe=screens.public,
            idle_sleep=3600,
            tick=0.005,
            on_shown=seen,
        ).start()
        events = flood(rng)

        def feed(service: Service = service, events: list[object] = events) -> None:
            for event in events:
                service.submit(event)  # type: ignore[arg-type]
                time.sleep(0.0002)

        feeder = threading.Thread(target=feed)
        feeder.start()
        time.sleep(rng.uniform(0, 0.06))
        assert service.shutdown(30), f"stop {run}: the loop did not finish"
        feeder.join()

        assert service.snapshot.phase is Phase.STOPPED
        for seat, panel in panels.items():
            blank = screens.blank(stand, seat, panel).convert("1")
            assert panel.shown is not None
            assert panel.shown.tobytes() == blank.tobytes(), f"stop {run}: seat {seat.value}"
            assert seen.frames[seat][-1] == NEUTRAL, f"stop {run}: a frame after the neutral one"
            assert seen.frames[seat].count(NEUTRAL) == 1
            assert panel.asleep
        # The journal holds every accepted event: it replays to the state in memory.
        found = Store.reader(root).peek()
        assert found is not None and found[0] == stand.state, f"stop {run}"


def test_sigterm_blanks_the_screens_and_says_so(tmp_path: Path) -> None:
    rng = random.Random(9)
    for run in range(BY_SIGNAL):
        state = tmp_path / f"sig{run}"
        shown = tmp_path / f"shown{run}.log"
        script = tmp_path / f"flood{run}.txt"
        script.write_text("".join(f"{e}\nwait 2\n" for e in flood(rng) if str(e)[:5] != "press"))
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "keystand",
                "run",
                "--profile",
                "desktop",
                "--state-dir",
                str(state),
                "--speed",
                "0.01",
                "--no-page",
                "--script",
                str(script),
                "--shown-log",
                str(shown),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (shown.exists() and shown.stat().st_size):
            time.sleep(0.02)
        time.sleep(rng.uniform(0, 0.5))
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=90)
        assert proc.returncode == 0, err
        assert "keystand: stopping: blanking the screens..." in err
        assert "keystand: stopped; both screens show the neutral picture" in err
        lines = shown.read_text().splitlines()
        for seat in "AB":
            mine = [line for line in lines if line.startswith(f"{seat} ")]
            assert mine[-1] == f"{seat} neutral", f"run {run}: {mine[-3:]}"
            assert all(len(line.split()) == 3 for line in mine[:-1])  # SEAT GAME RECORDS
            assert "None" not in " ".join(mine)
        found = Store.reader(state).peek()
        assert found is not None
        records = int([ln for ln in lines if ln.startswith("A ")][-2].split()[2])
        assert len(found[0].log) + 1 >= records  # every shown event is in the journal


def test_a_loop_that_does_not_stop_still_blanks_the_panels(tmp_path: Path) -> None:
    """If the loop is stuck in an input (a hung disk), shutdown seals the panels
    with the neutral picture from outside and says the loop did not finish."""
    stand = Stand(Store(tmp_path), new_card=lambda: generate(3))
    stand.boot()
    release = threading.Event()
    seen = Seen()
    panels = {s: SimPanel("epd2in9_V2", rotation=90, speed=0) for s in Seat}
    service = Service(
        stand, panels, render=screens.render, blank=screens.blank, on_shown=seen
    ).start()
    service.drain(30)
    entered = threading.Event()

    def hang() -> None:  # the loop hangs here
        entered.set()
        release.wait(30)

    service.submit_then(hang)
    assert entered.wait(30)
    try:
        assert not service.shutdown(0.5)
        assert service.drain(30)
        for seat, panel in panels.items():
            assert seen.frames[seat][-1] == NEUTRAL
            blank = screens.blank(stand, seat, panel).convert("1")
            assert panel.shown is not None and panel.shown.tobytes() == blank.tobytes()
    finally:
        release.set()
        assert service.wait_stopped(30)
    assert seen.frames[Seat.A][-1] == NEUTRAL  # nothing drawn after, when the loop went on


def test_a_panel_stuck_at_stop_does_not_keep_the_other_awake(tmp_path: Path) -> None:
    """Seat A's panel hangs in a refresh (BUSY stuck, its timeout not yet up) when
    the stand stops: seat B still shows the neutral picture and is put to sleep,
    and only A is named as not blanked."""
    stand = Stand(Store(tmp_path), new_card=lambda: generate(3))
    stand.boot()
    hung, release = threading.Event(), threading.Event()

    class Hanging(SimPanel):
        hang = False
        slept = 0

        def _display(self, frame, refresh):
            if self.hang:
                hung.set()
                release.wait(30)
            return super()._display(frame, refresh)

        def sleep(self) -> None:
            self.slept += 1
            super().sleep()

    panels = {s: Hanging("epd2in9_V2", rotation=90, speed=0) for s in Seat}
    seen = Seen()
    service = Service(
        stand, panels, render=screens.render, blank=screens.blank, on_shown=seen
    ).start(stop_timeout=2.0)
    assert service.drain(30)
    panels[Seat.A].hang = True
    service.submit(Act("clue", "A"))
    assert hung.wait(30)
    try:
        assert service.shutdown(30)  # the loop finishes; A is given up after 2 s
        assert service.unblanked == ["A"]
        assert seen.frames[Seat.B][-1] == NEUTRAL
        assert panels[Seat.B].slept == 1 and panels[Seat.A].slept == 0
    finally:
        release.set()


class Gated(SimPanel):
    """A panel as slow as the test says: each frame waits for one `go`."""

    def __init__(self, model: str, go: threading.Semaphore, started: threading.Event) -> None:
        super().__init__(model, rotation=90, speed=0)
        self.go, self.started = go, started

    def _display(self, frame, refresh) -> None:  # type: ignore[no-untyped-def]
        self.started.set()
        assert self.go.acquire(timeout=60), "the test never let the frame finish"
        super()._display(frame, refresh)


def test_a_frame_finished_after_the_log_closed_is_still_logged(tmp_path: Path) -> None:
    """On a slow machine a panel can finish its neutral picture after the stop's
    deadline, when `keystand run` has closed the shown log: the line is still
    written (and fsynced), not lost with the process."""
    from keystand.run import ShownLog

    path = tmp_path / "shown.log"
    log = ShownLog(path)
    go = {seat: threading.Semaphore(0) for seat in Seat}
    started = {seat: threading.Event() for seat in Seat}
    stand = Stand(Store(tmp_path / "state"), new_card=lambda: generate(5))
    stand.boot()
    panels = {s: Gated("epd2in13_V4", go[s], started[s]) for s in Seat}
    service = Service(
        stand, panels, render=screens.render, blank=screens.blank, on_shown=log, idle_sleep=3600
    ).start()
    for seat in Seat:  # the first game frame, drawn
        assert started[seat].wait(30)
        started[seat].clear()
        go[seat].release()
    assert service.drain(30)
    # The stop times out (its panels hold the neutral picture), then the log closes.
    assert not service.shutdown(0.2)
    log.close()
    for seat in Seat:  # now the panels finish: the neutral picture (sealed twice over)
        assert started[seat].wait(30)
        for _ in range(5):
            go[seat].release()
    assert service.wait_stopped(30)
    for seat in Seat:
        assert service.workers[seat].wait_idle(30)
        assert service.workers[seat].stop(30)
    lines = path.read_text().splitlines()
    for seat in "AB":
        mine = [line for line in lines if line.startswith(f"{seat} ")]
        assert mine[0].split()[2] == "1", lines  # the game frame, then only neutral ones
        assert mine[1:] and set(mine[1:]) == {f"{seat} neutral"}, lines


PI_PROFILE = pi_profile("[]")


def _pump(fd: int, into: list[bytes], wait: float) -> bool:
    """What the stand wrote to its terminal or pipe, waiting at most `wait` for it;
    False once it is closed. (Read here, not in a thread: a thread blocked in a
    read keeps the pseudo-terminal open after the test closes it.)"""
    ready, _, _ = select.select([fd], [], [], wait)
    if not ready:
        return True
    try:
        chunk = os.read(fd, 4096)
    except OSError:  # EIO: the terminal's other side is gone
        return False
    into.append(chunk)
    return bool(chunk)


@pytest.mark.parametrize("how", ["signal", "terminal closed"])
def test_sighup_blanks_the_screens_like_sigterm(tmp_path: Path, how: str) -> None:
    """SIGHUP (the terminal or SSH session of a foreground `keystand run` closed)
    stops the stand as SIGTERM does: each seat's last shown picture is the
    neutral one. "terminal closed" runs the stand on a pseudo-terminal as its
    controlling terminal and closes it: the kernel sends the SIGHUP, and the
    stand's messages then meet a terminal that is gone."""
    profile = tmp_path / "pi.toml"
    profile.write_text(PI_PROFILE)
    script = tmp_path / "game.txt"
    script.write_text("clue A\ntouch 0 0\nwait 600000\n")  # then waits: the stand runs on
    shown = tmp_path / "shown.log"
    argv = [
        sys.executable,
        "-m",
        "keystand",
        "run",
        "--profile",
        str(profile),
        "--emulate",
        str(tmp_path / "out"),
        "--script",
        str(script),
        "--card-code",
        generate(4).code,
        "--speed",
        "0.01",
        "--state-dir",
        str(tmp_path / "state"),
        "--shown-log",
        str(shown),
    ]
    said: list[bytes] = []
    if how == "signal":
        proc = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
        )
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
    else:
        fd, slave = pty.openpty()
        proc = subprocess.Popen(
            argv,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            start_new_session=True,  # its own session, with the pty as its terminal:
            preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0),
        )
        os.close(slave)

    def both_show_the_touch() -> bool:  # start, clue, touch: the third record shown
        lines = shown.read_text().split("\n")[:-1] if shown.exists() else []
        fields = [line.split() for line in lines]
        return all(any(f[0] == s and len(f) == 3 and int(f[2]) >= 3 for f in fields) for s in "AB")

    deadline = time.monotonic() + 120
    while not both_show_the_touch() and time.monotonic() < deadline and proc.poll() is None:
        _pump(fd, said, 0.05)
    assert both_show_the_touch(), b"".join(said).decode(errors="replace")
    if how == "signal":
        proc.send_signal(signal.SIGHUP)
        while time.monotonic() < deadline + 120 and _pump(fd, said, 1):
            pass  # what it says while it stops, to the end
    else:
        os.close(fd)  # the terminal closes: the kernel hangs it up and sends SIGHUP
    proc.wait(timeout=120)
    text = b"".join(said).decode(errors="replace")
    lines = shown.read_text().splitlines()
    for seat in "AB":
        mine = [line for line in lines if line.startswith(f"{seat} ")]
        assert mine[-1] == f"{seat} neutral", (mine[-3:], text)
    assert proc.returncode == 0, text  # the stop went on to its end, terminal or not
    if how == "signal":
        assert "Traceback" not in text
        assert "keystand: stopped; both screens show the neutral picture" in text
