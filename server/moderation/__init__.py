"""Moderation: roles, reports, moderator actions and their append-only audit log
(docs/fairplay.md)."""
