"""T5 Multi-item: frozen counts, references and mutations, the baseline gate, generated splits, the optimum."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest

from acworld_env.eval.baseline_gate import (
    NULL_BASELINES,
    baseline_table,
    gate_failures,
    run_baselines,
)
from acworld_env.eval.validate import validate_tasks
from acworld_env.scoring.multi_item_pricing import cart_cost, cart_problems
from acworld_env.tasks.families.multi_item import FAMILY, PLAN, build
from acworld_env.tasks.families.multi_item_world import full_cart, options

TASKS = build(0, frozen=True)
INTERNAL = re.compile(r"max_unit_price|min_unit_price|predicate|classify_event|authorize_payment|"
                      r"issue_refund|submit_answer|_id\b|verdict|oracle", re.I)


def test_frozen_counts_ids_and_requests() -> None:
    counts = Counter((t.role, t.capability) for t in TASKS)
    assert counts == {(role, cap): n for role, cap, n in PLAN}
    assert sum(1 for t in TASKS if t.role == "buyer") == 14 and len(TASKS) == 20
    assert len({t.task_id for t in TASKS}) == 20
    for t in TASKS:
        assert re.fullmatch(rf"capability-v1/T5/{t.role}/{t.capability}/\d\d", t.task_id)
        assert t.family == FAMILY
        assert not INTERNAL.search(t.request) and len(t.request) > 80, t.task_id
        assert sum(p.weight for p in t.predicates) == pytest.approx(1.0)
        assert min(p.weight for p in t.predicates) >= 0.05
    assert build(0, frozen=True) == TASKS  # deterministic


def test_controlled_factors_cover_the_paper_ranges() -> None:
    def seen(key: str) -> set[int]:
        return {t.difficulty[key] for t in TASKS if key in t.difficulty}

    assert seen("cart_lines") >= {2, 8} and seen("cart_lines") <= set(range(2, 9))
    assert seen("merchants") >= {2} and max(seen("merchants")) <= 3
    assert seen("price_tiers") <= set(range(2, 6)) and len(seen("price_tiers")) >= 2
    assert seen("bundle_relations") <= set(range(1, 6)) and len(seen("bundle_relations")) >= 2
    assert seen("fee_components") <= set(range(2, 5)) and len(seen("fee_components")) >= 2


def test_mutations_per_capability() -> None:
    per: Counter[str] = Counter()
    for t in TASKS:
        per[t.capability] += len(t.mutations)
        assert t.mutations, t.task_id
    assert all(n >= 2 for n in per.values()) and sum(per.values()) >= 20
    merchant = [m for t in TASKS if t.role == "merchant" for m in t.mutations]
    # quote-arithmetic mutations that leave the final World identical: only the trace shows the refused quote
    assert sum(1 for m in merchant if m.lowers == ["quote_first_try"]) == 6
    assert any({"quote_lines", "quote_subtotal", "quote_total"} <= set(m.lowers) for m in merchant)
    assert any(set(m.lowers) == {"quote_fees", "quote_total"} for m in merchant)


def test_references_earn_full_credit_and_mutations_lower_what_they_declare(frozen_reports) -> None:
    reports = frozen_reports
    rep = reports[FAMILY]
    assert rep.failures == []
    assert rep.references_full == rep.tasks == 20
    assert rep.mutations_ok == rep.mutations >= rep.tasks
    assert rep.traces_verified == rep.rescored_identical == rep.tasks + rep.mutations


@pytest.fixture(scope="module")
def runs() -> dict[str, Any]:
    """Every baseline on every T5 task."""
    return {r.baseline: r for r in run_baselines(TASKS, seeds=2)}


def test_t5_passes_the_baseline_gate(runs: dict[str, Any]) -> None:
    assert gate_failures(list(runs.values())) == []
    header, _ = baseline_table(list(runs.values()))
    assert header == ["baseline", FAMILY]
    for name in NULL_BASELINES:
        assert max(runs[name].scores.values()) == 0.0, name
    for name in ("add_every_line", "first_tier", "list_price_sum"):
        run = runs[f"shortcut:{name}"]
        assert run.mean <= 0.45 and not any(run.full.values()), (name, run.mean)
        # on Buyer tasks the shortcut's cart is never the optimum
        assert all(s < 0.5 for t, s in run.scores.items() if "/buyer/" in t), name


def test_optimum_is_the_cheapest_feasible_cart_by_brute_force() -> None:
    import itertools

    for t in TASKS:
        if t.role != "buyer":
            continue
        listings = t.initial_state["listings"]
        needs = t.predicates[1].params["needs"]
        costs = []
        for choice in itertools.product(*[options(n) for n in needs]):
            cart = full_cart(listings, choice)
            if not cart_problems(listings, cart, needs):
                costs.append(cart_cost(listings, cart))
        budget = t.predicates[1].params.get("budget")
        feasible = [c for c in costs if budget is None or c <= budget]
        assert min(feasible) == t.predicates[1].params["optimum"] == t.oracle["optimum"], t.task_id


@pytest.mark.parametrize("seed", [3, 17])
def test_generated_tasks_are_fresh_and_valid(seed: int) -> None:
    generated = build(seed, frozen=False)
    assert [t.task_id.split("/", 1)[1] for t in generated] == [t.task_id.split("/", 1)[1] for t in TASKS]
    assert all(t.task_id.startswith(f"generated-{seed}/T5/") for t in generated)
    frozen = {t.request for t in TASKS}
    assert not frozen & {t.request for t in generated if t.role == "buyer"}
    frozen_states = {repr(t.initial_state) for t in TASKS}
    assert not frozen_states & {repr(t.initial_state) for t in generated}
    assert build(seed, frozen=False) == generated
    rep = validate_tasks(generated[::3])[FAMILY]
    assert rep.failures == [] and rep.references_full == rep.tasks
