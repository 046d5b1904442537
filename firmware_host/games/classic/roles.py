"""Which seat of the stand faces which of classic's roles (docs/games.md
"Classic on the stand"): seat A's panel faces the spymasters, who see the key;
seat B's the operatives, who see only what the table knows."""

from __future__ import annotations

from ...rules import Seat

SPYMASTERS = Seat.A
OPERATIVES = Seat.B
ROLES = {SPYMASTERS: "spymasters", OPERATIVES: "operatives"}
