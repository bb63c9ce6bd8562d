"""Surface shortcuts for T6 Inventory, run by the baseline gate (``acworld validate``).

Each reads only its observation (request, mandate, inbox, last result) and does the obvious
thing without judging the supply changes:

- ``promise_every_buyer``: a Merchant commits stock to every order it holds and promises each
  a delivery three rounds out; a Buyer gives up at once;
- ``always_backorder``: fill what is on hand and backorder every shortfall (a Merchant); buy what
  the shop has now and the rest from the same shop when it restocks (a Buyer);
- ``never_substitute``: only ever the item or order as first named: a Buyer keeps trying the
  named listing, a Merchant allocates whole orders or nothing;
- ``first_read_state``: read the state once at the start and act on that snapshot (and on the
  first notice about each thing), ignoring every later change.

The rubrics keep each of them well below full credit.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from ..names import register_shortcut

FAMILY = "T6_inventory"
Script = Generator[dict | None, dict, Any]


def job(obs: dict[str, Any]) -> str:
    """Which kind of T6 task an observation is, from the keys of its mandate."""
    m = obs["mandate"]
    for key, name in (("shipments", "delivery"), ("delivery_due_round", "competing"), ("remainder", "partial"),
                      ("shipping_rounds", "eta"), ("markup_percent", "restock"), ("usual_listing", "backorder"),
                      ("size", "substitute")):
        if key in m:
            return name
    return "price"


def result(obs: dict[str, Any]) -> Any:
    """The result of the last action when it was accepted, else None."""
    last = obs.get("last_result") or {}
    return last.get("result") if last.get("accepted") else None


class _Script:
    """Runs :meth:`script` as a coroutine: it yields actions (None waits) and receives each new observation."""

    def __init__(self) -> None:
        self.gen: Script | None = None
        self.notices: list[dict] = []

    def reset(self, seed: int | None = None) -> None:
        """Forget the episode."""
        self.gen, self.notices = None, []

    def act(self, obs: dict[str, Any]) -> dict | None:
        """The script's next action; ``finish`` once it is done."""
        self.notices += [m["market_event"] for m in obs["inbox"] if m.get("market_event")]
        try:
            if self.gen is None:
                self.gen = self.script(obs)
                return next(self.gen)
            return self.gen.send(obs)
        except StopIteration:
            return {"kind": "finish", "summary": "Done."}

    def script(self, obs: dict[str, Any]) -> Script:
        """The shortcut's moves (override)."""
        yield None

    def buy(self, merchant: str, listing_id: str, units: int) -> Script:
        """Order ``units`` at list price and pay the total the platform reports."""
        obs = yield {"kind": "place_order", "merchant_id": merchant,
                     "lines": [{"listing_id": listing_id, "quantity": units}]}
        placed = result(obs)
        if placed:
            obs = yield {"kind": "authorize_payment", "order_id": placed["order_id"], "amount": placed["total"]}
        return obs

    def wait_for(self, obs: dict[str, Any], kinds: set[str], seen: int) -> Script:
        """Wait (up to the step budget) until a notice of ``kinds`` arrives after the first ``seen``."""
        while not any(n.get("type") in kinds for n in self.notices[seen:]):
            if obs["step"] >= obs["max_steps"] - 3:
                break
            obs = yield None
        return obs

    def stock_and_orders(self, obs: dict[str, Any]) -> Script:
        """Read the inventory and each mandated order; leaves ``self.stock`` and ``self.orders``."""
        obs = yield {"kind": "get_inventory"}
        self.stock = {k: v["stock"] for k, v in ((result(obs) or {}).get("inventory") or {}).items()}
        self.orders: list[dict] = []
        for oid in obs["mandate"].get("orders", []):
            obs = yield {"kind": "get_order", "order_id": oid}
            if result(obs):
                self.orders.append(result(obs))
        return obs


@register_shortcut(FAMILY, "promise_every_buyer")
class PromiseEveryBuyer(_Script):
    """Allocate every order and promise each a delivery three rounds out."""

    def script(self, obs: dict[str, Any]) -> Script:
        """Merchant: allocate and promise each order; Buyer: nothing to promise."""
        if obs["role"] != "merchant":
            return
        for oid in obs["mandate"].get("orders", []):
            obs = yield {"kind": "allocate_inventory", "order_id": oid}
            obs = yield {"kind": "set_eta", "order_id": oid, "eta_round": obs["round"] + 3}


