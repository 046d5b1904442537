"""What the next new game is played with, and each seat's language: the menu's
choices, as the stand keeps them and as settings.json saves them. A game's own
choices are its `settings` (keystand.games), kept here by their keys.

No I/O: the stand hands the store what `Settings.saved` gives and reads back
what `Settings.loaded` checks; `Unsaved` keeps the choices the disk refused
until a retry saves them.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from . import games
from .rules import Seat

log = logging.getLogger(__name__)
T = TypeVar("T")

UNDO_WINDOW = 5.0
LANGUAGES = ("en", "de", "ru")
SAVE_RETRY = 5.0  # seconds between tries to save settings the disk refused


@dataclass(frozen=True)
class Settings:
    """What the next new game is played with, and each seat's language."""

    game: str = games.DEFAULT  # the game the next new game is (a name `games.get` takes)
    # The games' own settings' values (each game's `settings`, by key): the next
    # game of that game starts with them.
    options: games.Options = games.Options()  # noqa: RUF009 (a frozen, empty value)
    # settings.json's values of the games not loaded yet, as the file has them: read
    # (`of`) when that game is played, saved back as they were until then.
    unread: tuple[tuple[str, Any], ...] = ()
    lang: tuple[str, str] = ("en", "en")  # seat A, seat B
    undo_window: float = UNDO_WINDOW
    # How long the end screen holds back the key, so both seats can still undo a
    # stray last touch: once they have seen the whole card the game cannot go on.
    reveal_delay: float = 10.0

    def lang_of(self, seat: Seat) -> str:
        return self.lang[0 if seat is Seat.A else 1]

    def of(self, setting: games.Setting[T]) -> T:
        """The value chosen for one of a game's settings (its default: none chosen,
        or the file's is not one)."""
        raw = dict(self.unread)
        if setting.key in raw:
            try:
                return setting.loaded(raw[setting.key])
            except ValueError:
                return setting.default
        return self.options.get(setting)

    def of_game(self, game: games.AnyGame) -> games.Options:
        """The values of `game`'s settings, as its next new game starts with them."""
        options = games.Options()
        for setting in game.settings:
            options = options.with_(setting, self.of(setting))
        return options

    def choosing(self, setting: games.Setting[T], value: T) -> Settings:
        unread = tuple((k, v) for k, v in self.unread if k != setting.key)
        return replace(self, options=self.options.with_(setting, value), unread=unread)

    def started(self, game: games.AnyGame, options: games.Options) -> Settings:
        """These settings with the choices a game of `game` was started with."""
        s = self
        for setting in game.settings:
            s = s.choosing(setting, options.get(setting))
        return s

    def saved(self) -> dict[str, Any]:
        """The choices settings.json keeps (the delays are the build's, not the menu's)."""
        return {
            "game": self.game,
            **dict(self.unread),
            **{s.key: s.saved(self.of(s)) for game in games.loaded() for s in game.settings},
            **self.options.saved(),
            "lang": list(self.lang),
        }

    def loaded(self, data: dict[str, Any]) -> Settings:
        """These settings with the saved choices in `data`, each checked; a bad one
        keeps its value here and the log names it."""
        s = self
        name = data.get("game", s.game)
        if isinstance(name, str) and games.known(name):
            s = replace(s, game=name.strip().lower())
        else:
            log.warning("settings.json: game %r: expected one of %s", name, games.names())
        known = (*games.loaded(), games.get(s.game))
        own = {setting.key: setting for g in known for setting in g.settings}
        kept = ("game", "lang")  # the stand's own; another game's settings are kept unread
        s = replace(s, unread=tuple((k, v) for k, v in data.items() if k not in (*own, *kept)))
        for setting in own.values():
            if setting.key not in data:
                continue
            try:
                s = s.choosing(setting, setting.loaded(data[setting.key]))
            except ValueError as e:
                kept = setting.saved(s.of(setting))
                log.warning(
                    "settings.json: %s %r: %s; kept %s", setting.key, data[setting.key], e, kept
                )
        langs = data.get("lang")
        if isinstance(langs, list) and len(langs) == 2 and all(x in LANGUAGES for x in langs):
            s = replace(s, lang=(langs[0], langs[1]))
        return s


@dataclass
class Unsaved:
    """Choices the disk refused: they hold for this run and are tried again every
    `SAVE_RETRY` seconds until saved. `seats` are the seats whose screens say so
    (None: a start-up choice); when the last try was is no screen's business."""

    seats: set[Seat | None] = field(default_factory=set)
    tried_at: float | None = field(default=None, compare=False)

    def due(self, now: float) -> bool:
        """Whether there is something to save and it is time to try again."""
        tried = self.tried_at
        return bool(self.seats) and (tried is None or now - tried >= SAVE_RETRY)

    def tried(self, now: float | None, error: OSError | None) -> bool:
        """Note one try to save (at `now`; None: not by the clock) and how it went;
        True if saved. The failure is logged once, the saving after it too."""
        self.tried_at = now
        if error is not None:
            if not self.seats:
                log.error("cannot save the settings (%s); tried again until there is room", error)
            return False
        if self.seats:
            log.info("the settings are saved")
            self.seats.clear()
        return True
