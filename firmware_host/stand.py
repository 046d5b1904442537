"""The stand: what each input means now, and the game it changes.

Owned by the service loop (one thread); no I/O but the store. An input becomes
a rules event, a menu step (menu.py) or nothing; an accepted rules event is
journaled (fsync) before `handle` returns, and only then may anything draw its
result. The settings the menu edits are settings.py's; the turn timer is
turn_timer.py's.

Keys of a seat: clue, pass, undo, menu. What each does now is `meaning`, one
table for the key's label on the screen (layouts/keys.py) and for what a press
does (`_game_key`), so a label cannot say what its key does not do:
- In a game: clue gives the clue (in sudden death: "I guess"), pass ends the
  turn, undo asks to take back the last event (both seats must press it within
  `undo_window` seconds: one player alone cannot take back a guess), a long
  press of menu opens that seat's menu.
- On a stand with keys and no grid, the guesser's clue key picks a word: its
  cursor shows, and the keys move it (next, down), go back, or guess the word
  under it (docs/buttons-only.md).
- A game whose clue takes a number (classic: the game's `clue_numbers`): the
  clue key chooses it first ("Clue…"), then the keys step it (+1, -1), go back,
  or give the clue with the number their label names ("Clue 2"); with the menu's
  Clue number off, one press gives the clue with none.
- In a seat's menu: clue moves up, pass down, menu chooses, undo goes back.
  The menu is drawn on that seat's screen only and shows no key.

The redraw version (shown.py): every field of the stand is what a screen may
show unless `UNSHOWN` names it. Each public method that changes the stand is an
`@entry`, which compares those fields before and after it and moves `version` if
any differ. Nothing else moves it, so no handler can forget to.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from keystand.drivers.inputs import Act, InputEvent, KeyName, Press, Touch
from keystand.drivers.inputs.touchfilter import Orientation

from . import cursor, games
from .journal import JournalError
from .menu import HISTORY_GAMES, Choice, Do, Entry, Item, Menu, items_of
from .rules import Seat
from .settings import (
    LANGUAGES,
    SAVE_RETRY,
    UNDO_WINDOW,
    Settings,
    Unsaved,
)
from .shown import entry, fields_shown
from .store import Resumed, Store
from .turn_timer import TurnTimer

# The menu's and the settings' names, as the stand has always offered them.
__all__ = [
    "LANGUAGES",
    "REFUSAL_SHOWN",
    "SAVE_RETRY",
    "UNDO_WINDOW",
    "Item",
    "Menu",
    "Repair",
    "Settings",
    "Stand",
    "UndoRequest",
    "items_of",
]

log = logging.getLogger(__name__)

# A picking seat's keys (buttons only): move the cursor, go back, guess the word.
PICKING = {
    KeyName.CLUE: "next",
    KeyName.PASS: "down",
    KeyName.UNDO: "back",
    KeyName.MENU: "guess",
}
# A seat choosing its clue's number: step it up and down, go back, or give the clue
# ("give:N", the label naming the number: "Clue 2"). The keys sit where the picking
# keys do, so a keys-only table learns one pattern.
NUMBERING = {KeyName.CLUE: "plus", KeyName.PASS: "minus", KeyName.UNDO: "back"}
GIVE = "give:"  # the meaning that gives the clue, before the number it gives

REFUSAL_SHOWN = 4.0  # seconds a refusal stays on the screens before the last outcome is back
# Seconds the partner's screen says one seat left the game for a new one (unless
# the new game's first input comes sooner): long enough to be seen by a player
# who looked away, as the board it was playing has gone.
LEFT_SHOWN = 30.0
# Turns the timer may end in a row with no input at the table: one each, then the
# table is taken for empty (a turn's timeout is the timer's, not the players').
IDLE_TIMEOUTS = 2


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

    # The fields no screen shows: changing them moves no version.
    UNSHOWN: ClassVar[frozenset[str]] = frozenset(
        {"store", "new_card", "on_calibrated", "version", "_card", "idle_timeouts"}
    )

    store: Store
    settings: Settings = field(default_factory=Settings)
    # The dealer of new cards; a card of another game than the one dealt is
    # passed over for one of that game's own (its `generate`).
    new_card: Callable[[], object] | None = None  # None: the game's own (`generate`)
    state: Any = None  # the game in play, a state of its game (games.of_state)
    menus: dict[Seat, Menu] = field(default_factory=dict)
    undo_request: UndoRequest | None = None
    full_refresh: bool = True  # the next frames want a full refresh
    version: int = 0  # goes up with every change a screen may show (see `entry`)
    ended_at: float | None = None  # when the game in play ended (None: not, or long ago)
    # A game resumed in its end hold (ended, not yet listed: the stand stopped before
    # both sides were shown): the hold, and the undo it allows, start again at the
    # service's next tick (the stand has no clock of its own).
    hold_resumed: bool = False
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
    picking: set[Seat] = field(default_factory=set)  # the seats whose cursor shows
    # The seats choosing their clue's number on their keys, and the number shown (a
    # value of the game's `clue_numbers`): that seat's view state, journaled only
    # as the clue it gives.
    numbering: dict[Seat, str] = field(default_factory=dict)
    penalty_pending: bool = False  # an invalid clue called: the next touch names the word
    timer: TurnTimer = field(default_factory=TurnTimer)  # the turn timer (a game with one)
    # Turns the timer ended with no input at the table since: at IDLE_TIMEOUTS (each
    # team's turn run out, nobody there) it waits, showing a full turn, for the next
    # input, so a table left alone settles and its panels sleep.
    idle_timeouts: int = 0
    _card: Any = field(default=None, repr=False)  # dealt, not yet on disk
    # Settings the disk refused, until `tick` saves them.
    saving: Unsaved = field(default_factory=Unsaved)

    def shown(self) -> list[object]:
        """What the screens may show of the stand now (every field not `UNSHOWN`)."""
        return fields_shown(self, self.UNSHOWN)

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

    @property
    def timer_left(self) -> int | None:
        """Seconds left on the turn timer (None: no timer running)."""
        return self.timer.left

    @property
    def unsaved(self) -> set[Seat | None]:
        """The seats whose screens say their settings are not saved (None: a
        start-up choice)."""
        return self.saving.seats

    # ----- start-up -------------------------------------------------------------------

    @entry
    def boot(self, game: str | None = None) -> Resumed | None:
        """Resume the journaled game, or deal a new one: the stand boots into a game.
        The menu's choices saved in the state dir (languages, the game, the next
        game's own settings) come back as they were left;
        `game` (a name) overrides the saved game for the next new game."""
        saved = self._load_settings()
        if game is not None and games.get(game).name != self.settings.game:
            self.settings = replace(self.settings, game=games.get(game).name)
            if not self._save_settings():
                self.saving.seats.add(None)
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
            if game is None and self.game.name != self.settings.game:
                # The journal is what took effect: a switch whose setting the disk
                # refused (or lost to a restart) must not name the other game.
                self.settings = replace(self.settings, game=self.game.name)
                if not self._save_settings():
                    self.saving.seats.add(None)
            started = self.game.options_of(resumed.state)
            if not saved and started is not None:
                # A state dir from before settings were kept: the game's own.
                self.settings = self.settings.started(self.game, started)
            self.hold_resumed = not self.playing and not self.store.listed()
        self._arm_timer()  # a resumed turn gets its full time again
        self.full_refresh = True
        self._list_if_final()  # a finished game the history may not have yet
        return resumed

    def _load_settings(self) -> bool:
        """The saved menu choices, each checked; a bad one keeps its default."""
        try:
            data = self.store.load_settings()
        except JournalError as e:
            try:
                kept = self.store.set_aside_settings()
            except OSError as copy_failed:  # the disk refuses: say so, the run goes on
                log.warning("%s; no copy could be kept: %s", e, copy_failed)
            else:  # not a file (a FIFO, a folder): nothing to copy, saved over
                log.warning("%s%s", e, f"; the file is kept as {kept.name}" if kept else "")
                # The defaults in its place: the next start finds them, not the same
                # damage to copy again (a big file would fill the card start by start).
                if kept is not None and not self._save_settings():
                    self.saving.seats.add(None)
            return False
        if data is None:
            return False
        self.settings = self.settings.loaded(data)
        return True

    def _save_settings(self, now: float | None = None) -> bool:
        """Save the menu's choices; False (and logged once) if the disk refuses."""
        try:
            self.store.save_settings(self.settings.saved())
        except OSError as e:  # the choice holds for this run; the log says why not after
            return self.saving.tried(now, e)
        return self.saving.tried(now, None)

    @entry
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
        state = game.start(card, self.settings.of_game(game))
        try:
            self.store.start_game(state, previous=self.state)
        except (JournalError, OSError) as e:
            log.error("cannot save a new game (%s); the stand keeps what it shows", e)
            self._card = card  # the same card when the disk takes writes again
            self.fault = str(e)
            return False
        self._card = None
        self.fault = None
        self.settings = replace(self.settings, game=game.name)
        self.hints.clear()
        self.cursors.clear()
        self.picking.clear()
        self.numbering.clear()
        self.repaired = None if self.state is not None else self.repaired
        self.state = state
        self.menus.clear()
        self.undo_request = None
        self.penalty_pending = False
        self._arm_timer()
        self.ended_at, self.hold_resumed = None, False
        self.full_refresh = True
        return True

    @entry
    def panel_health(self, seat: Seat, fault: str | None) -> None:
        """A seat's panel failed (`fault` says how) or shows frames again (None):
        the other seat's screen says so until it is back. Meanwhile the game holds
        before that seat would need its side (`held`); once it is back, play goes
        on from where it was, nothing to press."""
        faults = dict(self.panel_faults)
        if fault is None:
            faults.pop(seat, None)
        else:
            faults[seat] = fault
            req = self.undo_request
            if req is not None and req.seat is not seat:
                self.undo_request = None  # the seat cannot see it is asked to confirm
        self.panel_faults = faults

    def held(self, event: Any) -> Seat | None:
        """The seat whose failed panel holds `event` (a rules event of the game in
        play): its clue, said by its key or by the guess that follows it, needs the
        side that panel cannot show now. None: the event may go on."""
        if self.state is None or not self.panel_faults:
            return None
        giver = self.game.clue_by(self.state, event)
        return giver if giver in self.panel_faults else None

    @entry
    def input_health(self, source: str, lost: bool, now: float | None = None) -> None:
        """An input device stopped answering (`lost`) or answers again: both
        screens say so while any is lost, and for a few seconds that it is back."""
        now_lost = self.inputs_lost | {source} if lost else self.inputs_lost - {source}
        if now_lost != self.inputs_lost:
            back = not lost and not now_lost
            self.inputs_lost = now_lost
            if back and now is not None:
                self._hint(tuple(Seat), "input_back", now)

    # ----- inputs -----------------------------------------------------------------------

    def handle(self, event: InputEvent | games.Played, now: float) -> bool:
        """Act on one input; True if anything a screen shows changed (time passing
        before it, as `tick` says, aside)."""
        self.tick(now)
        before = self.version
        self._input(event, now)
        return self.version != before

    @entry
    def _input(self, event: InputEvent | games.Played, now: float) -> None:
        self.idle_timeouts = 0  # somebody is at the table: the timer runs again
        if isinstance(event, Touch):
            if self.calibrating is not None:
                self._calibrate(event, now)
            elif self._over_and_shown():  # a touch on the end screen: say how to go on
                self._hint(tuple(Seat), "new_game", now)
            elif self.state is not None and not self.playing:
                # The end held back: only undo can change it now. A stray touch
                # must not become the word framed as the one that ended the game.
                log.info("touch %d %d while the end is held: ignored", event.row, event.col)
            elif self.state is not None and not self.game.grid.contains(event.row, event.col):
                # A keyboard line, or a page dealt before a switch of games, can
                # name a word the game's grid does not have.
                log.warning(
                    "touch %d %d: off the %s grid of %s; ignored",
                    event.row,
                    event.col,
                    self.game.grid,
                    self.game.name,
                )
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
        self._run_timer(now)  # a turn this input began starts the clock again

    @property
    def unfinished(self) -> bool:
        """A game in play, or its end still held (both seats may yet undo it): one
        seat leaving it through the menu confirms first, and the partner is told."""
        return self.playing or (self.state is not None and not self.revealed)

    @property
    def revealed(self) -> bool:
        """Whether the finished game's key may be shown (undo is then refused)."""
        return self.ended_at is None and not self.hold_resumed

    def _list_if_final(self) -> None:
        """Once a finished game's end is final (both sides shown, undo refused), it
        goes in the history at once, not at the next deal; a disk that refuses
        leaves it to the move at the next deal."""
        if self.state is None or self.game.playing(self.state) or not self.revealed:
            return
        try:
            self.store.list_finished(self.state)
        except JournalError as e:
            log.warning("%s; listed when the next game is dealt", e)

    def tick(self, now: float) -> bool:
        """Let time pass; True if anything a screen shows changed."""
        before = self.version
        self._time_passes(now)
        return self.version != before

    def still(self) -> bool:
        """Nothing `tick` does can change anything until the next input: no undo
        request, hint or refusal to lapse, no end to reveal, no turn timer running,
        no settings or journal to try again. The service loop then waits for an
        input (or systemd's watchdog) instead of ticking (issue 33: an idle stand)."""
        if self._timed():
            timer = self.idle_timeouts >= IDLE_TIMEOUTS and self.timer.armed(self._timer_length())
        else:
            timer = self.timer.stopped
        return (
            timer
            and self.undo_request is None
            and not self.hints
            and self.refused_at is None
            and not self.hold_resumed
            and self.ended_at is None
            and not self.saving.seats
            and not self.store.recovering
        )

    @entry
    def _time_passes(self, now: float) -> None:
        """An unanswered undo request lapses, a hint or a refusal goes, a held key is
        shown, the turn timer runs, and settings the disk refused are tried again.
        Whatever is added here is added to `still` too, or the loop sleeps past it."""
        req = self.undo_request
        if req and now - req.at > self.settings.undo_window:
            self.undo_request = None
        for seat, (hint, at) in list(self.hints.items()):
            if now - at >= (LEFT_SHOWN if hint == "partner_new_game" else REFUSAL_SHOWN):
                del self.hints[seat]
        if self.refused_at is not None and now - self.refused_at >= REFUSAL_SHOWN:
            self.refused_at = None
            self.refusal_shown = False
        if self.hold_resumed:
            self.hold_resumed, self.ended_at = False, now
        if self.ended_at is not None and now - self.ended_at >= self.settings.reveal_delay:
            self.ended_at = None  # the end screen with both sides: a full refresh
            self.full_refresh = True
            self._list_if_final()
        self._run_timer(now)
        if self.saving.due(now):
            self._save_settings(now)
        if self.store.recover(now):  # a write that could not be taken back: checked again
            self.fault = None  # the journal is trusted again: inputs are taken again

    def _arm_timer(self) -> None:
        """A new game (or a restart): the screens show the full length, and the
        clock starts at the service's next tick (the stand has no clock of its own)."""
        self.timer.arm(self._timer_length(), self.game if self._timed() else None)

    def _timer_length(self) -> int:
        """The turn timer's length the menu chose for the game in play (0: off, or a
        game without one)."""
        setting = self.game.turn_timer
        return self.settings.of(setting) if setting is not None else 0

    def _timed(self) -> bool:
        return bool(self._timer_length()) and self.playing

    def _run_timer(self, now: float) -> None:
        """The turn timer by the service's clock: a new turn starts it at the menu's
        length; the screens change only at its coarse steps; when it runs out the
        turn ends, as a journaled event (so a replay ends the same turns). Not while
        an invalid clue's cover is awaited: that ends the turn anyway."""
        if not self._timed():
            self.timer.stop()
            return
        if self.idle_timeouts >= IDLE_TIMEOUTS:  # an empty table: wait for somebody
            self.timer.arm(self._timer_length(), self.game)
            return
        up = self.timer.run(now, self._timer_length(), self.game.turn_of(self.state))
        # A full disk leaves it at "time is up" until saving works again.
        if up and not self.penalty_pending and self.fault is None:
            result = self._game(self.game.timeout_event(self.state), now)
            if result is not None and not games.refused(result):
                self.idle_timeouts += 1
                self._run_timer(now)  # the next turn's clock
                return
        self.timer.show(self.game)

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
        else:
            self._game(event, now)

    def _hint(self, seats: tuple[Seat, ...], key: str, now: float) -> None:
        """A key that does nothing now: the seat's screen says what would (briefly)."""
        for seat in seats:
            self.hints[seat] = (key, now)

    def _over_and_shown(self) -> bool:
        return self.state is not None and not self.playing and self.revealed

    def cursor_of(self, seat: Seat) -> int | None:
        """The table cell of `seat`'s cursor while it picks a word on a buttons-only
        stand; None otherwise (and always for the partner)."""
        if seat not in self.picking or seat in self.menus:
            return None
        return self.cursors.get(seat, cursor.start(seat, self.game.grid))

    def _may_pick(self, seat: Seat) -> bool:
        """Whether `seat` picks words with its cursor now (buttons only, its guess)."""
        return (
            self.cursor_keys
            and self.state is not None
            and self.playing
            and self.game.cursor_seat(self.state) is seat
        )

    # ----- the keys ---------------------------------------------------------------------

    def meaning(self, seat: Seat, key: KeyName, long: bool = False) -> str | None:
        """What `seat`'s `key` does now, pressed (or held: `long`): a word of the
        screens' [key] table, which the key's label shows, or None (nothing: a
        hint or the rules' refusal says why). `_game_key` does what this says."""
        if seat in self.menus:
            return self.menus[seat].meaning(key)
        if seat in self.picking:
            return PICKING[key]  # held or not: a held guess must not open the menu
        if seat in self.numbering:
            return self._number_meaning(seat, key)
        if key is KeyName.MENU:
            return "menu" if long else None
        if key is KeyName.UNDO and self.calibrating is not None and not long:
            return "cancel"
        if self.state is None:  # no game (the disk refused one): any key deals
            return "new_game"
        if not self.playing:  # the end: held back (undo may take it back), or shown
            if self.revealed:
                return "new_game" if key is KeyName.CLUE else None
            return "undo" if key is KeyName.UNDO and self._may_undo(seat) else None
        if key is KeyName.UNDO:
            return "undo" if self._may_undo(seat) else None
        if key is KeyName.CLUE and self._may_pick(seat):
            return "pick"
        event = self.game.key_event(self.state, seat, key.value)
        if event is not None and self.held(event) is not None:
            return None  # that seat's panel fails: the game holds (the other screen says)
        label = self.game.key_label(self.state, seat, key.value)
        if label == "clue" and self._numbered():
            return "number"  # the clue's number first: "Clue…"
        return label

    def _numbered(self) -> bool:
        """Whether the clue key chooses the clue's number before giving it: a game
        whose clue has one, and the menu's Clue number on."""
        numbers = self.game.clue_numbers
        if numbers is None:
            return False
        return numbers.switch is None or self.settings.of(numbers.switch)

    def _number_meaning(self, seat: Seat, key: KeyName) -> str | None:
        """`seat`'s keys while it chooses its clue's number: +1 and -1 while there
        is a number that way (the rulebook's 0 to 9, then unlimited), back, and the
        menu key, pressed or held (a held one must not open the menu), gives the
        clue with the number its label names."""
        numbers = self.game.clue_numbers
        assert numbers is not None and self.state is not None
        values, number = numbers.values, self.numbering[seat]
        at = values.index(number)
        if key in NUMBERING:
            word = NUMBERING[key]
            past_an_end = (word == "plus" and at + 1 == len(values)) or (
                word == "minus" and at == 0
            )
            return None if past_an_end else word
        event = self.game.numbered_clue(self.state, seat, number)
        if event is None or self.held(event) is not None:
            return None  # that seat's panel fails: the game holds
        return GIVE + number

    def _may_undo(self, seat: Seat) -> bool:
        """Whether `seat`'s undo asks (or confirms): not a request its partner would
        have to confirm on a panel that fails."""
        req = self.undo_request
        confirms = req is not None and req.seat is not seat
        return confirms or seat.partner not in self.panel_faults

    def labels(self, seat: Seat) -> dict[KeyName, tuple[str | None, bool]]:
        """Each key's label now: what a press does, else what holding it does (and
        that it must be held), else nothing."""
        out: dict[KeyName, tuple[str | None, bool]] = {}
        for key in KeyName:
            short = self.meaning(seat, key)
            held = None if short is not None else self.meaning(seat, key, long=True)
            out[key] = (short, False) if short is not None else (held, held is not None)
        return out

    def _game_key(self, seat: Seat, press: Press, now: float) -> None:
        word = self.meaning(seat, press.key, press.long)
        if word is None:
            self._unlabelled(seat, press, now)
        elif seat in self.numbering or word == "number":
            self._number_key(seat, word, now)
        elif word in ("clue", "arm", "end_turn"):  # the game's own keys
            assert self.state is not None
            self._game(self.game.key_event(self.state, seat, press.key.value), now)
        elif word == "undo":
            self._undo_key(seat, now)
        elif word == "menu":
            self.menus[seat] = Menu(seat, items=self.menu_items())
            self.hints.pop(seat, None)
        elif word == "new_game":
            self.new_game()
        elif word == "cancel":
            self.calibrating = None  # the calibration called off; the grid as it was
        else:
            self._pick_key(seat, word, now)

    def _number_key(self, seat: Seat, word: str, now: float) -> None:
        """A key of the seat choosing its clue's number (`_number_meaning`)."""
        numbers = self.game.clue_numbers
        assert numbers is not None and self.state is not None
        values = numbers.values
        if word == "number":
            self.numbering[seat] = numbers.start
        elif word == "back":
            del self.numbering[seat]
        elif word in ("plus", "minus"):
            at = values.index(self.numbering[seat]) + (1 if word == "plus" else -1)
            self.numbering[seat] = values[at]
        elif word.startswith(GIVE):
            # The number the label names is the one journaled: the label was drawn
            # from this same meaning. Taken, the clue ends the choosing (`_game`);
            # not saved (a full disk), the number stays for another press.
            self._game(self.game.numbered_clue(self.state, seat, word.removeprefix(GIVE)), now)

    def _pick_key(self, seat: Seat, word: str, now: float) -> None:
        """A key of the guesser picking a word with its cursor (buttons only)."""
        at = self.cursor_of(seat)
        grid = self.game.grid
        if word == "pick":
            self.picking.add(seat)
        elif word == "back":
            self.picking.discard(seat)
        elif at is not None and word == "next":
            self.cursors[seat] = cursor.next_word(seat, at, grid)
        elif at is not None and word == "down":
            self.cursors[seat] = cursor.down(seat, at, grid)
        elif at is not None and word == "guess":
            assert self.state is not None
            row, col = grid.row_col(at)
            touched = self.game.touch_event(self.state, row, col, penalty=self.penalty_pending)
            result = self._game(touched, now)
            if result is not None and not games.refused(result):
                self.picking.discard(seat)  # guessed: back to the turn's keys

    def _unlabelled(self, seat: Seat, press: Press, now: float) -> None:
        """A key that does nothing now: the screen says what would, or the rules
        say why not."""
        if seat in self.numbering:
            # +1 past unlimited, -1 below 0, or the clue held for a failed panel:
            # the screen already shows the number and what the other keys do.
            log.info("%s %s while choosing the clue's number: ignored", press.key.value, seat.value)
        elif press.key is KeyName.MENU:
            self._hint((seat,), "hold_menu", now)  # a short press does nothing
        elif self._over_and_shown():
            self._hint((seat,), "too_late", now)  # the end is final: clue deals the next
        elif not self.playing:
            # The end held back: only undo can change it now. The rules would refuse
            # the key ("the game is over"), and the refusal would unframe the word
            # that ended the game and cost each panel two refreshes; the held end
            # screen already says what undo does.
            log.info("%s %s while the end is held: ignored", press.key.value, seat.value)
        elif press.key in (KeyName.CLUE, KeyName.PASS):
            assert self.state is not None
            event = self.game.key_event(self.state, seat, press.key.value)
            if event is not None:
                self._game(event, now)  # refused: the screens say why
            else:  # not this seat's key (classic's roles): say whose it is
                self._hint((seat,), f"useless_{press.key.value}", now)
        elif press.key is KeyName.UNDO:  # the partner would confirm on a failed panel
            log.info("undo %s: held, panel %s fails", seat.value, seat.partner.value)

    def _undo_key(self, seat: Seat, now: float) -> None:
        """Undo asks; the other seat's undo within the window takes the last event back.
        No request the partner cannot see: its panel fails (`meaning` says so)."""
        req = self.undo_request
        if req is not None and req.seat is not seat:
            self.undo_request = None
            assert self.state is not None
            self._game(self.game.act_event(self.state, "undo", None), now)
        else:
            self.undo_request = UndoRequest(seat, now)

    def _game(self, event: Any, now: float) -> Any:
        """Apply a rules event of the game in play; journal it (fsync) if accepted,
        before any redraw. Returns the outcome or the refusal (None: not applied)."""
        if self.state is None:
            return None
        if not self.playing and self.revealed:
            return None  # both sides were shown: the game cannot be taken back
        game = self.game
        was_playing = game.playing(self.state)
        holder = self.held(event)
        if holder is not None:
            # Not taken: the game holds until that panel shows frames again (the
            # other screen says which and what to check), and then goes on.
            log.info("%s: held, panel %s fails", event, holder.value)
            return None
        state, result = self.state.apply(event)
        refused = games.refused(result)
        if not refused:
            try:
                self.store.record(event, state)
            except JournalError as e:  # not on disk: not taken, and the screens say so
                log.error("%s: input not taken", e)
                self.fault = str(e)
                return None
            self.fault = None
            if self.unsaved:  # the disk took a record: room for the settings it refused
                self._save_settings(now)
            self.repaired = None  # the players have gone on from what was repaired
            self.penalty_pending = False
            if not game.playing(state) and was_playing:
                self.ended_at = now  # the end, the key held back a few seconds
            elif game.playing(state):
                self.ended_at, self.hold_resumed = None, False
        if refused:
            # A refusal shows for a few seconds, then the last accepted outcome is
            # back; a touch of the clue giver's hand is not shown at all.
            hand = self._giver_hand(event, result)
            self.refusal_shown = not hand
            self.refused_at = now if not hand else None
        else:
            self.refusal_shown, self.refused_at = True, None
        self.state = state
        self.picking = {seat for seat in self.picking if self._may_pick(seat)}
        if not refused:
            self.hints.clear()
            # The number was being chosen for the clue awaited then: any event the
            # rules took (the clue itself, the timer ending the turn) ends that.
            self.numbering.clear()
        self.undo_request = None if not refused else self.undo_request
        return result

    def _giver_hand(self, event: Any, refusal: Any) -> bool:
        """Whether a refused touch is the clue giver's hand on the table: covering a
        word this turn found with its card (the rulebook has the giver cover it;
        "Agent found" must not turn into "Already covered"), or marking the word
        it missed with a timer token. A second touch in a row on that word, not
        covered, shows its refusal: it may be a guess, and the screens say how."""
        word = getattr(event, "cell", None)  # a touch names its word, in every game
        assert self.state is not None
        if word is None or word not in self.game.turn_marks(self.state):
            return False
        before = self.state.last  # what came just before this touch
        again = games.refused(before) and getattr(before.event, "cell", None) == word
        return refusal.reason.value == self.game.covered_reason or not again

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
                return
        self.grid = new
        self.calibrating = None
        self.fault = None
        self._hint(tuple(Seat), "calibrated", now)

    # ----- the menu ---------------------------------------------------------------------

    def menu_items(self) -> tuple[Entry, ...]:
        """The menu's entries: "Calibrate grid" only on a stand with a grid."""
        own = items_of(self.game.name)
        return (*own, Item.CALIBRATE) if self.grid is not None else own

    def _menu_key(self, seat: Seat, press: Press, now: float) -> None:
        before = self.settings
        menu = self.menus[seat]
        choice = menu.press(press.key, self.settings, self.unfinished)
        self.settings = choice.settings
        self._carry_out(menu, choice, now)
        if self.settings != before and not self._save_settings(now):
            # Kept for this run and saved once there is room (`tick`); the seat
            # goes back to its screen, which says so.
            self.saving.seats.add(seat)
            self.menus.pop(seat, None)

    def _carry_out(self, menu: Menu, choice: Choice, now: float) -> None:
        """What a key in `menu` asks of the game beyond the menu and the settings."""
        do = choice.do
        if do in (Do.CLOSE, Do.PENALTY, Do.CALIBRATE):
            del self.menus[menu.seat]
        left = self.unfinished  # one seat leaves a game in play: the other is told
        if do is Do.DEAL and not self.new_game(choice.game):
            self.menus.clear()  # back to the game, where "Cannot save" is shown
        elif do is Do.DEAL and left:
            self._hint((menu.seat.partner,), "partner_new_game", now)
        elif do is Do.PENALTY:
            self._penalty(now)
        elif do is Do.CALIBRATE:
            self.calibrating = Seat.A  # the screens ask for seat A's top-left word
            self.hints.clear()
        elif do is Do.HISTORY:
            try:
                menu.history = self.store.history(limit=HISTORY_GAMES)  # once, not every redraw
            except OSError as e:  # a history.jsonl the stand cannot read: an empty page
                log.error("cannot read the history: %s", e)
                menu.history = []
        elif do is Do.CAMPAIGN:
            menu.campaign = self.store.campaign()  # once, not every redraw
        elif do is Do.NEW_CAMPAIGN:
            self._new_campaign(menu, now)

    def _new_campaign(self, menu: Menu, now: float) -> None:
        """A new team's campaign, shown at once (empty); the old one is kept. A disk
        that refuses leaves the campaign in play as it was, and the seat is told."""
        try:
            menu.campaign = self.store.new_campaign()
        except OSError as e:
            log.error("cannot begin a new campaign: %s", e)
            self.menus.pop(menu.seat, None)  # back to its screen, which says so
            self._hint((menu.seat,), "campaign_unsaved", now)
