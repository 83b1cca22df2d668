"""Lobby requests: create, join, leave and ready up in a race; list one's races; quick pairing."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from solrace.server.game.pool import PooledDeal
from solrace.server.game.racemodel import parse_options
from solrace.server.game.races import Player
from solrace.server.game.results import parse_rating
from solrace.server.session.handlers.accounts import account_title, require_account, require_human
from solrace.server.session.handlers.base import handles
from solrace.shared import protocol as P
from solrace.shared import skillpair
from solrace.shared.protocol import ProtocolError

if TYPE_CHECKING:
    from solrace.server.session.handlers.base import Services, Session

log = logging.getLogger("solrace.lobby")

QUICK_GHOSTS = 10  # stale quick-pair entries one request may skip before giving up
QUICK_RETRIES = 50  # reads of a queue that others keep changing before giving up
#: Seconds between a waiting player's looks at its queue (pairing with someone who waits too,
#: once either's window is wide enough: at the latest after the maximum wait).
RECHECK_S = 2.0


async def race_reply(conn: Session, svc: Services, req_id: Any, rid: str,
                     kind: str = "race", **extra: Any) -> dict[str, Any]:
    """A reply carrying the race's summary (and its deadlines armed on this process);
    ``extra``: the reply's other fields (wire names)."""
    rec = await svc.races.record(rid)
    svc.races.arm(rec)
    return P.reply(req_id, kind, race=svc.races.summary(rec), **extra)


async def create_race(conn: Session, svc: Services, host: Player, variant: str,
                      options: dict[str, Any], seats: int, time_limit: int, rated: bool,
                      winnable: bool, deal: PooledDeal | None = None,
                      difficulty: str | None = None) -> str:
    """A new race; a winnable one is dealt a seed from its configuration's pool of
    solver-won seeds — of ``difficulty``'s pool when one is asked — (``deal``: one taken
    already; else waiting for one at most ``--pool-wait``: see server/game/pool.py)."""
    races = svc.races
    if not winnable:
        return (await races.create(host, variant, options, seats, time_limit, rated))[0]
    deal = deal or await svc.pool.take(variant, options, difficulty)
    extra = {"winnable": "1", "certified_par": str(deal.par)}
    if deal.difficulty is not None:
        extra["difficulty"] = deal.difficulty
    rid, _ = await races.create(host, deal.variant, deal.options, seats, time_limit, rated,
                                seed=deal.seed, extra=extra)
    return rid


@handles(P.CreateRace)
async def on_race_create(conn: Session, svc: Services, req: P.CreateRace) -> dict[str, Any]:
    races = svc.races
    if req.rated:
        require_account(conn, "a rated race")
        require_human(conn, "a rated race")
    rid = await create_race(conn, svc, conn.me, req.variant, req.options, req.seats,
                            req.time_limit, req.rated, req.winnable,
                            difficulty=req.difficulty)
    v = await races.join(conn.me, rid)
    reply = await race_reply(conn, svc, req.id, rid)
    await conn.feed.attach(rid, v)
    return reply


@handles(P.JoinRace)
async def on_race_join(conn: Session, svc: Services, req: P.JoinRace) -> dict[str, Any]:
    races = svc.races
    rid = req.race if req.race is not None else await races.code_to_race(req.code or "")
    info = await races.info(rid)
    if info.kind == "knockout":  # its two seats are the match's: tournament.play sits them
        raise ProtocolError("race_full", "a knockout match is its two entrants'")
    if info.rated:
        require_account(conn, "a rated race")
        require_human(conn, "a rated race")
    v = await races.join(conn.me, rid)
    if v == 0:  # already a racer: no new event
        v = (await races.record(rid)).num("version")
    reply = await race_reply(conn, svc, req.id, rid)
    await conn.feed.attach(rid, v)
    return reply


@handles(P.LeaveRace)
async def on_race_leave(conn: Session, svc: Services, req: P.LeaveRace) -> dict[str, Any]:
    await svc.races.leave(conn.me, req.race)
    await conn.feed.detach(req.race)
    return await race_reply(conn, svc, req.id, req.race)


@handles(P.Ready)
async def on_race_ready(conn: Session, svc: Services, req: P.Ready) -> dict[str, Any]:
    await svc.races.ready(conn.me, req.race)
    return await race_reply(conn, svc, req.id, req.race)


