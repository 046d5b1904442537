"""The simulator page: both seats' screens, the table of words to click (the game's
grid, as the status names it), the seat keys.

A small HTTP server on the loopback address only. It shows what the simulated
panels show (a frame appears when the panel has finished its refresh, as on the
real stand) and turns clicks into the same input events the real drivers emit.
It knows nothing of the game: the host passes it callables.
"""

from __future__ import annotations

import contextlib
import io
import ipaddress
import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, HTTPServer, ThreadingHTTPServer
from importlib import resources
from typing import Any

from keystand.errors import KeystandError

from .base import Emit, InputDriver, Report
from .events import COLS, ROWS, InputEvent, Press, Touch, excerpt, parse_line
from .script import ScriptLineError, decode_line

MAX_BODY = 200  # bytes: one input line and its comment; a longer body is refused unread
MAX_CLIENTS = 16  # a page polls with one or two connections; more is a runaway client
EVICT_WAIT = 5.0  # seconds a new connection waits for an evicted one's thread to end


class _Deadline(io.RawIOBase):
    """A connection's reading side with one deadline for its whole request (request
    line, headers and body): each read waits only for the time left, so a client
    that sends a byte now and then cannot hold its thread past it (a per-read
    idle time-out never fires for it)."""

    def __init__(self, sock: socket.socket, seconds: float) -> None:
        super().__init__()
        self._sock = sock
        self._end = time.monotonic() + seconds

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        left = self._end - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request did not arrive whole in time")
        self._sock.settimeout(left)
        return self._sock.recv_into(buffer)


