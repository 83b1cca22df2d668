"""An arena's or event's standings as entrants and spectators see them (docs/protocol.md
section 22.5): the top ten, the entrant's neighbourhood, and the leaders' live deals.

Read once, shown to many: a :class:`Snapshot` is one read of a tournament's standings — the
whole ranking for the live feed (server/fanout/standings.py reads it once a tick for every
follower of this process), or just the top and one entrant's neighbourhood for a request —
and :func:`frame` cuts one follower's view out of it without I/O. So a tick costs one read per
tournament, not one per follower: with a thousand followers, reading their standings one by one
left the frames seconds behind.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from solrace.server.game.arenarules import AROUND, HOME_MAX, TOP, state_at
from solrace.server.store import Store
from solrace.shared.tournaments import machine

F, S = machine.Format, machine.TournamentState
WHOLE_MAX = 100_000  # rows read for the feed at most (a tournament's entrants)


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One read of a tournament's standings: ``rows`` (rank, pid, name, stat) in rank order,
    ``ranks`` the rank of each entrant read (the entrant's own among them), ``playing`` the
    leaders' deals on their clock (pid -> race id, deal number)."""

    tid: str
    meta: dict[str, str]
    v: int
    entrants: int
    rows: list[tuple[int, str, str, str]]
    ranks: dict[str, int]
    playing: dict[str, tuple[str, int]]


async def read(store: Store, tid: str, meta: dict[str, str], pid: str | None = None,
               whole: bool = False) -> Snapshot:
    """The standings now: every row (``whole``), or the top and ``pid``'s neighbourhood."""
    ts = store.tournaments
    if whole:
        n = min(WHOLE_MAX, max(TOP, int(meta.get("entrants", 0)) + 16))  # entries meanwhile
        v, entrants, mine, rows = await ts.standings(tid, None, n, 0)
    else:
        v, entrants, mine, rows = await ts.standings(tid, pid, TOP, AROUND)
    ranks = {who: rank for rank, who, _, _ in rows}
    if pid is not None and mine:
        ranks[pid] = mine
    now = await store.server_time_ms()
    playing: dict[str, tuple[str, int]] = {}
    if state_at(meta, now) is S.RUNNING:
        top = [who for rank, who, _, _ in rows if rank <= TOP]
        for who, (rid, k, started, berserk) in (await ts.currents(tid, top)).items():
            if now < started + int(meta["deal_ms"]) // (2 if berserk else 1):
                playing[who] = (rid, k)
    return Snapshot(tid, meta, v, entrants, rows, ranks, playing)


def frame(snap: Snapshot, pid: str | None) -> dict[str, Any]:
    """``pid``'s view: the top ten, then their neighbourhood (two either side)."""
    mine = snap.ranks.get(pid) if pid is not None else None
    is_event = snap.meta["format"] == F.EVENT
    out = []
    for rank, who, name, stat in snap.rows:
        if rank > TOP and (mine is None or abs(rank - mine) > AROUND):
            continue
        points, won, played, fire, tiebreak, extra, _rev = (int(x) for x in stat.split("|"))
        row: dict[str, Any] = {"rank": rank, "player": who, "name": name, "points": points,
                               "won": won, "played": played, "fire": bool(fire)}
        if is_event:  # before a result, an entrant's time is every deal's whole limit
            row["time"] = extra if played else \
                int(snap.meta["deals"]) * int(snap.meta["deal_ms"])
            row["home"] = HOME_MAX - tiebreak if 0 < tiebreak <= HOME_MAX else 0
        if who in snap.playing:
            row["race"], row["deal"] = snap.playing[who]
        out.append(row)
    return {"tournament": snap.tid, "v": snap.v, "entrants": snap.entrants,
            "my_rank": mine, "rows": out}
