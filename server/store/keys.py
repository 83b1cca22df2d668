"""Every Redis key and channel name of solrace, built in one place, and their lifetimes.

The schema (types, contents, TTLs) is listed in the package docstring of
:mod:`solrace.server.store`; keys of one race share the hash tag ``{<race id>}``, so one race
lives in one Redis Cluster slot.
"""

from __future__ import annotations

import hashlib

from solrace.server.accounts.names import fold

RETENTION = 30 * 24 * 3600  # seconds finished races (and their replays) are kept
CODE_TTL = 24 * 3600
DAILY_TTL = 40 * 24 * 3600  # daily deals, attempts and leaderboards: kept at least 30 days
PROFILE_TTL = 365 * 24 * 3600
QUICK_TTL = 300
FP_RECENT = 20  # suspicion totals kept per player (signals.RECENT reads the last 10)


class Keys:
    """Every key and channel name, built in one place."""

    @staticmethod
    def session(token: str) -> str:
        """(hash) one session, keyed by the sha256 of its token (the token itself is never
        stored): player, name, kind (guest | account), account (the account's name), sid (the
        public session id), created_at, last_seen (ms), client, address — session TTL,
        refreshed on use (at most once a minute, see ``AccountStore.touch``)."""
        return f"sr:session:{{{hashlib.sha256(token.encode()).hexdigest()}}}"

    @staticmethod
    def session_hashed(digest: str) -> str:
        """:meth:`session` from the token's sha256 hex (what an account's session list holds)."""
        return f"sr:session:{{{digest}}}"

    @staticmethod
    def session_fails(digest: str) -> str:
        """(zset) failed password checks made inside this session (``policy.SESSION_RULES``),
        member ``<ms>:<random>`` scored by the Redis time — expires with the limit's window."""
        return f"sr:session:{{{digest}}}:fails"

    # Names and accounts: every key of one name shares the tag ``{account:<fold>}`` (the fold
    # of ``solrace.server.accounts.names``), so the checks "is this name an account's" and
    # "is it a live guest's" and the claim are one script in one Cluster slot.

    @staticmethod
    def name(name: str) -> str:
        """(string) the player id of the live guest holding a name (and every look-alike of
        it) — as the guest's session, refreshed on resume; never set for an account's name."""
        return f"sr:name:{{account:{fold(name)}}}"

    @staticmethod
    def account(name: str) -> str:
        """(hash) an account: player, name (display spelling), kdf (the scrypt hash),
        created_at, and when set: roles (``moderator``/``admin``, comma-separated), banned,
        renamed_from; after deletion only deleted=1, deleted_at (a tombstone: the name is
        never taken again; a forced rename leaves one with renamed_to) — no TTL."""
        return Keys.account_at(fold(name))

    @staticmethod
    def account_at(folded: str) -> str:
        """:meth:`account` by an already folded name (a legacy-fold key, when migrating)."""
        return f"sr:account:{{account:{folded}}}"

    #: Every account hash (and its ``:sessions``/``:fails``), for SCAN when migrating.
    ACCOUNT_PATTERN = "sr:account:{account:*}"

    @staticmethod
    def account_sessions(name: str) -> str:
        """(hash) the account's sessions: session id -> sha256 of its token (the key of
        :meth:`session_hashed`); entries whose session expired are pruned when listed — no
        TTL (deleted with the account)."""
        return Keys.account_at(fold(name)) + ":sessions"

    @staticmethod
    def account_fails(name: str) -> str:
        """(zset) failed logins against the account (``policy.ACCOUNT_RULES``), member
        ``<ms>:<random>`` scored by the Redis time — expires 24 h after the last failure."""
        return Keys.account_at(fold(name)) + ":fails"

    @staticmethod
    def address_fails(address: str) -> str:
        """(zset) failed logins from one client address (``policy.ADDRESS_RULES``), as
        :meth:`account_fails` — expires 24 h after the last failure."""
        return f"sr:loginfail:{{addr:{address}}}"

    @staticmethod
    def player_history(pid: str) -> str:
        """(zset) every race id the player joined, scored by join time (ms): what deleting an
        account anonymises — RETENTION, refreshed on join."""
        return f"sr:player:{{{pid}}}:history"

    @staticmethod
    def player_races(pid: str) -> str:
        return f"sr:player:{{{pid}}}:races"

    @staticmethod
    def player_channel(pid: str) -> str:
        return f"sr:player:{{{pid}}}"

    @staticmethod
    def race(rid: str) -> str:
        return f"sr:race:{{{rid}}}"

    @staticmethod
    def rematch(rid: str) -> str:
        """str: the race id of the rematch of finished race ``rid`` (set once, NX); kept as
        long as the race (30 days). Same hash tag as the race."""
        return f"sr:rematch:{{{rid}}}"

    @staticmethod
    def race_channel(rid: str) -> str:
        return f"sr:race:{{{rid}}}"

    @staticmethod
    def racers(rid: str) -> str:
        return f"sr:race:{{{rid}}}:racers"

    @staticmethod
    def order(rid: str) -> str:
        return f"sr:race:{{{rid}}}:order"

    @staticmethod
    def ready(rid: str) -> str:
        return f"sr:race:{{{rid}}}:ready"

    @staticmethod
    def log(rid: str, pid: str) -> str:
        return f"sr:race:{{{rid}}}:log:{pid}"

    @staticmethod
    def analysis(rid: str) -> str:
        """(hash) racer id -> the JSON of "the move that lost it" for that racer's line,
        computed on request after the end (server/game/analysis.py) — RETENTION."""
        return f"sr:race:{{{rid}}}:analysis"

    @staticmethod
    def analysis_quota(who: str) -> str:
        """(zset) the fresh analyses one caller started (a player id, or ``addr:<address>``
        for an anonymous connection), member ``<ms>:<race>:<racer>`` scored by the Redis
        time in ms — the window (an hour)."""
        return f"sr:aquota:{{{who}}}"

    @staticmethod
    def events(rid: str) -> str:
        return f"sr:race:{{{rid}}}:ev"

    @staticmethod
    def result(rid: str) -> str:
        return f"sr:race:{{{rid}}}:result"

    @staticmethod
    def watchers(rid: str) -> str:
        return f"sr:race:{{{rid}}}:watchers"

    @staticmethod
    def online(rid: str) -> str:
        """Racers' connections attached to the race (presence), scored by expiry."""
        return f"sr:race:{{{rid}}}:online"

    @staticmethod
    def barrier(rid: str) -> str:
        return f"sr:race:{{{rid}}}:barrier"

    @staticmethod
    def bot_lease(rid: str) -> str:
        return f"sr:race:{{{rid}}}:botlease"

    LIVE = "sr:live"
    DEADLINES = "sr:deadlines"
    BOT_RACES = "sr:bots"

    @staticmethod
    def daily(day: str, variant: str) -> str:
        return f"sr:daily:{{{day}|{variant}}}"

    @staticmethod
    def daily_lock(day: str, variant: str) -> str:
        return f"sr:daily:{{{day}|{variant}}}:lock"

    @staticmethod
    def daily_attempts(day: str, variant: str) -> str:
        return f"sr:daily:{{{day}|{variant}}}:attempts"

    @staticmethod
    def leaderboard(day: str, variant: str) -> str:
        return f"sr:lb:{{{day}|{variant}}}"

    @staticmethod
    def leaderboard_entries(day: str, variant: str) -> str:
        return f"sr:lb:{{{day}|{variant}}}:entries"

    @staticmethod
    def stats(pid: str) -> str:
        return f"sr:stats:{{{pid}}}"

    @staticmethod
    def rating(pid: str) -> str:
        return f"sr:rating:{{{pid}}}"

    @staticmethod
    def game_stats(pid: str) -> str:
        """(hash) counted ranked results per ``<variant>|<options>``: ``…:played``, ``:won``,
        ``:home`` (cards home, summed), ``:best`` (ms), ``:run``, ``:best_run``, and
        ``:t<seconds>`` (won games by whole seconds, for the median) — no TTL; the player's
        tag, so :data:`.stats_lua.GAME_STATS` writes it with :meth:`player_days` in one slot."""
        return f"sr:gstats:{{{pid}}}"

    @staticmethod
    def player_days(pid: str) -> str:
        """(hash) per UTC date ``<date>:p`` (ranked games counted), ``:w`` (won), ``:d``
        (ranked dailies won, any variant: the monthly badges) — no TTL; dates older than
        ``playerstats.DAYS_KEPT`` days are pruned when a new date is first counted."""
        return f"sr:days:{{{pid}}}"

    @staticmethod
    def profile(name: str) -> str:
        return f"sr:profile:{{{name.lower()}}}"

    @staticmethod
    def code(code: str) -> str:
        return f"sr:code:{{{code}}}"

    @staticmethod
    def quick(queue: str) -> str:
        return f"sr:quick:{{{queue}}}"

    @staticmethod
    def pool(config: str) -> str:
        """(set) certified seeds of one configuration ``<variant>|<options>`` waiting to be
        dealt in a winnable race, as ``<seed>:<par>:<nodes>`` — no TTL (taken with SPOP)."""
        return f"sr:pool:{{{config}}}"

    @staticmethod
    def pool_lock(config: str) -> str:
        """(string) the process topping up that pool (one certifier per configuration) —
        POOL_LOCK_TTL, renewed after every candidate."""
        return f"sr:pool:{{{config}}}:lock"

    #: (zset) configurations players asked winnable races of, scored by the last ask (ms):
    #: what the background preparation keeps topped up.
    POOLS = "sr:pools"
    #: (zset) finished races whose verdict is still to be solved, scored by when the lease of
    #: the process solving it runs out (Redis ms): any process takes those due.
    VERDICTS_DUE = "sr:verdicts"

    # Fair play (docs/fairplay.md): a ranked result's case lives with its race (same tag);
    # the review queue and the audit log are one key each, read by moderators only.

    @staticmethod
    def fp_case(rid: str, pid: str) -> str:
        """(string) msgpack case of one ranked result: player, name, kind, variant, day,
        status (clear | pending | held | removed), score, evidence, history, analysis,
        created_at, decided_by —
        DAILY_TTL (longer than the race: a held case outlives its replay)."""
        return f"sr:race:{{{rid}}}:fp:{pid}"

    @staticmethod
    def fp_scores(pid: str) -> str:
        """(list) the player's last :data:`FP_RECENT` ranked-game suspicion totals, newest
        last — no TTL."""
        return f"sr:fp:scores:{{{pid}}}"

    @staticmethod
    def fp_reports(pid: str) -> str:
        """(hash) open reports on a player: reporter's player id -> msgpack {name, category,
        note, race, at} (one open report per pair) — no TTL; emptied when a moderator bans."""
        return f"sr:fp:reports:{{{pid}}}"

    @staticmethod
    def fp_report_rate(pid: str) -> str:
        """(zset) the reports a player sent in the last hour, scored by ms — an hour."""
        return f"sr:fp:reportrate:{{{pid}}}"

    @staticmethod
    def rating_log(pid: str) -> str:
        """(list) every rating change applied to the player, msgpack {race, variant, before,
        results: [[opponent, rating, rd, volatility, score]…]}, oldest first: what rebuilds
        the rating without a banned opponent's games — no TTL."""
        return f"sr:ratinglog:{{{pid}}}"

    @staticmethod
    def held_ratings(rid: str) -> str:
        """(string) msgpack list of a rated race's rating changes, held while a result of the
        race is under review — DAILY_TTL (a race reviewed later than that applies none)."""
        return f"sr:race:{{{rid}}}:fp:ratings"

    #: (set) race ids a moderator annulled: they count in nobody's rating.
    FP_ANNULLED = "sr:fp:annulled"

    @staticmethod
    def fp_warnings(pid: str) -> str:
        """(list) moderators' warnings to a player, msgpack {by, reason, at} — no TTL."""
        return f"sr:fp:warnings:{{{pid}}}"

    #: (set) banned players' ids: their games count in nobody's rating.
    FP_BANNED = "sr:fp:banned"
    #: (zset) reported players' ids scored by their open reports: the moderators' list.
    FP_REPORTED = "sr:fp:reported"
    #: (zset) held cases ``<rid>:<pid>`` scored by their suspicion total: the review queue.
    FP_QUEUE = "sr:fp:queue"
    #: (zset) cases ``<rid>:<pid>`` waiting for the worker pool's solver analysis, scored by
    #: the ms at which their lease ends (then any process's sweep takes them over).
    FP_DUE = "sr:fp:due"

    @staticmethod
    def fp_races(pid: str) -> str:
        """(list) the player's last rated races for the win-trading signal, msgpack {race,
        ranks: {player: rank}}, newest last — no TTL, :data:`FP_RECENT` kept."""
        return f"sr:fp:races:{{{pid}}}"
    #: (string) set once every legacy-fold account key has been moved (server start-up).
    NAMES_MIGRATED = "sr:migrated:names-v2"
    #: (stream) the append-only audit log of moderator actions (by, action, target, reason,
    #: details; entry ids are Redis times) — no TTL, never trimmed.
    FP_AUDIT = "sr:fp:audit"

    @staticmethod
    def alive(process: str) -> str:
        return f"sr:alive:{{{process}}}"
