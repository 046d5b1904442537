"""The grid's side of the KSGRID line protocol (docs/grid-protocol.md), pure.

Runs unchanged under MicroPython on the board and under CPython in the
host's tests: no imports, nothing but ints, bytes and str; times are
milliseconds the caller passes in. `main.py` is the thin board layer that
feeds it sensor readings and host bytes and writes out what it returns.
"""

PROTOCOL = "KSGRID"
VERSION = 1
MAX_BODY = 60  # characters between '$' and '*'
MAX_FRAME = MAX_BODY + 7  # '$' body '*' four hex digits '\n'
SEQ_MOD = 1000
PERIOD_MS = 250  # full state at least this often while the contacts move...
SETTLE_MS = 2000  # ...that is, within this long of a change or a hello
REST_MS = 3000  # and at least this often at rest: the keep-alive
FAULT_REPEAT_MS = 1000
OUTBOX_FRAMES = 8  # frames kept for a host that has stopped reading


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE: polynomial 0x1021, start 0xFFFF, no reflection."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def frame(body: str) -> bytes:
    """One frame on the wire: $BODY*CRC\\n."""
    raw = body.encode()
    return b"$" + raw + b"*" + f"{crc16(raw):04X}".encode() + b"\n"


def _printable(raw: bytes) -> bool:
    return all(0x20 <= byte <= 0x7E and byte not in (0x24, 0x2A) for byte in raw)


def check(raw: bytes) -> str | None:
    """The body of one received frame (the bytes between '$' and '\\n', CR
    removed), or None if anything about it is wrong."""
    star = len(raw) - 5
    if star < 1 or star > MAX_BODY or raw[star] != 0x2A:
        return None
    body, digits = raw[:star], raw[star + 1 :]
    if not _printable(body):
        return None
    for byte in digits:
        if not (0x30 <= byte <= 0x39 or 0x41 <= byte <= 0x46):
            return None
    if int(digits.decode(), 16) != crc16(body):
        return None
    return body.decode()


class FrameReader:
    """Bytes in, bodies of good frames out; resynchronises on every '$'."""

    def __init__(self) -> None:
        self.buf = bytearray()
        self.inside = False
        self.dropped = 0  # frames begun and thrown away

    def feed(self, data: bytes) -> list:
        out = []
        for byte in data:
            if byte == 0x24:  # '$' starts a frame, whatever came before
                if self.inside:
                    self.dropped += 1
                self.inside = True
                self.buf = bytearray()
            elif not self.inside or byte == 0x0D:
                continue  # noise between frames; CR before LF
            elif byte == 0x0A:
                body = check(bytes(self.buf))
                self.inside = False
                if body is None:
                    self.dropped += 1
                else:
                    out.append(body)
            elif len(self.buf) >= MAX_FRAME - 2:
                self.inside = False  # overlong: wait for the next '$'
                self.dropped += 1
            else:
                self.buf.append(byte)
        return out


def is_seq(text: str) -> bool:
    """A sequence number: decimal, 0 to 999 (1 to 3 digits, as the host reads it)."""
    return 0 < len(text) <= 3 and all("0" <= ch <= "9" for ch in text)


def state_hex(bits: int, cells: int) -> str:
    digits = f"{bits:X}"
    width = (cells + 3) // 4
    return "0" * (width - len(digits)) + digits


def _clean(text: str, limit: int) -> str:
    out = ""
    for ch in text:
        out += ch if " " <= ch <= "~" and ch not in "$*," else "_"
    return out[:limit]


