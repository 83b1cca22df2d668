"""The websocket transport on public APIs only: our own :class:`asyncio.Protocol` per
connection driving ``websockets``' sans-I/O :class:`~websockets.server.ServerProtocol`
(:mod:`.connection`), the listener (:mod:`.server`) and the framing done here (:mod:`.frames`)."""

from solrace.server.transport.connection import WsConnection
from solrace.server.transport.frames import FrameSplitter, frame_head
from solrace.server.transport.server import WsServer, serve

__all__ = ["FrameSplitter", "WsConnection", "WsServer", "frame_head", "serve"]