@handles(P.MyRaces)
async def on_races_mine(conn: Session, svc: Services, req: P.MyRaces) -> dict[str, Any]:
    out: list[dict[str, Any]] = []
    for rid in await svc.store.player_races(conn.me.pid):
        rec = await svc.store.read_race(rid)
        if rec is not None:
            await svc.races.record(rid)
            out.append(svc.races.summary(rec))
    return P.reply(req.id, "races", races=out)


def quick_entry(conn: Session, svc: Services) -> str:
    """The start of this player's quick-queue entry, ``pid:name:process:`` (names have no
    ``:``); the entry goes on with ``rating:rd:since_ms`` (see :func:`_pair`)."""
    return f"{conn.me.pid}:{conn.me.name}:{svc.config.process_id}:"


def parse_entry(entry: str) -> tuple[str, str, str, skillpair.Seeker]:
    """(pid, name, process, seeker) of a queue entry; missing fields: an unrated seeker."""
    pid, name, process, rating, rd, since = (entry.split(":") + [""] * 6)[:6]
    try:
        seeker = skillpair.Seeker(float(rating), float(rd), float(since) / 1000)
    except ValueError:
        seeker = skillpair.Seeker()
    return pid, name, process, seeker


@handles(P.QuickPair)
async def on_quick(conn: Session, svc: Services, req: P.QuickPair) -> dict[str, Any]:
    races = svc.races
    if conn.quick_queue is not None:
        raise ProtocolError("already_queued", "you are already waiting for a quick race")
    queue, opts = races.queue_name(req.variant, req.options)
    deal = None
    if req.winnable:  # its own queue: a winnable player pairs only with another. The deal
        # is drawn first, so that a pool_empty refusal leaves the queue as it was; a player
        # who ends up waiting puts it back (the match's creator draws its own).
        deal = await svc.pool.take(req.variant, req.options, req.difficulty)
        queue += "|winnable" + (f"|{req.difficulty}" if req.difficulty else "")
    try:
        other = await _pair(conn, svc, queue)
    except BaseException:  # refused before any race got the deal
        if deal is not None:
            await svc.pool.give_back(deal)
        raise
    if other is None:
        if deal is not None:
            await svc.pool.give_back(deal)
        conn.spawn(_wait_in(conn, svc, queue))
        return P.reply(req.id, "queued", queue=queue)
    other_pid, other_name = other
    variant = queue.split("|", 1)[0]
    rival = Player(other_pid, other_name, await account_title(svc.store, other_pid, other_name))
    rid = await create_race(conn, svc, rival, variant, opts, 2,
                            svc.quick_time_limit, False, req.winnable, deal)
    await races.join(rival, rid, auto_ready=True)
    v = await races.join(conn.me, rid, auto_ready=True)
    await svc.store.notify_player(other_pid, {"k": "matched", "race": rid})
    reply = await race_reply(conn, svc, req.id, rid)
    await conn.feed.attach(rid, v)
    return reply


async def _pair(conn: Session, svc: Services, queue: str) -> tuple[str, str] | None:
    """The (player id, name) of the live waiting player in ``queue`` chosen by the skill rule
    (solrace.shared.skillpair), taken from it; None when this connection now waits there.
    The choice is made on the queue as read, and applied only if the queue is unchanged."""
    variant = queue.split("|", 1)[0]
    me, _ = parse_rating((await svc.store.ratings([conn.me.pid], variant))[0])
    ghosts = 0
    for _ in range(QUICK_RETRIES):
        seen = await svc.store.quick_waiting(queue)
        now_ms = await svc.store.server_time_ms()
        mine = skillpair.Seeker(me.rating, me.rd, now_ms / 1000)
        waiting = [parse_entry(e) for e in seen]
        pick = skillpair.choose(mine, [w[3] for w in waiting], now_ms / 1000)
        take = seen[pick] if pick is not None else ""
        entry = f"{quick_entry(conn, svc)}{me.rating:.1f}:{me.rd:.1f}:{now_ms}"
        res = await svc.store.quick_enqueue(queue, entry, take, seen)
        if res.status == "already":
            raise ProtocolError("already_queued", "you are already waiting for a quick race")
        if res.status == "changed":  # another request changed the queue meanwhile: again
            continue
        if res.status == "wait":
            conn.quick_queue = queue
            return None
        other_pid, other_name, process, _ = parse_entry(str(res.values[0]))
        if not process or process == svc.config.process_id or \
                await svc.store.is_alive(process):
            return other_pid, other_name
        # The entry's process died with its waiting player: the script has popped the
        # ghost; pair with the next one (or wait) instead of racing nobody.
        log.info("quick pairing skipped %s: its process %s is gone", other_pid, process)
        ghosts += 1
        if ghosts > QUICK_GHOSTS:
            break
    raise ProtocolError("unavailable", "the quick-pairing queue is full of stale entries or "
                        "too busy; try again")


