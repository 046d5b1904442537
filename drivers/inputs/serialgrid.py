"""The touch grid over USB serial: the KSGRID line protocol (docs/grid-protocol.md)
on pyserial, the touch filter, and health reports.

`GridParser` turns bytes into messages and never raises: noise, broken and
overlong frames are counted and dropped, a '$' always starts afresh, and
missing sequence numbers are counted (every state frame carries every cell,
so the next one heals whatever was lost). `SerialGrid` opens the port in its
own thread, asks for a hello, feeds the filter with the newest state, asks
again (Q, answered by hello and state) when a keep-alive is overdue, and
when the port goes away (unplugged) or falls silent says LOST, feeds the
filter every cell as unknown, and keeps reopening and asking until the grid
says hello again (BACK) and sends its state. Unknown is not clear: the
filter keeps the contacts it last knew, so a finger that rested across the
gap is the same contact in that state, not a new one, and a reconnect never
doubles a touch. A grid whose firmware reports a sensor fault is LOST
too, with the firmware's words; so is one whose hello names another shape
than the game's grid (`rows` x `cols`, which the host passes; 5x5 by default).

pyserial is imported only when the driver opens a port.
"""

from __future__ import annotations

import binascii
import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .base import Emit, Health, HealthReport, InputDriver, InputError, Report
from .events import Touch
from .touchfilter import Cell, Orientation, TouchFilter

PROTOCOL = "KSGRID"
VERSION = 1
ROWS = COLS = 5  # the default grid's shape, Duet's and classic's
MAX_BODY = 60
MAX_FRAME = MAX_BODY + 7  # '$' body '*' CRC(4) '\n'
SEQ_MOD = 1000
# The board repeats its whole state at least every REST_S at rest (every 250 ms
# while the contacts move; a board of before every 250 ms always): no good frame
# for SILENT_AFTER is a silent grid. Two rest periods and a second: one lost
# keep-alive is not a lost grid (docs/grid-protocol.md, "Why these choices").
# Half of it, a keep-alive overdue by half a second, the host asks with Q, so
# that it is not two lost keep-alives either: the board answers at once.
REST_S = 3.0
SILENT_AFTER = 2 * REST_S + 1.0
EPS = 1e-6  # a wait of x seconds counts as x (sums of float steps drift)


# What a frame's body and checksum may hold: bytes.translate deletes these and
# anything left over is a fault (in C: the host reads every frame, issue 33).
BODY_BYTES = bytes(b for b in range(0x20, 0x7F) if b not in b"$*")
HEX_DIGITS = b"0123456789ABCDEF"


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF); "123456789" -> 0x29B1.
    The standard library's CRC-CCITT, started at 0xFFFF: the firmware's own
    bitwise loop (gridproto.crc16) took a tenth of a frame's read here."""
    return binascii.crc_hqx(data, 0xFFFF)


def frame(body: str) -> bytes:
    """A frame as the wire carries it: $BODY*CRC\\n."""
    raw = body.encode("ascii")
    return b"$" + raw + b"*" + f"{crc16(raw):04X}".encode() + b"\n"


@dataclass(frozen=True)
class Hello:
    seq: int
    version: int
    rows: int
    cols: int
    firmware: str


@dataclass(frozen=True)
class State:
    """The grid's contacts after a change (`kind` T) or periodically (S)."""

    seq: int
    kind: str
    cells: frozenset[Cell]


@dataclass(frozen=True)
class Fault:
    """The firmware's word on its sensors: code 'sensor' (one does not answer,
    `text` says which) or 'ok'."""

    seq: int
    code: str
    text: str


Message = Hello | State | Fault


@dataclass
class LinkStats:
    frames: int = 0  # good frames
    dropped: int = 0  # begun and thrown away: bad checksum, bad field, overlong
    missing: int = 0  # sequence numbers never seen
    noise: int = 0  # bytes outside any frame


