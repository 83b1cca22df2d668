"""The values a move passes through on its way from a frame to its ack: named, typed and
immutable, so that the move path reads ``pending.applied.delta_packed`` where a position in a
tuple would say nothing.

    frame ─▶ MovePath._apply ─▶ Applied ─▶ store script ─▶ ack (a dict: the wire's shape)
                 │                 └──▶ Pending (the synchronous start: the store's reply
                 └──▶ duplicate ack      still to come, the game's lock held)

``NamedTuple`` rather than a frozen dataclass: as immutable and as typed, and built by one
``tuple.__new__`` on a path every move takes."""

from __future__ import annotations

import asyncio
from typing import Any, NamedTuple

from solrace.server.game.racemodel import GameEntry, Player, RaceInfo
from solrace.shared.engine import Status
from solrace.shared.notation import Move


class Applied(NamedTuple):
    """A move validated and pushed on the racer's cached game, not yet in the store: what the
    store's script and the ack need."""

    status: Status  # the game's status after the move
    result: str  # "won" / "lost" when the move ended the game, else ""
    view: Any  # the racer's view after the move (wire form)
    delta: dict[str, Any]  # the view's change
    home: int  # cards home after the move
    progressed: bool  # whether the move put a card home
    move: str  # the move in full notation
    event: dict[str, Any]  # the progress event the race's stream gets
    body: bytes  # that event packed for the store
    delta_packed: bytes  # the delta packed (the ack's msgpack frame embeds it)


class Pending(NamedTuple):
    """A move started synchronously (:meth:`~solrace.server.game.racemoves.MovePath.move_now`):
    applied, its script call submitted, the game's lock held until it is settled
    (``move_done`` / ``move_refused`` / ``move_failed``)."""

    info: RaceInfo
    entry: GameEntry
    player: Player
    rid: str
    seq: int
    text: str | Move
    applied: Applied
    reply: asyncio.Future[Any]  # the store's raw reply
