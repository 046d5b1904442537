"""Stand-ins for the Pico under the grid firmware: the clock, the watchdog, the
USB serial port, select.poll over it, MPR121 chips on I2C and `machine`.

For checks.py, under MicroPython and CPython alike: nothing beyond what both
have (select is imported for its two flag values only). Time is simulated
milliseconds: nothing waits but what the board itself would wait for, so a
check can say exactly how long the loop went without feeding its watchdog.
"""

import select

WATCHDOG_MS = 2000
TICKS_PERIOD = 1 << 30  # MicroPython's ticks_ms wraps here on the RP2040


class Starved(Exception):
    """The watchdog would have reset the board here."""


class Stop(Exception):
    """Ends a bounded run of the real entry point (see Machine)."""


class Clock:
    """The `time` module's ticks_ms, ticks_diff and sleep_ms; `at` schedules
    what the world does (a finger, the host) at a simulated time."""

    def __init__(self, start=0):
        self.now = 0  # milliseconds since the check began
        self.start = start  # where ticks_ms begins, to cross its wrap
        self.events = []  # (when, what), kept in order
        self.listeners = []  # called with each new time (the host reading)

    def ticks_ms(self):
        return (self.start + self.now) % TICKS_PERIOD

    def ticks_diff(self, a, b):
        half = TICKS_PERIOD // 2
        return (a - b + half) % TICKS_PERIOD - half

    def sleep_ms(self, ms):
        self.advance(ms)

    def at(self, when, what):
        self.events.append((when, what))
        self.events.sort(key=lambda e: e[0])

    def advance(self, ms):
        end = self.now + ms
        while self.events and self.events[0][0] <= end:
            when, what = self.events.pop(0)
            self.now = max(self.now, when)
            what()
        self.now = end
        for listen in self.listeners:
            listen()


class Watchdog:
    """machine.WDT: `feed` later than `timeout` ms after the last one is a
    reset. `stop_after` feeds end a bounded run (Stop)."""

    def __init__(self, clock, timeout=WATCHDOG_MS, stop_after=-1):
        self.clock = clock
        self.timeout = timeout
        self.stop_after = stop_after
        self.fed = [clock.now]  # when made, then every feed

    def feed(self):
        gap = self.clock.now - self.fed[-1]
        if gap >= self.timeout:
            raise Starved("the watchdog went " + str(gap) + " ms unfed")
        self.fed.append(self.clock.now)
        if len(self.fed) - 1 == self.stop_after:
            raise Stop()

    def longest_gap(self):
        return max(self.fed[i + 1] - self.fed[i] for i in range(len(self.fed) - 1))


class Usb:
    """The Pico's USB serial port as MicroPython 1.27 drives it
    (shared/tinyusb/mp_usbd_cdc.c): a 256-byte transmit FIFO that the host
    empties while it reads; poll reports room while one byte is free; a write
    of more than is free waits up to 500 ms for room (per 64-byte chunk), then
    writes what fits. What the host sends (`send`) waits in `incoming`, but
    the interrupt character (Ctrl-C, until micropython.kbd_intr(-1)) raises
    KeyboardInterrupt in whatever the board is doing; `flood` is sent again
    and again, for ever."""

    FIFO = 256
    CHUNK = 64
    TIMEOUT_MS = 500
    HELD = 4096  # bytes read in one pass: the loop is held by the host

    def __init__(self, clock):
        self.clock = clock
        self.fifo = b""
        self.arrivals = []  # (when, bytes) the host read
        self.reading = True
        self.incoming = b""
        self.flood = b""
        self.taken = 0  # bytes read since the last sleep
        self.interrupt = 3  # MicroPython's mp_interrupt_char at boot
        self.stdin = Stream(self, select.POLLIN)
        self.stdout = Stream(self, select.POLLOUT)
        clock.listeners.append(self._tick)

    def _tick(self):
        self.taken = 0
        if self.reading and self.fifo:
            self.arrivals.append((self.clock.now, self.fifo))
            self.fifo = b""

    def send(self, data):
        if self.interrupt >= 0 and self.interrupt in data:
            self.incoming = b""  # as the port's receive callback does
            raise KeyboardInterrupt()
        self.incoming += data

    def ready(self, flags):
        out = 0
        if flags & select.POLLIN and (self.incoming or self.flood):
            out |= select.POLLIN
        if flags & select.POLLOUT and len(self.fifo) < self.FIFO:
            out |= select.POLLOUT
        return out

    def read(self, n):
        if not self.incoming:
            self.incoming = self.flood
        got, self.incoming = self.incoming[:n], self.incoming[n:]
        self.taken += len(got)
        if self.taken > self.HELD:
            raise Starved("the host's bytes never stop, and neither does this pass")
        return got

    def write(self, data):
        i = 0
        while i < len(data):
            n = min(len(data) - i, self.CHUNK)
            waited = 0
            while n > self.FIFO - len(self.fifo) and waited < self.TIMEOUT_MS:
                self.clock.advance(1)  # the host may read meanwhile
                waited += 1
            n = min(n, self.FIFO - len(self.fifo))
            if n == 0:
                break
            self.fifo += data[i : i + n]
            i += n
        return i