async def _wait_in(conn: Session, svc: Services, queue: str) -> None:
    """While this connection waits in ``queue``: every :data:`RECHECK_S`, pair it with a player
    who waits there too, if the rule accepts them now (:func:`recheck`)."""
    while conn.quick_queue == queue:
        await asyncio.sleep(RECHECK_S)
        if conn.quick_queue != queue:
            return
        try:
            await recheck(conn, svc, queue)
        except Exception:  # the next look may do better; never the connection's end
            log.exception("re-checking the quick queue %s failed", queue)


async def recheck(conn: Session, svc: Services, queue: str) -> str | None:
    """A waiting player's look at its queue: the rival the rule accepts now among the others
    who wait (the window counting the longer of the two waits:
    :func:`solrace.shared.skillpair.choose_while_waiting`), both taken atomically and a race
    made for them; both hear ``matched`` through their player channels. Returns the race, or
    None (nobody acceptable yet; or this entry is gone: paired or cancelled meanwhile)."""
    seen = await svc.store.quick_waiting(queue)
    prefix = quick_entry(conn, svc)
    mine = next((e for e in seen if e.startswith(prefix)), None)
    if mine is None:
        return None
    others = [e for e in seen if e != mine]
    now = await svc.store.server_time_ms() / 1000
    pick = skillpair.choose_while_waiting(parse_entry(mine)[3],
                                          [parse_entry(e)[3] for e in others], now)
    if pick is None:
        return None
    pid, name, process, _ = parse_entry(others[pick])
    if process and process != svc.config.process_id and not await svc.store.is_alive(process):
        await svc.store.quick_cancel(queue, f"{pid}:")  # a ghost: its process died
        return None
    variant, _, rest = queue.partition("|")
    text, _, wanted = rest.partition("|")  # options, then "winnable[|<difficulty>]"
    winnable = wanted.startswith("winnable")
    difficulty = wanted.partition("|")[2] or None
    opts = parse_options(text)
    try:
        deal = await svc.pool.take(variant, opts, difficulty) if winnable else None
    except ProtocolError:  # no winnable deal at hand now: the next look tries again
        return None
    if not await svc.store.quick_pair(queue, mine, others[pick]):
        if deal is not None:
            await svc.pool.give_back(deal)
        return None
    conn.quick_queue = None
    rival = Player(pid, name, await account_title(svc.store, pid, name))
    rid = await create_race(conn, svc, rival, variant, opts, 2, svc.quick_time_limit, False,
                            winnable, deal)
    await svc.races.join(rival, rid, auto_ready=True)
    await svc.races.join(conn.me, rid, auto_ready=True)
    for who in (pid, conn.me.pid):
        await svc.store.notify_player(who, {"k": "matched", "race": rid})
    return rid


@handles(P.QuickCancel)
async def on_quick_cancel(conn: Session, svc: Services, req: P.QuickCancel) -> dict[str, Any]:
    removed = 0
    if conn.quick_queue is not None:
        removed = await svc.store.quick_cancel(conn.quick_queue, quick_entry(conn, svc))
        conn.quick_queue = None
    return P.reply(req.id, "unqueued", removed=bool(removed))


async def matched(conn: Session, svc: Services, rid: str) -> None:
    """Another player's ``quick`` paired with this connection's waiting entry."""
    conn.quick_queue = None
    rec = await svc.races.record(rid)
    svc.races.arm(rec)
    conn.send(P.push("matched", race=svc.races.summary(rec)))
    await conn.feed.attach(rid, 0)