class _Server(ThreadingHTTPServer):
    """The page's server: at most `MAX_CLIENTS` connections (each a thread), and
    no traceback for a client that leaves before its answer (a closed tab, a
    reload).

    When all are taken, a new connection closes the oldest one still sending its
    request (a client being answered is never cut), so clients that open
    connections and send nothing cannot shut the page out; the request deadline
    closes them anyway."""

    daemon_threads = True
    request_queue_size = 64  # connections waiting to be accepted (socketserver's default is 5)

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> None:
        self._slots = threading.BoundedSemaphore(MAX_CLIENTS)
        self._lock = threading.Lock()
        self._reading: dict[socket.socket, None] = {}  # oldest first
        super().__init__(address, handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind asks DNS for the host's name (socket.getfqdn),
        # seconds of waiting for a loopback address on a machine with no network.
        socketserver_bind = super(HTTPServer, self).server_bind
        socketserver_bind()
        host, port = self.server_address[:2]
        self.server_name = str(host)
        self.server_port = int(port)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            self._evict_oldest()
            if not self._slots.acquire(timeout=EVICT_WAIT):
                self.shutdown_request(request)  # every slot is answering: this one is dropped
                return
        with self._lock:
            self._reading[request] = None
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._done(request)
            raise

    def _evict_oldest(self) -> None:
        with self._lock:
            oldest = next(iter(self._reading), None)
            if oldest is None:
                return
            del self._reading[oldest]
        with contextlib.suppress(OSError):  # already gone
            oldest.shutdown(socket.SHUT_RDWR)  # its thread's read ends; it frees its slot

    def request_read(self, request: Any) -> None:
        """`request` has sent its request whole: it is answered, never evicted."""
        with self._lock:
            self._reading.pop(request, None)

    def _done(self, request: Any) -> None:
        self.request_read(request)
        self._slots.release()

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._done(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client gone, a timed-out idle connection: nothing to report


@dataclass(frozen=True)
class ScreenFrame:
    """What one seat's panel shows now: a counter that changes with the picture,
    and whether the panel is refreshing (and how). The picture itself is asked
    for only when the page fetches it, not on every status poll."""

    number: int
    busy: bool
    refresh: str | None
    model: str


def _loopback(host: str) -> str:
    if host == "localhost":  # a name could resolve anywhere; the page binds an address
        return "127.0.0.1"
    try:
        if ipaddress.ip_address(host).is_loopback:
            return host
    except ValueError:
        pass
    raise ValueError(f"simulator page address {host}: only a loopback address is allowed")


class SimulatorPage(InputDriver):
    """Serves the page on `host:port` (port 0: any free one) from `start` until
    `stop()`. `screens`, `png` and `status` are read from the page's own threads:
    they must answer from data the service has published, not from live state."""

    name = "simulator"

    def __init__(
        self,
        *,
        screens: Callable[[], dict[str, ScreenFrame]],
        png: Callable[[str], bytes | None],
        status: Callable[[], dict[str, Any]],
        host: str = "127.0.0.1",
        port: int = 8027,
        idle_timeout: float = 10.0,
        deadline: float = 10.0,
        rows: int = ROWS,
        cols: int = COLS,
    ) -> None:
        self.host = _loopback(host)
        self.idle_timeout = idle_timeout  # for a client that does not read its answer
        self.deadline = deadline  # for a request (headers and body) to arrive whole
        self.port = port
        self.screens = screens
        self.png = png
        self.status = status
        self.rows, self.cols = rows, cols  # the grid until the status names the game's
        self.emit: Emit = _nowhere
        self._server: _Server | None = None

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("the simulator page is not started")
        host, port = self._server.server_address[:2]
        name = host.decode() if isinstance(host, bytes) else host
        return f"http://{name}:{port}/"

    def grid(self) -> tuple[int, int]:
        """(rows, cols) of the game in play, as the published status names it (a
        switch of games in the menu changes it), else the grid the page was made with."""
        shape = self.status().get("grid")
        if isinstance(shape, dict):
            rows, cols = shape.get("rows"), shape.get("cols")
            if type(rows) is int and type(cols) is int and rows > 0 and cols > 0:
                return rows, cols
        return self.rows, self.cols

    def start(self, emit: Emit, report: Report) -> None:
        """Bind and serve; OSError (the port is taken) is raised here, at once."""
        self.emit = emit
        self._server = _Server((self.host, self.port), self._handler())
        threading.Thread(
            target=self._server.serve_forever, name="simulator-page", daemon=True
        ).start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        page = self
        html = resources.files(__package__).joinpath("simulator.html").read_bytes()

        class Handler(BaseHTTPRequestHandler):
            timeout = page.idle_timeout  # a client that does not read its answer
            server_version = "keystand-sim"
            server: _Server

            def setup(self) -> None:
                super().setup()
                self.rfile.close()  # the socket closes only once its files are closed
                self.rfile = io.BufferedReader(_Deadline(self.connection, page.deadline))

            def _read(self) -> None:
                """The request has arrived whole: answer it at the idle time-out's pace."""
                self.server.request_read(self.request)
                self.connection.settimeout(page.idle_timeout)

            def log_message(self, format: str, *args: Any) -> None:  # quiet by default
                pass

            def _send(self, code: int, body: bytes, ctype: str) -> None:
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

            def _json(self, code: int, data: Any) -> None:
                self._send(code, json.dumps(data).encode(), "application/json")

            def do_GET(self) -> None:
                self._read()
                path = self.path.split("?", 1)[0]
                if path == "/":
                    self._send(HTTPStatus.OK, html, "text/html; charset=utf-8")
                elif path == "/status":
                    frames = page.screens()
                    data = {
                        "screens": {
                            seat: {
                                "frame": f.number,
                                "busy": f.busy,
                                "refresh": f.refresh,
                                "model": f.model,
                            }
                            for seat, f in frames.items()
                        },
                        **page.status(),
                        "grid": dict(zip(("rows", "cols"), page.grid(), strict=True)),
                    }
                    self._json(HTTPStatus.OK, data)
                elif path in ("/screen/A.png", "/screen/B.png"):
                    png = page.png(path[8])
                    if png is None:
                        self._json(HTTPStatus.NOT_FOUND, {"error": "no such seat"})
                    else:
                        self._send(HTTPStatus.OK, png, "image/png")
                else:
                    self._json(HTTPStatus.NOT_FOUND, {"error": f"nothing at {path}"})

            def do_POST(self) -> None:
                if self.path != "/input":
                    self._read()
                    self._json(HTTPStatus.NOT_FOUND, {"error": f"nothing at {self.path}"})
                    return
                try:
                    body = self._body()
                except _Refused as refused:
                    self._read()
                    self._json(HTTPStatus.BAD_REQUEST, {"error": f"{refused}: nothing taken"})
                    return
                self._read()
                try:
                    event = _page_event(body, *page.grid())
                except ValueError as e:
                    self._json(HTTPStatus.BAD_REQUEST, {"error": str(e)})
                    return
                page.emit(event)
                # Queued for the stand; the rules may still refuse it (see /status).
                self._json(HTTPStatus.OK, {"queued": str(event)})

            def _body(self) -> bytes:
                """The body, exactly as long as its one Content-Length says, or
                _Refused: a body cut short is another line ("press A menu long"
                cut to "press A menu" is another key), and two lengths leave it
                open which one the client meant."""
                return read_body(self.headers, self.rfile)

        return Handler


class _Refused(KeystandError, ValueError):
    """A POST whose body cannot be taken as sent (its length, its framing)."""


def read_body(headers: Any, rfile: Any) -> bytes:
    """The body of a request with `headers`, read from `rfile`: exactly its one
    Content-Length of bytes, 1 to MAX_BODY. _Refused, saying why, for anything
    else: no length or more than one (equal or not), one that is not plain ASCII
    digits, a chunked body, a length over the cap (nothing of it is read), a
    body that ends before its length or does not arrive in time."""
    if headers.get_all("Transfer-Encoding"):
        raise _Refused("a chunked body is not taken: send one line with a Content-Length")
    lengths = headers.get_all("Content-Length") or []
    if len(lengths) != 1:
        said = "no Content-Length" if not lengths else f"{len(lengths)} Content-Length headers"
        raise _Refused(f"{said}: send one line with one Content-Length")
    text = lengths[0].strip()
    if not (text.isascii() and text.isdigit()) or len(text) > 9:
        raise _Refused(f"Content-Length {excerpt(text, 12)}: expected a number of bytes")
    length = int(text)
    if not 0 < length <= MAX_BODY:
        raise _Refused(f"a body of {length} bytes: send one input line, 1 to {MAX_BODY} bytes")
    try:
        body = rfile.read(length)
    except TimeoutError:
        raise _Refused(f"the body of {length} bytes did not arrive in time") from None
    if len(body) != length:
        raise _Refused(f"the body ended after {len(body)} of its {length} bytes")
    return bytes(body)


PAGE_VERBS = ("touch", "press")  # what the page sends: what a table's hardware does


def _page_event(body: bytes, rows: int = ROWS, cols: int = COLS) -> InputEvent:
    """The event of a POST body: one line by the script rule (UTF-8, no control
    character but a tab, at most a line end after it: a form feed is refused, not
    taken as a space), and only what a table's hardware can do: touch a word,
    press a key (a bare "undo" or "clue A" would skip the two-seat undo)."""
    try:
        text = decode_line(body.removesuffix(b"\n"), line=1, source="the page")
    except ScriptLineError as e:
        raise ValueError(e.detail) from None
    line = text.split("#", 1)[0].strip()
    event = parse_line(line, rows, cols, takes=PAGE_VERBS)
    if not isinstance(event, Touch | Press):
        raise ValueError(f"{line!r}: the page sends touch and press lines only")
    return event


def _nowhere(event: InputEvent) -> None:
    raise RuntimeError(f"the simulator page is not started; {event} went nowhere")
