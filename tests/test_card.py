"""Duet key cards: the distribution, the card text, the generator, the card codes.

The expectations here are derived from the sources, not from running the code:
the distribution is copied from docs/rules.md ("The table and the key card"), the card text
from docs/design.md ("Contracts", its card text), the code format from the docstring of
rules/cardcode.py (rank in 11 Crockford base-32 digits + a Luhn mod 32 check
symbol), re-implemented here from the textbook algorithms.
"""

from __future__ import annotations

import math
import os
import random
import re
import subprocess
import sys
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from notes_table import NOTES_PAIRS

from keystand.rules import (
    CARD_COUNT,
    DISTRIBUTION,
    Card,
    CardCodeError,
    CardError,
    Key,
    Seat,
    generate,
)
from keystand.rules.cardcode import decode, rank, unrank

# --- independent reference data ----------------------------------------------------------

NOTES_PER_SIDE = {"G": 9, "X": 3, ".": 13}
NAMES = {"G": "agent", "X": "assassin", ".": "bystander"}
LETTER_OF_NAME = {v: k for k, v in NAMES.items()}

CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford base 32: no I, L, O, U
CODE_RE = re.compile(r"^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$")

# The 99.9% quantile of the chi-square distribution with 24 degrees of freedom
# (standard tables: 51.179). test_chi_square_helper checks it against the exact
# survival function below.
CHI2_24_999 = 51.18

SLOW = settings(max_examples=60, deadline=None)
ranks = st.integers(min_value=0, max_value=CARD_COUNT - 1)


def letters(side: tuple[Key, ...]) -> str:
    """A side as its 25 card-text letters (docs/design.md "Contracts": G, X, .)."""
    return "".join(k.value for k in side)


def pair_counts(a: str, b: str) -> Counter[tuple[str, str]]:
    assert len(a) == len(b) == 25
    return Counter(zip(a, b, strict=True))


def assert_valid_duet(card: Card) -> None:
    """The card obeys docs/rules.md "The table and the key card", counted here from its
    two sides."""
    a, b = letters(card.a), letters(card.b)
    assert Counter(a) == NOTES_PER_SIDE
    assert Counter(b) == NOTES_PER_SIDE
    assert pair_counts(a, b) == NOTES_PAIRS
    agents = {i for i in range(25) if a[i] == "G" or b[i] == "G"}
    assert len(agents) == 15
    assert card.all_agents == agents
    assert card.agents(Seat.A) == {i for i in range(25) if a[i] == "G"}
    assert card.agents(Seat.B) == {i for i in range(25) if b[i] == "G"}


def arrangement(seed: int) -> list[tuple[str, str]]:
    """A valid arrangement of the pairs (NOTES_PAIRS, docs/rules.md) on the 25 cells, made here."""
    pairs = [p for p, n in NOTES_PAIRS.items() for _ in range(n)]
    random.Random(seed).shuffle(pairs)
    return pairs


def sides_of(pairs: list[tuple[str, str]]) -> tuple[str, str]:
    return "".join(a for a, _ in pairs), "".join(b for _, b in pairs)


def card_of(a: str, b: str) -> Card:
    """A Card built from letters through the constructor (not through parse)."""
    return Card(tuple(Key(ch) for ch in a), tuple(Key(ch) for ch in b))


REF_A, REF_B = sides_of(arrangement(2024))
REF_TEXT = f"{REF_A}/{REF_B}"


def rows(side: str, sep: str = " ") -> str:
    return sep.join(side[i : i + 5] for i in range(0, len(side), 5))


def luhn_check_symbol(values: list[int], n: int = 32) -> int:
    """Luhn mod N: the check value for `values` (textbook algorithm)."""
    factor, total = 2, 0
    for v in reversed(values):
        addend = factor * v
        factor = 1 if factor == 2 else 2
        total += addend // n + addend % n
    return (n - total % n) % n


def code_from_value(value: int) -> str:
    """A well-formed code for an 11-digit value, built here, with its check symbol."""
    digits = []
    for _ in range(11):
        value, d = divmod(value, 32)
        digits.append(d)
    assert value == 0
    digits.reverse()
    body = "".join(CROCKFORD[d] for d in [*digits, luhn_check_symbol(digits)])
    return f"{body[:4]}-{body[4:8]}-{body[8:]}"


