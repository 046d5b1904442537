"""systemd's notify protocol, over real AF_UNIX datagram sockets: the messages,
path and abstract addresses, the watchdog interval, and a ping that only a
turning service loop sends (a loop held in an input sends none)."""

from __future__ import annotations

import itertools
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sdnotify_listener import Listener

from keystand import screens
from keystand.drivers.display import SimPanel
from keystand.notify import Heartbeat, Notifier, watchdog_interval
from keystand.rules import Seat, generate
from keystand.service import Service
from keystand.stand import Stand
from keystand.store import Store


@pytest.fixture
def listener(tmp_path: Path) -> Iterator[Listener]:
    sock = Listener(str(tmp_path / "notify"))
    yield sock
    sock.close()


def test_messages_reach_a_path_socket(listener: Listener, tmp_path: Path) -> None:
    notifier = Notifier(str(tmp_path / "notify"))
    assert notifier.ready("ready: profile minimal")
    assert notifier.status("running: game 3,\nturn of A")  # one line, whatever it is given
    assert notifier.watchdog()
    assert notifier.stopping("stopping: blanking the screens")
    notifier.close()
    assert listener.wait_for(lambda m: len(m) == 4)
    assert [m for _, m in listener.all()] == [
        {"READY": "1", "STATUS": "ready: profile minimal"},
        {"STATUS": "running: game 3, turn of A"},
        {"WATCHDOG": "1"},
        {"STOPPING": "1", "STATUS": "stopping: blanking the screens"},
    ]


def test_messages_reach_an_abstract_socket() -> None:
    name = f"keystand-test-{os.getpid()}"
    sock = Listener(b"\0" + name.encode())
    try:
        notifier = Notifier.from_env({"NOTIFY_SOCKET": "@" + name})
        assert notifier.enabled and notifier.watchdog()
        assert sock.wait_for(lambda m: len(m) == 1)
        assert sock.all()[0][1] == {"WATCHDOG": "1"}
    finally:
        sock.close()


def test_without_a_socket_nothing_is_sent_and_nothing_fails(tmp_path: Path) -> None:
    assert not Notifier.from_env({}).enabled
    assert not Notifier.from_env({}).ready("ready")
    gone = Notifier(str(tmp_path / "nobody-listens"))
    assert not gone.watchdog()  # systemd away: False, never an exception
    assert not gone.watchdog()


def test_the_interval_is_half_of_watchdog_usec_for_this_process_only() -> None:
    assert watchdog_interval({"WATCHDOG_USEC": "30000000"}) == 15.0
    mine = str(os.getpid())
    assert watchdog_interval({"WATCHDOG_USEC": "2000000", "WATCHDOG_PID": mine}) == 1.0
    assert watchdog_interval({"WATCHDOG_USEC": "2000000", "WATCHDOG_PID": "1"}) is None
    assert watchdog_interval({"WATCHDOG_USEC": "0"}) is None
    assert watchdog_interval({"WATCHDOG_USEC": "soon"}) is None
    assert watchdog_interval({}) is None


def test_the_heartbeat_pings_once_per_interval_and_says_each_new_status(
    listener: Listener, tmp_path: Path
) -> None:
    now = [100.0]
    said = ["running: game 1"]
    beat = Heartbeat(
        Notifier(str(tmp_path / "notify")), 1.0, status=lambda: said[0], clock=lambda: now[0]
    )
    for step in range(41):  # the loop turns every 0.25 s for 10 s
        now[0] = 100.0 + step * 0.25
        if step == 20:
            said[0] = "running: game 2"
        beat()
    assert beat.pings == 11  # at 0, 1, ..., 10 s
    assert listener.wait_for(lambda m: len(m) == 13)
    statuses = [m["STATUS"] for _, m in listener.all() if "STATUS" in m]
    assert statuses == ["running: game 1", "running: game 2"]


def _service(root: Path, beat: Heartbeat) -> Service:
    stand = Stand(Store(root), new_card=lambda: generate(5))
    stand.boot()
    panels = {seat: SimPanel("epd2in13_V4", rotation=90, speed=0) for seat in Seat}
    return Service(
        stand,
        panels,
        render=screens.render,
        blank=screens.blank,
        tick=0.02,
        heartbeat=beat,
    )


def test_a_stuck_loop_stops_the_pings_and_a_free_one_sends_them_again(
    listener: Listener, tmp_path: Path
) -> None:
    interval = 0.1
    beat = Heartbeat(Notifier(str(tmp_path / "notify")), interval)
    stuck, release = threading.Event(), threading.Event()
    service = _service(tmp_path / "state", beat).start()
    try:
        assert listener.wait_for(lambda m: len(m) >= 3)  # the loop turns: it pings
        gaps = [b - a for a, b in itertools.pairwise(listener.pings())]
        assert min(gaps) >= interval * 0.95  # never more often than asked

        held_at: list[float] = []

        def hang() -> None:  # an input the loop cannot finish (a hung disk, a bug)
            held_at.append(time.time())  # the clock the kernel stamps datagrams with
            stuck.set()
            release.wait()

        service.submit_then(hang)
        assert stuck.wait(30)
        time.sleep(interval * 10)  # held for ten intervals
        released_at = time.time()
        release.set()
        assert listener.wait_for(
            lambda m: len([t for t in listener.pings() if t > held_at[0]]) >= 2
        )
        # By the kernel's stamps: not one ping while the loop was held, then pings again.
        assert min(t for t in listener.pings() if t > held_at[0]) >= released_at
    finally:
        release.set()
        assert service.shutdown(30)
