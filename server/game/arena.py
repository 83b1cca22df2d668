"""Arenas: a time window in which every entrant plays deal 1, 2, 3, … of the tournament's
sequence, each deal a solo race of kind ``arena`` (docs/tournaments.md has the rules; the
scoring is :mod:`solrace.shared.tournaments.arena`).

The tournament's record, entrants, results and standings live in Redis
(:mod:`solrace.server.store.tournaments`), so any process serves any entrant. A deal's race is
an ordinary race with one racer: the same move path, clock, resume and durability. When it
ends, :mod:`.arenaresults` records its result and the entrant's new totals;
:meth:`ArenaService.play` records it too if that hook never ran (the process died), so no
finished deal is lost. The rules the store's rows follow (state, totals, rank keys) are
:mod:`.arenarules`. Deal races are watched only by non-entrants, masked
(:meth:`ArenaService.may_watch`), and their ``end`` never carries the seed: others may not
have played that deal yet.
"""

from __future__ import annotations

import logging
import secrets
from typing import Any

from solrace.server.fairplay.service import FairPlayService
from solrace.server.game import arenastandings
from solrace.server.game.arenaresults import ArenaResults
from solrace.server.game.arenarules import (
    KIND,
    MAX_DEAL_S,
    MAX_LEAD_MS,
    MIN_DEAL_S,
    TOP,
    deal_result,
    new_id,
    state_at,
    totals,
)
from solrace.server.game.lifecycle import is_over
from solrace.server.game.racemodel import Player
from solrace.server.game.races import RaceService
from solrace.server.store import Store
from solrace.server.store.keys import RETENTION
from solrace.shared.prng import commitment
from solrace.shared.protocol import ProtocolError
from solrace.shared.rules import options_text
from solrace.shared.tournaments import arena as scoring
from solrace.shared.tournaments import event, machine
from solrace.shared.tournaments.schedule import ArenaSpec, ScheduleError, parse_arena
from solrace.shared.tournaments.seeds import deal_seed
from solrace.shared.variants import VARIANTS, resolve

log = logging.getLogger("solrace.arena")
F, S = machine.Format, machine.TournamentState

