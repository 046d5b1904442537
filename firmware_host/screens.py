"""What each seat's panel shows now: the stand -> a view -> a layout -> an image.

The game goes through its game's `view` (keystand.games: the secrecy
boundary); a seat in its menu sees the menu, drawn from the stand's settings
only (no key).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, cast

from PIL import Image

from keystand.drivers.display import Panel
from keystand.drivers.inputs import KeyName

from . import games, layouts
from .menu import entry_name, waiting
from .profile import Profile
from .rules import Seat
from .stand import Item, RecordEntry, Stand
from .store import Store


@dataclass(frozen=True)
class KeyPlace:
    """Where a seat's keys sit beside its screen (the profile's [panels] keys and
    key_order): the edge of the upright picture, and the keys along it, top to
    bottom or left to right. Their labels are drawn there."""

    edge: str
    order: tuple[KeyName, ...]


Places = Mapping[Seat, KeyPlace]


def places(profile: Profile) -> dict[Seat, KeyPlace]:
    """Where each seat's keys sit beside its screen, as the profile says (a seat
    whose keys are not labelled is left out)."""
    return {
        Seat(seat): KeyPlace(p.keys, tuple(KeyName(k) for k in p.key_order))
        for seat, p in profile.panels.items()
        if p.keys != "none"
    }


def spec(panel: Panel, place: KeyPlace | None = None) -> layouts.PanelSpec:
    return layouts.panel(panel.model.name, panel.rotation, place.edge if place else None)


def render(stand: Stand, seat: Seat, panel: Panel, places: Places | None = None) -> Image.Image:
    """`seat`'s screen now: the game, the menu or a neutral picture, and where the
    seat's keys are labelled (`places`), what each does now."""
    lang = stand.settings.lang_of(seat)
    view: layouts.AnyView
    place = places.get(seat) if places else None
    if seat in stand.menus:
        view = menu_view(stand, seat)
    elif stand.state is None:  # no game: the disk refused to save a new one, or idle
        view = neutral(layouts.Neutral.CANNOT_SAVE if stand.faults.saving else layouts.Neutral.IDLE)
        place = None  # a picture with no game: its keys have nothing to label
    else:
        view = stand.game.view(stand.state, seat, context(stand, seat))
    keys = key_labels(stand, seat, place) if place is not None else None
    return layouts.render(view, spec(panel, place), lang, keys)


def renderer(places: Places) -> Callable[[Stand, Seat, Panel], Image.Image]:
    """`render` with each seat's keys labelled where the profile puts them."""
    return lambda stand, seat, panel: render(stand, seat, panel, places)


def labels_of(state: object, seat: Seat, place: KeyPlace) -> layouts.KeyLabels:
    """What each key does at `state` on a stand with a touch grid, none of its
    keys pressed yet (`keystand render --keys`): the stand's own table."""
    return key_labels(Stand(cast(Store, None), state=state), seat, place)


def key_labels(stand: Stand, seat: Seat, place: KeyPlace) -> layouts.KeyLabels:
    """What each of `seat`'s keys does now (the stand's `labels`), in the order
    the keys sit along their edge."""
    now = stand.labels(seat)
    return tuple(layouts.KeyLabel(*now[key]) for key in place.order)


def context(stand: Stand, seat: Seat) -> games.Context:
    """The stand's own state `seat`'s screen may show beside the game."""
    hint = stand.hints.of(seat)
    if hint is None and stand.calibration.asking is not None:
        hint = "calibrate"  # until the touch comes: both screens ask for it
    if hint is None and seat in stand.saved.seats:
        hint = "settings_unsaved"  # the seat's own choice, kept until it can be saved
    return games.Context(
        undo_asked=stand.undo.asked_by,
        reveal=stand.revealed,
        cannot_save=stand.faults.saving is not None,
        input_lost=bool(stand.faults.inputs_lost),
        partner_panel_failed=seat.partner in stand.faults.panels,
        hint=hint,
        repaired=stand.faults.repaired.value if stand.faults.repaired else None,
        show_refusal=stand.refusal.shown,
        penalty_pending=stand.penalty_pending,
        timer=stand.timer.left,
        cursor=stand.cursor_of(seat),  # the guesser's own, on its own screen only
        number=stand.choosing.numbering.get(seat),  # the clue's number being chosen: its own screen
        chosen=stand.settings.of_game(stand.game),  # the next game's choices (the menu's)
    )


