"""Menu slot builders that put orders right: fill what is on hand, refund what a customer is owed, withdraw a
claim the request's facts contradict.

Builders have the :data:`~acworld_env.envs.candidates.Builder` signature ``(known, index)`` and read only
:class:`~acworld_env.envs.known.Known`: the lines of an order (as read, or as the request states them:
"ord-0003: 3 x L-002"), the stock last seen of each listing (kept current with delivery notices and the
agent's own commitments), the agent's own partial fills and exchanges, the prices and refunded figures it
read, the fair unit price and product facts its request states, and the restocking fee it quotes.

* ``order[k].fill:cancel`` / ``fill:backorder``: fill the ``k``-th order seen with the units on hand of each
  of its lines, the rest cancelled or backordered (only when some line is short and some unit is on hand);
* ``order[k].refund:unsent``: refund the price of the units the agent's own partial fill of that order
  cancelled;
* ``order[k].refund:overcharge``: refund what its lines were charged above the fair unit price the
  request states ("should have paid $69 a unit");
* ``return[k].refund:credit`` / ``refund-fee:credit``: refund the return's amount (less the restocking
  fee) less the credit already refunded on its order, tied to the return;
* ``return[k].refund:exchange-difference``: after the agent's own exchange, refund what the return's
  amount exceeds the replacement's price;
* ``order[k].get`` and ``order[k].refund:overcharge`` for the orders seen past the menu's first
  ``N_ORDERS`` (a shop's history of 12 orders), up to :data:`N_FAR_ORDERS`;
* ``claims:retract-contradicted``: withdraw the first claim of the agent's own listing that a fact the
  request states contradicts ("the maker's warranty is 1 year" against a claimed "2 years").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .candidates_aftersales import _payment_of
from .known import Known, plain_int

Builder = Callable[[Known, int], "dict[str, Any] | None"]
REMAINDERS = ("cancel", "backorder")
N_FAR_ORDERS = 16
"""Orders seen that the menu can read and refund an overcharge on (the other order slots cover fewer)."""


def _order(k: Known, i: int) -> str | None:
    return k.nth("orders", i)


def fill(remainder: str) -> Builder:
    """Fill the ``i``-th order seen with the units on hand, the rest ``remainder``-ed (see the module docstring)."""
    def build(k: Known, i: int) -> dict[str, Any] | None:
        oid = _order(k, i)
        if oid is None or oid in k.filled:
            return None
        lines, short = [], False
        for x in k.order_lines(oid):
            wanted, stock = plain_int(x.get("quantity")), plain_int(k["listings"].get(x.get("listing_id"), {}).get("stock"))
            if wanted is None or stock is None:
                return None
            short |= stock < wanted
            if min(wanted, stock) > 0:
                lines.append({"listing_id": x["listing_id"], "quantity": min(wanted, stock)})
        if not short or not lines:
            return None
        return {"kind": "partial_fill", "order_id": oid, "lines": lines, "remainder": remainder}

    return build


def _unit_price(k: Known, line: dict[str, Any]) -> int | None:
    return plain_int(line.get("unit_price")) or plain_int(k["listings"].get(line.get("listing_id"), {}).get("price"))


def refund_unsent(k: Known, i: int) -> dict[str, Any] | None:
    """Refund the price of the units the agent's own partial fill of the ``i``-th order seen cancelled."""
    oid = _order(k, i)
    done = k.filled.get(oid) if oid else None
    if done is None or done.get("remainder") != "cancel":
        return None
    amount = 0
    for x in k.order_lines(oid):
        price, wanted = _unit_price(k, x), plain_int(x.get("quantity"))
        if price is None or wanted is None:
            return None
        amount += (wanted - (done["lines"].get(x.get("listing_id")) or 0)) * price
    pay = _payment_of(k, oid)
    return {"kind": "issue_refund", "payment_id": pay, "amount": amount} if pay and amount > 0 else None


def refund_overcharge(k: Known, i: int) -> dict[str, Any] | None:
    """Refund what the ``i``-th order seen was charged above the fair unit price the request states."""
    oid = _order(k, i)
    if oid is None or k.fair_unit is None:
        return None
    lines = k["orders"][oid].get("lines") or []
    amount = sum(max(0, (plain_int(x.get("unit_price")) or 0) - k.fair_unit) * (plain_int(x.get("quantity")) or 0)
                 for x in lines if plain_int(x.get("unit_price")) is not None)
    pay = _payment_of(k, oid)
    return {"kind": "issue_refund", "payment_id": pay, "amount": amount} if pay and amount > 0 else None


