"""All Redis access: the key schema, the Lua scripts and the calls that use them.

Nothing else in solrace speaks Redis. Keys (``{…}`` is the Redis Cluster hash tag, so one
race's keys share one slot and every script touches a single slot):

key (type) — holds — TTL

* ``sr:session:{<sha256 token>}`` (hash) — player, name, kind, account, sid, created_at,
  last_seen, client, address — session TTL, refreshed on use
* ``sr:session:{<sha256 token>}:fails`` (zset) — failed password checks in the session
* ``sr:name:{account:<fold>}`` (string) — player id of the live guest holding the name — as
  its session
* ``sr:account:{account:<fold>}`` (hash) — an account (player, name, kdf, created_at), or its
  tombstone — no TTL; ``…:sessions`` (hash) session id -> token hash; ``…:fails`` (zset)
* ``sr:loginfail:{addr:<address>}`` (zset) — failed logins from one client address — 24 h
* ``sr:player:{<pid>}:history`` (zset) — every race the player joined — RETENTION
  (the name keys are described one by one in :mod:`.keys`)
* ``sr:player:{<pid>}:races`` (set) — race ids the player is in, not finished — session TTL
* ``sr:race:{<rid>}`` (hash) — race meta: variant, options, seats, time_limit, rated, state,
  code, host, seed, commitment, created_at, starts_at, started_at, ends_at, ended_at,
  unfinished, version; kind, min_racers; home_url (the advertised URL of the process that
  created a ``race``, docs/protocol.md 8.1); daily (daily attempts and their practice games), bots
  (practice races with bots: ``<bot id>=<strength>,…`` in seat order); procs (the server
  processes following the race's channel, see ``lua.FOLLOW``); and per racer
  ``p:<pid>:home``, ``:moves``, ``:last``, ``:progress_at``, ``:result``, ``:finished_at``
  (times in ms since the start; in this hash, not one of their own, so that a move writes one
  hash) — none while live, RETENTION after the end
* ``sr:race:{<rid>}:racers`` (hash) — player id -> display name — as the race
* ``sr:race:{<rid>}:order`` (list) — player ids in seat (join) order — as the race
* ``sr:race:{<rid>}:ready`` (set) — player ids that are ready — as the race
* ``sr:race:{<rid>}:log:<pid>`` (list) — the player's moves in notation: the game — as the race
* ``sr:race:{<rid>}:ev`` (stream) — race events, entry id ``<version>-0``, field ``e`` =
  msgpack event (each with ``at``, the Redis time in ms) — as the race
* ``sr:race:{<rid>}:result`` (string) — the msgpack ``end`` event — as the race
* ``sr:race:{<rid>}:analysis`` (hash) — racer id -> the JSON of the racer's analysis ("the
  move that lost it"), computed on request after the end — RETENTION
* ``sr:aquota:{<pid>}`` (zset) — the fresh analyses a caller started in the last hour
  (``addr:<address>`` for an anonymous connection), scored by ms — an hour
* ``sr:race:{<rid>}:watchers`` (zset) — spectator connections (``<process>:<conn>``) scored by
  the Redis time their registration expires (refreshed by their process) — as the race
* ``sr:race:{<rid>}:online`` (zset) — racers' attached connections (``<pid>|<process>:<conn>``)
  scored by expiry ms (presence; refreshed every 30 s by their connection) — 2 × its TTL
* ``sr:live`` (zset) — running race ids scored by start time — members removed at the end
* ``sr:deadlines`` (zset) — running race ids (every kind) scored by ``ends_at``: any process's
  sweeper ends races whose time is up even if no process holds a timer for them — as live
* ``sr:race:{<rid>}:barrier`` (string) — written before ``WAIT`` with ``--wait-replicas``: once
  replicas have it they have every earlier write of the race's master — 60 s
* ``sr:race:{<rid>}:botlease`` (string) — the process id driving the bots of a practice race
  with bots (one driver per race) — ``--bot-lease``, renewed by its holder; deleted at the end
* ``sr:bots`` (zset) — practice races whose bots are still playing, scored by when their lease
  runs out (Redis ms; 0: free now): any process's sweeper takes the lease of those due and
  drives their bots — members removed at the end, or once every bot's game is over
* ``sr:rematch:{<rid>}`` (string) — the race id of the rematch of finished race ``rid``, set
  once (NX) by the first ``race.rematch`` — RETENTION
* ``sr:code:{<CODE>}`` (string) — race id of an invite code — CODE_TTL, deleted at the end
* ``sr:quick:{<variant|options>}`` (list) — players waiting for quick pairing, as
  ``<pid>:<name>:<process>:<rating>:<rd>:<since_ms>`` (the process holding the waiting
  connection; the player's rating and deviation in the variant; the Redis time they started
  waiting, for pairing by skill) — QUICK_TTL
* ``sr:alive:{<process>}`` (string) — a server process's heartbeat: a waiting quick-pair entry
  whose process has no heartbeat is a ghost (that process died) and is skipped — three
  heartbeat periods, refreshed by its process

* ``sr:pool:{<variant|options>}`` (set) — certified seeds waiting for a winnable race, as
  ``<seed>:<par>:<nodes>`` — no TTL; ``…:lock`` (string) the process topping it up — 2 min
* ``sr:pools`` (zset) — configurations players asked winnable races of, scored by the last
  ask (ms): kept topped up in the background — entries older than a week dropped
* ``sr:verdicts`` (zset) — finished races whose solver verdict is still to come, scored by
  when their solver's lease runs out — removed once the verdict is stored
  (the pool and verdict calls are :mod:`.deals`; a race's verdict is in its hash: ``verdict``,
  ``verdict_par``, ``verdict_nodes``; a winnable race's hash has ``winnable=1`` and
  ``certified_par``, never sent while it runs)

* ``sr:daily:{<date>|<variant>}`` (hash) — the certified daily deal: seed, candidate,
  commitment, par, nodes, options, certified_at — DAILY_TTL
* ``sr:daily:{<date>|<variant>}:lock`` (string) — the process certifying that daily — 10 min
* ``sr:daily:{<date>|<variant>}:attempts`` (hash) — player id -> race id of the ranked attempt
  — DAILY_TTL
* ``sr:lb:{<date>|<variant>}`` (zset) — the daily leaderboard: every member scores 0 and the
  member text sorts in ranking order (see ``daily.rank_key``) — DAILY_TTL
* ``sr:lb:{<date>|<variant>}:entries`` (hash) — player id -> msgpack row (rank key, name,
  result, time, moves, home) — DAILY_TTL
* ``sr:stats:{<pid>}`` (hash) — all-time per variant: ``<variant>:races``, ``:wins``,
  ``:best_time``,
  ``:races_won``, ``:dailies``, ``:daily_wins``, ``:streak``, ``:best_streak``,
  ``:last_daily`` — no TTL
* ``sr:rating:{<pid>}`` (hash) — ``<variant>`` -> ``rating,rd,volatility,games`` — no TTL
* ``sr:gstats:{<pid>}`` (hash) — counted ranked results per ``<variant>|<options>``:
  ``…:played``, ``:won``, ``:home``, ``:best``, ``:run``, ``:best_run``, ``:t<seconds>`` — no TTL
* ``sr:days:{<pid>}`` (hash) — per UTC date ``<date>:p``, ``:w``, ``:d`` (ranked games, won,
  dailies won) — dates older than 400 days pruned on write
* ``sr:profile:{<lower name>}`` (string) — the player id that last held a name — 1 year
* ``sr:race:{<rid>}:fp:<pid>`` (string) — the fair-play case of a ranked result (status,
  score with every signal, evidence, history) — DAILY_TTL
* ``sr:fp:scores:{<pid>}`` (list) — the player's last 20 ranked-game suspicion totals — no TTL
* ``sr:fp:queue`` (zset) — held cases ``<rid>:<pid>`` by suspicion total: the review queue
* ``sr:fp:audit`` (stream) — the append-only audit log of moderator actions — no TTL
  (:mod:`.fairplay`; a daily result's entry carries ``review``, see ``stats_lua.LB_REVIEW``)

The race, session and player keys are owned by this module alone.

Pub/sub channels: ``sr:race:{<rid>}`` carries ``<version>:<msgpack event>`` for every race
event; ``sr:player:{<pid>}`` carries msgpack notices for one player (quick-pair matches,
rematch offers). On a
Redis Cluster (a ``RedisCluster`` client) they are sharded channels (``SPUBLISH``), each on the
shard of its tag's slot. Cluster rule: every script, ``MULTI`` and multi-key command touches one
hash slot (docs/scaling.md; tests/server/test_slots.py checks every Store method).

All times are Redis ``TIME`` in milliseconds, read inside the scripts: one clock for every
server process, so a race's clock does not depend on which process serves it.

Layout: :class:`Store` is composed of one mixin per job, each with the scripts it runs —
:mod:`.core` (client, script registration, command count, clock), :mod:`.lifecycle` (a race
from lobby to retirement), :mod:`.moves` (moves, the event stream, local delivery: the hot
path), :mod:`.live` (spectators, racer presence, live races), :mod:`.sweeps` (deadlines,
practice-bot leases), :mod:`.dailies` (daily deals, leaderboards), :mod:`.players` (stats,
ratings, profiles), :mod:`.pairing` (quick pairing, heartbeats, rematches, player notices);
accounts, deals, tournaments and trophies are objects of their own (``Store.accounts``,
``Store.deals``, ``Store.tournaments``: its keys, ``sr:t:{t:<id>}…``, are listed in
:mod:`.tournaments`; ``Store.trophies``, :mod:`.trophies`). The
key builders are :mod:`.keys`, the scripts :mod:`.lua` (and :mod:`.account_lua`,
:mod:`.deal_lua`, :mod:`.tournament_lua`).
"""

