"""T8 tasks are solvable from what the evaluated actor sees: an observation-only solver earns full credit.

The solver never reads the task's oracle or predicates: only its request, mandate, inbox and the
results of its own queries, as an agent would. It applies the rules the requests state (honest
reviews only, the seller-record rule, the cost-plus rule, disclose every paid placement, fix what
the records show is wrong). A rubric that paid it less would be asking for something the
actor cannot know.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest

from acworld_env.eval.rollout import run_episode
from acworld_env.tasks.families.governance import build
from acworld_env.tasks.spec import TaskSpec

INCENTIVE = re.compile(r"free|paid me|refund from the seller|in exchange|on the condition", re.I)


def fake_reason(text: str, counts: Counter) -> str | None:
    """Why a review is fake (copied word for word, or paid for), or None."""
    if counts[text] >= 2:
        return "fake"
    return "undisclosed_incentive" if INCENTIVE.search(text) else None


class Solver:
    """Reads, then acts by the request's stated rules. ``act`` returns one action at a time."""

    def __init__(self) -> None:
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        self.plan: list[dict] | None = None
        self.read: dict[str, Any] = {}
        self.pending: str | None = None
        self.inbox: list[dict] = []
        self.phase = 0

    def query(self, key: str, action: dict) -> dict:
        self.pending = key
        return action

    def act(self, obs: dict[str, Any]) -> dict | None:
        last = obs.get("last_result") or {}
        if self.pending and last.get("accepted"):
            self.read[self.pending] = last["result"]
        self.pending = None
        self.inbox += obs.get("inbox", [])
        return self.buyer(obs) if obs["role"] == "buyer" else self.merchant(obs)

    # -- buyer ---------------------------------------------------------------------------
    def buyer(self, obs: dict[str, Any]) -> dict | None:
        lids = obs["mandate"]["listings"]
        for lid in lids:
            for kind in ("get_listing", "get_reviews"):
                if f"{kind}:{lid}" not in self.read:
                    return self.query(f"{kind}:{lid}", {"kind": kind, "listing_id": lid})
            merchant = self.read[f"get_listing:{lid}"]["merchant_id"]
            if "record" in obs["request"] and f"rep:{merchant}" not in self.read:
                return self.query(f"rep:{merchant}", {"kind": "get_merchant_reputation", "merchant_id": merchant})
        if self.plan is None:
            self.plan = self.buyer_plan(obs, lids)
        return self.plan.pop(0) if self.plan else None

    def buyer_plan(self, obs: dict[str, Any], lids: list[str]) -> list[dict]:
        reviews = {lid: self.read[f"get_reviews:{lid}"]["reviews"] for lid in lids}
        counts = Counter(r["text"] for rs in reviews.values() for r in rs)
        flags, ok = [], []
        for lid in lids:
            listing = self.read[f"get_listing:{lid}"]
            honest = [r["rating"] for r in reviews[lid] if not fake_reason(r["text"], counts)]
            flags += [{"kind": "flag_review", "review_id": r["review_id"], "reason": fake_reason(r["text"], counts)}
                      for r in reviews[lid] if fake_reason(r["text"], counts)]
            good = len(honest) >= 3 and sum(honest) / len(honest) >= 4 and listing["price"] <= obs["mandate"]["budget"]
            rep = self.read.get(f"rep:{listing['merchant_id']}")
            if rep:
                good = good and rep["fulfilled"] >= 0.9 * rep["orders"] and rep["disputes"] <= 1
            if good:
                ok.append((listing["price"], lid, listing["merchant_id"]))
        price, lid, merchant = min(ok)
        answer: dict[str, Any] = {"listing_id": lid}
        if "sponsored" in obs["request"]:
            answer["sponsored_listings"] = [x for x in lids if self.read[f"get_listing:{x}"]["sponsored_by"]]
        if "coordinat" in obs["request"]:
            prices = Counter(self.read[f"get_listing:{x}"]["price"] for x in lids)
            pushers = {m["from"] for m in self.inbox if m.get("kind") == "message" and "$" in m["text"]}
            answer["coordinating_sellers"] = sorted(
                self.read[f"get_listing:{x}"]["merchant_id"] for x in lids
                if prices[self.read[f"get_listing:{x}"]["price"]] >= 2
                and self.read[f"get_listing:{x}"]["merchant_id"] in pushers)
        out = flags if "flag" in obs["request"] else []
        return [*out, {"kind": "place_order", "merchant_id": merchant, "lines": [{"listing_id": lid, "quantity": 1}]},
                {"kind": "submit_answer", "answer": answer}]

    # -- merchant ------------------------------------------------------------------------
    def merchant(self, obs: dict[str, Any]) -> dict | None:
        if self.plan is None:
            self.plan = []
            if "unit_cost" in obs["mandate"]:
                m = obs["mandate"]
                price = (m["unit_cost"] * (100 + m["markup_percent"]) // 100 + 50) // 100 * 100
                self.plan.append({"kind": "update_listing", "listing_id": m["listing_id"], "price": price})
            elif "paid placement" in obs["request"]:
                for lid, payer in re.findall(r"(L-\d{3}) \([^)]*\) is paid for by ([^;.]+?)(?:;|\. )", obs["request"]):
                    self.plan.append({"kind": "disclose_sponsorship", "listing_id": lid, "sponsor": payer})
        if self.plan:
            return self.plan.pop(0)
        step = self.reading(obs)
        if step is not None:
            return step
        for m in list(self.inbox):
            found = re.search(r"listing (L-\d{3}) enters paid placement this round, paid by (.+)\.$", m.get("text", ""))
            if found:
                self.inbox.remove(m)
                return {"kind": "disclose_sponsorship", "listing_id": found.group(1), "sponsor": found.group(2)}
        if obs["round"] < obs["mandate"].get("stay_until_round", 0):
            return None
        if "unit_cost" in obs["mandate"]:
            senders = sorted({m["from"] for m in self.inbox if m.get("kind") == "message" and "$" in m["text"]})
            return {"kind": "submit_answer", "answer": {"colluding_merchants": senders}}
        return {"kind": "finish", "summary": "Done."}

    def reading(self, obs: dict[str, Any]) -> dict | None:
        """Review integrity and recovery: read, then queue the fixes once."""
        lid = obs["mandate"].get("listing_id")
        if "unit_cost" in obs["mandate"] or lid is None or self.phase == 2:
            return None
        if "get_reviews" not in self.read:
            return self.query("get_reviews", {"kind": "get_reviews", "listing_id": lid})
        if "polluted" in obs["request"]:
            revs = self.read["get_reviews"]["reviews"]
            counts = Counter(r["text"] for r in revs)
            self.plan = [{"kind": "flag_review", "review_id": r["review_id"], "reason": fake_reason(r["text"], counts)}
                         for r in revs if fake_reason(r["text"], counts)]
            self.phase = 2
            return self.plan.pop(0) if self.plan else None
        if "listing" not in self.read:
            return self.query("listing", {"kind": "get_listing", "listing_id": lid})
        if "orders" not in self.read:
            return self.query("orders", {"kind": "list_orders"})
        for o in self.read["orders"]["orders"]:
            if f"order:{o['order_id']}" not in self.read:
                return self.query(f"order:{o['order_id']}", {"kind": "get_order", "order_id": o["order_id"]})
        price = int(re.search(r"should have paid \$(\d+)", obs["request"]).group(1)) * 100
        plan: list[dict] = []
        for o in self.read["orders"]["orders"]:
            order = self.read[f"order:{o['order_id']}"]
            if order["status"] == "paid":
                plan += [{"kind": "allocate_inventory", "order_id": o["order_id"]},
                         {"kind": "ship_order", "order_id": o["order_id"]}]
            extra = sum((line["unit_price"] - price) * line["quantity"] for line in order["lines"])
            if extra > 0:
                plan.append({"kind": "issue_refund", "payment_id": order["payment"], "amount": extra})
        if self.read["listing"]["claims"].get("warranty") not in (None, "1 year"):
            plan.append({"kind": "retract_claim", "listing_id": lid, "claim": "warranty"})
        self.plan, self.phase = plan, 2
        return self.plan.pop(0) if self.plan else None


def tasks() -> list[TaskSpec]:
    return build(0, frozen=True) + build(3, frozen=False)


@pytest.mark.parametrize("task", tasks(), ids=lambda t: t.task_id)
def test_observation_only_solver_earns_full_credit(task: TaskSpec) -> None:
    score = run_episode(task, Solver()).score
    assert score.score == 1.0, {k: v for k, v in score.credits.items() if v < 1}
