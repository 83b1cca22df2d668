"""Hub (un)subscribes while the pub/sub connection is being remade (Hub._while_reconnecting).

After a Redis restart the hub's reader task and a joining player's SUBSCRIBE can both be in
redis-py's on-demand ``connect``; the loser fails on the half-made connection. That must be
retried, and reported as an outage (never ``internal``) only when the connection stays down.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError
from solrace.server.fanout import hub as hub_module
from solrace.server.fanout.hub import Hub
from solrace.server.ops.faults import is_outage, is_store_error


class FlakyPubSub:
    """A PubSub whose first ``failures`` calls raise ``exc`` with the connection down; the
    connection is up from the next call on."""

    def __init__(self, failures: int, exc: Exception, up: bool = False) -> None:
        self.failures = failures
        self.exc = exc
        self.calls: list[tuple[str, str]] = []
        self.connection = SimpleNamespace(is_connected=up)

    async def _call(self, name: str, channel: str) -> None:
        self.calls.append((name, channel))
        if len(self.calls) <= self.failures:
            raise self.exc
        self.connection.is_connected = True

    async def subscribe(self, channel: str) -> None:
        await self._call("subscribe", channel)

    async def unsubscribe(self, channel: str) -> None:
        await self._call("unsubscribe", channel)


def _hub(pubsub: Any) -> Hub:
    return Hub(SimpleNamespace(pubsub=lambda: pubsub), "p1")  # type: ignore[arg-type]


HALF_MADE = AttributeError("'NoneType' object has no attribute 'writelines'")


async def test_a_subscribe_on_a_half_made_connection_is_retried() -> None:
    pubsub = FlakyPubSub(2, HALF_MADE)
    await _hub(pubsub)._subscribe("sr:player:{x}")
    assert pubsub.calls == [("subscribe", "sr:player:{x}")] * 3


async def test_an_unsubscribe_on_a_dropped_connection_is_retried() -> None:
    pubsub = FlakyPubSub(1, RedisConnectionError("Connection closed by server."))
    await _hub(pubsub)._unsubscribe("sr:race:{r}")
    assert len(pubsub.calls) == 2


async def test_a_connection_that_stays_down_is_an_outage(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hub_module, "RESUBSCRIBE_WITHIN", 0.2)
    pubsub = FlakyPubSub(10**6, HALF_MADE)
    with pytest.raises(RedisConnectionError) as caught:
        await _hub(pubsub)._subscribe("sr:player:{x}")
    assert is_store_error(caught.value) and is_outage(caught.value)
    assert caught.value.__cause__ is HALF_MADE
    assert 2 <= len(pubsub.calls) <= 10  # retried at RESUBSCRIBE_PAUSE, not spun


async def test_a_store_error_past_the_deadline_is_raised_as_it_is(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hub_module, "RESUBSCRIBE_WITHIN", 0.1)
    refused = RedisConnectionError("Error 111 connecting")
    with pytest.raises(RedisConnectionError) as caught:
        await _hub(FlakyPubSub(10**6, refused))._subscribe("sr:race:{r}")
    assert caught.value is refused


async def test_a_bug_on_a_live_connection_is_not_retried() -> None:
    pubsub = FlakyPubSub(1, TypeError("bad channel"), up=True)
    with pytest.raises(TypeError):
        await _hub(pubsub)._subscribe("sr:race:{r}")
    assert len(pubsub.calls) == 1
