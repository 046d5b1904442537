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
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from keystand.drivers.inputs import Act, InputEvent, KeyName, Press, Touch
from keystand.drivers.inputs.touchfilter import Orientation

from . import cursor, games, rules
from .journal import JournalError
from .rules import Mission, Seat
from .rules.mission import MAX_TURNS
from .store import Resumed, Store

log = logging.getLogger(__name__)

UNDO_WINDOW = 5.0
LANGUAGES = ("en", "de", "ru")
REFUSAL_SHOWN = 4.0  # seconds a refusal stays on the screens before the last outcome is back
SAVE_RETRY = 5.0  # seconds between tries to save settings the disk refused
# The turn timer's lengths the menu offers, in seconds (0: off, the default).
TIMER_CHOICES = (0, 60, 90, 120, 180, 240, 300)
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

    game: str = games.DEFAULT  # the game the next new game is (a games.NAMES name)
    mission: Mission = rules.STANDARD
    loose_order: bool = False
    first: Seat | None = None  # who gives the first clue (None: either, as the rulebook)
    lang: tuple[str, str] = ("en", "en")  # seat A, seat B
    undo_window: float = UNDO_WINDOW
    # How long the end screen holds back the key, so both seats can still undo a
    # stray last touch: once they have seen the whole card the game cannot go on.
    reveal_delay: float = 10.0
    timer: int = 0  # seconds a turn may take, for a game with a turn timer (0: off)

    def lang_of(self, seat: Seat) -> str:
        return self.lang[0 if seat is Seat.A else 1]

    @property
    def options(self) -> games.Options:
        return games.Options(self.mission, self.loose_order, self.first)


class Item(enum.Enum):
    """The menu's entries. Each game lists the ones it has, top to bottom (its
    `menu_items`); the menu opens on Close, so a double press of the menu key
    closes it again instead of doing anything."""

    CLOSE = "close"
    NEW_GAME = "new_game"
    MISSION = "mission"
    ORDER = "order"
    FIRST_CLUE = "first_clue"
    LANGUAGE = "language"
    PENALTY = "penalty"
    HISTORY = "history"
    CALIBRATE = "calibrate"  # only on a stand with a touch grid
    GAME = "game"  # Duet or classic: deals a new game of the other one
    TIMER = "timer"  # the turn timer's length (a game that has one)


def items_of(game: str) -> tuple[Item, ...]:
    """The menu entries of the game called `game`, top to bottom."""
    return tuple(Item(name) for name in games.get(game).menu_items)


@dataclass
class Menu:
    seat: Seat
    index: int = 0
    items: tuple[Item, ...] = field(default_factory=lambda: items_of(games.DEFAULT))
    editing: str | None = None  # "turns" or "mistakes" while a custom mission is set
    confirming: bool = False  # New game, Game (a game in play) or Invalid clue chosen once
    custom: bool = False  # a custom mission was just set: the next choice starts over
    history: list[dict[str, Any]] | None = None  # finished games, while shown

    @property
    def item(self) -> Item:
        return self.items[self.index]


@dataclass
class UndoRequest:
    seat: Seat
    at: float


class Repair(enum.Enum):
    """What start-up did with a damaged journal (both screens say it)."""

    RESUMED = "resumed"  # the game resumed from the records before the damage
    NEW_GAME = "new_game"  # nothing usable: a new game was dealt


