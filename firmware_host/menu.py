"""A seat's menu: its entries, where the seat is in it, and what each key does there.

In a seat's menu: clue moves up, pass down, menu chooses, undo goes back; in
the history, clue pages up (newer games), pass down (older), undo or menu go
back to the entries; a game's record (its `record`) pages the same way. A key
changes the menu and the settings it edits (`Menu.press`); what it asks of the
game (deal, call the clue invalid, calibrate the grid, read the history, close)
comes back as a `Choice` for the stand to carry out.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from typing import Any

from keystand.drivers.inputs import KeyName

from . import games
from .rules import Seat
from .settings import LANGUAGES, Settings


class Item(enum.Enum):
    """The stand's own menu entries. Each game lists the ones it has, top to bottom,
    with its own settings between (its `menu_items`, its `settings`); the menu
    opens on Close, so a double press of the menu key closes it again instead of
    doing anything."""

    CLOSE = "close"
    NEW_GAME = "new_game"
    PENALTY = "penalty"
    LANGUAGE = "language"
    HISTORY = "history"
    GAME = "game"  # deals a new game of the next game there is (games.names())
    CALIBRATE = "calibrate"  # only on a stand with a touch grid


@dataclass(frozen=True)
class RecordEntry:
    """One of the two entries of a game's record (its `record`): its page of wins
    (`name`), or, `begins`, a new one begun (`new_item`; the old one is kept,
    finished)."""

    name: str
    begins: bool = False


# A stand's entry, one of the game's own settings, or one of its record's.
Entry = Item | games.Setting[Any] | RecordEntry


def entry_name(entry: Entry) -> str:
    """An entry's name: the screens' label key, and its name in a game's `menu_items`."""
    if isinstance(entry, games.Setting):
        return entry.item
    return entry.name if isinstance(entry, RecordEntry) else entry.value


def waiting(
    settings: Settings, started: games.Options | None, own: tuple[games.Setting[Any], ...]
) -> frozenset[games.Setting[Any]]:
    """The game's settings (`own`) whose choice in `settings` waits for the next
    game: the rules fix it at the start and it differs from what the game in play
    started with (`started`; None: no game in play, so the next game is dealt
    with them as they are). Every other entry acts at once (the turn timer times
    the turn in play; Game deals at once)."""
    if started is None:
        return frozenset()
    return frozenset(s for s in own if s.next_game and settings.of(s) != started.get(s))


# The newest finished games the History entry pages through, a few to a page
# (as many as the panel has rows).
HISTORY_GAMES = 50


def items_of(game: str) -> tuple[Entry, ...]:
    """The menu entries of the game called `game`, top to bottom: its own settings
    and its record's entries by their entry's name, the stand's entries by theirs."""
    found = games.get(game)
    own: dict[str, Entry] = {setting.item: setting for setting in found.settings}
    if found.record is not None:
        own[found.record.name] = RecordEntry(found.record.name)
        own[found.record.new_item] = RecordEntry(found.record.new_item, begins=True)
    return tuple(own[name] if name in own else Item(name) for name in found.menu_items)


class Do(enum.Enum):
    """What a key in the menu asks of the stand, beyond the menu and the settings."""

    STAY = "stay"  # nothing more: the menu shows the key's effect
    CLOSE = "close"  # the seat's menu closes
    DEAL = "deal"  # a new game (of `Choice.game`; None: the settings' game)
    PENALTY = "penalty"  # the menu closes and the clue is called invalid
    CALIBRATE = "calibrate"  # the menu closes and the next touch sets the grid
    HISTORY = "history"  # the finished games are read into the menu
    RECORD = "record"  # the game's record is read into the menu
    NEW_RECORD = "new_record"  # the game's record in play is finished, a new one begun


@dataclass(frozen=True)
class Choice:
    """The settings after a key in the menu, and what the stand is to do."""

    settings: Settings
    do: Do = Do.STAY
    game: str | None = None  # the game to deal (Do.DEAL)


