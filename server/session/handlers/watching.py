"""Spectating: ``watch`` (live, delayed, resumed or full replay), ``unwatch``, ``races.live``."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from solrace.server.fanout.feed import SPECTATOR_TTL_MS
from solrace.server.fanout.spectate import (
    TOURNAMENT_KINDS,
    DelayLine,
    final_boards,
    fold_boards,
)
from solrace.server.game.lifecycle import is_over
from solrace.server.game.races import parse_options
from solrace.server.session.handlers.base import handles
from solrace.shared import protocol as P
from solrace.shared.protocol import ProtocolError

if TYPE_CHECKING:
    from solrace.server.session.handlers.base import Services, Session


@handles(P.Watch)
async def on_watch(conn: Session, svc: Services, req: P.Watch) -> None:
    feed = conn.feed
    rid = req.race if req.race is not None else await svc.races.code_to_race(req.code or "")
    rec = await svc.races.record(rid)
    info = svc.races.infos[rid]
    live = not is_over(rec.state)
    if info.kind in TOURNAMENT_KINDS:  # a tournament's deal: by the tournament's rules
        pid = conn.me.pid if conn.player is not None else None
        await svc.arenas.may_watch(rec.meta["tournament"], pid, live)  # live: masked (below)
    elif info.kind != "race":
        raise ProtocolError("not_watchable", "daily and practice games are private")
    if live and rid in feed.races and rid not in feed.watching:
        raise ProtocolError("not_watchable", "this connection races in that race: watch it "
                                             "from another connection")
    if rid in feed.races:  # after the checks: a refused watch must not detach a racer
        await feed.detach(rid)
    cfg = svc.config
    delay = cfg.spectator_delay if info.rated or info.kind in TOURNAMENT_KINDS \
        else cfg.casual_spectator_delay
    delay_ms = int(delay * 1000) if live else 0
    mask = svc.masks.acquire(info) if live else None
    try:
        redis_now = await svc.store.server_time_ms()
        offset = redis_now - int(time.time() * 1000)
        cutoff = redis_now - delay_ms
        base = req.since if req.since and not req.full else 0
        events = [e for e in await svc.store.events_since(rid, base) if e.get("at", 0) <= cutoff]
        last = events[-1]["v"] if events else base
        if mask is not None:  # while the race runs, spectators get the masked forms
            await mask.ensure(svc.store, rid, last, events)
            events = mask.since(base, last)
        elif any(e.get("k") == "end" for e in events):  # over: nothing masked
            boards = await final_boards(svc.store, rid, events if base == 0 else None)
            events = [{**e, "boards": boards} if e.get("k") == "end" else e for e in events]
        count = 0
        if live:
            count = await svc.store.spectate(rid, conn.member, True, SPECTATOR_TTL_MS)
            svc.spectators.setdefault(rid, set()).add(conn.member)
        shown: dict[str, Any] = {}
        if req.full or req.since:
            shown["events"] = events
        else:
            snapshot = mask.since(0, last) if mask is not None else events
            shown["boards"] = fold_boards(snapshot)
            end = next((e for e in events if e.get("k") == "end"), None)
            if end is not None:
                shown["end"] = end
        out = P.reply(req.id, "watching", race=svc.races.summary(rec), delay=delay_ms / 1000,
                      v=last, spectators=count, **shown)
    except BaseException:
        if mask is not None:
            svc.masks.release(rid)
        raise
    conn.send(out)
    if mask is not None:
        feed.watching.add(rid)
        feed.masks[rid] = mask  # released when the connection detaches from the race
        if delay_ms:
            feed.delays[rid] = DelayLine(delay_ms, offset, conn.send,
                                         on_end=lambda: conn.spawn(feed.detach(rid)))
        await feed.attach(rid, last)


@handles(P.Unwatch)
async def on_unwatch(conn: Session, svc: Services, req: P.Unwatch) -> dict[str, Any]:
    if req.race not in conn.feed.watching:
        raise ProtocolError("not_watching", "this connection does not watch that race")
    await conn.feed.detach(req.race)
    return P.reply(req.id, "unwatched", race=req.race)


@handles(P.LiveRaces)
async def on_races_live(conn: Session, svc: Services, req: P.LiveRaces) -> dict[str, Any]:
    store = svc.store
    rows = await store.live_races(req.limit, req.before)
    if len(rows) == req.limit:  # ``before`` is exclusive: never split one start time
        last = int(rows[-1][1].get("started_at") or 0)
        have = {row[0] for row in rows}
        rows += [row for row in await store.live_races(100, last + 1)
                 if row[0] not in have and int(row[1].get("started_at") or 0) == last]
    now = await store.server_time_ms()
    races = []
    for rid, meta, racers, watchers in rows:
        started = int(meta.get("started_at") or 0)
        races.append({
            "race": rid, "variant": meta.get("variant"),
            "options": parse_options(meta.get("options", "")),
            "rated": meta.get("rated") == "1", "racers": racers, "spectators": watchers,
            "started_at": started, "elapsed": max(0, now - started),
            "state": meta.get("state"),
        })
    nxt = races[-1]["started_at"] if len(races) >= req.limit else None
    return P.reply(req.id, "live", races=races, next=nxt)
