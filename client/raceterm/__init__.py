"""The race at the terminal, used by ``solrace play``, ``race``, ``daily`` and ``practice``:
:class:`RaceTerminal` takes server messages and typed lines in and draws the race.

One job per module: :mod:`.terminal` (the loop, entering a race, reconnecting), :mod:`.events`
(server messages applied and announced), :mod:`.lines` (typed commands and moves, the requests
they make), :mod:`.screen` (what the frame shows), :mod:`.model` (a racer, the words read and
the texts built, no I/O).
"""

from solrace.client.raceterm.model import (
    Racer,
    default_options_advice,
    hint_text,
    pile_summary,
)
from solrace.client.raceterm.terminal import RaceTerminal

__all__ = ["RaceTerminal", "Racer", "default_options_advice", "hint_text", "pile_summary"]
