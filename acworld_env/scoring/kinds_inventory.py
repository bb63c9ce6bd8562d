"""Predicate kinds for T6 Inventory, fulfilment and supply changes.

Every kind reads the final World state and the actor's own lineage records. Supply changes
(restocks, price changes, carrier exceptions, supplier dates) reach the World as scheduled
market events, so a task can state *when* a fact became true; the timed kinds
(``inv_not_before``, ``inv_timed_values``, ``inv_stock_never_ahead``) check each of the
actor's commits against what was true in the round it was made. Guards take ``engaged_by``
(action kinds): they pay nothing until the actor made an accepted proposal of one of them, so
an actor that never acts earns 0.
"""

from __future__ import annotations

from typing import Any

from .kinds import ScoreInput, fraction, passed, predicate


def _gate(si: ScoreInput, p: dict) -> dict | None:
    """Evidence of a missing engagement, or None when the guard may judge."""
    kinds = p.get("engaged_by")
    if kinds and not si.engaged_in(p["actor"], kinds):
        return {"engaged": False, "engaged_by": list(kinds)}
    return None


def _matches(action: dict, match: dict) -> bool:
    """Every field of ``match`` equals the action's; ``listing_id`` also matches a line of an order's ``lines``."""
    for k, v in match.items():
        if k == "listing_id" and isinstance(action.get("lines"), list):
            if not any(isinstance(x, dict) and x.get("listing_id") == v for x in action["lines"]):
                return False
        elif action.get(k) != v:
            return False
    return True


def _live_orders(si: ScoreInput, actor: str) -> list[tuple[str, dict]]:
    return [(oid, o) for oid, o in sorted(si.state["orders"].items())
            if o["buyer"] == actor and o["status"] != "cancelled"]


def value_at(timeline: list[list[Any]], round_: int) -> Any:
    """The value a ``[[round, value], ...]`` timeline (rounds ascending) holds in ``round_`` (None before)."""
    current = None
    for r, v in timeline:
        if r <= round_:
            current = v
    return current


