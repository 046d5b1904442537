"""The board layer: Raspberry Pi Pico (RP2040) running MicroPython, MPR121
chips on I2C0 (GP4 SDA, GP5 SCL), the host on the USB serial port.

Everything that decides anything is in gridproto.py and gridsense.py; this
file only wires them to the board: the I2C bus, the USB serial streams, the
clock, the watchdog and the LED. Edit LAYOUT for the mat you built.

Maintenance: a started watchdog cannot be stopped, so Ctrl-C would leave the
board to reset within 2 s. A file named `maintenance` on the board, or GP22
(pin 29) held to GND at power-up, skips the loop and the watchdog and leaves
the MicroPython prompt to mpremote (README.md, "Updating").
"""

import os
import select
import sys
import time

import machine
from gridproto import GridLogic
from gridsense import MPR121Sensor, Pads, Strips  # noqa: F401 (Pads: the other layout)

FIRMWARE = "pico-mpr121-1"
INTERVAL_MS = 10  # one sensing pass

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


def main() -> None:
    i2c = machine.I2C(0, sda=machine.Pin(4), scl=machine.Pin(5), freq=400_000)
    led = machine.Pin("LED", machine.Pin.OUT)
    wdt = machine.WDT(timeout=2000)  # a hung loop reboots the board, which says hello again
    sensor = MPR121Sensor(i2c, LAYOUT)
    logic = GridLogic(firmware=FIRMWARE)
    out = sys.stdout.buffer
    inp = sys.stdin.buffer
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)

    last = time.ticks_ms()
    now = 0  # our own milliseconds: ticks_ms wraps, ticks_diff does not
    for f in logic.hello(now):
        out.write(f)
    while True:
        wdt.feed()
        tick = time.ticks_ms()
        now += time.ticks_diff(tick, last)
        last = tick
        while poller.poll(0):
            for f in logic.host(inp.read(1), now):
                out.write(f)
        bits, fault = sensor.read(now)
        led.value(1 if bits else 0)
        for f in logic.sense(now, bits, fault):
            out.write(f)
        time.sleep_ms(INTERVAL_MS)


if maintenance():
    print("keystand grid: maintenance (no watchdog, no sensing); remove 'maintenance', reset")
else:
    main()
