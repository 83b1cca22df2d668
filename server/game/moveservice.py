"""One entry for every move request: :func:`play` takes a ``move`` (in full notation, a source
only, or with ``auto``), an ``autoplay`` or a ``finish`` and returns the ack's fields.

Below it there are two ways a request reaches the store, chosen here and nowhere else: a move
in full notation is one script call (:meth:`~solrace.server.game.racemoves.MovePath.play_move`,
whose common case starts synchronously); anything the server must plan first (a source only,
``auto``, ``autoplay``, ``finish``: :mod:`solrace.shared.pointing`) is a batch
(:func:`~solrace.server.game.batches.play`). Both share the race's gate
(:func:`~solrace.server.game.lifecycle.move_gate`), the refusal rule
(:meth:`~solrace.server.game.racemoves.MovePath.after_refusal`) and the duplicate's version
(:func:`~solrace.server.game.racemoves.with_version`). An idle connection starts a full move
without a coroutine (:mod:`solrace.server.session.fastmoves`): the same ``move_now``, a private
optimisation of the first branch."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from solrace.server.game import batches
from solrace.server.game.racemoves import with_version
from solrace.shared import protocol as P
from solrace.shared.errors import NotationError
from solrace.shared.notation import Move

if TYPE_CHECKING:
    from solrace.server.game.racemodel import Player
    from solrace.server.game.races import RaceService

#: The requests :func:`play` takes, and the batch kind of each when it is planned.
KINDS: dict[type, str] = {P.MakeMove: "move", P.Autoplay: "autoplay", P.Finish: "finish"}
MoveRequest = P.MakeMove | P.Autoplay | P.Finish
#: Told the range of move counts a request is about to append (the connection's feed then
#: knows its own progress events: the ack stands for them).
Claim = Callable[[int, int], None]


def full_move(text: str) -> Move | None:
    """The move in full notation (``t3f1``), parsed once — ``Game.push`` takes it as it is;
    None otherwise (a source only: a batch)."""
    try:
        return Move.from_text(text)
    except NotationError:
        return None


async def play(races: RaceService, player: Player, req: MoveRequest,
               claim: Claim) -> dict[str, Any]:
    """The ack fields of one move request (see the module docstring); the refusal raised."""
    if type(req) is P.MakeMove and not req.auto:
        move = full_move(req.move)
        if move is not None:
            claim(req.seq, req.seq + 1)
            return await races.play_move(player, req.race, req.seq, move)
    ack = await batches.play(races, player, req.race, req.seq, KINDS[type(req)],
                             getattr(req, "move", None), getattr(req, "auto", False), claim)
    if ack.get("duplicate"):
        ack = await with_version(races.store, req.race, player.pid, req.seq, ack)
    return ack
