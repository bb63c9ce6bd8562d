"""What one agent of the open market observes: its own mandate and records, never another's.

The open market's one visibility rule: :func:`observation` and :func:`info` are everything an
agent is handed (the env's observations and ``infos``). An agent's info carries its own score and,
once the episode is over, its own realised surplus: never the market's welfare, which sums the
counterparts' private values and costs. The whole report (:func:`host_report`) is for the host:
``env.welfare_report()`` and the episode file of a persistent World.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .protocol import Episode


def own_orders(market: Episode, agent: str) -> list[dict[str, Any]]:
    """The orders ``agent`` is party to, from the World (any episode), with their payment."""
    state = market.market.world.state
    side = "buyer" if agent in market.buyer_set else "merchant"
    out = []
    for oid, o in state["orders"].items():
        if o[side] != agent:
            continue
        pay = state["payments"].get(o.get("payment") or "", {})
        out.append({"order_id": oid, "buyer": o["buyer"], "merchant": o["merchant"],
                    "listing_id": o["lines"][0]["listing_id"], "total": o["total"], "status": o["status"],
                    "payment_id": o.get("payment"), "authorized": pay.get("authorized", 0),
                    "captured": o["captured"], "refunded": o["refunded"], "allocated": bool(o["allocated"])})
    return out


def observation(market: Episode, agent: str) -> dict[str, Any]:
    """``agent``'s observation: phase, private mandate, what it may act on, its last results and inbox."""
    state = market.market.world.state
    obs: dict[str, Any] = {"agent": agent, "phase": market.phase, "round": market.market.round,
                           "my_turn": agent in market.turns, "last": market.last[agent],
                           "inbox": market.market.inbox(agent), "orders": own_orders(market, agent)}
    if agent in market.buyer_set:
        b = market.mandates.buyer(agent)
        obs["role"] = "buyer"
        obs["mandate"] = {"budget": b.budget, "values": dict(b.values)}
        obs["balance"] = state["actors"][agent]["balance"]
        obs["candidates"] = [
            {"listing_id": lid, "merchant": state["listings"][lid]["merchant"],
             "price": state["listings"][lid]["price"],
             "relevance": int(market.mandates.relevance[int(agent.rsplit("_", 1)[1]),
                                                        int(lid.rsplit("_", 1)[1])])}
            for lid in market.exposure.get(agent, [])]
        obs["assigned"] = market.clearing.assignment.get(agent)
    else:
        m = market.mandates.merchant(agent)
        obs["role"] = "merchant"
        obs["mandate"] = {"cost": m.cost, "capacity": m.capacity, "margin_bp": m.margin_bp,
                          "target_price": m.target_price}
        rec = state["listings"][m.listing_id]
        obs["listing"] = {"listing_id": m.listing_id, "price": rec["price"], "stock": rec["stock"],
                          "reserved": rec.get("reserved", 0), "status": rec["status"]}
    return obs


def own_surplus(market: Episode, agent: str) -> int:
    """``agent``'s realised surplus over this episode's completed trades (cents), from its own mandate only.

    A Buyer's is ``value - price`` of each purchase paid and shipped; a Merchant's ``price - cost``
    of each such sale. Each uses the agent's own private number and the price it paid or got.
    """
    state = market.market.world.state
    buyer = agent in market.buyer_set
    total = 0
    for oid in market.orders:
        o = state["orders"][oid]
        if o[("buyer" if buyer else "merchant")] != agent:
            continue
        if o["captured"] < o["total"] or o["status"] not in {"shipped", "delivered", "completed"}:
            continue
        if buyer:
            total += market.mandates.buyer(agent).values[o["merchant"]] - o["total"]
        else:
            total += o["total"] - market.mandates.merchant(agent).cost
    return total


def info(market: Episode, agent: str) -> dict[str, Any]:
    """``agent``'s own info: phase, its score, whether it acts now and, at the end, its own surplus."""
    out: dict[str, Any] = {"phase": market.phase, "score": market.scores[agent], "my_turn": agent in market.turns}
    if market.phase is None:
        out["surplus"] = own_surplus(market, agent)
    return out


def host_report(market: Episode) -> dict[str, Any]:
    """The host's view of an episode's outcome: the welfare report and every agent's surplus."""
    return {"welfare": market.welfare().to_dict(), "surplus": {a: own_surplus(market, a) for a in market.agents}}
