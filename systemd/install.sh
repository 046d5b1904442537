#!/bin/bash
# keystand as a Pi appliance (Raspberry Pi OS Bookworm): install, update, uninstall.
#
#   sudo systemd/install.sh [install] [--profile NAME] [--dry-run] [--root DIR] [--no-venv]
#   sudo systemd/install.sh uninstall [--purge] [--dry-run] [--root DIR]
#
# install (run it again to update; it changes only what differs):
#   /opt/keystand/venv           a venv with keystand and its `pi` extra
#   (first python3-venv, then the Debian packages pip needs to compile what PyPI
#   has no wheel of for this machine (spidev: gcc, python3-dev), with apt-get; the
#   venv is rebuilt only when the source differs from the one it was built from)
#   /etc/keystand/keystand.toml  the settings, commented defaults (kept if present;
#                                --profile changes only its profile line)
#   /etc/keystand/NAME.toml      a profile given as a file (--profile my-build.toml):
#                                a copy the service can read (it cannot see /home)
#   /etc/sysusers.d/keystand.conf  the `keystand` system user and its groups
#   /etc/systemd/system/keystand.service, enabled and (re)started
#   /etc/udev/rules.d/99-keystand-grid.rules  ModemManager leaves the grid alone
# then checks SPI (and I2C if the profile needs it) and runs `keystand doctor`.
# The games live in /var/lib/keystand (systemd's StateDirectory=, made by
# systemd with the right owner); uninstall keeps them, uninstall --purge not.
#
# --dry-run   print every action, change nothing.
# --root DIR  install into the tree DIR (an image, a test) instead of /: the
#             files are written there, the unit is enabled there (systemctl
#             --root: links only), and nothing touches the running system: the
#             user is made from the sysusers.d file when the image boots (or by
#             `systemd-sysusers --root DIR`), no service is started, no udev
#             reload, no doctor. Those are printed as "(--root: not run)".
#             Use it with --no-venv: a venv made here would have DIR's paths
#             baked into its scripts; build it inside the image (README.md).
# --no-venv   leave /opt/keystand/venv as it is (tests, which must not pip
#             install from the network; image builders who make it in a chroot).
set -euo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ACTION=install
ROOT=
DRY=0
PURGE=0
VENV=1
PROFILE=

usage() {
    sed -n '4,5p' "${BASH_SOURCE[0]}" | sed 's/^# *//' >&2
    exit 2
}
fail() {
    echo "keystand install: $*" >&2
    exit 1
}

while [ $# -gt 0 ]; do
    case "$1" in
        install | uninstall) ACTION=$1 ;;
        --dry-run) DRY=1 ;;
        --purge) PURGE=1 ;;
        --no-venv) VENV=0 ;;
        --root)
            [ $# -ge 2 ] || fail "--root needs a directory"
            ROOT=$2
            shift
            ;;
        --root=*) ROOT=${1#--root=} ;;
        --profile)
            [ $# -ge 2 ] || fail "--profile needs a name or a file"
            PROFILE=$2
            shift
            ;;
        --profile=*) PROFILE=${1#--profile=} ;;
        -h | --help) usage ;;
        *) fail "unknown argument '$1' (see: $0 --help)" ;;
    esac
    shift
done
[ "$ACTION" = uninstall ] || [ "$PURGE" = 0 ] || fail "--purge goes with uninstall"

if [ -n "$ROOT" ]; then
    [ -d "$ROOT" ] || fail "--root $ROOT: no such directory"
    R=$(cd "$ROOT" && pwd)
    [ "$R" != / ] || R=
else
    R=
fi
if [ -z "$R" ] && [ "$DRY" = 0 ] && [ "$(id -u)" != 0 ]; then
    fail "run it as root: sudo $0 $ACTION (or --dry-run to see what it would do)"
fi

