"""Fetch one npm package's tarball, pinned by its registry integrity (sha512),
and unpack it where `npm install` would (PREFIX/node_modules/NAME), without npm.

    python tools/npm_fetch.py NAME VERSION SHA512-BASE64 PREFIX

The package must have no dependencies (the MicroPython WebAssembly port has
none): this is a download and a hash check, not a package manager. Exit 1 with
one line on a network error or a hash that does not match."""

from __future__ import annotations

import base64
import hashlib
import io
import sys
import tarfile
import urllib.request
from pathlib import Path

REGISTRY = "https://registry.npmjs.org"


def fetch(name: str, version: str, sha512: str, prefix: Path) -> Path:
    base = name.rsplit("/", 1)[-1]
    url = f"{REGISTRY}/{name}/-/{base}-{version}.tgz"
    with urllib.request.urlopen(url, timeout=60) as response:
        data = response.read()
    got = base64.b64encode(hashlib.sha512(data).digest()).decode()
    if got != sha512:
        raise ValueError(f"{url}: sha512 {got}, expected {sha512}")
    dest = prefix / "node_modules" / name
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for member in tar.getmembers():  # npm tarballs keep everything under package/
            if not member.name.startswith("package/"):
                continue
            member.name = member.name.removeprefix("package/")
            tar.extract(member, dest, filter="data")
    return dest


def main(argv: list[str]) -> int:
    if len(argv) != 4:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    name, version, sha512, prefix = argv
    try:
        dest = fetch(name, version, sha512.removeprefix("sha512-"), Path(prefix))
    except (OSError, ValueError, tarfile.TarError) as e:
        print(f"npm_fetch: {name}@{version}: {e}", file=sys.stderr)
        return 1
    print(f"npm_fetch: {name}@{version} in {dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
