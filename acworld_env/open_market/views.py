"""What one agent of the open market observes: its own mandate and records, never another's."""

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
