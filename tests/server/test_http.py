"""``/healthz`` and ``/metrics`` on the websocket port, against a real server and Redis."""

from __future__ import annotations

import asyncio
import re
import urllib.error
import urllib.request

import pytest
from harness import Racer, clients, http_url, race_info, running_server, start_race, ws_url
from solrace.client.library import ClientError
from solrace.server.ops.redisproc import RedisProcess

pytestmark = pytest.mark.timeout(60)

_SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$")


def _get(url: str) -> tuple[int, list[tuple[str, str]], str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return resp.status, resp.headers.items(), resp.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.headers.items(), err.read().decode(errors="replace")


async def get(url: str) -> tuple[int, list[tuple[str, str]], str]:
    """An HTTP GET in a thread, so the in-process server keeps running meanwhile."""
    return await asyncio.to_thread(_get, url)


def samples(text: str) -> dict[str, float]:
    """``name{labels}`` -> value for every sample line of Prometheus text."""
    out: dict[str, float] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        match = _SAMPLE.match(line)
        assert match, f"not a sample line: {line!r}"
        out[match.group(1) + (match.group(2) or "")] = float(match.group(3))
    return out


async def test_healthz_follows_redis(private_redis: RedisProcess) -> None:
    async with running_server(private_redis.url) as server:
        status, _, body = await get(http_url(server, "/healthz"))
        assert (status, body.strip()) == (200, "ok")
        await asyncio.to_thread(private_redis.kill)
        status, _, body = await get(http_url(server, "/healthz"))
        assert status == 503, body
        assert "redis" in body
        await asyncio.to_thread(private_redis.restart)
        status, _, _ = await get(http_url(server, "/healthz"))
        assert status == 200
        async with clients(ws_url(server), "alice") as (alice,):  # and it serves again
            assert (await alice.request("ping"))["t"] == "pong"


async def test_healthz_is_503_while_redis_is_down_with_clients_connected(
    private_redis: RedisProcess,
) -> None:
    async with running_server(private_redis.url) as server, clients(
        ws_url(server), "alice"
    ) as (alice,):
        await asyncio.to_thread(private_redis.stop)
        status, _, _ = await get(http_url(server, "/healthz"))
        assert status == 503
        with pytest.raises(ClientError) as err:
            await alice.create_race("unlimited")
        assert err.value.code == "unavailable"
        with pytest.raises(ClientError) as err:  # the connection still serves requests
            await alice.request("no.such.request")
        assert err.value.code == "unknown_type"


async def test_metrics_count_what_happens(redis_url: str) -> None:
    async with running_server(redis_url) as server:
        status, headers, body = await get(http_url(server, "/metrics"))
        assert status == 200
        content_types = [v for k, v in headers if k.lower() == "content-type"]
        assert len(content_types) == 1, f"Content-Type sent {len(content_types)} times"
        assert content_types[0].startswith("text/plain") and "0.0.4" in content_types[0]
        assert body.endswith("\n")
        families = set(re.findall(r"^# TYPE (solrace_\w+) (\w+)$", body, re.M))
        names = {name for name, _ in families}
        for name in ("solrace_connections", "solrace_messages_total", "solrace_errors_total",
                     "solrace_moves_total", "solrace_move_ack_seconds"):
            assert name in names, f"{name} missing from /metrics: {sorted(names)}"
        before = samples(body)

        cs, summary = await start_race(ws_url(server), redis_url, "unlimited", ["al", "bo"])
        try:
            rid = summary["race"]
            racer = Racer(cs[0], rid, (await race_info(redis_url, rid)).game())
            made = await racer.play(3)
            with pytest.raises(ClientError):
                await cs[0].move(rid, "t1t1")
            _, _, body = await get(http_url(server, "/metrics"))
            after = samples(body)
            key = 'solrace_moves_total{variant="unlimited"}'
            assert after[key] - before.get(key, 0) == made
            assert after["solrace_connections"] - before.get("solrace_connections", 0) == 2
            errors = [k for k in after if k.startswith("solrace_errors_total")]
            assert sum(after[k] - before.get(k, 0) for k in errors) >= 1
            count = "solrace_move_ack_seconds_count"
            assert after[count] - before.get(count, 0) >= made
        finally:
            for c in cs:
                await c.close()


async def test_other_paths_are_not_served_and_the_server_stays_up(redis_url: str) -> None:
    async with running_server(redis_url) as server:
        status, _, _ = await get(http_url(server, "/no/such/page"))
        assert 400 <= status < 500
        status, _, _ = await get(http_url(server, "/healthz?verbose=1"))
        assert status == 200
        async with clients(ws_url(server), "alice") as (alice,):
            assert (await alice.request("ping"))["t"] == "pong"


def _raw(host: str, port: int, request_line: str) -> bytes:
    """One HTTP request written by hand (any method), the whole answer read back."""
    import socket

    with socket.create_connection((host, port), timeout=5) as sock:
        sock.sendall(f"{request_line}\r\nHost: {host}\r\nContent-Length: 0\r\n\r\n".encode())
        out = b""
        while chunk := sock.recv(65536):
            out += chunk
    return out


async def test_only_get_and_head_are_answered_on_http_paths(redis_url: str) -> None:
    """The page, /healthz and /metrics are read-only: any other method gets 405 with
    ``Allow: GET, HEAD``; HEAD gets a GET's headers without the body."""
    async with running_server(redis_url) as server:
        host, port = http_url(server, "/").split("//", 1)[1].rstrip("/").split(":")
        for method in ("POST", "PUT", "DELETE", "TRACE", "FOO"):
            for path in ("/", "/healthz", "/app.js"):
                answer = await asyncio.to_thread(_raw, host, int(port), f"{method} {path} HTTP/1.1")
                head = answer.split(b"\r\n\r\n", 1)[0].decode()
                assert head.startswith("HTTP/1.1 405"), (method, path, head)
                assert "Allow: GET, HEAD" in head
        got = await asyncio.to_thread(_raw, host, int(port), "GET / HTTP/1.1")
        headed = await asyncio.to_thread(_raw, host, int(port), "HEAD / HTTP/1.1")
        get_head, get_body = got.split(b"\r\n\r\n", 1)
        head_head, head_body = headed.split(b"\r\n\r\n", 1)
        assert get_head.startswith(b"HTTP/1.1 200") and head_head.startswith(b"HTTP/1.1 200")
        assert get_body and head_body == b""
        length = [h for h in head_head.split(b"\r\n") if h.lower().startswith(b"content-length")]
        assert length == [b"Content-Length: %d" % len(get_body)]
