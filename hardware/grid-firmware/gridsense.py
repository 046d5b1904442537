"""The grid's sensing: MPR121 chips on the board's I2C, pure.

The same set-up as the host's I2C driver (drivers/inputs/mpr121.py, whose
module doc follows the datasheet step by step), written against the two
`machine.I2C` calls `readfrom_mem` and `writeto_mem`, so it runs under CPython
too, on any object with those two methods (the host's tests use the emulated
MPR121). A chip that fails is left out, named in the fault text, and set up
again every second.
"""

SOFT_RESET = 0x80
ECR = 0x5E
CONFIG2 = 0x5D
FILTER = 0x2B
THRESHOLDS = 0x41
DEBOUNCE = 0x5B
CONFIG1 = 0x5C
FILTER_VALUES = bytes((0x01, 0x01, 0x0E, 0x00, 0x01, 0x05, 0x01, 0x00, 0x00, 0x00, 0x00))
RETRY_MS = 1000


class Pads:
    """One pad per cell: {address: [cell of electrode 0, 1, ...]}, -1 unused;
    a cell is row*5 + col as the mat is wired."""

    def __init__(self, chips: dict) -> None:
        self.chips = chips

    def electrodes(self, address: int) -> int:
        cells = self.chips[address]
        return max(e for e in range(len(cells)) if cells[e] >= 0) + 1

    def bits(self, status: dict) -> int:
        out = 0
        for address, cells in self.chips.items():
            got = status.get(address, 0)
            for e in range(len(cells)):
                if cells[e] >= 0 and got >> e & 1:
                    out |= 1 << cells[e]
        return out


class Strips:
    """Five row strips and five column strips on one chip; every crossing of an
    active row and column is reported (the host sorts a palm from a finger)."""

    def __init__(
        self, address: int = 0x5A, rows: tuple = (0, 1, 2, 3, 4), cols: tuple = (5, 6, 7, 8, 9)
    ) -> None:
        self.chips = {address: None}
        self.address = address
        self.rows = rows
        self.cols = cols

    def electrodes(self, address: int) -> int:
        return max(max(self.rows), max(self.cols)) + 1

    def bits(self, status: dict) -> int:
        got = status.get(self.address, 0)
        out = 0
        for r in range(5):
            if got >> self.rows[r] & 1:
                for c in range(5):
                    if got >> self.cols[c] & 1:
                        out |= 1 << (r * 5 + c)
        return out


class MPR121Sensor:
    """Reads every chip of an electrode map; `read(now_ms)` -> (bits, fault)."""

    def __init__(self, i2c: object, layout: object, touch: int = 12, release: int = 6) -> None:
        self.i2c = i2c
        self.layout = layout
        self.touch = touch
        self.release = release
        self.lost = {}  # address -> (why, when to try again)
        for address in layout.chips:
            self._try(address, 0)

    def _setup(self, address: int) -> None:
        w = self.i2c.writeto_mem
        w(address, SOFT_RESET, b"\x63")
        w(address, ECR, b"\x00")
        config2 = self.i2c.readfrom_mem(address, CONFIG2, 1)[0]
        if config2 != 0x24:
            raise ValueError(f"0x{address:02X} is not an MPR121")
        w(address, FILTER, FILTER_VALUES)
        w(address, THRESHOLDS, bytes((self.touch, self.release)) * 12)
        w(address, DEBOUNCE, b"\x11")
        w(address, CONFIG1, b"\x10\x20")
        ecr = 0x80 | self.layout.electrodes(address)
        w(address, ECR, bytes((ecr,)))
        if self.i2c.readfrom_mem(address, ECR, 1)[0] != ecr:
            raise ValueError(f"0x{address:02X} did not start")

    def _try(self, address: int, now_ms: int) -> None:
        try:
            self._setup(address)
            self.lost.pop(address, None)
        except (OSError, ValueError) as e:
            why = str(e) if isinstance(e, ValueError) else f"0x{address:02X} does not answer"
            self.lost[address] = (why, now_ms + RETRY_MS)

    def read(self, now_ms: int) -> tuple:
        status = {}
        for address in self.layout.chips:
            if address in self.lost:
                if now_ms >= self.lost[address][1]:
                    self._try(address, now_ms)
                continue
            try:
                data = self.i2c.readfrom_mem(address, 0x00, 2)
            except OSError:
                self.lost[address] = (f"0x{address:02X} does not answer", now_ms + RETRY_MS)
                continue
            status[address] = (data[0] | data[1] << 8) & 0x0FFF
        fault = "; ".join(self.lost[a][0] for a in sorted(self.lost))
        return self.layout.bits(status), fault