@predicate("inv_buyer_orders")
def inv_buyer_orders(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """The actor's live orders hold exactly ``expect`` (listing -> units), each unit at or under ``max_price``."""
    got: dict[str, int] = {}
    over = []
    for oid, order in _live_orders(si, p["actor"]):
        for line in order["lines"]:
            lid = line["listing_id"]
            got[lid] = got.get(lid, 0) + line["quantity"]
            limit = p.get("max_price", {}).get(lid)
            if limit is not None and line["unit_price"] > limit:
                over.append(oid)
    return passed(got == p["expect"] and not over, ordered=got, expected=p["expect"], over_limit=over)


@predicate("inv_orders_paid")
def inv_orders_paid(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """The actor has live orders, and each carries one payment authorised for exactly its total."""
    live = _live_orders(si, p["actor"])
    bad = [oid for oid, o in live if not o.get("payment") or o.get("additional_payments")
           or si.state["payments"][o["payment"]]["authorized"] != o["total"]]
    return passed(bool(live) and not bad, orders=[oid for oid, _ in live], unpaid_or_wrong=bad)


@predicate("inv_not_before")
def inv_not_before(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """Once engaged: no accepted action broke a timing rule.

    ``rules``: ``{"kind", "match", "before"}`` (nothing of that kind and match before round
    ``before``: it was not yet true) or ``{"kind", "match", "after"}`` (nothing after ``after``).
    """
    gate = _gate(si, p)
    if gate:
        return 0.0, gate
    bad = []
    for rule in p["rules"]:
        for r in si.actions(p["actor"], rule["kind"], accepted=True):
            if not _matches(r.action, rule.get("match", {})):
                continue
            if ("before" in rule and r.round < rule["before"]) or ("after" in rule and r.round > rule["after"]):
                bad.append(r.n)
    return passed(not bad, early_or_late_records=sorted(bad))


@predicate("inv_no_action")
def inv_no_action(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """Once engaged: the actor never proposed (accepted or not) an action of ``kinds`` matching any of ``targets``."""
    gate = _gate(si, p)
    if gate:
        return 0.0, gate
    bad = [r.n for kind in p["kinds"] for r in si.actions(p["actor"], kind)
           if any(_matches(r.action, m) for m in p["targets"])]
    return passed(not bad, attempts=sorted(bad))


@predicate("inv_fields")
def inv_fields(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """Share of ``checks`` (``[table, key, field, value]``) the final World satisfies (gated by ``engaged_by``)."""
    gate = _gate(si, p) if p.get("engaged_by") else None
    if gate:
        return 0.0, gate
    wrong = []
    for table, key, field, value in p["checks"]:
        got = (si.state[table].get(key) or {}).get(field)
        if got != value:
            wrong.append({"record": f"{table}.{key}.{field}", "got": got, "expected": value})
    return fraction(len(p["checks"]) - len(wrong), len(p["checks"]), wrong=wrong)


@predicate("inv_order_units")
def inv_order_units(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """Share of orders whose committed units (allocated plus shipped, by listing) equal ``expect`` (gated).

    With ``all`` the credit is 1 only when every order is right (an allocation is fair as a whole).
    """
    gate = _gate(si, p) if p.get("engaged_by") else None
    if gate:
        return 0.0, gate
    got = {}
    for oid in p["expect"]:
        order = si.state["orders"][oid]
        units: dict[str, int] = {}
        for part in (order["allocated"], order["shipped"]):
            for lid, q in part.items():
                units[lid] = units.get(lid, 0) + q
        got[oid] = {k: v for k, v in sorted(units.items()) if v}
    right = [oid for oid, want in p["expect"].items() if got[oid] == want]
    if p.get("all"):
        return passed(len(right) == len(p["expect"]), committed=got)
    return fraction(len(right), len(p["expect"]), committed=got)


@predicate("inv_disputes")
def inv_disputes(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """The actor disputed each order of ``disputed`` and none of ``undisputed``."""
    mine = {d["order"] for d in si.state["disputes"].values() if d["buyer"] == p["actor"]}
    ok = set(p["disputed"]) <= mine and not (set(p["undisputed"]) & mine)
    return passed(ok, disputed_orders=sorted(mine))


@predicate("inv_timed_values")
def inv_timed_values(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """Once engaged: each accepted ``kind`` on a key of ``timeline`` set ``value_field`` to what was true then.

    ``timeline``: key -> ``[[round, value], ...]``; an action in round ``t`` must carry the value
    the timeline holds at ``t`` (a promise made on a superseded fact is wrong when made).
    """
    gate = _gate(si, p)
    if gate:
        return 0.0, gate
    bad = []
    for r in si.actions(p["actor"], p["kind"], accepted=True):
        key, value = r.action.get(p["key_field"]), r.action.get(p["value_field"])
        if key not in p["timeline"] or value is None:
            continue
        if value != value_at(p["timeline"][key], r.round):
            bad.append(r.n)
    return passed(not bad, wrong_records=bad)


@predicate("inv_stock_never_ahead")
def inv_stock_never_ahead(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """Once engaged: the stock the actor booked on ``listing`` never ran ahead of the units that had arrived.

    Follows the actor's accepted ``restock`` (adds) and ``update_listing`` with a quantity (sets)
    from ``initial``; after each, the booked stock must not exceed ``initial`` plus the
    ``arrivals`` (``[[round, units], ...]``) received by that round.
    """
    gate = _gate(si, p)
    if gate:
        return 0.0, gate
    stock, bad = p["initial"], []
    for r in si.by(p["actor"]):
        if not r.accepted or r.action.get("listing_id") != p["listing"]:
            continue
        if r.kind == "restock":
            stock += r.action["quantity"]
        elif r.kind == "update_listing" and r.action.get("quantity") is not None:
            stock = r.action["quantity"]
        else:
            continue
        arrived = p["initial"] + sum(q for rd, q in p["arrivals"] if rd <= r.round)
        if stock > arrived:
            bad.append(r.n)
    return passed(not bad, ahead_records=bad)


def _number(value: Any) -> Any:
    """An answered count as a number: ``4`` and ``"4"`` are the same answer (a bool is not a count)."""
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None if isinstance(value, bool) else value


@predicate("inv_answer_world")
def inv_answer_world(si: ScoreInput, p: dict) -> tuple[float, dict]:
    """Share of ``keys`` for which the final answer's field ``key`` equals the World's ``table.key.field``.

    A count given as digits (``"4"``) counts as the number.
    """
    done = [r for r in si.by(p["actor"]) if r.accepted and r.kind == "submit_answer"]
    if not done:
        return 0.0, {"reason": "no answer"}
    answer = done[-1].action.get("answer", {})
    wrong = {k: {"answered": answer.get(k), "world": si.state[p["table"]][k][p["field"]]} for k in p["keys"]
             if _number(answer.get(k)) != si.state[p["table"]][k][p["field"]]}
    return fraction(len(p["keys"]) - len(wrong), len(p["keys"]), wrong=wrong)
