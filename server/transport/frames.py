"""Websocket framing the server does itself (RFC 6455 section 5), sans-I/O: splitting the
client's byte stream into frames, unmasking the common one, and framing what the server sends.

Why not leave every byte to ``websockets``' parser: a client's request is one small, final,
masked text or binary frame, and its parser (a stack of generators, a frame object, an
assembler) costs several times what finding the frame's end and unmasking it does
(docs/performance.md, "Lean reading"). Everything else — control frames, fragments, reserved
bits, an unmasked frame, a frame over the size limit, a 64-bit length — is handed to
``websockets``' :class:`~websockets.server.ServerProtocol` as whole frames, so it answers,
checks and fails exactly as it would on its own. Because it only ever receives whole frames,
its parser is always between frames when the next one comes: nothing of its state needs to be
read.
"""

from __future__ import annotations

__all__ = ["FrameSplitter", "Piece", "frame_head", "unmask"]

#: What a whole data frame's first byte is when it is final, has no reserved bit and is text
#: (0x81) or binary (0x82): the only frames taken here.
TEXT_FIN, BINARY_FIN = 0x81, 0x82
TAKEN = (TEXT_FIN, BINARY_FIN)


def frame_head(length: int, text: bool) -> bytes:
    """The header of an unmasked, final data frame of ``length`` payload bytes (what a server
    writes before the payload; RFC 6455 5.2)."""
    first = TEXT_FIN if text else BINARY_FIN
    if length < 126:
        return bytes((first, length))
    if length < 65536:
        return bytes((first, 126)) + length.to_bytes(2, "big")
    return bytes((first, 127)) + length.to_bytes(8, "big")


def unmask(payload: bytes, key: bytes) -> bytes:
    """``payload`` XOR the repeated 4-byte ``key`` (RFC 6455 5.3), as one big-integer XOR:
    linear and done in C, without a per-byte Python loop."""
    n = len(payload)
    if n == 0:
        return b""
    reps = key * ((n + 3) // 4)
    return (int.from_bytes(payload, "little") ^ int.from_bytes(reps[:n], "little")).to_bytes(
        n, "little")


#: One result of :meth:`FrameSplitter.feed`: ``(message, text, raw)`` — a data message taken
#: here (``message``, with ``text``), or bytes for ``websockets``' parser (``raw``: whole frames,
#: or, once the splitter has given up, the rest of the stream). A plain tuple: one per frame.
Piece = tuple[bytes | None, bool, bytes | None]


class FrameSplitter:
    """Splits a client's stream (after the handshake) into frames.

    A whole, final, masked text or binary frame within ``limit`` payload bytes, while no
    fragmented message is open, is unmasked here (a ``message`` piece); any other whole frame
    goes to ``websockets`` as it is (a ``raw`` piece); a frame not yet whole waits here. A
    header announcing more than ``limit`` or a 64-bit length gives the rest of the stream to
    ``websockets`` for good (``given_up``: it fails such a frame with 1009)."""

    __slots__ = ("given_up", "limit", "open_fragment", "tail")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.tail = b""
        self.given_up = False
        #: a fragmented data message has begun and not ended: its frames (and any data frame
        #: meanwhile, an error websockets reports) go to websockets
        self.open_fragment = False

    def one(self, data: bytes) -> bytes | None:
        """The unmasked payload when ``data`` is exactly one whole frame that :meth:`feed`
        would take as a message (text when ``data[0] == TEXT_FIN``) and nothing waits here —
        the usual read of a request, without building a list; else None (then :meth:`feed`).
        """
        n = len(data)
        if self.tail or self.given_up or self.open_fragment or n < 6 or n > 131:
            return None
        b1 = data[1]
        if data[0] not in TAKEN or b1 < 0x80 or (b1 & 0x7F) != n - 6 or n - 6 > self.limit:
            return None
        return unmask(data[6:], data[2:6])

    def feed(self, data: bytes) -> list[Piece]:
        if self.given_up:
            return [(None, False, data)] if data else []
        buf = self.tail + data if self.tail else data
        self.tail = b""
        out: list[Piece] = []
        end, pos, limit = len(buf), 0, self.limit
        while end - pos >= 2:
            b0, b1 = buf[pos], buf[pos + 1]
            size = b1 & 0x7F
            head = pos + 2
            if size >= 126:
                if size == 127:  # never a request of ours: websockets decides
                    return self._give_up(out, buf, pos)
                if end - pos < 4:
                    break
                size = (buf[pos + 2] << 8) | buf[pos + 3]
                head = pos + 4
            if size > limit:
                return self._give_up(out, buf, pos)
            masked = b1 & 0x80
            if masked:
                head += 4
            stop = head + size
            if stop > end:
                break
            if b0 in TAKEN and masked and not self.open_fragment:
                out.append((unmask(buf[head:stop], buf[head - 4:head]), b0 == TEXT_FIN,
                            None))
            else:
                opcode = b0 & 0x0F
                if opcode < 8:  # a data frame (control frames never split a message)
                    self.open_fragment = not (b0 & 0x80)
                out.append((None, False, buf[pos:stop]))
            pos = stop
        if pos < end:
            self.tail = buf[pos:]
        return out

    def _give_up(self, out: list[Piece], buf: bytes, pos: int) -> list[Piece]:
        self.given_up = True
        out.append((None, False, buf[pos:]))
        return out

    def rest(self) -> bytes:
        """What waits here (the start of a frame): for websockets at the end of the stream."""
        rest, self.tail = self.tail, b""
        self.given_up = True
        return rest
