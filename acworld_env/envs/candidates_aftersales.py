"""Menu slot builders for after-sales records: ledgers, partial returns, refunds against returns, disputes.

Builders have the :data:`~acworld_env.envs.candidates.Builder` signature ``(known, index)`` and read
only :class:`~acworld_env.envs.known.Known`: the records the agent read (an order's lines, payment
and shipment; a return's order, lines and amount; a payment's order), the refunds its own refunds
returned, and the restocking fee its request quotes.

* order ``k``: read its ledger; return one of its lines (that line's quantity, one unit, or the
  part the request states: "2 of the 3 units");
  refund it in full on its payment; dispute it for a
  reason, citing its shipment, its shipment and payment, or another payment seen on it;
* return ``k``: refund its amount (or its amount less the quoted restocking fee) on its order's
  payment, tied to the return (or, when that payment is unknown, on any of the first payments
  seen); restock its first line; offer the ``j``-th listing seen in exchange;
* dispute ``k``: answer citing its order's shipment and the order, its payment and the order, or
  its shipment and the agent's last refund.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .known import Known

Builder = Callable[[Known, int], "dict[str, Any] | None"]
N_RETURN_LINES = 2
"""Lines of an order the menu can return one by one."""
N_DISPUTED = 4
"""Orders the menu can dispute (the first ones seen)."""
N_REFUND_PAYMENTS = 4
"""Payments seen that a return whose own payment is unknown can be refunded on."""
N_EXCHANGE = 8
"""Listings the menu can offer in exchange for a return."""
DISPUTE_REASONS = ("not_received", "damaged", "unauthorized")
DISPUTE_EVIDENCE = ("shipment", "shipment+payment", "other_payment")
DISPUTE_ANSWERS = ("shipment+order", "payment+order", "shipment+refund")


def _rec(k: Known, table: str, i: int) -> tuple[str, dict[str, Any]] | None:
    key = k.nth(table, i)
    return None if key is None else (key, k[table][key])


def ledger(k: Known, i: int) -> dict[str, Any] | None:
    """Read the ledger of the ``i``-th order seen."""
    oid = k.nth("orders", i)
    return None if oid is None else {"kind": "get_ledger", "order_id": oid}


def return_line(line: int, part: str) -> Builder:
    """Return line ``line`` of the ``i``-th order seen: all its units (``part="all"``), one unit
    (``"one"``), or the part of them the request states ("2 of the 3 units", ``"stated"``)."""
    def build(k: Known, i: int) -> dict[str, Any] | None:
        found = _rec(k, "orders", i)
        if found is None or line >= len(found[1].get("lines", [])):
            return None
        x = found[1]["lines"][line]
        quantity = x.get("quantity", 1)
        units = {"all": quantity, "one": 1, "stated": k.part_units.get(quantity, quantity)}[part]
        if part != "all" and units == quantity:
            return None  # the same action as the whole line
        return {"kind": "request_return", "order_id": found[0], "reason": "Returning this item.",
                "lines": [{"listing_id": x["listing_id"], "quantity": units}]}

    return build


def _other_payment(k: Known, oid: str, main: Any) -> str | None:
    return next((pid for pid, p in k["payments"].items() if p.get("order") == oid and pid != main), None)


def dispute(reason: str, evidence: str) -> Builder:
    """Dispute the ``i``-th order seen for ``reason``, citing ``evidence`` (see the module docstring)."""
    def build(k: Known, i: int) -> dict[str, Any] | None:
        found = _rec(k, "orders", i)
        if found is None:
            return None
        oid, order = found
        shp, pay = order.get("shipment"), order.get("payment")
        cited = {"shipment": [shp], "shipment+payment": [shp, pay],
                 "other_payment": [_other_payment(k, oid, pay)]}[evidence]
        if not all(isinstance(x, str) for x in cited):
            return None
        return {"kind": "open_dispute", "order_id": oid, "reason": reason, "evidence": cited,
                "note": "See the attached records."}

    return build


def _payment_of(k: Known, oid: Any) -> str | None:
    if not isinstance(oid, str):
        return None
    pay = k["orders"].get(oid, {}).get("payment")
    if isinstance(pay, str):
        return pay
    return next((pid for pid, p in k["payments"].items() if p.get("order") == oid), None)


def refund_return(less_fee: bool) -> Builder:
    """Refund the ``i``-th return seen its amount (less the quoted restocking fee) on its order's payment."""
    def build(k: Known, i: int) -> dict[str, Any] | None:
        found = _rec(k, "returns", i)
        if found is None or (less_fee and not k.fee_pct):
            return None
        rid, ret = found
        pay, amount = _payment_of(k, ret.get("order")), ret.get("amount")
        if pay is None or not isinstance(amount, int):
            return None
        if less_fee:
            amount = int(round(amount * (100 - (k.fee_pct or 0)) / 100))
        return {"kind": "issue_refund", "payment_id": pay, "amount": amount, "return_id": rid} if amount > 0 else None

    return build


