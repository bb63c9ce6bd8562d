"""Record facts of a menu slot: what the read records and notices say about the record an action touches.

The first slot features (:mod:`acworld_env.wrappers.slot_features`) describe an action by its own figures
and ids. Lifecycle and inventory choices turn on the *records* those ids point at: a parcel the carrier
declared lost, a promised arrival after the day the shopper moves out, a delivery outside the returns
window, a made-to-order item, a card hold left open beside the captured payment, a notice that just came
in, notices still due before the round the request says they stop. :class:`RecordFacts` keeps the records
the actor's own reads returned and adds these columns (:data:`RECORD_FEATURES`) to each slot's row.

Everything comes from the actor's own observations: its mandate and request, the results of its accepted
reads, and the notices in its inbox (through :class:`~acworld_env.envs.known.Known`).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from ..envs.known import Known, plain_int

RECORD_FEATURES: tuple[str, ...] = (
    "notices_due", "rounds_to_notices_end",
    "names_order", "order_open", "order_shipped", "order_delayed", "order_delivered", "order_lost", "order_done",
    "arrives_after_stated_day", "outside_return_window", "excluded_item", "carrier_damage",
    "return_waiting", "dispute_open", "extra_hold", "fresh_notice", "quantity_matches_notice",
)
"""The record columns, appended after the first slot features, in order."""
_STATUS = {
    "order_open": {"placed", "authorized", "paid", "allocated", "backordered", "ordered", "partially_allocated"},
    "order_shipped": {"shipped", "in_transit", "delayed", "partially_shipped"},
    "order_delayed": {"delayed"},
    "order_delivered": {"delivered"},
    "order_lost": {"lost", "exception"},
    "order_done": {"cancelled", "closed", "refunded", "partially_refunded", "exchanged"},
}
_END_ROUND = re.compile(r"(?:stop|close)s? (?:after )?(?:\()?round (\d+)|until round (\d+)|due at round (\d+)|"
                        r"before round (\d+)|by round (\d+)", re.I)
_STATED_DAY = re.compile(r"\b(?:on|by|before) day (\d+)\b", re.I)
_WINDOW = re.compile(r"\bwithin (\d+) days\b", re.I)
_EXCLUSIONS = {"made_to_order": re.compile(r"made[- ]to[- ]order", re.I), "final_sale": re.compile(r"final sale", re.I)}
_READ_TABLES = {"order_id": "orders", "shipment_id": "shipments", "return_id": "returns", "dispute_id": "disputes"}


def _first_int(match: re.Match[str] | None) -> int | None:
    return None if match is None else next(int(g) for g in match.groups() if g is not None)


class RecordFacts:
    """One actor's memory of the records its reads returned, and the record columns of a slot."""

    def __init__(self) -> None:
        self.reads: dict[str, dict[str, dict[str, Any]]] = {t: {} for t in (*_READ_TABLES.values(), "listings")}
        self.ledgers: dict[str, list[dict[str, Any]]] = {}
        self.notice_round: dict[str, int] = {}

    def absorb(self, last: dict[str, Any]) -> None:
        """Keep the records an accepted result returned (once per result)."""
        result = last.get("result")
        if not last.get("accepted") or not isinstance(result, dict):
            return
        for key, table in _READ_TABLES.items():
            rid = result.get(key)
            if isinstance(rid, str):
                self.reads[table][rid] = {**self.reads[table].get(rid, {}), **result}
        if isinstance(result.get("listing_id"), str) and isinstance(result.get("claims"), dict):
            self.reads["listings"][result["listing_id"]] = result
        ledger = result.get("ledger")
        for oid, book in ledger.items() if isinstance(ledger, dict) else ():
            if isinstance(book, dict) and isinstance(book.get("entries"), list):
                self.ledgers[str(oid)] = [e for e in book["entries"][:100] if isinstance(e, dict)]

    def context(self, raw: dict[str, Any], known: Known, clock: int, span: int) -> dict[str, Any]:
        """What every slot of one menu shares: the stated rounds and days, the notices and their rounds."""
        request = str(raw.get("request") or "")
        mandate = known.mandate
        ends = [v for k, v in mandate.items() if k.endswith("_round") and plain_int(v) is not None]
        ends += [n for m in _END_ROUND.finditer(request) if (n := _first_int(m)) is not None]
        day = plain_int(mandate.get("move_day"))
        day = day if day is not None else _first_int(_STATED_DAY.search(request))
        window = plain_int(mandate.get("return_window_days"))
        window = window if window is not None else _first_int(_WINDOW.search(request))
        notices, fresh = [], []
        for m in known.messages:
            if isinstance(m.get("event_id"), str):
                first = self.notice_round.setdefault(m["event_id"], clock)  # the round it was first seen
                if m.get("event"):
                    notices.append(m["event"])
                    if first == clock:
                        fresh.append(m["event"])
        excluded = {name for name, pattern in _EXCLUSIONS.items() if pattern.search(request)}
        return {"end": max(ends) if ends else None, "clock": clock, "span": span, "day": day, "window": window,
                "notices": notices, "fresh": fresh, "excluded": excluded}

    def order_of(self, action: dict[str, Any], known: Known) -> str | None:
        """The order an action touches: named, or through its payment, return, shipment or dispute."""
        if isinstance(action.get("order_id"), str):
            return action["order_id"]
        for key, table in (("return_id", "returns"), ("shipment_id", "shipments"), ("dispute_id", "disputes")):
            rid = action.get(key)
            if isinstance(rid, str):
                rec = {**known[table].get(rid, {}), **self.reads[table].get(rid, {})}
                oid = rec.get("order") or rec.get("order_id")
                if isinstance(oid, str):
                    return oid
                if key == "shipment_id":
                    return next((o for o, r in known["orders"].items() if r.get("shipment") == rid), None)
        pid = action.get("payment_id")
        if isinstance(pid, str):
            oid = known["payments"].get(pid, {}).get("order")
            if isinstance(oid, str):
                return oid
            return next((o for o, r in known["orders"].items() if r.get("payment") == pid), None)
        return None

    def fill(self, row: np.ndarray, col: dict[str, int], action: dict[str, Any], known: Known,
             ctx: dict[str, Any]) -> None:
        """Write the record columns of one slot's ``row``."""
        end, clock = ctx["end"], ctx["clock"]
        if end is not None:
            row[col["notices_due"]] = float(clock <= end)
            row[col["rounds_to_notices_end"]] = min(1.0, max(0, end - clock) / ctx["span"])
        oid = self.order_of(action, known)
        lid = action.get("listing_id") if isinstance(action.get("listing_id"), str) else None
        sid = action.get("shipment_id") if isinstance(action.get("shipment_id"), str) else None
        if oid is not None:
            self._order(row, col, oid, known, ctx)
            sid = sid or known["orders"].get(oid, {}).get("shipment")
        names = {x for x in (oid, lid, sid) if x is not None}
        row[col["fresh_notice"]] = float(any(names & {n.get(k) for k in ("order_id", "listing_id", "shipment_id")}
                                             for n in ctx["fresh"]))
        units = plain_int(action.get("quantity"))
        if lid is not None and units is not None:
            good = set()
            for n in ctx["notices"]:
                if n.get("listing_id") != lid:
                    continue
                received, damaged = plain_int(n.get("received")), plain_int(n.get("damaged")) or 0
                if received is not None:
                    good.add(received - damaged)
                elif plain_int(n.get("quantity")) is not None:
                    good.add(n["quantity"])
            row[col["quantity_matches_notice"]] = float(units in good)
        pid = action.get("payment_id")
        if isinstance(pid, str) and oid is not None:
            row[col["extra_hold"]] = float(self._open_hold(oid, pid, known))
        elif oid is not None and action.get("kind") in ("close_ledger", "get_ledger"):
            row[col["extra_hold"]] = float(any(self._open_hold(oid, p, known) for p in self._payments(oid)))

    def _order(self, row: np.ndarray, col: dict[str, int], oid: str, known: Known, ctx: dict[str, Any]) -> None:
        seen = known["orders"].get(oid, {})
        read = self.reads["orders"].get(oid, {})
        status = seen.get("status") or read.get("status")
        row[col["names_order"]] = 1.0
        for name, statuses in _STATUS.items():
            row[col[name]] = float(status in statuses)
        eta = plain_int(read.get("eta_round"))
        if ctx["day"] is not None and eta is not None:
            row[col["arrives_after_stated_day"]] = float(eta > ctx["day"])
        delivered = plain_int(read.get("delivered_round"))
        if ctx["window"] is not None and delivered is not None:
            row[col["outside_return_window"]] = float(-delivered > ctx["window"])  # days count back from day 0
        lines = read.get("lines") or seen.get("lines") or []
        claims = [self.reads["listings"].get(x.get("listing_id"), {}).get("claims") or {}
                  for x in lines if isinstance(x, dict)]
        row[col["excluded_item"]] = float(any(c.get(name) is True for c in claims for name in ctx["excluded"]))
        sid = read.get("shipment") or seen.get("shipment")
        shipment = self.reads["shipments"].get(sid, {}) if isinstance(sid, str) else {}
        damaged = bool(shipment.get("exceptions")) or any(
            n.get("order_id") == oid and plain_int(n.get("damaged")) for n in ctx["notices"])
        row[col["carrier_damage"]] = float(damaged)
        returns = [r for r in self.reads["returns"].values() if r.get("order") == oid]
        row[col["return_waiting"]] = float(any(r.get("status") == "requested" for r in returns))
        disputes = [r for r in self.reads["disputes"].values() if r.get("order") == oid or r.get("order_id") == oid]
        row[col["dispute_open"]] = float(any(r.get("status") == "open" for r in disputes))

    def _payments(self, oid: str) -> list[str]:
        return list(dict.fromkeys(e["payment"] for e in self.ledgers.get(oid, []) if isinstance(e.get("payment"), str)))

    def _open_hold(self, oid: str, pid: str, known: Known) -> bool:
        """``pid`` is an authorisation on ``oid`` with nothing captured or voided, beside another captured payment."""
        entries = self.ledgers.get(oid, [])
        kinds = {str(e.get("type")) for e in entries if e.get("payment") == pid}
        if "authorize" not in kinds or "capture" in kinds or any(k.startswith("void") for k in kinds):
            return False
        return any(e.get("type") == "capture" and e.get("payment") != pid for e in entries) or \
            known["orders"].get(oid, {}).get("payment") not in (None, pid)