OPT=$R/opt/keystand
ETC=$R/etc/keystand
CONFIG=$ETC/keystand.toml
UNIT=$R/etc/systemd/system/keystand.service
UDEV=$R/etc/udev/rules.d/99-keystand-grid.rules
SYSUSERS=$R/etc/sysusers.d/keystand.conf
STATE=$R/var/lib/keystand
CREATED=$OPT/.created-dirs # the folders install made, removed on uninstall when empty
OWNER=()
[ "$(id -u)" != 0 ] || OWNER=(-o root -g root)
SYSTEMCTL=(systemctl)
[ -z "$R" ] || SYSTEMCTL=(systemctl "--root=$R")

say() { echo "keystand $ACTION: $*"; }
# An action: printed, and done unless --dry-run.
act() {
    echo "  $*"
    [ "$DRY" = 1 ] || "$@"
}
# An action on the running system: not with --root.
live() {
    if [ -n "$R" ]; then echo "  (--root: not run) $*"; else act "$@"; fi
}

NEW_DIRS=()
CHANGED=0 # set by any file or venv written: a run that changed nothing leaves the stand running
declare -A PLANNED=()
# Make DIR (mode MODE) and any missing parent, remembering which were missing.
make_dir() {
    local dir=$1 mode=$2 up missing=()
    up=$dir
    while [ ! -d "$up" ] && [ -z "${PLANNED[$up]:-}" ]; do
        missing=("$up" "${missing[@]}")
        up=$(dirname "$up")
    done
    for up in "${missing[@]}"; do
        NEW_DIRS+=("$up")
        PLANNED[$up]=1 # a dry run makes no folder: say each one once
        act install -d -m "$( [ "$up" = "$dir" ] && echo "$mode" || echo 0755)" "${OWNER[@]}" "$up"
    done
}
# Install FILE from SRC with MODE, unless it is already the same.
put() {
    local src=$1 dst=$2 mode=$3
    make_dir "$(dirname "$dst")" 0755
    if [ -f "$dst" ] && cmp -s "$src" "$dst" && [ "$(stat -c %a "$dst")" = "${mode#0}" ]; then
        echo "  (same) $dst"
        return
    fi
    act install -m "$mode" "${OWNER[@]}" "$src" "$dst"
    CHANGED=1
}
write_text() { # write_text DST MODE: stdin into DST
    local tmp
    tmp=$(mktemp)
    cat >"$tmp"
    put "$tmp" "$1" "$2"
    rm -f "$tmp"
}

