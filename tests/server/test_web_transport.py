"""The browser's transport against a real server and Redis: the page and its assets over
HTTP on the websocket port, and the JSON encoding negotiated by websocket subprotocol."""

from __future__ import annotations

import asyncio
import fnmatch
import json
import tomllib
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import msgpack
import pytest
from harness import http_url, race_info, running_server, ws_url
from solrace.shared import protocol as P
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosedError

pytestmark = pytest.mark.timeout(60)
ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "client" / "web"


def _get(url: str) -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return resp.status, dict(resp.headers.items()), resp.read()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers.items()), err.read()


async def get(url: str) -> tuple[int, dict[str, str], bytes]:
    return await asyncio.to_thread(_get, url)


def web_files() -> list[Path]:
    return sorted(p for p in WEB.rglob("*") if p.is_file() and p.name != "package.json")


async def test_the_page_and_every_asset_are_served(redis_url: str) -> None:
    async with running_server(redis_url) as server:
        status, headers, body = await get(http_url(server, "/"))
        assert status == 200 and headers["Content-Type"].startswith("text/html")
        assert body == (WEB / "index.html").read_bytes()
        assert b'<script type="module" src="/app.js">' in body
        for path in web_files():
            rel = "/" + path.relative_to(WEB).as_posix()
            status, headers, body = await get(http_url(server, rel + "?v=1"))
            assert status == 200, rel
            assert body == path.read_bytes(), rel
            want = {".js": "text/javascript", ".css": "text/css", ".html": "text/html",
                    ".svg": "image/svg+xml", ".png": "image/png",
                    ".webmanifest": "application/manifest+json"}
            assert headers["Content-Type"].startswith(want[path.suffix]), rel
            assert headers["Content-Length"] == str(len(body))
        for bad in ("/nope.js", "/../pyproject.toml", "/package.json", "/pages/", "/%2e%2e/x"):
            status, _, _ = await get(http_url(server, bad))
            assert status == 404, bad
        status, _, body = await get(http_url(server, "/variants.json"))
        rows = json.loads(body)
        assert status == 200 and [r["name"] for r in rows] == [
            "sixes-and-sevens", "seven-by-five", "double-aces-and-kings", "unlimited",
            "forty-and-eight"]
        assert {"name": "draw", "values": ["1", "3"], "default": "1"}.items() <= \
            next(o for o in rows[3]["options"] if o["name"] == "draw").items()
        # the health endpoint and websockets on "/" are unchanged
        assert (await get(http_url(server, "/healthz")))[0] == 200
        async with connect(ws_url(server) + "/", compression=None) as ws:
            await ws.send(P.encode({"t": "ping", "id": 1}))
            assert msgpack.unpackb(await ws.recv())["code"] == "not_authenticated"


def test_every_web_file_is_package_data() -> None:
    """A normal (not editable) install must carry client/web: the globs cover every file."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    globs = config["tool"]["setuptools"]["package-data"]["solrace.client"]
    for path in web_files():
        rel = path.relative_to(ROOT / "client").as_posix()
        assert any(fnmatch.fnmatch(rel, g) and rel.count("/") == g.count("/") for g in globs), rel


class JsonSocket:
    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.ids = 0

    async def recv(self) -> dict[str, Any]:
        frame = await asyncio.wait_for(self.ws.recv(), 5)
        assert isinstance(frame, str), "a JSON connection got a binary frame"
        return json.loads(frame)

    async def request(self, t: str, **fields: Any) -> dict[str, Any]:
        self.ids += 1
        await self.ws.send(json.dumps({"t": t, "id": self.ids, **fields}))
        while True:
            msg = await self.recv()
            if msg.get("re") == self.ids:
                return msg


async def test_json_subprotocol_plays_a_race_with_seeds_as_strings(redis_url: str) -> None:
    async with running_server(redis_url) as server:
        url = ws_url(server)
        async with connect(url, subprotocols=["solrace.json.v1"], compression=None) as a, \
                connect(url, subprotocols=["chat", "solrace.json.v1"], compression=None) as b:
            assert a.subprotocol == b.subprotocol == "solrace.json.v1"
            ja, jb = JsonSocket(a), JsonSocket(b)
            # binary frames are refused on a JSON connection; the connection stays open
            await a.send(P.encode({"t": "ping", "id": 99}))
            err = await ja.recv()
            assert err["code"] == "bad_message" and "binary" in err["reason"]
            await a.send("{not json")
            assert (await ja.recv())["code"] == "bad_message"
            assert (await ja.request("ping"))["code"] == "not_authenticated"
            welcome = await ja.request("hello", v=1, name="alice")
            assert welcome["t"] == "welcome" and isinstance(welcome["server_time"], int)
            assert (await jb.request("hello", v=1, name="bob"))["t"] == "welcome"
            bad = await ja.request("race.create", variant="unlimited", seats=1)
            assert bad["code"] == "bad_option"
            race = (await ja.request("race.create", variant="unlimited"))["race"]
            await jb.request("race.join", code=race["code"])
            await ja.request("race.ready", race=race["race"])
            await jb.request("race.ready", race=race["race"])
            info = await race_info(redis_url, race["race"])
            for js in (ja, jb):
                while True:
                    e = await js.recv()
                    if e.get("k") == "start":
                        break
            assert e["view"]["piles"]["s"] == [24, []]
            # a redeal while the stock is full is never legal
            illegal = await ja.request("move", race=race["race"], seq=0, move="ws")
            assert illegal["code"] == "illegal_move" and illegal["detail"] == "no_redeal"
            ack = await ja.request("move", race=race["race"], seq=0, move="sw")
            assert ack["t"] == "ack" and ack["seq"] == 1
            await ja.request("resign", race=race["race"])
            await jb.request("resign", race=race["race"])
            while True:
                end = await jb.recv()
                if end.get("k") == "end":
                    break
            assert end["seed"] == str(info.seed), "the seed must be a decimal string in JSON"
            assert int(end["seed"]) == info.seed
        # a msgpack client on the same server is unaffected (no subprotocol confirmed)
        async with connect(url, compression=None) as c:
            assert c.subprotocol is None
            await c.send(json.dumps({"t": "ping", "id": 1}))
            assert msgpack.unpackb(await c.recv())["code"] == "bad_message"
        async with connect(url, subprotocols=["solrace.msgpack.v1"], compression=None) as d:
            assert d.subprotocol == "solrace.msgpack.v1"
            await d.send(P.encode({"t": "hello", "id": 1, "v": 1}))
            assert msgpack.unpackb(await d.recv())["t"] == "welcome"


async def test_json_frames_keep_the_size_limit(redis_url: str) -> None:
    async with running_server(redis_url) as server, connect(
            ws_url(server), subprotocols=["solrace.json.v1"], compression=None,
            max_size=None) as ws:
        await ws.send(json.dumps({"t": "ping", "id": 1, "x": "a" * 70000}))
        with pytest.raises(ConnectionClosedError):
            await asyncio.wait_for(ws.recv(), 5)
        assert ws.close_code == 1009