@register_shortcut(FAMILY, "always_backorder")
class AlwaysBackorder(_Script):
    """Fill what is on hand, backorder the rest; a Buyer waits for the same shop's restock."""

    def script(self, obs: dict[str, Any]) -> Script:
        """Partial fills with backorders, or buy now and the rest on restock."""
        if obs["role"] == "merchant":
            obs = yield from self.stock_and_orders(obs)
            for o in self.orders:
                lines = []
                for line in o["lines"]:
                    take = min(line["quantity"], self.stock.get(line["listing_id"], 0))
                    self.stock[line["listing_id"]] = self.stock.get(line["listing_id"], 0) - take
                    if take:
                        lines.append({"listing_id": line["listing_id"], "quantity": take})
                if lines:
                    yield {"kind": "partial_fill", "order_id": o["order_id"], "lines": lines, "remainder": "backorder"}
            return
        m = obs["mandate"]
        lid, merchant = m.get("usual_listing", m.get("listing")), m.get("usual_merchant", m.get("merchant"))
        if lid is None or merchant is None:
            return
        obs = yield {"kind": "get_listing", "listing_id": lid}
        have = min((result(obs) or {}).get("quantity", 0), m["quantity"])
        if have:
            obs = yield from self.buy(merchant, lid, have)
        if m["quantity"] > have:
            obs = yield from self.wait_for(obs, {"restock"}, 0)
            yield from self.buy(merchant, lid, m["quantity"] - have)


@register_shortcut(FAMILY, "never_substitute")
class NeverSubstitute(_Script):
    """Only the item or order as first named: the named listing, or whole orders."""

    def script(self, obs: dict[str, Any]) -> Script:
        """Merchant: allocate each order whole; Buyer: keep trying the named listing on each notice."""
        if obs["role"] == "merchant":
            for oid in obs["mandate"].get("orders", []):
                obs = yield {"kind": "allocate_inventory", "order_id": oid}
            return
        m = obs["mandate"]
        lid = m.get("usual_listing", m.get("listing"))
        merchant = m.get("usual_merchant", m.get("merchant", "merchant_0"))
        if lid is None:
            return
        while obs["step"] < obs["max_steps"] - 3:
            obs = yield {"kind": "place_order", "merchant_id": merchant,
                         "lines": [{"listing_id": lid, "quantity": m["quantity"]}]}
            if result(obs):
                yield {"kind": "authorize_payment", "order_id": result(obs)["order_id"], "amount": result(obs)["total"]}
                return
            obs = yield from self.wait_for(obs, {"restock", "price"}, len(self.notices))


