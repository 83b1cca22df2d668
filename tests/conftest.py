"""Fixtures for tests against a real Redis-protocol server.

Every test that needs Redis gets a private server started by this suite on a free loopback
port (the ``redis-server``/``valkey-server`` that
:func:`solrace.server.redisproc.find_redis_server` finds), never the machine's shared 6379:

* ``redis_proc`` (session): one server for the whole run, AOF on, temp data dir.
* ``redis_url`` (function): that server's URL, after ``FLUSHALL`` so each test starts empty.
* ``private_redis`` (function): a server of the test's own, for tests that stop, kill or
  restart Redis (``appendfsync always`` so an acknowledged write survives a SIGKILL).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis
from solrace.server.redisproc import RedisProcess


@pytest.fixture(scope="session")
def redis_proc() -> Iterator[RedisProcess]:
    proc = RedisProcess(appendonly=True)
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()


@pytest.fixture
def redis_url(redis_proc: RedisProcess) -> str:
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
