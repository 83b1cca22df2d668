"""Winnable deals only: per configuration, a pool of seeds the solver has won.

A race created with ``winnable`` is dealt a seed taken from the pool of its configuration
(variant and resolved options). Why a pool and not a search at create time: certifying one
seed costs seconds to tens of seconds of solver time (an undecided candidate spends its whole
node budget), which no player should wait for; the pool is filled ahead, in a worker process,
the way daily deals are certified (:mod:`solrace.server.game.daily`).

* Candidates are fresh ``secrets.randbits(64)`` seeds, so a pooled seed is as unpredictable as
  any race's; a seed is taken with ``SPOP`` (random member, removed atomically), so no two
  races on any process are dealt the same pooled seed. The seed stays secret until the race
  ends, as every race's does.
* One certifier per configuration across processes (a Redis lock), topping the pool up to
  ``--pool-size`` seeds; the add script refuses past that size, so processes never overfill.
* Empty pool: ``race.create`` waits up to ``--pool-wait`` seconds for a certification (this
  process certifies if no other does), then refuses with ``pool_empty`` and ``retry_after``.
  A configuration whose last :data:`MAX_CANDIDATES` candidates gave no win (Seven by Five
  with its default options is all but never winnable) is refused at once for
  :data:`BARREN_MEMO` seconds.
* Background: with ``--pool-prepare 1`` every variant's daily configuration and every
  configuration players asked for in the last week are kept topped up.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from dataclasses import dataclass
from typing import Any

from solrace.server.game.daily import DailyService, certify_one
from solrace.server.game.dailylevels import rate_one
from solrace.server.game.worker import Worker
from solrace.server.store import Store
from solrace.shared.errors import OptionError
from solrace.shared.protocol import ProtocolError
from solrace.shared.rules import options_text
from solrace.shared.variants import VARIANTS, resolve

log = logging.getLogger("solrace.pool")

MAX_CANDIDATES = 100  # candidates one filling round tries before calling a configuration barren
BARREN_MEMO = 600.0  # seconds a barren configuration is refused without searching
DEMAND_MEMORY_MS = 7 * 24 * 3600 * 1000  # configurations asked for within a week are prepared
# Node budget per candidate. Smaller than a daily's: the pool wants many wins fast, and an
# undecided candidate costs the whole budget. At 10k nodes the solver wins 21-72% of candidate
# deals of every variant, so a seed costs a few candidates; ``bench/pool.py`` measures the
# seconds per certified seed (docs/solver.md, "Winnable races and verdicts").
DEFAULT_BUDGET = 10_000
DEFAULT_ESTIMATE = 10.0  # seconds until a seed, before this process has measured any


def config_of(variant: str, options: dict[str, Any]) -> tuple[str, str, dict[str, str]]:
    """The pool name ``<variant>|<options>`` of a request, its variant and resolved options."""
    try:
        v, opts, _ = resolve(variant, {k: str(x) for k, x in options.items()})
    except OptionError as exc:
        raise ProtocolError("bad_option", exc.reason) from None
    return f"{v.name}|{options_text(opts)}", v.name, opts


@dataclass(frozen=True, slots=True)
class PooledDeal:
    """A certified seed taken from a pool: its deal, par and (from a difficulty's pool) the
    difficulty it was rated."""

    variant: str
    options: dict[str, str]
    seed: int
    par: int
    difficulty: str | None = None


def split_config(config: str) -> tuple[str, dict[str, str], str | None]:
    """(variant, options, difficulty) of a pool name ``<variant>|<options>[|<difficulty>]``."""
    name, _, rest = config.partition("|")
    text, _, level = rest.partition("|")
    return name, dict(kv.split("=", 1) for kv in text.split(",") if kv), level or None


def default_configs() -> list[str]:
    """Every variant with the options its daily is played with (its defaults, but Seven by
    Five's cell preset: without cells it is all but never winnable): kept ready."""
    return [config_of(*DailyService.variant_name(name))[0] for name in VARIANTS]


class PoolService:
    def __init__(self, store: Store, *, size: int = 3, budget_nodes: int = 0,
                 wait: float = 20.0, process: str = "") -> None:
        self.store = store
        self.size = size
        self.budget_nodes = budget_nodes or DEFAULT_BUDGET
        self.wait = wait
        self.process = f"{process}/{secrets.token_hex(4)}"
        self._worker = Worker()  # certification searches, apart from hints and verdicts
        self._filling: dict[str, asyncio.Task[int]] = {}
        self._barren: dict[str, float] = {}  # config -> when a round found no win
        self._seconds: dict[str, float] = {}  # config -> measured seconds per certified seed
        self._added = asyncio.Condition()  # notified when this process adds a seed

    async def close(self) -> None:
        for task in self._filling.values():
            task.cancel()
        await asyncio.gather(*self._filling.values(), return_exceptions=True)
        self._worker.close()

    # ------------------------------------------------------------------ taking

    async def take(self, variant: str, options: dict[str, Any],
                   difficulty: str | None = None) -> PooledDeal:
        """A certified deal (of ``difficulty``, from that difficulty's pool), removed from its
        pool; waits at most ``wait`` seconds for one, else :class:`ProtocolError`
        ``pool_empty``."""
        config, name, opts = config_of(variant, options)
        if difficulty is not None:
            config = f"{config}|{difficulty}"
        if self.size <= 0:
            raise ProtocolError("bad_option", "this server offers no winnable races")
        await self.store.deals.pool_demand(config, await self.store.server_time_ms())
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.wait
        while True:
            got = await self.store.deals.pool_take(config)
            self.top_up(config)  # a seed taken (or none there): refill in the background
            if got is not None:
                return PooledDeal(name, opts, got[0], got[1], difficulty)
            if self.barren(config):
                raise ProtocolError(
                    "pool_empty", f"no winnable {name} deal found among {MAX_CANDIDATES} "
                    "candidates with these options", retry_after=int(BARREN_MEMO))
            left = deadline - loop.time()
            if left <= 0:
                raise ProtocolError(
                    "pool_empty", "no certified winnable deal is ready yet; one is being "
                    "searched for", retry_after=max(1, round(self.estimate(config))))
            with contextlib.suppress(TimeoutError):  # a local add wakes us; another
                async with self._added:  # process's shows up at the next poll
                    await asyncio.wait_for(self._added.wait(), min(0.5, left))

    async def give_back(self, deal: PooledDeal) -> None:
        """Return a taken seed that no race was dealt (dropped if the pool refilled)."""
        config = f"{deal.variant}|{options_text(deal.options)}"
        if deal.difficulty is not None:
            config += f"|{deal.difficulty}"
        await self.store.deals.pool_add(config, deal.seed, deal.par, 0, self.size)

    def barren(self, config: str) -> bool:
        failed = self._barren.get(config)
        return failed is not None and time.monotonic() - failed < BARREN_MEMO

    def estimate(self, config: str) -> float:
        """Seconds one certified seed of ``config`` took here (mean), or a default."""
        return self._seconds.get(config, DEFAULT_ESTIMATE)

    # ------------------------------------------------------------------ filling

    def top_up(self, config: str) -> asyncio.Task[int]:
        """Start filling ``config``'s pool (unless this process already is); the task gives
        the seeds it added."""
        task = self._filling.get(config)
        if task is None or task.done():
            task = asyncio.ensure_future(self._fill(config))
            self._filling[config] = task
        return task

    async def _fill(self, config: str) -> int:
        if self.barren(config):
            return 0
        deals = self.store.deals
        if not await deals.pool_lock(config, self.process):
            return 0  # another process certifies this configuration
        try:
            return await self._certify(config)
        except Exception:
            log.exception("filling the winnable pool %s failed", config)
            return 0
        finally:
            with contextlib.suppress(Exception):
                await deals.pool_unlock(config, self.process)

    async def _certify(self, config: str) -> int:
        """Certify candidates until ``config``'s pool is full. A difficulty's pool rates each
        won candidate (a second search in the worker) and puts it in the pool of its own
        difficulty, so the other two difficulties fill on the way."""
        deals = self.store.deals
        name, opts, level = split_config(config)
        base = config.rsplit("|", 1)[0] if level else config
        added = tried = 0
        started = time.monotonic()
        while tried < MAX_CANDIDATES and await deals.pool_size(config) < self.size:
            seed = secrets.randbits(64)
            outcome, par, nodes = await self._worker.run(certify_one, name, opts, seed,
                                                         self.budget_nodes)
            tried += 1
            if not await deals.pool_renew(config, self.process):
                return added  # the lock ran out (a stall): another process may fill now
            if outcome != "won" or par is None:
                continue
            if level is not None:
                rated = (await self._worker.run(rate_one, name, opts, seed))[0]
                if rated != level:  # kept for its own difficulty's races (if not full)
                    await deals.pool_add(f"{base}|{rated}", seed, par, nodes, self.size)
                    continue
            if not await deals.pool_add(config, seed, par, nodes, self.size):
                break  # full
            added += 1
            elapsed = time.monotonic() - started
            self._seconds[config] = elapsed / added
            async with self._added:
                self._added.notify_all()
            log.info("winnable pool %s: seed certified (par %d, %d candidates, %.1f s)",
                     config, par, tried, elapsed)
            tried = 0
        if tried >= MAX_CANDIDATES and added == 0:
            self._barren[config] = time.monotonic()
            log.warning("winnable pool %s: no win among %d candidates", config, tried)
        return added

    async def prepare(self) -> None:
        """Top up every default configuration and every one asked for lately (one at a
        time: they share one worker process)."""
        since = await self.store.server_time_ms() - DEMAND_MEMORY_MS
        configs = default_configs()
        configs += [c for c in await self.store.deals.pool_configs(since) if c not in configs]
        for config in configs:
            await self.top_up(config)