@register_shortcut(FAMILY, "first_read_state")
class FirstReadState(_Script):
    """Act on the state read at the start and on the first notice about each thing, ignoring later changes."""

    def script(self, obs: dict[str, Any]) -> Script:
        """Dispatch on the kind of task."""
        kind = job(obs)
        if obs["role"] == "merchant":
            yield from getattr(self, f"merchant_{kind}", self.nothing)(obs)
        else:
            yield from getattr(self, f"buyer_{kind}", self.nothing)(obs)

    def nothing(self, obs: dict[str, Any]) -> Script:
        """No move applies."""
        return
        yield

    def buyer_price(self, obs: dict[str, Any]) -> Script:
        """Note the first price; buy at the first restock, paying that price."""
        m = obs["mandate"]
        obs = yield {"kind": "get_listing", "listing_id": m["listing"]}
        price = (result(obs) or {}).get("price", 0)
        obs = yield from self.wait_for(obs, {"restock"}, 0)
        obs = yield {"kind": "place_order", "merchant_id": m["merchant"],
                     "lines": [{"listing_id": m["listing"], "quantity": m["quantity"]}]}
        if result(obs):
            yield {"kind": "authorize_payment", "order_id": result(obs)["order_id"], "amount": price * m["quantity"]}

    def buyer_backorder(self, obs: dict[str, Any]) -> Script:
        """Buy what the first read shows; order the rest from the same shop at the first promised date."""
        m = obs["mandate"]
        obs = yield {"kind": "get_listing", "listing_id": m["usual_listing"]}
        have = min((result(obs) or {}).get("quantity", 0), m["quantity"])
        eta = next((n["eta_round"] for n in self.notices if n.get("type") == "restock_eta"), 0)
        if have:
            obs = yield from self.buy(m["usual_merchant"], m["usual_listing"], have)
        while obs["round"] < eta:
            obs = yield None
        yield from self.buy(m["usual_merchant"], m["usual_listing"], m["quantity"] - have)

    def buyer_substitute(self, obs: dict[str, Any]) -> Script:
        """Buy the named item if the first read shows it available."""
        m = obs["mandate"]
        obs = yield {"kind": "get_listing", "listing_id": m["listing"]}
        if (result(obs) or {}).get("quantity", 0) >= m["quantity"]:
            yield from self.buy("merchant_0", m["listing"], m["quantity"])

    def _first_each(self, obs: dict[str, Any]) -> Script:
        """Yield nothing; wait until the updates close, keeping the first notice about each shipment."""
        while obs["round"] <= obs["mandate"]["updates_close_round"] and obs["step"] < obs["max_steps"] - 3:
            obs = yield None
        return obs

    def buyer_delivery(self, obs: dict[str, Any]) -> Script:
        """Settle each parcel on its first update: a late one is taken as arriving (confirmed), a lost one disputed."""
        done: set[str] = set()
        while obs["round"] <= obs["mandate"]["updates_close_round"] and obs["step"] < obs["max_steps"] - 3:
            fresh = [(sid, n) for sid, n in self._firsts().items() if sid not in done]
            if not fresh:
                obs = yield None
                continue
            sid, n = fresh[0]
            done.add(sid)
            if n["status"] == "lost":
                obs = yield {"kind": "open_dispute", "order_id": n["order_id"], "reason": "not_received",
                             "evidence": [sid]}
            else:
                obs = yield {"kind": "confirm_delivery", "shipment_id": sid}

    def merchant_delivery(self, obs: dict[str, Any]) -> Script:
        """Set each order's estimate from its first update; refund only a parcel lost at once."""
        obs = yield from self._first_each(obs)
        pays = dict(zip(obs["mandate"]["orders"], obs["mandate"]["payments"], strict=True))
        for n in self._firsts().values():
            if n["status"] == "delayed":
                yield {"kind": "set_eta", "order_id": n["order_id"],
                       "eta_round": max(n["estimate_round"], obs["round"])}
            elif n["status"] == "lost":
                obs = yield {"kind": "get_payment", "payment_id": pays[n["order_id"]]}
                amount = (result(obs) or {}).get("captured", 0)
                if amount:
                    yield {"kind": "issue_refund", "payment_id": pays[n["order_id"]], "amount": amount}

    def _firsts(self) -> dict[str, dict]:
        firsts: dict[str, dict] = {}
        for n in self.notices:
            if n.get("shipment_id"):
                firsts.setdefault(n["shipment_id"], n)
        return firsts

    def merchant_competing(self, obs: dict[str, Any]) -> Script:
        """Commit whole orders in order-number order from the stock first read; refund the rest at once."""
        yield from self.stock_and_orders(obs)
        left = sum(self.stock.values())
        for o in self.orders:
            need = sum(x["quantity"] for x in o["lines"])
            if need <= left:
                left -= need
                yield {"kind": "allocate_inventory", "order_id": o["order_id"]}
            else:
                yield {"kind": "issue_refund", "payment_id": o["payment"], "amount": o["total"]}

    def merchant_partial(self, obs: dict[str, Any]) -> Script:
        """Fill oldest first from the stock first read, as each customer asked for the rest."""
        yield from self.stock_and_orders(obs)
        wish = obs["mandate"]["remainder"]
        for o in self.orders:
            line = o["lines"][0]
            take = min(line["quantity"], self.stock.get(line["listing_id"], 0))
            self.stock[line["listing_id"]] = self.stock.get(line["listing_id"], 0) - take
            if take == line["quantity"]:
                yield {"kind": "allocate_inventory", "order_id": o["order_id"]}
            elif take:
                yield {"kind": "partial_fill", "order_id": o["order_id"], "remainder": wish[o["order_id"]],
                       "lines": [{"listing_id": line["listing_id"], "quantity": take}]}
                if wish[o["order_id"]] == "cancel":
                    yield {"kind": "issue_refund", "payment_id": o["payment"],
                           "amount": (line["quantity"] - take) * line["unit_price"]}

    def merchant_eta(self, obs: dict[str, Any]) -> Script:
        """Promise each waiting order its first date plus shipping, and report the stock read at the start."""
        m = obs["mandate"]
        obs = yield {"kind": "get_inventory"}
        stock = {k: v["stock"] for k, v in (result(obs) or {}).get("inventory", {}).items()}
        dates = {n["listing_id"]: n["delivery_round"] for n in self.notices if n.get("type") == "supplier_date"}
        for oid in m["orders"]:
            obs = yield {"kind": "get_order", "order_id": oid}
            lid = ((result(obs) or {}).get("lines") or [{}])[0].get("listing_id")
            if lid in dates:
                obs = yield {"kind": "set_eta", "order_id": oid, "eta_round": dates[lid] + m["shipping_rounds"]}
        yield {"kind": "submit_answer", "answer": stock, "evidence": sorted(stock)}

    def merchant_restock(self, obs: dict[str, Any]) -> Script:
        """Book the first shipment announced as soon as it is announced; keep the price first read."""
        lid = obs["mandate"]["listing"]
        obs = yield from self.wait_for(obs, {"dispatch", "delivery"}, 0)
        first = next((n for n in self.notices if n.get("type") in {"dispatch", "delivery"}), None)
        if first is None:
            return
        yield {"kind": "restock", "listing_id": lid, "quantity": first.get("quantity", first.get("received", 1))}
