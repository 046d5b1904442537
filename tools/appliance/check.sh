#!/bin/bash
# make appliance-check [ARCH=arm64|amd64]: README "Build one" run literally on a
# Debian 12 root booted with systemd as PID 1 (systemd-nspawn; arm64 through
# qemu-user-static), then the appliance proven from outside, step by step:
#
#   a  install   the README's apt line and `systemd/install.sh --profile minimal`;
#                doctor says, one line each, that there is no GPIO chip and no SPI
#   b  no-gpio   the minimal unit on a machine without GPIO: one journal line naming
#                it and the fix, no traceback, no restart loop (NRestarts <= 1 in 60 s);
#                then a Pi (a revision in /proc/cpuinfo) whose gpiochip is missing
#   c  emulated  touch-mpr121 and minimal builds under the real unit (a drop-in adds
#                --emulate and a script): READY, STATUS, the game `keystand play`
#                gives, stop leaves the neutral picture last, start resumes the
#                turn, a hung main process (SIGSTOP) is killed by the watchdog,
#                restarted, the journal says so, and the game resumes
#   d  sandbox   `systemd-analyze security` of the shipped unit <= 2.0; a probe
#                under the unit's settings can write only its state dir and
#                cannot open a network socket
#   e  again     install.sh a second time changes no file; uninstall and
#                uninstall --purge leave what they promise
#   f  timings   printed, and written into docs/appliance.md (with the minimal
#                unit's `systemd-analyze critical-chain`)
#
# The root is built once and cached (tools/appliance/root.sh); each run boots an
# overlay on it, so the cache stays clean. A failing step prints its name and
# the log lines that matter, and the check exits 1.
set -euo pipefail

ARCH=${ARCH:-arm64}
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$SRC/tools/appliance
CODE=5VHK-ZHXC-WE7S # the card every scripted game here is dealt
GAME="clue A
touch 0 0
touch 1 1
pass B
clue B" # left in play: B gives the clue, A guesses
SPEED=0.2 # the emulated panels' pace: a fifth of real refresh times

say() { echo "appliance[$ARCH]: $*"; }
die() {
    echo "appliance[$ARCH]: FAILED: $STEP: $*" >&2
    if [ -n "${LEADER:-}" ]; then
        echo "--- journalctl -u keystand (last 40 lines) ---" >&2
        inside journalctl -u keystand --no-pager -n 40 -o short-monotonic >&2 || true
    fi
    exit 1
}
STEP=setup
step() {
    STEP=$1
    echo
    say "== $*"
}
now() { date +%s.%N; }
since() { echo "$(now) $1" | awk '{ printf "%.1f", $1 - $2 }'; }
declare -A TIMING=()

[ "$(id -u)" = 0 ] || { echo "appliance-check: run it as root (it boots a container)" >&2; exit 2; }
case "$ARCH" in arm64 | amd64) ;; *) echo "appliance-check: ARCH is arm64 or amd64, not '$ARCH'" >&2; exit 2 ;; esac