class ArenaService:
    """Create, list, enter, play and watch arenas and events; their standings. Recording the
    deals' results is :class:`ArenaResults`'s job (``self.results``)."""

    def __init__(self, store: Store, races: RaceService,
                 fairplay: FairPlayService | None = None) -> None:
        self.store = store
        self.races = races
        self.results = ArenaResults(store, races, fairplay)
        # the results' jobs, named here for the hooks and handlers that hold this service
        self.on_finished = self.results.on_finished
        self.settle = self.results.settle
        self.decided = self.results.decided
        self.ban = self.results.ban
        races.on_finished.append(self.on_finished)

    @property
    def ts(self) -> Any:
        return self.store.tournaments

    # ------------------------------------------------------------------ create, find

    async def create(self, creator: str, *, name: str, variant: str, options: dict[str, str],
                     starts_at: int, minutes: int, deal_seconds: int, private: bool,
                     tid: str | None = None, late: bool = False, fmt: str = "arena",
                     deals: int = 3) -> str:
        """A new arena — or a scheduled event of ``deals`` deals (``fmt`` event: its window
        is the deals' time, entries close at the start). ``late``: an operator's instance may
        have started already: its window is kept as scheduled, not moved to now."""
        try:
            v, opts, _ = resolve(variant, options)
        except Exception as exc:
            raise ProtocolError("bad_option", str(getattr(exc, "reason", exc))) from None
        now = await self.store.server_time_ms()
        is_event = fmt == F.EVENT
        if is_event:
            if not event.MIN_DEALS <= deals <= event.MAX_DEALS:
                raise ProtocolError("bad_option", f"an event has {event.MIN_DEALS}.."
                                    f"{event.MAX_DEALS} deals")
            minutes = max(scoring.MIN_WINDOW_MIN, -(-deals * deal_seconds // 60))
        elif fmt != F.ARENA:
            raise ProtocolError("bad_option", "format is arena or event")
        if not scoring.MIN_WINDOW_MIN <= minutes <= scoring.MAX_WINDOW_MIN:
            raise ProtocolError("bad_option", f"an arena lasts {scoring.MIN_WINDOW_MIN}.."
                                f"{scoring.MAX_WINDOW_MIN} minutes")
        if not MIN_DEAL_S <= deal_seconds <= MAX_DEAL_S or deal_seconds > minutes * 60:
            raise ProtocolError("bad_option", f"a deal lasts {MIN_DEAL_S}..{MAX_DEAL_S} s, "
                                "within the window")
        if not late:
            starts_at = max(starts_at, now)
        if starts_at - now > MAX_LEAD_MS:
            raise ProtocolError("bad_option", "an arena starts within a week")
        master = secrets.randbits(64)
        window = deals * deal_seconds * 1000 if is_event else minutes * 60_000
        tid = tid or new_id()
        meta = {
            "format": F.EVENT.value if is_event else F.ARENA.value, "name": name,
            "variant": v.name, "options": options_text(opts), "starts_at": starts_at,
            "ends_at": starts_at + window,
            "cutoff": starts_at if is_event else scoring.late_entry_cutoff(starts_at, window),
            "deal_ms": deal_seconds * 1000, "master": master,
            "commitment": commitment(master), "created_by": creator, "created_at": now,
            "private": "1" if private else "0", "entrants": 0, "v": 0,
        }
        if is_event:
            meta["deals"] = deals
        if private:
            meta["code"] = secrets.token_hex(4).upper()
        await self.ts.create(tid, meta, public=not private)  # False: another process made it
        return tid

    async def resolve_id(self, ref: str) -> str:
        """A tournament id from an id or a private invite code."""
        if await self.ts.meta(ref) is not None:
            return ref
        tid = await self.ts.by_code(ref.upper())
        if tid is None:
            raise ProtocolError("tournament_not_found", f"no tournament {ref!r}")
        return tid

    async def _meta(self, tid: str) -> dict[str, str]:
        meta = await self.ts.meta(tid)
        if meta is None:
            raise ProtocolError("tournament_not_found", f"no tournament {tid!r}")
        return meta

    def public(self, tid: str, meta: dict[str, str], now: int) -> dict[str, Any]:
        """What anyone may know of a tournament; the master seed once it is over."""
        state = state_at(meta, now)
        out: dict[str, Any] = {
            "tournament": tid, "format": meta["format"], "name": meta["name"],
            "variant": meta["variant"],
            "options": dict(kv.split("=", 1) for kv in meta["options"].split(",") if kv),
            "starts_at": int(meta["starts_at"]), "ends_at": int(meta["ends_at"]),
            "cutoff": int(meta["cutoff"]), "deal_seconds": int(meta["deal_ms"]) // 1000,
            "commitment": meta["commitment"], "entrants": int(meta.get("entrants", 0)),
            "state": state.value, "private": meta.get("private") == "1",
        }
        if meta.get("deals"):
            out["deals"] = int(meta["deals"])
        if meta.get("max"):  # a knockout's
            out["max_entrants"] = int(meta["max"])
            out["show_seconds"] = int(meta["show_ms"]) // 1000
        if meta.get("code"):
            out["code"] = meta["code"]
        if state in (S.FINISHED, S.FINAL):
            out["master_seed"] = int(meta["master"])
        return out

    async def summary(self, tid: str) -> dict[str, Any]:
        meta = await self._meta(tid)
        return self.public(tid, meta, await self.store.server_time_ms())

    async def listing(self, limit: int) -> dict[str, list[dict[str, Any]]]:
        """Public tournaments: upcoming (soonest first), live, finished (latest first); a live
        or finished one with entrants carries its top three (the leader; the podium)."""
        now = await self.store.server_time_ms()
        ids = await self.ts.listed(now - 2 * 24 * 3600 * 1000, now + MAX_LEAD_MS, 500)
        out: dict[str, list[dict[str, Any]]] = {"upcoming": [], "live": [], "finished": []}
        for tid in ids:
            meta = await self.ts.meta(tid)
            if meta is None:
                continue
            row = self.public(tid, meta, now)
            bucket = {"open": "upcoming", "running": "live"}.get(row["state"], "finished")
            if bucket != "upcoming" and row["entrants"]:  # the leader, or the podium
                _, _, _, top = await self.ts.standings(tid, None, 3, 0)
                row["leaders"] = [{"rank": rank, "player": who, "name": name,
                                   "points": int(stat.split("|")[0]),
                                   "won": int(stat.split("|")[1])}
                                  for rank, who, name, stat in top]
            out[bucket].append(row)
        out["finished"].reverse()
        return {k: v[:limit] for k, v in out.items()}

    async def schedule(self, specs: tuple[ArenaSpec, ...]) -> list[str]:
        """Make sure the operators' recurring tournaments exist: the instance running now and
        the next one of each. Every process may do it: an instance's id is a function of its spec
        and start, and creating it twice keeps the first."""
        now = await self.store.server_time_ms()
        made = []
        for spec in specs:
            title = VARIANTS[spec.variant].title if spec.variant in VARIANTS else spec.variant
            name = f"{title} {spec.fmt}"
            for start in spec.instances(now):
                tid = spec.instance_id(start)
                if await self.ts.meta(tid) is None:
                    try:
                        await self.create("operator", name=name, variant=spec.variant,
                                          options=dict(spec.options), starts_at=start,
                                          minutes=spec.recurrence.duration,
                                          deal_seconds=spec.deal_seconds, private=False,
                                          tid=tid, late=True, fmt=spec.fmt,
                                          deals=spec.deals or 3)
                    except ProtocolError as exc:
                        log.warning("scheduled tournament %r not created: %s", spec.text,
                                    exc.reason)
                        continue
                made.append(tid)
        return made

    async def schedule_all(self, configured: tuple[ArenaSpec, ...]) -> list[str]:
        """:meth:`schedule` for the configured recurring tournaments and those an operator
        stored (``solrace-server admin schedule add``); a stored line that no longer parses
        is logged and skipped."""
        specs = list(configured)
        for line in await self.ts.schedules():
            try:
                spec = parse_arena(line)
            except ScheduleError as exc:
                log.warning("stored schedule %r skipped: %s", line, exc)
                continue
            if spec.text not in {s.text for s in specs}:
                specs.append(spec)
        return await self.schedule(tuple(specs))

    # ------------------------------------------------------------------ enter, play

    async def enter(self, player: Player, tid: str) -> dict[str, Any]:
        now = await self.store.server_time_ms()
        meta = await self._meta(tid)
        res = await self.ts.enter(tid, player.pid, player.name, now, totals([], meta))
        if res == "missing":
            raise ProtocolError("tournament_not_found", f"no tournament {tid!r}")
        if res == "closed":  # the script checks the cut-off; an entrant already in may repeat
            raise ProtocolError("entries_closed", "the late-entry cut-off has passed")
        if res == "full":
            raise ProtocolError("tournament_full", "every place of this knockout is taken")
        if res == "watched":
            raise ProtocolError("watched", "you watched this tournament's deals while it ran: "
                                "a spectator may not enter it")
        await self.ts.add_entered(player.pid, tid, RETENTION)
        return self.public(tid, await self._meta(tid), now)

    async def play(self, player: Player, tid: str, berserk: bool) -> tuple[str, int]:
        """The race of the entrant's current deal (resumed), or of their next one."""
        meta = await self._meta(tid)
        if berserk and meta["format"] == F.EVENT:
            raise ProtocolError("bad_option", "berserk is an arena's; an event has none")
        now = await self.store.server_time_ms()
        if now < int(meta["starts_at"]):
            raise ProtocolError("not_running", "the tournament has not started",
                                retry_after=max(1, (int(meta["starts_at"]) - now + 999) // 1000))
        cur = await self.ts.current(tid, player.pid)
        k = 1
        if cur is not None:
            rid, k, started, _ = cur
            rec = await self.store.read_race(rid)
            if rec is not None and not is_over(rec.state):
                return rid, k
            if rec is not None:
                await self.results.record_race(rid, rec)
            stored, _ = await self.ts.results(tid, player.pid)
            if len(stored) < k:  # the race is gone without a result: should not happen
                raise ProtocolError("unavailable", "your last deal's result is not recorded")
            next_at = scoring.next_deal_at(deal_result(stored[k - 1]), started) \
                if meta["format"] == F.ARENA else now  # an event's next deal comes at once
            if now < next_at:
                raise ProtocolError("deal_not_ready", "after a resignation the next deal "
                                    "comes when the resigned one's time would have run out",
                                    retry_after=max(1, (next_at - now + 999) // 1000))
            k += 1
        if now >= int(meta["ends_at"]):
            raise ProtocolError("not_running", "the tournament is over")
        deal_ms = int(meta["deal_ms"])
        limit_s = (deal_ms // 2 if berserk else deal_ms) // 1000
        if meta["format"] == F.EVENT:
            if k > int(meta["deals"]):
                raise ProtocolError("not_running", "you have played every deal of the event")
            # the event's deals end with it: a late deal has what is left of the window
            limit_s = max(1, min(deal_ms, int(meta["ends_at"]) - now) // 1000)
        options = dict(kv.split("=", 1) for kv in meta["options"].split(",") if kv)
        rid, _ = await self.races.create(
            player, meta["variant"], options, 1, limit_s, False,
            seed=deal_seed(int(meta["master"]), k), kind=KIND,
            extra={"tournament": tid, "deal": str(k), "berserk": "1" if berserk else "0"})
        status, existing = await self.ts.set_deal(tid, player.pid, k, rid, now, berserk, TOP)
        if status == "dup" and existing is not None:
            return existing, k  # a concurrent request made it: that one is played
        if status == "not_entered":
            raise ProtocolError("not_entered", "enter the tournament first")
        if status != "ok":
            raise ProtocolError("unavailable", "your deals changed meanwhile; try again")
        await self.races.join(player, rid, auto_ready=True, countdown_ms=0)
        await self.races.start(rid)
        return rid, k

    async def may_watch(self, tid: str, pid: str | None, live: bool) -> bool:
        """Whether a spectator may watch a deal race of ``tid`` now, and masked as a deal
        others may still play (True) or in full (False: the tournament is over, its master
        seed public). While it runs: only a live deal, only by a named player who has not
        entered — who is then remembered and may never enter (docs/tournaments.md,
        "Spectators")."""
        meta = await self._meta(tid)
        if state_at(meta, await self.store.server_time_ms()) in (S.FINISHED, S.FINAL):
            return False
        if not live:
            raise ProtocolError("not_watchable", "a finished deal is shown once the tournament "
                                "is over", detail="not_live")
        if pid is None:
            raise ProtocolError("not_watchable", "watching a running tournament's deals "
                                "needs a name: play as a guest or log in first",
                                detail="needs_name")
        if await self.ts.watch(tid, pid) == "entrant":
            raise ProtocolError("not_watchable", "an entrant cannot watch the tournament's "
                                "deals while it runs", detail="entrant")
        return True

    # ------------------------------------------------------------------ standings

    async def standings(self, tid: str, pid: str | None) -> dict[str, Any]:
        """The top of the standings and the entrant's neighbourhood."""
        meta = await self._meta(tid)
        if meta["format"] == F.KNOCKOUT:
            raise ProtocolError("bad_option", "a knockout has a bracket: tournament.bracket")
        return arenastandings.frame(await arenastandings.read(self.store, tid, meta, pid), pid)