def refund_order(k: Known, i: int) -> dict[str, Any] | None:
    """Refund the ``i``-th order seen in full (its total) on its payment."""
    found = _rec(k, "orders", i)
    if found is None or not isinstance(found[1].get("total"), int):
        return None
    pay = _payment_of(k, found[0])
    return None if pay is None else {"kind": "issue_refund", "payment_id": pay, "amount": found[1]["total"]}


def refund_return_on(j: int) -> Builder:
    """Refund the ``i``-th return seen its amount on the ``j``-th payment seen, when the return's own
    payment is not known (the agent picks which payment is the order's)."""
    def build(k: Known, i: int) -> dict[str, Any] | None:
        found = _rec(k, "returns", i)
        pay = k.nth("payments", j)
        if found is None or pay is None or _payment_of(k, found[1].get("order")) is not None:
            return None
        amount = found[1].get("amount")
        return {"kind": "issue_refund", "payment_id": pay, "amount": amount, "return_id": found[0]} \
            if isinstance(amount, int) and amount > 0 else None

    return build


def restock_return(k: Known, i: int) -> dict[str, Any] | None:
    """Restock the first line of the ``i``-th return seen."""
    found = _rec(k, "returns", i)
    lines = found[1].get("lines") if found else None
    if not lines:
        return None
    return {"kind": "restock", "listing_id": lines[0]["listing_id"], "quantity": lines[0].get("quantity", 1)}


def exchange(j: int) -> Builder:
    """Offer the ``j``-th listing seen in exchange for the ``i``-th return seen."""
    def build(k: Known, i: int) -> dict[str, Any] | None:
        rid, lid = k.nth("returns", i), k.nth("listings", j)
        return None if rid is None or lid is None else {"kind": "offer_exchange", "return_id": rid, "listing_id": lid}

    return build


def answer_dispute(cite: str) -> Builder:
    """Answer the ``i``-th dispute seen, citing ``cite`` (see the module docstring)."""
    def build(k: Known, i: int) -> dict[str, Any] | None:
        found = _rec(k, "disputes", i)
        if found is None:
            return None
        did, rec = found
        oid = rec.get("order")
        order = k["orders"].get(oid, {}) if isinstance(oid, str) else {}
        refund = k.refunds[-1] if k.refunds else None
        cited = {"shipment+order": [order.get("shipment"), oid], "payment+order": [order.get("payment"), oid],
                 "shipment+refund": [order.get("shipment"), refund]}[cite]
        if not all(isinstance(x, str) for x in cited):
            return None
        return {"kind": "respond_dispute", "dispute_id": did, "evidence": cited, "note": "See the attached records."}

    return build


def slots(n_orders: int, n_returns: int, n_disputes: int) -> list[tuple[str, str, Builder, int]]:
    """The after-sales slots: ``(label, kind, builder, index)``."""
    out: list[tuple[str, str, Builder, int]] = []
    for i in range(n_orders):
        out.append((f"order[{i}].ledger", "get_ledger", ledger, i))
        out += [(f"order[{i}].return:line{j}{'' if part == 'all' else ':' + part}", "request_return",
                 return_line(j, part), i) for j in range(N_RETURN_LINES) for part in ("all", "one", "stated")]
        out.append((f"order[{i}].refund:total", "issue_refund", refund_order, i))
    for i in range(min(n_orders, N_DISPUTED)):
        out += [(f"order[{i}].dispute:{r}+{e}", "open_dispute", dispute(r, e), i)
                for r in DISPUTE_REASONS for e in DISPUTE_EVIDENCE]
    for i in range(n_returns):
        out += [(f"return[{i}].refund", "issue_refund", refund_return(False), i),
                (f"return[{i}].refund-fee", "issue_refund", refund_return(True), i),
                (f"return[{i}].restock", "restock", restock_return, i)]
        out += [(f"return[{i}].refund@payment[{j}]", "issue_refund", refund_return_on(j), i)
                for j in range(N_REFUND_PAYMENTS)]
        out += [(f"return[{i}].exchange[{j}]", "offer_exchange", exchange(j), i) for j in range(N_EXCHANGE)]
    for i in range(n_disputes):
        out += [(f"dispute[{i}].answer:{c}", "respond_dispute", answer_dispute(c), i) for c in DISPUTE_ANSWERS]
    return out
