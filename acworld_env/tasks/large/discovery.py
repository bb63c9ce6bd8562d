"""Large-track Discovery: find a listing that fits (any, the cheapest, one described in vague words), or none.

Capabilities (Buyer): basic_feasible_discovery, best_feasible_selection, correct_abstention,
query_reformulation. The accepted set is every in-stock listing of the category, in the track's
currency, that meets every requirement and the budget, over the whole catalog; a task is kept
only when the first page of the obvious searches does not hold an accepted listing on top.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .draft import Draft
from .view import CatalogView, join, query

CAPABILITIES = ("basic_feasible_discovery", "best_feasible_selection", "correct_abstention", "query_reformulation")
MAX_FEASIBLE = 30


def _words(n: dict[str, Any], vague: bool) -> str:
    return str(n["vague"] if vague and n["vague"] else n["words"])


def request_for(view: CatalogView, category: str, needs: list[dict], budget: int | None, *, cheapest: bool,
                vague: bool = False, opening: str = "Please find me") -> str:
    """A shopper's words for one item of ``category`` meeting ``needs`` within ``budget``."""
    said = join([_words(n, vague) for n in needs]) if needs else "anything"
    text = f"{opening} an in-stock listing from the {category} category, {said}"
    if budget is not None:
        text += f", for no more than {view.money(budget)}"
    text += f", priced in {view.currency}."
    if cheapest:
        text += " Of everything that fits, I want the least expensive one."
    return text


def feasible(view: CatalogView, category: str, needs: list[dict], budget: int | None) -> list[dict]:
    """Every fitting listing over the full catalog, cheapest first."""
    q = query(category, needs, sort="price_asc", **({"max_price": budget} if budget else {}))
    return view.records(q)


def pages_to(view: CatalogView, q: dict, targets: set[str], limit: int = 4) -> list[dict] | None:
    """Searches (pages of 50 of ``q``) up to the first page that shows one of ``targets``."""
    out = []
    for page in range(1, limit + 1):
        s = {**q, "page": page, "page_size": 50} if page > 1 else {**q, "page_size": 50}
        out.append(s)
        total, ids = view.cat.search_ids(s)
        if targets & set(ids):
            return out
        if page * 50 >= total:
            return None
    return None


def traps(view: CatalogView, category: str, needs: list[dict], budget: int | None, accepted: set[str]) -> list[tuple]:
    """Wrong answers a careless shopper gives: the category's cheapest, the cheapest fit in another currency,
    over budget or out of stock, and the top of a relevance page."""
    out: list[tuple[str, str, dict]] = []

    def add(name: str, text: str, rec: list[dict]) -> None:
        rec = [r for r in rec if r["listing_id"] not in accepted]
        if rec and all(rec[0]["listing_id"] != w[2]["listing_id"] for w in out):
            out.append((name, text, {"listing_id": rec[0]["listing_id"], "price": rec[0]["price"]}))

    cap = {"max_price": budget} if budget else {}
    add("category_cheapest", "answers the cheapest in-stock listing of the category, which misses a requirement",
        view.scan(query(category, [], sort="price_asc", **cap), 60))
    add("other_currency", "answers a fitting listing priced in another currency",
        [r for r in view.records(query(category, needs, sort="price_asc", **cap), any_currency=True)
         if r["currency"] != view.currency])
    add("over_budget", "answers the cheapest fit above the budget",
        [r for r in view.records(query(category, needs, sort="price_asc")) if budget and r["price"] > budget])
    oos = {**query(category, needs, sort="price_asc", **cap)}
    oos.pop("in_stock")
    add("out_of_stock", "answers a fitting listing that is out of stock",
        [r for r in view.records(oos) if not r["in_stock"]])
    top = view.page({"category": category, "in_stock": True, "sort": "relevance"}, 1)
    add("page_top", "answers the top of the first relevance page",
        [x.model_dump(mode="json") for x in view.cat.get_many(top)])
    return out


