"""The Lua scripts of tournaments (:mod:`.tournaments`). Every script touches the keys of one
tournament only — they share the hash tag ``{t:<id>}`` — so each is atomic on a Redis
Cluster too.

KEYS of every script, in order: the tournament's hash, ``…:entrants`` (hash pid -> joined
number ``|`` name), ``…:rank`` (zset), ``…:stat`` (hash pid -> ``points|won|played|fire|
tiebreak|extra|rev``), ``…:cur`` (hash pid -> the entrant's current deal
``rid|k|started_at|berserk``),
then, where named, ``…:d:<pid>`` (list: the entrant's deal results, msgpack, in order).

The rank zset orders the standings by itself: the score and the tiebreak come from the
format's rules (server/game/arenarules.py: an arena's score is −(points × 4096 + won), its tiebreak
the time its points were reached; an event's score −won × 2^40 + total time, its tiebreak
999 999 − cards home), the member is ``<tiebreak, 13 digits>|<joined, 6 digits>|<pid>``;
members of equal score sort by their bytes, so ``ZRANK`` is the rank of docs/tournaments.md.
"""

from __future__ import annotations

#: ENTER: KEYS meta, entrants, rank, stat, watchers; ARGV pid, name, now, score, tiebreak (an
#: entrant with no result yet, by the format's rules). Returns the entrant's joined number
#: (1, 2, …; the same on a repeat) or an error string: ``missing``, ``closed``, ``watched``
#: (the player watched a deal of this tournament: see WATCH), ``full`` (a knockout's ``max``
#: entrants are in).
ENTER = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 'missing' end
local have = redis.call('HGET', KEYS[2], ARGV[1])
if have then return tonumber(string.match(have, '^(%d+)|')) end
if redis.call('SISMEMBER', KEYS[5], ARGV[1]) == 1 then return 'watched' end
local now = tonumber(ARGV[3])
local cutoff = tonumber(redis.call('HGET', KEYS[1], 'cutoff'))
if now >= cutoff then return 'closed' end
local most = tonumber(redis.call('HGET', KEYS[1], 'max') or '0')
if most > 0 and redis.call('HLEN', KEYS[2]) >= most then return 'full' end
local joined = redis.call('HINCRBY', KEYS[1], 'entrants', 1)
redis.call('HSET', KEYS[2], ARGV[1], joined .. '|' .. ARGV[2])
redis.call('ZADD', KEYS[3], tonumber(ARGV[4]),
           string.format('%013d|%06d|%s', tonumber(ARGV[5]), joined, ARGV[1]))
redis.call('HSET', KEYS[4], ARGV[1], '0|0|0|0|' .. ARGV[5] .. '|0|0')
redis.call('HINCRBY', KEYS[1], 'v', 1)
local at = redis.call('PEXPIRETIME', KEYS[1])
if at > 0 then
  for i = 2, 4 do redis.call('PEXPIREAT', KEYS[i], at) end
end
return joined
"""

#: DEAL: KEYS meta, entrants, rank, stat, cur, list; ARGV pid, k, rid, started_at, berserk,
#: top.
#: Records the entrant's deal k as current, once: ``ok``, ``dup`` (deal k is current already:
#: its race id is returned as the second value), or ``order`` (deal k-1 not recorded yet).
#: An entrant in the top ARGV[6] places bumps the standings' version: the standings name the
#: leaders' current deals (spectators watch them), so a leader's new deal is news.
DEAL = """
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 0 then return {'not_entered'} end
local cur = redis.call('HGET', KEYS[5], ARGV[1])
if cur then
  local rid, k = string.match(cur, '^([^|]+)|(%d+)|')
  if tonumber(k) == tonumber(ARGV[2]) then return {'dup', rid} end
end
if redis.call('LLEN', KEYS[6]) ~= tonumber(ARGV[2]) - 1 then return {'order'} end
redis.call('HSET', KEYS[5], ARGV[1], ARGV[3] .. '|' .. ARGV[2] .. '|' .. ARGV[4] .. '|'
           .. ARGV[5])
local stat = redis.call('HGET', KEYS[4], ARGV[1])
local entry = redis.call('HGET', KEYS[2], ARGV[1])
local reached = tonumber(string.match(stat or '0|0|0|0|0', '^%d+|%d+|%d+|%d+|(%d+)'))
local r = redis.call('ZRANK', KEYS[3], string.format('%013d|%06d|%s', reached,
                     tonumber(string.match(entry, '^(%d+)|')), ARGV[1]))
if r and r < tonumber(ARGV[6]) then redis.call('HINCRBY', KEYS[1], 'v', 1) end
local at = redis.call('PEXPIRETIME', KEYS[1])
if at > 0 then
  redis.call('PEXPIREAT', KEYS[5], at)
  redis.call('PEXPIREAT', KEYS[6], at)
end
return {'ok'}
"""

#: RESULT: KEYS meta, entrants, rank, stat, cur, list; ARGV pid, k, result (msgpack), points,
#: won, played, fire, tiebreak, extra, rev, mode, score[, results…]. ``append``: adds deal k's
#: result once; ``set``: replaces recorded deal k's (a review decided); ``all``: replaces every
#: result with ARGV[13…] (k = how many: a ban or an unban). Either way the entrant's totals
#: are set and its place in the rank zset (``score``, then ``tiebreak``, then entry order),
#: all computed by the caller from the list it read at revision ``rev``: ``ok``, ``dup`` (deal
#: k is recorded already), ``stale`` (the list changed since: read again), ``order``.
RESULT = """
local pid = ARGV[1]
local entry = redis.call('HGET', KEYS[2], pid)
if not entry then return 'not_entered' end
local n = redis.call('LLEN', KEYS[6])
local k = tonumber(ARGV[2])
local stat = redis.call('HGET', KEYS[4], pid)
local rev = tonumber(string.match(stat, '(%d+)$'))
local mode = ARGV[11]
if mode == 'set' then
  if n < k then return 'order' end
  if rev ~= tonumber(ARGV[10]) then return 'stale' end
  redis.call('LSET', KEYS[6], k - 1, ARGV[3])
