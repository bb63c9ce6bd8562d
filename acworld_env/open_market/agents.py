"""Scripted open-market agents: truthful (follows its mandate) and random. Each sees only its observation."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import numpy as np

AgentPolicy = Callable[[dict[str, Any]], Any]


def truthful(obs: dict[str, Any]) -> Any:
    """Quote the mandated price, rank by own surplus, pay own orders, fulfil every paid order."""
    phase, mandate = obs["phase"], obs["mandate"]
    if not obs["my_turn"]:
        return None
    if phase == "quote":
        return {"kind": "update_listing", "listing_id": obs["listing"]["listing_id"], "price": mandate["target_price"]}
    if phase == "rank":
        values = mandate["values"]
        scored = sorted((-(values[c["merchant"]] - c["price"]), c["listing_id"]) for c in obs["candidates"]
                        if values[c["merchant"]] >= c["price"] <= mandate["budget"])
        return {"rank": [lid for _, lid in scored]}
    if phase == "pay":
        return [{"kind": "authorize_payment", "order_id": o["order_id"], "amount": o["total"]}
                for o in obs["orders"] if o["status"] == "placed"] or None
    if phase == "fulfil":
        return [a for o in obs["orders"] for a in fulfil(o)] or None
    return None


def fulfil(order: dict[str, Any]) -> list[dict[str, Any]]:
    """The Merchant actions that take one order from authorised to shipped."""
    oid, status = order["order_id"], order["status"]
    steps: list[dict[str, Any]] = []
    if status == "authorized":
        steps.append({"kind": "capture_payment", "payment_id": order["payment_id"],
                      "amount": order["authorized"] - order["captured"]})
    if status in {"authorized", "paid"}:
        steps.append({"kind": "allocate_inventory", "order_id": oid})
    if status in {"authorized", "paid", "allocated"}:
        steps.append({"kind": "ship_order", "order_id": oid})
    return steps


def random_agent(agent: str, seed: int = 0) -> AgentPolicy:
    """A policy acting at random within its phase (prices, rankings, which obligations it keeps)."""
    digest = hashlib.sha256(f"{seed}:{agent}".encode()).digest()
    rng = np.random.default_rng(int.from_bytes(digest[:8], "big"))

    def act(obs: dict[str, Any]) -> Any:
        phase, mandate = obs["phase"], obs["mandate"]
        if not obs["my_turn"]:
            return None
        if phase == "quote":
            cost = mandate["cost"]
            return {"kind": "update_listing", "listing_id": obs["listing"]["listing_id"],
                    "price": int(rng.integers(cost // 2, 2 * cost + 1))}
        if phase == "rank":
            ids = [c["listing_id"] for c in obs["candidates"]]
            picked = rng.permutation(len(ids))[: int(rng.integers(0, len(ids) + 1))] if ids else []
            return {"rank": [ids[int(i)] for i in picked]}
        if phase == "pay":
            return [{"kind": "authorize_payment", "order_id": o["order_id"], "amount": o["total"]}
                    for o in obs["orders"] if o["status"] == "placed" and rng.random() < 0.7] or None
        if phase == "fulfil":
            return [a for o in obs["orders"] if rng.random() < 0.7 for a in fulfil(o)] or None
        return None

    return act


def policies(kind: str, agents: list[str], seed: int = 0) -> dict[str, AgentPolicy]:
    """One policy per agent: ``truthful`` or ``random``."""
    if kind == "truthful":
        return dict.fromkeys(agents, truthful)
    if kind == "random":
        return {a: random_agent(a, seed) for a in agents}
    raise ValueError(f"unknown agent kind {kind!r}; choose truthful or random")


def play(env: Any, policy: AgentPolicy | dict[str, AgentPolicy], seed: int | None = None) -> Any:
    """Run one AEC episode of ``env`` with one policy for all agents or one per agent; return the env."""
    env.reset(seed=seed)
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        act = policy[agent] if isinstance(policy, dict) else policy
        env.step(act(obs))
    return env
