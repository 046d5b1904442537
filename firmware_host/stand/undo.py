"""Undo by both seats: one seat asks, the other confirms within the window, so one
player alone cannot take back a guess."""

from __future__ import annotations

from dataclasses import dataclass

from ..rules import Seat
from .redraw import Redraw


@dataclass(frozen=True)
class UndoRequest:
    seat: Seat
    at: float


@dataclass
class UndoAgreement:
    """The request on the screens, if any: both screens say who asked."""

    redraw: Redraw
    request: UndoRequest | None = None

    @property
    def asked_by(self) -> Seat | None:
        return self.request.seat if self.request is not None else None

    def press(self, seat: Seat, now: float) -> bool:
        """`seat`'s undo: True if it confirms its partner's request (the last event
        is then to be taken back); else it is `seat`'s own request, from `now`."""
        confirms = self.asked_by is seat.partner
        self._set(None if confirms else UndoRequest(seat, now))
        return confirms

    def confirms(self, seat: Seat) -> bool:
        """Whether `seat`'s undo would confirm a request (not make one)."""
        return self.asked_by is seat.partner

    def lapse(self, now: float, window: float) -> None:
        """A request not confirmed within `window` seconds goes."""
        if self.request is not None and now - self.request.at > window:
            self._set(None)

    def drop(self) -> None:
        """The game moved on (or a panel failed): no request stands."""
        self._set(None)

    def _set(self, request: UndoRequest | None) -> None:
        if request != self.request:
            self.request = request
            self.redraw.moved()
