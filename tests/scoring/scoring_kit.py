"""Shared builders for scoring tests: hand-built tasks, records and states; real demo runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from acworld_env.tasks.spec import PolicyRef, PredicateSpec, TaskSpec
from acworld_env.world import empty_state
from acworld_env.world.digest import GENESIS, chain

BUYER, MERCHANT = "buyer_0", "merchant_0"


def make_task(predicates: list[PredicateSpec], *, sealed: list[int] | None = None) -> TaskSpec:
    """A minimal task holding only what scoring reads."""
    return TaskSpec(
        task_id="test/hand-built", family="test", capability="test", role="buyer", actor=BUYER,
        request="test", sealed=sealed or [], initial_state=empty_state(), predicates=predicates,
        reference=PolicyRef(name="fixed", params={"actions": []}),
    )


def pred(pid: str, kind: str, params: dict, weight: float = 1.0, stage: str = "Decision",
         loss_group: str = "Choice", required: bool = True) -> PredicateSpec:
    """A predicate spec with test defaults."""
    return PredicateSpec(id=pid, kind=kind, params=params, weight=weight, stage=stage,
                         loss_group=loss_group, required=required)


def rec(n: int, action: dict, *, actor: str = BUYER, accepted: bool = True, code: str = "ok",
        evidence: list[str] | None = None, commit: int | None = None, round_: int = 0) -> dict[str, Any]:
    """A minimal lineage record of the shape predicates read."""
    return {"n": n, "round": round_, "actor": actor, "action": action,
            "validation": {"accepted": accepted, "code": code}, "evidence": evidence or [], "commit": commit}


def state(**tables: dict) -> dict[str, Any]:
    """An empty World state with some tables filled in."""
    s = empty_state()
    s.update(tables)
    return s


# -- random actions for the demo task ---------------------------------------------------

DEMO_ACTIONS: list[Any] = [
    {"kind": "propose_offer", "to": MERCHANT, "listing_id": "L-grinder", "unit_price": 8_000},
    {"kind": "propose_offer", "to": MERCHANT, "listing_id": "L-grinder", "unit_price": 12_000},
    {"kind": "counter_offer", "thread_id": "thr-0001", "unit_price": 9_500},
    {"kind": "counter_offer", "thread_id": "thr-0001", "unit_price": 10_500},
    {"kind": "accept_offer", "thread_id": "thr-0001"},
    {"kind": "reject_offer", "thread_id": "thr-0001", "reason": "No thanks."},
    {"kind": "place_order", "thread_id": "thr-0001"},
    {"kind": "authorize_payment", "order_id": "ord-0001", "amount": 9_500, "idempotency_key": "pay-1"},
    {"kind": "authorize_payment", "order_id": "ord-0001", "amount": 10_000},
    {"kind": "send_message", "to": MERCHANT, "text": "Could you do a bit better?"},
    {"kind": "send_message", "to": MERCHANT, "text": "My budget is $100."},
    {"kind": "get_listing", "listing_id": "L-grinder"},
    {"kind": "get_inbox"},
    {"kind": "propose_offer", "actor": MERCHANT, "to": MERCHANT, "listing_id": "L-grinder", "unit_price": 9_000},
    {"kind": "no_such_tool"},
    "{not json",
    {"kind": "finish", "summary": "done"},
    {"kind": "abstain", "reason": "Too expensive."},
]


_TERMINAL_P = 0.02
_ACTION_P = np.array([_TERMINAL_P if isinstance(a, dict) and a["kind"] in {"finish", "abstain"} else 1.0
                      for a in DEMO_ACTIONS])
_ACTION_P[_ACTION_P == 1.0] = (1 - _TERMINAL_P * 2) / (_ACTION_P == 1.0).sum()


class RandomDemoPolicy:
    """Draws actions from :data:`DEMO_ACTIONS` with a seeded numpy Generator (terminal ones rarely)."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(self.seed)

    def act(self, observation: dict) -> Any:
        return DEMO_ACTIONS[int(self.rng.choice(len(DEMO_ACTIONS), p=_ACTION_P))]


# -- artifacts ---------------------------------------------------------------------------

def rechain(run_dir: Path, records: list[dict]) -> None:
    """Rewrite a trace with a valid chain and record its digest (a forger who knows the format)."""
    head = GENESIS
    with open(run_dir / "trace.jsonl", "w", encoding="utf-8") as fh:
        for i, r in enumerate(records, start=1):
            body = {k: v for k, v in r.items() if k != "hash"}
            body.update(n=i, prev=head)
            body["hash"] = head = chain(head, {k: v for k, v in body.items() if k != "hash"})
            fh.write(json.dumps(body, sort_keys=True, ensure_ascii=False) + "\n")
    run = json.loads((run_dir / "run.json").read_text())
    run["trace_digest"] = head
    (run_dir / "run.json").write_text(json.dumps(run, indent=2, sort_keys=True) + "\n")