@dataclass
class GridParser:
    """Bytes in, messages out (see the module doc). States are read for a grid
    of `rows` x `cols` (set from the hello)."""

    rows: int = ROWS
    cols: int = COLS
    stats: LinkStats = field(default_factory=LinkStats)
    _buf: bytearray = field(default_factory=bytearray)
    _inside: bool = False
    _expect: int | None = None

    def feed(self, data: bytes) -> list[Message]:
        out: list[Message] = []
        for byte in data:
            if byte == 0x24:  # '$'
                if self._inside:
                    self.stats.dropped += 1
                self._inside = True
                self._buf.clear()
            elif not self._inside:
                if byte not in (0x0A, 0x0D):
                    self.stats.noise += 1
            elif byte == 0x0D:
                continue
            elif byte == 0x0A:
                self._inside = False
                message = self._message(bytes(self._buf))
                if message is None:
                    self.stats.dropped += 1
                else:
                    out.append(message)
            elif len(self._buf) >= MAX_FRAME - 2:
                self._inside = False
                self.stats.dropped += 1
            else:
                self._buf.append(byte)
        return out

    def _message(self, raw: bytes) -> Message | None:
        star = len(raw) - 5
        if not 1 <= star <= MAX_BODY or raw[star] != 0x2A:
            return None
        body, digits = raw[:star], raw[star + 1 :]
        if body.translate(None, BODY_BYTES) or digits.translate(None, HEX_DIGITS):
            return None
        if int(digits, 16) != crc16(body):
            return None
        fields = body.decode("ascii").split(",")
        message = self._fields(fields)
        if message is None:
            return None
        self.stats.frames += 1
        if isinstance(message, Hello):
            self._expect = None  # the grid started again
            self.rows, self.cols = message.rows, message.cols  # its states' shape from now
        if self._expect is not None:
            self.stats.missing += (message.seq - self._expect) % SEQ_MOD
        self._expect = (message.seq + 1) % SEQ_MOD
        return message

    def _fields(self, fields: list[str]) -> Message | None:
        if len(fields) < 2 or not _number(fields[0], SEQ_MOD):
            return None
        seq, kind, args = int(fields[0]), fields[1], fields[2:]
        if kind == "H" and len(args) == 5 and args[0] == PROTOCOL:
            if all(_number(a, 100) for a in args[1:4]):
                return Hello(seq, int(args[1]), int(args[2]), int(args[3]), args[4])
        elif kind in ("T", "S") and len(args) == 1:
            cells = self.rows * self.cols
            digits = args[0]
            if len(digits) == (cells + 3) // 4 and all(c in "0123456789ABCDEF" for c in digits):
                bits = int(digits, 16)
                if bits >> cells == 0:
                    return State(seq, kind, frozenset(_cells(bits, self.cols, cells)))
        elif kind == "F" and len(args) == 2 and args[0] in ("sensor", "ok"):
            return Fault(seq, args[0], args[1])
        return None


def _number(text: str, limit: int) -> bool:
    return 0 < len(text) <= 3 and text.isascii() and text.isdigit() and int(text) < limit


def _cells(bits: int, cols: int, cells: int) -> list[Cell]:
    return [divmod(i, cols) for i in range(cells) if bits >> i & 1]


