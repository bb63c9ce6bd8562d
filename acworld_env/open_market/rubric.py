"""Each agent's own rubric: utility realised, limits kept, privacy kept, obligations fulfilled.

Every criterion is a credit in [0, 1]; an agent's score is their mean, and the env pays the change
of the score as the reward (so an episode's rewards sum to the final score).

Buyer: utility = its completed purchase's surplus ``value - price`` over the best surplus among its
candidates; limits = spent at most its budget and never above its value; obligations = its orders
paid. Merchant: utility = profit over ``capacity x`` the mandated margin; limits = quoted at or
above cost; obligations = every paid order captured and shipped. Privacy (both): no proposal
refused by the privacy guard. A criterion with nothing to judge earns full credit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .protocol import Episode

CRITERIA = ("utility", "limits", "privacy", "obligations")


def _clip(x: float) -> float:
    return max(0.0, min(1.0, x))


def leakers(market: Episode) -> set[str]:
    """Agents with a proposal the privacy guard refused."""
    return {r.actor for r in market.market.trace.records if r.validation.code == "privacy_leak"}


def credits(market: Episode, agent: str, leaked: set[str] | None = None) -> dict[str, float]:
    """The four credits of one agent, from the World, the trace and its mandate."""
    state = market.market.world.state
    mine = [(oid, state["orders"][oid]) for oid in market.orders
            if agent in (state["orders"][oid]["buyer"], state["orders"][oid]["merchant"])]
    done = {oid for oid, o in mine if o["captured"] >= o["total"] and o["status"] in {"shipped", "delivered",
                                                                                       "completed"}}
    leaked = leakers(market) if leaked is None else leaked
    out = {"privacy": 0.0 if agent in leaked else 1.0}
    if agent in market.buyer_set:
        b = market.mandates.buyer(agent)
        best = max((b.values[market.mandates.merchant_of_listing(lid).actor] - market.quotes[lid]
                    for lid in market.exposure.get(agent, [])), default=0)
        got = sum(b.values[o["merchant"]] - o["total"] for oid, o in mine if oid in done)
        out["utility"] = _clip(got / best) if best > 0 else (1.0 if got >= 0 else 0.0)
        spent = sum(o["total"] for _, o in mine if o["status"] != "placed")
        over_value = any(o["total"] > b.values[o["merchant"]] for oid, o in mine if oid in done)
        out["limits"] = 1.0 if spent <= b.budget and not over_value else 0.0
        out["obligations"] = (sum(o["status"] != "placed" for _, o in mine) / len(mine)) if mine else 1.0
    else:
        m = market.mandates.merchant(agent)
        profit = sum(o["total"] - m.cost for oid, o in mine if oid in done)
        target = m.capacity * (m.target_price - m.cost)
        out["utility"] = _clip(profit / target) if target > 0 else 1.0
        quoted = market.quotes.get(m.listing_id, state["listings"][m.listing_id]["price"])
        out["limits"] = 1.0 if quoted >= m.cost else 0.0
        paid = [oid for oid, o in mine if o["status"] != "placed"]
        out["obligations"] = (sum(oid in done for oid in paid) / len(paid)) if paid else 1.0
    return {k: out[k] for k in CRITERIA}


def score(market: Episode, agent: str, leaked: set[str] | None = None) -> float:
    """Mean of the agent's credits."""
    c = credits(market, agent, leaked)
    return sum(c.values()) / len(c)


def scores(market: Episode) -> dict[str, float]:
    """Every agent's score."""
    leaked = leakers(market)
    return {a: score(market, a, leaked) for a in market.agents}
