"""The baseline of ``bench/server.py``: a bare ``websockets`` echo server.

``python bench/echo.py [--host H] [--port P]`` prints ``echo: listening on ws://HOST:PORT`` and
sends every frame it receives straight back on the same connection, until SIGTERM/SIGINT.

Why this is the limit of our stack: it runs the same ``websockets`` version on the same event
loop (``--loop``: ``bench/server.py`` passes the servers' own; alone, the server's default,
uvloop where it can be imported) with the same connection settings as ``solrace.server.ops.app``
(no compression, same ``max_size`` and ``max_queue``), in its own fresh interpreter, and does
nothing else. A
move request answered by the solrace server costs at least one such receive and one send; the
ratio of solrace's throughput to this one is what the pipeline (decode, validate, engine,
Redis, ack, fan-out) costs on top of the transport.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import signal

from websockets.asyncio.server import ServerConnection, serve

MAX_FRAME = 64 * 1024  # as solrace.shared.protocol.MAX_FRAME (not imported: keep this process bare)


async def echo(ws: ServerConnection) -> None:
    """Send each frame back as it came; end quietly when the peer goes away."""
    with contextlib.suppress(Exception):
        async for message in ws:
            await ws.send(message)


async def main(host: str, port: int) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    async with serve(
        echo, host, port, max_size=MAX_FRAME, max_queue=16, compression=None,
        ping_interval=20, ping_timeout=20, close_timeout=2,
    ) as server:  # fmt: skip
        bound = server.sockets[0].getsockname()
        print(f"echo: listening on ws://{bound[0]}:{bound[1]}", flush=True)
        await stop.wait()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    # the server's default (solrace.server.ops.config.DEFAULT_LOOP), found without importing it
    default = "uvloop" if importlib.util.find_spec("uvloop") is not None else "asyncio"
    parser.add_argument("--loop", choices=("asyncio", "uvloop"), default=default)
    args = parser.parse_args()
    if args.loop == "uvloop":  # the same loop as the server under test (bench/server.py --loop)
        import uvloop

        uvloop.run(main(args.host, args.port))
    else:
        asyncio.run(main(args.host, args.port))
