"""The Redis Cluster rule, checked for every Store method: one hash slot per atomic operation.

Every Lua script, every MULTI/EXEC transaction and every multi-key command must touch keys of
ONE slot (a cluster refuses anything else with CROSSSLOT), and a script's pub/sub channel must
be in that slot too (on a cluster it publishes with SPUBLISH on the slot's own shard).

How: a :class:`Store` over a recording fake Redis; every public coroutine method of the Store
is called with arguments made from its signature (no list to keep up to date: a method or a
script added tomorrow is exercised automatically). Each recorded operation's keys — and any
argument that names an ``sr:…{tag}…`` key or channel — must share a slot. And every registered
script must have been called by some method, so a script nobody calls (or one called some other
way) cannot hide from this test.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from typing import Any

import pytest
from redis.crc import key_slot
from solrace.server.store import (
    Store,
    account_lua,
    coord_lua,
    deal_lua,
    lua,
    stats_lua,
    tournament_lua,
    trophies,
)

MULTI_KEY = {"delete", "unlink", "exists", "mget", "mset", "rename", "smove", "lmove",
             "rpoplpush", "sunionstore", "sinterstore", "zunionstore", "zinterstore", "touch"}


class FakeScript:
    def __init__(self, rec: Recorder, source: str) -> None:
        self.rec = rec
        self.script = source
        self.sha = f"sha{len(rec.scripts)}"
        self.name = next((n for module in (lua, account_lua, coord_lua, deal_lua, stats_lua,
                                                tournament_lua)
                          for n, v in vars(module).items() if v == source), "?")

    async def __call__(self, keys: list[Any], args: list[Any]) -> Any:
        self.rec.record(f"script {self.name}", keys, args)
        self.rec.called.add(self.sha)
        return [b"ok", 1, 1, 1]


class FakePipeline:
    def __init__(self, rec: Recorder, transaction: bool) -> None:
        self.rec = rec
        self.transaction = transaction
        self.commands: list[tuple[str, tuple[Any, ...]]] = []

    async def __aenter__(self) -> FakePipeline:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        return None

    def __getattr__(self, name: str) -> Any:
        def command(*args: Any, **kwargs: Any) -> FakePipeline:
            self.commands.append((name, args))
            self.rec.command(name, args)
            return self
        return command

    async def execute(self, **kwargs: Any) -> list[Any]:
        if self.transaction:
            keys = [args[0] for _, args in self.commands if args]
            self.rec.record("MULTI " + ",".join(n for n, _ in self.commands), keys, [])
        return [None] * len(self.commands)


class Recorder:
    """The fake Redis: records what the Store asks for."""

    def __init__(self) -> None:
        self.ops: list[tuple[str, list[str], list[str]]] = []
        self.scripts: list[FakeScript] = []
        self.called: set[str] = set()

    def record(self, what: str, keys: list[Any], args: list[Any]) -> None:
        text = [k.decode() if isinstance(k, bytes) else str(k) for k in keys]
        named = [a for a in (x.decode(errors="replace") if isinstance(x, bytes) else str(x)
                             for x in args) if a.startswith("sr:") and "{" in a]
        self.ops.append((what, text, named))

    def command(self, name: str, args: tuple[Any, ...]) -> None:
        if name in MULTI_KEY and len(args) > 1:
            self.record(name, list(args), [])

    def register_script(self, source: str) -> FakeScript:
        script = FakeScript(self, source)
        self.scripts.append(script)
        return script

    def pipeline(self, transaction: bool = True) -> FakePipeline:
        return FakePipeline(self, transaction)

    async def scan_iter(self, **kwargs: Any) -> Any:  # a SCAN touches one key at a time
        for _ in ():
            yield _

    def __getattr__(self, name: str) -> Any:
        async def command(*args: Any, **kwargs: Any) -> Any:
            self.command(name, args)
            return 1  # truthy, so a method goes on past "claimed?" / "exists?" checks
        return command


class FakeBatcher:
    def __init__(self, rec: Recorder) -> None:
        self.rec = rec

    def call(self, script: FakeScript, keys: list[Any], args: list[Any],
             on_done: Any = None) -> Any:  # on_done: local delivery, not a Redis call
        fut = asyncio.get_running_loop().create_future()
        self.rec.record(f"script {script.name}", keys, args)
        self.rec.called.add(script.sha)
        fut.set_result([b"ok", 1, 1, 1])
        return fut


SAMPLES = {"int": 1, "float": 1.0, "bool": True, "bytes": b"\x80"}


def sample(param: inspect.Parameter) -> Any:
    """A value for one parameter; strings differ per parameter name (``rid`` -> ``rid-1``), so
    that a race key and a player key never share a tag by accident."""
    hint = str(param.annotation)
    if hint.startswith("Sequence[tuple[str, int, bool, bytes]"):  # append_batch's moves
        return [("t1f1", 1, True, b"\x80"), ("sw", 1, False, b"\x80")]
    if hint.startswith("Sequence[tuple[str, str]"):  # anonymise's leaderboard keys
        return [("lb-a", "member-a"), ("lb-b", "member-b")]
    if hint.startswith("Totals"):  # a tournament entrant's totals
        from solrace.server.store.tournaments import Totals
        return Totals(1, 1, 1, True, 1, 1, -1.0)
    if hint.startswith("Trophy"):  # a podium place
        from solrace.server.store.trophies import Trophy
        return Trophy("tid-1", 1, "arena", "name", 1)
    if hint.startswith(("Sequence", "list")):
        return [f"{param.name}-a", f"{param.name}-b"]
    if hint.startswith("dict"):
        return {"seed": 1, "variant": "unlimited"}
    for name, value in SAMPLES.items():
        if hint.startswith(name):
            return value
    return f"{param.name}-1"


def store_methods(cls: type = Store) -> list[str]:
    return sorted(n for n, f in inspect.getmembers(cls, inspect.iscoroutinefunction)
                  if not n.startswith("_"))


async def exercise() -> Recorder:
    rec = Recorder()
    store = Store(rec)  # type: ignore[arg-type]
    store.batcher = FakeBatcher(rec)  # type: ignore[assignment]
    store.accounts.batcher = store.batcher  # type: ignore[assignment]
    store.deals.batcher = store.batcher  # type: ignore[assignment]
    store.tournaments.batcher = store.batcher  # type: ignore[assignment]
    targets = [(store, name) for name in store_methods()]
    targets += [(store.accounts, name) for name in store_methods(type(store.accounts))]
    targets += [(store.deals, name) for name in store_methods(type(store.deals))]
    targets += [(store.tournaments, name)
                for name in store_methods(type(store.tournaments))]
    targets += [(store.trophies, name) for name in store_methods(type(store.trophies))]
    for owner, name in targets:
        method = getattr(owner, name)
        params = [p for p in inspect.signature(method).parameters.values()
                  if p.default is inspect.Parameter.empty
                  and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        kwargs = {p.name: sample(p) for p in params}
        with contextlib.suppress(Exception):  # fake answers may not parse; calls are recorded
            await method(**kwargs)
    # the per-request liveness check is touch() without a refresh (another script)
    with contextlib.suppress(Exception):
        await store.accounts.touch("digest-1", 1, refresh=False)
    return rec


async def test_every_script_multi_and_multikey_command_stays_in_one_slot() -> None:
    rec = await exercise()
    assert any(what.startswith("script") for what, _, _ in rec.ops)
    bad = []
    for what, keys, named in rec.ops:
        slots = {key_slot(k.encode()) for k in keys + named}
        if len(slots) > 1:
            bad.append(f"{what}: keys {keys} channels/keys in ARGV {named}")
    assert not bad, "operations spanning several hash slots:\n" + "\n".join(bad)


async def test_every_registered_script_is_exercised() -> None:
    rec = await exercise()
    never = [s.name for s in rec.scripts if s.sha not in rec.called]
    assert not never, f"registered scripts no Store method called here: {never}"


def test_every_lua_script_is_registered_by_the_store() -> None:
    """A script in the lua modules that the Store does not register would escape the slot check."""
    rec = Recorder()
    Store(rec)  # type: ignore[arg-type]
    registered = {s.script for s in rec.scripts}
    scripts = {(n, v) for module in (lua, coord_lua, deal_lua, stats_lua, trophies)
               for n, v in vars(module).items()
               if isinstance(v, str) and "redis.call" in v and n.isupper()
               and not n.endswith("PRELUDE")}
    missing = sorted(n for n, v in scripts if v not in registered)
    assert not missing, f"lua scripts the Store never registers: {missing}"


@pytest.mark.parametrize("name", sorted(f"{m.__name__.rsplit('.', 1)[1]}.{n}"
                                        for m in (lua, coord_lua, deal_lua, stats_lua)
                                        for n, v in vars(m).items()
                                        if isinstance(v, str) and "redis.call" in v))
def test_sharded_scripts_publish_only_with_spublish(name: str) -> None:
    module, _, attr = name.partition(".")
    plain = getattr({"lua": lua, "coord_lua": coord_lua, "deal_lua": deal_lua,
                     "stats_lua": stats_lua}[module], attr)
    source = lua.sharded(plain)
    assert "'PUBLISH'" not in source and '"PUBLISH"' not in source
    if "PUBLISH" in plain:
        assert "'SPUBLISH'" in source


def test_cluster_rule_catches_a_script_spanning_two_tags() -> None:
    """The check itself: a script over a race key and a player key is two slots."""
    rec = Recorder()
    rec.record("script X", ["sr:race:{r1}", "sr:player:{p1}:races"], [])
    _, keys, _ = rec.ops[0]
    assert len({key_slot(k.encode()) for k in keys}) == 2
