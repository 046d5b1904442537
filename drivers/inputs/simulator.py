"""The simulator page: both seats' screens, the 5x5 table to click, the seat keys.

A small HTTP server on the loopback address only. It shows what the simulated
panels show (a frame appears when the panel has finished its refresh, as on the
real stand) and turns clicks into the same input events the real drivers emit.
It knows nothing of the game: the host passes it callables.
"""

from __future__ import annotations

import ipaddress
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any

from .events import InputEvent, Press, Touch, parse_line

MAX_BODY = 200


@dataclass(frozen=True)
class ScreenFrame:
    """What one seat's panel shows now: a counter that changes with the picture,
    and whether the panel is refreshing (and how). The picture itself is asked
    for only when the page fetches it, not on every status poll."""

    number: int
    busy: bool
    refresh: str | None
    model: str


class SimulatorPage:
    """Serves the page on `host:port` (port 0: any free one) until `stop()`."""

    def __init__(
        self,
        *,
        screens: Callable[[], dict[str, ScreenFrame]],
        png: Callable[[str], bytes | None],
        emit: Callable[[InputEvent], None],
        status: Callable[[], dict[str, Any]],
        host: str = "127.0.0.1",
        port: int = 8027,
    ) -> None:
        if not ipaddress.ip_address(host).is_loopback:
            raise ValueError(f"simulator page address {host}: only a loopback address is allowed")
        self.screens = screens
        self.png = png
        self.emit = emit
        self.status = status
        self._server = ThreadingHTTPServer((host, port), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="simulator-page", daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/"

    def start(self) -> SimulatorPage:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        page = self
        html = resources.files(__package__).joinpath("simulator.html").read_bytes()

        class Handler(BaseHTTPRequestHandler):
            server_version = "keystand-sim"

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
                    self._json(HTTPStatus.NOT_FOUND, {"error": f"nothing at {self.path}"})
                    return
                try:
                    length = int(self.headers.get("Content-Length", "0"))
                except ValueError:
                    length = -1
                if not 0 < length <= MAX_BODY:
                    self._json(HTTPStatus.BAD_REQUEST, {"error": "send one input line"})
                    return
                raw = self.rfile.read(length).decode("utf-8", "replace")
                line = raw.split("#", 1)[0].strip()
                try:
                    event = parse_line(line)
                    # What a table's hardware can do: touch a word, press a key. A
                    # bare "undo" or "clue A" would skip the two-seat undo.
                    if not isinstance(event, Touch | Press):
                        raise ValueError(f"{line!r}: the page sends touch and press lines only")
                except ValueError as e:
                    self._json(HTTPStatus.BAD_REQUEST, {"error": str(e)})
                    return
                page.emit(event)
                # Queued for the stand; the rules may still refuse it (see /status).
                self._json(HTTPStatus.OK, {"queued": str(event)})

        return Handler
