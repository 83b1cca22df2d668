"""Fixtures for tests against a real Redis-protocol server.

Every test that needs Redis gets a private server started by this suite on a free loopback
port (the ``redis-server``/``valkey-server`` that
:func:`solrace.server.ops.redisproc.find_redis_server` finds), never the machine's shared 6379:

* ``redis_proc`` (session): one server for the whole run, AOF on, temp data dir.
* ``redis_url`` (function): that server's URL, after ``FLUSHALL`` so each test starts empty.
* ``private_redis`` (function): a server of the test's own, for tests that stop, kill or
  restart Redis (``appendfsync always`` so an acknowledged write survives a SIGKILL).
* ``redis_cluster`` (session): a real Redis Cluster, 3 masters + 3 replicas
  (:class:`rediscluster.RedisClusterProcess`, tests/rediscluster.py), started once on first use.

Second backend: a test module that sets ``BACKENDS = ("single", "cluster")`` runs every test
that takes ``redis_url`` twice, ``[single]`` on the one Redis and ``[cluster]`` on the shared
cluster (flushed before each test). ``SOLRACE_TEST_BACKENDS=single`` (or ``cluster``) runs
only one of them.

Second event loop: a test module that sets ``LOOPS = ("asyncio", "uvloop")`` (or a test marked
``@pytest.mark.loops("asyncio", "uvloop")``) runs every async test twice, ``[asyncio]`` on the
stock loop and ``[uvloop]`` on uvloop's (the server's default where it can be imported,
server/ops/config.py); every other test runs on the stock loop only. ``SOLRACE_TEST_LOOPS=asyncio``
(or ``uvloop``) runs only one of them.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Iterator

import pytest
import redis
from rediscluster import RedisClusterProcess
from solrace.server.ops.redisproc import RedisProcess

# Test clients play at machine speed on purpose: every server these tests start (in process or
# as a child) records fair-play scores but holds nothing, unless a test asks for the product's
# default, ``hold`` (tests/server/test_fairplay_e2e.py does).
os.environ.setdefault("SOLRACE_FAIR_PLAY", "record")
# Every frame a test's client library receives is checked against the declared message shapes
# (shared/protocol/replies.py, events.py); a mismatch fails the test (check_wire below).
os.environ.setdefault("SOLRACE_CHECK_WIRE", "1")


@pytest.fixture(autouse=True)
def check_wire() -> Iterator[None]:
    """Fail a test during which the client library received a frame of an undeclared shape
    (tests/server/harness.py checks its own frames as it reads them)."""
    from solrace.client import library

    library.WIRE_ERRORS.clear()
    yield
    errors, library.WIRE_ERRORS[:] = list(library.WIRE_ERRORS), []
    assert not errors, "frames not as declared:\n" + "\n".join(errors[:5])


def pytest_report_header(config: pytest.Config) -> str:
    """Whether this run exercises the compiled parts (shared/accel.py) or the source."""
    from solrace.shared import accel, accelstatus

    found = accelstatus.status()
    current = sum(p is not None for p in found.values())
    return (f"solrace compiled parts: SOLRACE_COMPILED={accel.mode() or '(unset)'}, "
            f"{current} of {len(found)} with a current build (python -m "
            f"solrace.shared.accelstatus)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "loops(*names): the event loops an async test runs on (asyncio, uvloop)")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    backends = getattr(metafunc.module, "BACKENDS", None)
    if backends and "redis_url" in metafunc.fixturenames:
        only = os.environ.get("SOLRACE_TEST_BACKENDS")
        chosen = [b for b in backends if not only or b in only.split(",")]
        metafunc.parametrize("redis_url", chosen, indirect=True)


def _loop_factories() -> dict[str, Callable[[], asyncio.AbstractEventLoop]]:
    factories: dict[str, Callable[[], asyncio.AbstractEventLoop]] = {
        "asyncio": asyncio.new_event_loop}
    try:
        import uvloop
    except ImportError:  # not a dependency off Linux (pyproject.toml): the stock loop only
        return factories
    factories["uvloop"] = uvloop.new_event_loop
    return factories


LOOP_FACTORIES = _loop_factories()


def pytest_asyncio_loop_factories(config: pytest.Config, item: pytest.Item
                                  ) -> dict[str, Callable[[], asyncio.AbstractEventLoop]]:
    """The event loops an async test runs on (pytest-asyncio's hook): those its ``loops``
    marker or its module's ``LOOPS`` names (the stock loop only when neither does), less those
    ``SOLRACE_TEST_LOOPS`` leaves out."""
    marker = item.get_closest_marker("loops")
    wanted = marker.args if marker else getattr(getattr(item, "module", None), "LOOPS",
                                                ("asyncio",))
    only = os.environ.get("SOLRACE_TEST_LOOPS")
    chosen = {name: LOOP_FACTORIES[name] for name in wanted if name in LOOP_FACTORIES
              and (not only or name in only.split(","))}
    return chosen or {"asyncio": asyncio.new_event_loop}


@pytest.fixture(scope="session")
def redis_proc() -> Iterator[RedisProcess]:
    proc = RedisProcess(appendonly=True)
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[RedisClusterProcess]:
    proc = RedisClusterProcess(masters=3, replicas=1)
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()


@pytest.fixture
def redis_url(request: pytest.FixtureRequest) -> str:
    if getattr(request, "param", "single") == "cluster":
        cluster: RedisClusterProcess = request.getfixturevalue("redis_cluster")
        for node in cluster.nodes:  # a fault test may have left a node down
            if not node.running:
                node.restart()
        cluster.wait_ok()
        cluster.flushall()
        return cluster.url
    redis_proc: RedisProcess = request.getfixturevalue("redis_proc")
    if not redis_proc.running:  # a test killed the shared server after all: bring it back
        redis_proc.restart()
    client = redis.Redis.from_url(redis_proc.url)
    try:
        client.flushall()
    finally:
        client.close()
    return redis_proc.url


@pytest.fixture
def private_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisProcess]:
    proc = RedisProcess(data_dir=tmp_path_factory.mktemp("redis"), appendfsync="always")
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()
