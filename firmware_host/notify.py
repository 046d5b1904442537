"""systemd's notify protocol (sd_notify), standard library only.

Under `Type=notify` systemd passes `$NOTIFY_SOCKET` (a path, or `@name` for an
abstract socket) and, with `WatchdogSec=`, `$WATCHDOG_USEC` (and
`$WATCHDOG_PID`). A message is one datagram of `KEY=VALUE` lines: `READY=1`,
`STATUS=...` (what `systemctl status` shows), `WATCHDOG=1`, `STOPPING=1`.

`Heartbeat` is what the service loop calls on each of its turns: it sends
`WATCHDOG=1` at most every half of `WATCHDOG_USEC`, from the loop's own thread,
so a ping proves the loop is turning. A loop that hangs sends none, and systemd
kills and restarts the service. Without `$NOTIFY_SOCKET` (a desktop, a test)
everything here does nothing.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import socket

log = logging.getLogger(__name__)

SEND_TIMEOUT = 1.0  # seconds a message may wait for room in systemd's queue


class Notifier:
    """Datagrams to systemd's notify socket; nothing when there is none."""

    def __init__(self, address: str | None) -> None:
        self.address = address or None
        self._socket: socket.socket | None = None
        self._failed = False

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> Notifier:
        return cls(environ.get("NOTIFY_SOCKET"))

    @property
    def enabled(self) -> bool:
        return self.address is not None

    def _target(self) -> str | bytes:
        assert self.address is not None
        if self.address.startswith("@"):  # an abstract socket: a leading NUL byte
            return b"\0" + self.address[1:].encode()
        return self.address

    def send(self, **fields: str | int) -> bool:
        """One message (`send(READY=1, STATUS="...")`); False if it could not go.
        Never raises: systemd being away must not stop a game."""
        if self.address is None:
            return False
        text = "".join(f"{key}={_one_line(value)}\n" for key, value in fields.items())
        try:
            if self._socket is None:
                import socket  # only under systemd: a desktop run never loads it

                kind = socket.SOCK_DGRAM | socket.SOCK_CLOEXEC
                self._socket = socket.socket(socket.AF_UNIX, kind)
                # libsystemd blocks; a bounded wait keeps READY from being dropped when
                # systemd is slow to read, and a hung systemd from holding the loop.
                self._socket.settimeout(SEND_TIMEOUT)
            self._socket.sendto(text.encode(), self._target())
        except OSError as e:
            if not self._failed:  # once: a missing socket would say so every ping
                log.warning("systemd notify socket %s: %s", self.address, e.strerror or e)
                self._failed = True
            return False
        return True

    def ready(self, status: str) -> bool:
        return self.send(READY=1, STATUS=status)

    def status(self, status: str) -> bool:
        return self.send(STATUS=status)

    def stopping(self, status: str) -> bool:
        return self.send(STOPPING=1, STATUS=status)

    def watchdog(self) -> bool:
        return self.send(WATCHDOG=1)

    def close(self) -> None:
        if self._socket is not None:
            self._socket.close()
            self._socket = None


def _one_line(value: str | int) -> str:
    return " ".join(str(value).split())  # a newline would start another field


def watchdog_interval(environ: Mapping[str, str] = os.environ) -> float | None:
    """Seconds between pings: half of `$WATCHDOG_USEC`, as sd_watchdog_enabled(3)
    advises; None without a watchdog, or when `$WATCHDOG_PID` names another process."""
    usec = environ.get("WATCHDOG_USEC", "")
    pid = environ.get("WATCHDOG_PID", "")
    if not usec.isdigit() or int(usec) == 0:
        return None
    if pid and (not pid.isdigit() or int(pid) != os.getpid()):
        return None
    return int(usec) / 1_000_000 / 2


class Heartbeat:
    """Called by the service loop on each turn: `WATCHDOG=1` once `interval` has
    passed since the last ping, and `STATUS=` whenever `status()` says something new."""

    def __init__(
        self,
        notifier: Notifier,
        interval: float | None,
        *,
        status: Callable[[], str] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.notifier = notifier
        self.interval = interval
        self.status = status
        self.clock = clock
        self.pings = 0
        self._last: float | None = None
        self._said: str | None = None

    def due_in(self) -> float | None:
        """Seconds until the next ping is due (0: now); None without a watchdog."""
        if self.interval is None:
            return None
        if self._last is None:
            return 0.0
        return max(0.0, self._last + self.interval - self.clock())

    def __call__(self) -> None:
        if self.status is not None and self.notifier.enabled:
            try:
                line = self.status()
            except Exception:  # a status line must never stop the loop
                log.exception("cannot describe the stand for systemd")
                line = self._said or ""
            if line != self._said:
                self._said = line
                self.notifier.status(line)
        if self.interval is None:
            return
        now = self.clock()
        if self._last is None or now - self._last >= self.interval:
            self._last = now
            if self.notifier.watchdog():
                self.pings += 1


__all__ = ["Heartbeat", "Notifier", "watchdog_interval"]