def chi2_sf_even(x: float, dof: int) -> float:
    """P(chi-square with `dof` degrees of freedom > x), exact for even dof.

    For dof = 2k the chi-square survival function is the Poisson sum
    exp(-x/2) * sum_{i<k} (x/2)^i / i!.
    """
    assert dof % 2 == 0
    half = x / 2
    term, total = 1.0, 0.0
    for i in range(dof // 2):
        if i:
            term *= half / i
        total += term
    return math.exp(-half) * total


def chi_square(observed: list[int], expected: list[float]) -> float:
    return sum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True))


def pair_index_sequence(card: Card) -> list[int]:
    order = list(DISTRIBUTION)
    return [order.index((x, y)) for x, y in zip(card.a, card.b, strict=True)]


def next_multiset_permutation(seq: list[int]) -> list[int] | None:
    """The lexicographic successor of `seq` among its rearrangements (Narayana)."""
    s = list(seq)
    i = len(s) - 2
    while i >= 0 and s[i] >= s[i + 1]:
        i -= 1
    if i < 0:
        return None
    j = len(s) - 1
    while s[j] <= s[i]:
        j -= 1
    s[i], s[j] = s[j], s[i]
    s[i + 1 :] = reversed(s[i + 1 :])
    return s


# --- the distribution and the number of cards ----------------------------------------------


def test_distribution_is_the_one_in_notes() -> None:
    as_letters = {(ka.value, kb.value): n for (ka, kb), n in DISTRIBUTION.items()}
    assert as_letters == NOTES_PAIRS
    assert sum(NOTES_PAIRS.values()) == 25


def test_card_count_is_the_multinomial() -> None:
    f = math.factorial
    by_factorials = f(25) // (f(3) * f(5) * f(5) * f(7))  # the four 1! change nothing
    # the same number counted another way: choose the cells of each pair in turn
    by_choices, left = 1, 25
    for n in NOTES_PAIRS.values():
        by_choices *= math.comb(left, n)
        left -= n
    assert by_factorials == by_choices == CARD_COUNT
    assert CARD_COUNT < 32**11  # fits in the 11 code digits


def test_reference_card_is_valid() -> None:
    assert_valid_duet(Card.parse(REF_TEXT))


# --- the generator ---------------------------------------------------------------------------


def test_many_generated_cards_keep_the_distribution() -> None:
    for seed in range(1000):
        assert_valid_duet(generate(seed))


def test_unseeded_cards_are_valid_and_fresh() -> None:
    cards = [generate() for _ in range(20)]
    for card in cards:
        assert_valid_duet(card)
    # 20 draws from 3.5e16 cards: a repeat would mean the draw is not random
    assert len(set(cards)) == 20


@pytest.mark.parametrize("seed", [0, 1, 7, 12345, 2**40 + 3, 10**30])
def test_same_seed_same_card(seed: int) -> None:
    first = generate(seed)
    random.seed(99)  # the global random state must not matter
    random.random()
    assert generate(seed) == first
    assert generate(seed=seed).text == first.text


def test_same_seed_same_card_in_another_process() -> None:
    """A seed names a card across runs (two stands, one seed), whatever the hash seed."""
    prog = "from keystand.rules import generate; print(generate(31337).text)"
    texts = set()
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run(
            [sys.executable, "-c", prog], capture_output=True, text=True, env=env, timeout=60
        )
        assert done.returncode == 0, done.stderr
        texts.add(done.stdout.strip())
    assert texts == {generate(31337).text}


def test_different_seeds_give_different_cards() -> None:
    cards = {generate(seed) for seed in range(300)}
    assert len(cards) == 300


def test_chi_square_helper() -> None:
    # exact values of the survival function: dof 2 is exp(-x/2)
    assert chi2_sf_even(3.0, 2) == pytest.approx(math.exp(-1.5))
    # the tabulated 99.9% quantile for 24 degrees of freedom
    assert chi2_sf_even(CHI2_24_999, 24) == pytest.approx(0.001, rel=0.01)
    # the 95% quantile for 8 degrees of freedom is 15.507
    assert chi2_sf_even(15.507, 8) == pytest.approx(0.05, rel=0.01)


