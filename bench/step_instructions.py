"""Instructions per call of single steps of the move path, counted by valgrind (cachegrind).

    python bench/step_instructions.py [STEP ...] [--calls N]

Each step is run ``100`` and ``100 + N`` times in two interpreters under valgrind; the
difference of the two counts over N is the step's instructions per call, exact and repeatable
whatever else the machine runs (it includes the loop's ~800 instructions of calling a Python
function). Steps (what the server does once per move):

* ``parse`` — a ``move`` frame decoded and parsed into its request (``protocol.decode`` and
  ``parse_request``);
* ``pack`` — the move script's call packed as RESP (its arguments as the store passed them
  before the game's constants were kept encoded);
* ``pack-encoded`` — the same, with the constants as bytes (what ``append_move`` passes now);
* ``result`` — the script's reply read into a ``ScriptResult`` and its four integers;
* ``write-websockets`` — one binary frame written through ``websockets`` (frame object,
  serializer, write list, ``send_data``) to a transport that drops it;
* ``write-direct`` — the same frame through ``WsConnection.write_message``'s framing;
* ``read-websockets`` / ``read-lean`` — one move frame (masked, binary) received by a
  ``WsConnection``: through websockets' parser (``receive_data``, its parser generators,
  ``events_received``, the frame object), or split by ``WsConnection.data_received``
  (docs/performance.md, "Lean reading");
* ``loop-rt`` — the floor under ``batch-1``: one awaited PING round trip to the same Redis
  through a bare protocol (a write, the loop's iterations, ``data_received`` resolving the
  future, the task's wake-up);
* ``batch-1`` / ``batch-8`` — one batch of 1 or 8 script calls through the
  ``ScriptBatcher`` to a private Redis (another process, not counted), each awaited: the
  event loop's iterations, the batch task, the write, the replies (``--calls 300`` is
  plenty: a batch costs hundreds of thousands of instructions);
* ``move`` — the engine's work of one move in ``racemoves.py`` ``_move_locked``: ``cards_home``
  before, ``Game.push`` of the text, ``game.status``, ``views.advance``, ``cards_home`` and the
  move's text, the progress event packed, ``pointing.legal_texts``; over the moves of seeded
  random games of the load generator's mix (Unlimited, draw 1), one move per call, each game
  replayed from its deal as the server caches it (its legal moves asked once, by the board);
* ``push``, ``status``, ``view``, ``event``, ``legal`` — ``move`` cut into those steps (each the
  difference of two prefixes of it, so a saving that lands on the next move's work counts for
  the step that causes it, and the five add up to ``move``);
* ``ack``, ``rival`` — the two steps after ``move`` on the server: the ack built and encoded
  as a msgpack connection's is (``protocol.ack_frame``, joined from parts with the delta the
  ``event`` step packed; on an older checkout ``ack_reply`` and ``protocol.encode``), and the
  progress event as a rival's connection gets it (unpacked as the hub does, then
  ``racer_event``, the ``event`` frame built and encoded: ``protocol.event_frame``);
  ``event`` packs the progress event as the server does
  (``protocol.progress_body``; on an older checkout a ``Packer``); ``whole`` is
  ``parse`` + ``move`` + ``ack`` + ``rival``, the engine/protocol part of one move.

Before/after: run it once with the code as it is, once with ``PYTHONPATH`` naming a directory
whose ``solrace`` is another checkout (``git archive REV | tar -x -C DIR/solrace``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

#: A WsConnection receiving one move frame (``read-websockets``, ``read-lean``).
READ = """
import asyncio
import msgpack
from websockets.frames import Frame, Opcode
from websockets.protocol import OPEN
from websockets.server import ServerProtocol
from solrace.server.transport.connection import WsConnection
from solrace.server.transport.frames import FrameSplitter
loop = asyncio.new_event_loop()
asyncio.set_event_loop(loop)
p = ServerProtocol(max_size=64 * 1024)  # through a real handshake: its parser between frames
p.receive_data(b"GET / HTTP/1.1\\r\\nHost: x\\r\\nUpgrade: websocket\\r\\n"
               b"Connection: Upgrade\\r\\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\\r\\n"
               b"Sec-WebSocket-Version: 13\\r\\n\\r\\n")
p.send_response(p.accept(p.events_received()[0]))
p.data_to_send()
assert p.state is OPEN
class T:
    def write(self, data): pass
    def can_write_eof(self): return True
async def make():
    return WsConnection(None, p)
c = loop.run_until_complete(make())
c.transport = T()
got = []
c.set_sink(got.append)
payload = msgpack.packb({"t": "move", "id": 17, "race": "0123456789abcdef", "seq": 612,
                         "move": "t3f1"})
