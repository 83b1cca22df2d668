"""Deals against ``docs/deals.md``: the vectors, the commitments and the reference code there.

Everything is read out of the document itself, so the published specification, its test
vectors and the engine cannot drift apart unnoticed.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from solrace.shared import VARIANTS, Game, card_text, commitment, deal, options_text
from solrace.shared.deal import deal_context
from solrace.shared.prng import seed_bytes
from solrace.shared.variants import resolve

DEALS_MD = Path(__file__).resolve().parents[2] / "docs" / "deals.md"
VECTOR_SEEDS = (0, 1, 2**64 - 1)
CONFIGS = [
    (name, {o.name: val for o, val in zip(v.options, combo)})
    for name, v in VARIANTS.items()
    for combo in itertools.product(*(o.values for o in v.options))
]


class Vector(NamedTuple):
    variant: str
    options: str
    seed: int
    position: str


@cache
def doc() -> str:
    return DEALS_MD.read_text()


def vectors() -> list[Vector]:
    out = []
    for block in re.findall(r"```deal\n(.*?)```", doc(), re.DOTALL):
        lines = block.strip().splitlines()
        head = dict(line.split(" ", 1) for line in lines[:3])
        out.append(Vector(head["variant"], head["options"], int(head["seed"]),
                          " ".join(lines[3:])))
    return out


def options_dict(text: str) -> dict[str, str]:
    return dict(kv.split("=", 1) for kv in text.split(",") if kv)


def reference_code() -> dict[str, Any]:
    """Run the Python block of section 7 and return its namespace."""
    m = re.search(r"## 7\. Reference implementation.*?```python\n(.*?)```", doc(), re.DOTALL)
    assert m, "docs/deals.md lacks its reference implementation"
    namespace: dict[str, Any] = {}
    exec(compile(m.group(1), "docs/deals.md", "exec"), namespace)
    return namespace


def reference_position(name: str, options: dict[str, str], seed: int) -> str:
    """The position text of a deal computed by the document's own code, written out here."""
    _, opts, rules = resolve(name, options)
    prefilled = [g.start_rank for g in rules.foundations for _ in range(g.count) if g.prefilled]
    sizes = [d + u for d, u in rules.tableau.deal] + list(rules.reserve)
    context = f"{name}|{','.join(f'{k}={opts[k]}' for k in sorted(opts))}"
    deal_fn: Callable[..., Any] = reference_code()["reference_deal"]
    foundations, piles, stock = deal_fn(seed, context, rules.decks, prefilled, sizes)

    def pile(cards: list[int], down: int = 0) -> str:
        texts = [card_text(c).lower() if i < down else card_text(c) for i, c in enumerate(cards)]
        return "".join(texts) or "-"

    n_found = sum(g.count for g in rules.foundations)
    found_texts = [pile([c]) for c in foundations] + ["-"] * (n_found - len(foundations))
    groups = [
        "f:" + "/".join(found_texts),
        "t:" + "/".join(pile(p, d) for p, (d, _) in zip(piles, rules.tableau.deal)),
    ]
    if rules.reserve:
        groups.append("r:" + "/".join(pile(p) for p in piles[len(rules.tableau.deal):]))
    if rules.cells:
        groups.append("c:" + "/".join(["-"] * rules.cells))
    if rules.draw:
        groups += ["s:" + pile(stock, len(stock)), "w:-"]
    groups.append("n:0")
    return " ".join(groups)


# ------------------------------------------------------------------ the published vectors


def test_vectors_cover_every_variant_and_seed() -> None:
    found = {(v.variant, v.seed) for v in vectors()}
    assert found == {(name, s) for name in VARIANTS for s in VECTOR_SEEDS}
    for v in vectors():
        assert v.options == options_text(VARIANTS[v.variant].normalize())


@pytest.mark.parametrize("vector", vectors(), ids=lambda v: f"{v.variant}-{v.seed}")
def test_vector(vector: Vector) -> None:
    assert Game(vector.variant, None, vector.seed).position_text() == vector.position
    same = Game(vector.variant, options_dict(vector.options), vector.seed)
    assert same.position_text() == vector.position
    assert reference_position(vector.variant, options_dict(vector.options), vector.seed) == (
        vector.position
    )


def test_commitment_table() -> None:
    rows = re.findall(r"^\| (\d+) \| ([0-9a-f]{16}) \| ([0-9a-f]{64}) \|$", doc(), re.M)
    assert {int(seed) for seed, _, _ in rows} == set(VECTOR_SEEDS)
    for seed_text, raw, digest in rows:
        seed = int(seed_text)
        assert seed_bytes(seed).hex() == raw == f"{seed:016x}"
        assert commitment(seed) == digest == hashlib.sha256(bytes.fromhex(raw)).hexdigest()


