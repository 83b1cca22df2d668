"""The winnable pool (server/game/pool.py, server/store/deals.py) against a real Redis and a real
Redis Cluster: seeds in a pool are solver-won, a pool never grows past its size however many
processes top it up at once, no seed is ever handed out twice, and an empty pool answers
``pool_empty`` within the configured wait."""

from __future__ import annotations

import asyncio

import pytest
from solrace.server.game.pool import PoolService, config_of, default_configs
from solrace.server.store import Store
from solrace.server.store.connect import open_client
from solrace.shared.protocol import ProtocolError, last_event
from solrace.shared.rules import options_text
from solrace.shared.solver import Budget, solve
from solrace.shared.variants import VARIANTS

pytestmark = pytest.mark.timeout(120)
BACKENDS = ("single", "cluster")
BUDGET = 2_000  # nodes per candidate: Unlimited wins about half of its deals within it


# ----------------------------------------------------------------------------- pure


def test_config_names_resolve_options() -> None:
    config, name, opts = config_of("unlimited", {})
    assert name == "unlimited" and config == f"unlimited|{options_text(opts)}"
    assert opts["draw"] == "1"  # the defaults are spelled out: one pool per actual game
    assert config_of("unlimited", {"draw": "3"})[0] != config_of("unlimited", {"draw": 1})[0]
    with pytest.raises(ProtocolError) as bad:
        config_of("unlimited", {"draw": "9"})
    assert bad.value.code == "bad_option"


def test_default_configs_cover_every_variant_with_its_daily_options() -> None:
    configs = default_configs()
    assert [c.split("|")[0] for c in configs] == list(VARIANTS)
    assert any(c.startswith("seven-by-five|") and "cells=5" in c for c in configs)


def test_last_event_waits_for_a_pending_verdict() -> None:
    assert last_event({"k": "end"})
    assert last_event({"k": "end", "verdict": {"outcome": "won", "par": 90}})
    assert not last_event({"k": "end", "verdict": {"outcome": "pending"}})
    assert last_event({"k": "verdict", "verdict": {"outcome": "lost"}})
    assert not last_event({"k": "progress"})


# ----------------------------------------------------------------------------- Redis


async def store_of(url: str) -> Store:
    store = Store(open_client(url, max_connections=8))
    await store.ping()  # as the server does: a cluster client learns its slots first
    return store


async def test_fill_certifies_won_seeds_up_to_the_size(redis_url: str) -> None:
    store = await store_of(redis_url)
    pool = PoolService(store, size=2, budget_nodes=BUDGET, wait=0, process="t")
    config, name, opts = config_of("unlimited", {})
    try:
        assert await pool.top_up(config) == 2
        assert await store.deals.pool_size(config) == 2
        assert await pool.top_up(config) == 0  # full: nothing searched, nothing added
        taken = [await store.deals.pool_take(config) for _ in range(3)]
        assert taken[2] is None
        for got in taken[:2]:
            assert got is not None
            seed, par = got
            result = solve((name, opts, seed), Budget(nodes=BUDGET, seconds=None))
            assert result.outcome.value == "won" and result.par == par  # deterministic
        assert taken[0] != taken[1]
    finally:
        await pool.close()
        await store.redis.aclose()


async def test_processes_topping_up_together_never_overfill(redis_url: str) -> None:
    """Three services (three processes' worth) fill one pool at once: one certifies (the
    lock), the pool ends at its size; concurrent adds past the size are refused."""
    stores = [await store_of(redis_url) for _ in range(3)]
    pools = [PoolService(s, size=2, budget_nodes=BUDGET, wait=0, process=f"p{i}")
             for i, s in enumerate(stores)]
    config = config_of("unlimited", {})[0]
    try:
        added = await asyncio.gather(*(p.top_up(config) for p in pools))
        assert sum(added) == 2 and sorted(added) == [0, 0, 2]
        assert await stores[0].deals.pool_size(config) == 2
        adds = await asyncio.gather(*(s.deals.pool_add(config, 1000 + i, 50, 1, 4)
                                      for i, s in enumerate(stores * 3)))
        assert sum(adds) == 2 and await stores[0].deals.pool_size(config) == 4
    finally:
        for p in pools:
            await p.close()
        for s in stores:
            await s.redis.aclose()


async def test_concurrent_takes_never_share_a_seed(redis_url: str) -> None:
    stores = [await store_of(redis_url) for _ in range(2)]
    config = "unlimited|test"
    try:
        for i in range(20):
            assert await stores[0].deals.pool_add(config, 7000 + i, 80, 1, 20)
        got = await asyncio.gather(*(stores[i % 2].deals.pool_take(config) for i in range(30)))
        seeds = [g[0] for g in got if g is not None]
        assert sorted(seeds) == list(range(7000, 7020))  # each once, then None
    finally:
        for s in stores:
            await s.redis.aclose()


async def test_empty_pool_waits_then_refuses_with_retry_after(redis_url: str) -> None:
    store = await store_of(redis_url)
    pool = PoolService(store, size=1, budget_nodes=BUDGET, wait=0, process="t")
    try:
        with pytest.raises(ProtocolError) as empty:
            await pool.take("unlimited", {})
        assert empty.value.code == "pool_empty" and empty.value.extra["retry_after"] >= 1
        # the refusal started a certification; once it is in, the next take gets it
        config = config_of("unlimited", {})[0]
        await pool.top_up(config)
        deal = await pool.take("unlimited", {})
        assert deal.variant == "unlimited" and deal.par > 0 and deal.seed >= 0
        assert deal.difficulty is None
        assert (await store.deals.pool_configs(0)) == [config]  # asked for: kept topped up
    finally:
        await pool.close()
        await store.redis.aclose()


async def test_a_take_waits_for_the_certification_it_started(redis_url: str) -> None:
    store = await store_of(redis_url)
    pool = PoolService(store, size=1, budget_nodes=BUDGET, wait=60, process="t")
    try:
        deal = await pool.take("unlimited", {"draw": "3"})
        assert deal.variant == "unlimited" and deal.par > 0 and deal.seed >= 0
    finally:
        await pool.close()
        await store.redis.aclose()


async def test_a_barren_configuration_is_refused_at_once(redis_url: str) -> None:
    """Seven by Five without cells, King-only spaces: (almost) never won; after a round of
    candidates without a win the pool says so instead of searching again."""
    store = await store_of(redis_url)
    pool = PoolService(store, size=1, budget_nodes=200, wait=600, process="t")
    config = config_of("seven-by-five", {})[0]
    try:
        import solrace.server.game.pool as pool_module

        pool_module.MAX_CANDIDATES, saved = 3, pool_module.MAX_CANDIDATES
        try:
            assert await pool.top_up(config) == 0
        finally:
            pool_module.MAX_CANDIDATES = saved
        assert pool.barren(config)
        with pytest.raises(ProtocolError) as barren:
            await asyncio.wait_for(pool.take("seven-by-five", {}), 5)
        assert barren.value.code == "pool_empty" and "candidates" in barren.value.reason
    finally:
        await pool.close()
        await store.redis.aclose()
