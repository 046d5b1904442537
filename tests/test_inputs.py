"""Input drivers: script lines, the script input, the simulator page's HTTP side,
the keyboard. Garbage gets a clear message and changes nothing."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from keystand.drivers.inputs import (
    Act,
    KeyName,
    Press,
    ScriptInput,
    ScriptLineError,
    Touch,
    parse_line,
    parse_script,
)
from keystand.drivers.inputs.keyboard import KeyboardInput
from keystand.drivers.inputs.simulator import ScreenFrame, SimulatorPage


def wait_for(check, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.01)
    return check()


@pytest.mark.parametrize(
    ("line", "event"),
    [
        ("touch 1 2", Touch(1, 2)),
        ("TOUCH 4 0", Touch(4, 0)),
        ("clue a", Act("clue", "A")),
        ("pass B", Act("pass", "B")),
        ("undo", Act("undo")),
        ("penalty", Act("penalty")),
        ("press A clue", Press("A", KeyName.CLUE)),
        ("press b menu long", Press("B", KeyName.MENU, long=True)),
        ("wait 250", 0.25),
    ],
)
def test_script_lines(line: str, event: object) -> None:
    assert parse_line(line) == event


@given(st.text(max_size=40))
def test_any_text_is_an_event_or_a_value_error(text: str) -> None:
    try:
        parse_line(text)
    except ValueError as e:
        assert str(e)


def test_a_bad_script_line_is_named_with_its_line() -> None:
    with pytest.raises(ScriptLineError) as info:
        parse_script("clue A\n\n# ok\npress A dance\n", source="game.txt")
    assert info.value.line == 4
    assert str(info.value) == "game.txt line 4: 'press A dance': key 'dance': expected clue, " + (
        "pass, undo or menu"
    )


def test_the_script_input_emits_in_order_and_waits() -> None:
    got: list[object] = []
    reports: list[object] = []
    waited: list[float] = []
    done = threading.Event()
    steps = parse_script("clue A\nwait 1000\ntouch 0 0\npress B undo\n")

    ScriptInput(steps, speed=0.5, on_done=done.set, pause=waited.append).start(
        got.append, reports.append
    )
    assert done.wait(10)
    assert got == [Act("clue", "A"), Touch(0, 0), Press("B", KeyName.UNDO)]
    assert waited == [0.5]  # 1 s of script at half speed
    assert reports == []  # a script has no device to lose


def test_a_stopped_script_emits_nothing_more_and_is_not_done() -> None:
    got: list[object] = []
    done = threading.Event()
    script = ScriptInput(parse_script("clue A\nwait 60000\ntouch 0 0\n"), on_done=done.set)
    script.start(got.append, print)
    assert wait_for(lambda: got == [Act("clue", "A")])
    script.stop()  # cuts the minute's wait short
    assert got == [Act("clue", "A")]
    assert not done.is_set()


@pytest.fixture
def page():
    inputs: list[object] = []
    frame = ScreenFrame(3, False, "partial", "epd2in7_V2")
    p = SimulatorPage(
        screens=lambda: {"A": frame, "B": frame},
        png=lambda seat: b"\x89PNG fake" if seat in "AB" else None,
        status=lambda: {"game": "g1", "state": None, "error": None},
        port=0,
    )
    p.start(inputs.append, print)
    yield p, inputs
    p.stop()


def post(url: str, body: bytes) -> tuple[int, dict]:
    req = urllib.request.Request(url, data=body, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


def test_the_page_turns_a_click_into_an_input(page) -> None:
    p, inputs = page
    assert post(p.url + "input", b"press A menu long  # held") == (
        200,
        {"queued": "press A menu long"},
    )
    assert inputs == [Press("A", KeyName.MENU, long=True)]
    with urllib.request.urlopen(p.url + "status", timeout=10) as r:
        status = json.load(r)
    assert status["screens"]["A"] == {
        "frame": 3,
        "busy": False,
        "refresh": "partial",
        "model": "epd2in7_V2",
    }
    with urllib.request.urlopen(p.url + "screen/B.png", timeout=10) as r:
        assert r.read() == b"\x89PNG fake"
    with urllib.request.urlopen(p.url, timeout=10) as r:
        assert b"keystand simulator" in r.read()


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (b"touch 7 7", "rows and columns are 0..4"),
        (b"wait 10", "touch and press lines only"),
        (b"undo", "touch and press lines only"),  # one seat alone cannot undo
        (b"clue A", "touch and press lines only"),
        (b"bogus", "'bogus': unknown event 'bogus' (expected touch, press)"),  # what it takes
        (b"\xff\xfe\x00", "not UTF-8 text (byte 0xff at column 1)"),
        (b"x" * 500, "send one input line"),
        (b"", "send one input line"),
    ],
)
def test_garbage_from_the_page_is_refused_and_changes_nothing(page, body: bytes, says: str):
    p, inputs = page
    code, answer = post(p.url + "input", body)
    assert code == 400
    assert says in answer["error"]
    assert inputs == []


def test_unknown_paths_are_404(page) -> None:
    p, _ = page
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(p.url + "etc/passwd", timeout=10)
    assert info.value.code == 404


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.20", "::"])
def test_the_page_binds_to_loopback_only(host: str) -> None:
    with pytest.raises(ValueError, match="only a loopback address"):
        SimulatorPage(screens=dict, png=lambda s: None, status=dict, host=host, port=0)


def test_localhost_is_bound_as_the_loopback_address() -> None:
    page = SimulatorPage(screens=dict, png=lambda s: None, status=dict, host="localhost", port=0)
    page.start(print, print)
    try:
        assert page.url.startswith("http://127.0.0.1:")
    finally:
        page.stop()


def test_keyboard_lines_drive_the_stand(tmp_path: Path) -> None:
    profile = tmp_path / "kbd.toml"
    profile.write_text('[panels]\nspeed = 0\n[input]\nkinds = ["keyboard"]\n')
    state = tmp_path / "state"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "keystand",
            "run",
            "--profile",
            str(profile),
            "--state-dir",
            str(state),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    said: list[str] = []
    heard = threading.Event()

    def listen() -> None:  # stderr as it comes: the stop waits for what it checks
        for line in proc.stderr:
            said.append(line)
            if "keyboard line 3" in line:
                heard.set()

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    proc.stdin.write("press B clue\nnonsense here\nundo\npress A pass\n")
    proc.stdin.flush()
    journal = state / "current.journal"
    assert wait_for(lambda: journal.exists() and journal.read_text().count("\n") >= 2, timeout=60)
    assert heard.wait(60), "".join(said)
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=60)
    listener.join(60)
    err = "".join(said)
    assert proc.returncode == 0, err
    assert "keyboard line 2: 'nonsense here': unknown event 'nonsense'" in err
    assert "keyboard line 3: 'undo': type touch or press lines" in err
    done = subprocess.run(
        [sys.executable, "-m", "keystand", "state", "--state-dir", str(state), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    got = json.loads(done.stdout)
    assert (got["phase"], got["clue_giver"], got["guesser"]) == ("guessing", "B", "A")


def test_the_keyboard_skips_bad_lines_and_takes_the_rest() -> None:
    """Bytes in, one line at a time: a line that is not UTF-8, a control character,
    a bare undo or an overlong line is named with its number; the others count."""
    import io

    typed = (
        b"\xef\xbb\xbftouch 1 2\n"
        b"press A \xff clue\n"
        b"touch 0\x0c0\n"
        b"undo\n" + b"x" * 5000 + b"\n"
        b"# a comment\n"
        b"press B menu long\n"
        b"bogus\n"
    )
    got: list[object] = []
    said: list[str] = []
    keyboard = KeyboardInput(stream=io.BytesIO(typed), complain=said.append)
    keyboard.start(got.append, print)
    assert wait_for(lambda: len(got) == 2 and len(said) == 5)
    assert got == [Touch(1, 2), Press("B", KeyName.MENU, long=True)]
    assert said[0].startswith("keystand: keyboard line 2: not UTF-8 text (byte 0xff")
    assert "keyboard line 3:" in said[1] and "U+000C" in said[1]
    assert said[2] == (
        "keystand: keyboard line 4: 'undo': type touch or press lines (press A clue, ...)"
    )
    assert said[3] == "keystand: keyboard line 5: longer than 1000 bytes"
    # An unknown word lists what the keyboard takes, not every script line.
    assert said[4] == (
        "keystand: keyboard line 8: 'bogus': unknown event 'bogus' (expected touch, press, wait)"
    )


def test_idle_connections_time_out_and_the_threads_come_back(capfd) -> None:
    """200 half-sent requests: at most a few threads at once, each dropped after
    the idle time-out; then the page answers as before, and nothing is printed."""
    import socket

    page = SimulatorPage(screens=dict, png=lambda s: None, status=dict, port=0, idle_timeout=0.3)
    page.start(print, print)
    before = threading.active_count()
    host, port = page.url[len("http://") : -1].rsplit(":", 1)
    socks = []
    try:
        for _ in range(200):
            s = socket.create_connection((host, int(port)), timeout=5)
            s.sendall(b"GET /sta")  # never finished
            socks.append(s)
        assert threading.active_count() <= before + 16  # bounded
        for s in socks:  # each is closed by the page: dropped at once, or timed out
            s.settimeout(30)
            assert s.recv(100) == b""
        assert wait_for(lambda: threading.active_count() <= before, timeout=30)
        with urllib.request.urlopen(page.url + "status", timeout=10) as r:
            assert r.status == 200
        for s in socks[:50]:  # clients that leave before reading: no traceback
            s.close()
        quick = socket.create_connection((host, int(port)), timeout=5)
        quick.sendall(b"GET / HTTP/1.0\r\n\r\n")
        quick.close()
        time.sleep(0.5)
    finally:
        for s in socks:
            s.close()
        page.stop()
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err


def test_a_loopback_page_binds_without_asking_dns() -> None:
    """127.0.0.2 is loopback too; binding it must not wait on a name lookup."""
    import socket
    from unittest import mock

    page = SimulatorPage(screens=dict, png=lambda s: None, status=dict, host="127.0.0.2", port=0)
    with mock.patch.object(socket, "getfqdn", side_effect=AssertionError("asked DNS")):
        page.start(print, print)
    try:
        assert page.url.startswith("http://127.0.0.2:")
    finally:
        page.stop()
