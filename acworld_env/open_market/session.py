"""One episode of the open market: phases, turns, clearing and settlement, all through ``Market.submit``.

Phases, each giving every agent of one side one turn (the order of ``PHASES``):

* ``quote`` (Merchants): set the listing's price with ``update_listing`` (or leave it).
* ``rank`` (Buyers): rank some of the exposed candidates, ``{"rank": [listing ids]}``. Then the
  platform clears (:mod:`.clearing`) and places each assigned Buyer's order in its name
  (``place_order`` through ``Market.submit``: the ranking is the Buyer's standing instruction).
* ``pay`` (Buyers): pay own open orders (``authorize_payment``), from this or an earlier episode.
* ``fulfil`` (Merchants): ``capture_payment``, ``allocate_inventory``, ``ship_order``.
* ``aftersales`` (every agent, only when asked for): refunds, returns, reviews.

A turn's action is None (do nothing), one VCP action (dict, JSON or model) or a list of at most
``MAX_BATCH`` of them, each submitted on its own. Everything that changes the World is a VCP
action validated by the platform and committed by the World; the trace records all of it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..market import Market, StepResult
from ..world import CommitLog
from . import clearing as clr
from . import rubric, welfare
from .mandates import (
    MarketConfig,
    MarketConfigError,
    draw,
    initial_state,
    platform_mandates,
    sealed_values,
)
from .persistence import EpisodeStore
from .views import observation

PHASES = ("quote", "rank", "pay", "fulfil", "aftersales")
DEFAULT_PHASES = ("quote", "rank", "pay", "fulfil")
MAX_BATCH = 50
SIDE = {"quote": "merchant", "rank": "buyer", "pay": "buyer", "fulfil": "merchant", "aftersales": "any"}


class OpenMarket:
    """The engine behind ``market-v1``: mandates, the Market, phases and the per-agent rubric."""

    def __init__(self, config: MarketConfig, *, world: str | Path | None = None,
                 phases: tuple[str, ...] | list[str] = DEFAULT_PHASES) -> None:
        bad = [p for p in phases if p not in PHASES]
        if bad or not phases:
            raise MarketConfigError(f"unknown phase(s) {bad or phases!r}; choose from {', '.join(PHASES)}")
        self.config = config
        self.mandates = draw(config)
        start = initial_state(self.mandates)
        self.store = EpisodeStore.open(world, config, start) if world is not None else None
        log: CommitLog | None = self.store.log if self.store else None
        try:
            self.market = Market(start, mandates=platform_mandates(self.mandates),
                                 sealed=sealed_values(self.mandates), seed=config.seed, log=log)
            self.first_commit = len(self.market.world.commits) + 1
            if self.store is not None:
                self.store.begin(self.first_commit, [p for p in PHASES if p in phases])
        except BaseException:
            if self.store is not None:
                self.store.close()
            raise
        self.buyers = [b.actor for b in self.mandates.buyers]
        self.merchants = [m.actor for m in self.mandates.merchants]
        self.agents = self.buyers + self.merchants
        self.buyer_set = frozenset(self.buyers)
        """The Buyers, for quick role tests."""
        self.phases = [p for p in PHASES if p in phases]
        self.phase_index = -1
        self.turns: list[str] = []
        self.exposure: dict[str, list[str]] = {b: [] for b in self.buyers}
        self.quotes: dict[str, int] = {}
        self.rankings: dict[str, list[str]] = {}
        self.refusals: dict[str, str] = {}
        self.clearing = clr.Clearing()
        self.orders: dict[str, str] = {}
        """Order id -> Buyer, for orders placed this episode."""
        self.last: dict[str, list[dict]] = {a: [] for a in self.agents}
        self.scores: dict[str, float] = dict.fromkeys(self.agents, 0.0)
        self.closed = False
        self._optima: tuple[int, int, int, int] | None = None
        self._next_phase()

    # -- phases ------------------------------------------------------------------
    @property
    def phase(self) -> str | None:
        """The current phase, None once the episode is over."""
        return self.phases[self.phase_index] if 0 <= self.phase_index < len(self.phases) else None

    @property
    def done(self) -> bool:
        """True when every phase has ended."""
        return self.phase is None

    def _next_phase(self) -> None:
        while True:
            self.phase_index += 1
            phase = self.phase
            if phase is None:
                self.turns = []
                return
            if phase == "rank":
                self._expose()
            side = SIDE[phase]
            self.turns = self.agents if side == "any" else (self.buyers if side == "buyer" else self.merchants)
            self.turns = list(self.turns)
            if self.turns:
                return

    def _expose(self) -> None:
        listings = self.market.world.state["listings"]
        self.quotes = {m.listing_id: listings[m.listing_id]["price"] for m in self.mandates.merchants}
        budgets = {b.actor: self.market.world.state["actors"][b.actor]["balance"] for b in self.mandates.buyers}
        self.exposure = clr.expose(self.mandates, listings, budgets, self.config.k)

    # -- turns -------------------------------------------------------------------
    def observe(self, agent: str) -> dict[str, Any]:
        """``agent``'s own observation (its mandate, candidates, orders, last results, inbox)."""
        self._known(agent)
        return observation(self, agent)

    def act(self, agent: str, action: Any) -> list[dict]:
        """Play ``agent``'s turn in the current phase; return what happened to each proposal."""
        self._known(agent)
        if agent not in self.turns:
            raise MarketConfigError(f"it is not {agent}'s turn in phase {self.phase!r}")
        self.turns.remove(agent)
        self.market.take_unread(agent)
        if self.phase == "rank":
            results = [self._rank(agent, action)]
        else:
            results = [r.to_dict() for r in self._submit_all(agent, action)]
        self.last[agent] = results
        if not self.turns:
            self._end_phase()
        return results

    def _known(self, agent: str) -> None:
        if agent not in self.last:
            raise MarketConfigError(f"unknown agent {agent!r}")

    def _submit_all(self, agent: str, action: Any) -> list[StepResult]:
        if action is None:
            return []
        batch = action if isinstance(action, list | tuple) else [action]
        if len(batch) > MAX_BATCH:
            batch = list(batch[:MAX_BATCH])
        return [self.market.submit(agent, a) for a in batch]

    def _rank(self, agent: str, action: Any) -> dict:
        ranking = action.get("rank") if isinstance(action, dict) else action
        if ranking is None:
            ranking = []
        allowed = self.exposure.get(agent, [])
        ok = (agent in self.buyers and isinstance(ranking, list | tuple)
              and all(isinstance(x, str) and x in allowed for x in ranking) and len(set(ranking)) == len(ranking))
        if not ok:
            self.refusals[agent] = "ranking must be a list of distinct listing ids from your candidates"
            return {"kind": "rank", "accepted": False, "message": self.refusals[agent]}
        self.rankings[agent] = list(ranking)
        return {"kind": "rank", "accepted": True, "message": f"ranked {len(ranking)} candidate(s)"}

    def _end_phase(self) -> None:
        if self.phase == "rank":
            self._clear_and_place()
        self.scores = rubric.scores(self)
        self.market.advance()
        self._next_phase()
        if self.done:
            self.scores = rubric.scores(self)

    def _clear_and_place(self) -> None:
        listings = self.market.world.state["listings"]
        capacity = {m.listing_id: listings[m.listing_id]["stock"] - listings[m.listing_id].get("reserved", 0)
                    for m in self.mandates.merchants}
        order = clr.priority(self.config.seed, self.buyers)
        self.clearing = clr.clear(self.rankings, capacity, order)
        for b, lid in self.clearing.assignment.items():
            merchant = listings[lid]["merchant"]
            res = self.market.submit(b, {"kind": "place_order", "merchant_id": merchant,
                                         "lines": [{"listing_id": lid, "quantity": 1}]})
            if res.accepted:
                self.orders[res.result["order_id"]] = b
            self.last[b] = [*self.last[b], res.to_dict()]

    # -- outcome -----------------------------------------------------------------
    def completed_trades(self) -> list[tuple[str, str]]:
        """``(buyer, listing)`` of this episode's orders that were paid in full and shipped."""
        orders = self.market.world.state["orders"]
        out = []
        for oid, b in self.orders.items():
            o = orders[oid]
            if o["captured"] >= o["total"] and o["status"] in {"shipped", "delivered", "completed"}:
                out.append((b, o["lines"][0]["listing_id"]))
        return out

    def welfare(self) -> welfare.Welfare:
        """Realised welfare against the global and the exposed optimum (the optima computed once per episode)."""
        if self._optima is None or self._optima[0] != self.phase_index:
            g, pairs = welfare.global_optimum(self.mandates)
            self._optima = (self.phase_index, g, len(pairs),
                            welfare.exposed_optimum(self.mandates, self.exposure, self.quotes))
        _, g, n_pairs, exposed = self._optima
        trades = self.completed_trades()
        return welfare.Welfare(welfare.realised(self.mandates, trades), g, exposed, len(trades), n_pairs)

    def close(self) -> None:
        """Store the episode (its trace and clearing) with a persistent World, then release the file."""
        if self.closed:
            return
        self.closed = True
        if self.store is not None:
            try:
                self.store.save_episode(self, self.first_commit)
            finally:
                self.store.close()
