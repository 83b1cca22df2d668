"""Golden perft: legal-move counts to depth n, as python-chess checks its move generator.

``golden/perft.txt`` counts from the start of deals, ``golden/perft_positions.txt`` from
mid-game positions (stock drawn, redeals used, cells and spaces in play). A rule change, a
move that goes missing from ``legal_moves`` or an undo that does not restore the position
all change some count. If a change is intended, rerun ``golden/regenerate.py --write`` and
review the diff.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from functools import cache
from pathlib import Path

import pytest
from solrace.shared import VARIANTS, Game, options_text

GOLDEN = Path(__file__).resolve().parent / "golden"


def perft_levels(game: Game, depth: int) -> list[int]:
    """Legal move sequences of length 1..depth, through the public push/pop API."""
    counts = [0] * depth

    def walk(level: int) -> None:
        moves = game.legal_moves()
        counts[level] += len(moves)
        if level + 1 < depth:
            for m in moves:
                game.push(m)
                walk(level + 1)
                game.pop()

    before = game.position_text()
    walk(0)
    assert game.position_text() == before and not game.moves
    return counts


def golden_lines(name: str) -> list[list[str]]:
    lines = (GOLDEN / name).read_text().splitlines()
    return [line.split(" ", 3) for line in lines if line.strip() and not line.startswith("#")]


@cache
def start_table() -> dict[tuple[str, str, int], dict[int, int]]:
    table: dict[tuple[str, str, int], dict[int, int]] = defaultdict(dict)
    for line in golden_lines("perft.txt"):
        variant, options, seed, rest = line
        depth, count = map(int, rest.split())
        table[variant, options, int(seed)][depth] = count
    return table


def options_of(text: str) -> dict[str, str]:
    return dict(kv.split("=", 1) for kv in text.split(",") if kv and text != "-")


def test_golden_covers_every_option_set() -> None:
    configs = {(variant, options) for variant, options, _ in start_table()}
    want = {
        (name, options_text({o.name: val for o, val in zip(v.options, combo)}))
        for name, v in VARIANTS.items()
        for combo in itertools.product(*(o.values for o in v.options))
    }
    assert configs == want
    assert {(line[0], line[1]) for line in golden_lines("perft_positions.txt")} == want


@pytest.mark.parametrize(
    ("variant", "options", "seed"), sorted(start_table()), ids=lambda x: str(x)
)
def test_perft_from_the_deal(variant: str, options: str, seed: int) -> None:
    want = start_table()[variant, options, seed]
    assert sorted(want) == list(range(1, len(want) + 1))
    game = Game(variant, options_of(options), seed)
    assert perft_levels(game, len(want)) == [want[d] for d in sorted(want)]


@pytest.mark.parametrize(
    "line", golden_lines("perft_positions.txt"), ids=lambda x: f"{x[0]}-{x[3][:24]}"
)
def test_perft_from_a_position(line: list[str]) -> None:
    variant, options, counts, position = line
    want = [int(c) for c in counts.split(",")]
    game = Game.from_position(variant, options_of(options), position)
    assert game.position_text() == position
    assert perft_levels(game, len(want)) == want