class Stream:
    """sys.stdin or sys.stdout over the stand-in port; `buffer` is itself."""

    def __init__(self, usb, flags):
        self.usb = usb
        self.flags = flags
        self.buffer = self

    def read(self, n):
        return self.usb.read(n)

    def write(self, data):
        return self.usb.write(data)


class Poll:
    """select.poll over Streams; the loop may never wait in it."""

    def __init__(self):
        self.streams = []

    def register(self, stream, flags):
        self.streams.append((stream, flags))

    def poll(self, timeout=-1):
        if timeout != 0:
            raise AssertionError("poll(" + str(timeout) + ") would wait")
        out = []
        for stream, flags in self.streams:
            ready = stream.usb.ready(flags & stream.flags)
            if ready:
                out.append((stream, ready))
        return out


class Chips:
    """MPR121 chips on I2C as gridsense drives them (readfrom_mem and
    writeto_mem); an address not on the bus, or in `absent`, raises OSError
    as machine.I2C does. `touched[address]` is its electrode bits."""

    def __init__(self, addresses=(0x5A,), impostors=()):
        self.regs = {}
        self.touched = {}
        self.absent = []
        self.impostors = impostors  # answer, but are no MPR121 (CONFIG2 is not 0x24)
        for address in addresses:
            self.regs[address] = {}
            self.touched[address] = 0

    def _chip(self, address):
        if address not in self.regs or address in self.absent:
            raise OSError(19)  # ENODEV: no ACK
        return self.regs[address]

    def writeto_mem(self, address, register, data):
        regs = self._chip(address)
        if register == 0x80 and data == b"\x63":  # soft reset: the datasheet's defaults
            regs.clear()
            regs[0x5D] = 0 if address in self.impostors else 0x24
        for i in range(len(data)):
            regs[register + i] = data[i]

    def readfrom_mem(self, address, register, n):
        regs = self._chip(address)
        bits = self.touched[address] if regs.get(0x5E, 0) & 0x3F else 0
        status = (bits & 0xFF, bits >> 8)
        out = []
        for i in range(register, register + n):
            out.append(status[i] if i < 2 else regs.get(i, 0))
        return bytes(out)


def pin_class(levels, made):
    """machine.Pin: inputs read `levels` (pulled up: 1), outputs keep their
    value; each pin made is put in `made`."""

    class Pin:
        IN, OUT, PULL_UP = 0, 1, 2

        def __init__(self, pin, mode=0, pull=None):
            self.pin = pin
            self.level = levels.get(pin, 1)
            self.values = []
            made.append(self)

        def value(self, level=None):
            if level is None:
                return self.level
            self.values.append(level)
            self.level = level
            return None

    return Pin


class Machine:
    """A stand-in `machine` for main.py: the bus is `chips`, the watchdog a
    Watchdog on `clock` that ends the run after `feeds` feeds."""

    def __init__(self, clock, chips, feeds=-1, levels=None):
        self.pins = []
        self.Pin = pin_class(levels or {}, self.pins)
        self.clock = clock
        self.chips = chips
        self.feeds = feeds
        self.i2c = []  # how the bus was made
        self.wdt = None

    def I2C(self, *args, **kwargs):
        self.i2c.append((args, sorted((k, getattr(v, "pin", v)) for k, v in kwargs.items())))
        return self.chips

    def WDT(self, timeout):
        self.wdt = Watchdog(self.clock, timeout, self.feeds)
        return self.wdt


class Micropython:
    """The `micropython` module: kbd_intr sets the port's interrupt character
    and notes what it was given and whether the watchdog was running then;
    `const` as MicroPython's own."""

    def __init__(self, machine, usb=None):
        self.machine = machine
        self.usb = usb
        self.calls = []

    def const(self, value):
        return value

    def kbd_intr(self, char):
        self.calls.append((char, self.machine.wdt is not None))
        if self.usb is not None:
            self.usb.interrupt = char


class Sensor:
    """gridsense's MPR121Sensor as the loop sees it: `read(now_ms)` gives the
    cells in contact (bits) and the fault text."""

    def __init__(self):
        self.bits = 0
        self.fault = ""

    def read(self, now_ms):
        return self.bits, self.fault


class Sys:
    """The `sys` main.py sees: the USB port as its stdin and stdout."""

    def __init__(self, usb):
        self.stdin = usb.stdin
        self.stdout = usb.stdout


class Select:
    """The `select` main.py sees: poll over the stand-in streams."""

    POLLIN = select.POLLIN
    POLLOUT = select.POLLOUT
    poll = Poll
