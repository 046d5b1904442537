"""Crafted journal records whose CRC is sound: the damage a CRC cannot see (a
wrong sequence number or length, a payload that is no JSON object, one nested
past any parser's depth, a start record of no game), and sound records the
loader must keep (a newline inside the payload's JSON, an unknown event).

Each is placed after the first `pos` records of an original: at the end (the
rest dropped), instead of record `pos`, or in front of it. A sound crafted
record is one a loader must keep; `None`: either is right (the format's text
says "8 digits" where Python's int() also takes "+0000005"); an unsound one,
and all after it, must be cut and kept aside.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from damage import Original, Variant

AT = "2026-01-01T12:00:00+0000"
EVENT = {"t": "event", "e": "undo", "at": AT}


def line(
    seq: int,
    payload: bytes,
    *,
    seq_text: bytes | None = None,
    length: bytes | None = None,
    crc_seq: int | None = None,
    crc: bytes | None = None,
    magic: bytes = b"KS1",
    sep: bytes = b" ",
) -> bytes:
    """One record line, each field as given (default: as journal.py writes it)."""
    crc_value = zlib.crc32(b"%08d" % (seq if crc_seq is None else crc_seq) + payload)
    fields = [
        magic,
        seq_text if seq_text is not None else b"%08d" % seq,
        length if length is not None else b"%06d" % len(payload),
        crc if crc is not None else b"%08x" % crc_value,
    ]
    return sep.join(fields) + sep + payload + b"\n"


def _obj(data: dict[str, Any]) -> bytes:
    return json.dumps(data, separators=(",", ":"), sort_keys=True).encode()


DEEP = b'{"x":' + b"[" * 200_000 + b"]" * 200_000 + b"}"
BIG = _obj({"t": "event", "e": "undo", "at": AT, "pad": "x" * 999_900})

# name: (the line for seq n, sound?, the data a loader gives for it)
Maker = Callable[[int], bytes]
KINDS: dict[str, tuple[Maker, bool | None, dict[str, Any] | None]] = {
    "unknown-event": (
        lambda n: line(n, _obj({"t": "event", "e": "touch 9 9", "at": AT})),
        True,
        {"t": "event", "e": "touch 9 9", "at": AT},
    ),
    "alien-record": (
        lambda n: line(n, _obj({"t": "alien", "x": [1]})),
        True,
        {"t": "alien", "x": [1]},
    ),
    "newline-in-json": (
        lambda n: line(n, b'{"at":"' + AT.encode() + b'",\n"e":"undo","t":"event"}'),
        True,
        EVENT,
    ),
    "big-payload": (lambda n: line(n, BIG), True, json.loads(BIG)),
    "deep-nesting": (lambda n: line(n, DEEP), False, None),  # past any parser's depth
    # The same CRC in capitals (issue 35): sound, kept, and what follows it too.
    "crc-uppercase": (
        lambda n: line(n, _obj(EVENT), crc=b"%08X" % zlib.crc32(b"%08d" % n + _obj(EVENT))),
        True,
        EVENT,
    ),
    "seq-plus": (lambda n: line(n, _obj(EVENT), seq_text=b"+%07d" % n), None, EVENT),
    "seq-underscore": (lambda n: line(n, _obj(EVENT), seq_text=b"0000_%03d" % n), None, EVENT),
    "seq-spaces": (lambda n: line(n, _obj(EVENT), seq_text=b" %07d" % n), False, None),
    "seq-repeated": (lambda n: line(max(n - 1, 0), _obj(EVENT)), False, None),
    "seq-skipped": (lambda n: line(n + 1, _obj(EVENT)), False, None),
    "seq-zero": (lambda n: line(0, _obj(EVENT)) if n else line(7, _obj(EVENT)), False, None),
    "crc-of-other-seq": (lambda n: line(n, _obj(EVENT), crc_seq=n + 1), False, None),
    "length-short": (
        lambda n: line(n, _obj(EVENT), length=b"%06d" % (len(_obj(EVENT)) - 1)),
        False,
        None,
    ),
    "length-long": (
        lambda n: line(n, _obj(EVENT), length=b"%06d" % (len(_obj(EVENT)) + 1)),
        False,
        None,
    ),
    "length-huge": (lambda n: line(n, _obj(EVENT), length=b"999999"), False, None),
    "length-zero": (lambda n: line(n, b"", length=b"000000"), False, None),
    "json-list": (lambda n: line(n, b"[1,2,3]"), False, None),
    "json-number": (lambda n: line(n, b"12345"), False, None),
    "json-string": (lambda n: line(n, b'"event"'), False, None),
    "json-null": (lambda n: line(n, b"null"), False, None),
    "not-json": (lambda n: line(n, b"{not json}"), False, None),
    "bad-utf8": (lambda n: line(n, b'{"e":"\xff\xfe","t":"event"}'), False, None),
    "magic-lowercase": (lambda n: line(n, _obj(EVENT), magic=b"ks1"), False, None),
    "magic-other": (lambda n: line(n, _obj(EVENT), magic=b"KS2"), False, None),
    "tabs": (lambda n: line(n, _obj(EVENT), sep=b"\t"), False, None),
    "garbage-line": (lambda n: b"hello, journal\n", False, None),
    "empty-line": (lambda n: b"\n", False, None),
    "zeros": (lambda n: b"\0" * 300, False, None),  # no line end: a torn tail
}
STARTS: dict[str, dict[str, Any]] = {
    "start-no-game": {"t": "start", "id": "0a1b2c3d4e5f", "game": "chess", "at": AT},
    "start-future-rules": {"t": "start", "id": "0a1b2c3d4e5f", "game": "duet", "rules": 99},
    "start-bad-card": {"t": "start", "id": "0a1b2c3d4e5f", "card": "GGGG / XXXX", "at": AT},
    "start-no-card": {"t": "start", "id": "0a1b2c3d4e5f", "at": AT},
}


def variants(o: Original, quick: bool) -> Iterator[Variant]:
    from damage import Variant

    n = len(o.records)
    spots = (n, n - 1) if quick else (1, n // 2, n - 1, n)
    for name, (make, sound, data) in KINDS.items():
        for pos in spots:
            crafted = make(pos)
            start, end = o.spans[pos] if pos < n else (len(o.data), len(o.data))
            head = o.data[:start]
            kept = o.records[:pos]
            one = [data] if sound is not False and data is not None else []
            torn = b"\n" not in crafted
            must = len(kept) + (1 if sound else 0)
            for where, tail, rest in (
                ("end", b"", []),
                ("instead", o.data[end:], o.records[pos + 1 :]),
                ("before", o.data[start:], []),
            ):
                if pos == n and where != "end":
                    continue
                follow = rest if sound is not False else []
                # In front of record `pos`, a crafted record the loader cuts may be
                # passed over: the original records from `pos` on follow in sequence.
                resync = (kept + o.records[pos:],) if where == "before" and not sound else ()
                yield Variant(
                    f"{o.name}:craft:{name}:{where}:{pos}",
                    head + crafted + tail,
                    must + (len(follow) if sound else 0),
                    kept + one + follow,
                    torn_ok=torn and where == "end",
                    alternatives=resync,
                )
    for name, head_record in STARTS.items():
        yield Variant(
            f"{o.name}:craft:{name}:instead:0",
            line(0, _obj(head_record)) + o.data[o.spans[0][1] :],
            n,
            [head_record, *o.records[1:]],
        )