def draft(view: CatalogView, cap: str, rng: np.random.Generator, variant: int) -> Draft | None:
    """One draw of a Discovery task (None when it breaks a construction rule)."""
    drawn = view.draw_target(rng)
    if drawn is None:
        return None
    category, t, every = drawn
    if not every or (cap == "query_reformulation" and not any(n["vague"] for n in every)):
        return None
    k = min(len(every), int(rng.integers(1, 3)) + (cap == "query_reformulation"))
    needs = [every[int(i)] for i in sorted(rng.choice(len(every), size=k, replace=False))]
    if cap == "query_reformulation" and not any(n["vague"] for n in needs):
        return None  # at least one requirement only in words the catalog never uses
    fits = feasible(view, category, needs, None)
    if not fits:
        return None
    low = fits[0]["price"]
    if cap == "correct_abstention":
        budget = int(low * rng.uniform(0.6, 0.95)) // 100 * 100
        if budget < 100 or budget >= low:
            return None
        decisive = [r["listing_id"] for r in fits if r["price"] == low]
        wrong = traps(view, category, needs, budget, set())
        wrong = [(n, x, a) for n, x, a in wrong if n != "over_budget"]
        wrong.insert(0, ("answers_closest", "answers the closest match, which is over the budget",
                         {"listing_id": decisive[0], "price": low}))
        q = query(category, needs, sort="price_asc")
        return Draft(cap, "buyer", request_for(view, category, needs, budget, cheapest=False)
                     + " If nothing fits, just tell me so.",
                     searches=[{**q, "max_price": budget, "page_size": 50}, {**q, "page_size": 50}],
                     reads=[decisive[0]], answer=None, decisive=decisive, wrong=wrong[:4],
                     blind_search={**q, "max_price": budget, "page_size": 50},
                     factors={"candidates": len(fits), "hard_constraints": len(needs) + 2,
                              "conflict": "subtle" if budget > 0.85 * low else "obvious"},
                     oracle={"category": category, "needs": needs, "budget": budget})
    budget = int(np.ceil(t["price"] * rng.uniform(1.05, 1.3) / 100)) * 100 if variant % 2 == 0 or cap == "basic_feasible_discovery" else None
    fits = feasible(view, category, needs, budget)
    cheapest = cap != "basic_feasible_discovery"
    if not 1 <= len(fits) <= MAX_FEASIBLE or (cheapest and len(fits) < 2):
        return None
    accepted = [r for r in fits if r["price"] == fits[0]["price"]] if cheapest else fits
    acc = {r["listing_id"] for r in accepted}
    category_top = view.page(query(category, [], sort="price_asc", **({"max_price": budget} if budget else {})), 1)
    if set(category_top) & acc:
        return None  # the category's cheapest already fits: the requirements would not matter
    target = accepted[0]
    q = query(category, needs, sort="price_asc", **({"max_price": budget} if budget else {}))
    searches = pages_to(view, q, {target["listing_id"]})
    if searches is None:
        return None
    wrong = traps(view, category, needs, budget, acc)
    if cheapest and len(fits) > len(accepted):
        nxt = fits[len(accepted)]
        wrong.insert(0, ("second_cheapest", "answers a fitting listing that is not the cheapest",
                         {"listing_id": nxt["listing_id"], "price": nxt["price"]}))
    if len(wrong) < 2:
        return None
    if cap == "query_reformulation":
        literal = " ".join([category, *(str(n["vague"]) for n in needs)])
        if set(view.page({"text": literal, "in_stock": True}, 10)) & acc:
            return None  # the vague words, searched as said, must not find it
    request = request_for(view, category, needs, budget, cheapest=cheapest, vague=cap == "query_reformulation")
    request += " Tell me which listing it is" + (" and its price in cents" if cheapest else "") + "; don't buy anything."
    figures = {"price": {"price": target["price"]}} if cheapest else {}
    return Draft(cap, "buyer", request, searches=searches, reads=[target["listing_id"]],
                 answer={"listing_id": target["listing_id"], **({"price": target["price"]} if cheapest else {})},
                 choice={"listing_id": sorted(acc)}, figures=figures, seen=sorted(acc), wrong=wrong[:4],
                 factors={"candidates": len(fits), "hard_constraints": len(needs) + 1 + (budget is not None),
                          "search_pages": len(searches)},
                 oracle={"category": category, "needs": needs, "budget": budget, "feasible": [r["listing_id"] for r in fits]})
