"""URLs in the server's configuration: which URL may be advertised to clients as a race's home,
the default one of a listener, and any URL with its password masked for printing.

Kept apart from :mod:`.config` (which re-exports :func:`listener_url` and :func:`mask_url`):
these are plain functions of a string, while ``config`` is the table of settings.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit

__all__ = ["ADVERTISE_OFF", "MASK", "advertise_problem", "listener_url", "mask_url"]

MASK = "***"

#: ``--advertise-url`` values that mean "advertise nothing" (races created here get no home).
ADVERTISE_OFF = ("off", "none")


def advertise_problem(url: str) -> str | None:
    """Why ``url`` cannot be advertised to clients as a race's home (None when it can): a
    ws:// or wss:// URL with a host, no user name or password, query or fragment."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises on a malformed port
    except ValueError as exc:
        return f"advertise_url is not a URL: {exc}"
    if parts.scheme not in ("ws", "wss") or not parts.hostname:
        return f"advertise_url must be ws://HOST[:PORT][/PATH] or wss://…, not {url!r}"
    if parts.username is not None or parts.query or parts.fragment or len(url) > 256:
        return "advertise_url must carry no user name, password, query or fragment (and " \
               "at most 256 characters)"
    return None


def listener_url(host: str, port: int) -> str:
    """The default advertised URL of a process listening on ``host:port``: ws://HOST:PORT,
    or "" when ``host`` is a wildcard (0.0.0.0, ::, empty), which names no address a client
    could use."""
    if host in ("", "0.0.0.0", "::", "*"):
        return ""
    return f"ws://[{host}]:{port}" if ":" in host else f"ws://{host}:{port}"


def mask_url(url: str) -> str:
    """``url`` with any password (in the userinfo or a ``password=`` query) shown as ``***``."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if parts.password is not None:
        userinfo, _, hostinfo = netloc.rpartition("@")
        user = userinfo.partition(":")[0]
        netloc = f"{user}:{MASK}@{hostinfo}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(key.lower() == "password" for key, _ in pairs):
            pairs = [(k, MASK if k.lower() == "password" else v) for k, v in pairs]
            query = urlencode(pairs, safe="*")
    if (netloc, query) == (parts.netloc, parts.query):
        return url
    # Rebuilt by hand: urlunsplit would drop the empty authority of unix:///path URLs.
    rebuilt = f"{parts.scheme}://{netloc}{parts.path}"
    if query:
        rebuilt += f"?{query}"
    if parts.fragment:
        rebuilt += f"#{parts.fragment}"
    return rebuilt
