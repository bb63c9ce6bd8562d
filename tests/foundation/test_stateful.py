"""Hypothesis state machine: random valid and invalid actions from several actors.

Invariants after every step: every commit cites an accepted validation of the same actor;
rejections change nothing; money is conserved and stock never negative; the rules never
let through events the World refuses; replaying the commits from the initial state reproduces
both digests; an idempotent retry commits nothing.
"""

from __future__ import annotations

from typing import Any

from foundation_kit import ACTORS, BUYERS, MERCHANTS, make_market
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from acworld_env.vcp import TOOLS
from acworld_env.world import reconstruct, state_digest

JUNK_IDS = ["junk-1", "ord-9999", "L-404", ""]
ALL_ACTORS = list(ACTORS) + ["ghost"]
TEXTS = ["hello", "Is it in stock?", "I can pay $95", "ninety-five is my max", "floor is $90", "x" * 2_100]
JUNK_VALUES = [True, "12", -1, 0, 1.5, float("nan"), None, [], 10**13]


def _ids(m: Any, table: str) -> list[str]:
    return sorted(m.world.state[table])


class MarketMachine(RuleBasedStateMachine):
    """Drives one small market (2 buyers, 2 merchants, 5 listings) with drawn actions."""

    def __init__(self) -> None:
        super().__init__()
        self.m = make_market(max_offers=4, auth_valid_rounds=3, return_window_rounds=3)
        self.initial = self.m.world.initial_state
        self.money = self._money()
        self.keyed: dict[tuple[str, str], tuple[Any, Any]] = {}
        self.steps: list[Any] = []

    # -- drawing helpers ---------------------------------------------------------------
    def _money(self) -> int:
        return sum(a["balance"] + a["held"] for a in self.m.world.state["actors"].values())

    @staticmethod
    def _pick(data: Any, pool: list[str], junk: bool = True) -> str:
        options = list(pool) or ["none-yet"]
        if junk:
            return data.draw(st.one_of(st.sampled_from(options), st.sampled_from(options),
                                       st.sampled_from(options), st.sampled_from(JUNK_IDS)))
        return data.draw(st.sampled_from(options))

    @staticmethod
    def _amount(data: Any, exact: int | None) -> Any:
        choices = [st.integers(-10, 20_000), st.sampled_from(JUNK_VALUES)]
        if exact is not None:
            choices = [st.just(exact)] * 3 + [st.just(exact + 1)] + choices
        return data.draw(st.one_of(*choices))

    def _actor(self, data: Any, preferred: list[str]) -> str:
        return data.draw(st.one_of(st.sampled_from(preferred or ALL_ACTORS), st.sampled_from(preferred or ALL_ACTORS),
                                   st.sampled_from(ALL_ACTORS)))

    def _rec(self, table: str, key: str) -> dict:
        return self.m.world.state[table].get(key) or {}

    def _draw_action(self, data: Any) -> tuple[str, Any]:
        s = self.m.world.state
        kind = data.draw(st.sampled_from([
            "propose_offer", "counter_offer", "accept_offer", "reject_offer", "withdraw_offer", "request_quote",
            "issue_quote", "accept_quote", "place_order", "place_order", "authorize_payment", "authorize_payment",
            "capture_payment", "capture_payment", "void_authorization", "allocate_inventory", "allocate_inventory",
            "partial_fill", "ship_order", "ship_order", "confirm_delivery", "cancel_order", "request_return",
            "authorize_return", "issue_refund", "offer_exchange", "open_dispute", "respond_dispute",
            "close_ledger", "post_review", "flag_review", "update_listing", "restock", "publish_listing",
            "send_message", "ask_question", "get_order", "get_balance", "search_listings", "finish", "junk",
        ]))
        pick, amount = self._pick, self._amount
        listings = _ids(self.m, "listings")
        if kind == "junk":
            raw = data.draw(st.one_of(
                st.dictionaries(st.sampled_from(["kind", "to", "amount", "x"]),
                                st.one_of(st.text(max_size=8), st.integers(), st.floats()), max_size=4),
                st.text(max_size=30), st.sampled_from([None, 3, "[]", b"{\xff}"]),
            ))
            return self._actor(data, []), raw
        if kind in {"propose_offer", "restock", "update_listing"}:
            lid = pick(data, listings)
            merchant = self._rec("listings", lid).get("merchant", "m1")
            if kind == "propose_offer":
                actor = self._actor(data, list(BUYERS) + [merchant])
                to = merchant if actor in BUYERS else data.draw(st.sampled_from(BUYERS))
                raw = {"kind": kind, "to": data.draw(st.one_of(st.just(to), st.sampled_from(ALL_ACTORS))),
                       "listing_id": lid, "unit_price": amount(data, self._rec("listings", lid).get("price")),
                       "quantity": data.draw(st.integers(1, 3))}
            elif kind == "restock":
                actor = self._actor(data, [merchant])
                raw = {"kind": kind, "listing_id": lid, "quantity": data.draw(st.integers(0, 5))}
            else:
                actor = self._actor(data, [merchant])
                raw = {"kind": kind, "listing_id": lid,
                       "quantity": data.draw(st.one_of(st.none(), st.integers(-1, 6))),
                       "status": data.draw(st.sampled_from([None, "active", "paused"]))}
        elif kind in {"counter_offer", "accept_offer", "reject_offer", "withdraw_offer"}:
            tid = pick(data, _ids(self.m, "threads"))
            thr = self._rec("threads", tid)
            actor = self._actor(data, [p for p in (thr.get("buyer"), thr.get("merchant")) if p])
            raw = {"kind": kind, "thread_id": tid}
            if kind == "counter_offer":
                raw["unit_price"] = amount(data, (thr.get("unit_price") or 1_000) + 50)
        elif kind == "request_quote":
            merchant = data.draw(st.sampled_from(MERCHANTS))
            own = [lid for lid in listings if s["listings"][lid]["merchant"] == merchant]
            raw = {"kind": kind, "merchant_id": merchant,
                   "lines": [{"listing_id": pick(data, own), "quantity": data.draw(st.integers(1, 2)) }]}
            actor = self._actor(data, list(BUYERS))
        elif kind == "issue_quote":
            rid = pick(data, _ids(self.m, "quote_requests"))
            req = self._rec("quote_requests", rid)
            lines = [{**x, "unit_price": self._rec("listings", x["listing_id"]).get("price", 100)}
                     for x in req.get("lines", [{"listing_id": "L1", "quantity": 1}])]
            fee = data.draw(st.integers(0, 300))
            total = sum(x["quantity"] * x["unit_price"] for x in lines) + fee
            raw = {"kind": kind, "request_id": rid, "lines": lines, "fees": [{"name": "ship", "amount": fee}],
                   "total": amount(data, total), "valid_rounds": data.draw(st.integers(1, 4))}
            actor = self._actor(data, [req.get("merchant", "m1")])
        elif kind == "accept_quote":
            qid = pick(data, _ids(self.m, "quotes"))
            actor = self._actor(data, [self._rec("quotes", qid).get("buyer", "b1")])
            raw = {"kind": kind, "quote_id": qid}
        elif kind == "place_order":
            source = data.draw(st.sampled_from(["thread", "quote", "list", "list"]))
            actor = self._actor(data, list(BUYERS))
            if source == "thread":
                raw = {"kind": kind, "thread_id": pick(data, _ids(self.m, "threads"))}
            elif source == "quote":
                raw = {"kind": kind, "quote_id": pick(data, _ids(self.m, "quotes"))}
            else:
                lid = pick(data, listings)
                merchant = self._rec("listings", lid).get("merchant", "m1")
                raw = {"kind": kind, "merchant_id": merchant,
                       "lines": [{"listing_id": lid, "quantity": data.draw(st.integers(1, 4))}]
                       * data.draw(st.integers(1, 2))}
        elif kind in {"authorize_payment", "allocate_inventory", "partial_fill", "ship_order", "cancel_order",
                      "request_return", "open_dispute", "close_ledger", "post_review", "get_order"}:
            oid = pick(data, _ids(self.m, "orders"))
            order = self._rec("orders", oid)
            buyer_side = kind in {"authorize_payment", "request_return", "open_dispute", "post_review"}
            party = order.get("buyer" if buyer_side else "merchant")
            actor = self._actor(data, [party] if party else [])
            raw = {"kind": kind, "order_id": oid}
            first_line = (order.get("lines") or [{"listing_id": "L1", "quantity": 1}])[0]
            if kind == "authorize_payment":
                raw["amount"] = amount(data, order.get("total"))
            elif kind == "partial_fill":
                raw |= {"lines": [{"listing_id": first_line["listing_id"], "quantity": 1}],
                        "remainder": data.draw(st.sampled_from(["backorder", "cancel"]))}
            elif kind == "request_return":
                raw |= {"lines": [{"listing_id": first_line["listing_id"], "quantity": 1}], "reason": "meh"}
            elif kind == "open_dispute":
                raw |= {"reason": "damaged", "evidence": [oid]}
            elif kind == "post_review":
                raw |= {"listing_id": first_line["listing_id"], "rating": data.draw(st.integers(0, 5))}
        elif kind in {"capture_payment", "void_authorization", "issue_refund"}:
            pid = pick(data, _ids(self.m, "payments"))
            p = self._rec("payments", pid)
            actor = self._actor(data, [x for x in (p.get("merchant"), p.get("buyer")) if x])
            raw = {"kind": kind, "payment_id": pid}
            if kind == "capture_payment":
                raw["amount"] = amount(data, (p.get("authorized") or 0) - (p.get("captured") or 0) or None)
            elif kind == "issue_refund":
                raw["amount"] = amount(data, (p.get("captured") or 0) - (p.get("refunded") or 0) or None)
                if data.draw(st.booleans()):
                    raw["return_id"] = pick(data, _ids(self.m, "returns"))
        elif kind == "confirm_delivery":
            sid = pick(data, _ids(self.m, "shipments"))
            order = self._rec("orders", self._rec("shipments", sid).get("order", ""))
            actor = self._actor(data, [order["buyer"]] if order else [])
            raw = {"kind": kind, "shipment_id": sid}
        elif kind in {"authorize_return", "offer_exchange"}:
            rid = pick(data, _ids(self.m, "returns"))
            actor = self._actor(data, [self._rec("returns", rid).get("merchant", "m1")])
            raw = {"kind": kind, "return_id": rid}
            raw |= {"approve": data.draw(st.booleans())} if kind == "authorize_return" else {
                "listing_id": pick(data, listings)}
        elif kind == "respond_dispute":
            did = pick(data, _ids(self.m, "disputes"))
            actor = self._actor(data, [self._rec("disputes", did).get("merchant", "m1")])
            raw = {"kind": kind, "dispute_id": did, "evidence": ["photo"]}
        elif kind == "flag_review":
            raw = {"kind": kind, "review_id": pick(data, _ids(self.m, "reviews")), "reason": "fake"}
            actor = self._actor(data, [])
        elif kind == "publish_listing":
            actor = self._actor(data, list(MERCHANTS))
            raw = {"kind": kind, "title": "New thing", "category": "Coffee", "price": amount(data, 1_500),
                   "quantity": data.draw(st.integers(0, 4))}
        elif kind in {"send_message", "ask_question"}:
            actor = self._actor(data, [])
            raw = {"kind": kind, "to": data.draw(st.sampled_from(ALL_ACTORS)),
                   "text": data.draw(st.sampled_from(TEXTS))}
            if kind == "ask_question":
                raw["listing_id"] = pick(data, listings)
        elif kind == "search_listings":
            actor = self._actor(data, [])
            raw = {"kind": kind, "max_price": amount(data, 3_000)}
        else:  # get_balance, finish
            actor = self._actor(data, [])
            raw = {"kind": kind}
        return actor, self._envelope_hints(data, actor, raw)

    @staticmethod
    def _envelope_hints(data: Any, actor: str, raw: Any) -> Any:
        """Sometimes claim an actor (mostly oneself), sometimes add a retry key from a small pool."""
        if isinstance(raw, dict):
            hint = data.draw(st.integers(0, 15))
            if hint == 0:
                raw["actor"] = data.draw(st.sampled_from(ALL_ACTORS))
            elif hint == 1:
                raw["actor"] = actor
            elif hint <= 4:
                raw["idempotency_key"] = data.draw(st.sampled_from(["k1", "k2", "k3", "k4"]))
        return raw

    def _next_step(self, data: Any) -> tuple[str, dict]:
        """The natural next action of some open record, by the right actor with exact amounts."""
        s = self.m.world.state
        open_orders = [o for o in _ids(self.m, "orders") if s["orders"][o]["status"] not in {"closed"}]
        choice = data.draw(st.integers(0, 9))
        if choice <= 1 or not open_orders:
            if choice == 0 and s["threads"]:
                tid = data.draw(st.sampled_from(_ids(self.m, "threads")))
                thr = s["threads"][tid]
                other = thr["merchant"] if thr["last_by"] == thr["buyer"] else thr["buyer"]
                if thr["status"] == "agreed":
                    return thr["buyer"], {"kind": "place_order", "thread_id": tid}
                move = data.draw(st.sampled_from(["accept_offer", "counter_offer"]))
                raw = {"kind": move, "thread_id": tid}
                if move == "counter_offer":
                    raw["unit_price"] = thr["unit_price"] + data.draw(st.sampled_from([-100, 100]))
                return other, raw
            lid = data.draw(st.sampled_from(_ids(self.m, "listings")))
            merchant = s["listings"][lid]["merchant"]
            buyer = data.draw(st.sampled_from(BUYERS))
            if choice == 0:
                return buyer, {"kind": "propose_offer", "to": merchant, "listing_id": lid,
                               "unit_price": max(1, s["listings"][lid]["price"] - 100)}
            return buyer, {"kind": "place_order", "merchant_id": merchant,
                           "lines": [{"listing_id": lid, "quantity": data.draw(st.integers(1, 2))}]}
        oid = data.draw(st.sampled_from(open_orders))
        order = s["orders"][oid]
        buyer, merchant, status = order["buyer"], order["merchant"], order["status"]
        pay = s["payments"].get(order.get("payment") or "", {})
        if status == "placed":
            return buyer, {"kind": "authorize_payment", "order_id": oid, "amount": order["total"]}
        if status == "authorized":
            return merchant, {"kind": "capture_payment", "payment_id": order["payment"],
                              "amount": pay["authorized"] - pay["captured"]}
        if status == "paid":
            return merchant, {"kind": "allocate_inventory", "order_id": oid}
        if status == "allocated":
            return merchant, {"kind": "ship_order", "order_id": oid}
        if status == "shipped":
            return buyer, {"kind": "confirm_delivery", "shipment_id": order["shipment"]}
        returns = [r for r in _ids(self.m, "returns") if s["returns"][r]["order"] == oid]
        if returns:
            rid = returns[-1]
            ret = s["returns"][rid]
            if ret["status"] == "requested":
                return merchant, {"kind": "authorize_return", "return_id": rid, "approve": True}
            if ret["status"] == "authorized":
                return merchant, {"kind": "issue_refund", "payment_id": order["payment"], "amount": ret["amount"],
                                  "return_id": rid}
        line = order["lines"][0]
        options = [
            (buyer, {"kind": "request_return", "order_id": oid, "reason": "no longer needed",
                     "lines": [{"listing_id": line["listing_id"], "quantity": 1}]}),
            (buyer, {"kind": "post_review", "order_id": oid, "listing_id": line["listing_id"], "rating": 4}),
            (buyer, {"kind": "open_dispute", "order_id": oid, "reason": "damaged"}),
            (merchant, {"kind": "close_ledger", "order_id": oid}),
            (buyer, {"kind": "cancel_order", "order_id": oid}),
        ]
        return data.draw(st.sampled_from(options))

    # -- rules ---------------------------------------------------------------------------
    @rule(data=st.data())
    def act(self, data: Any) -> None:
        """Any action: plausible ids mixed with junk, right and wrong actors."""
        self._submit(*self._draw_action(data))

    @rule(data=st.data())
    def progress(self, data: Any) -> None:
        """Move some order or thread forward (so runs reach payment, shipping and after-sales)."""
        actor, raw = self._next_step(data)
        self._submit(actor, self._envelope_hints(data, actor, raw))

    def _submit(self, actor: str, raw: Any) -> None:
        commits, digest, head = len(self.m.world.commits), self.m.world.state_digest(), self.m.world.event_digest
        r = self.m.submit(actor, raw)
        self.steps.append(r)
        assert r.code != "transition_refused", f"a rule accepted events the World refuses: {r.message}"
        rec = self.m.trace.records[-1]
        assert rec["validation"]["validation_id"] == r.validation_id
        if r.commit_seq is None:
            assert len(self.m.world.commits) == commits
            assert self.m.world.state_digest() == digest and self.m.world.event_digest == head
        else:
            assert r.accepted and r.commit_seq == commits + 1 == len(self.m.world.commits)
            assert rec["commit"] == r.commit_seq and rec["validation"]["accepted"] is True
        key = raw.get("idempotency_key") if isinstance(raw, dict) else None
        if key and r.kind is not None and not TOOLS[r.kind].readonly and not r.replayed and r.accepted:
            self.keyed.setdefault((actor, key), (raw, r))

    @precondition(lambda self: bool(self.keyed))
    @rule(data=st.data())
    def retry(self, data: Any) -> None:
        """Resubmitting an accepted keyed request commits nothing and answers the same
        (a rejected keyed request saves nothing, as with Stripe)."""
        (actor, _key), (raw, first) = data.draw(st.sampled_from(sorted(self.keyed.items(), key=str)))
        commits = len(self.m.world.commits)
        again = self.m.submit(actor, raw)
        assert len(self.m.world.commits) == commits and again.commit_seq is None
        assert again.accepted == first.accepted
        if raw.get("actor") in (None, actor) and first.code != "identity_mismatch":
            assert again.replayed and again.result == first.result
        else:
            assert again.code == "identity_mismatch"

    @rule()
    def advance(self) -> None:
        self.m.advance()

    # -- invariants ----------------------------------------------------------------------
    @invariant()
    def commits_cite_accepted_validations_of_their_actor(self) -> None:
        traced = {r["commit"]: r for r in self.m.trace.records if r["commit"] is not None}
        assert sorted(traced) == list(range(1, len(self.m.world.commits) + 1))
        for c in self.m.world.commits:
            v = traced[c["seq"]]["validation"]
            assert v["accepted"] is True and v["actor"] == c["actor"] == traced[c["seq"]]["actor"]
            assert v["validation_id"] == c["validation_id"]
        vids = [c["validation_id"] for c in self.m.world.commits]
        assert len(set(vids)) == len(vids)

    @invariant()
    def money_is_conserved_and_stock_never_negative(self) -> None:
        assert self._money() == self.money
        for rec in self.m.world.state["actors"].values():
            assert rec["held"] >= 0
        for rec in self.m.world.state["listings"].values():
            assert rec["stock"] >= 0 and rec["reserved"] >= 0

    @invariant()
    def replay_reproduces_both_digests(self) -> None:
        validations = {r["validation"]["validation_id"]: r["validation"] for r in self.m.trace.records
                       if r["commit"] is not None}
        rebuilt = reconstruct(self.initial, self.m.world.commits, validations)
        assert rebuilt.state_digest == self.m.world.state_digest() == state_digest(self.m.world.state)
        assert rebuilt.event_digest == self.m.world.event_digest


MarketMachine.TestCase.settings = settings(
    max_examples=30, stateful_step_count=30, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
TestMarketMachine = MarketMachine.TestCase

