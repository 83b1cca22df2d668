"""Knockouts: 8 to 64 entrants seeded by rating, a bracket of head-to-head races
(docs/tournaments.md, "Knockout"; the rules are :mod:`solrace.shared.tournaments.knockout`,
the bracket over time :mod:`solrace.shared.tournaments.bracket`).

A match is an ordinary two-seat race of kind ``knockout`` on deal *r* of the tournament's
sequence (every match of round *r* plays the same deal, dealt from the committed master
seed): both players are seated when the round opens, and each says "ready" through
``tournament.play``; the race starts when both are. Its end decides the match through the
races' ``on_finished`` hook; a start window that closes first is a walkover, found by the
upkeep sweep of any process (:meth:`KnockoutService.sweep`). The bracket is one JSON
document in the tournament's slot, replaced by compare-and-set, so two processes that see
the same race end or the same window close advance the bracket once, and any process can
pick a knockout up where another left it. Match races are never watchable and their ``end``
never carries the seed: the round's other matches may still be playing that deal.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable
from typing import Any

from solrace.server.fairplay.service import FairPlayService
from solrace.server.game.arenarules import MAX_DEAL_S, MAX_LEAD_MS, MIN_DEAL_S, new_id
from solrace.server.game.lifecycle import RaceState
from solrace.server.game.racemodel import Player, dealt_home, standings
from solrace.server.game.races import RaceInfo, RaceService
from solrace.server.game.results import parse_rating
from solrace.server.store import RaceRecord, Store
from solrace.shared.prng import commitment
from solrace.shared.protocol import ProtocolError
from solrace.shared.rules import options_text
from solrace.shared.tournaments import bracket as B
from solrace.shared.tournaments import knockout as rules
from solrace.shared.tournaments.machine import Format, TournamentState
from solrace.shared.tournaments.seeds import deal_seed
from solrace.shared.variants import resolve

log = logging.getLogger("solrace.knockout")

KIND = "knockout"
RECHECK_MS = 5_000  # after a race's time is up, when the sweep looks again (a lost hook)
SWEEP_LIMIT = 100
SETUP_WAITS, SETUP_WAIT_S = 30, 0.1  # tournament.play waits up to 3 s for a round's races
S = TournamentState


def _options(meta: dict[str, str]) -> dict[str, str]:
    return dict(kv.split("=", 1) for kv in meta["options"].split(",") if kv)


def _rank_key(row: dict[str, Any]) -> tuple[Any, ...]:
    """A race's standings order without its last resort (the seat): two rows with the same
    key are not separated by the race (docs/protocol.md section 11)."""
    if row["result"] == "won":
        return (0, row["elapsed"])
    progress = row["progress_at"] if row.get("progress_at") is not None else 1 << 62
    return (1, -row["home"], progress, -row["moves"])


class KnockoutService:
    """Create knockouts, start them, open each round's races, decide matches, and show the
    bracket."""

    def __init__(self, store: Store, races: RaceService, show_ms: int,
                 fairplay: FairPlayService | None = None) -> None:
        self.store = store
        self.races = races
        self.show_ms = show_ms
        self.fairplay = fairplay
        races.on_finished.append(self.on_finished)

    @property
    def ts(self) -> Any:
        return self.store.tournaments

    # ------------------------------------------------------------------ create

    async def create(self, creator: str, *, name: str, variant: str,
                     options: dict[str, str], starts_at: int, deal_seconds: int,
                     max_entrants: int, private: bool = True) -> str:
        """A new knockout; entries close at ``starts_at``. Its ``ends_at`` is the latest it can
        end (every round's start window and deal time), replaced by the real end."""
        try:
            v, opts, _ = resolve(variant, options)
        except Exception as exc:
            raise ProtocolError("bad_option", str(getattr(exc, "reason", exc))) from None
        if not MIN_DEAL_S <= deal_seconds <= MAX_DEAL_S:
            raise ProtocolError("bad_option", f"a deal lasts {MIN_DEAL_S}..{MAX_DEAL_S} s")
        if not rules.MIN_ENTRANTS <= max_entrants <= rules.MAX_ENTRANTS:
            raise ProtocolError("bad_option", f"a knockout takes {rules.MIN_ENTRANTS}.."
                                f"{rules.MAX_ENTRANTS} entrants")
        now = await self.store.server_time_ms()
        starts_at = max(starts_at, now)
        if starts_at - now > MAX_LEAD_MS:
            raise ProtocolError("bad_option", "a knockout starts within a week")
        master = secrets.randbits(64)
        deal_ms = deal_seconds * 1000
        latest = starts_at + rules.rounds(max_entrants) * (self.show_ms + deal_ms + 60_000)
        tid = new_id()
        meta: dict[str, Any] = {
            "format": Format.KNOCKOUT.value, "name": name, "variant": v.name,
            "options": options_text(opts), "starts_at": starts_at, "ends_at": latest,
            "cutoff": starts_at, "deal_ms": deal_ms, "show_ms": self.show_ms,
            "max": max_entrants, "master": master, "commitment": commitment(master),
            "created_by": creator, "created_at": now, "private": "1" if private else "0",
            "entrants": 0, "v": 0, "ko_v": 0, "ko_state": S.OPEN.value,
        }
        if private:
            meta["code"] = secrets.token_hex(4).upper()
        await self.ts.create(tid, meta, public=not private)
        await self.ts.knockout_due(tid, starts_at)
        return tid

    # ------------------------------------------------------------------ the bracket

    async def _load(self, tid: str) -> tuple[B.Bracket | None, int]:
        raw, v = await self.ts.bracket(tid)
        return (B.Bracket.from_wire(raw) if raw else None), v

    async def _mutate(self, tid: str, change: Callable[[B.Bracket | None], B.Bracket | None]
                      ) -> B.Bracket | None:
        """Apply ``change`` to the stored bracket by compare-and-set, read again on a race
        with another process; the bracket as stored afterwards."""
        for _ in range(20):
            b, v = await self._load(tid)
            new = change(b)
            if new is None or new == b:
                return b
            ends = new.finished_at if new.state in (S.FINISHED, S.CANCELLED) else None
            status = await self.ts.save_bracket(tid, v, new.wire(), new.state.value, ends)
            if status == "ok":
                return new
            if status == "missing":
                return None
        raise ProtocolError("unavailable", "the bracket kept changing; try again")

    async def _start(self, tid: str, meta: dict[str, str], now: int) -> B.Bracket | None:
        people = await self.ts.entrants(tid)
        ratings = await self.store.ratings([p for p, _, _ in people], meta["variant"])
        rows = []
        for (pid, joined, name), text in zip(people, ratings):
            r, _ = parse_rating(text)
            rows.append((pid, name, r.rating, r.rd, joined))
        show = int(meta.get("show_ms") or self.show_ms)
        banned = frozenset(await self.store.banned_players())  # banned before the start
        return await self._mutate(tid, lambda cur: cur if cur is not None
                                  else B.start(rows, now, show, banned))

    async def advance(self, tid: str) -> B.Bracket | None:
        """Bring knockout ``tid`` up to date, whatever process runs it: start it at its start
        time, decide the matches whose race ended (a lost hook) or whose start window closed,
        open the races of a new round. Idempotent; returns the bracket (None: not started)."""
        meta = await self.ts.meta(tid)
        if meta is None or meta.get("format") != Format.KNOCKOUT:
            if meta is None:  # expired: the sweep has nothing left to look at
                await self.ts.knockout_due(tid, None)
            return None
        now = await self.store.server_time_ms()
        b, _ = await self._load(tid)
        if b is None:
            if now < int(meta["starts_at"]):
                await self.ts.knockout_due(tid, int(meta["starts_at"]))
                return None
            b = await self._start(tid, meta, now)
        due: list[int] = []
        for _ in range(b.rounds + 1 if b is not None else 0):
            if b is None or b.state is not S.RUNNING:
                break
            before = b
            for m in b.current():
                if m.decided:
                    continue
                if m.race is None:
                    due.append(now + RECHECK_MS)
                    continue
                decision, when = await self._look(b, m, now)
                if when is not None:
                    due.append(when)
                if decision is not None:
                    who, how, review = decision
                    b = await self._mutate(tid, lambda cur, m=m, who=who, how=how,
                                           review=review: cur and B.decide(
                                               cur, m.round, m.index, who, how, now, review))
                    if b is None:
                        return None
                    if how in (B.How.WALKOVER, B.How.NO_SHOW):
                        await self._empty_lobby(m.race)
            b = await self._open_races(tid, meta, b)
            if b is None or b == before:
                break
            due = []  # a new round opened: look at it afresh
        if b is None or b.state is not S.RUNNING:
            await self.ts.knockout_due(tid, None)
        else:
            windows = [m.show_by for m in b.current() if not m.decided and m.race is None]
            await self.ts.knockout_due(tid, min(due + windows, default=now + RECHECK_MS))
        return b

    async def _look(self, b: B.Bracket, m: B.MatchState, now: int
                    ) -> tuple[tuple[str, B.How, str] | None, int | None]:
        """A match's decision if its race says so now, and when to look again."""
        assert m.race is not None
        rec = await self.store.read_race(m.race)
        if rec is None:
            return None, now + RECHECK_MS
        if rec.state == RaceState.FINISHED:
            return await self._from_race(b, m, rec), None
        if rec.state in (RaceState.LOBBY, RaceState.CLOSED):  # closed: both left the lobby
            if now >= m.show_by:
                # the lobby is emptied only once the decision is in the bracket
                # (:meth:`_empty_lobby`): a process that looked at it in between would
                # read both as gone and call a walkover a no-show
                ready = rec.ready if rec.state == RaceState.LOBBY else set()
                who, how = B.no_show_winner(b, m, ready)
                return (who, how, "clear"), None
            return None, m.show_by
        ends = rec.num("ends_at") or (now + int(rec.meta["time_limit"]) * 1000)
        return None, ends + RECHECK_MS

    async def _empty_lobby(self, rid: str) -> None:
        """Nobody waits in the lobby of a match decided by its start window."""
        rec = await self.store.read_race(rid)
        if rec is None or rec.state != RaceState.LOBBY:
            return
        for pid in list(rec.order):
            with contextlib.suppress(ProtocolError):
                await self.races.leave(Player(pid, rec.names.get(pid, "?")), rid)

    async def _from_race(self, b: B.Bracket, m: B.MatchState, rec: RaceRecord
                         ) -> tuple[str, B.How, str]:
        info = await self.races.info(rec.rid)
        rows = standings(rec, dealt_home(info))
        return await self._decision(b, m, info, rec, rows)

    async def _decision(self, b: B.Bracket, m: B.MatchState, info: RaceInfo,
                        rec: RaceRecord, rows: list[dict[str, Any]]
                        ) -> tuple[str, B.How, str]:
        first = rows[0]["player"] if rows and m.has(rows[0]["player"]) else None
        separated = first is not None and (len(rows) < 2 or
                                           _rank_key(rows[0]) != _rank_key(rows[1]))
        who, how = B.race_winner(b, m, first, separated)
        review = "clear"
        row = next((r for r in rows if r["player"] == who), None)
        if self.fairplay is not None and row is not None and row["result"] == "won":
            try:
                review = await self.fairplay.screen_tournament(info, rec, row)
            except Exception:  # a screening fault must not stop the bracket
                log.exception("fair-play screening failed for knockout match %s", rec.rid)
        return who, how, review

    async def _open_races(self, tid: str, meta: dict[str, str], b: B.Bracket
                          ) -> B.Bracket | None:
        """The races of the round's undecided matches that have none: made under the
        tournament's lock (one process makes them), recorded by compare-and-set."""
        if not any(not m.decided and m.race is None for m in b.current()):
            return b
        token = secrets.token_hex(8)
        if not await self.ts.lock(tid, token):
            return b
        try:
            fresh, _ = await self._load(tid)
            if fresh is None:
                return b
            names = {e.player: e.name for e in fresh.entrants}
            made: dict[tuple[int, int], str] = {}
            for m in fresh.current():
                if m.decided or m.race is not None:
                    continue
                assert m.high is not None and m.low is not None
                high, low = Player(m.high, names[m.high]), Player(m.low, names[m.low])
                rid, _ = await self.races.create(
                    high, meta["variant"], _options(meta), 2, int(meta["deal_ms"]) // 1000,
                    False, seed=deal_seed(int(meta["master"]), m.round), kind=KIND,
                    extra={"tournament": tid, "deal": str(m.round), "match": str(m.index),
                           "min_racers": "2"})
                await self.races.join(high, rid)
                await self.races.join(low, rid)
                made[(m.round, m.index)] = rid

            def attach(cur: B.Bracket | None) -> B.Bracket | None:
                for (r, i), rid in made.items():
                    cur = cur and B.attach_race(cur, r, i, rid)
                return cur
            return await self._mutate(tid, attach)
        finally:
            await self.ts.unlock(tid, token)

    async def sweep(self) -> int:
        """Advance every knockout that needs a look now (any process may; the bracket's
        compare-and-set makes each step once). Returns how many were looked at."""
        done = 0
        for tid in await self.ts.knockouts_due(await self.store.server_time_ms(),
                                                SWEEP_LIMIT):
            try:
                await self.advance(tid)
                done += 1
            except Exception:
                log.exception("advancing knockout %s failed", tid)
        return done

    # ------------------------------------------------------------------ play

    async def play(self, player: Player, tid: str) -> tuple[str, int]:
        """The entrant's match race in the round being played: seated already, now ready
        (the race starts when both are). Refused when there is no match to play now."""
        meta = await self.ts.meta(tid)
        if meta is None:
            raise ProtocolError("tournament_not_found", f"no tournament {tid!r}")
        now = await self.store.server_time_ms()
        if now < int(meta["starts_at"]):
            raise ProtocolError("not_running", "the knockout has not started",
                                retry_after=max(1, (int(meta["starts_at"]) - now + 999) // 1000))
        b = await self.advance(tid)
        for _ in range(SETUP_WAITS):  # another process may be making the round's races now
            m = b.match_of(player.pid) if b is not None else None
            if b is not None and (m is None or m.decided or m.race is not None):
                break
            await asyncio.sleep(SETUP_WAIT_S)
            b = await self.advance(tid)
        if b is None:
            raise ProtocolError("not_running", "the knockout is starting", retry_after=1)
        if b.state is S.CANCELLED:
            raise ProtocolError("not_running", "the knockout was cancelled: fewer than "
                                f"{rules.MIN_ENTRANTS} entrants")
        if not any(e.player == player.pid for e in b.entrants):
            raise ProtocolError("not_entered", "you did not enter this knockout")
        if b.state is not S.RUNNING:
            raise ProtocolError("not_running", "the knockout is over")
        m = b.match_of(player.pid)
        if m is None or (m.decided and m.winner != player.pid):
            raise ProtocolError("no_match", "you are out of the knockout")
        if m.decided:
            raise ProtocolError("no_match", "you advance: your next match opens when every "
                                "match of this round is decided", retry_after=5)
        if m.race is None:
            raise ProtocolError("unavailable", "your match is being set up", retry_after=1)
        rec = await self.races.record(m.race)
        if rec.state == RaceState.CLOSED:
            raise ProtocolError("no_match", "you left your match's lobby: it is decided when "
                                "its start window closes")
        if rec.state == RaceState.LOBBY:
            if now >= m.show_by:
                await self.advance(tid)
                raise ProtocolError("no_match", "the match's start window has closed")
            if player.pid not in rec.order:
                await self.races.join(player, m.race, auto_ready=True)
            elif player.pid not in rec.ready:
                await self.races.ready(player, m.race)
        return m.race, m.round

    async def on_finished(self, info: RaceInfo, rec: RaceRecord,
                          rows: list[dict[str, Any]]) -> None:
        """A match race ended: decide the match, and open the next round if it was the last."""
        if info.kind != KIND:
            return
        tid, r, i = rec.meta["tournament"], int(rec.meta["deal"]), int(rec.meta["match"])
        b, _ = await self._load(tid)
        if b is None:
            return
        m = B.find(b, r, i)
        if m.decided or m.race != rec.rid:
            return
        who, how, review = await self._decision(b, m, info, rec, rows)
        now = await self.store.server_time_ms()
        await self._mutate(tid, lambda cur: cur and B.decide(cur, r, i, who, how, now, review))
        await self.advance(tid)

    # ------------------------------------------------------------------ fair play

    async def decided(self, case: dict[str, Any]) -> None:
        """A moderator decided a held match win: the match shows it (a removed win leaves
        the podium); the bracket itself went on meanwhile."""
        if case.get("kind") != KIND:
            return
        rec = await self.store.read_race(case["race"])
        if rec is None or "tournament" not in rec.meta:
            return
        await self._mutate(rec.meta["tournament"],
                           lambda cur: cur and B.set_review(cur, case["race"], case["status"]))

    async def ban(self, pid: str, banned: bool) -> int:
        """A ban forfeits the player's undecided matches in every knockout they entered and
        takes them off its podium; an unban gives the podium place back. How many changed."""
        changed = 0
        for tid in await self.ts.entered(pid):
            meta = await self.ts.meta(tid)
            if meta is None or meta.get("format") != Format.KNOCKOUT:
                continue
            now = await self.store.server_time_ms()
            before, _ = await self._load(tid)
            after = await self._mutate(tid, lambda cur, now=now: cur and (
                B.ban(cur, pid, now) if banned else B.unban(cur, pid)))
            changed += after != before
            if after is not None and after.state is S.RUNNING:
                await self.advance(tid)
        return changed