from __future__ import annotations

from solrace.server.store.batch import ScriptBatcher
from solrace.server.store.dailies import DailiesMixin
from solrace.server.store.fairplay import FairPlayMixin
from solrace.server.store.keys import (
    CODE_TTL,
    DAILY_TTL,
    PROFILE_TTL,
    QUICK_TTL,
    RETENTION,
    Keys,
)
from solrace.server.store.lifecycle import RaceLifecycleMixin
from solrace.server.store.live import LiveMixin
from solrace.server.store.moves import MovesMixin
from solrace.server.store.pairing import PairingMixin
from solrace.server.store.players import PlayersMixin
from solrace.server.store.records import RaceRecord, ScriptResult, decode_map
from solrace.server.store.replication import ReplicationLag
from solrace.server.store.sweeps import SweepsMixin

__all__ = [
    "CODE_TTL",
    "DAILY_TTL",
    "PROFILE_TTL",
    "QUICK_TTL",
    "RETENTION",
    "Keys",
    "RaceRecord",
    "ReplicationLag",
    "ScriptBatcher",
    "ScriptResult",
    "Store",
    "decode_map",
]


class Store(
    RaceLifecycleMixin,
    MovesMixin,
    LiveMixin,
    SweepsMixin,
    DailiesMixin,
    PlayersMixin,
    PairingMixin,
    FairPlayMixin,
):
    """The one door to Redis. ``redis`` must use ``decode_responses=False``; the constructor
    is :class:`~.core.StoreCore`'s, and each mixin adds the methods (and scripts) of one job."""
