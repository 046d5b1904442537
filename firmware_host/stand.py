"""The stand: what each input means now, and the game it changes.

Owned by the service loop (one thread); no I/O but the store. An input becomes
a rules event, a menu step or nothing; an accepted rules event is journaled
(fsync) before `handle` returns, and only then may anything draw its result.

Keys of a seat (labelled on the stand): clue, pass, undo, menu.
- In a game: clue gives the clue (in sudden death: "I am guessing"), pass ends
  the turn, undo asks to take back the last event (both seats must press undo
  within `undo_window` seconds: one player alone cannot take back a guess), a
  long press of menu opens that seat's menu.
- In a seat's menu: clue moves up, pass down, menu chooses, undo goes back.
  The menu is drawn on that seat's screen only and shows no key.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from keystand.drivers.inputs import Act, InputEvent, KeyName, Press, Touch

from . import rules
from .journal import JournalError
from .rules import Duet, Mission, Outcome, Rejection, Seat, Status
from .rules.mission import MAX_TURNS
from .store import Resumed, Store

log = logging.getLogger(__name__)

UNDO_WINDOW = 5.0
LANGUAGES = ("en", "de", "ru")
MISSIONS = (
    rules.Mission(9, 9),
    rules.Mission(10, 10),
    rules.Mission(11, 11),
    rules.NAMED["moscow"],
    rules.NAMED["cairo"],
    rules.NAMED["jakarta"],
    rules.NAMED["singapore"],
)


@dataclass(frozen=True)
class Settings:
    """What the next new game is played with, and each seat's language."""

    mission: Mission = rules.STANDARD
    loose_order: bool = False
    first: Seat | None = None  # who gives the first clue (None: either, as the rulebook)
    lang: tuple[str, str] = ("en", "en")  # seat A, seat B
    undo_window: float = UNDO_WINDOW
    # How long the end screen holds back the key, so both seats can still undo a
    # stray last touch: once they have seen the whole card the game cannot go on.
    reveal_delay: float = 10.0

    def lang_of(self, seat: Seat) -> str:
        return self.lang[0 if seat is Seat.A else 1]


class Item(enum.Enum):
    """The menu's entries, top to bottom. The menu opens on Close, so a double
    press of the menu key closes it again instead of doing anything."""

    CLOSE = "close"
    NEW_GAME = "new_game"
    MISSION = "mission"
    ORDER = "order"
    FIRST_CLUE = "first_clue"
    LANGUAGE = "language"
    PENALTY = "penalty"
    HISTORY = "history"


@dataclass
class Menu:
    seat: Seat
    index: int = 0
    editing: str | None = None  # "turns" or "mistakes" while a custom mission is set
    confirming: bool = False  # New game chosen once while a game is in play
    custom: bool = False  # a custom mission was just set: the next choice starts over
    history: list[dict[str, Any]] | None = None  # finished games, while shown

    @property
    def item(self) -> Item:
        return list(Item)[self.index]


@dataclass
class UndoRequest:
    seat: Seat
    at: float