def _fee(k: Known) -> int | None:
    fee = k.fee_pct if k.fee_pct is not None else plain_int(k.mandate.get("restocking_fee_percent"))
    return fee or None


def refund_credit(less_fee: bool) -> Builder:
    """Refund the ``i``-th return seen its amount (less the fee) less the credit already refunded on its order."""
    def build(k: Known, i: int) -> dict[str, Any] | None:
        rid = k.nth("returns", i)
        ret = k["returns"][rid] if rid else {}
        oid, amount, fee = ret.get("order"), plain_int(ret.get("amount")), _fee(k)
        pay = _payment_of(k, oid)
        if pay is None or amount is None or (less_fee and fee is None):
            return None
        credit = plain_int(k["payments"].get(pay, {}).get("refunded"))
        if credit is None and isinstance(oid, str):
            credit = plain_int(k["orders"].get(oid, {}).get("refunded"))
        if not credit:
            return None  # no credit: the plain refund slots say the same
        if less_fee:
            amount = int(round(amount * (100 - (fee or 0)) / 100))
        owed = amount - credit
        return {"kind": "issue_refund", "payment_id": pay, "amount": owed, "return_id": rid} if owed > 0 else None

    return build


def refund_exchange_difference(k: Known, i: int) -> dict[str, Any] | None:
    """After the agent's own exchange for the ``i``-th return seen, refund what the return's amount exceeds
    the replacement's price."""
    rid = k.nth("returns", i)
    if rid is None or rid not in k.exchanged:
        return None
    ret = k["returns"][rid]
    amount, price = plain_int(ret.get("amount")), plain_int(k["listings"].get(k.exchanged[rid], {}).get("price"))
    pay = _payment_of(k, ret.get("order"))
    if amount is None or price is None or pay is None or amount <= price:
        return None
    return {"kind": "issue_refund", "payment_id": pay, "amount": amount - price}


def _norm(text: Any) -> str:
    return " ".join(str(text).lower().replace("one ", "1 ").split()).rstrip("s")


def retract_contradicted(k: Known, _: int) -> dict[str, Any] | None:
    """Withdraw the first claim of the agent's own listing that a fact the request states contradicts."""
    lid = k.mandate.get("listing_id", k.mandate.get("listing"))
    rec = k["listings"].get(lid) if isinstance(lid, str) else None
    claims = rec.get("claims") if rec else None
    if not isinstance(claims, dict) or not k.facts:
        return None
    for key, said in claims.items():
        fact = k.facts.get(str(key).lower())
        if fact is not None and _norm(said) != _norm(fact):
            return {"kind": "retract_claim", "listing_id": lid, "claim": key}
    return None


def slots(n_orders: int, n_returns: int) -> list[tuple[str, str, Builder, int]]:
    """The remedy slots: ``(label, kind, builder, index)``."""
    out: list[tuple[str, str, Builder, int]] = []
    for i in range(n_orders):
        out += [(f"order[{i}].fill:{r}", "partial_fill", fill(r), i) for r in REMAINDERS]
        out += [(f"order[{i}].refund:unsent", "issue_refund", refund_unsent, i),
                (f"order[{i}].refund:overcharge", "issue_refund", refund_overcharge, i)]
    for i in range(n_returns):
        out += [(f"return[{i}].refund:credit", "issue_refund", refund_credit(False), i),
                (f"return[{i}].refund-fee:credit", "issue_refund", refund_credit(True), i),
                (f"return[{i}].refund:exchange-difference", "issue_refund", refund_exchange_difference, i)]
    out.append(("claims:retract-contradicted", "retract_claim", retract_contradicted, 0))
    return out


def _get_order(k: Known, i: int) -> dict[str, Any] | None:
    oid = _order(k, i)
    return None if oid is None else {"kind": "get_order", "order_id": oid}


def far_order_slots(n_orders: int) -> list[tuple[str, str, Builder, int]]:
    """Read, and refund an overcharge on, the orders seen from index ``n_orders`` to :data:`N_FAR_ORDERS`."""
    return [(label, kind, build, i) for i in range(n_orders, N_FAR_ORDERS)
            for label, kind, build in ((f"order[{i}].get", "get_order", _get_order),
                                       (f"order[{i}].refund:overcharge", "issue_refund", refund_overcharge))]
