"""Roles on accounts: who may moderate, who may read the audit log.

Why on the account and read on every request: a role is granted or revoked by the operator
(``solrace-server admin``), never over the protocol, and a revoke must take effect at once on
every server process, so nothing caches it. ``admin`` includes ``moderator``.
"""

from __future__ import annotations

from solrace.shared.protocol import ProtocolError

ROLES = ("moderator", "admin")


def parse_roles(text: str | None) -> set[str]:
    """The roles an account's ``roles`` field grants (admin includes moderator)."""
    roles = {r for r in (text or "").split(",") if r in ROLES}
    if "admin" in roles:
        roles.add("moderator")
    return roles


def roles_text(roles: set[str]) -> str:
    return ",".join(r for r in ROLES if r in roles)


def require(account: dict[str, str] | None, role: str) -> None:
    """``forbidden`` unless the account (live, not banned) holds ``role``."""
    if account is None or account.get("deleted") or account.get("banned") \
            or role not in parse_roles(account.get("roles")):
        raise ProtocolError("forbidden", f"this needs the {role} role")


__all__ = ["ROLES", "parse_roles", "require", "roles_text"]
