"""Text boards for the terminal, drawn from a *wire view* and nothing else.

The client never holds engine state: it renders exactly the dict the server (or
:func:`solrace.shared.views.view_of` locally) hands it, so a face-down or stock card cannot leak
through the renderer — it only ever sees counts for those. The one thing it looks up itself is
public: the variant's foundation groups (start rank, direction), to caption the foundations.

Every pile is labelled with its id (``f3``, ``t1``, ``r2``, ``c1``, ``s``, ``w``) because those
ids are what a player types (``t3t5``, ``wf2``). Boards are lists of lines so that several can be
put side by side (:func:`side_by_side`) for spectating a race; :func:`visible_width` measures
lines with ANSI colour codes in them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from solrace.shared.cards import RANKS, SUIT_SYMBOLS, SUITS
from solrace.shared.masking import MASKED
from solrace.shared.variants import VARIANTS, resolve

BACK = "▒▒"  # a face-down card
EMPTY = "--"  # an empty pile
CARD_WIDTH = 3  # "10♠", " K♥": every card cell is this wide
WASTE_CARDS = 6  # waste cards shown by default (the top ones)

_RED = "31"
_GREEN = "32"
_BLUE = "34"
_CYAN = "36"
_DIM = "2"
_BOLD = "1"
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_KINDS = "ftrcsw"  # the engine's pile order: foundations, tableau, reserve, cells, stock, waste
_STATUS_COLOUR = {"won": _GREEN, "lost": _RED, "resigned": _RED}

Pile = tuple[str, int, list[str]]  # (id, hidden count, visible cards bottom to top)


def paint(text: str, code: str, color: bool) -> str:
    """``text`` in ANSI SGR ``code`` when ``color``; unchanged otherwise."""
    return f"\x1b[{code}m{text}\x1b[0m" if color and code else text


def visible_width(line: str) -> int:
    """Terminal columns of ``line``, ignoring colour codes (suit symbols count as one)."""
    return len(_ANSI.sub("", line))


def pad(text: str, width: int, *, right: bool = False) -> str:
    """Pad to ``width`` visible columns (right-aligned when ``right``)."""
    fill = " " * max(0, width - visible_width(text))
    return fill + text if right else text + fill


def card_str(text: str, color: bool) -> str:
    """``"QS"`` → ``"Q♠"``, ``"TD"`` → ``"10♦"``; hearts and diamonds red when ``color``;
    a spectator's masked card (``"??"``: face up, but not every racer has seen it) as ``??``."""
    if text == MASKED:
        return paint(MASKED, _DIM, color)
    if len(text) != 2:
        raise ValueError(f"not a card: {text!r}")
    r, s = RANKS.find(text[0].upper()), SUITS.find(text[1].upper())
    if r < 0 or s < 0:
        raise ValueError(f"not a card: {text!r}")
    face = ("10" if RANKS[r] == "T" else RANKS[r]) + SUIT_SYMBOLS[s]
    return paint(face, _RED, color and s in (1, 2))


def side_by_side(blocks: Sequence[Sequence[str]], gap: int = 4) -> list[str]:
    """Blocks of lines next to each other, top-aligned, each padded to its widest line."""
    blocks = [b for b in blocks if b]
    if not blocks:
        return []
    widths = [max(visible_width(line) for line in b) for b in blocks]
    rows = max(len(b) for b in blocks)
    out = []
    for i in range(rows):
        cells = [pad(b[i] if i < len(b) else "", w) for b, w in zip(blocks, widths)]
        out.append((" " * gap).join(cells).rstrip())
    return out


# ------------------------------------------------------------------------------ the board


def _piles(view: Mapping[str, Any]) -> dict[str, list[Pile]]:
    """Piles grouped by kind letter, in number order (not relying on the dict's order)."""
    groups: dict[str, list[Pile]] = {k: [] for k in _KINDS}
    for pid, (hidden, cards) in view["piles"].items():
        groups.setdefault(pid[0], []).append((pid, int(hidden), list(cards)))
    for piles in groups.values():
        piles.sort(key=lambda p: int(p[0][1:] or 0))
    return groups


def _foundation_groups(view: Mapping[str, Any], count: int) -> list[tuple[int, str]]:
    """(size, caption) per foundation group, from the variant's public rules."""
    try:
        _, _, rules = resolve(view["variant"], view.get("options"))
    except (ValueError, KeyError):
        return [(count, "foundations")]  # a variant this client does not know
    out = []
    for g in rules.foundations:
        end = RANKS[g.end_rank - 1]
        way = "up" if g.step == 1 else "down"
        suit = "by suit" if g.same_suit else "any suit"
        out.append((g.count, f"{RANKS[g.start_rank - 1]} {way} to {end}, {suit}"))
    if sum(n for n, _ in out) != count:
        return [(count, "foundations")]
    return out


