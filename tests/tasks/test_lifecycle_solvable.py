"""T7 tasks are solvable from what the agent sees: clerks that read only their observation (the mandate's
cases and the records their queries return) and apply the stated policy earn full credit.

They are independent of the reference plans (which are given the answers), so a task whose
decisive fact were hidden from the agent would fail here.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from acworld_env.eval.rollout import run_episode
from acworld_env.tasks.families.lifecycle import build

TASKS = build(0, frozen=True)
Script = Generator[dict, Any, None]


class Clerk:
    """Runs a generator that yields actions and receives each action's result (None when refused)."""

    def __init__(self, script: Any) -> None:
        self.script = script

    def reset(self, seed: int | None = None) -> None:
        self.gen: Script | None = None

    def act(self, obs: dict[str, Any]) -> dict:
        last = obs.get("last_result") or {}
        try:
            if self.gen is None:
                self.gen = self.script(obs)
                return next(self.gen)
            return self.gen.send(last.get("result") if last.get("accepted") else None)
        except StopIteration:
            return {"kind": "finish", "summary": "Done."}


def refund_clerk(obs: dict) -> Script:
    fee = obs["mandate"]["restocking_fee_percent"]
    for c in obs["mandate"]["cases"]:
        ret = yield {"kind": "get_return", "return_id": c["return_id"]}
        pay = yield {"kind": "get_payment", "payment_id": c["payment_id"]}
        order = yield {"kind": "get_order", "order_id": c["order_id"]}
        shp = yield {"kind": "get_shipment", "shipment_id": order["shipment"]}
        damaged = bool(shp["exceptions"])
        owed = ret["amount"] - (0 if damaged else ret["amount"] * fee // 100) - pay["refunded"]
        yield {"kind": "issue_refund", "payment_id": c["payment_id"], "amount": owed, "return_id": c["return_id"]}
        if not damaged:
            for line in ret["lines"]:
                yield {"kind": "restock", "listing_id": line["listing_id"], "quantity": line["quantity"]}
        for extra in order.get("additional_payments", []):
            yield {"kind": "void_authorization", "payment_id": extra}


def ledger_clerk(obs: dict) -> Script:
    for c in obs["mandate"]["cases"]:
        order = yield {"kind": "get_order", "order_id": c["order_id"]}
        if order["status"] != "delivered" or c.get("dispute_id"):
            continue
        if c.get("return_id"):
            ret = yield {"kind": "get_return", "return_id": c["return_id"]}
            if ret["status"] == "requested":
                continue
            yield {"kind": "issue_refund", "payment_id": order["payment"], "amount": ret["amount"],
                   "return_id": c["return_id"]}
            for line in ret["lines"]:
                yield {"kind": "restock", "listing_id": line["listing_id"], "quantity": line["quantity"]}
        for extra in order.get("additional_payments", []):
            yield {"kind": "void_authorization", "payment_id": extra}
        yield {"kind": "close_ledger", "order_id": c["order_id"]}


def authorization_clerk(obs: dict) -> Script:
    window = obs["mandate"]["return_window_days"]
    for c in obs["mandate"]["cases"]:
        ret = yield {"kind": "get_return", "return_id": c["return_id"]}
        order = yield {"kind": "get_order", "order_id": c["order_id"]}
        shp = yield {"kind": "get_shipment", "shipment_id": order["shipment"]}
        listings = []
        for line in ret["lines"]:
            listings.append((yield {"kind": "get_listing", "listing_id": line["listing_id"]}))
        ok = -order["delivered_round"] <= window and not any(
            x["claims"].get("final_sale") or x["claims"].get("made_to_order") for x in listings)
        if "damaged" in ret["reason"].lower() and not shp["exceptions"]:
            ok = False
        yield {"kind": "authorize_return", "return_id": c["return_id"], "approve": ok}
        if ok:
            yield {"kind": "issue_refund", "payment_id": c["payment_id"], "amount": ret["amount"],
                   "return_id": c["return_id"]}


def cancel_clerk(obs: dict) -> Script:
    for c in obs["mandate"]["cases"]:
        order = yield {"kind": "get_order", "order_id": c["order_id"]}
        if order["status"] in {"placed", "authorized", "paid"}:
            yield {"kind": "cancel_order", "order_id": c["order_id"]}
            yield {"kind": "close_ledger", "order_id": c["order_id"]}


def buyer_cancel_clerk(obs: dict) -> Script:
    move = obs["mandate"]["move_day"]
    for c in obs["mandate"]["cases"]:
        order = yield {"kind": "get_order", "order_id": c["order_id"]}
        if order["eta_round"] > move and order["status"] != "shipped":
            yield {"kind": "cancel_order", "order_id": c["order_id"]}
        else:
            for extra in order.get("additional_payments", []):
                yield {"kind": "void_authorization", "payment_id": extra}


def _pick(items: list[dict], rules: dict) -> dict:
    """The first listing a search showed that meets the replacement rules."""
    for x in items:
        title = x["title"].lower()
        if (f"size {rules['size'].lower()}," in title and x["quantity"] > 0
                and ("colour" not in rules or title.endswith(rules["colour"]))
                and x["price"] <= rules.get("price_cap", x["price"])):
            return x
    raise AssertionError(f"no listing meets {rules}")


def exchange_clerk(obs: dict) -> Script:
    rules, c = obs["mandate"]["replacement"], obs["mandate"]["cases"][0]
    order = yield {"kind": "get_order", "order_id": c["order_id"]}
    page = yield {"kind": "search_listings", "text": rules["product"], "page_size": 50}
    pick = _pick(page["items"], rules)
    yield {"kind": "offer_exchange", "return_id": c["return_id"], "listing_id": pick["listing_id"]}
    paid = order["lines"][0]["unit_price"]
    if pick["price"] < paid:
        yield {"kind": "issue_refund", "payment_id": order["payment"], "amount": paid - pick["price"]}
    yield {"kind": "restock", "listing_id": order["lines"][0]["listing_id"], "quantity": 1}


def buyer_exchange_clerk(obs: dict) -> Script:
    rules, c = obs["mandate"]["replacement"], obs["mandate"]["cases"][0]
    order = yield {"kind": "get_order", "order_id": c["order_id"]}
    wrong = []
    for line in order["lines"]:
        listing = yield {"kind": "get_listing", "listing_id": line["listing_id"]}
        if listing["title"].lower().startswith(rules["product"].lower()):
            wrong.append({"listing_id": line["listing_id"], "quantity": 1})
    yield {"kind": "request_return", "order_id": c["order_id"], "lines": wrong, "reason": "Wrong size."}
    page = yield {"kind": "search_listings", "text": rules["product"], "page_size": 50}
    pick = _pick(page["items"], rules)
    placed = yield {"kind": "place_order", "merchant_id": order["merchant"],
                    "lines": [{"listing_id": pick["listing_id"], "quantity": 1}]}
    yield {"kind": "authorize_payment", "order_id": placed["order_id"], "amount": placed["total"]}


def dispute_clerk(obs: dict) -> Script:
    for c in obs["mandate"]["cases"]:
        dispute = yield {"kind": "get_dispute", "dispute_id": c["dispute_id"]}
        order = yield {"kind": "get_order", "order_id": c["order_id"]}
        shp = yield {"kind": "get_shipment", "shipment_id": order["shipment"]}
        if shp["exceptions"]:
            pay = yield {"kind": "get_payment", "payment_id": order["payment"]}
            refund = yield {"kind": "issue_refund", "payment_id": order["payment"],
                            "amount": pay["captured"] - pay["refunded"]}
            evidence = [order["shipment"], refund["refund_id"]]
        elif dispute["reason"] == "not_received":
            evidence = [order["shipment"], c["order_id"]]
        else:
            evidence = [order["payment"], c["order_id"]]
        yield {"kind": "respond_dispute", "dispute_id": c["dispute_id"], "evidence": evidence}


def buyer_dispute_clerk(obs: dict) -> Script:
    for c in obs["mandate"]["cases"]:
        order = yield {"kind": "get_order", "order_id": c["order_id"]}
        if order["refunded"] >= order["total"]:
            continue
        if order.get("additional_payments"):
            reason, evidence = "unauthorized", order["additional_payments"][1:] or order["additional_payments"]
        elif order["status"] == "shipped":
            reason, evidence = "not_received", [order["shipment"], order["payment"]]
        else:
            reason, evidence = "damaged", [order["shipment"]]
        yield {"kind": "open_dispute", "order_id": c["order_id"], "reason": reason, "evidence": evidence}


def return_clerk(obs: dict) -> Script:
    window, by_order = obs["mandate"]["return_window_days"], {}
    for want in obs["mandate"]["send_back"]:
        order = yield {"kind": "get_order", "order_id": want["order_id"]}
        listing = yield {"kind": "get_listing", "listing_id": want["listing_id"]}
        if obs["round"] - order["delivered_round"] <= window and not listing["claims"].get("final_sale"):
            by_order.setdefault(want["order_id"], []).append(
                {"listing_id": want["listing_id"], "quantity": want["quantity"]})
    for oid, lines in by_order.items():
        yield {"kind": "request_return", "order_id": oid, "lines": lines, "reason": "Not needed after all."}


CLERKS = {"merchant_exchange": exchange_clerk, "buyer_exchange": buyer_exchange_clerk,
          "merchant_dispute": dispute_clerk, "buyer_dispute": buyer_dispute_clerk,
          "buyer_return_refund": return_clerk, "merchant_refund": refund_clerk, "merchant_ledger_close": ledger_clerk,
          "merchant_return_authorization": authorization_clerk, "merchant_cancel": cancel_clerk,
          "buyer_cancel": buyer_cancel_clerk}


@pytest.mark.parametrize("task", [t for t in TASKS + build(1, frozen=False) if t.capability in CLERKS],
                         ids=lambda t: t.task_id.replace("/T7/", "/"))
def test_a_clerk_reading_only_its_observation_earns_full_credit(task: Any) -> None:
    score = run_episode(task, Clerk(CLERKS[task.capability])).score
    assert score.score == pytest.approx(1.0), {k: v for k, v in score.credits.items() if v < 1}
