"""The board layer: Raspberry Pi Pico (RP2040) running MicroPython, MPR121
chips on I2C0 (GP4 SDA, GP5 SCL), the host on the USB serial port.

Everything that decides anything is in gridproto.py and gridsense.py; this
file only wires them to the board: the I2C bus, the USB serial streams, the
clock, the watchdog and the LED. Edit LAYOUT for the mat you built.

`run` is the loop, given its watchdog, serial port, sensor, LED and clock, so
the tests run it (tests/grid_firmware/) on stand-ins for the board; `main` makes
the real ones. On the board this file runs as `__main__`.

Maintenance: the loop turns Ctrl-C off (a 0x03 on the line is a byte like
any other) and a started watchdog cannot be stopped, so mpremote cannot stop
the loop. A file named `maintenance` on the board, or GP22 (pin 29) held to
GND at power-up, skips the loop and the watchdog and leaves the MicroPython
prompt, Ctrl-C and all, to mpremote (README.md, "Updating").
"""

import os
import select
import sys
import time

import machine
import micropython
from gridproto import GridLogic, Outbox
from gridsense import MPR121Sensor, Pads, Strips  # noqa: F401 (Pads: the other layout)

FIRMWARE = "pico-mpr121-1"
INTERVAL_MS = 10  # one sensing pass
WATCHDOG_MS = 2000  # a hung loop reboots the board, which says hello again
MAX_READ = 128  # host bytes taken in one pass (a query is 8): a flood cannot hold the loop

# The mat: five row and five column strips on one chip at 0x5A (ELE0-4 rows,
# ELE5-9 columns), or one pad per cell over three chips, for example
# Pads({0x5A: list(range(12)), 0x5B: list(range(12, 24)), 0x5C: [24]}).
LAYOUT = Strips(0x5A, rows=(0, 1, 2, 3, 4), cols=(5, 6, 7, 8, 9))

MAINTENANCE_FILE = "maintenance"
MAINTENANCE_PIN = 22  # GP22, physical pin 29; pin 28 beside it is a GND


def maintenance() -> bool:
    """A `maintenance` file in the board's working folder, or GP22 held low."""
    if MAINTENANCE_FILE in os.listdir():
        return True
    return machine.Pin(MAINTENANCE_PIN, machine.Pin.IN, machine.Pin.PULL_UP).value() == 0


class UsbSerial:
    """The USB serial port, never waited on: `inp` and `out` are
    sys.stdin.buffer and sys.stdout.buffer, `readable` and `writable`
    select.polls for data in and room out.

    While the host has the port open but does not read, MicroPython's write
    waits up to 500 ms for room (four frames would starve the 2 s watchdog),
    and poll only tells that one byte is free: so bytes go out one at a time,
    each when poll says there is room for it, and the rest wait (Outbox)."""

    def __init__(self, inp: object, out: object, readable: object, writable: object) -> None:
        self.inp = inp
        self.out = out
        self.readable = readable
        self.writable = writable

    def read(self) -> bytes:
        """What the host has sent, up to MAX_READ bytes, without waiting."""
        got = b""
        while len(got) < MAX_READ and self.readable.poll(0):
            byte = self.inp.read(1)
            if not byte:
                break
            got += byte
        return got

    def write(self, data: bytes) -> int:
        """As much of `data` as the port takes now; how many bytes that was."""
        n = 0
        while n < len(data) and self.writable.poll(0):
            if not self.out.write(data[n : n + 1]):  # 0, or None: it would wait after all
                break
            n += 1
        return n


def usb_serial() -> UsbSerial:
    readable = select.poll()
    readable.register(sys.stdin, select.POLLIN)
    writable = select.poll()
    writable.register(sys.stdout, select.POLLOUT)
    return UsbSerial(sys.stdin.buffer, sys.stdout.buffer, readable, writable)


def run(
    wdt: object, serial: object, sensor: object, led: object, clock: object, passes: int = -1
) -> None:
    """The board's loop, `passes` times (-1: for ever). `clock` is the `time`
    module: ticks_ms, ticks_diff and sleep_ms."""
    logic = GridLogic(firmware=FIRMWARE)
    outbox = Outbox()
    last = clock.ticks_ms()
    now = 0  # our own milliseconds: ticks_ms wraps, ticks_diff does not
    outbox.put(logic.hello(now))
    while passes != 0:
        if passes > 0:  # for ever stays -1: no count to outgrow a small int
            passes -= 1
        wdt.feed()
        tick = clock.ticks_ms()
        now += clock.ticks_diff(tick, last)
        last = tick
        outbox.put(logic.host(serial.read(), now))
        bits, fault = sensor.read(now)
        led.value(1 if bits else 0)
        outbox.put(logic.sense(now, bits, fault))
        outbox.flush(serial.write)
        clock.sleep_ms(INTERVAL_MS)


def main() -> None:
    # A 0x03 from the host (or noise) is Ctrl-C to MicroPython: it would end
    # this program, and the watchdog would reset the board. Here it is a byte.
    micropython.kbd_intr(-1)
    i2c = machine.I2C(0, sda=machine.Pin(4), scl=machine.Pin(5), freq=400_000)
    led = machine.Pin("LED", machine.Pin.OUT)
    wdt = machine.WDT(timeout=WATCHDOG_MS)
    run(wdt, usb_serial(), MPR121Sensor(i2c, LAYOUT), led, time)


if __name__ == "__main__":
    if maintenance():
        print("keystand grid: maintenance (no watchdog, no sensing); remove 'maintenance', reset")
    else:
        main()
