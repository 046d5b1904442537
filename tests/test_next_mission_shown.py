"""The next game's mission is on the game screen whenever one is chosen, on every
panel and in every language, beside the last input (issue 22 item 3: the 2.7"
and 2.13" dropped it as soon as there was a last input to show). Where the last
input and the mission share one box, a refusal that fills it (two lines, on the
2.13" in German or Russian) has it for its few seconds; then the input before
it is back, with the mission."""

from __future__ import annotations

from dataclasses import replace

import pytest

from keystand import layouts
from keystand.games import Context, Options, get
from keystand.games.duet.settings import MISSION
from keystand.rules import Mission, Seat, parse_event


def midgame(refused: bool) -> object:
    duet = get("duet")
    state = duet.start(duet.generate(3))
    agent = next(i for i, k in enumerate(state.card.side(Seat.A)) if k.value == "G")
    for line in ["clue A", f"touch {agent // 5} {agent % 5}"] + (["clue A"] if refused else []):
        state, _ = state.apply(parse_event(line))
    return state


@pytest.mark.parametrize("model", layouts.MODELS)
@pytest.mark.parametrize("lang", ["en", "de", "ru"])
@pytest.mark.parametrize("refused", [False, True])
def test_the_next_mission_is_drawn_beside_the_last_input(
    model: str, lang: str, refused: bool
) -> None:
    duet, state = get("duet"), midgame(refused)
    spec = layouts.panel(model)
    after = Context(show_refusal=False)  # a refusal's seconds over: the input before it
    plain = duet.view(state, Seat.B, after)
    told = duet.view(state, Seat.B, replace(after, chosen=Options().with_(MISSION, Mission(9, 5))))
    assert told.last is not None and told.next_mission is not None
    shown = layouts.render(told, spec, lang).tobytes()
    assert shown != layouts.render(plain, spec, lang).tobytes()
    # ... and the last input is still there: the same picture but for the mission.
    other = duet.view(state, Seat.B, replace(after, chosen=Options().with_(MISSION, Mission(8, 8))))
    assert shown != layouts.render(other, spec, lang).tobytes()
