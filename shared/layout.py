"""Where every pile lives: ids (``t3``, ``f12``, ``s``, ``w``) and index ranges.

Piles are numbered in one fixed order — foundations, tableau, reserve, cells, stock, waste —
so a position is a flat list of piles and a move names its piles by id. Pile ids are 1-based in
text, as players count.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from functools import cache

from solrace.shared.rules import Rules


class PileKind(enum.Enum):
    FOUNDATION = "f"
    TABLEAU = "t"
    RESERVE = "r"
    CELL = "c"
    STOCK = "s"
    WASTE = "w"


@dataclass(frozen=True, slots=True)
class Layout:
    rules: Rules
    ids: tuple[str, ...]  # index -> pile id
    kinds: tuple[PileKind, ...]  # index -> kind
    index: dict[str, int]  # pile id -> index
    foundations: range
    tableau: range
    reserve: range
    cells: range
    stock: int  # -1 when the variant has no stock
    waste: int  # -1 when the variant has no waste
    f_start: tuple[int, ...]  # per foundation index: rank an empty foundation accepts
    f_step: tuple[int, ...]
    f_same_suit: tuple[bool, ...]

    @property
    def size(self) -> int:
        return len(self.ids)


@cache
def layout_of(rules: Rules) -> Layout:
    ids: list[str] = []
    kinds: list[PileKind] = []
    f_start: list[int] = []
    f_step: list[int] = []
    f_same: list[bool] = []

    def add(kind: PileKind, count: int) -> range:
        start = len(ids)
        for i in range(count):
            single = kind in (PileKind.STOCK, PileKind.WASTE)
            ids.append(kind.value if single else f"{kind.value}{i + 1}")
            kinds.append(kind)
        return range(start, len(ids))

    for group in rules.foundations:
        f_start += [group.start_rank] * group.count
        f_step += [group.step] * group.count
        f_same += [group.same_suit] * group.count
    foundations = add(PileKind.FOUNDATION, sum(g.count for g in rules.foundations))
    tableau = add(PileKind.TABLEAU, rules.tableau.piles)
    reserve = add(PileKind.RESERVE, len(rules.reserve))
    cells = add(PileKind.CELL, rules.cells)
    stock = add(PileKind.STOCK, 1 if rules.draw else 0)
    waste = add(PileKind.WASTE, 1 if rules.draw else 0)
    pad = len(ids) - len(f_start)  # non-foundation piles: no foundation rule
    f_start += [0] * pad
    f_step += [0] * pad
    f_same += [False] * pad
    return Layout(
        rules=rules,
        ids=tuple(ids),
        kinds=tuple(kinds),
        index={pid: i for i, pid in enumerate(ids)},
        foundations=foundations,
        tableau=tableau,
        reserve=reserve,
        cells=cells,
        stock=stock.start if stock else -1,
        waste=waste.start if waste else -1,
        f_start=tuple(f_start),
        f_step=tuple(f_step),
        f_same_suit=tuple(f_same),
    )