frame = Frame(Opcode.BINARY, payload).serialize(mask=True, extensions=[])
"""
#: The script batcher against a private Redis (``batch-1``, ``batch-8``): ``K`` calls a batch.
BATCH = """
import asyncio, atexit, tempfile
from pathlib import Path
from redis.asyncio import Redis
from solrace.server.ops.redisproc import RedisProcess
from solrace.server.store.batch import ScriptBatcher
rp = RedisProcess(data_dir=Path(tempfile.mkdtemp()), appendonly=False)
rp.start()
atexit.register(rp.stop)
loop = asyncio.new_event_loop()
asyncio.set_event_loop(loop)
r = Redis.from_url(rp.url)
script = r.register_script("return {'ok', 1, 2, 3, 4}")
b = ScriptBatcher(r)
keys = [b"sr:race:{0123456789abcdef}", b"sr:race:{0123456789abcdef}:log:p-abc",
        b"sr:race:{0123456789abcdef}:ev"]
args = [b"p-abc", 612, "t3f1", 5, "1", "", b"sr:race:{0123456789abcdef}",
        b"\\x87" + b"x" * 60, b"proc1"]
loop.run_until_complete(script(keys=[], args=[]))
async def main(n):  # counted: n batches of K calls, each awaited (Redis is another process)
    for _ in range(n):
        futs = [b.call(script, keys, args) for _ in range(K)]
        for fut in futs:
            await fut
"""

#: The floor under ``batch-1``: one PING to the same private Redis from a bare protocol that
#: resolves the awaited future in ``data_received`` (no parser, no packing, no batcher).
LOOP_RT = """
import asyncio, atexit, tempfile
from pathlib import Path
from solrace.server.ops.redisproc import RedisProcess
rp = RedisProcess(data_dir=Path(tempfile.mkdtemp()), appendonly=False)
rp.start()
atexit.register(rp.stop)
loop = asyncio.new_event_loop()
asyncio.set_event_loop(loop)
class P(asyncio.Protocol):
    fut = None
    def connection_made(self, t):
        self.t = t
    def data_received(self, data):
        self.fut.set_result(data)
t, p = loop.run_until_complete(loop.create_connection(P, "127.0.0.1", rp.port))
async def main(n):  # counted: n round trips, each awaited
    for _ in range(n):
        p.fut = loop.create_future()
        t.write(b"*1\\r\\n$4\\r\\nPING\\r\\n")
        await p.fut
"""

SETUP = {
    "parse": """
import msgpack
from solrace.shared import protocol as P
data = msgpack.packb({"t": "move", "id": 17, "race": "0123456789abcdef", "seq": 612,
                      "move": "t3f1"})
def f():
    P.parse_request(P.decode(data))
""",
    "pack": """
try:
    from solrace.server.store.resp import pack
except ImportError:
    from solrace.server.store.batch import pack
sha = b"a" * 40
keys = ["sr:race:{0123456789abcdef}", "sr:race:{0123456789abcdef}:log:p-abc",
        "sr:race:{0123456789abcdef}:ev"]
args = ["p-abc", 612, "t3f1", 5, "1", "", "sr:race:{0123456789abcdef}", b"\\x87" + b"x" * 60,
        "proc1"]
def f():
    pack(sha, keys, args)
""",
    "pack-encoded": """
from solrace.server.store.resp import pack
sha = b"a" * 40
keys = [b"sr:race:{0123456789abcdef}", b"sr:race:{0123456789abcdef}:log:p-abc",
        b"sr:race:{0123456789abcdef}:ev"]
args = [b"p-abc", 612, "t3f1", 5, "1", "", b"sr:race:{0123456789abcdef}",
        b"\\x87" + b"x" * 60, b"proc1"]
def f():
    pack(sha, keys, args)
""",
    "result": """
from solrace.server.store.records import ScriptResult
raw = [b"ok", 1234, 56000, 1, 1733000000000]
def f():
    version, elapsed, unfinished, _ = map(int, ScriptResult.of(raw).values)
""",
    "write-websockets": """
from websockets.protocol import OPEN
from websockets.server import ServerProtocol
p = ServerProtocol()
p.state = OPEN
class T:
    def write(self, data): pass
t = T()
frame = b"\\x8a" + b"x" * 180
def f():
    p.send_binary(frame)
    for data in p.data_to_send():
        if data:
            t.write(data)
""",
    "write-direct": READ + """
frame = b"\\x8a" + b"x" * 180
def f():  # WsConnection.write_message: the state's check, the framing, the write
    c.write_message(frame)
""",
    "read-websockets": READ + """
c._feed(frame)
assert got == [payload]
def f():  # websockets' parser: receive_data, events_received, the frame to the sink
    c._feed(frame)
    got.clear()
""",
    "read-lean": READ + """
c._splitter = FrameSplitter(64 * 1024)
c.data_received(frame)
assert got == [payload]
def f():  # WsConnection.data_received's own frame split
    c.data_received(frame)
    got.clear()
""",
    "batch-1": "K = 1" + BATCH,
    "loop-rt": LOOP_RT,
    "batch-8": "K = 8" + BATCH,
}

# The engine's part of a move (see ``move`` above); UPTO: the number of its steps run.
MOVE = """
import random
import msgpack
from solrace.shared import protocol as P
from solrace.shared.engine import Game, Status
from solrace.shared.pointing import legal_texts
from solrace.shared.views import advance, view_of
from solrace.server.session.fastmoves import ack_reply
_pack = msgpack.Packer(use_bin_type=True).pack
try:  # the frames from parts; an older checkout packs the dicts
    from solrace.shared.protocol import ack_frame, event_frame, progress_body
