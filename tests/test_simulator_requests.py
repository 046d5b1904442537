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


def raw_post(url: str, head: bytes, body: bytes, *, half_close: bool = True) -> tuple[int, str]:
    """POST /input as bytes on a socket: `head` holds the header lines after the
    request line, `body` what is sent of the body; then the writing side is shut
    (the client has sent all it will). The status and the answer's error line."""
    host, port = url[len("http://") : -1].rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=30) as s:
        s.sendall(b"POST /input HTTP/1.1\r\nHost: x\r\n" + head + b"\r\n" + body)
        if half_close:
            s.shutdown(socket.SHUT_WR)
        answer = b""
        while chunk := s.recv(4096):
            answer += chunk
    status_line, _, rest = answer.partition(b"\r\n")
    payload = json.loads(rest.split(b"\r\n\r\n", 1)[1])
    return int(status_line.split()[1]), str(payload.get("error", payload.get("queued")))


@pytest.mark.parametrize(
    ("head", "body", "says"),
    [
        # "press A menu long" declared, cut to "press A menu" (another key press).
        (b"Content-Length: 17\r\n", b"press A menu", "the body ended after 12 of its 17 bytes"),
        (b"Content-Length: 9\r\nContent-Length: 3\r\n", b"touch 2 2", "2 Content-Length headers"),
        (b"Content-Length: 9\r\nContent-Length: 9\r\n", b"touch 2 2", "2 Content-Length headers"),
        (b"Content-Length: 9, 3\r\n", b"touch 2 2", "Content-Length '9, 3': expected a number"),
        (b"Content-Length: +9\r\n", b"touch 2 2", "Content-Length '+9': expected a number"),
        (b"Content-Length: \xd9\xa9\r\n", b"touch 2 2", "expected a number of bytes"),
        (b"", b"touch 2 2", "no Content-Length"),
        (b"Content-Length: 0\r\n", b"", "a body of 0 bytes"),
        (b"Content-Length: 201\r\n", b"touch 2 2" + b" " * 192, "a body of 201 bytes"),
        (b"Content-Length: 99999999999\r\n", b"touch 2 2", "expected a number of bytes"),
        (
            b"Transfer-Encoding: chunked\r\n",
            b"9\r\ntouch 2 2\r\n0\r\n\r\n",
            "a chunked body is not taken",
        ),
    ],
)
def test_a_body_not_exactly_its_one_length_is_refused_and_nothing_taken(
    page: tuple[SimulatorPage, list[object]], head: bytes, body: bytes, says: str
) -> None:
    """Over a raw socket, as a client that cuts its body short or sends two
    lengths would: one line, 400, nothing queued for the stand."""
    p, inputs = page
    code, error = raw_post(p.url, head, body)
    assert (code, inputs) == (400, [])
    assert says in error and error.endswith("nothing taken"), error
    assert "\n" not in error


def test_a_body_of_exactly_its_length_is_taken_over_a_raw_socket(
    page: tuple[SimulatorPage, list[object]],
) -> None:
    p, inputs = page
    assert raw_post(p.url, b"Content-Length: 17\r\n", b"press A menu long") == (
        200,
        "press A menu long",
    )
    assert inputs == [Press("A", KeyName.MENU, long=True)]
    # Bytes after the declared length are no part of the body (the connection
    # closes after one answer: they are never read as another request).
    assert raw_post(p.url, b"Content-Length: 9\r\n", b"touch 2 2touch 3 3") == (200, "touch 2 2")
    assert inputs[1:] == [Touch(2, 2)]


def test_a_body_that_stops_arriving_is_refused_at_the_deadline() -> None:
    """A client that declares 17 bytes, sends 12 and waits (no half-close): the
    request's deadline ends it, and nothing is taken."""
    p, inputs = start(deadline=0.5)
    try:
        code, error = raw_post(p.url, b"Content-Length: 17\r\n", b"press A menu", half_close=False)
    finally:
        p.stop()
    assert (code, inputs) == (400, [])
    assert "did not arrive in time" in error