elseif mode == 'all' then
  if n ~= k then return 'order' end
  if rev ~= tonumber(ARGV[10]) then return 'stale' end
  for i = 13, #ARGV do redis.call('LSET', KEYS[6], i - 13, ARGV[i]) end
else
  if n >= k then return 'dup' end
  if n ~= k - 1 then return 'order' end
  if rev ~= tonumber(ARGV[10]) then return 'stale' end
  redis.call('RPUSH', KEYS[6], ARGV[3])
end
local joined = tonumber(string.match(entry, '^(%d+)|'))
local tiebreak = tonumber(string.match(stat, '^%d+|%d+|%d+|%d+|(%d+)'))
redis.call('ZREM', KEYS[3], string.format('%013d|%06d|%s', tiebreak, joined, pid))
redis.call('ZADD', KEYS[3], tonumber(ARGV[12]),
           string.format('%013d|%06d|%s', tonumber(ARGV[8]), joined, pid))
redis.call('HSET', KEYS[4], pid, table.concat({ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8],
                                                ARGV[9], rev + 1}, '|'))
redis.call('HINCRBY', KEYS[1], 'v', 1)
return 'ok'
"""

#: STANDINGS: KEYS meta, entrants, rank, stat; ARGV pid ("" for none), top, around.
#: Returns {version, entrants, my rank (0: not entered), rows...}, each row a flat
#: {rank, pid, name, stat}; the top ``top`` rows, then the ``around`` rows either side of the
#: entrant (the two may overlap: the caller merges them).
STANDINGS = """
local out = {tonumber(redis.call('HGET', KEYS[1], 'v') or '0'),
             redis.call('ZCARD', KEYS[3]), 0}
local function rows(lo, hi)
  if hi < lo then return end
  local members = redis.call('ZRANGE', KEYS[3], lo, hi)
  for i, m in ipairs(members) do
    local pid = string.match(m, '^%d+|%d+|(.+)$')
    local entry = redis.call('HGET', KEYS[2], pid) or '0|?'
    out[#out + 1] = lo + i
    out[#out + 1] = pid
    out[#out + 1] = string.match(entry, '^%d+|(.*)$')
    out[#out + 1] = redis.call('HGET', KEYS[4], pid) or '0|0|0|0|0|0|0'
  end
end
rows(0, tonumber(ARGV[2]) - 1)
if ARGV[1] ~= '' then
  local entry = redis.call('HGET', KEYS[2], ARGV[1])
  if entry then
    local stat = redis.call('HGET', KEYS[4], ARGV[1])
    local reached = tonumber(string.match(stat, '^%d+|%d+|%d+|%d+|(%d+)'))
    local joined = tonumber(string.match(entry, '^(%d+)|'))
    local r = redis.call('ZRANK', KEYS[3], string.format('%013d|%06d|%s', reached, joined,
                                                         ARGV[1]))
    if r then
      out[3] = r + 1
      local around = tonumber(ARGV[3])
      rows(math.max(0, r - around), r + around)
    end
  end
end
return out
"""

#: KO_SAVE: KEYS meta, bracket; ARGV expected version, the bracket (JSON), its state, ends_at
#: ("" to keep). A knockout's bracket replaced whole if its version is still the one the
#: caller read (compare-and-set: two processes deciding the same match write once), the
#: tournament's state and standings version moved with it: ``ok``, ``stale``, ``missing``.
KO_SAVE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 'missing' end
local v = tonumber(redis.call('HGET', KEYS[1], 'ko_v') or '0')
if v ~= tonumber(ARGV[1]) then return 'stale' end
redis.call('SET', KEYS[2], ARGV[2])
redis.call('HSET', KEYS[1], 'ko_v', v + 1, 'ko_state', ARGV[3])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'ends_at', ARGV[4]) end
redis.call('HINCRBY', KEYS[1], 'v', 1)
local at = redis.call('PEXPIRETIME', KEYS[1])
if at > 0 then redis.call('PEXPIREAT', KEYS[2], at) end
return 'ok'
"""

#: KO_UNLOCK: KEYS lock; ARGV token. Releases a knockout's race-creation lock if this caller
#: still holds it (a lock that expired and was taken by another process is left alone).
KO_UNLOCK = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
#: WATCH: KEYS meta, entrants, watchers; ARGV pid. A player may watch a running tournament's
#: deals only if not an entrant, and is remembered as a watcher so that they can never enter
#: it (ENTER): one script, so a watch and an entry of the same player cannot cross. Returns
#: ``ok``, ``entrant`` or ``missing``.
WATCH = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 'missing' end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 'entrant' end
redis.call('SADD', KEYS[3], ARGV[1])
local at = redis.call('PEXPIRETIME', KEYS[1])
if at > 0 then redis.call('PEXPIREAT', KEYS[3], at) end
return 'ok'
"""
