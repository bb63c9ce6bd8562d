"""Predicate kinds for T7 Order lifecycle and after-sales: every linked record must agree.

An order is *settled* when its payments hold nothing open (authorised == captured), the money
kept (captured - refunded) is what policy allows, its ledger entries say the same, no approved
return is left unpaid, and its ledger is closed or open as the task requires. The other kinds
read returns, exchanges, disputes and new orders from the final World state; the guard kinds
read the actor's proposals from the trace. Kinds that a do-nothing run would satisfy take
``engaged_by`` (see :func:`~acworld_env.scoring.kinds_trade.guard`): they pay only once the
actor made an accepted proposal of one of those kinds.
"""

from __future__ import annotations

from typing import Any

from .kinds import ScoreInput, passed, predicate
from .kinds_trade import guard


def _lookup(record: Any, path: str) -> Any:
    for part in path.split("."):
        if not isinstance(record, dict):
            return None
        record = record.get(part)
    return record


def _check(si: ScoreInput, c: dict) -> bool:
    got = _lookup(si.state[c["table"]].get(c["key"]), c["path"])
    return got in c["one_of"] if "one_of" in c else got == c["value"]


def _payments(si: ScoreInput, order_id: str) -> list[dict]:
    order = si.state["orders"].get(order_id) or {}
    ids = [order.get("payment"), *order.get("additional_payments", [])]
    return [si.state["payments"][p] for p in ids if p]


def ledger_totals(entries: list[dict]) -> dict[str, int]:
    """Open holds and net money kept, as the ledger entries of one order add up."""
    by: dict[str, int] = {}
    for e in entries:
        by[e["type"]] = by.get(e["type"], 0) + int(e.get("amount", 0))
    get = by.get
    return {"held": get("authorize", 0) - get("void", 0) - get("capture", 0),
            "net": get("capture", 0) - get("refund", 0)}