def menu_view(stand: Stand, seat: Seat) -> layouts.MenuView:
    """The seat's menu from the stand's settings: nothing of the game in play; and,
    at its foot, whether the other seat's panel fails (the stand's own state)."""
    menu = stand.menus[seat]
    s = stand.settings
    started = stand.game.options_of(stand.state) if stand.playing else None
    later = waiting(s, started, stand.game.settings)  # chosen for the next game: labelled so
    lines = []
    for item in menu.items:
        if isinstance(item, games.Setting):  # the game's own: as it shows its value
            shown = item.shown(s.of(item), seat)
            entry = layouts.MenuItem(item.item)
            lines.append(layouts.MenuLine(entry, shown.value, shown.text, shown.named))
            continue
        entry = layouts.MenuItem(entry_name(item))
        if item is Item.CALIBRATE:
            lines.append(layouts.MenuLine(entry, value_text=f"{stand.calibration.grid}°"))
        elif item is Item.LANGUAGE:
            lines.append(layouts.MenuLine(entry, f"lang_{s.lang_of(seat)}"))
        elif (
            (item in (Item.NEW_GAME, Item.GAME, Item.PENALTY) or _begins(item))
            and menu.confirming
            and (item is menu.item)
        ):
            lines.append(layouts.MenuLine(entry, "confirm"))
        elif item is Item.GAME and s.game in games.SHIPPED:  # named in each language
            lines.append(layouts.MenuLine(entry, f"game_{s.game}"))
        elif item is Item.GAME:  # a game installed beside keystand: as it names itself
            lines.append(layouts.MenuLine(entry, value_text=s.game))
        else:
            lines.append(layouts.MenuLine(entry))
    lines = [replace(line, next_game=i in later) for i, line in zip(menu.items, lines, strict=True)]
    history = None
    if menu.history is not None:
        history = tuple(
            layouts.HistoryLine(
                date=str(g.get("date", ""))[5:10],  # MM-DD
                label=str(g.get(games.HISTORY_LABEL, "")),
                result=g["result"] if g.get("result") in ("won", "lost") else "abandoned",
                score=g["score"] if isinstance(g.get("score"), int) else None,
            )
            for g in menu.history
        )
    view = layouts.MenuView(
        tuple(lines),
        menu.index,
        menu.editing,
        history,
        history_page=menu.page,
        other_panel_failed=seat.partner in stand.faults.panels,
    )
    record = stand.game.record
    if menu.record is not None and record is not None:  # the game's page of its wins
        return record.page(view, menu.record)
    return view


def _begins(item: object) -> bool:
    """Whether a menu entry begins a new record of the game (asked twice)."""
    return isinstance(item, RecordEntry) and item.begins


def starting(panel: Panel, lang: str = "en") -> Image.Image:
    """The picture for a panel with nothing on it yet while the stand starts."""
    return layouts.render(neutral(layouts.Neutral.STARTING), spec(panel), lang)


def blank(stand: Stand, seat: Seat, panel: Panel) -> Image.Image:
    """The picture left on a panel when the service stops: no key, no game."""
    return layouts.render(neutral(layouts.Neutral.OFF), spec(panel), stand.settings.lang_of(seat))


def public(stand: Stand) -> dict[str, Any]:
    """The public record for the simulator page's status line: no key, no side."""
    last = stand.state.last if stand.state else None
    grid = stand.game.grid
    return {
        "game": stand.store.game_id,
        # The game's grid: the page deals its words in this shape (a switch of
        # games in the menu can change it).
        "grid": {"rows": grid.rows, "cols": grid.cols},
        "state": stand.game.summary(stand.state) if stand.state else None,
        "refused": last.message
        if last is not None and games.refused(last) and stand.refusal.shown
        else None,
        "cannot_save": stand.faults.saving,
        # The seats whose panel fails (public: anyone at the table sees it stuck).
        "panel_failed": sorted(seat.value for seat in stand.faults.panels),
    }


def neutral(kind: layouts.Neutral) -> layouts.NeutralView:
    """The picture with no key: idle, starting, switched off, or the disk full."""
    return layouts.NeutralView(kind)