def assassin_assassin_cell(card: Card) -> int:
    (cell,) = [i for i in range(25) if (card.a[i], card.b[i]) == (Key.ASSASSIN, Key.ASSASSIN)]
    return cell


def test_assassin_assassin_cell_is_uniform() -> None:
    """Chi-square goodness of fit of where the X/X cell falls, 5000 fixed seeds.

    Deterministic (fixed seeds), so it cannot flake; a uniform generator passes
    a 0.1% test with probability 0.999, a biased one fails it (see below).
    """
    n = 5000
    where = Counter(assassin_assassin_cell(generate(seed)) for seed in range(n))
    observed = [where[i] for i in range(25)]
    stat = chi_square(observed, [n / 25] * 25)
    assert stat < CHI2_24_999, (stat, observed)
    assert chi2_sf_even(stat, 24) > 0.001


def test_pair_on_the_first_cell_follows_the_distribution() -> None:
    """Which pair lands on cell 0: each with probability (its count) / 25."""
    n = 5000
    order = list(DISTRIBUTION)
    seen = Counter((c.a[0], c.b[0]) for c in (generate(seed) for seed in range(10_000, 10_000 + n)))
    observed = [seen[p] for p in order]
    expected = [n * NOTES_PAIRS[(ka.value, kb.value)] / 25 for ka, kb in order]
    stat = chi_square(observed, expected)
    assert chi2_sf_even(stat, len(order) - 1) > 0.001, (stat, observed)