@dataclass
class Stand:
    """The game, the menus and the pending undo of one stand."""

    store: Store
    settings: Settings = field(default_factory=Settings)
    new_card: Callable[[], rules.Card] = rules.generate
    state: Duet | None = None
    menus: dict[Seat, Menu] = field(default_factory=dict)
    undo_request: UndoRequest | None = None
    full_refresh: bool = True  # the next frames want a full refresh
    version: int = 0  # goes up with every change a screen may show
    ended_at: float | None = None  # when the game in play ended (None: not, or long ago)
    fault: str | None = None  # why the last accepted input could not be saved (not taken)

    # ----- start-up -------------------------------------------------------------------

    def boot(self) -> Resumed | None:
        """Resume the journaled game, or deal a new one: the stand boots into a game."""
        try:
            resumed = self.store.resume()
        except JournalError as e:  # kept aside by the store: nothing is lost
            log.warning("%s; dealing a new game", e)
            resumed = None
        if resumed is None:
            self.new_game()
        else:
            self.state = resumed.state
            self.settings = replace(
                self.settings,
                mission=resumed.state.mission,
                loose_order=resumed.state.loose_order,
                first=resumed.state.first,
            )
        self.full_refresh = True
        self.version += 1
        return resumed

    def new_game(self) -> None:
        previous = self.state
        state = Duet.start(
            self.new_card(),
            self.settings.mission,
            loose_order=self.settings.loose_order,
            first=self.settings.first,
        )
        self.store.start_game(state, previous=previous)
        self.state = state
        self.menus.clear()
        self.undo_request = None
        self.ended_at = None
        self.full_refresh = True
        self.version += 1

    # ----- inputs -----------------------------------------------------------------------

    def handle(self, event: InputEvent, now: float) -> bool:
        """Act on one input; True if anything a screen shows changed."""
        self.tick(now)
        before = self.version
        if isinstance(event, Touch):
            self._game(rules.Touch(event.row, event.col), now)
        elif isinstance(event, Act):
            self._act(event, now)
        elif isinstance(event, Press):
            seat = Seat(event.seat)
            if seat in self.menus:
                self._menu_key(seat, event, now)
            else:
                self._game_key(seat, event, now)
        else:
            raise TypeError(f"not an input event: {event!r}")
        return self.version != before

    @property
    def revealed(self) -> bool:
        """Whether the finished game's key may be shown (undo is then refused)."""
        return self.ended_at is None

    def tick(self, now: float) -> bool:
        """Let time pass: an unanswered undo request lapses; a held key is shown."""
        changed = False
        req = self.undo_request
        if req and now - req.at > self.settings.undo_window:
            self.undo_request = None
            changed = True
        if self.ended_at is not None and now - self.ended_at >= self.settings.reveal_delay:
            self.ended_at = None  # the end screen with both sides: a full refresh
            self.full_refresh = True
            changed = True
        if changed:
            self.version += 1
        return changed

    def _act(self, act: Act, now: float) -> None:
        if act.verb == "clue":
            self._game(rules.Clue(Seat(act.seat)), now)
        elif act.verb == "pass":
            self._game(rules.Pass(Seat(act.seat)), now)
        elif act.verb == "undo":
            self._game(rules.Undo(), now)
        else:
            self._game(rules.Penalty(), now)

    def _game_key(self, seat: Seat, press: Press, now: float) -> None:
        if press.key is KeyName.MENU:
            if press.long:
                self.menus[seat] = Menu(seat)
                self.version += 1
            return
        if self.state is None or (
            self.state.status is not Status.PLAYING and self.revealed and press.key is KeyName.CLUE
        ):
            self.new_game()  # on the end screen (the key shown), clue deals the next game
            return
        if press.key is KeyName.CLUE:
            self._game(rules.Clue(seat), now)
        elif press.key is KeyName.PASS:
            self._game(rules.Pass(seat), now)
        elif press.key is KeyName.UNDO:
            if self.state.status is not Status.PLAYING and self.revealed:
                return  # both sides were shown: nothing to ask for
            req = self.undo_request
            if req is not None and req.seat is not seat:
                self.undo_request = None
                self._game(rules.Undo(), now)
            else:
                self.undo_request = UndoRequest(seat, now)
            self.version += 1

    def _game(self, event: rules.Event, now: float) -> Outcome | Rejection | None:
        """Apply a rules event; journal it (fsync) if accepted, before any redraw."""
        if self.state is None:
            return None
        if self.state.status is not Status.PLAYING and self.revealed:
            return None  # both sides were shown: the game cannot be taken back
        state, result = self.state.apply(event)
        if isinstance(result, Outcome):
            try:
                self.store.record(event)
            except JournalError as e:  # not on disk: not taken, and the screens say so
                log.error("%s: input not taken", e)
                self.fault = str(e)
                self.version += 1
                return None
            self.fault = None
            if state.status is not Status.PLAYING and self.state.status is Status.PLAYING:
                self.ended_at = now  # the end, the key held back a few seconds
            elif state.status is Status.PLAYING:
                self.ended_at = None
        self.state = state
        self.undo_request = None if isinstance(result, Outcome) else self.undo_request
        self.version += 1
        return result

    # ----- the menu ---------------------------------------------------------------------

    def _menu_key(self, seat: Seat, press: Press, now: float) -> None:
        menu = self.menus[seat]
        self.version += 1
        if press.key is not KeyName.MENU:
            menu.confirming = False
        if menu.history is not None:
            menu.history = None
            return
        if menu.editing:
            self._edit_mission(menu, press.key)
            return
        items = list(Item)
        if press.key is KeyName.CLUE:
            menu.index = (menu.index - 1) % len(items)
        elif press.key is KeyName.PASS:
            menu.index = (menu.index + 1) % len(items)
        elif press.key is KeyName.UNDO:
            del self.menus[seat]
        elif press.key is KeyName.MENU:
            self._choose(menu, now)

    def _choose(self, menu: Menu, now: float) -> None:
        item = menu.item
        s = self.settings
        if item is Item.NEW_GAME:
            in_play = self.state is not None and self.state.status is Status.PLAYING
            if in_play and not menu.confirming:
                menu.confirming = True  # a game in play: once more to leave it
            else:
                self.new_game()
        elif item is Item.MISSION:
            # 9-9, 10-10, 11-11, the named missions, then any T-M, then 9-9 again.
            presets = list(MISSIONS)
            if menu.custom or s.mission not in presets:
                menu.custom = False
                self.settings = replace(s, mission=presets[0])
            elif s.mission == presets[-1]:
                menu.editing = "turns"
            else:
                self.settings = replace(s, mission=presets[presets.index(s.mission) + 1])
        elif item is Item.ORDER:
            self.settings = replace(s, loose_order=not s.loose_order)
        elif item is Item.FIRST_CLUE:  # either -> this seat -> the partner -> either
            cycle = [None, menu.seat, menu.seat.partner]
            self.settings = replace(s, first=cycle[(cycle.index(s.first) + 1) % 3])
        elif item is Item.LANGUAGE:
            i = 0 if menu.seat is Seat.A else 1
            langs = list(s.lang)
            langs[i] = LANGUAGES[(LANGUAGES.index(langs[i]) + 1) % len(LANGUAGES)]
            self.settings = replace(s, lang=(langs[0], langs[1]))
        elif item is Item.PENALTY:
            del self.menus[menu.seat]
            self._game(rules.Penalty(), now)
        elif item is Item.HISTORY:
            menu.history = self.store.history(limit=20)  # read once, not on every redraw
        elif item is Item.CLOSE:
            del self.menus[menu.seat]

    def _edit_mission(self, menu: Menu, key: KeyName) -> None:
        m = self.settings.mission
        turns, mistakes = m.turns, m.mistakes
        step = {KeyName.CLUE: 1, KeyName.PASS: -1}.get(key, 0)
        if menu.editing == "turns":
            turns = min(max(turns + step, 1), MAX_TURNS)
            mistakes = min(mistakes, turns)
        else:
            mistakes = min(max(mistakes + step, 0), turns)
        self.settings = replace(self.settings, mission=Mission(turns, mistakes))
        if key is KeyName.MENU:
            menu.editing = "mistakes" if menu.editing == "turns" else None
        elif key is KeyName.UNDO:
            menu.editing = None
        menu.custom = menu.editing is None