def _cell(text: str) -> str:
    return pad(text, CARD_WIDTH, right=True)


def _label(pid: str, color: bool) -> str:
    return paint(_cell(pid), _CYAN, color)


def _empty(color: bool) -> str:
    return paint(_cell(EMPTY), _DIM, color)


def _back(color: bool) -> str:
    return paint(_cell(BACK), _BLUE, color)


def _grid(piles: Sequence[Pile], color: bool, *, top_only: bool = False, gap: int = 1) -> list[str]:
    """Piles as labelled columns, bottom card first (``top_only``: the top card alone)."""
    columns: list[list[str]] = []
    for pid, hidden, cards in piles:
        if top_only:
            cells = [_cell(card_str(cards[-1], color))] if cards else [_back(color)] * bool(hidden)
        else:
            cells = [_back(color)] * hidden + [_cell(card_str(c, color)) for c in cards]
        columns.append([_label(pid, color), *(cells or [_empty(color)])])
    height = max(len(c) for c in columns)
    sep = " " * gap
    return [
        sep.join(c[i] if i < len(c) else " " * CARD_WIDTH for c in columns).rstrip()
        for i in range(height)
    ]


def _row(pile: Pile, color: bool, limit: int | None = None, *, mark_top: bool = False) -> str:
    """One pile on one line, bottom to top (the top card, the one that plays, on the right)."""
    pid, hidden, cards = pile
    shown = cards if limit is None or len(cards) <= limit else cards[len(cards) - limit :]
    parts = [_label(pid, color)]
    if hidden:
        parts.append(f"{_back(color)} {hidden}")
    if len(shown) < len(cards):
        parts.append(paint(f"(+{len(cards) - len(shown)}) …", _DIM, color))
    parts += [_cell(card_str(c, color)) for c in shown]
    if not hidden and not cards:
        parts.append(_empty(color))
    if mark_top and len(cards) > 1:
        parts.append(paint("← top", _DIM, color))
    return " ".join(parts)


def _header(view: Mapping[str, Any], color: bool) -> list[str]:
    name = view["variant"]
    title = VARIANTS[name].title if name in VARIANTS else name
    options = " ".join(f"{k}={v}" for k, v in view.get("options", {}).items())
    first = paint(title, _BOLD, color) + (f"  {paint(options, _DIM, color)}" if options else "")
    status = view["status"]
    second = (
        f"{paint(status, _STATUS_COLOUR.get(status, ''), color)} · "
        f"{view['moves']} move{'' if view['moves'] == 1 else 's'} · "
        f"{view['home']}/{view['total']} home"
    )
    return [first, second]


def board_lines(
    view: Mapping[str, Any], color: bool = False, *, waste_cards: int | None = WASTE_CARDS
) -> list[str]:
    """The board as lines: header, foundations and cells, tableau, reserve, stock and waste.

    Foundations show their top card (their sequence below it follows from the caption);
    tableau piles, reserves and cells show every card; the waste shows its top
    ``waste_cards`` cards (``None``: all) and how many lie below.
    """
    piles = _piles(view)
    lines = _header(view, color)
    blocks, at = [], 0
    if piles["f"]:
        for size, caption in _foundation_groups(view, len(piles["f"])):
            group = piles["f"][at : at + size]
            at += size
            blocks.append([paint(caption, _DIM, color), *_grid(group, color, top_only=True)])
    if piles["c"]:
        blocks.append([paint("free cells", _DIM, color), *_grid(piles["c"], color)])
    if blocks:
        lines += ["", *side_by_side(blocks, gap=4)]
    if piles["t"]:
        lines += ["", *_grid(piles["t"], color, gap=2)]
    if piles["r"]:
        lines += ["", paint("reserve (the top card, on the right, plays)", _DIM, color)]
        lines += [_row(p, color) for p in piles["r"]]
    if piles["s"] or piles["w"]:
        lines.append("")
        for p in piles["s"]:
            left = view.get("redeals_left", 0)
            redeals = "unlimited" if left is None else str(left)
            lines.append(f"{_row(p, color)}   {paint('redeals left: ' + redeals, _DIM, color)}")
        lines += [_row(p, color, waste_cards, mark_top=True) for p in piles["w"]]
    return lines


def render_view(
    view: Mapping[str, Any], color: bool = False, *, waste_cards: int | None = WASTE_CARDS
) -> str:
    """:func:`board_lines` joined into one string (no trailing newline)."""
    return "\n".join(board_lines(view, color, waste_cards=waste_cards))


__all__ = [
    "BACK",
    "EMPTY",
    "board_lines",
    "card_str",
    "pad",
    "paint",
    "render_view",
    "side_by_side",
    "visible_width",
]
