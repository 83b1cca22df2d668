"""The move that lost it, on request, for a finished race (docs/protocol.md, ``analysis``):
where a racer's own line left the last position a win existed from, or, for a won game, how
far from par it was and where its longest detour began (:mod:`solrace.shared.learning.lost`
does the analysis; docs/solver.md, "The move that lost it", says what each answer claims).

Computed after the game, never during it: only a finished race is analysed, in a worker
process of its own (a long line takes seconds of CPU), at most :data:`MAX_RUNNING` at a time
per server process, and the answer is stored with the race, so it is computed once whoever
asks again. Each caller may start at most ``per_hour`` fresh analyses in any hour (a player
id; an anonymous connection counts by its address): counted in Redis, so the limit holds
whichever process serves the request; an analysis already stored is answered without
counting, since it costs no CPU. Only races whose deal is public once over are analysed: a
race (its replay is public) and a practice game that revealed its seed — never a daily before
its seed is out or a tournament's deal, whose hidden cards others may still be playing against.
"""

from __future__ import annotations

import logging
from typing import Any

from solrace.server.game.lifecycle import RaceState
from solrace.server.game.races import RaceService
from solrace.server.game.worker import Worker
from solrace.server.store import Store
from solrace.shared.learning.lost import find_losing_move
from solrace.shared.protocol import ProtocolError

log = logging.getLogger("solrace.analysis")

MAX_RUNNING = 2  # analyses computing at once in this process; more are refused, retry after
QUOTA_WINDOW_MS = 3_600_000  # the per-caller limit counts the analyses started in the last hour


def analyse(variant: str, options: dict[str, str], seed: int, moves: list[str]
            ) -> dict[str, Any]:
    """Runs in the worker process."""
    return find_losing_move(variant, options, seed, moves)


class AnalysisService:
    def __init__(self, store: Store, races: RaceService, *, per_hour: int = 20) -> None:
        self.store = store
        self.races = races
        self.per_hour = per_hour
        self.worker = Worker()
        self.running = 0

    async def close(self) -> None:
        self.worker.close()

    async def analysis(self, caller: str, rid: str, pid: str | None, *, counted_as: str
                       ) -> dict[str, Any]:
        """The ``analysis`` reply's fields for racer ``pid`` (default: the caller); a fresh
        one is counted against ``counted_as`` (the caller's quota key)."""
        rec = await self.races.record(rid)
        info = await self.races.info(rid)
        pid = pid or caller
        if pid not in rec.names:
            raise ProtocolError("not_in_race", "no such racer in that race")
        if rec.state is not RaceState.FINISHED:
            raise ProtocolError("not_running", "a race is analysed once it is over")
        public = info.kind == "race" or (info.kind == "practice" and "daily" not in rec.meta)
        if not public:
            raise ProtocolError("not_watchable", "this game's deal is not public: it is not "
                                "analysed")
        if info.kind == "practice" and caller not in rec.names:
            raise ProtocolError("not_in_race", "a practice game is analysed for its player")
        head = {"race": rid, "player": pid, "name": rec.names.get(pid, "?")}
        stored = await self.store.analysis(rid, pid)
        if stored is not None:
            return {**head, **stored}
        if self.running >= MAX_RUNNING:
            raise ProtocolError("rate_limited", "the server is analysing other games; retry",
                                retry_after=5)
        wait_ms = await self.store.take_analysis(counted_as, f"{rid}:{pid}", self.per_hour,
                                                 QUOTA_WINDOW_MS)
        if wait_ms:
            secs = -(-wait_ms // 1000)
            when = f"{secs} s" if secs < 120 else f"{-(-secs // 60)} min"
            raise ProtocolError("too_many_analyses", f"at most {self.per_hour} new analyses "
                                f"an hour; the next in {when} (analyses already made are "
                                "not counted)", retry_after=secs)
        moves = await self.store.read_log(rid, pid)
        self.running += 1
        try:
            out = await self.worker.run(analyse, info.variant, dict(info.options), info.seed,
                                        moves)
        finally:
            self.running -= 1
        out["moves"] = len(moves)
        await self.store.save_analysis(rid, pid, out)
        return {**head, **out}
