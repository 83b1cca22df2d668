"""The status check's eager search answers "lost" exactly when the plain reachability search
does, at every budget: eagerness and dig-first ordering may only find progress sooner."""

import random

import pytest
from solrace.shared import Game, Status
from solrace.shared import status as status_module
from solrace.shared.rules import LostCheck
from solrace.shared.variants import VARIANTS

REACHABILITY = [(name, opts) for name, v in VARIANTS.items()
                for opts in ({}, *({o.name: val} for o in v.options for val in o.values[1:]))
                if v.rules(opts).lost_check is LostCheck.REACHABILITY]


def late_positions(variant: str, options: dict[str, str], count: int) -> list[Game]:
    """Positions from random play that prefers going home, sampled late in the game."""
    rng = random.Random(f"{variant}{options}")
    out = []
    for seed in range(count):
        g = Game(variant, options, seed)
        for _ in range(600):
            moves = g.legal_moves()
            if not moves:
                break
            home = [m for m in moves if m.dst.startswith("f") and not m.src.startswith("f")]
            g.push(rng.choice(home) if home and rng.random() < 0.8 else rng.choice(moves))
            if rng.random() < 0.02:
                out.append(g.copy())
        out.append(g)
    return out


@pytest.mark.parametrize(("variant", "options"), REACHABILITY)
@pytest.mark.parametrize("budget", [3, 40, 2000])
def test_eager_status_and_plain_search_agree_on_lost(
    variant: str, options: dict[str, str], budget: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(status_module, "REACHABILITY_BUDGET", budget)
    checked = 0
    for g in late_positions(variant, options, 6):
        if g.cards_home == g.total_cards:
            continue
        before = g.position_text()
        plain_lost = not g._legal() or status_module.progress_reachable(g, budget) is False
        g._status = None
        assert (g.status is Status.LOST) == plain_lost, g.position_text()
        assert g.position_text() == before
        checked += 1
    assert checked >= 3