@dataclass
class Stand:
    """The game, the menus and the pending undo of one stand."""

    store: Store
    settings: Settings = field(default_factory=Settings)
    # The dealer of new cards; a card of another game than the one dealt is
    # passed over for one of that game's own (its `generate`).
    new_card: Callable[[], object] | None = None  # None: the game's own (`generate`)
    state: Any = None  # the game in play, a state of its game (games.of_state)
    menus: dict[Seat, Menu] = field(default_factory=dict)
    undo_request: UndoRequest | None = None
    full_refresh: bool = True  # the next frames want a full refresh
    version: int = 0  # goes up with every change a screen may show
    ended_at: float | None = None  # when the game in play ended (None: not, or long ago)
    fault: str | None = None  # why the last accepted input could not be saved (not taken)
    inputs_lost: frozenset[str] = frozenset()  # input devices that stopped answering
    panel_faults: dict[Seat, str] = field(default_factory=dict)  # panels failing, and how
    hints: dict[Seat, tuple[str, float]] = field(default_factory=dict)  # what to press, since
    repaired: Repair | None = None  # the journal was damaged on start (until the next event)
    refusal_shown: bool = True  # False: the screens are back on the last accepted outcome
    refused_at: float | None = None  # when the refusal on screen came
    # The touch grid's orientation on the table (None: no grid), told to the
    # grid (and saved) by `on_calibrated` when a calibration touch sets it.
    grid: Orientation | None = None
    on_calibrated: Callable[[Orientation], None] | None = None
    calibrating: Seat | None = None  # the next touch sets the grid's orientation
    cursor_keys: bool = False  # buttons only: the guesser picks words with a cursor
    cursors: dict[Seat, int] = field(default_factory=dict)  # each seat's, table cells
    penalty_pending: bool = False  # an invalid clue called: the next touch names the word
    timer_left: int | None = None  # seconds left on the turn timer (None: no timer running)
    turn_started: float | None = None  # when the turn timer's clock started
    _timer_turn: object = field(default=None, repr=False)  # the turn it runs for
    _timer_step: int | None = field(default=None, repr=False)  # what the screens draw
    _card: Any = field(default=None, repr=False)  # dealt, not yet on disk
    # Settings the disk refused: the seats whose screens say so (None: a start-up
    # choice), until `tick` saves them.
    unsaved: set[Seat | None] = field(default_factory=set)
    _save_tried_at: float | None = field(default=None, repr=False)

    @property
    def game(self) -> games.Game:
        """The game in play (or, with none, the one the next new game is)."""
        if self.state is not None:
            return games.of_state(self.state)
        return games.get(self.settings.game)

    @property
    def playing(self) -> bool:
        """Whether there is a game and it is not over."""
        return self.state is not None and self.game.playing(self.state)

    # ----- start-up -------------------------------------------------------------------

    def boot(self, game: str | None = None) -> Resumed | None:
        """Resume the journaled game, or deal a new one: the stand boots into a game.
        The menu's choices saved in the state dir (languages, the game, the next
        game's mission, order and first clue) come back as they were left;
        `game` (a name) overrides the saved game for the next new game."""
        saved = self._load_settings()
        if game is not None and games.get(game).name != self.settings.game:
            self.settings = replace(self.settings, game=games.get(game).name)
            if not self._save_settings():
                self.unsaved.add(None)
        try:
            resumed = self.store.resume()
        except JournalError as e:  # kept aside by the store: nothing is lost
            log.warning("%s; dealing a new game", e)
            resumed = None
            self.repaired = Repair.NEW_GAME
        if resumed is not None and resumed.recovery.damaged_copy is not None:
            self.repaired = Repair.RESUMED
        if resumed is None:
            self.new_game()
        else:
            self.state = resumed.state
            started = self.game.options_of(resumed.state)
            if not saved and started is not None:
                # A state dir from before settings were kept: the game's own.
                self.settings = replace(
                    self.settings,
                    mission=started.mission,
                    loose_order=started.loose_order,
                    first=started.first,
                )
        self._arm_timer()  # a resumed turn gets its full time again
        self.full_refresh = True
        self.version += 1
        return resumed

    def _load_settings(self) -> bool:
        """The saved menu choices, each checked; a bad one keeps its default."""
        try:
            data = self.store.load_settings()
        except JournalError as e:
            log.warning("%s", e)
            return False
        if data is None:
            return False
        s = self.settings
        if data.get("game", s.game) in games.NAMES:
            s = replace(s, game=data.get("game", s.game))
        else:
            log.warning("settings.json: game %r: expected one of %s", data["game"], games.NAMES)
        try:
            s = replace(s, mission=Mission.parse(str(data.get("mission", s.mission))))
        except ValueError as e:
            log.warning("settings.json: mission: %s; kept %s", e, s.mission)
        if data.get("timer", s.timer) in TIMER_CHOICES:
            s = replace(s, timer=data.get("timer", s.timer))
        else:
            log.warning("settings.json: timer %r: expected one of %s", data["timer"], TIMER_CHOICES)
        if isinstance(data.get("loose_order"), bool):
            s = replace(s, loose_order=data["loose_order"])
        if data.get("first") in (None, "A", "B"):
            s = replace(s, first=Seat(data["first"]) if data.get("first") else None)
        langs = data.get("lang")
        if isinstance(langs, list) and len(langs) == 2 and all(x in LANGUAGES for x in langs):
            s = replace(s, lang=(langs[0], langs[1]))
        self.settings = s
        return True

    def _save_settings(self, now: float | None = None) -> bool:
        """Save the menu's choices; False (and logged once) if the disk refuses."""
        s = self.settings
        self._save_tried_at = now
        try:
            self.store.save_settings(
                {
                    "game": s.game,
                    "mission": str(s.mission),
                    "loose_order": s.loose_order,
                    "first": s.first.value if s.first else None,
                    "lang": list(s.lang),
                    "timer": s.timer,
                }
            )
        except OSError as e:  # the choice holds for this run; the log says why not after
            if not self.unsaved:
                log.error("cannot save the settings (%s); tried again until there is room", e)
            return False
        if self.unsaved:
            log.info("the settings are saved")
            self.unsaved.clear()
            self.version += 1
        return True

    def new_game(self, game_name: str | None = None) -> bool:
        """Deal a new game (of `game_name`, else the settings' game), once its start
        is on disk; until then the stand keeps the game it has (or none), the
        settings name the game they named, and the screens say it cannot save."""
        game = games.get(game_name or self.settings.game)
        card = self._card
        if card is None:
            card = self.new_card() if self.new_card is not None else game.generate()
        if not game.owns(card):
            card = game.generate()
        state = game.start(card, self.settings.options)
        try:
            self.store.start_game(state, previous=self.state)
        except (JournalError, OSError) as e:
            log.error("cannot save a new game (%s); the stand keeps what it shows", e)
            self._card = card  # the same card when the disk takes writes again
            self.fault = str(e)
            self.version += 1
            return False
        self._card = None
        self.fault = None
        self.settings = replace(self.settings, game=game.name)
        self.hints.clear()
        self.cursors.clear()
        self.repaired = None if self.state is not None else self.repaired
        self.state = state
        self.menus.clear()
        self.undo_request = None
        self.penalty_pending = False
        self._arm_timer()
        self.ended_at = None
        self.full_refresh = True
        self.version += 1
        return True

    def panel_health(self, seat: Seat, fault: str | None) -> None:
        """A seat's panel failed (`fault` says how) or shows frames again (None):
        the other seat's screen says so until it is back."""
        faults = dict(self.panel_faults)
        if fault is None:
            faults.pop(seat, None)
        else:
            faults[seat] = fault
        if faults != self.panel_faults:
            self.panel_faults = faults
            self.version += 1

    def input_health(self, source: str, lost: bool, now: float | None = None) -> None:
        """An input device stopped answering (`lost`) or answers again: both
        screens say so while any is lost, and for a few seconds that it is back."""
        now_lost = self.inputs_lost | {source} if lost else self.inputs_lost - {source}
        if now_lost != self.inputs_lost:
            back = not lost and not now_lost
            self.inputs_lost = now_lost
            self.version += 1
            if back and now is not None:
                self._hint(tuple(Seat), "input_back", now)

    # ----- inputs -----------------------------------------------------------------------

    def handle(self, event: InputEvent | games.Played, now: float) -> bool:
        """Act on one input; True if anything a screen shows changed."""
        self.tick(now)
        before = self.version
        if isinstance(event, Touch):
            if self.calibrating is not None:
                self._calibrate(event, now)
            elif self._over_and_shown():  # a touch on the end screen: say how to go on
                self._hint(tuple(Seat), "new_game", now)
            elif self.state is not None:
                touched = self.game.touch_event(
                    self.state, event.row, event.col, penalty=self.penalty_pending
                )
                self._game(touched, now)
        elif isinstance(event, games.Played):
            self._game(event.event, now)
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
        if self._run_timer(now):  # a turn this input began starts the clock again
            self.version += 1
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
        for seat, (_, at) in list(self.hints.items()):
            if now - at >= REFUSAL_SHOWN:
                del self.hints[seat]
                changed = True
        if self.refused_at is not None and now - self.refused_at >= REFUSAL_SHOWN:
            self.refused_at = None
            self.refusal_shown = False
            changed = True
        if self.ended_at is not None and now - self.ended_at >= self.settings.reveal_delay:
            self.ended_at = None  # the end screen with both sides: a full refresh
            self.full_refresh = True
            changed = True
        changed = self._run_timer(now) or changed
        tried = self._save_tried_at
        if self.unsaved and (tried is None or now - tried >= SAVE_RETRY):
            self._save_settings(now)
        if changed:
            self.version += 1
        return changed

    def _arm_timer(self) -> None:
        """A new game (or a restart): the screens show the full length, and the
        clock starts at the service's next tick (the stand has no clock of its own)."""
        self._timer_turn = self.turn_started = None
        timed = bool(self.settings.timer) and self.playing and self.game.has_timer
        self.timer_left = self.settings.timer if timed else None
        self._timer_step = self.game.timer_step(self.settings.timer) if timed else None

    def _run_timer(self, now: float) -> bool:
        """The turn timer by the service's clock: a new turn starts it at the menu's
        length; the screens change only at its coarse steps; when it runs out the
        turn ends, as a journaled event (so a replay ends the same turns). Not while
        an invalid clue's cover is awaited: that ends the turn anyway. True if a
        screen changes (the timeout's own event counts itself)."""
        length = self.settings.timer
        if not (length and self.playing and self.game.has_timer):
            changed = self.timer_left is not None
            self.timer_left = self._timer_step = self._timer_turn = self.turn_started = None
            return changed
        turn = self.game.turn_of(self.state)
        if self.turn_started is None or turn != self._timer_turn:
            self._timer_turn, self.turn_started = turn, now
        left = max(0, math.ceil(length - (now - self.turn_started)))
        self.timer_left = left
        # A full disk leaves it at "time is up" until saving works again.
        if left == 0 and not self.penalty_pending and self.fault is None:
            result = self._game(self.game.timeout_event(self.state), now)
            if result is not None and not games.refused(result):
                return self._run_timer(now) or True  # the next turn's clock
        step = self.game.timer_step(left)
        if step != self._timer_step:
            self._timer_step = step
            return True
        return False

    def _act(self, act: Act, now: float) -> None:
        if self.state is None:
            return
        if act.verb == "penalty":
            self._penalty(now)
            return
        event = self.game.act_event(self.state, act.verb, Seat(act.seat) if act.seat else None)
        if event is not None:
            self._game(event, now)

    def _penalty(self, now: float) -> None:
        """The group called the clue invalid: one event, or (a game that needs the
        word to cover) the next touch names it."""
        if self.state is None:
            return
        event = self.game.penalty_event(self.state)
        if event is None:
            self.penalty_pending = True
            self.version += 1
        else:
            self._game(event, now)

    def _hint(self, seats: tuple[Seat, ...], key: str, now: float) -> None:
        """A key that does nothing now: the seat's screen says what would (briefly)."""
        for seat in seats:
            self.hints[seat] = (key, now)
        self.version += 1

    def _over_and_shown(self) -> bool:
        return self.state is not None and not self.playing and self.revealed

    def cursor_of(self, seat: Seat) -> int | None:
        """The table cell of `seat`'s cursor while it is that seat's turn to guess
        on a buttons-only stand; None otherwise (and always for the partner)."""
        if not self.cursor_keys or self.state is None or seat in self.menus:
            return None
        if self.game.cursor_seat(self.state) is not seat:
            return None
        return self.cursors.get(seat, cursor.start(seat))

    def _game_key(self, seat: Seat, press: Press, now: float) -> None:
        if self.calibrating is not None and press.key is KeyName.UNDO and not press.long:
            self.calibrating = None  # the calibration called off; the grid as it was
            self.version += 1
            return
        at = self.cursor_of(seat)
        if at is not None:
            moved = cursor.move(seat, at, press)
            if moved is not None:
                self.cursors[seat] = moved
                self.version += 1
                return
            if cursor.confirms(press):
                row, col = self.game.grid.row_col(at)
                touched = self.game.touch_event(self.state, row, col, penalty=self.penalty_pending)
                self._game(touched, now)
                return
        if press.key is KeyName.MENU:
            if press.long:
                self.menus[seat] = Menu(seat, items=self.menu_items())
                self.hints.pop(seat, None)
                self.version += 1
            else:
                self._hint((seat,), "hold_menu", now)  # a short press does nothing
            return
        if self.state is None or (not self.playing and self.revealed and press.key is KeyName.CLUE):
            self.new_game()  # on the end screen (the key shown), clue deals the next game
            return
        if press.key is KeyName.PASS and self._over_and_shown():
            self._hint((seat,), "new_game", now)
        elif press.key in (KeyName.CLUE, KeyName.PASS):
            event = self.game.key_event(self.state, seat, press.key.value)
            if event is not None:
                self._game(event, now)
            elif self.playing:  # not this seat's key (classic's roles): say whose it is
                self._hint((seat,), f"useless_{press.key.value}", now)
        elif press.key is KeyName.UNDO:
            if self._over_and_shown():
                self._hint((seat,), "new_game", now)  # both sides were shown: no undo
                return
            req = self.undo_request
            if req is not None and req.seat is not seat:
                self.undo_request = None
                self._game(self.game.act_event(self.state, "undo", None), now)
            else:
                self.undo_request = UndoRequest(seat, now)
            self.version += 1

    def _game(self, event: Any, now: float) -> Any:
        """Apply a rules event of the game in play; journal it (fsync) if accepted,
        before any redraw. Returns the outcome or the refusal (None: not applied)."""
        if self.state is None:
            return None
        if not self.playing and self.revealed:
            return None  # both sides were shown: the game cannot be taken back
        game = self.game
        was_playing = game.playing(self.state)
        state, result = self.state.apply(event)
        refused = games.refused(result)
        if not refused:
            try:
                self.store.record(event)
            except JournalError as e:  # not on disk: not taken, and the screens say so
                log.error("%s: input not taken", e)
                self.fault = str(e)
                self.version += 1
                return None
            self.fault = None
            self.repaired = None  # the players have gone on from what was repaired
            self.penalty_pending = False
            if not game.playing(state) and was_playing:
                self.ended_at = now  # the end, the key held back a few seconds
            elif game.playing(state):
                self.ended_at = None
        if refused:
            # A refusal shows for a few seconds, then the last accepted outcome is
            # back. The same finger bouncing on the word it just found is not
            # shown at all: "Agent found" must not turn into "Already covered".
            last = game.last_outcome(self.state)
            bounce = (
                result.reason.value == "covered"
                and isinstance(event, rules.Touch)
                and last is not None
                and last.cell == event.cell
                and self.state.last is last
            )
            self.refusal_shown = not bounce
            self.refused_at = now if not bounce else None
        else:
            self.refusal_shown, self.refused_at = True, None
        self.state = state
        if not refused:
            self.hints.clear()
        self.undo_request = None if not refused else self.undo_request
        self.version += 1
        return result

    # ----- calibration ------------------------------------------------------------------

    def _calibrate(self, touch: Touch, now: float) -> None:
        """The touch asked for: seat A's top-left word, wherever the grid says it
        is under the orientation it has now. Any corner will do (the mat may lie
        any of four ways); another cell is not a corner and is asked again."""
        assert self.calibrating is not None and self.grid is not None
        try:
            new = self.grid.calibrated((touch.row, touch.col))
        except ValueError:
            self._hint(tuple(Seat), "not_corner", now)
            return
        if self.on_calibrated is not None:
            try:
                self.on_calibrated(new)
            except OSError as e:  # not saved: not used, and the screens say so
                log.error("cannot save the grid's orientation: %s", e)
                self.fault = str(e)
                self.version += 1
                return
        self.grid = new
        self.calibrating = None
        self.fault = None
        self._hint(tuple(Seat), "calibrated", now)

    # ----- the menu ---------------------------------------------------------------------

    def menu_items(self) -> tuple[Item, ...]:
        """The menu's entries: "Calibrate grid" only on a stand with a grid."""
        own = items_of(self.game.name)
        return (*own, Item.CALIBRATE) if self.grid is not None else own

    def _menu_key(self, seat: Seat, press: Press, now: float) -> None:
        before = self.settings
        self._menu_action(seat, press, now)
        if self.settings != before and not self._save_settings(now):
            # Kept for this run and saved once there is room (`tick`); the seat
            # goes back to its screen, which says so.
            self.unsaved.add(seat)
            self.menus.pop(seat, None)

    def _menu_action(self, seat: Seat, press: Press, now: float) -> None:
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
        items = menu.items
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
        if item in (Item.NEW_GAME, Item.GAME):
            if self.playing and not menu.confirming:
                menu.confirming = True  # a game in play: once more to leave it
                return
            other = None
            if item is Item.GAME:  # Duet <-> classic, and a new game of it at once
                names = games.NAMES
                other = names[(names.index(s.game) + 1) % len(names)]
            if not self.new_game(other):
                self.menus.clear()  # back to the game, where "Cannot save" is shown
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
        elif item is Item.TIMER:  # off -> 1:00 -> ... -> 5:00 -> off
            i = TIMER_CHOICES.index(s.timer) if s.timer in TIMER_CHOICES else -1
            self.settings = replace(s, timer=TIMER_CHOICES[(i + 1) % len(TIMER_CHOICES)])
        elif item is Item.FIRST_CLUE:  # either -> this seat -> the partner -> either
            cycle = [None, menu.seat, menu.seat.partner]
            self.settings = replace(s, first=cycle[(cycle.index(s.first) + 1) % 3])
        elif item is Item.LANGUAGE:
            i = 0 if menu.seat is Seat.A else 1
            langs = list(s.lang)
            langs[i] = LANGUAGES[(LANGUAGES.index(langs[i]) + 1) % len(LANGUAGES)]
            self.settings = replace(s, lang=(langs[0], langs[1]))
        elif item is Item.PENALTY:
            if not menu.confirming:  # it costs a token and ends the turn: once more
                menu.confirming = True
                return
            del self.menus[menu.seat]
            self._penalty(now)
        elif item is Item.CALIBRATE:
            del self.menus[menu.seat]
            self.calibrating = Seat.A  # the screens ask for seat A's top-left word
            self.hints.clear()
        elif item is Item.HISTORY:
            try:
                menu.history = self.store.history(limit=20)  # read once, not on every redraw
            except OSError as e:  # a history.jsonl the stand cannot read: an empty page
                log.error("cannot read the history: %s", e)
                menu.history = []
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