def test_the_uniformity_test_sees_a_biased_generator() -> None:
    """The same statistic on a generator that only draws from the first 1/1000 of
    the ranks (cards that start with the lexicographically first pairs)."""
    rng = random.Random(5)
    n = 5000
    where = Counter(
        assassin_assassin_cell(unrank(rng.randrange(CARD_COUNT // 1000))) for _ in range(n)
    )
    stat = chi_square([where[i] for i in range(25)], [n / 25] * 25)
    assert stat > CHI2_24_999


# --- card text -------------------------------------------------------------------------------


@given(ranks)
@SLOW
def test_card_text_round_trips(r: int) -> None:
    card = unrank(r)
    assert Card.parse(card.text) == card
    compact = re.sub(r"\s", "", card.text)
    assert compact == f"{letters(card.a)}/{letters(card.b)}"


def test_parse_reads_the_sides_in_table_order() -> None:
    card = Card.parse(REF_TEXT)
    assert letters(card.a) == REF_A
    assert letters(card.b) == REF_B
    assert card.side(Seat.A) == card.a
    assert card.side(Seat.B) == card.b
    assert card == card_of(REF_A, REF_B)


@pytest.mark.parametrize(
    "text",
    [
        f"{REF_A}/{REF_B}",
        f"{rows(REF_A)} / {rows(REF_B)}",
        f"{rows(REF_A, chr(10))}\n/\n{rows(REF_B, chr(10))}\n",
        f"  {' '.join(REF_A)}\t/\t{' '.join(REF_B)}  ",
        f"{rows(REF_A, chr(13) + chr(10))}\r\n/\r\n{rows(REF_B, chr(13) + chr(10))}\r\n",
        f"{REF_A.lower()}/{REF_B.lower()}",
        f"{rows(REF_A).lower()} / {rows(REF_B)}",
    ],
    ids=["compact", "rows", "newlines", "spaced-tabs", "crlf", "lowercase", "mixed-case"],
)
def test_parse_ignores_whitespace_and_case(text: str) -> None:
    assert Card.parse(text) == card_of(REF_A, REF_B)


@pytest.mark.parametrize(
    ("text", "slashes"),
    [
        (REF_A + REF_B, 0),
        (REF_A, 0),
        ("", 0),
        (f"{REF_A}/{REF_B}/", 2),
        (f"{REF_A}//{REF_B}", 2),
        (f"{REF_A[:10]}/{REF_A[10:]}/{REF_B}", 2),
        (f"{REF_A}/{REF_B}/{REF_A}/{REF_B}", 3),
    ],
)
def test_a_card_needs_exactly_one_slash(text: str, slashes: int) -> None:
    with pytest.raises(CardError) as info:
        Card.parse(text)
    message = str(info.value)
    assert "'/'" in message or "slash" in message
    assert re.search(rf"\b{slashes}\b", message), message


@pytest.mark.parametrize("side", ["A", "B"])
@pytest.mark.parametrize(
    ("cell", "bad"), [(0, "R"), (7, "u"), (12, "0"), (13, "*"), (24, "ä"), (19, "-")]
)
def test_a_wrong_character_is_named_with_its_side_and_cell(side: str, cell: int, bad: str) -> None:
    a, b = list(REF_A), list(REF_B)
    target = a if side == "A" else b
    target[cell] = bad
    # rows of five: the spaces before the bad character must not shift its cell number
    text = f"{rows(''.join(a))} /\n{rows(''.join(b), chr(10))}"
    with pytest.raises(CardError) as info:
        Card.parse(text)
    error = info.value
    message = str(error)
    assert error.side == side
    assert f"side {side}" in message
    assert repr(bad) in message
    assert re.search(rf"\bcell {cell}\b", message), message


@pytest.mark.parametrize("side", ["A", "B"])
@pytest.mark.parametrize("length", [0, 1, 24, 26, 50])
def test_a_side_of_the_wrong_length_is_named(side: str, length: int) -> None:
    short = (REF_A * 2)[:length]
    a, b = (short, REF_B) if side == "A" else (REF_A, short)
    with pytest.raises(CardError) as info:
        Card.parse(f"{rows(a)} / {rows(b)}")
    error = info.value
    message = str(error)
    assert error.side == side
    assert f"side {side}" in message
    assert re.search(rf"\b{length}\b", message), message
    assert re.search(r"\b25\b", message), message


SIDE_COUNT_RE = re.compile(r"side ([AB]): (\d+) (agent|assassin|bystander)s?, expected (\d+)")


@pytest.mark.parametrize("side", ["A", "B"])
@pytest.mark.parametrize(
    ("old", "new"), [("G", "."), (".", "G"), ("X", "G"), ("G", "X"), (".", "X"), ("X", ".")]
)
def test_a_side_with_wrong_counts_is_named(side: str, old: str, new: str) -> None:
    a, b = list(REF_A), list(REF_B)
    target = a if side == "A" else b
    target[target.index(old)] = new
    counts = Counter(target)
    with pytest.raises(CardError) as info:
        Card.parse(f"{''.join(a)}/{''.join(b)}")
    error = info.value
    assert error.side == side
    match = SIDE_COUNT_RE.search(str(error))
    assert match, str(error)
    named_side, found, name, expected = match.groups()
    letter = LETTER_OF_NAME[name]
    assert named_side == side
    assert letter in (old, new)  # one of the two kinds that are off
    assert int(found) == counts[letter]
    assert int(expected) == NOTES_PER_SIDE[letter]
    assert int(found) != int(expected)


def test_a_side_of_all_agents_is_refused() -> None:
    with pytest.raises(CardError) as info:
        Card.parse(f"{'G' * 25}/{REF_B}")
    assert info.value.side == "A"


PAIR_RE = re.compile(
    r"(\d+) cells? (?:are|is) (agent|assassin|bystander) on side A and "
    r"(agent|assassin|bystander) on side B, expected (\d+)(?: \(cells? ([\d, ]+)\))?"
)


def assert_names_an_off_pair(error: CardError, a: str, b: str) -> None:
    counts = pair_counts(a, b)
    match = PAIR_RE.search(str(error))
    assert match, str(error)
    found, name_a, name_b, expected, cells = match.groups()
    pair = (LETTER_OF_NAME[name_a], LETTER_OF_NAME[name_b])
    assert int(found) == counts[pair]
    assert int(expected) == NOTES_PAIRS.get(pair, 0)
    assert int(found) != int(expected)
    if cells is not None:
        listed = {int(c) for c in cells.split(",")}
        assert listed == {i for i in range(25) if (a[i], b[i]) == pair}


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (("G", "G"), (".", ".")),
        (("X", "X"), ("G", "G")),
        (("G", "."), (".", "G")),
        (("X", "."), (".", "X")),
        (("G", "X"), ("X", "G")),
    ],
)
def test_sides_fine_but_pairs_off_names_the_pair(
    first: tuple[str, str], second: tuple[str, str]
) -> None:
    pairs = arrangement(7)
    i, j = pairs.index(first), pairs.index(second)
    # swap side B of the two cells: each side keeps 9/3/13, the pairs change
    pairs[i], pairs[j] = (first[0], second[1]), (second[0], first[1])
    a, b = sides_of(pairs)
    assert Counter(a) == Counter(b) == NOTES_PER_SIDE
    assert pair_counts(a, b) != NOTES_PAIRS
    with pytest.raises(CardError) as info:
        Card.parse(f"{a}/{b}")
    assert info.value.side is None
    assert_names_an_off_pair(info.value, a, b)
    with pytest.raises(CardError):
        card_of(a, b)


@given(ranks, st.data())
@SLOW
def test_any_swap_of_unlike_cells_on_one_side_is_refused(r: int, data: st.DataObject) -> None:
    card = unrank(r)
    a, b = letters(card.a), letters(card.b)
    i = data.draw(st.integers(0, 24))
    others = [j for j in range(25) if a[j] != a[i] and b[j] != b[i]]
    j = data.draw(st.sampled_from(others))
    bl = list(b)
    bl[i], bl[j] = bl[j], bl[i]
    b2 = "".join(bl)
    with pytest.raises(CardError) as info:
        Card.parse(f"{a}/{b2}")
    assert_names_an_off_pair(info.value, a, b2)


# --- rank and unrank -------------------------------------------------------------------------


def test_the_first_and_last_ranks_are_valid_cards() -> None:
    first, last = unrank(0), unrank(CARD_COUNT - 1)
    assert_valid_duet(first)
    assert_valid_duet(last)
    assert rank(first) == 0
    assert rank(last) == CARD_COUNT - 1
    seq = pair_index_sequence(first)
    assert seq == sorted(seq)  # the smallest arrangement
    seq = pair_index_sequence(last)
    assert seq == sorted(seq, reverse=True)  # the largest one


@pytest.mark.parametrize("bad", [-1, CARD_COUNT, CARD_COUNT + 1, 32**11])
def test_unrank_refuses_ranks_out_of_range(bad: int) -> None:
    with pytest.raises(ValueError):
        unrank(bad)


@given(ranks)
@SLOW
def test_rank_and_unrank_are_inverse(r: int) -> None:
    card = unrank(r)
    assert_valid_duet(card)
    assert rank(card) == r
    assert unrank(rank(card)) == card


@given(ranks, ranks)
@SLOW
def test_rank_order_is_the_lexicographic_order(r1: int, r2: int) -> None:
    s1, s2 = pair_index_sequence(unrank(r1)), pair_index_sequence(unrank(r2))
    assert (r1 < r2) == (s1 < s2)
    assert (r1 == r2) == (s1 == s2)


@given(st.integers(min_value=0, max_value=CARD_COUNT - 2))
@SLOW
def test_the_next_rank_is_the_next_arrangement(r: int) -> None:
    assert pair_index_sequence(unrank(r + 1)) == next_multiset_permutation(
        pair_index_sequence(unrank(r))
    )


def test_every_generated_card_has_a_rank_in_range() -> None:
    for seed in range(200):
        card = generate(seed)
        assert 0 <= rank(card) < CARD_COUNT
        assert unrank(rank(card)) == card


# --- card codes ------------------------------------------------------------------------------


@given(ranks)
@SLOW
def test_card_codes_round_trip(r: int) -> None:
    card = unrank(r)
    code = card.code
    assert CODE_RE.match(code), code
    assert Card.from_code(code) == card
    assert decode(code) == card
    # the code is the rank in 11 base-32 digits, then its Luhn mod 32 check symbol
    assert code == code_from_value(r)


def test_codes_of_text_cards_round_trip() -> None:
    for seed in range(100):
        pairs = arrangement(seed)
        a, b = sides_of(pairs)
        card = Card.parse(f"{rows(a)} / {rows(b)}")
        assert Card.from_code(card.code) == card
        assert Card.parse(Card.from_code(card.code).text) == card


def test_generated_codes_differ() -> None:
    codes = {generate(seed).code for seed in range(300)}
    assert len(codes) == 300


@given(ranks)
@settings(max_examples=25, deadline=None)
def test_every_single_symbol_typo_is_detected(r: int) -> None:
    code = unrank(r).code
    symbols = [k for k, ch in enumerate(code) if ch != "-"]
    assert len(symbols) == 12
    for k in symbols:
        for wrong in CROCKFORD:
            if wrong == code[k]:
                continue
            typo = code[:k] + wrong + code[k + 1 :]
            with pytest.raises(CardCodeError):
                Card.from_code(typo)


@given(ranks)
@settings(max_examples=25, deadline=None)
def test_typos_into_look_alikes_are_detected_too(r: int) -> None:
    """O, I and L are read as 0, 1, 1: typed for any other symbol they are a typo."""
    code = unrank(r).code
    alias = {"O": "0", "I": "1", "L": "1"}
    for k, ch in enumerate(code):
        if ch == "-":
            continue
        for wrong, means in alias.items():
            if means == ch:
                continue
            with pytest.raises(CardCodeError):
                Card.from_code(code[:k] + wrong + code[k + 1 :])


def test_codes_are_read_leniently() -> None:
    card = unrank(1)  # rank 1: ten 0 digits, a 1, and its check symbol
    code = card.code
    assert code.count("0") >= 10 and "1" in code
    body = code.replace("-", "")
    variants = [
        code.lower(),
        body,
        body.lower(),
        " ".join(body),
        f"{body[:4]} {body[4:8]} {body[8:]}",
        code.replace("0", "O"),
        code.replace("0", "o"),
        code.replace("1", "I"),
        code.replace("1", "i"),
        code.replace("1", "L"),
        code.replace("1", "l"),
    ]
    for variant in variants:
        assert Card.from_code(variant) == card, variant


@pytest.mark.parametrize("cut", [0, 1, 11, 13, 24])
def test_a_code_of_the_wrong_length_is_named(cut: int) -> None:
    body = (unrank(0).code.replace("-", "") * 2)[:cut]
    with pytest.raises(CardCodeError) as info:
        Card.from_code(body)
    message = str(info.value)
    assert re.search(rf"\b{cut}\b", message), message
    assert re.search(r"\b12\b", message), message
    assert info.value.code == body


def test_the_example_in_the_wrong_length_message_is_a_real_code() -> None:
    with pytest.raises(CardCodeError) as info:
        Card.from_code("ABC")
    examples = re.findall(r"[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}", str(info.value))
    assert examples, str(info.value)
    for example in examples:
        assert_valid_duet(Card.from_code(example))


@pytest.mark.parametrize("position", [1, 5, 12])
@pytest.mark.parametrize("bad", ["U", "u", "*", "#", "é", "_"])
def test_a_bad_symbol_is_named_with_its_position(position: int, bad: str) -> None:
    body = list(unrank(0).code.replace("-", ""))  # all 0s: no digit to confuse with a position
    body[position - 1] = bad
    code = "".join(body)
    with pytest.raises(CardCodeError) as info:
        Card.from_code(f"{code[:4]}-{code[4:8]}-{code[8:]}")
    message = str(info.value)
    assert bad in message or bad.upper() in message
    assert re.search(rf"\b{position}\b", message), message


def test_codes_beyond_the_last_card_are_refused() -> None:
    assert Card.from_code(code_from_value(CARD_COUNT - 1)) == unrank(CARD_COUNT - 1)
    for value in (CARD_COUNT, CARD_COUNT + 12345, 32**11 - 1):
        code = code_from_value(value)  # a correct check symbol, no such card
        with pytest.raises(CardCodeError):
            Card.from_code(code)


def test_code_errors_are_card_errors_and_value_errors() -> None:
    with pytest.raises(CardError):
        Card.from_code("nonsense")
    with pytest.raises(ValueError):
        Card.from_code("0000-0000-0001")
