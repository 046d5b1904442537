"""The stand: what each input means now, and the game it changes.

Owned by the service loop (one thread); no I/O but the store. An input becomes
a rules event, a menu step (menu.py) or nothing; an accepted rules event is
journaled (fsync) before `handle` returns, and only then may anything draw its
result. The stand's parts keep their own state, each in its own module: the
undo agreement (undo.py), the open menus (open_menus.py), the turn timer
(timer.py), calibration (calibration.py), faults (faults.py), hints and the
refusal on the screens (hints.py), a seat's cursor and clue number
(choosing.py), the saved settings (saving.py). Each moves the redraw counter
(redraw.py) where it changes what a screen shows; so does this module, where
the game, the settings or the end change.

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
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from keystand.drivers.inputs import Act, InputEvent, KeyName, Press, Touch

from .. import cursor, games
from ..journal import JournalError
from ..menu import HISTORY_GAMES, Choice, Do, Entry, Item, Menu, items_of
from ..rules import Seat
from ..settings import Settings
from ..store import Resumed, Store
from .calibration import Calibration
from .choosing import Choosing
from .faults import Faults, Repair
from .hints import Hints, Refusal
from .open_menus import OpenMenus
from .redraw import Redraw
from .saving import SavedSettings
from .timer import TurnTimer
from .undo import UndoAgreement

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


@dataclass
class Stand:
    """The game, the menus and the pending undo of one stand."""

    store: Store
    settings: Settings = field(default_factory=Settings)
    # The dealer of new cards; a card of another game than the one dealt is
    # passed over for one of that game's own (its `generate`).
    new_card: Callable[[], object] | None = None  # None: the game's own (`generate`)
    state: Any = None  # the game in play, a state of its game (games.of_state)
    cursor_keys: bool = False  # buttons only: the guesser picks words with a cursor
    redraw: Redraw = field(default_factory=Redraw, init=False)
    menus: OpenMenus = field(init=False)
    undo: UndoAgreement = field(init=False)
    timer: TurnTimer = field(init=False)  # the turn timer (a game with one)
    calibration: Calibration = field(init=False)
    faults: Faults = field(init=False)
    hints: Hints = field(init=False)
    refusal: Refusal = field(init=False)
    choosing: Choosing = field(init=False)
    saved: SavedSettings = field(init=False)
    ended_at: float | None = None  # when the game in play ended (None: not, or long ago)
    # A game resumed in its end hold (ended, not yet listed: the stand stopped before
    # both sides were shown): the hold, and the undo it allows, start again at the
    # service's next tick (the stand has no clock of its own).
    hold_resumed: bool = False
    penalty_pending: bool = False  # an invalid clue called: the next touch names the word
    _card: Any = field(default=None, repr=False)  # dealt, not yet on disk

    def __post_init__(self) -> None:
        r = self.redraw
        self.menus, self.undo, self.timer = OpenMenus(r), UndoAgreement(r), TurnTimer(r)
        self.calibration, self.faults = Calibration(r), Faults(r)
        self.hints, self.refusal, self.choosing = Hints(r), Refusal(r), Choosing(r)
        self.saved = SavedSettings(self.store, r)

    @property
    def version(self) -> int:
        """Goes up with every change a screen may show (redraw.py)."""
        return self.redraw.version

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
    def unfinished(self) -> bool:
        """A game in play, or its end still held (both seats may yet undo it): one
        seat leaving it through the menu confirms first, and the partner is told."""
        return self.playing or (self.state is not None and not self.revealed)

    @property
    def revealed(self) -> bool:
        """Whether the finished game's key may be shown (undo is then refused)."""
        return self.ended_at is None and not self.hold_resumed

    def _over_and_shown(self) -> bool:
        return self.state is not None and not self.playing and self.revealed

    def _set(self, **changes: object) -> None:
        """Change the stand's own fields a screen shows: a redraw if any differ (as
        `==` compares them: a game's state by its record, not its last refusal,
        which the refusal's own part draws)."""
        differ = any(getattr(self, name) != value for name, value in changes.items())
        for name, value in changes.items():
            setattr(self, name, value)
        if differ:
            self.redraw.moved()

    # ----- start-up -------------------------------------------------------------------

    def boot(self, game: str | None = None) -> Resumed | None:
        """Resume the journaled game, or deal a new one: the stand boots into a game.
        The menu's choices saved in the state dir (languages, the game, the next
        game's own settings) come back as they were left;
        `game` (a name) overrides the saved game for the next new game."""
        loaded = self.saved.load(self.settings)
        if loaded is not None:
            self._set(settings=loaded)
        if game is not None and games.get(game).name != self.settings.game:
            self._choose(replace(self.settings, game=games.get(game).name))
        try:
            resumed = self.store.resume()
        except JournalError as e:  # kept aside by the store: nothing is lost
            log.warning("%s; dealing a new game", e)
            resumed = None
            self.faults.repair(Repair.NEW_GAME)
        if resumed is not None and resumed.recovery.damaged_copy is not None:
            self.faults.repair(Repair.RESUMED)
        if resumed is None:
            self.new_game()
        else:
            self._resume(resumed, game, saved=loaded is not None)
        self._arm_timer()  # a resumed turn gets its full time again
        self._list_if_final()  # a finished game the history may not have yet
        return resumed

    def _resume(self, resumed: Resumed, game: str | None, saved: bool) -> None:
        self._set(state=resumed.state)
        if game is None and self.game.name != self.settings.game:
            # The journal is what took effect: a switch whose setting the disk
            # refused (or lost to a restart) must not name the other game.
            self._choose(replace(self.settings, game=self.game.name))
        started = self.game.options_of(resumed.state)
        if not saved and started is not None:
            # A state dir from before settings were kept: the game's own.
            self._set(settings=self.settings.started(self.game, started))
        self._set(hold_resumed=not self.playing and not self.store.listed())

    def _choose(
        self, settings: Settings, seat: Seat | None = None, now: float | None = None
    ) -> bool:
        """The menu's (or start-up's: `seat` None) choices now `settings`, saved;
        False if the disk refused them (they hold for this run, and the seat's
        screen says so)."""
        self._set(settings=settings)
        return self.saved.save(settings, seat, now)

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
            self.faults.cannot_save(str(e))
            return False
        self._card = None
        self.faults.cannot_save(None)
        self._set(settings=replace(self.settings, game=game.name))
        self.hints.clear()
        self.choosing.clear()
        if self.state is not None:
            self.faults.repair(None)
        self._set(state=state, penalty_pending=False, ended_at=None, hold_resumed=False)
        self.menus.close_all()
        self.undo.drop()
        self._arm_timer()
        self.redraw.moved(full=True)
        return True

    # ----- health -----------------------------------------------------------------------

    def panel_health(self, seat: Seat, fault: str | None) -> None:
        """A seat's panel failed (`fault` says how) or shows frames again (None):
        the other seat's screen says so until it is back. Meanwhile the game holds
        before that seat would need its side (`held`); once it is back, play goes
        on from where it was, nothing to press."""
        self.faults.panel(seat, fault)
        if fault is not None and self.undo.asked_by is seat.partner:
            self.undo.drop()  # the seat cannot see it is asked to confirm

    def held(self, event: Any) -> Seat | None:
        """The seat whose failed panel holds `event` (a rules event of the game in
        play): its clue, said by its key or by the guess that follows it, needs the
        side that panel cannot show now. None: the event may go on."""
        if self.state is None or not self.faults.panels:
            return None
        giver = self.game.clue_by(self.state, event)
        return giver if giver in self.faults.panels else None

    def input_health(self, source: str, lost: bool, now: float | None = None) -> None:
        """An input device stopped answering (`lost`) or answers again: both
        screens say so while any is lost, and for a few seconds that it is back."""
        if self.faults.input(source, lost) and now is not None:
            self.hints.say(tuple(Seat), "input_back", now)

    # ----- inputs -----------------------------------------------------------------------

    def handle(self, event: InputEvent | games.Played, now: float) -> bool:
        """Act on one input; True if anything a screen shows changed (time passing
        before it, as `tick` says, aside)."""
        self.tick(now)
        before = self.version
        self.timer.idle_timeouts = 0  # somebody is at the table: the timer runs again
        if isinstance(event, Touch):
            self._touch(event, now)
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
        return self.version != before

    def _touch(self, touch: Touch, now: float) -> None:
        if self.calibration.asking is not None:
            self._calibrate(touch, now)
        elif self._over_and_shown():  # a touch on the end screen: say how to go on
            self.hints.say(tuple(Seat), "new_game", now)
        elif self.state is not None and not self.playing:
            # The end held back: only undo can change it now. A stray touch
            # must not become the word framed as the one that ended the game.
            log.info("touch %d %d while the end is held: ignored", touch.row, touch.col)
        elif self.state is not None and not self.game.grid.contains(touch.row, touch.col):
            # A keyboard line, or a page dealt before a switch of games, can
            # name a word the game's grid does not have.
            log.warning(
                "touch %d %d: off the %s grid of %s; ignored",
                touch.row,
                touch.col,
                self.game.grid,
                self.game.name,
            )
        elif self.state is not None:
            self._game(self._touch_event(touch.row, touch.col), now)

    def _touch_event(self, row: int, col: int) -> object:
        return self.game.touch_event(self.state, row, col, penalty=self.penalty_pending)

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

    def still(self) -> bool:
        """Nothing `tick` does can change anything until the next input: no undo
        request, hint or refusal to lapse, no end to reveal, no turn timer running,
        no settings or journal to try again. The service loop then waits for an
        input (or systemd's watchdog) instead of ticking (an idle stand costs
        nothing)."""
        if self._timed():
            timer = self.timer.idle and self.timer.armed(self._timer_length())
        else:
            timer = self.timer.stopped
        return (
            timer
            and self.undo.request is None
            and not self.hints.said
            and self.refusal.at is None
            and not self.hold_resumed
            and self.ended_at is None
            and not self.saved.seats
            and not self.store.recovering
        )

    def tick(self, now: float) -> bool:
        """Let time pass: an unanswered undo request lapses, a hint or a refusal
        goes, the end's key is shown, the turn timer runs, and settings the disk
        refused are tried again. True if anything a screen shows changed.
        Whatever is added here is added to `still` too, or the loop sleeps past it."""
        before = self.version
        self.undo.lapse(now, self.settings.undo_window)
        self.hints.lapse(now)
        self.refusal.lapse(now)
        if self.hold_resumed:
            self._set(hold_resumed=False, ended_at=now)
        if self.ended_at is not None and now - self.ended_at >= self.settings.reveal_delay:
            self._set(ended_at=None)  # the end screen with both sides: a full refresh
            self.redraw.moved(full=True)
            self._list_if_final()
        self._run_timer(now)
        if self.saved.due(now):
            self.saved.retry(self.settings, now)
        if self.store.recover(now):  # a write that could not be taken back: checked again
            self.faults.cannot_save(None)  # the journal is trusted again: inputs are taken again
        return self.version != before

    # ----- the turn timer ---------------------------------------------------------------

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
        if self.timer.idle:  # an empty table: wait for somebody
            self.timer.arm(self._timer_length(), self.game)
            return
        up = self.timer.run(now, self._timer_length(), self.game.turn_of(self.state))
        # A full disk leaves it at "time is up" until saving works again.
        if up and not self.penalty_pending and self.faults.saving is None:
            result = self._game(self.game.timeout_event(self.state), now)
            if result is not None and not games.refused(result):
                self.timer.idle_timeouts += 1
                self._run_timer(now)  # the next turn's clock
                return
        self.timer.show(self.game)

    # ----- acts of the group --------------------------------------------------------------

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
            self._set(penalty_pending=True)
        else:
            self._game(event, now)

    # ----- the keys ---------------------------------------------------------------------

    def cursor_of(self, seat: Seat) -> int | None:
        """The table cell of `seat`'s cursor while it picks a word on a buttons-only
        stand; None otherwise (and always for the partner)."""
        if seat not in self.choosing.picking or seat in self.menus:
            return None
        return self.choosing.cursors.get(seat, cursor.start(seat, self.game.grid))

    def _may_pick(self, seat: Seat) -> bool:
        """Whether `seat` picks words with its cursor now (buttons only, its guess)."""
        return (
            self.cursor_keys
            and self.state is not None
            and self.playing
            and self.game.cursor_seat(self.state) is seat
        )

    def meaning(self, seat: Seat, key: KeyName, long: bool = False) -> str | None:
        """What `seat`'s `key` does now, pressed (or held: `long`): a word of the
        screens' [key] table, which the key's label shows, or None (nothing: a
        hint or the rules' refusal says why). `_game_key` does what this says."""
        if seat in self.menus:
            return self.menus[seat].meaning(key)
        if seat in self.choosing.picking:
            return PICKING[key]  # held or not: a held guess must not open the menu
        if seat in self.choosing.numbering:
            return self._number_meaning(seat, key)
        if key is KeyName.MENU:
            return "menu" if long else None
        if key is KeyName.UNDO and self.calibration.asking is not None and not long:
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
        values, number = numbers.values, self.choosing.numbering[seat]
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
        return self.undo.confirms(seat) or seat.partner not in self.faults.panels

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
        elif seat in self.choosing.numbering or word == "number":
            self._number_key(seat, word, now)
        elif word in ("clue", "arm", "end_turn"):  # the game's own keys
            assert self.state is not None
            self._game(self.game.key_event(self.state, seat, press.key.value), now)
        elif word == "undo":
            self._undo_key(seat, now)
        elif word == "menu":
            self.menus.show(seat, self.menu_items())
            self.hints.drop(seat)
        elif word == "new_game":
            self.new_game()
        elif word == "cancel":
            self.calibration.cancel()
        else:
            self._pick_key(seat, word, now)

    def _number_key(self, seat: Seat, word: str, now: float) -> None:
        """A key of the seat choosing its clue's number (`_number_meaning`)."""
        numbers = self.game.clue_numbers
        assert numbers is not None and self.state is not None
        values = numbers.values
        if word == "number":
            self.choosing.number(seat, numbers.start)
        elif word == "back":
            self.choosing.number(seat, None)
        elif word in ("plus", "minus"):
            at = values.index(self.choosing.numbering[seat]) + (1 if word == "plus" else -1)
            self.choosing.number(seat, values[at])
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
            self.choosing.pick(seat)
        elif word == "back":
            self.choosing.pick(seat, False)
        elif at is not None and word == "next":
            self.choosing.move(seat, cursor.next_word(seat, at, grid))
        elif at is not None and word == "down":
            self.choosing.move(seat, cursor.down(seat, at, grid))
        elif at is not None and word == "guess":
            result = self._game(self._touch_event(*grid.row_col(at)), now)
            if result is not None and not games.refused(result):
                self.choosing.pick(seat, False)  # guessed: back to the turn's keys

    def _unlabelled(self, seat: Seat, press: Press, now: float) -> None:
        """A key that does nothing now: the screen says what would, or the rules
        say why not."""
        if seat in self.choosing.numbering:
            # +1 past unlimited, -1 below 0, or the clue held for a failed panel:
            # the screen already shows the number and what the other keys do.
            log.info("%s %s while choosing the clue's number: ignored", press.key.value, seat.value)
        elif press.key is KeyName.MENU:
            self.hints.say((seat,), "hold_menu", now)  # a short press does nothing
        elif self._over_and_shown():
            self.hints.say((seat,), "too_late", now)  # the end is final: clue deals the next
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
                self.hints.say((seat,), f"useless_{press.key.value}", now)
        elif press.key is KeyName.UNDO:  # the partner would confirm on a failed panel
            log.info("undo %s: held, panel %s fails", seat.value, seat.partner.value)

    def _undo_key(self, seat: Seat, now: float) -> None:
        """Undo asks; the other seat's undo within the window takes the last event back.
        No request the partner cannot see: its panel fails (`meaning` says so)."""
        if self.undo.press(seat, now):
            assert self.state is not None
            self._game(self.game.act_event(self.state, "undo", None), now)

    # ----- the game ---------------------------------------------------------------------

    def _game(self, event: Any, now: float) -> Any:
        """Apply a rules event of the game in play; journal it (fsync) if accepted,
        before any redraw. Returns the outcome or the refusal (None: not applied)."""
        if self.state is None:
            return None
        if not self.playing and self.revealed:
            return None  # both sides were shown: the game cannot be taken back
        holder = self.held(event)
        if holder is not None:
            # Not taken: the game holds until that panel shows frames again (the
            # other screen says which and what to check), and then goes on.
            log.info("%s: held, panel %s fails", event, holder.value)
            return None
        state, result = self.state.apply(event)
        if games.refused(result):
            # A refusal shows for a few seconds, then the last accepted outcome is
            # back; a touch of the clue giver's hand is not shown at all.
            self.refusal.came(now, hidden=self._giver_hand(event, result))
        elif not self._record(event, state, now):
            return None
        self._set(state=state)
        self.choosing.keep_picking(self._may_pick)
        if not games.refused(result):
            self.hints.clear()
            # The number was being chosen for the clue awaited then: any event the
            # rules took (the clue itself, the timer ending the turn) ends that.
            self.choosing.no_numbers()
            self.undo.drop()
        return result

    def _record(self, event: Any, state: Any, now: float) -> bool:
        """Journal an accepted event (fsync); False if the disk refused it (not
        taken, and the screens say so)."""
        was_playing = self.playing
        try:
            self.store.record(event, state)
        except JournalError as e:
            log.error("%s: input not taken", e)
            self.faults.cannot_save(str(e))
            return False
        self.faults.cannot_save(None)
        if self.saved.seats:  # the disk took a record: room for the settings it refused
            self.saved.retry(self.settings, now)
        self.faults.repair(None)  # the players have gone on from what was repaired
        self._set(penalty_pending=False)
        self.refusal.accepted()
        if not self.game.playing(state) and was_playing:
            self._set(ended_at=now)  # the end, the key held back a few seconds
        elif self.game.playing(state):
            self._set(ended_at=None, hold_resumed=False)
        return True

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
        is under the orientation it has now (calibration.py)."""
        try:
            calibrated = self.calibration.touch(touch)
        except OSError as e:  # not saved: not used, and the screens say so
            log.error("cannot save the grid's orientation: %s", e)
            self.faults.cannot_save(str(e))
            return
        if calibrated:
            self.faults.cannot_save(None)
        self.hints.say(tuple(Seat), "calibrated" if calibrated else "not_corner", now)

    # ----- the menu ---------------------------------------------------------------------

    def menu_items(self) -> tuple[Entry, ...]:
        """The menu's entries: "Calibrate grid" only on a stand with a grid."""
        own = items_of(self.game.name)
        return (*own, Item.CALIBRATE) if self.calibration.grid is not None else own

    def _menu_key(self, seat: Seat, press: Press, now: float) -> None:
        before = self.settings
        choice = self.menus.press(seat, press.key, self.settings, self.unfinished)
        self._set(settings=choice.settings)
        self._carry_out(self.menus[seat], choice, now)
        if self.settings != before and not self._choose(self.settings, seat, now):
            # Kept for this run and saved once there is room (`tick`); the seat
            # goes back to its screen, which says so.
            self.menus.close(seat)

    def _carry_out(self, menu: Menu, choice: Choice, now: float) -> None:
        """What a key in `menu` asks of the game beyond the menu and the settings."""
        do = choice.do
        if do in (Do.CLOSE, Do.PENALTY, Do.CALIBRATE):
            self.menus.close(menu.seat)
        left = self.unfinished  # one seat leaves a game in play: the other is told
        if do is Do.DEAL and not self.new_game(choice.game):
            self.menus.close_all()  # back to the game, where "Cannot save" is shown
        elif do is Do.DEAL and left:
            self.hints.say((menu.seat.partner,), "partner_new_game", now)
        elif do is Do.PENALTY:
            self._penalty(now)
        elif do is Do.CALIBRATE:
            self.calibration.start()  # the screens ask for seat A's top-left word
            self.hints.clear()
        elif do is Do.HISTORY:
            self.menus.page(menu.seat, history=self._history())
        elif do is Do.RECORD and self.game.record is not None:
            self.menus.page(menu.seat, record=self.store.tally(self.game.record))
        elif do is Do.NEW_RECORD:
            self._new_record(menu, now)

    def _history(self) -> list[dict[str, Any]]:
        """The finished games the menu's page lists (read once, not every redraw)."""
        try:
            return self.store.history(limit=HISTORY_GAMES)
        except OSError as e:  # a history.jsonl the stand cannot read: an empty page
            log.error("cannot read the history: %s", e)
            return []

    def _new_record(self, menu: Menu, now: float) -> None:
        """A new record of the game (its `record`: Duet's campaign), shown at once
        (empty); the old one is kept. A disk that refuses leaves the record in play
        as it was, and the seat is told."""
        kind = self.game.record
        if kind is None:  # only a game with a record lists its entries
            return
        try:
            self.menus.page(menu.seat, record=self.store.new_tally(kind))
        except OSError as e:
            log.error("cannot begin a new %s: %s", kind.name, e)
            self.menus.close(menu.seat)  # back to its screen, which says so
            self.hints.say((menu.seat,), kind.unsaved_hint, now)