shipped_profiles() { # the builds in hardware/, by name, on one line
    local f names=()
    for f in "$SRC"/hardware/*.toml; do names+=("$(basename "$f" .toml)"); done
    echo "${names[*]}"
}
is_path() { case "$1" in */* | *.toml) return 0 ;; *) return 1 ;; esac; }
profile_file() { # the profile's TOML, to see which buses it needs
    if is_path "$1"; then
        if [ -f "$R$1" ]; then echo "$R$1"; else echo "$1"; fi
    else
        echo "$SRC/hardware/$1.toml"
    fi
}
settings_profile() { # the profile line of the settings file, if any
    [ -f "$CONFIG" ] || return 0
    sed -n 's/^[[:space:]]*profile[[:space:]]*=[[:space:]]*"\(.*\)".*/\1/p' "$CONFIG" | head -1
}
# The settings file on stdin with its [service] profile set to $1 (the line
# replaced, or added to [service], or a [service] table added); all else kept.
set_profile() {
    awk -v line="profile = \"$1\"" '
        /^[[:space:]]*\[/ { if (in_service && !done) { print line; done = 1 }
                             in_service = ($0 ~ /^[[:space:]]*\[service\][[:space:]]*(#.*)?$/) }
        in_service && !done && /^[[:space:]]*profile[[:space:]]*=/ { print line; done = 1; next }
        { print }
        END { if (in_service && !done) print line; else if (!done) print "\n[service]\n" line }'
}

# Debian packages: python3-venv for the venv; then, for each requirement PyPI has
# no wheel of for this machine (pip would compile it), what compiling it takes.
# spidev has no wheels at all (gcc, python3-dev); lgpio has aarch64 and x86_64
# wheels (statically linked: no liblgpio); Pillow has wheels for 64-bit Arm.
declare -A COMPILE_DEPS=(
    [spidev]="gcc python3-dev"
    [lgpio]="gcc python3-dev swig liblgpio-dev"
    [pillow]="gcc python3-dev libjpeg-dev zlib1g-dev"
)
IMAGE_DEPS=(python3-venv gcc python3-dev) # what an image's chroot needs to build the venv
installed() { # installed PKG: dpkg's database (the tree's, with --root) lists it
    local admin=$R/var/lib/dpkg
    [ -f "$admin/status" ] && command -v dpkg-query >/dev/null &&
        [ "$(dpkg-query --admindir="$admin" -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]
}
# apt_install WHY PKG...: those not installed yet, each checked against apt first.
apt_install() {
    local why=$1 pkg missing=()
    shift
    for pkg in "$@"; do installed "$pkg" || missing+=("$pkg"); done
    if [ ${#missing[@]} = 0 ]; then
        say "packages installed: $* ($why)"
        return
    fi
    if [ -n "$R" ]; then
        say "the image needs these packages ($why); install them in its chroot:"
        echo "  (--root: not run) apt-get install -y --no-install-recommends ${missing[*]}"
        return
    elif ! command -v apt-get >/dev/null; then
        say "WARNING: no apt-get here; install these (or your system's like) first: ${missing[*]} ($why)"
        return
    fi
    live apt-get update -qq || fail "apt-get update failed (above): is the Pi online?"
    for pkg in "${missing[@]}"; do
        [ "$DRY" = 1 ] || apt-cache policy "$pkg" 2>/dev/null | grep -q 'Candidate: [^(]' ||
            fail "package $pkg is not in this system's apt sources, and $why (Raspberry Pi OS's archive has it)"
    done
    live apt-get install -y --no-install-recommends "${missing[@]}" ||
        fail "apt-get could not install ${missing[*]} (above); $why"
}
requirements() { # keystand's and its pi extra's requirements, from pyproject.toml
    python3 - "$SRC/pyproject.toml" <<'PY'
import sys, tomllib
project = tomllib.load(open(sys.argv[1], "rb"))["project"]
print("\n".join(project["dependencies"] + project["optional-dependencies"]["pi"]))
PY
}
# The build packages for what pip must compile here: asks the venv's pip for a
# wheel of each requirement (a download of the wheel only, no build).
compile_deps() {
    local pip=$1 req name wheels packages=()
    wheels=$(mktemp -d)
    while read -r req; do
        name=$(echo "$req" | sed 's/[<>=!~ ;\[].*//' | tr '[:upper:]' '[:lower:]')
        if "$pip" download --quiet --no-deps --only-binary=:all: -c "$SRC/constraints.txt" \
            -d "$wheels" "$req" >/dev/null 2>&1; then
            continue
        fi
        say "no wheel of $name for this machine: pip compiles it" >&2
        # shellcheck disable=SC2206 # the table's values are word lists
        packages+=(${COMPILE_DEPS[$name]:-gcc python3-dev})
    done < <(requirements)
    rm -rf "$wheels"
    [ ${#packages[@]} = 0 ] || printf '%s\n' "${packages[@]}" | awk '!seen[$0]++'
}

# ---- install -----------------------------------------------------------------------

install_all() {
    local pfile needs_i2c=0 needs_serial=0 given=$PROFILE current copy=
    current=$(settings_profile)
    if [ -n "$PROFILE" ] && is_path "$PROFILE"; then
        # The service runs in /run/keystand and cannot see /home: it gets a copy in /etc/keystand.
        pfile=$PROFILE
        [ -f "$pfile" ] || [ -z "$R" ] || pfile=$R$PROFILE # the copy already in the tree
        [ -f "$pfile" ] || fail "--profile $PROFILE: no such file"
        copy=/etc/keystand/$(basename "$PROFILE" .toml).toml
        [ "$copy" != /etc/keystand/keystand.toml ] ||
            fail "--profile $PROFILE: keystand.toml is the settings file's name; rename the profile"
        [ ! "$pfile" -ef "$R$copy" ] || copy= # given the copy itself: nothing to copy
        PROFILE=/etc/keystand/$(basename "$PROFILE" .toml).toml
    else
        PROFILE=${PROFILE:-${current:-minimal}}
        pfile=$(profile_file "$PROFILE")
    fi
    if [ -n "$given" ] && [ ! -f "$pfile" ]; then
        fail "--profile $given: no such profile (shipped: $(shipped_profiles); or a file's path)"
    fi
    if [ -f "$pfile" ]; then
        grep -Eiq '^[^#]*(mpr121|i2c)' "$pfile" && needs_i2c=1
        grep -Eiq '^[^#]*(serial|ttyACM)' "$pfile" && needs_serial=1
    else
        say "WARNING: profile '$PROFILE' is not in $SRC/hardware (the service will refuse to start);"
        say "         give --profile NAME, or set profile in $CONFIG"
    fi
    say "profile $PROFILE (I2C: $([ $needs_i2c = 1 ] && echo yes || echo no), serial grid: $([ $needs_serial = 1 ] && echo yes || echo no))"

    if [ -n "$R" ]; then
        apt_install "the venv is built in the image: pip compiles spidev there" "${IMAGE_DEPS[@]}"
    elif [ "$VENV" = 1 ]; then
        apt_install "the venv needs it" python3-venv
    fi
    if [ "$VENV" = 1 ] && [ -n "$R" ]; then
        say "WARNING: a venv made under --root has $R in its scripts' paths and this"
        say "         machine's Python: use --no-venv and build it in the image (README.md)"
    fi
    make_dir "$OPT" 0755
    if [ "$VENV" = 1 ]; then
        command -v python3 >/dev/null || fail "python3 is missing: sudo apt install python3-venv"
        python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
            fail "keystand needs Python 3.11 or newer (Raspberry Pi OS Bookworm has it)"
        build_venv
    else
        echo "  (--no-venv) $OPT/venv left as it is"
    fi
    put "$SRC/README.md" "$OPT/README.md" 0644

    make_dir "$ETC" 0755
    [ -z "$copy" ] || put "$pfile" "$R$copy" 0644
    if [ -f "$CONFIG" ] && [ -n "$given" ] && [ "$PROFILE" != "$current" ]; then
        say "profile ${current:-(none)} -> $PROFILE in $CONFIG (your other settings kept)"
        write_text "$CONFIG" 0644 < <(set_profile "$PROFILE" <"$CONFIG")
    elif [ -f "$CONFIG" ]; then
        echo "  (kept) $CONFIG"
    else
        write_text "$CONFIG" 0644 < <(sed "s|^profile = .*|profile = \"$PROFILE\"|" "$SRC/systemd/keystand.toml")
    fi

    write_text "$SYSUSERS" 0644 < <(
        echo "# keystand's service user (systemd-sysusers); installed by keystand's install.sh."
        echo 'u keystand - "keystand stand service" /var/lib/keystand /usr/sbin/nologin'
        echo "m keystand gpio"
        echo "m keystand spi"
        [ $needs_i2c = 0 ] || echo "m keystand i2c"
        [ $needs_serial = 0 ] || echo "m keystand dialout"
    )
    live systemd-sysusers "$SYSUSERS"

    put "$SRC/systemd/99-keystand-grid.rules" "$UDEV" 0644
    if_running udevd "the rule takes effect at boot" udevadm control --reload-rules

    put "$SRC/systemd/keystand.service" "$UNIT" 0644
    if_running systemd "the unit takes effect at boot" systemctl daemon-reload
    [ -d "$R/etc/systemd/system/multi-user.target.wants" ] ||
        NEW_DIRS+=("$R/etc/systemd/system/multi-user.target.wants") # made by enable
    act "${SYSTEMCTL[@]}" enable keystand.service

    if [ "$DRY" = 0 ] && [ ${#NEW_DIRS[@]} -gt 0 ]; then
        printf '%s\n' "${NEW_DIRS[@]#"$R"}" >>"$CREATED"
        sort -u -o "$CREATED" "$CREATED"
    fi

    check_bus SPI spi "/dev/spidev0.0" do_spi
    [ $needs_i2c = 0 ] || check_bus I2C i2c_arm "/dev/i2c-1" do_i2c

    # doctor opens the panels, pins and buses the service holds: it runs between
    # a stop (an update; the screens are blanked) and the start, as the service's user.
    if [ "$CHANGED" = 0 ] && [ -z "$R" ] && running systemd &&
        systemctl is-active --quiet keystand.service; then
        say "nothing changed; the stand keeps running (keystand doctor: README step 3)"
        return
    fi
    if_running systemd "nothing to stop" systemctl stop keystand.service
    run_doctor
    if_running systemd "the stand starts at boot" systemctl start keystand.service ||
        say "the stand did not start: journalctl -u keystand says why (and doctor, above)"
    say "done. Logs: journalctl -u keystand; settings: $CONFIG"
}

# running systemd|udevd: whether it runs here (not in a chroot, an image build, or
# a container without it). Without --root only.
running() {
    case "$1" in
        systemd) case "$(systemctl is-system-running 2>/dev/null)" in offline | unknown | "") return 1 ;; esac ;;
        udevd) udevadm control --ping >/dev/null 2>&1 ;;
    esac
}
# if_running DAEMON SAYS COMMAND...: run it on the live system if DAEMON runs;
# else print it with SAYS (when it takes effect), and go on.
if_running() {
    local daemon=$1 says=$2
    shift 2
    # Asked in a dry run too (both questions change nothing): it says what a real run would do.
    if [ -n "$R" ] || running "$daemon"; then
        live "$@"
    else
        echo "  ($daemon is not running: $says) $*"
    fi
}

# The source as the venv gets it: the checkout less its own venv, git, caches and
# build outputs. A build/ left by an earlier wheel (`make test`, `make bench`) must
# not come along: every file here gets one mtime, so setuptools would take its old
# copies for up to date and install the code from before a `git pull`.
source_tar() {
    tar -C "$SRC" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
        --exclude=./.venv --exclude=./.git --exclude=__pycache__ --exclude=.pytest_cache \
        --exclude=.mypy_cache --exclude=.ruff_cache --exclude=.hypothesis \
        --exclude=./build --exclude=./dist --exclude='./*.egg-info' -cf - .
}
build_venv() {
    local waveshare build stamp=$OPT/venv/.keystand-source digest deps
    waveshare=$(sed -n 's/^WAVESHARE := //p' "$SRC/Makefile")
    digest=$( { source_tar; echo "$waveshare"; python3 --version; } | sha256sum | cut -d' ' -f1)
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$digest" ]; then
        echo "  (same) $OPT/venv: built from this source"
        return
    fi
    [ -x "$OPT/venv/bin/python" ] || act python3 -m venv "$OPT/venv"
    if [ "$DRY" = 1 ] && [ ! -x "$OPT/venv/bin/pip" ]; then
        echo "  (the venv's pip then says which requirements need compiling, and apt-get installs what that takes)"
    else
        mapfile -t deps < <(compile_deps "$OPT/venv/bin/pip")
        [ ${#deps[@]} = 0 ] || apt_install "pip compiles what has no wheel here" "${deps[@]}"
    fi
    # A copy to build from: pip must not leave root-owned build files in the checkout.
    build=$SRC
    if [ "$DRY" = 0 ]; then
        build=$(mktemp -d)
        source_tar | tar -C "$build" -xf -
    fi
    # --prefer-binary: pip takes the wheels compile_deps found even when a newer
    # release has only a source archive, which these build packages may not build.
    act "$OPT/venv/bin/pip" install --quiet --upgrade --prefer-binary -c "$SRC/constraints.txt" "${build}[pi]"
    act "$OPT/venv/bin/pip" install --quiet --no-deps "$waveshare"
    # The vendor's model files checked against its RECORD once, here, as root: the
    # service (/opt read-only) then skips the check while the files stay as they are.
    act "$OPT/venv/bin/python" -c \
        "from keystand.drivers.display.waveshare import check_vendor_files; check_vendor_files()"
    [ "$build" = "$SRC" ] || rm -rf "$build"
    [ "$DRY" = 1 ] || echo "$digest" >"$stamp"
    CHANGED=1
}

run_doctor() {
    local keystand=/opt/keystand/venv/bin/keystand doctor work
    # doctor runs lgpio in a folder of its own (made per run, removed after), from
    # a working folder the keystand user owns: never a shared one such as /tmp.
    doctor=(runuser -u keystand -- env GPIOZERO_PIN_FACTORY=lgpio "$keystand" doctor)
    if [ -n "$R" ]; then
        echo "  (--root: not run) ${doctor[*]}"
        return
    elif [ "$DRY" = 1 ]; then
        echo "  ${doctor[*]} --config /etc/keystand/keystand.toml"
        return
    elif ! "$keystand" doctor --help >/dev/null 2>&1; then
        say "note: this keystand has no 'doctor' command yet; skipped"
        return
    fi
    if "$keystand" doctor --help 2>&1 | grep -q -- --config; then
        doctor+=(--config /etc/keystand/keystand.toml)
    else
        doctor+=(--profile "$PROFILE")
    fi
    work=$(mktemp -d)
    chown keystand "$work"
    (cd "$work" && act "${doctor[@]}") || say "keystand doctor found problems (above); the service starts anyway"
    rm -rf "$work"
}

# check_bus NAME DTPARAM DEVICE RASPI_CONFIG_VERB: on, or say how to turn it on.
check_bus() {
    local name=$1 param=$2 dev=$3 verb=$4 boot
    for boot in "$R/boot/firmware/config.txt" "$R/boot/config.txt"; do
        [ -f "$boot" ] && break
    done
    if { [ -z "$R" ] && [ -e "$dev" ]; } ||
        { [ -f "$boot" ] && grep -Eq "^[[:space:]]*dtparam=$param=on" "$boot"; }; then
        say "$name is on"
    else
        say "$name is OFF: the stand needs it. Turn it on, then reboot:"
        say "    sudo raspi-config nonint $verb 0 && sudo reboot"
        say "    (or: sudo raspi-config > Interface Options > $name)"
    fi
}

# ---- uninstall ---------------------------------------------------------------------

uninstall_all() {
    local dirs=()
    [ ! -f "$CREATED" ] || mapfile -t dirs < <(awk '{ print length, $0 }' "$CREATED" | sort -rn | cut -d' ' -f2-)
    if [ -f "$UNIT" ]; then
        if [ -z "$R" ] && running systemd; then
            act systemctl disable --now keystand.service # stopping blanks both screens
        elif [ -z "$R" ]; then
            act systemctl disable keystand.service
        else
            act "${SYSTEMCTL[@]}" disable keystand.service
        fi
    fi
    act rm -f "$UNIT" "$UDEV" "$SYSUSERS"
    if_running systemd "the unit's removal takes effect at boot" systemctl daemon-reload
    if_running udevd "the rule's removal takes effect at boot" udevadm control --reload-rules
    act rm -rf "$ETC" "$OPT"
    if [ -z "$R" ] && getent passwd keystand >/dev/null; then
        act userdel keystand
    elif [ -n "$R" ]; then
        echo "  (--root: not run) userdel keystand"
    fi
    if [ "$PURGE" = 1 ]; then
        act rm -rf "$STATE"
    elif [ -d "$STATE" ]; then
        say "kept the games in $STATE (uninstall --purge removes them)"
    fi
    local d
    for d in "${dirs[@]}"; do
        if [ -d "$R$d" ] && [ -z "$(ls -A "$R$d")" ]; then act rmdir "$R$d"; fi
    done
    say "done"
}

# Sourced (the tests), it only defines the functions above.
[[ "${BASH_SOURCE[0]}" == "$0" ]] || return 0
if [ "$ACTION" = install ]; then install_all; else uninstall_all; fi
