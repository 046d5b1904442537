"""Run by the appliance check under a copy of keystand.service's sandbox (as the
keystand user, a oneshot): each thing the sandbox must refuse, tried. Prints a
`probe` line per try; exits 1 if anything it must refuse got through."""

import os
import socket
import sys
from collections.abc import Callable

STATE = os.environ.get("STATE_DIRECTORY", "/var/lib/keystand")
OUTSIDE = ["/etc/keystand", "/opt/keystand", "/usr/local", "/var/lib", "/root", "/home", "/"]
leaks = 0


def refused(what: str, attempt: Callable[[], object]) -> None:
    global leaks
    try:
        attempt()
    except OSError as e:
        print(f"probe refused: {what}: {e.strerror or e}")
        return
    leaks += 1
    print(f"probe GOT THROUGH: {what}")


def write(folder: str) -> None:
    path = os.path.join(folder, "keystand-probe")
    with open(path, "w") as f:
        f.write("x")
    os.remove(path)


write(STATE)
print(f"probe allowed: write in the state dir {STATE}")
for folder in OUTSIDE:
    refused(f"write in {folder}", lambda folder=folder: write(folder))
for family, name in ((socket.AF_INET, "AF_INET"), (socket.AF_INET6, "AF_INET6")):
    refused(f"a {name} socket", lambda f=family: socket.socket(f, socket.SOCK_STREAM).close())
refused("a netlink socket", lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW).close())
sys.exit(1 if leaks else 0)
