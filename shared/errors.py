"""Errors of the core, each with a stable machine ``code`` and a human ``reason``.

Hierarchy::

    SolraceError                 code         raised when
    ├── NotationError            bad_notation a move or position text does not parse
    ├── OptionError              bad_option   unknown variant, unknown option or value
    ├── IllegalMove              illegal_move the rules forbid the move; ``detail`` says why:
                                              no_such_pile, empty_source, not_available,
                                              does_not_fit, bad_count, no_stock, no_redeal,
                                              game_over
    ├── NoLegalMove              no_legal_move a source-only move (``t3``) has no legal move
    └── CannotFinish             cannot_finish ``finish`` while the rest still needs choices

The server maps ``code`` onto its wire error codes one to one.
"""

from __future__ import annotations


class SolraceError(Exception):
    code = "error"

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class NotationError(SolraceError, ValueError):
    code = "bad_notation"


class OptionError(SolraceError, ValueError):
    code = "bad_option"


class IllegalMove(SolraceError):
    """The move breaks a rule; the game is untouched."""

    code = "illegal_move"

    def __init__(self, detail: str, reason: str) -> None:
        super().__init__(reason)
        self.detail = detail


class NoLegalMove(SolraceError):
    """A move named by its source only (``t3``, ``w``) has no legal move from that source."""

    code = "no_legal_move"


class CannotFinish(SolraceError):
    """``finish`` asked while the rest of the game does not play itself (``reason`` says why)."""

    code = "cannot_finish"
