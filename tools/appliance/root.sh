#!/bin/bash
# The Debian 12 root the appliance check boots: built once with mmdebstrap and
# cached outside the checkout as a folder, keyed by what goes into it; each run
# boots an overlay on it, so the cached root is never changed.
#
#   tools/appliance/root.sh ARCH      prints the cached root's path (builds it if missing;
#                                     ROOT.built then holds the seconds it took and the date)
#
# It holds what Raspberry Pi OS Lite has that matters to keystand's install:
# systemd as PID 1, udev, python3 with venv, git and sudo. The host's extra CA
# certificates go in too, so apt and pip inside reach the same archive and index
# as the host does (a machine behind an inspecting proxy needs them).
set -euo pipefail

ARCH=${1:?usage: root.sh ARCH}
CACHE=${APPLIANCE_CACHE:-/var/cache/keystand-appliance}
PACKAGES=systemd,systemd-sysv,udev,dbus,python3,python3-venv,git,sudo,ca-certificates,apt-utils
SOURCES=/etc/apt/sources.list.d/debian.sources
[ -f "$SOURCES" ] || SOURCES=/etc/apt/sources.list

key=$(printf '%s\n' "$ARCH" "$PACKAGES" "$(cat "$SOURCES")" "$(cat /usr/local/share/ca-certificates/*.crt 2>/dev/null)" |
    sha256sum | cut -c1-12)
root=$CACHE/bookworm-$ARCH-$key
if [ -x "$root/usr/lib/systemd/systemd" ]; then
    echo "$root"
    exit 0
fi
rm -rf "$root.part" "$root.built"

mkdir -p "$CACHE"
echo "appliance: building the Debian 12 $ARCH root (once; cached in $CACHE)" >&2
started=$(date +%s)
# --variant=important is Debian's standard minimal system (what a Lite image is
# built from); the hooks add the host's CA certificates and point pip at them.
# shellcheck disable=SC2016 # mmdebstrap runs each hook with the root as $1
mmdebstrap --quiet --format=directory --arch="$ARCH" --variant=important --include="$PACKAGES" \
    --customize-hook='if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then
        cp /usr/local/share/ca-certificates/*.crt "$1/usr/local/share/ca-certificates/";
        chroot "$1" update-ca-certificates >/dev/null; fi' \
    --customize-hook='printf "[global]\ncert = /etc/ssl/certs/ca-certificates.crt\n" > "$1/etc/pip.conf"' \
    --customize-hook='echo keystand-check > "$1/etc/hostname"' \
    bookworm "$root.part" "$SOURCES" >&2
mv "$root.part" "$root"
# Beside the root, not in it: how long it took and when (the check prints it).
echo "$(($(date +%s) - started)) $(date -u +%Y-%m-%d)" >"$root.built"
echo "appliance: root built in $(($(date +%s) - started)) s" >&2
echo "$root"
