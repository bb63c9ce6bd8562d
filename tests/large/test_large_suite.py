"""The large-catalog track's builders over a small catalog of the same generator (the CI path)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from acworld_env.catalog import open_catalog
from acworld_env.tasks.large.suite import build_over_file
from acworld_env.tasks.large.view import CatalogView, query

PAPER = {"L1_discovery": (12, 4), "L2_grounding": (21, 6), "L3_preference": (12, 4), "L5_multi_item": (15, 4)}


def test_counts_roles_and_capabilities(small_tasks: list) -> None:
    fam = Counter(t.family for t in small_tasks)
    caps = {f: {t.capability for t in small_tasks if t.family == f} for f in fam}
    assert {f: (fam[f], len(caps[f])) for f in fam} == PAPER
    assert len({t.capability for t in small_tasks}) == 18
    assert Counter(t.role for t in small_tasks) == {"buyer": 45, "merchant": 15}
    assert len({t.task_id for t in small_tasks}) == 60
    assert sum(len(t.mutations) for t in small_tasks) >= 374


def test_every_task_pins_the_catalog(small_catalog: Path, small_tasks: list) -> None:
    cat = open_catalog(f"file:{small_catalog.resolve()}")
    assert {t.initial_state["meta"]["catalog_hash"] for t in small_tasks} == {cat.content_hash}
    assert {t.catalog for t in small_tasks} == {f"file:{small_catalog.resolve()}"}


def test_deterministic_and_seeded(small_catalog: Path, small_tasks: list) -> None:
    again = build_over_file(small_catalog, seed=3)
    assert [t.model_dump() for t in again] == [t.model_dump() for t in small_tasks]
    other = build_over_file(small_catalog, seed=4)
    assert [t.request for t in other] != [t.request for t in small_tasks]


def test_cheapest_oracles_hold_over_the_full_match_space(small_catalog: Path, small_tasks: list) -> None:
    """Recompute the accepted set of every 'least expensive' Discovery task from all matches, not a page."""
    name = f"file:{small_catalog.resolve()}"
    view = CatalogView(open_catalog(name), name)
    checked = 0
    for t in small_tasks:
        if t.capability not in {"best_feasible_selection", "query_reformulation"}:
            continue
        o = t.oracle
        q = query(o["category"], o["needs"], sort="price_asc", **({"max_price": o["budget"]} if o["budget"] else {}))
        ids = view.cat.oracle_ids(q)
        recs = [r for r in view.cat.get_many(ids) if r.currency == view.currency]
        low = min(r.price for r in recs)
        assert sorted(o["choice"]["listing_id"]) == sorted(r.listing_id for r in recs if r.price == low)
        checked += 1
    assert checked == 6


def test_requests_read_as_words(small_tasks: list) -> None:
    for t in small_tasks:
        assert t.request[0].isupper() and t.request.rstrip().endswith((".", "?"))
        assert "{" not in t.request and "attributes." not in t.request
    quote = [t for t in small_tasks if t.capability == "merchant_total_quote"]
    assert all(" fee" in t.request and t.role == "merchant" for t in quote)


@pytest.mark.parametrize("cap", ["correct_abstention"])
def test_abstention_tasks_have_a_decisive_near_miss(small_tasks: list, cap: str) -> None:
    for t in (x for x in small_tasks if x.capability == cap):
        assert t.oracle["answer"] is None and t.oracle["decisive"]
        assert t.oracle["budget"] < min(1 << 62, 10**9)
