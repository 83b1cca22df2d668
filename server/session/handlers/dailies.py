"""Dailies, practice races, leaderboards and profiles."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from solrace.server.game.daily import previous_day
from solrace.server.game.results import rating_view
from solrace.server.session.handlers.accounts import require_account, require_human
from solrace.server.session.handlers.base import handles
from solrace.shared import playerstats
from solrace.shared import protocol as P
from solrace.shared.protocol import ProtocolError

if TYPE_CHECKING:
    from solrace.server.session.handlers.base import Services, Session


@handles(P.DailyInfo)
async def on_daily(conn: Session, svc: Services, req: P.DailyInfo) -> dict[str, Any]:
    daily = svc.daily
    name, _ = daily.variant_name(req.variant)
    day = await daily.today()
    record = await daily.get(name, day)
    out = daily.public(name, day, record, day)
    out["attempt"] = await svc.store.attempt_of(day, name, conn.me.pid)
    attempt = await svc.store.read_race(out["attempt"]) if out["attempt"] else None
    out["attempt_state"] = attempt.state if attempt is not None else None
    entry = await svc.store.daily_entry(day, name, conn.me.pid) if out["attempt"] else None
    out["attempt_review"] = entry.get("review", "clear") if entry is not None else None
    yesterday = await svc.store.daily(previous_day(day), name)
    if yesterday is not None:
        out["yesterday"] = daily.public(name, previous_day(day), yesterday, day)
    out["you"] = await _you(svc, conn.me.pid, name, day)
    return P.reply(req.id, "daily", **out)


async def _you(svc: Services, pid: str, variant: str, today: str) -> dict[str, Any]:
    """The caller's daily streak in ``variant`` and this month's badge (docs/leaderboards.md)."""
    stats = _stats_by_variant(await svc.store.stats(pid))
    streak = playerstats.daily_streaks(stats, today).get(variant, {"current": 0, "best": 0})
    days = await svc.store.player_days(pid)
    return {"streak": streak["current"], "best_streak": streak["best"],
            "badge": playerstats.badges(days, today)["current"]}


def _stats_by_variant(raw: dict[str, str]) -> dict[str, dict[str, Any]]:
    stats: dict[str, dict[str, Any]] = {}
    for key, value in raw.items():
        variant, _, field = key.rpartition(":")
        stats.setdefault(variant, {})[field] = value if field == "last_daily" else int(value)
    return stats


async def _start(conn: Session, svc: Services, req_id: Any, rid: str, **extra: Any) -> None:
    """Reply with the new race, then attach from version 0: its join, countdown and start
    events follow the reply."""
    rec = await svc.races.record(rid)
    svc.races.arm(rec)
    conn.send(P.reply(req_id, "race", race=svc.races.summary(rec), **extra))
    await conn.feed.attach(rid, 0)


@handles(P.DailyStart)
async def on_daily_start(conn: Session, svc: Services, req: P.DailyStart) -> None:
    if not req.practice:
        require_account(conn, "the ranked daily attempt")
        require_human(conn, "the ranked daily attempt")
    rid, ranked = await svc.daily.start(conn.me, req.variant, req.practice)
    await _start(conn, svc, req.id, rid, ranked=ranked)


@handles(P.PracticeStart)
async def on_practice_start(conn: Session, svc: Services, req: P.PracticeStart) -> None:
    """A practice race against server bots, running at once."""
    rid = await svc.bots.start(conn.me, req.variant, req.options, req.bots,
                                    req.time_limit, req.seed)
    await _start(conn, svc, req.id, rid)


@handles(P.Leaderboard)
async def on_leaderboard(conn: Session, svc: Services, req: P.Leaderboard) -> dict[str, Any]:
    around = conn.me.pid if req.around_me else None
    caller = conn.me.pid if conn.player is not None else None
    board = await svc.daily.leaderboard(req.variant, req.date, req.offset, req.limit,
                                             around, caller)
    return P.reply(req.id, "leaderboard", **board)


@handles(P.Profile)
async def on_profile(conn: Session, svc: Services, req: P.Profile) -> dict[str, Any]:
    store = svc.store
    title = None
    if req.name is None:
        if conn.player is None:
            raise ProtocolError("not_authenticated", "profile of whom? name a player")
        pid, name, title = conn.me.pid, conn.me.name, conn.me.title or None
    else:
        acct = await store.accounts.account(req.name)  # the owner of the name or a look-alike
        if acct is not None and not acct.get("deleted"):
            pid, name = acct["player"], acct["name"]
            title = "BOT" if acct.get("bot") else None
        else:
            found = None if acct is not None else await store.profile_of(req.name)
            if found is None:
                raise ProtocolError("player_not_found", f"no player called {req.name}")
            pid, name = found, req.name
    ratings = {v: rating_view(t) for v, t in (await store.all_ratings(pid)).items()}
    stats = _stats_by_variant(await store.stats(pid))
    today = await svc.daily.today()
    games, days = await store.game_stats_of(pid)
    return P.reply(req.id, "profile", player=pid, name=name, title=title, ratings=ratings,
                   stats=stats, today=today, streaks=playerstats.daily_streaks(stats, today),
                   games=[g.wire() for g in playerstats.config_stats(games)],
                   days=playerstats.last_days(days, today),
                   badges=playerstats.badges(days, today),
                   trophies=await svc.trophies.of(pid) if svc.trophies else None)