host_setup() {
    local want=(mmdebstrap systemd-container) pkg missing=()
    [ "$ARCH" = amd64 ] || want+=(qemu-user-static binfmt-support)
    for pkg in "${want[@]}"; do
        dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null | grep -q '^installed$' || missing+=("$pkg")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        say "installing ${missing[*]}"
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
    if [ "$ARCH" = arm64 ]; then
        [ -e /proc/sys/fs/binfmt_misc/status ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
        [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || update-binfmts --enable qemu-aarch64
        grep -q '^flags: .*F' /proc/sys/fs/binfmt_misc/qemu-aarch64 ||
            die "qemu-aarch64 is registered without the F flag: the container cannot find it"
    fi
}

# ---- the container --------------------------------------------------------------------

RUN=
NSPAWN=
LEADER=
cleanup() {
    if [ -n "$LEADER" ] && kill -0 "$NSPAWN" 2>/dev/null; then
        inside systemctl poweroff >/dev/null 2>&1 || true
        for _ in $(seq 60); do kill -0 "$NSPAWN" 2>/dev/null || break; sleep 0.5; done
        kill -9 "$NSPAWN" 2>/dev/null || true
    fi
    if [ -n "$RUN" ]; then
        umount "$RUN/merged" 2>/dev/null || true
        # The run's logs outlive it, for a look after a failure.
        rm -rf "${APPLIANCE_CACHE:-/var/cache/keystand-appliance}/last-run-$ARCH"
        mkdir -p "${APPLIANCE_CACHE:-/var/cache/keystand-appliance}/last-run-$ARCH"
        cp "$RUN"/*.log "$RUN"/*.txt "${APPLIANCE_CACHE:-/var/cache/keystand-appliance}/last-run-$ARCH/" 2>/dev/null || true
        rm -rf "$RUN"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM # so that the EXIT trap powers the container off

# inside COMMAND...: run it in the booted container, as root, with a clean environment.
# The container's PID 1: nspawn's child in a PID namespace of its own; a child
# still in ours is nspawn's short-lived helper (a loaded host shows it). A helper
# that exits between pgrep and readlink has no namespace to read: not the leader
# (once it was taken for one, and the boot was waited for on a PID long gone).
find_leader() {
    local pid ns host_ns
    host_ns=$(readlink /proc/self/ns/pid)
    LEADER=
    for _ in $(seq 100); do
        for pid in $(pgrep -P "$NSPAWN"); do
            ns=$(readlink "/proc/$pid/ns/pid" 2>/dev/null) || continue
            [ -n "$ns" ] && [ "$ns" != "$host_ns" ] && LEADER=$pid
        done
        [ -n "$LEADER" ] && [ -e "/proc/$LEADER" ] && return
        LEADER=
        sleep 0.2
    done
}

inside() {
    nsenter -t "$LEADER" -m -u -i -n -p -C -- env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LANG=C.UTF-8 TERM=dumb "$@"
}
sh_in() { inside bash -c "$1"; }

boot() {
    local root took built
    root=$("$HERE/root.sh" "$ARCH")
    if [ -f "$root.built" ]; then
        read -r took built <"$root.built"
        TIMING[root]=$took
        say "the root: $root (built in $took s on $built)"
    else
        TIMING[root]="?"
        say "the root: $root (cached; its build time was not recorded)"
    fi
    RUN=$(mktemp -d /var/tmp/keystand-appliance.XXXXXX)
    mkdir "$RUN/upper" "$RUN/work" "$RUN/merged"
    mount -t overlay overlay -o "lowerdir=$root,upperdir=$RUN/upper,workdir=$RUN/work" "$RUN/merged"
    # The checkout as `git clone` leaves it (less the host's venv and caches).
    # As a Pi OS image has it: the hostname resolves (sudo asks).
    echo "127.0.1.1 keystand-check" >>"$RUN/merged/etc/hosts"
    mkdir "$RUN/merged/root/keystand"
    tar -C "$SRC" --exclude=./.venv --exclude=__pycache__ --exclude=.pytest_cache \
        --exclude=.mypy_cache --exclude=.ruff_cache --exclude=.hypothesis \
        --exclude=./build --exclude=./dist --exclude='./*.egg-info' -cf - . |
        tar -C "$RUN/merged/root/keystand" -xf -
    local started
    started=$(now)
    # No machined here: --register=no --keep-unit (nspawn makes no scope of its own).
    systemd-nspawn --quiet --boot --register=no --keep-unit --machine="keystand-$ARCH" \
        --directory="$RUN/merged" --console=passive >"$RUN/console.log" 2>&1 &
    NSPAWN=$!
    find_leader
    [ -n "$LEADER" ] || die "systemd-nspawn did not start: $(cat "$RUN/console.log")"
    local state=
    for _ in $(seq 600); do
        # The leader is looked for again should the one found have gone.
        { [ -n "$LEADER" ] && [ -e "/proc/$LEADER" ]; } || find_leader
        state=$(inside systemctl is-system-running 2>/dev/null) || true
        case "$state" in running | degraded) break ;; esac
        sleep 0.5
    done
    case "$state" in running | degraded) ;; *) die "the container did not boot ($state)" ;; esac
    TIMING[boot]=$(since "$started")
    say "booted Debian 12 $ARCH with systemd as PID 1 in ${TIMING[boot]} s ($state)"
}

# ---- a: the README's install ----------------------------------------------------------

install_as_readme_says() {
    step "a  install: README 'Build one' step 2, literally"
    local apt started line
    apt=$(grep -m2 '^ *sudo apt \(update\|install\)' "$SRC/README.md" | sed 's/^ *//')
    [ "$(echo "$apt" | wc -l)" = 2 ] || die "README.md has no 'sudo apt update' and 'sudo apt install' lines"
    started=$(now)
    while IFS= read -r line; do
        say "$line"
        sh_in "cd /root && yes | $line" >>"$RUN/apt.log" 2>&1 || { tail -20 "$RUN/apt.log"; die "the README's '$line' failed"; }
    done <<<"$apt"
    TIMING[apt]=$(since "$started")
    say "sudo systemd/install.sh --profile minimal"
    started=$(now)
    # Each line stamped with the seconds since the start: the venv's share is timed.
    sh_in "cd /root/keystand && sudo systemd/install.sh --profile minimal" 2>&1 |
        while IFS= read -r line; do echo "$(since "$started") $line"; done >"$RUN/install.log" || true
    TIMING[install]=$(since "$started")
    cut -d' ' -f2- "$RUN/install.log" | sed 's/^/  | /'
    grep -q 'keystand install: done' "$RUN/install.log" || die "install.sh did not finish (above)"
    local venv_start venv_end
    venv_start=$(grep -m1 'python3 -m venv' "$RUN/install.log" | cut -d' ' -f1)
    venv_end=$(grep -m1 'opt/keystand/README.md' "$RUN/install.log" | cut -d' ' -f1)
    TIMING[venv]=$(echo "$venv_end $venv_start" | awk '{ printf "%.1f", $1 - $2 }')
    grep -q 'liblgpio-dev\|swig' "$RUN/install.log" && die "install.sh asked for liblgpio-dev or swig"
    grep -q 'FAIL /dev/gpiochip0 (GPIO): missing' "$RUN/install.log" || die "doctor did not say there is no GPIO chip"
    grep -q 'FAIL /dev/spidev0.0 (seat A): missing' "$RUN/install.log" || die "doctor did not say there is no SPI"
    [ "$(grep -c 'Traceback' "$RUN/install.log")" = 0 ] || die "a traceback in the install's output"
    say "ok: installed in ${TIMING[install]} s (venv ${TIMING[venv]} s); doctor names the missing chip and SPI"
}

# Emulation's relaxations, in a drop-in of the check's own (arm64 only): systemd,
# emulated by qemu-user, cannot make a service's network or IPC namespace.
relax() { # relax UNIT
    [ "$ARCH" != amd64 ] || return 0
    inside mkdir -p "/etc/systemd/system/$1.service.d"
    printf '%s\n' "[Service]" \
        "# qemu-user: emulated systemd fails to make the network namespace (EIO, exit 226/NAMESPACE)." \
        "PrivateNetwork=no" \
        "# qemu-user: the same for the IPC namespace (\"Failed to set up IPC namespacing\": EIO)." \
        "PrivateIPC=no" | inside tee "/etc/systemd/system/$1.service.d/emulation.conf" >/dev/null
    inside systemctl daemon-reload
}

# ---- b: no GPIO ---------------------------------------------------------------------

unit_state() { inside systemctl show keystand.service -p "$1" --value; }
journal() { inside journalctl -u keystand --no-pager -o cat "$@"; }

no_restart_loop() { # no_restart_loop WHAT SAYS
    local what=$1 says=$2 restarts
    inside systemctl reset-failed keystand.service 2>/dev/null || true
    inside journalctl --rotate >/dev/null 2>&1 || true
    local cursor
    cursor=$(inside journalctl -n0 --show-cursor -o cat | sed -n 's/^-- cursor: //p')
    inside systemctl restart keystand.service || true
    say "waiting 60 s: does systemd restart it?"
    sleep 60
    restarts=$(unit_state NRestarts)
    journal --after-cursor="$cursor" >"$RUN/journal-b.txt"
    sed 's/^/  | /' "$RUN/journal-b.txt" | tail -8
    [ "$restarts" -le 1 ] || die "$what: restarted $restarts times in 60 s"
    grep -q Traceback "$RUN/journal-b.txt" && die "$what: a traceback in the journal"
    grep -q "$says" "$RUN/journal-b.txt" || die "$what: no journal line saying '$says'"
    [ "$(unit_state ExecMainStatus)" = 6 ] || die "$what: exit status $(unit_state ExecMainStatus), not 6"
    say "ok: $what: one line, exit 6 (NOTCONFIGURED), $restarts restarts in 60 s"
}

no_gpio() {
    step "b  the minimal unit where there is no GPIO"
    relax keystand
    no_restart_loop "not a Pi" "cannot claim GPIO17 for RST: not a Raspberry Pi"
    # A Pi's revision in /proc/cpuinfo: gpiozero then opens the chip, which is missing.
    sh_in 'mkdir -p /etc/systemd/system/keystand.service.d /var/lib/keystand-check &&
        { cat /proc/cpuinfo; echo "Revision	: a020d3"; } > /var/lib/keystand-check/cpuinfo &&
        printf "[Service]\nBindReadOnlyPaths=/var/lib/keystand-check/cpuinfo:/proc/cpuinfo\n" \
            > /etc/systemd/system/keystand.service.d/check-pi.conf && systemctl daemon-reload'
    no_restart_loop "a Pi without its gpiochip" "no GPIO chip (/dev/gpiochip0 is missing)"
    sh_in 'rm /etc/systemd/system/keystand.service.d/check-pi.conf && systemctl daemon-reload'
}

# ---- c: emulated builds under the unit --------------------------------------------------

# The check's drop-in: the build emulated (its real drivers over emulated pins,
# SPI, I2C), a script, a shorter watchdog so a hang is caught in seconds.
dropin() { # dropin PROFILE [SCRIPT]
    local profile=$1 script=${2:-} extra=""
    [ -z "$script" ] || extra=" --card-code $CODE --script $script"
    {
        echo "[Service]"
        echo "ExecStart="
        echo "ExecStart=/opt/keystand/venv/bin/keystand run --config /etc/keystand/keystand.toml --profile $profile --emulate /var/lib/keystand/emulate --speed $SPEED --shown-log /var/lib/keystand/shown.log$extra"
        echo "WatchdogSec=10"
    } | inside tee /etc/systemd/system/keystand.service.d/check.conf >/dev/null
    inside systemctl daemon-reload
}

# The fields of `keystand play --json` that `keystand state --json` shares, from
# either's JSON on stdin, as one comparable line.
game_fields() {
    python3 -c 'import json, sys
want = ["status", "phase", "clue_giver", "guesser", "turns_left", "mistakes_left",
        "agents_found", "covered", "misses", "passes"]
d = json.load(sys.stdin)
print(json.dumps({k: d.get(k) for k in want}, sort_keys=True))'
}
state_json() {
    inside /opt/keystand/venv/bin/keystand state --json --state-dir /var/lib/keystand 2>/dev/null |
        game_fields 2>/dev/null || true
}

wait_for() { # wait_for SECONDS WHAT COMMAND...: until COMMAND succeeds
    local seconds=$1 what=$2 deadline
    shift 2
    deadline=$(($(date +%s) + seconds))
    until "$@"; do
        [ "$(date +%s)" -lt "$deadline" ] || die "$what: not within $seconds s"
        sleep 1
    done
}
is_active() { [ "$(unit_state ActiveState)" = active ]; }
plays_to_expected() { [ "$(state_json)" = "$EXPECTED" ]; }
last_lines_neutral() {
    local seat
    for seat in A B; do
        [ "$(inside grep "^$seat " /var/lib/keystand/shown.log | tail -1)" = "$seat neutral" ] || return 1
    done
}
shown_count() { inside sh -c 'wc -l < /var/lib/keystand/shown.log 2>/dev/null || echo 0'; }
shown_more_than() { [ "$(shown_count)" -gt "$1" ]; }
restarts_more_than() { [ "$(unit_state NRestarts)" -gt "$1" ]; }
both_frames_handed() { inside test -e /var/lib/keystand/emulate/A-0001.png -a -e /var/lib/keystand/emulate/B-0001.png; }
# Seconds from the unit's main process start (systemd's own timestamp, in µs) to
# both seats' first frames handed to their drivers (`--emulate` writes each
# frame's file as it is handed: A-0001.png, B-0001.png, their modification times).
exec_to_both_frames() {
    inside python3 -c '
import datetime, os, subprocess
shown = subprocess.run(
    ["systemctl", "show", "-p", "ExecMainStartTimestamp", "--value", "--timestamp=us+utc",
     "keystand.service"], capture_output=True, text=True, check=True).stdout.strip()
start = datetime.datetime.strptime(shown, "%a %Y-%m-%d %H:%M:%S.%f %Z")
start = start.replace(tzinfo=datetime.timezone.utc).timestamp()
frames = [os.stat(f"/var/lib/keystand/emulate/{seat}-0001.png").st_mtime for seat in "AB"]
print(f"{max(frames) - start:.2f}")'
}

emulated_build() {
    local profile=$1 started pid before
    step "c  $profile emulated under the real unit"
    sh_in "systemctl stop keystand; rm -rf /var/lib/keystand/*; mkdir -p /etc/keystand/check /etc/systemd/system/keystand.service.d"
    # The script's last line keeps the stand up after the game, as at a table.
    printf '%s\nwait 3600000\n' "$GAME" | inside tee /etc/keystand/check/game.txt >/dev/null
    printf '%s\n' "$GAME" | inside tee /etc/keystand/check/play.txt >/dev/null
    EXPECTED=$(inside /opt/keystand/venv/bin/keystand play --card-code "$CODE" --script /etc/keystand/check/play.txt --json |
        game_fields)
    dropin "$profile" /etc/keystand/check/game.txt
    started=$(now)
    inside systemctl start keystand.service || die "systemctl start failed"
    TIMING[ready-$profile]=$(since "$started")
    is_active || die "not active after start: READY=1 never came"
    local status
    status=$(inside systemctl status keystand.service --no-pager | sed -n 's/^ *Status: //p')
    [ -n "$status" ] || die "systemctl status shows no Status line"
    say "ok: READY after ${TIMING[ready-$profile]} s; Status: $status"
    wait_for 60 "the first frame in the shown log" shown_more_than 0
    TIMING[first-frame-$profile]=$(since "$started")
    wait_for 60 "both seats' first frames handed" both_frames_handed
    TIMING[both-frames-$profile]=$(exec_to_both_frames)
    say "ok: ExecStart to both first frames handed: ${TIMING[both-frames-$profile]} s"
    inside systemd-analyze critical-chain keystand.service --no-pager >"$RUN/chain-$profile.txt" 2>&1 ||
        die "systemd-analyze critical-chain: $(cat "$RUN/chain-$profile.txt")"
    wait_for 600 "the scripted game to reach the state keystand play gives" plays_to_expected
    say "ok: the game played through the unit to $EXPECTED"

    inside systemctl stop keystand.service
    last_lines_neutral || die "after stop, a seat's last shown line is not 'neutral': $(inside tail -4 /var/lib/keystand/shown.log)"
    journal -n 30 >"$RUN/journal-stop.txt"
    grep -q "the controller shows" "$RUN/journal-stop.txt" || die "no emulation report in the journal"
    say "ok: systemctl stop: each panel's last frame is the neutral picture"

    dropin "$profile" # no script, no card: the same game, resumed
    before=$(shown_count)
    started=$(now)
    inside systemctl start keystand.service || die "the second start failed"
    wait_for 120 "a frame after the restart" shown_more_than "$before"
    TIMING[resume-first-frame-$profile]=$(since "$started")
    wait_for 60 "both seats' first frames handed after the restart" both_frames_handed
    TIMING[resume-both-frames-$profile]=$(exec_to_both_frames)
    plays_to_expected || die "the restart did not resume the same turn: $(state_json)"
    say "ok: systemctl start resumed the same turn; first frame after ${TIMING[resume-first-frame-$profile]} s"

    pid=$(unit_state MainPID)
    local restarts
    restarts=$(unit_state NRestarts)
    inside kill -STOP "$pid"
    say "main process $pid stopped (SIGSTOP): the watchdog (10 s here) must kill and restart it"
    wait_for 120 "a restart by the watchdog" restarts_more_than "$restarts"
    wait_for 120 "the restarted stand" is_active
    journal -n 200 >"$RUN/journal-watchdog.txt"
    grep "Watchdog timeout\|Killing process\|Scheduled restart" "$RUN/journal-watchdog.txt" | sed 's/^/  | /'
    grep -q "Watchdog timeout" "$RUN/journal-watchdog.txt" || die "the journal does not say the watchdog fired"
    wait_for 120 "the resumed game" plays_to_expected
    say "ok: the watchdog killed the hung stand, systemd restarted it, the journal says so, the game resumed"
    inside systemctl stop keystand.service
    inside rm -f /etc/systemd/system/keystand.service.d/check.conf
    inside systemctl daemon-reload
}

# ---- d: the sandbox ---------------------------------------------------------------------

sandbox() {
    step "d  the sandbox"
    local exposure
    inside rm -rf /etc/systemd/system/keystand.service.d/emulation.conf # the shipped unit, as shipped
    inside systemctl daemon-reload
    exposure=$(inside systemd-analyze security keystand.service --no-pager | sed -n 's/.*Overall exposure level for keystand.service: \([0-9.]*\).*/\1/p')
    [ -n "$exposure" ] || die "systemd-analyze security printed no exposure level"
    awk -v e="$exposure" 'BEGIN { exit !(e <= 2.0) }' || die "exposure $exposure is above 2.0"
    say "ok: systemd-analyze security keystand: $exposure"
    # The probe runs under a copy of the shipped unit's settings (a oneshot).
    inside mkdir -p /usr/local/lib/keystand-check
    inside tee /usr/local/lib/keystand-check/probe.py <"$HERE/probe.py" >/dev/null
    sed -e 's/^Type=notify/Type=oneshot/' -e '/^WatchdogSec=/d' -e '/^NotifyAccess=/d' \
        -e '/^Restart/d' -e '/^TimeoutStartSec=/d' \
        -e "s|^ExecStart=.*|ExecStart=/usr/bin/python3 /usr/local/lib/keystand-check/probe.py$([ "$ARCH" = amd64 ] || echo ' --emulated')|" \
        "$SRC/systemd/keystand.service" | inside tee /etc/systemd/system/keystand-probe.service >/dev/null
    relax keystand-probe
    inside systemctl daemon-reload
    local ok=0
    inside systemctl start keystand-probe.service || ok=$?
    inside journalctl -u keystand-probe --no-pager -o cat | grep '^probe' | sed 's/^/  | /'
    [ "$ok" = 0 ] || die "the probe under the unit's settings got through (above)"
    if inside journalctl -u keystand-probe --no-pager -o cat | grep -q '^probe NOT PROVABLE HERE'; then
        say "NOT PROVEN under emulation: the network half (qemu-user refuses seccomp to systemd,"
        say "    which then applies no RestrictAddressFamilies=; without namespaces, no PrivateNetwork=):"
        say "    ARCH=amd64 proves it on the shipped unit"
        PROVEN="only the state dir is writable; the network refusal is left to ARCH=amd64"
    fi
    inside rm -rf /etc/systemd/system/keystand-probe.service /etc/systemd/system/keystand-probe.service.d
    inside systemctl daemon-reload
    say "ok: under the unit's settings ${PROVEN:-only the state dir is writable, and no network socket opens}"
}

# ---- e: idempotent install, uninstall ---------------------------------------------------

INSTALLED="/opt/keystand /etc/keystand /etc/systemd/system/keystand.service /etc/udev/rules.d/99-keystand-grid.rules /etc/sysusers.d/keystand.conf"
# Every installed path's mode, owner, mtime and size, and each file's checksum: read
# from the host through the overlay (natively: an emulated sha256sum is slow).
snapshot() {
    local path
    for path in $INSTALLED; do
        [ ! -e "$RUN/merged$path" ] || (cd "$RUN/merged" && find ".$path" -printf '%p %m %U %G %T@ %s %l\n')
    done | sort
    for path in $INSTALLED; do
        [ ! -e "$RUN/merged$path" ] || (cd "$RUN/merged" && find ".$path" -type f -print0 | xargs -0r sha256sum)
    done | sort
}
again() {
    step "e  install.sh again, uninstall, uninstall --purge"
    inside rm -rf /etc/keystand/check
    local before after
    before=$(snapshot)
    sh_in "cd /root/keystand && sudo systemd/install.sh --profile minimal" >"$RUN/install2.log" 2>&1 ||
        { cat "$RUN/install2.log"; die "the second install failed"; }
    after=$(snapshot)
    if [ "$before" != "$after" ]; then
        diff <(echo "$before") <(echo "$after") | head -20
        die "the second install changed files (above)"
    fi
    sed 's/^/  | /' "$RUN/install2.log"
    # What it may still do: say what is the same or kept, reload and enable (both
    # idempotent), and stop, doctor, start (the stand was stopped by the check).
    grep -E '^  ' "$RUN/install2.log" | grep -Ev '^  (\((same|kept)\) |systemctl (daemon-reload|enable|stop|start) keystand|systemctl daemon-reload$|systemd-sysusers |runuser -u keystand |\(udevd is not running: )' &&
        die "the second install did something (the lines above)"
    say "ok: the second install changed nothing ($(grep -c '(same)\|(kept)' "$RUN/install2.log") files the same or kept)"

    inside rm -rf /etc/systemd/system/keystand.service.d # the check's own: install.sh does not know it
    sh_in "cd /root/keystand && sudo systemd/install.sh uninstall" >"$RUN/uninstall.log" 2>&1 ||
        { cat "$RUN/uninstall.log"; die "uninstall failed"; }
    local left
    left=$(sh_in "ls -d $INSTALLED 2>/dev/null; getent passwd keystand" || true)
    [ -z "$left" ] || die "uninstall left: $left"
    inside test -d /var/lib/keystand || die "uninstall removed the games (/var/lib/keystand)"
    grep -q 'kept the games in /var/lib/keystand' "$RUN/uninstall.log" || die "uninstall did not say it kept the games"
    sh_in "cd /root/keystand && sudo systemd/install.sh uninstall --purge" >"$RUN/purge.log" 2>&1 ||
        { cat "$RUN/purge.log"; die "uninstall --purge failed"; }
    inside test ! -e /var/lib/keystand || die "uninstall --purge left /var/lib/keystand"
    say "ok: uninstall removes all but the games; --purge the games too"
}

# ---- f: timings ---------------------------------------------------------------------------

timings() {
    step "f  timings"
    local line key
    for key in root boot apt install venv ready-touch-mpr121 first-frame-touch-mpr121 \
        both-frames-touch-mpr121 resume-first-frame-touch-mpr121 resume-both-frames-touch-mpr121 \
        ready-minimal first-frame-minimal both-frames-minimal resume-first-frame-minimal \
        resume-both-frames-minimal total; do
        [ -n "${TIMING[$key]:-}" ] && echo "  $key: ${TIMING[$key]} s"
    done
    line="| $(date -u +%Y-%m-%d) | \`make appliance-check ARCH=$ARCH\` | ${TIMING[root]} | ${TIMING[boot]} | ${TIMING[apt]} | ${TIMING[install]} | ${TIMING[venv]} | ${TIMING[first-frame-touch-mpr121]} | ${TIMING[resume-first-frame-minimal]} | ${TIMING[both-frames-minimal]} / ${TIMING[both-frames-touch-mpr121]} | ${TIMING[resume-both-frames-minimal]} | ${TIMING[total]} |"
    python3 "$HERE/record.py" "$SRC/docs/appliance.md" "$ARCH" "$line" "$RUN/chain-minimal.txt"
    say "recorded in docs/appliance.md"
}

STARTED=$(now)
host_setup
step "boot: Debian 12 $ARCH under systemd-nspawn"
boot
install_as_readme_says
no_gpio
emulated_build touch-mpr121
emulated_build minimal
sandbox
again
TIMING[total]=$(since "$STARTED")
timings
say "passed in ${TIMING[total]} s"