@dataclass
class Menu:
    seat: Seat
    index: int = 0
    items: tuple[Entry, ...] = field(default_factory=lambda: items_of(games.DEFAULT))
    editing: str | None = None  # the field of a setting stepped on the keys (its `fields`)
    # New game, Game (a game in play), Invalid clue or a new record chosen once.
    confirming: bool = False
    custom: bool = False  # a setting's numbers were just stepped: the next choice starts over
    history: list[dict[str, Any]] | None = None  # finished games, while shown
    record: dict[str, Any] | None = None  # the game's record (the store's object), while shown
    # The history's page: pass counts it up, clue down; the screen takes it modulo
    # its number of pages (a panel's rows per page are the layout's), so it wraps.
    page: int = 0

    @property
    def item(self) -> Entry:
        return self.items[self.index]

    def meaning(self, key: KeyName) -> str:
        """What `key` does in the menu now: a word of the screens' [key] table, the
        label beside the key (`press` does it)."""
        if self.history is not None:
            return _HISTORY_KEYS[key]
        if self.record is not None:
            return _PAGE_KEYS[key]
        item = self.item
        if self.editing is not None and isinstance(item, games.Setting):
            last = self.editing == item.fields[-1]  # menu: the next field, or done
            return "done" if last and key is KeyName.MENU else _EDIT_KEYS[key]
        return _MENU_KEYS[key]

    def press(self, key: KeyName, settings: Settings, playing: bool) -> Choice:
        """The menu after `key`, with `settings` as they are and a game in play or not."""
        if key is not KeyName.MENU:
            self.confirming = False
        if self.history is not None or self.record is not None:
            if key is KeyName.CLUE:
                self.page -= 1
            elif key is KeyName.PASS:
                self.page += 1
            else:  # undo or menu: back to the entries
                self.history, self.record, self.page = None, None, 0
            return Choice(settings)
        item = self.item
        if self.editing and isinstance(item, games.Setting):
            return Choice(self._edit(item, key, settings))
        if key is KeyName.CLUE:
            self.index = (self.index - 1) % len(self.items)
        elif key is KeyName.PASS:
            self.index = (self.index + 1) % len(self.items)
        elif key is KeyName.UNDO:
            return Choice(settings, Do.CLOSE)
        elif key is KeyName.MENU:
            return self._choose(settings, playing)
        return Choice(settings)

    def _choose(self, s: Settings, playing: bool) -> Choice:
        item = self.item
        if isinstance(item, games.Setting):  # the game's own: it says what a press does
            value, edit = item.next(s.of(item), self.seat, self.custom)
            if item.fields:
                self.custom = False
            self.editing = item.fields[0] if edit else None
            return Choice(s.choosing(item, value))
        if item in (Item.NEW_GAME, Item.GAME):
            if playing and not self.confirming:
                self.confirming = True  # a game in play: once more to leave it
                return Choice(s)
            if item is Item.GAME:  # the next game of all there are, dealt at once
                names = games.names()
                at = names.index(s.game) if s.game in names else -1
                return Choice(s, Do.DEAL, names[(at + 1) % len(names)])
            return Choice(s, Do.DEAL)
        if item is Item.LANGUAGE:
            i = 0 if self.seat is Seat.A else 1
            langs = list(s.lang)
            langs[i] = LANGUAGES[(LANGUAGES.index(langs[i]) + 1) % len(LANGUAGES)]
            return Choice(replace(s, lang=(langs[0], langs[1])))
        if item is Item.PENALTY:
            if not self.confirming:  # it costs a token and ends the turn: once more
                self.confirming = True
                return Choice(s)
            return Choice(s, Do.PENALTY)
        if isinstance(item, RecordEntry):
            if not item.begins:
                return Choice(s, Do.RECORD)
            if not self.confirming:  # the team's record is put away: once more
                self.confirming = True
                return Choice(s)
            return Choice(s, Do.NEW_RECORD)
        return Choice(s, _DOES[item])

    def _edit(self, setting: games.Setting[Any], key: KeyName, s: Settings) -> Settings:
        """A key while `setting`'s numbers are stepped: clue +1, pass -1, menu on to
        the next field (after the last: done), undo done."""
        assert self.editing is not None
        step = {KeyName.CLUE: 1, KeyName.PASS: -1}.get(key, 0)
        value = setting.nudge(s.of(setting), self.editing, step)
        if key is KeyName.MENU:
            at = setting.fields.index(self.editing) + 1
            self.editing = setting.fields[at] if at < len(setting.fields) else None
        elif key is KeyName.UNDO:
            self.editing = None
        self.custom = self.editing is None
        return s.choosing(setting, value)


# What each key does in the menu (`Menu.meaning`): the entries, the history's
# pages, a setting's numbers being stepped.
_MENU_KEYS = {
    KeyName.CLUE: "up",
    KeyName.PASS: "down",
    KeyName.UNDO: "back",
    KeyName.MENU: "choose",
}
_HISTORY_KEYS = {
    KeyName.CLUE: "newer",
    KeyName.PASS: "older",
    KeyName.UNDO: "back",
    KeyName.MENU: "back",
}
_PAGE_KEYS = {KeyName.CLUE: "up", KeyName.PASS: "down", KeyName.UNDO: "back", KeyName.MENU: "back"}
_EDIT_KEYS = {
    KeyName.CLUE: "plus",
    KeyName.PASS: "minus",
    KeyName.UNDO: "done",
    KeyName.MENU: "next_field",
}

# The entries that only ask something of the stand.
_DOES = {
    Item.CALIBRATE: Do.CALIBRATE,
    Item.HISTORY: Do.HISTORY,
    Item.CLOSE: Do.CLOSE,
}
