"""Run by the appliance check under a copy of keystand.service's sandbox (as the
keystand user, a oneshot): each thing the sandbox must refuse, tried. Prints a
`probe` line per try; exits 1 if anything it must refuse got through.

`--emulated` (arm64 under qemu-user): qemu refuses seccomp to the programs it
runs, systemd among them, so systemd applies no seccomp setting there
(RestrictAddressFamilies=, SystemCallFilter=, MemoryDenyWriteExecute=); the
network tries are then printed as not provable here instead of counted. A
machine without seccomp and without that flag counts them as leaks."""

import ctypes
import os
import socket
import sys
from collections.abc import Callable

STATE = os.environ.get("STATE_DIRECTORY", "/var/lib/keystand")
OUTSIDE = ["/etc/keystand", "/opt/keystand", "/usr/local", "/var/lib", "/root", "/home", "/"]
PR_GET_SECCOMP = 21
leaks = 0


def seccomp_mode() -> int | None:
    """The process's seccomp mode (2: filtered), or None where the kernel (or
    an emulator) does not answer."""
    libc = ctypes.CDLL(None, use_errno=True)
    mode = libc.prctl(PR_GET_SECCOMP, 0, 0, 0, 0)
    return None if mode < 0 else int(mode)


def refused(what: str, attempt: Callable[[], object], provable: bool = True) -> None:
    global leaks
    try:
        attempt()
    except OSError as e:
        print(f"probe refused: {what}: {e.strerror or e}")
        return
    if not provable:
        print(f"probe NOT PROVABLE HERE: {what} opened (no seccomp under emulation)")
        return
    leaks += 1
    print(f"probe GOT THROUGH: {what}")


def write(folder: str) -> None:
    path = os.path.join(folder, "keystand-probe")
    with open(path, "w") as f:
        f.write("x")
    os.remove(path)


def main() -> int:
    emulated = "--emulated" in sys.argv[1:]
    mode = seccomp_mode()
    print(f"probe seccomp: {'unavailable' if mode is None else f'mode {mode}'}")
    write(STATE)
    print(f"probe allowed: write in the state dir {STATE}")
    for folder in OUTSIDE:
        refused(f"write in {folder}", lambda folder=folder: write(folder))
    provable = not (emulated and mode is None)
    for family, name in ((socket.AF_INET, "AF_INET"), (socket.AF_INET6, "AF_INET6")):
        refused(
            f"a {name} socket",
            lambda f=family: socket.socket(f, socket.SOCK_STREAM).close(),
            provable,
        )
    refused(
        "a netlink socket",
        lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW).close(),
        provable,
    )
    return 1 if leaks else 0


sys.exit(main())