def test_worked_example_matches_its_vector() -> None:
    """Section 11: the shuffled sequence deals t1 = 1st card, …, and the stock top is the 29th
    card, so the first draw turns it up."""
    m = re.search(r"```prng-example\n(.*?)```", doc(), re.DOTALL)
    assert m
    fields = dict(line.split(None, 1) for line in m.group(1).strip().splitlines())
    seed, shuffled = int(fields["seed"]), fields["shuffled"].split()
    variant = fields["context"].split("|")[0]
    g = Game(variant, options_dict(fields["context"].split("|")[1]), seed)
    dealt = [card_text(c) for p in g.layout.tableau for c in g.pos.piles[p]]
    assert dealt == shuffled[: len(dealt)]
    g.push("sw")
    assert [card_text(c) for c in g.pos.piles[g.layout.waste]] == [shuffled[len(dealt)]]


# ------------------------------------------------------------------ the engine follows the spec


@pytest.mark.parametrize(("name", "options"), CONFIGS, ids=lambda x: str(x))
def test_engine_deals_like_the_reference(name: str, options: dict[str, str]) -> None:
    for seed in (3, 99, 2**40 + 7, 2**63):
        assert Game(name, options, seed).position_text() == reference_position(
            name, options, seed
        )


def test_context_string() -> None:
    v = VARIANTS["unlimited"]
    given = {"foundation_takeback": "no", "draw": 3}  # any order, any type: normalized
    assert deal_context(v, v.normalize(given)) == b"unlimited|draw=3,foundation_takeback=no"
    assert Game("unlimited", given, 5).position_text() == Game(
        "unlimited", {"draw": "3", "foundation_takeback": "no"}, 5
    ).position_text()
    contexts = {deal_context(*resolve(name, opts)[:2]) for name, opts in CONFIGS}
    assert len(contexts) == len(CONFIGS)


def test_sixes_and_sevens_prefill() -> None:
    for seed in range(5):
        g = Game("sixes-and-sevens", None, seed)
        piles = g.pos.piles
        founds = [card_text(c) for f in g.layout.foundations for c in piles[f]]
        assert founds == ["6C", "6D", "6H", "6S"] * 2 + ["7C", "7D", "7H", "7S"] * 2
        rest = [c for i, p in enumerate(piles) if i not in g.layout.foundations for c in p]
        assert len(rest) == 88 and all(c % 13 + 1 not in (6, 7) for c in rest)


def test_stock_top_is_the_next_card() -> None:
    """Forty and Eight deals 40 cards; the 41st of the shuffled sequence is drawn first."""
    ns = reference_code()
    _, piles, stock = ns["reference_deal"](
        11, "forty-and-eight|foundation_takeback=no", 2, [], [5] * 8
    )
    g = Game("forty-and-eight", None, 11)
    drawn = []
    while g.pos.piles[g.layout.stock]:
        g.push("sw")
        drawn.append(g.pos.piles[g.layout.waste][-1])
    assert drawn == stock[::-1]
    assert [g.pos.piles[t] for t in g.layout.tableau] == piles


# ------------------------------------------------------------------ determinism and spread


@pytest.mark.parametrize(("name", "options"), CONFIGS, ids=lambda x: str(x))
def test_deterministic(name: str, options: dict[str, str]) -> None:
    for seed in (0, 12345, 2**64 - 1):
        a, b = Game(name, options, seed), Game(name, dict(options), seed)
        assert a.position_text() == b.position_text()
        assert deal(name, options, seed) == deal(name, options, seed) == a.pos


@pytest.mark.parametrize("name", VARIANTS)
def test_different_seeds_give_different_deals(name: str) -> None:
    texts = {Game(name, None, seed).position_text() for seed in range(40)}
    texts |= {Game(name, None, 2**64 - 1 - seed).position_text() for seed in range(10)}
    assert len(texts) == 50


def dealt_sequence(g: Game) -> list[int]:
    """The shuffled sequence back from a start position: tableau, reserve, stock top first."""
    piles = g.pos.piles
    seq = [c for p in (*g.layout.tableau, *g.layout.reserve) for c in piles[p]]
    return seq + (piles[g.layout.stock][::-1] if g.layout.stock >= 0 else [])


def test_options_and_variants_change_the_deal() -> None:
    for seed in (0, 1, 2**64 - 1):
        seqs = {
            (name, options_text(opts)): tuple(dealt_sequence(Game(name, opts, seed)))
            for name, opts in CONFIGS
        }
        assert len(set(seqs.values())) == len(seqs)
        # Unlimited and Seven by Five shuffle the same 52 cards from the same canonical order
        # (so do Unlimited's four option sets): only the context separates their deals.
        one_deck = [s for (name, _), s in seqs.items() if name in ("unlimited", "seven-by-five")]
        assert len(one_deck) == 8 and all(sorted(s) == list(range(52)) for s in one_deck)


# ------------------------------------------------------------------ seed validation


@pytest.mark.parametrize("bad", [-1, 2**64, 2**64 + 5, True, False, 1.0, "1", None, 3 + 0j])
def test_bad_seeds_rejected(bad: object) -> None:
    with pytest.raises(ValueError):
        Game("unlimited", None, bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        deal("seven-by-five", None, bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", [0, 2**64 - 1])
def test_seed_range_ends_accepted(seed: int) -> None:
    assert Game("double-aces-and-kings", None, seed).seed == seed
