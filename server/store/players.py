"""What is kept about a player across races: all-time statistics, ratings and the profile name.

Why apart: these keys are tagged by the player (``{<pid>}``) and have no TTL (the profile name
a year), unlike a race's keys; a race's end updates them one player at a time, each in the
player's own slot. A rating is written compare-and-set (:data:`.stats_lua.RATING_CAS`), so two races
ending at once cannot lose an update.
"""

from __future__ import annotations

from collections.abc import Sequence

from solrace.server.store import stats_lua
from solrace.server.store.core import StoreCore
from solrace.server.store.keys import PROFILE_TTL, Keys
from solrace.server.store.records import _s, decode_map


class PlayersMixin(StoreCore):
    """Statistics, ratings and profiles."""

    def _register_scripts(self) -> None:
        super()._register_scripts()
        self._daily_stats = self._script(stats_lua.DAILY_STATS)
        self._win_stats = self._script(stats_lua.WIN_STATS)
        self._rating_cas = self._script(stats_lua.RATING_CAS)
        self._game_stats = self._script(stats_lua.GAME_STATS)

    async def daily_stats(self, pid: str, variant: str, day: str, yesterday: str,
                          won: bool) -> int:
        """Count a daily attempt; returns the player's streak after it."""
        self._count()
        return int(await self.batcher.call(self._daily_stats, keys=[Keys.stats(pid)],
                                           args=[variant, day, yesterday, "1" if won else "0"]))

    async def win_stats(self, pid: str, variant: str, won: bool, race_won: bool,
                        time_ms: int) -> None:
        self._count()
        await self.batcher.call(self._win_stats, keys=[Keys.stats(pid)],
                                args=[variant, "1" if won else "0", "1" if race_won else "0",
                                      time_ms])

    async def race_played(self, pid: str, variant: str) -> None:
        """Count a finished race (any result) in the player's all-time ``<variant>:races``."""
        self._count()
        await self.redis.hincrby(Keys.stats(pid), f"{variant}:races", 1)

    async def game_stats(self, pid: str, config: str, day: str, won: bool, time_ms: int,
                         home: int, daily: bool, keep_from: str) -> None:
        """Count one ranked result (listed or cleared by fair play) in the player's statistics
        of ``config`` (``playerstats.config_key``) and in ``day``'s counts; the first result
        of a date drops the per-day counts of dates before ``keep_from``
        (``playerstats.prune_before``)."""
        self._count()
        await self.batcher.call(self._game_stats,
                                keys=[Keys.game_stats(pid), Keys.player_days(pid)],
                                args=[config, day, "1" if won else "0", int(time_ms),
                                      int(home), "1" if daily else "0",
                                      keep_from])

    async def game_stats_of(self, pid: str) -> tuple[dict[str, str], dict[str, str]]:
        """The player's statistics hash and per-day hash (see :meth:`game_stats`)."""
        async with self.redis.pipeline(transaction=False) as p:
            p.hgetall(Keys.game_stats(pid))
            p.hgetall(Keys.player_days(pid))
            stats, days = await p.execute()
        self._count()
        return decode_map(stats), decode_map(days)

    async def player_days(self, pid: str) -> dict[str, str]:
        """The player's per-day hash alone (the badges; see :meth:`game_stats`)."""
        self._count()
        return decode_map(await self.redis.hgetall(Keys.player_days(pid)))

    async def stats(self, pid: str) -> dict[str, str]:
        self._count()
        return decode_map(await self.redis.hgetall(Keys.stats(pid)))

    async def ratings(self, pids: Sequence[str], variant: str) -> list[str | None]:
        async with self.redis.pipeline(transaction=False) as p:
            for pid in pids:
                p.hget(Keys.rating(pid), variant)
            raw = await p.execute()
        self._count()
        return [_s(x) if x is not None else None for x in raw]

    async def set_rating(self, pid: str, variant: str, expected: str | None, text: str
                         ) -> bool:
        """Store ``pid``'s new rating only if the stored one is still ``expected`` (None: no
        rating yet); False when another race's update landed first."""
        self._count()
        return bool(await self._rating_cas(keys=[Keys.rating(pid)],
                                           args=[variant, expected or "", text]))

    async def all_ratings(self, pid: str) -> dict[str, str]:
        self._count()
        return decode_map(await self.redis.hgetall(Keys.rating(pid)))

    async def remember_profile(self, name: str, pid: str) -> None:
        self._count()
        await self.redis.set(Keys.profile(name), pid, ex=PROFILE_TTL)

    async def profile_of(self, name: str) -> str | None:
        self._count()
        raw = await self.redis.get(Keys.profile(name))
        return _s(raw) if raw is not None else None
