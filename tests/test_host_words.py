"""No host module speaks a game: the words each game declares as its own (`Game.words`)
and its settings' names (`Game.settings`: entries, keys, options) appear in no
host module's code: its names, its attributes, its keywords and its strings (a
docstring or a comment may name a game as an example). The host asks the game in
play instead (docs/games.md). Import-linter's `no-game-modules` keeps the host
off the games' modules; this keeps their vocabulary out.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from keystand import games

HOST = Path(__file__).resolve().parent.parent / "firmware_host"
# What is still a game's in the host, module by module, and only shrinks (a word
# listed here that a module no longer uses fails the test, as import-linter's
# ignore_imports would). Empty: Duet's campaign is its `record` (games/record.py).
LEFT: dict[str, set[str]] = {}


def game_words() -> dict[str, str]:
    """Each shipped game's words and its settings' names (those of more than one
    word: a setting's plain English name, "order", is everyone's), by the game."""
    words: dict[str, str] = {}
    for name in games.SHIPPED:
        game = games.get(name)
        own = set(game.words)
        for s in game.settings:
            names = {s.item, s.key, *(s.flag.lstrip("-") for s in [s] if s.flag)}
            own |= {n.replace("-", "_") for n in names if "_" in n or "-" in n}
        words.update((w, name) for w in own)
    return words


def texts(tree: ast.Module) -> list[tuple[int, str]]:
    """Every name, attribute, argument, keyword and string of the code, docstrings
    aside, with its line."""
    docs = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    found = []
    for node in ast.walk(tree):
        text = None
        if isinstance(node, ast.Name):
            text = node.id
        elif isinstance(node, ast.Attribute | ast.alias):
            text = node.attr if isinstance(node, ast.Attribute) else node.name
        elif isinstance(node, ast.FunctionDef | ast.ClassDef | ast.arg | ast.keyword):
            text = node.name if hasattr(node, "name") else getattr(node, "arg", None)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value if id(node) not in docs else None
        if text:
            found.append((getattr(node, "lineno", 0), text))
    return found


def spoken(text: str, word: str) -> bool:
    """Whether `text` says `word`: as a whole word of its own, or in the plural,
    in any case, in a snake_case name or in prose."""
    flat = text.lower().replace("-", "_")
    if "_" in word:
        return word in flat
    return bool({word, word + "s"} & set(re.findall(r"[a-z]+", flat)))


def host_modules() -> list[Path]:
    """Every host module, in packages too (the stand's parts): games/ and rules/
    are the games' own."""
    own = (HOST / "games", HOST / "rules")
    return sorted(p for p in HOST.rglob("*.py") if not any(p.is_relative_to(g) for g in own))


def test_the_games_declare_their_words() -> None:
    words = game_words()
    assert {"mission", "loose_order", "first_clue"} <= {w for w, g in words.items() if g == "duet"}
    assert {"spymaster", "operative"} <= {w for w, g in words.items() if g == "classic"}


@pytest.mark.parametrize("path", host_modules(), ids=lambda p: str(p.relative_to(HOST)))
def test_no_host_module_speaks_a_game(path: Path) -> None:
    words = game_words()
    said: dict[str, list[str]] = {}
    for line, text in texts(ast.parse(path.read_text(encoding="utf-8"))):
        for word in words:
            if spoken(text, word):
                said.setdefault(word, []).append(f"line {line}: {text[:50]!r}")
    name = str(path.relative_to(HOST))
    left = LEFT.get(name, set())
    extra = {w: said[w] for w in said if w not in left}
    assert not extra, f"{name} speaks {sorted({words[w] for w in extra})}'s words: {extra}"
    gone = left - set(said)
    assert not gone, f"{name} no longer says {sorted(gone)}: take them off LEFT"