class SerialGrid(InputDriver):
    """The serial touch grid on `port` (a device path, better a
    /dev/serial/by-id/ name that survives replugging, or a pyserial URL)."""

    name = "grid"

    def __init__(
        self,
        port: str,
        *,
        baudrate: int = 115200,
        rows: int = ROWS,
        cols: int = COLS,
        touch_filter: TouchFilter | None = None,
        orientation: Orientation | None = None,
        silent_after: float = SILENT_AFTER,
        ask_every: float = 1.0,
        reopen_every: float = 1.0,
        read_timeout: float = 0.02,
        idle_timeout: float | None = None,
        query_after: float | None = None,
        serial_for_url: Callable[..., Any] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not isinstance(port, str) or not port:
            raise ValueError(f"serial grid port {port!r}: a device path such as /dev/ttyACM0")
        for name, value in (
            ("silent_after", silent_after),
            ("ask_every", ask_every),
            ("reopen_every", reopen_every),
            ("read_timeout", read_timeout),
        ):
            if isinstance(value, bool) or not (isinstance(value, int | float) and 0 < value <= 60):
                raise ValueError(f"serial grid {name} {value!r}: seconds, above 0 and up to 60")
        self.port = port
        self.baudrate = baudrate
        self.rows, self.cols = rows, cols
        self.filter = touch_filter or TouchFilter(rows=rows, cols=cols, clock=clock)
        self.orientation = orientation or Orientation(rows=rows, cols=cols)
        self.silent_after = float(silent_after)
        self.ask_every = float(ask_every)
        self.reopen_every = float(reopen_every)
        self.read_timeout = float(read_timeout)
        # With no finger on the grid nothing is timed between the board's frames
        # (one every REST_S at rest): a read waits for the next byte up to half
        # of silent_after (3.5 s with the defaults), not 20 ms, longer than the
        # board's rest period, so the frames alone wake an idle stand's thread
        # (issue 33). A timeout is a keep-alive lost: the host asks (Q) and then
        # waits no longer than the next Q or the silence, so a grid is found
        # silent at silent_after, not up to a timeout later.
        self.idle_timeout = self.silent_after / 2 if idle_timeout is None else idle_timeout
        if not 0 < self.idle_timeout <= 60:
            raise ValueError(
                f"serial grid idle_timeout {idle_timeout!r}: seconds, above 0 and up to 60"
            )
        # No good frame for query_after (half of silent_after, 3.5 s: a keep-alive
        # overdue) and the host asks with Q, again every ask_every, until a frame
        # comes or silent_after runs out. It is the idle read's own timeout that
        # finds it, so a grid at rest that loses nothing is never asked.
        self.query_after = self.silent_after / 2 if query_after is None else query_after
        if not 0 < self.query_after < self.silent_after:
            raise ValueError(
                f"serial grid query_after {query_after!r}: seconds, above 0 and below "
                f"silent_after {self.silent_after}"
            )
        self.clock = clock
        self._serial_for_url = serial_for_url
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._emit: Emit = lambda event: None
        self._report: Report = lambda report: None
        self._serial: Any = None
        self.parser = GridParser()
        self.hello: Hello | None = None  # the grid's hello on this connection
        self._contacts: frozenset[Cell] | None = None  # None: lost, or no state since hello
        self._skip_state = False  # the next state is the one a hello brings
        self._heard = 0.0  # when a good frame last came
        self._asked = float("-inf")  # when we last sent Q
        self._sent = 0  # the host's own sequence number, the next Q's
        self._why_lost = ""  # link trouble, '' when fine
        self._fault = ""  # the firmware's sensor fault, '' when none
        self._said: Health | None = None
        self.opened = 0  # how many times the port was opened (replugs + 1)

    # -- the InputDriver interface ------------------------------------------------

    def start(self, emit: Emit, report: Report) -> None:
        if self._serial_for_url is None:
            try:
                import serial  # only a serial-grid build needs pyserial
            except ImportError as e:
                raise InputError("the serial grid needs pyserial (pip install pyserial)") from e
            self._serial_for_url = serial.serial_for_url
        self._emit, self._report = emit, report
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="serial-grid", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()
        self._thread = None
        self._close()

    # -- the work ---------------------------------------------------------------------

    def _run(self) -> None:
        now = self.clock()  # the last pass's time: the next read's timeout counts from it
        while not self._stop.is_set():
            if self._serial is None and not self._open():
                self._stop.wait(self.reopen_every)
                continue
            try:
                wanted = self._timeout(now)
                if self._serial.timeout != wanted:
                    self._serial.timeout = wanted
                data = self._read()
                now = self.clock()
                for message in self.parser.feed(data):
                    self._take(message, now)
                self._keep_alive(now)
            except (OSError, ValueError) as e:  # SerialException is an OSError
                self._close()
                self._lose(f"the grid on {self.port} went away: unplugged? ({_short(e)})")
                continue
            self._filter(now)

    def _timeout(self, now: float) -> float:
        """How long the next read may wait for a first byte: 20 ms while a
        finger's touch is timed, else the idle timeout, and no longer than
        the next `Q` while the grid has not said hello, nor than the next `Q`
        or the silence after it. After a pass that took a good frame that is
        the idle timeout itself (query_after, with the defaults): the port's
        timeout, a tcsetattr to change, stays as it is at rest."""
        if not self.filter.settled:  # a touch being timed (a cup left on a card is not)
            return self.read_timeout
        if self.hello is None:
            return min(self.idle_timeout, self.ask_every)
        quiet = now - self._heard  # 0.0 after a good frame: exact, not a float's drift
        asked = self._asked - self._heard  # above 0: asked since the last good frame
        if self._fault:  # not asked (_keep_alive): only the silence
            left = self.silent_after - quiet
        elif asked > 0:
            left = min(asked + self.ask_every, self.silent_after) - quiet
        else:
            left = max(self.query_after, asked + self.ask_every) - quiet
        return max(0.0, min(self.idle_timeout, left))

    def _read(self) -> bytes:
        """What the port has, waiting (up to its timeout) for a first byte: a frame
        that wakes the read is read whole, in one pass (a read of one byte
        returned the rest to the next pass: two passes a frame, issue 33)."""
        data: bytes = self._serial.read(max(1, self._serial.in_waiting))
        if data and (more := self._serial.in_waiting):
            data += self._serial.read(more)
        return data

    def _open(self) -> bool:
        try:
            assert self._serial_for_url is not None
            self._serial = self._serial_for_url(
                self.port, baudrate=self.baudrate, timeout=self.read_timeout, exclusive=True
            )
        except (OSError, ValueError) as e:
            self._serial = None
            self._lose(f"no grid at {self.port} ({_short(e)})")
            return False
        self.opened += 1
        self.hello = None
        self.parser = GridParser()
        self._asked = float("-inf")
        self._heard = self.clock()
        return True

    def _close(self) -> None:
        if self._serial is not None:
            with contextlib.suppress(OSError):  # it is gone already
                self._serial.close()
            self._serial = None

    def _take(self, message: Message, now: float) -> None:
        if isinstance(message, Hello):
            wanted = (VERSION, self.rows, self.cols)
            if (message.version, message.rows, message.cols) != wanted:
                self.hello = None
                self._lose(
                    f"the grid speaks {PROTOCOL} {message.version} for {message.rows}x"
                    f"{message.cols}; this stand needs version {VERSION} for "
                    f"{self.rows}x{self.cols} (firmware {message.firmware!r})"
                )
                return
            self.hello = message
            self._fault = ""  # a board that booted says its faults again
            # The state that comes with a hello is not taken: a board that has
            # just booted sends it before its first reading (all clear, a
            # finger or not). The next state follows within 250 ms (the board
            # repeats its state every 250 ms for 2 s after a hello).
            self._contacts, self._skip_state = None, True
        if self.hello is None:
            return  # a grid that has not said hello yet: size and version unknown
        self._heard = now
        if isinstance(message, State):
            if self._skip_state:
                self._skip_state = False
            else:
                self._contacts = message.cells
        elif isinstance(message, Fault):
            self._fault = "" if message.code == "ok" else f"grid sensor fault: {message.text}"
        self._why_lost = ""
        self._tell()

    def _keep_alive(self, now: float) -> None:
        quiet = now - self._heard
        if self.hello is not None and quiet >= self.silent_after - EPS:
            self.hello = None
            self._lose(f"the grid on {self.port} fell silent")
        # Asking for the hello, or a keep-alive overdue: the board answers Q with
        # its hello and state at once. Not while it reports a sensor fault: that
        # repeats every second, and the hello would clear the fault until the next.
        overdue = quiet >= self.query_after - EPS and not self._fault
        if (self.hello is None or overdue) and now - self._asked >= self.ask_every - EPS:
            self._asked = now
            self._serial.write(frame(f"{self._sent},Q"))
            self._sent = (self._sent + 1) % SEQ_MOD  # each side counts its own frames

    def _lose(self, why: str) -> None:
        self._why_lost = why
        self._contacts = None
        self._tell()

    def _tell(self) -> None:
        """Report a change of health (not every new reason while lost)."""
        why = self._why_lost or self._fault
        if why:
            health = Health.LOST
        elif self._said is None:
            health = Health.CONNECTED
        elif self._said is Health.LOST:
            health = Health.BACK
        else:
            return
        if health is not self._said:
            self._said = health
            self._report(HealthReport(self.name, health, why or self._connected()))

    def _connected(self) -> str:
        firmware = self.hello.firmware if self.hello else "?"
        return f"grid on {self.port} (firmware {firmware})"

    def _filter(self, now: float) -> None:
        if self._contacts is None:  # lost, or back but no state yet
            cell = self.filter.feed((), now, unknown=self.filter.every_cell)
        else:
            cell = self.filter.feed(self._contacts, now)
        if cell is not None:
            self._emit(Touch(*self.orientation.to_table(cell)))


def _short(e: BaseException) -> str:
    text = str(e) or type(e).__name__
    return text if len(text) <= 80 else text[:77] + "..."
