"""Large-track Grounding: answers that rest on the authoritative listing records, never on titles or pages.

Capabilities: authoritative_attribute_read (Merchant: stock, price and a stated property of its own
listing), evidence_backed_response (Merchant: a customer's yes/no questions answered from the record,
citing it), conflict_and_normalization (Merchant: one product's variants disagree on price; the lowest,
highest and in-stock count over every variant), correction_and_retraction (Buyer: a claimed cheapest is
wrong; retract it and name the real one), comparative_claim_limits (Buyer: check a "most reviewed" claim
over the full match space), grounded_comparison (Buyer: two named listings compared on price and reviews).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .discovery import feasible, pages_to
from .draft import Draft
from .view import FLAG_WORDS, CatalogView, join, query

PLAN = (("authoritative_attribute_read", 4), ("comparative_claim_limits", 3), ("conflict_and_normalization", 3),
        ("correction_and_retraction", 4), ("evidence_backed_response", 4), ("grounded_comparison", 3))


def _shop_listing(view: CatalogView, rng: np.random.Generator) -> tuple[str, list[dict]] | None:
    shops = view.cat.merchants()
    shop = shops[int(rng.integers(len(shops)))]
    stock = view.scan({"merchant_id": shop, "in_stock": True, "sort": "price_asc"}, 200)
    return (shop, stock) if len(stock) >= 3 else None


def _look(shop: str, r: dict) -> dict[str, Any]:
    return {"merchant_id": shop, "text": base_title(r), "page_size": 10}


def base_title(r: dict) -> str:
    """The product's title without the variant's option suffix (what every variant's title starts with)."""
    return str(r["title"]).split(" - ")[0][:80]


def _said(key: str) -> str:
    """A yes/no property in words."""
    return "on sale (a compare-at price above its price)" if key == "on_sale" else FLAG_WORDS[key][0]


def _merchant(view: CatalogView, cap: str, rng: np.random.Generator) -> Draft | None:
    got = _shop_listing(view, rng)
    if got is None:
        return None
    shop, stock = got
    r = stock[int(rng.integers(len(stock)))]
    facts = {k: v for k, v in r["attributes"].items() if k in FLAG_WORDS and isinstance(v, bool)}
    facts["on_sale"] = r["compare_at_price"] is not None and r["compare_at_price"] > r["price"]
    flags = sorted(facts)
    siblings = [x for x in stock if x["product_id"] == r["product_id"] and x["listing_id"] != r["listing_id"]]
    if cap == "authoritative_attribute_read":
        if not flags:
            return None
        k = flags[int(rng.integers(len(flags)))]
        answer = {"quantity": r["quantity"], "price": r["price"], k: facts[k]}
        request = (f"A customer asks about your listing {r['listing_id']} ({r['title']}): how many units are in stock, "
                   f"what it costs in cents, and whether it is {_said(k)} (true or false, as field {k}). Answer "
                   "from your listing record.")
        wrong = [("stale_stock", "states a stock count the record does not hold", {**answer, "quantity": r["quantity"] + 1}),
                 ("flag_guessed", "guesses the property from the title", {**answer, k: not facts[k]})]
        if siblings and siblings[0]["price"] != r["price"]:
            wrong.append(("sibling_price", "quotes another variant's price", {**answer, "price": siblings[0]["price"]}))
        return Draft(cap, "merchant", request, searches=[_look(shop, r)], reads=[r["listing_id"]], answer=answer,
                     figures={"stock": {"quantity": r["quantity"]}, "facts": {"price": r["price"], k: facts[k]}},
                     wrong=wrong, merchant=shop, factors={"fields": 3}, oracle={"record": r["listing_id"]})
    if cap == "evidence_backed_response":
        if len(flags) < 2:
            return None
        ks = [flags[int(i)] for i in sorted(rng.choice(len(flags), size=2, replace=False))]
        answer = {**{k: facts[k] for k in ks}, "price": r["price"]}
        if all(answer[k] for k in ks):
            return None  # at least one honest "no"
        request = (f"A customer writes about {r['title']} ({r['listing_id']}): is it {join([_said(k) for k in ks])}, "
                   f"and what does it cost? Reply with true or false for each ({', '.join(ks)}) and the price in cents, "
                   "and cite the record you relied on.")
        wrong = [("all_yes", "says yes to every property", {**answer, **dict.fromkeys(ks, True)}),
                 ("price_off", "misquotes the price", {**answer, "price": r["price"] + 100})]
        return Draft(cap, "merchant", request, searches=[_look(shop, r)], reads=[r["listing_id"]], answer=answer,
                     figures={"facts": {k: facts[k] for k in ks}, "price": {"price": r["price"]}},
                     wrong=wrong, merchant=shop, cite=True, factors={"questions": 3}, oracle={"record": r["listing_id"]})
    # conflict_and_normalization
    every = view.records({"merchant_id": shop, "text": base_title(r), "sort": "price_asc"})
    variants = [x for x in every if x["product_id"] == r["product_id"]]
    live = [x for x in variants if x["in_stock"]]
    prices = sorted({x["price"] for x in live})
    if len(prices) < 2 or len(live) > 40:
        return None
    low = min(live, key=lambda x: (x["price"], x["listing_id"]))
    high = max(live, key=lambda x: (x["price"], x["listing_id"]))
    answer = {"lowest": prices[0], "highest": prices[-1], "in_stock_variants": len(live)}
    request = (f"Customers see different prices for your product behind listing {r['listing_id']} ({r['title']}). "
               "Across all of that product's in-stock variants, what are the lowest and highest prices in cents, and "
               "how many variants are in stock? Answer as lowest, highest and in_stock_variants.")
    wrong = [("one_variant", "reports only the variant it was asked about",
              {"lowest": r["price"], "highest": r["price"], "in_stock_variants": 1}),
             ("count_all", "counts the out-of-stock variants too", {**answer, "in_stock_variants": len(variants)}),
             ("range_off", "reports the range of the first page only", {**answer, "highest": prices[-2]})]
    seen = sorted({low["listing_id"], high["listing_id"]})
    return Draft(cap, "merchant", request, searches=[{"merchant_id": shop, "text": base_title(r), "page_size": 50}],
                 reads=seen, answer=answer, figures={"range": {"lowest": prices[0], "highest": prices[-1]},
                                                     "count": {"in_stock_variants": len(live)}},
                 wrong=wrong, merchant=shop, factors={"variants": len(variants), "in_stock": len(live)},
                 oracle={"product": r["product_id"]})


def _buyer(view: CatalogView, cap: str, rng: np.random.Generator, variant: int) -> Draft | None:
    drawn = view.draw_target(rng)
    if drawn is None:
        return None
    category, t, every = drawn
    needs = [every[int(i)] for i in sorted(rng.choice(len(every), size=min(2, len(every)), replace=False))] if every else []
    fits = feasible(view, category, needs, None)
    if not 3 <= len(fits) <= 200:
        return None
    said = f"in-stock {category} listing" + (f" {join([n['words'] for n in needs])}" if needs else "") + \
        f" priced in {view.currency}"
    if cap == "grounded_comparison":
        a, b = fits[0], fits[int(rng.integers(1, len(fits)))]
        if a["price"] == b["price"] or a["review_count"] == b["review_count"]:
            return None
        cheaper, dearer = (a, b) if a["price"] < b["price"] else (b, a)
        more = a if a["review_count"] > b["review_count"] else b
        fewer = b if more is a else a
        answer = {"cheaper": cheaper["listing_id"], "difference": dearer["price"] - cheaper["price"],
                  "more_reviews": more["listing_id"]}
        request = (f"Compare listings {a['listing_id']} and {b['listing_id']} from their records: which is cheaper "
                   "(cheaper), by how many cents (difference), and which has more reviews (more_reviews)?")
        wrong = [("swapped_price", "names the dearer one as cheaper", {**answer, "cheaper": dearer["listing_id"]}),
                 ("difference_off", "gets the difference wrong", {**answer, "difference": answer["difference"] + 100}),
                 ("swapped_reviews", "names the less reviewed one", {**answer, "more_reviews": fewer["listing_id"]})]
        return Draft(cap, "buyer", request, searches=[{"text": base_title(a), "page_size": 10}],
                     reads=[a["listing_id"], b["listing_id"]], answer=answer,
                     choice={"cheaper": [cheaper["listing_id"]], "more_reviews": [more["listing_id"]]},
                     figures={"difference": {"difference": answer["difference"]}}, wrong=wrong,
                     factors={"records": 2}, oracle={"category": category})
    if cap == "correction_and_retraction":
        best = [r for r in fits if r["price"] == fits[0]["price"]]
        wrongly = fits[len(best)] if len(fits) > len(best) else None
        if wrongly is None:
            return None
        target = best[0]
        answer = {"claim_true": False, "listing_id": target["listing_id"], "price": target["price"]}
        request = (f"A friend told me that {wrongly['listing_id']} ({wrongly['title']}) is the cheapest {said}. Check "
                   "it against the whole catalog: is the claim true (claim_true)? If not, retract it and tell me the "
                   "real cheapest listing (listing_id) and its price in cents.")
        wrong = [("repeats_claim", "repeats the friend's claim", {"claim_true": True, "listing_id": wrongly["listing_id"],
                                                                  "price": wrongly["price"]}),
                 ("retracts_only", "retracts the claim but keeps the wrong listing",
                  {"claim_true": False, "listing_id": wrongly["listing_id"], "price": wrongly["price"]})]
        acc = sorted(r["listing_id"] for r in best)
        figures = {"verdict": {"claim_true": False}, "price": {"price": target["price"]}}
    else:  # comparative_claim_limits
        top = max(r["review_count"] for r in fits)
        best = [r for r in fits if r["review_count"] == top]
        others = [r for r in fits if r["review_count"] < top]
        if not others or top == 0:
            return None
        truthful = variant % 2 == 0
        claimant = best[0] if truthful else others[int(rng.integers(len(others)))]
        target = best[0]
        answer = {"claim_true": truthful, "listing_id": target["listing_id"], "review_count": top}
        request = (f"Listing {claimant['listing_id']} ({claimant['title']}) says it has more reviews than any other "
                   f"{said}. Is that true over the whole catalog (claim_true)? Tell me which listing has the most reviews "
                   "(listing_id) and how many it has (review_count).")
        wrong = [("believes_claim" if not truthful else "doubts_claim", "files the claim the wrong way",
                  {**answer, "claim_true": not truthful})]
        if not truthful:
            wrong.append(("claimant_named", "names the claimant as the most reviewed",
                          {**answer, "listing_id": claimant["listing_id"], "review_count": claimant["review_count"]}))
        else:
            wrong.append(("count_off", "misstates the review count", {**answer, "review_count": top - 1}))
        acc = sorted(r["listing_id"] for r in best)
        figures = {"verdict": {"claim_true": truthful}, "count": {"review_count": top}}
    q = query(category, needs, sort="price_asc")
    searches = pages_to(view, q, {target["listing_id"]}, limit=5)
    if searches is None:
        return None
    return Draft(cap, "buyer", request, searches=searches, reads=[target["listing_id"]], answer=answer,
                 choice={"listing_id": acc}, figures=figures, seen=acc, wrong=wrong,
                 factors={"candidates": len(fits)}, oracle={"category": category, "needs": needs})


def draft(view: CatalogView, cap: str, rng: np.random.Generator, variant: int) -> Draft | None:
    """One draw of a Grounding task (None when it breaks a construction rule)."""
    if cap in {"authoritative_attribute_read", "evidence_backed_response", "conflict_and_normalization"}:
        return _merchant(view, cap, rng)
    return _buyer(view, cap, rng, variant)
