"""The wire protocol: message types, validation and the msgpack codec (sans-I/O).

Every frame is one binary websocket message holding one msgpack map. Client requests carry
``t`` (type) and ``id`` (a client-chosen request id, echoed as ``re`` in the reply); server
frames carry ``t`` and, for replies, ``re``; race events carry ``race`` and ``v`` (version).
``docs/protocol.md`` is the contract; this package is its executable form, one module per job:

* :mod:`.wire` — versions, error codes, :class:`ProtocolError`, the codec and subprotocols;
* :mod:`.requests` — the game and race requests, frozen dataclasses validated on construction
  (h11's events are the model);
* :mod:`.accounts` — the account requests;
* :mod:`.messages` — :func:`parse_request` (a decoded map to a request), replies, errors and
  race events as racers see them;
* :mod:`.frames` — the move path's frames (progress event, ack, rival event) joined from
  packed parts, byte for byte what the codec gives for the same dicts.

Everything is re-exported here: callers write ``from solrace.shared import protocol as P`` and
``P.MakeMove``, ``P.decode_request(data)``.
"""

from __future__ import annotations

from solrace.shared.protocol.accounts import (
    ACCOUNT_REQUESTS,
    MAX_PASSWORD,
    SESSION_ID_RE,
    ChangePassword,
    DeleteAccount,
    Login,
    Logout,
    Register,
    RevokeSession,
    Sessions,
)
from solrace.shared.protocol.frames import ack_frame, event_frame, progress_body
from solrace.shared.protocol.messages import (
    SPECTATOR_ONLY,
    ack_reply,
    decode_request,
    error,
    last_event,
    parse_request,
    racer_event,
    reply,
    request_types,
)
from solrace.shared.protocol.requests import (
    BOT_STRENGTHS,
    CLIENT_RE,
    CODE_RE,
    DATE_RE,
    MAX_BOTS,
    MAX_INT,
    MAX_POOL_WAIT,
    NAME_RE,
    RACE_ID_RE,
    SEED_MAX,
    Autoplay,
    CreateRace,
    DailyInfo,
    DailyStart,
    Finish,
    Hello,
    Hint,
    JoinRace,
    Leaderboard,
    LeaveRace,
    Legal,
    LiveRaces,
    MakeMove,
    MyRaces,
    Ping,
    PracticeStart,
    Profile,
    QuickCancel,
    QuickPair,
    RaceRequest,
    Ready,
    Rematch,
    Request,
    RequestId,
    Resign,
    SeqRequest,
    Sync,
    Unwatch,
    Watch,
    check_client,
    check_date,
    check_int,
)
from solrace.shared.protocol.wire import (
    ERROR_CODES,
    JSON_SUBPROTOCOL,
    MAX_FRAME,
    MSGPACK_SUBPROTOCOL,
    PROTOCOL_VERSION,
    SUBPROTOCOLS,
    SUPPORTED_VERSIONS,
    Codec,
    ProtocolError,
    batch_frame,
    codec_for,
    decode,
    encode,
    select_subprotocol,
    unbatch,
)

__all__ = [
    "ACCOUNT_REQUESTS", "BOT_STRENGTHS", "CLIENT_RE", "CODE_RE", "DATE_RE", "ERROR_CODES",
    "JSON_SUBPROTOCOL", "MAX_BOTS", "MAX_FRAME", "MAX_INT", "MAX_PASSWORD", "MAX_POOL_WAIT",
    "MSGPACK_SUBPROTOCOL", "NAME_RE", "PROTOCOL_VERSION", "RACE_ID_RE", "SEED_MAX",
    "SESSION_ID_RE", "SPECTATOR_ONLY", "SUBPROTOCOLS", "SUPPORTED_VERSIONS", "Autoplay",
    "ChangePassword", "Codec", "CreateRace", "DailyInfo", "DailyStart", "DeleteAccount",
    "Finish", "Hello", "Hint", "JoinRace", "Leaderboard", "LeaveRace", "Legal", "LiveRaces",
    "Login", "Logout", "MakeMove", "MyRaces", "Ping", "PracticeStart", "Profile",
    "ProtocolError", "QuickCancel", "QuickPair", "RaceRequest", "Ready", "Register", "Rematch",
    "Request", "RequestId", "Resign", "RevokeSession", "SeqRequest", "Sessions", "Sync",
    "Unwatch", "Watch", "ack_frame", "ack_reply", "batch_frame", "check_client", "check_date",
    "check_int", "codec_for", "decode", "decode_request", "encode", "error", "event_frame",
    "last_event", "parse_request", "progress_body", "racer_event", "reply", "request_types",
    "select_subprotocol", "unbatch",
]