except ImportError:
    ack_frame = event_frame = progress_body = None
UPTO = {upto}
moves = []
seed = 0
while len(moves) < {total}:  # the same games whatever the number of calls
    seed += 1
    g = Game("unlimited", {{"draw": "1"}}, seed)
    rng = random.Random(seed)
    texts = []
    while len(texts) < 1000 and g.status is Status.PLAYING:
        legal = g.legal_moves()
        if not legal:
            break
        texts.append(g.push(rng.choice(legal)).text())
    e = [Game("unlimited", {{"draw": "1"}}, seed), None]
    e[1] = view_of(e[0]).wire()
    legal_texts(e[0])
    moves += [(e, t) for t in texts]
it = iter(moves)
def f():
    e, text = next(it)
    game = e[0]
    before_home = game.cards_home
    move = game.push(text)
    if UPTO < 2:
        return
    status = game.status
    result = status.value if status in (Status.WON, Status.LOST) else ""
    if UPTO < 3:
        return
    after, change = advance(game, e[1])
    e[1] = after
    if UPTO < 4:
        return
    home, done = game.cards_home, move.text()
    event = {{"k": "progress", "player": "p-abc", "home": home, "moves": len(game.moves),
             "move": done, "delta": change}}
    if result:
        event["result"] = result
    if progress_body is None:
        packed, pdelta = _pack(event), None
    else:
        packed, pdelta = progress_body(event)
    home > before_home
    if UPTO < 5:
        return
    legal = legal_texts(game)
    if UPTO < 6:
        return
    ack = {{"seq": len(game.moves), "delta": change, "v": 7 + len(game.moves),
            "elapsed": 12345, "status": status.value, "move": done, "moves": [done],
            "legal": legal}}
    if ack_frame is None:
        P.encode(ack_reply(1000 + len(game.moves), "0123456789abcdef", ack))
    else:
        ack_frame(1000 + len(game.moves), "0123456789abcdef", ack, pdelta)
    if UPTO < 7:
        return
    ev = msgpack.unpackb(packed, raw=False)
    ev["v"] = 7 + len(game.moves)
    if event_frame is None:
        ev = P.racer_event(ev)
        P.encode({{"t": "event", "race": "0123456789abcdef", **ev}})
    else:
        event_frame("0123456789abcdef", ev)
"""
MOVE_STEPS = ("push", "status", "view", "event", "legal", "ack", "rival")
MOVE_PART = 5  # ``move``: the first five steps (the engine's part, as counted before)


def move_setup(upto: int, calls: int) -> str:
    return MOVE.format(upto=upto, total=100 + calls)


def count(setup: str, calls: int) -> int:
    fd, out = tempfile.mkstemp(prefix="solrace-steps-")
    os.close(fd)
    try:
        if "async def main(" in setup:  # an event loop's work: one run of main(calls)
            code = f"{setup}\nloop.run_until_complete(main({calls}))\n"
        else:
            code = f"{setup}\nfor _ in range({calls}):\n    f()\n"
        done = subprocess.run(
            ["valgrind", "--tool=cachegrind", "--cache-sim=no", f"--cachegrind-out-file={out}",
             sys.executable, "-c", code],
            capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"})
        if done.returncode != 0:
            raise SystemExit(f"valgrind run failed:\n{done.stderr[-2000:]}")
        with open(out) as fh:
            for line in fh:
                if line.startswith("summary:"):
                    return int(line.split()[1])
        raise SystemExit("no summary in cachegrind's output")
    finally:
        os.unlink(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("steps", nargs="*", metavar="STEP",
                    help=f"steps to count (default: all of {', '.join(SETUP)})")
    ap.add_argument("--calls", type=int, default=2000, help="calls counted per step (2000)")
    args = ap.parse_args(argv)
    known = [*SETUP, "move", "whole", *MOVE_STEPS]
    unknown = [s for s in args.steps if s not in known]
    if unknown:
        ap.error(f"unknown step {unknown[0]!r}")
    prefixes: dict[int, float] = {}  # move steps 1..k -> instructions per call

    counted: dict[str, float] = {}

    def per_call(setup: str) -> float:
        if setup not in counted:
            counted[setup] = (count(setup, 100 + args.calls) - count(setup, 100)) / args.calls
        return counted[setup]

    def prefix(k: int) -> float:
        if k not in prefixes:
            prefixes[k] = per_call(move_setup(k, args.calls))
        return prefixes[k]

    for step in args.steps or list(SETUP):
        try:
            if step == "move":
                n = prefix(MOVE_PART)
            elif step == "whole":
                n = per_call(SETUP["parse"]) + prefix(len(MOVE_STEPS))
            elif step in MOVE_STEPS:
                k = MOVE_STEPS.index(step) + 1
                n = prefix(k) - (prefix(k - 1) if k > 1 else 0)
            else:
                n = per_call(SETUP[step])
        except SystemExit as exc:
            print(f"{step}: not counted ({str(exc).splitlines()[-1]})")
            continue
        print(f"{step}: {n:,.0f} instructions per call", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
