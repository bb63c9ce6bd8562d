"""The T6 plan runner: reference and mutation policies of the inventory family.

A plan is a list of steps, each waiting for a trigger and then taking its actions in turn:
``{"after": {"event": "evt-002"}}`` waits until that supply notice has reached the inbox,
``{"after": {"round": 6}}`` until the clock reaches round 6, ``{"after": {}}`` not at all.
Steps run in order. An action value ``"$order"`` stands for the order the last accepted
``place_order`` created (read from the result), so a plan can pay what it just ordered.
A mutation is the same runner with a plan that makes one targeted wrong decision.
"""

from __future__ import annotations

from typing import Any

from ..names import register_policy

LAST_ORDER = "$order"
"""Placeholder for the id of the order the policy placed last."""


@register_policy("inventory_plan")
class PlanRunner:
    """Runs a plan of triggered steps, then finishes with ``final`` (``finish`` by default)."""

    def __init__(self, *, steps: list[dict], final: dict | None = None) -> None:
        self.steps = steps
        self.final = final or {"kind": "finish", "summary": "Done."}
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """Forget the episode."""
        self.next_step = 0
        self.queue: list[dict] = []
        self.seen: set[str] = set()
        self.last_order: str | None = None

    def _due(self, trigger: dict, round_: int) -> bool:
        if "event" in trigger and trigger["event"] not in self.seen:
            return False
        return round_ >= trigger.get("round", 0)

    def _resolve(self, action: dict) -> dict:
        return {k: (self.last_order if v == LAST_ORDER else v) for k, v in action.items()}

    def act(self, obs: dict[str, Any]) -> dict | None:
        """The next planned action; None while waiting for a trigger; ``final`` at the end."""
        last = obs.get("last_result") or {}
        if last.get("kind") == "place_order" and last.get("accepted") and isinstance(last.get("result"), dict):
            self.last_order = last["result"].get("order_id")
        self.seen |= {m["event_id"] for m in obs["inbox"] if m.get("event_id")}
        while not self.queue and self.next_step < len(self.steps) and self._due(
                self.steps[self.next_step].get("after", {}), obs["round"]):
            self.queue = [dict(a) for a in self.steps[self.next_step]["do"]]
            self.next_step += 1
        if self.queue:
            return self._resolve(self.queue.pop(0))
        if self.next_step >= len(self.steps):
            return dict(self.final)
        return None


def step(do: list[dict], *, event: str | None = None, round_: int | None = None) -> dict:
    """A plan step: ``do`` once ``event`` has arrived and the clock reached ``round_``."""
    after: dict[str, Any] = {}
    if event is not None:
        after["event"] = event
    if round_ is not None:
        after["round"] = round_
    return {"after": after, "do": do}


def plan_ref(steps: list[dict], final: dict | None = None) -> dict:
    """Parameters of an ``inventory_plan`` policy."""
    return {"steps": steps, **({"final": final} if final else {})}
