"""systemd's side of the notify protocol, for tests: a real AF_UNIX datagram
socket that keeps every message with the time the kernel stamped on it."""

from __future__ import annotations

import socket
import struct
import threading
import time

SO_TIMESTAMP = 29  # Linux: the kernel stamps each datagram when it is sent


class Listener:
    """systemd's side: a datagram socket that keeps every message with the
    kernel's send time."""

    def __init__(self, address: str | bytes) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(address)
        self.sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMP, 1)
        self.sock.settimeout(0.05)
        self.messages: list[tuple[float, dict[str, str]]] = []
        self.lock = threading.Lock()
        self.running = True
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        while self.running:
            try:
                data, anc, _, _ = self.sock.recvmsg(4096, socket.CMSG_SPACE(16))
            except TimeoutError:
                continue
            sent = time.time()
            for level, kind, raw in anc:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMP:
                    sec, usec = struct.unpack("qq", raw[:16])
                    sent = sec + usec / 1e6
            fields = dict(line.split("=", 1) for line in data.decode().splitlines())
            with self.lock:
                self.messages.append((sent, fields))

    def all(self) -> list[tuple[float, dict[str, str]]]:
        with self.lock:
            return list(self.messages)

    def pings(self) -> list[float]:
        return [t for t, m in self.all() if m.get("WATCHDOG") == "1"]

    def wait_for(self, check, timeout: float = 60.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if check(self.all()):
                return True
            time.sleep(0.01)
        return check(self.all())

    def close(self) -> None:
        self.running = False
        self.thread.join()
        self.sock.close()