class GridLogic:
    """What the grid says, given what it senses and what the host asks."""

    def __init__(
        self,
        rows: int = 5,
        cols: int = 5,
        firmware: str = "keystand-grid",
        period_ms: int = PERIOD_MS,
        rest_ms: int = REST_MS,
        settle_ms: int = SETTLE_MS,
    ) -> None:
        self.rows = rows
        self.cols = cols
        self.firmware = _clean(firmware, 20)
        self.period_ms = period_ms
        self.rest_ms = rest_ms
        self.settle_ms = settle_ms
        self.reader = FrameReader()
        self.seq = 0
        self.state = 0
        self.sent_ms = None  # when a state last went out
        self.moved_ms = None  # when the contacts last changed, or a hello went out
        self.fault = ""
        self.fault_ms = 0

    def _frame(self, rest: str) -> bytes:
        out = frame(f"{self.seq},{rest}")
        self.seq = (self.seq + 1) % SEQ_MOD
        return out

    def _state(self, kind: str, now_ms: int) -> bytes:
        self.sent_ms = now_ms
        return self._frame(kind + "," + state_hex(self.state, self.rows * self.cols))

    def hello(self, now_ms: int) -> list:
        """Hello and the full state; the sequence starts again at 0."""
        self.seq = 0
        self.moved_ms = now_ms  # the host takes the state after this one: soon
        hello = self._frame(f"H,{PROTOCOL},{VERSION},{self.rows},{self.cols},{self.firmware}")
        return [hello, self._state("S", now_ms)]

    def sense(self, now_ms: int, bits: int, fault: str = "") -> list:
        """One sensing pass: `bits` has bit row*cols+col set for each cell in
        contact; `fault` names a sensor that does not answer ('' if none)."""
        out = []
        if fault != self.fault or (fault and now_ms - self.fault_ms >= FAULT_REPEAT_MS):
            text = _clean(fault, MAX_BODY - 14) if fault else "all sensors answer"
            out.append(self._frame(("F,sensor," if fault else "F,ok,") + text))
            self.fault, self.fault_ms = fault, now_ms
        if bits != self.state:
            self.state, self.moved_ms = bits, now_ms
            out.append(self._state("T", now_ms))
        elif self.sent_ms is None or now_ms - self.sent_ms >= self.period(now_ms):
            out.append(self._state("S", now_ms))
        return out

    def period(self, now_ms: int) -> int:
        """How long a state may go unrepeated now: `period_ms` while the
        contacts moved within `settle_ms` (a lost frame healed soon while hands
        are on the table), `rest_ms` after (the keep-alive of a quiet grid)."""
        if self.moved_ms is not None and now_ms - self.moved_ms < self.settle_ms:
            return self.period_ms
        return self.rest_ms

    def host(self, data: bytes, now_ms: int) -> list:
        """Bytes from the host: a Q frame is answered with hello and state;
        anything else is ignored, a Q whose SEQ is no sequence number too."""
        out = []
        for body in self.reader.feed(data):
            fields = body.split(",")
            if len(fields) == 2 and fields[1] == "Q" and is_seq(fields[0]):
                out.extend(self.hello(now_ms))
        return out


class Outbox:
    """Frames on their way to a port that is never waited on.

    `flush(write)` gives the port what it takes now (`write(data)` returns
    how many bytes it took, 0 too) and keeps the rest, in order, for the next
    pass. While the host does not read, at most `limit` (2 or more) frames
    wait: the oldest are dropped whole, never the one partly sent, so the
    line carries no broken frame. A dropped frame is a lost message, as the
    protocol allows: the next full state heals it, and the host counts the
    sequence numbers it never saw."""

    def __init__(self, limit: int = OUTBOX_FRAMES) -> None:
        self.frames = []
        self.sent = 0  # bytes of frames[0] already out
        self.limit = limit
        self.dropped = 0

    def put(self, frames: list) -> None:
        self.frames.extend(frames)
        while len(self.frames) > self.limit:
            self.frames.pop(1 if self.sent else 0)
            self.dropped += 1

    def flush(self, write: object) -> None:
        while self.frames:
            head = self.frames[0]
            self.sent += write(head[self.sent :])
            if self.sent < len(head):
                return
            self.frames.pop(0)
            self.sent = 0
