"""Batches of moves: a source-only move, ``auto``, ``autoplay`` and ``finish`` (server side).

What the batch holds is decided by :func:`solrace.shared.pointing.plan`, from the racer's own
position; this module makes it durable the way :meth:`RaceService.move` makes one move durable:
the engine applies the moves to the cached game, the store appends them **all or none** with one
sequence check (``lua.BATCH``), and only then is the ack built. Each move of the batch emits its
own ``progress`` event, exactly as if it had been sent alone, so rivals' progress, spectators'
deltas and replays see nothing new; the ack carries the batch: ``moves`` and one combined
``delta``.

Retries are exact without any stored request id: a plan is a pure function of the position, so
a request repeated with an old ``seq`` is recomputed at that position, and if the log holds
exactly those moves after ``seq`` the request was applied already — a ``duplicate`` ack, never a
second application.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import msgpack
from solrace.server.game.lifecycle import Gate, move_gate
from solrace.server.ops import metrics
from solrace.shared.engine import Game, Status
from solrace.shared.errors import CannotFinish, IllegalMove, NoLegalMove, NotationError
from solrace.shared.notation import Move
from solrace.shared.pointing import legal_texts, plan
from solrace.shared.protocol import ProtocolError
from solrace.shared.views import advance, delta

if TYPE_CHECKING:
    from solrace.server.game.races import GameEntry, Player, RaceInfo, RaceService

Claim = Callable[[int, int], None]  # (seq before, seq after): the moves about to be appended


def _plan(game: Game, kind: str, text: str | None, auto: bool) -> list[Move]:
    """:func:`plan` with the core's errors as wire errors; the game is unchanged on error."""
    try:
        return plan(game, kind, text, auto)
    except NoLegalMove as exc:
        raise ProtocolError("no_legal_move", exc.reason) from None
    except CannotFinish as exc:
        raise ProtocolError("cannot_finish", exc.reason) from None
    except IllegalMove as exc:
        raise ProtocolError("illegal_move", exc.reason, detail=exc.detail) from None
    except NotationError as exc:
        raise ProtocolError("bad_notation", exc.reason) from None


def replan(game: Game, seq: int, kind: str, text: str | None, auto: bool) -> list[Move]:
    """The moves the request would have made at move ``seq`` of ``game`` (for retries); ``[]``
    when it would have been refused there."""
    past = game.copy()
    while len(past.moves) > seq:
        past.pop()
    try:
        return plan(past, kind, text, auto)
    except (NoLegalMove, CannotFinish, IllegalMove, NotationError):
        return []


async def checked_entry(races: RaceService, player: Player, rid: str) -> GameEntry:
    """The racer's cached game, after the same race checks as a move (nobody probes a deal
    before the start through a request that reads the position); a race that is over still
    answers (a retried batch, ``legal``), the store refusing anything new."""
    if (rid, player.pid) not in races.games:
        rec = await races.record_for_play(rid, player)
        if move_gate(rec.state) not in (Gate.PLAY, Gate.RETRY_ONLY):
            raise ProtocolError("not_running", f"the race is {rec.state}")
    return await races.entry(rid, player.pid)


async def play(
    races: RaceService, player: Player, rid: str, seq: int, kind: str, text: str | None = None,
    auto: bool = False, claim: Claim | None = None,
) -> dict[str, Any]:
    """Apply one batch request (``kind``: ``move``, ``autoplay``, ``finish``) and return the
    ack fields. ``claim`` is told the range of move counts just before the append, so the
    connection can recognise its own progress events."""
    info = await races.info(rid)
    # a finished race still recognises a retried batch (the store refuses anything new)
    e = await checked_entry(races, player, rid)
    async with e.lock:
        return await _locked(races, info, e, player, rid, seq, kind, text, auto, claim, False)


def _duplicate(e: GameEntry, moves: list[Move], kind: str) -> dict[str, Any]:
    out: dict[str, Any] = {"seq": len(e.game.moves), "duplicate": True, "view": e.view,
                           "moves": [m.text() for m in moves], "legal": legal_texts(e.game)}
    if kind == "move" and moves:
        out["move"] = moves[0].text()
    return out


async def _locked(
    races: RaceService, info: RaceInfo, e: GameEntry, player: Player, rid: str, seq: int,
    kind: str, text: str | None, auto: bool, claim: Claim | None, retried: bool,
) -> dict[str, Any]:
    game = e.game
    if seq > len(game.moves):  # another process moved this game: refresh from the log
        e = await races.entry(rid, player.pid, reload=True)
        game = e.game
    if seq != len(game.moves):
        past = replan(game, seq, kind, text, auto) if seq < len(game.moves) else []
        if past and game.moves[seq:seq + len(past)] == past:
            return _duplicate(e, past, kind)
        raise ProtocolError("stale_seq", f"your game has {len(game.moves)} moves, not {seq}",
                            seq=len(game.moves))
    moves = _plan(game, kind, text, auto)
    if not moves:  # nothing safe to play: nothing appended, nothing to acknowledge but that
        return {"seq": len(game.moves), "moves": [], "delta": {}, "status": game.status.value,
                "legal": legal_texts(game)}
    items, after = _events(game, e.view, player.pid, len(moves))
    moves = game.moves[seq:]  # _events may have cut the batch where the game ended
    status = game.status
    result = status.value if status in (Status.WON, Status.LOST) else ""
    if claim is not None:
        claim(seq, seq + len(moves))
    try:
        res = await races.store.append_batch(rid, player.pid, seq, items, result)
    except BaseException:  # store unreachable: the cache must not keep unlogged moves
        _undo(game, len(moves))
        raise
    if res.status != "ok":
        _undo(game, len(moves))
        again = await races.after_refusal(rid, player.pid, res, retried)
        if again is None:
            return await _locked(races, info, e, player, rid, seq, kind, text, auto, claim, True)
        return _duplicate(again, moves, kind)
    version, elapsed, unfinished, _ = (int(x) for x in res.values)
    change = delta(e.view, after)
    e.view = after
    metrics.MOVES.labels(info.variant).inc(len(moves))
    if unfinished == 0:
        races._spawn(races.try_finish(rid))
    ack: dict[str, Any] = {
        "seq": len(game.moves), "moves": [m.text() for m in moves], "delta": change,
        "v": version, "elapsed": elapsed, "status": status.value, "legal": legal_texts(game),
    }
    if kind == "move":
        ack["move"] = moves[0].text()
    return ack


def _undo(game: Game, n: int) -> None:
    for _ in range(n):
        game.pop()


def _events(game: Game, view: dict[str, Any], pid: str, n: int
            ) -> tuple[list[tuple[str, int, bool, bytes]], dict[str, Any]]:
    """The last ``n`` moves of ``game`` as store items, each with the progress event it would
    have emitted alone, and the wire view after them. Moves after one that ends the game are
    taken back (a batch never plays on in a game that is over)."""
    planned = [game.pop() for _ in range(n)][::-1]
    items = []
    for i, m in enumerate(planned):
        home_before = game.cards_home
        game.push(m)
        view, change = advance(game, view)
        status = game.status
        event: dict[str, Any] = {
            "k": "progress", "player": pid, "home": game.cards_home,
            "moves": len(game.moves), "move": m.text(), "delta": change,
        }
        over = status in (Status.WON, Status.LOST)
        if over:
            event["result"] = status.value
        items.append((m.text(), game.cards_home, game.cards_home > home_before,
                      msgpack.packb(event)))
        if over:
            del planned[i + 1:]
            break
    return items, view
