"""The simulator page's request handling: clients that send a byte now and then
cannot shut the page out (one deadline for a whole request, a cap on connections
that makes room for a new one), and a POST body is one line by the script rule."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from keystand.drivers.inputs import KeyName, Press, Touch
from keystand.drivers.inputs.simulator import MAX_CLIENTS, SimulatorPage

SLOW = 30  # more than MAX_CLIENTS


def start(deadline: float) -> tuple[SimulatorPage, list[object]]:
    inputs: list[object] = []
    # An idle time-out far longer than the trickle's gap: only the deadline can act.
    page = SimulatorPage(
        screens=dict,
        png=lambda seat: None,
        status=lambda: {"game": "g1"},
        port=0,
        idle_timeout=600,
        deadline=deadline,
    )
    page.start(inputs.append, print)
    return page, inputs


class Trickle:
    """`count` connections, each sending a request's first bytes and then one
    byte a gap, never the end of its headers: the slow client of issue 20."""

    def __init__(self, url: str, count: int, gap: float = 0.05) -> None:
        host, port = url[len("http://") : -1].rsplit(":", 1)
        self.socks = []
        for _ in range(count):
            s = socket.create_connection((host, int(port)), timeout=30)
            s.sendall(b"GET /status HTTP/1.0\r\n")
            self.socks.append(s)
        self.gap = gap
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.wait(self.gap):
            for s in self.socks:
                with contextlib.suppress(OSError):  # closed by the page
                    s.send(b"X")  # a header name that never ends

    def open_count(self) -> int:
        """How many the page has not closed (no end of file, no reset, to read)."""
        count = 0
        for s in self.socks:
            s.setblocking(False)
            try:
                closed = s.recv(1) == b""
            except BlockingIOError:
                closed = False
            except OSError:
                closed = True
            finally:
                s.setblocking(True)
            count += not closed
        return count

    def wait_closed(self, s: socket.socket, timeout: float = 60) -> bool:
        s.settimeout(timeout)
        try:
            return s.recv(100) == b""
        except ConnectionResetError:
            return True
        except TimeoutError:
            return False

    def close(self) -> None:
        self.stop.set()
        self.thread.join(10)
        for s in self.socks:
            s.close()


@pytest.fixture
def slow_page() -> Iterator[tuple[SimulatorPage, Trickle]]:
    page, _ = start(deadline=600)  # the slow clients stay while the test asks
    trickle = Trickle(page.url, SLOW)
    yield page, trickle
    trickle.close()
    page.stop()


def status(url: str) -> dict[str, object]:
    with urllib.request.urlopen(url + "status", timeout=30) as r:
        return json.load(r)


def test_a_request_is_answered_while_slow_clients_hang(
    slow_page: tuple[SimulatorPage, Trickle],
) -> None:
    page, trickle = slow_page
    for _ in range(3):  # each time: served, not dropped for want of a slot
        assert status(page.url)["game"] == "g1"
    still = trickle.open_count()
    assert 1 <= still <= MAX_CLIENTS - 1  # slow ones still held, never more than the cap


def test_the_deadline_closes_a_request_that_never_ends() -> None:
    """Each slow connection sends a byte every 50 ms (the 600 s idle time-out
    never fires) and is closed by the 0.5 s deadline; then the page answers."""
    page, _ = start(deadline=0.5)
    trickle = Trickle(page.url, 3)
    try:
        for s in trickle.socks:
            assert trickle.wait_closed(s), "the page kept a request that never ended"
        assert status(page.url)["game"] == "g1"
    finally:
        trickle.close()
        page.stop()


def post(url: str, body: bytes) -> tuple[int, dict[str, object]]:
    req = urllib.request.Request(url + "input", data=body, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


@pytest.fixture
def page() -> Iterator[tuple[SimulatorPage, list[object]]]:
    page, inputs = start(deadline=30)
    yield page, inputs
    page.stop()


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (b"touch\x0c2 2", "U+000C control character is not allowed"),
        (b"touch 2\x0b2", "U+000B control character is not allowed"),
        (b"touch 2 2\nclue A", "U+000A control character is not allowed"),
        (b"touch 2 2\rpress A clue", "U+000D control character is not allowed"),
        (b"press A\x00 clue", "U+0000 control character is not allowed"),
        (b"touch 2\xe2\x80\xa82", "U+2028 line separator is not allowed"),
        (b"touch 2 2\n\n", "U+000A control character is not allowed"),
    ],
)
def test_a_control_character_in_a_post_is_refused_as_in_a_script(
    page: tuple[SimulatorPage, list[object]], body: bytes, says: str
) -> None:
    p, inputs = page
    code, answer = post(p.url, body)
    assert code == 400
    assert says in str(answer["error"])
    assert inputs == []


@pytest.mark.parametrize(
    ("body", "event"),
    [
        (b"touch 2 2", Touch(2, 2)),
        (b"touch 2 2\n", Touch(2, 2)),  # one line end, as a script line has
        (b"touch 2 2\r\n", Touch(2, 2)),
        (b"touch\t2 2", Touch(2, 2)),  # a tab counts as a space in scripts too
        (b"press B undo # held", Press("B", KeyName.UNDO)),
    ],
)
def test_a_line_a_script_takes_the_page_takes(
    page: tuple[SimulatorPage, list[object]], body: bytes, event: object
) -> None:
    p, inputs = page
    assert post(p.url, body)[0] == 200
    assert inputs == [event]
