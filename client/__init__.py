"""solrace.client — the thin async client library and the ``solrace`` CLI."""

from solrace.client.library import Client, ClientError

__all__ = ["Client", "ClientError"]