@predicate("lc_fields")
@guard
def lc_fields(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """Every check ``{table, key, path, value | one_of}`` holds in the final World."""
    bad = [f"{c['table']}.{c['key']}.{c['path']}" for c in p["checks"] if not _check(si, c)]
    return passed(not bad, failing=bad)


@predicate("lc_order_settled")
@guard
def lc_order_settled(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """The order's payments, ledger, returns and stock agree with what policy allows.

    ``net``: money the merchant keeps (captured - refunded, over every payment of the order);
    no payment holds an uncaptured authorisation; the ledger adds up to the same; no return of
    the order is approved but unpaid; ``closed`` (when given) is the ledger's closed flag;
    ``statuses`` (when given) the order statuses allowed; ``stock`` (when given) listing stocks.
    """
    oid = p["order_id"]
    pays = _payments(si, oid)
    held = sum(x["authorized"] - x["captured"] for x in pays)
    net = sum(x["captured"] - x["refunded"] for x in pays)
    led = si.state["ledger"].get(oid) or {"entries": [], "closed": False}
    books = ledger_totals(led["entries"])
    unpaid = sorted(r for r, x in si.state["returns"].items() if x["order"] == oid and x["status"] == "authorized")
    status = (si.state["orders"].get(oid) or {}).get("status")
    stock = {lid: si.state["listings"][lid]["stock"] for lid in p.get("stock", {})}
    ok = (held == 0 and net == p["net"] and books == {"held": 0, "net": p["net"]} and not unpaid
          and (p.get("closed") is None or led["closed"] == p["closed"])
          and (not p.get("statuses") or status in p["statuses"]) and stock == p.get("stock", {}))
    return passed(ok, held=held, net=net, expected_net=p["net"], ledger=books, unpaid_returns=unpaid,
                  closed=led["closed"], status=status, stock=stock)


def _lines_of(action: dict) -> set[str]:
    return {x.get("listing_id") for x in action.get("lines") or [] if isinstance(x, dict)}


@predicate("lc_left_alone", critical="other_party")
@guard
def lc_left_alone(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """No proposal (accepted or not) of ``kinds`` touched a protected object, and the World checks hold.

    Protected: an action whose ``field`` is in ``values``, or whose lines name one of
    ``listing_ids`` (for return requests on items that may not be returned).
    """
    values, listings = set(p.get("values", [])), set(p.get("listing_ids", []))
    tried = [r.n for kind in p["kinds"] for r in si.actions(p["actor"], kind)
             if r.action.get(p.get("field", "order_id")) in values or _lines_of(r.action) & listings]
    bad = [f"{c['table']}.{c['key']}.{c['path']}" for c in p.get("checks", []) if not _check(si, c)]
    return passed(not tried and not bad, attempts=sorted(tried), failing=bad)


@predicate("lc_returned_units")
@guard
def lc_returned_units(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """The order's accepted returns cover exactly ``want`` (listing -> units), and it was refunded ``refunded``."""
    oid, statuses = p["order_id"], set(p.get("statuses", ["authorized", "refunded", "exchanged"]))
    got: dict[str, int] = {}
    for r in si.state["returns"].values():
        if r["order"] == oid and r["status"] in statuses:
            for line in r["lines"]:
                got[line["listing_id"]] = got.get(line["listing_id"], 0) + line["quantity"]
    refunded = (si.state["orders"].get(oid) or {}).get("refunded")
    ok = got == p["want"] and (p.get("refunded") is None or refunded == p["refunded"])
    return passed(ok, returned=got, wanted=p["want"], refunded=refunded, expected_refund=p.get("refunded"))


def _dispute_of(si: ScoreInput, p: dict) -> tuple[str | None, dict | None, int]:
    if p.get("dispute_id"):
        return p["dispute_id"], si.state["disputes"].get(p["dispute_id"]), 1
    mine = sorted((d, x) for d, x in si.state["disputes"].items() if x["order"] == p["order_id"])
    return (mine[0][0], mine[0][1], len(mine)) if mine else (None, None, 0)


@predicate("lc_dispute_evidence")
@guard
def lc_dispute_evidence(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """The ``side``'s evidence on the dispute cites every ``required`` record and only ``allowed`` ones.

    The dispute is ``dispute_id``, or the one dispute on ``order_id`` (two disputes fail);
    ``reason`` (when given) is the reason it must have been opened with. Refunds of the order
    may always be cited; with ``refund_cited`` one of them must be.
    """
    did, d, count = _dispute_of(si, p)
    if d is None or count != 1:
        return 0.0, {"dispute": did, "disputes_on_order": count}
    cited = list(d["evidence"].get(p["side"], []))
    order = si.state["orders"].get(d["order"]) or {}
    pays = {x for x in [order.get("payment"), *order.get("additional_payments", [])] if x}
    refunds = {r for r, x in si.state["refunds"].items() if x["payment"] in pays}
    missing = sorted(set(p["required"]) - set(cited))
    if p.get("refund_cited") and not refunds & set(cited):
        missing.append("a refund of this order")
    foreign = sorted(set(cited) - set(p["allowed"]) - refunds)
    ok = not missing and not foreign and (p.get("reason") is None or d["reason"] == p["reason"])
    return passed(ok, dispute=did, cited=cited, missing=missing, not_allowed=foreign, reason=d["reason"])


@predicate("lc_new_order")
@guard
def lc_new_order(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """Exactly one order placed in the episode by ``buyer``: ``quantity`` of one of ``listing_ids``, paid in full."""
    new = sorted(o for o, x in si.state["orders"].items() if x["buyer"] == p["buyer"] and o not in set(p["known"]))
    if len(new) != 1:
        return 0.0, {"new_orders": new}
    order = si.state["orders"][new[0]]
    lines = [(x["listing_id"], x["quantity"]) for x in order["lines"]]
    pay = si.state["payments"].get(order.get("payment") or "") or {}
    ok = (len(lines) == 1 and lines[0][0] in set(p["listing_ids"]) and lines[0][1] == p["quantity"]
          and pay.get("authorized") == order["total"] and not order.get("additional_payments")
          and order["status"] != "cancelled")
    return passed(ok, order=new[0], lines=lines, paid=pay.get("authorized"), total=order["total"])


@predicate("lc_exchange")
@guard
def lc_exchange(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """The return was settled by exactly one exchange, to one of ``listing_ids``.

    With ``unit_price`` and ``quantity`` it also checks the price difference: the order was
    refunded ``prior`` plus (unit_price - replacement price) x quantity when the replacement costs
    less, and only ``prior`` otherwise.
    """
    ex = sorted((e, x) for e, x in si.state["exchanges"].items() if x["return"] == p["return_id"])
    if len(ex) != 1 or ex[0][1]["listing"] not in set(p["listing_ids"]):
        return 0.0, {"exchanges": [x for _, x in ex]}
    listing = ex[0][1]["listing"]
    if "unit_price" not in p:
        return passed(True, exchange=ex[0][0], listing=listing)
    cheaper = max(0, p["unit_price"] - si.state["listings"][listing]["price"]) * p["quantity"]
    refunded = si.state["orders"][p["order_id"]]["refunded"]
    return passed(refunded == p.get("prior", 0) + cheaper, listing=listing, refunded=refunded,
                  expected=p.get("prior", 0) + cheaper)
