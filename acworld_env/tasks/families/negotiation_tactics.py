"""Concession tactics from the negotiation literature, as pure price arithmetic (no market, no I/O).

T4 counterparties bargain by the *time-dependent* tactics of Faratin, Sierra and Jennings (1998):
the ``t``-th of ``T`` offers concedes the share ``(t / (T - 1)) ** (1 / beta)`` of the way from the
opening price to the reservation price, so ``beta < 1`` is **Boulware** (holds, then concedes
near its deadline), ``beta = 1`` is **linear** and ``beta > 1`` is **Conceder** (concedes early).
Or by **tit-for-tat** (the behaviour-dependent tactic): each counter returns ``mirror`` times the
concession the opponent just made, so an opponent that does not move gets nothing; offers beyond a
``credible`` price count as that price, so an absurd opening buys no extra concession.

Acceptance follows the literature's *AC_next* rule: accept an offer that is at least as good as the
counter one would make next, never merely because it clears the reservation price. With no counter
left (its own deadline passed, or the thread's offer cap reached) a tactic walks away. A tactic may
also walk away from an opponent that stalls: a counter that concedes less than ``min_move`` is a
stall, and more than ``patience`` stalls in a row end the talks.

:class:`Patient` is the other side: the patient negotiator that T4 reference policies play, with
its plan tuned by the task builder. :func:`bargain` plays one against the other exactly as the
market would (alternating offers, the thread's offer cap, the agent's step budget), so a task's
full-credit price is the price the best plan really reaches.

Prices are integer cents; tactics quote whole dollars.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Side = Literal["buyer", "merchant"]
BUYER: Side = "buyer"
MERCHANT: Side = "merchant"
TIME_DEPENDENT = {"boulware", "linear", "conceder"}
TACTICS = ("boulware", "linear", "conceder", "tit_for_tat")


def round_dollar(cents: float) -> int:
    """Cents rounded to whole dollars."""
    return int(round(cents / 100.0)) * 100


def other(side: Side) -> Side:
    """The opposite side."""
    return MERCHANT if side == BUYER else BUYER


def gain(side: Side, price: int) -> int:
    """A price as ``side`` ranks it: higher is better (a Buyer wants low prices)."""
    return -price if side == BUYER else price


def as_good(side: Side, x: int, y: int) -> bool:
    """``x`` is at least as good as ``y`` for ``side``."""
    return gain(side, x) >= gain(side, y)


def best_of(side: Side, x: int, y: int) -> int:
    """The better of two prices for ``side``."""
    return x if as_good(side, x, y) else y


def worst_of(side: Side, x: int, y: int) -> int:
    """The worse of two prices for ``side``."""
    return y if as_good(side, x, y) else x


def conceded(side: Side, price: int, amount: int) -> int:
    """``price`` moved ``amount`` cents toward the other side (a Buyer raises, a Merchant lowers)."""
    return price + amount if side == BUYER else price - amount


def share(side: Side, price: int, ceiling: int, floor: int) -> float:
    """Share of the zone ``[floor, ceiling]`` that ``side`` keeps at ``price`` (may fall outside [0, 1])."""
    width = ceiling - floor
    if width <= 0:
        return 0.0
    return (ceiling - price) / width if side == BUYER else (price - floor) / width


@dataclass(frozen=True)
class Tactic:
    """A counterparty's controlled bargaining factors (recorded in a task's ``difficulty``)."""

    side: Side
    kind: str
    start: int
    limit: int
    deadline: int
    beta: float = 1.0
    mirror: float = 1.0
    credible: int | None = None
    min_move: int = 0
    patience: int | None = None

    def curve(self, t: int) -> int:
        """The time-dependent tactic's ``t``-th offer (0-based); at ``deadline - 1`` and after, the limit."""
        if self.deadline <= 1 or t >= self.deadline - 1:
            return self.limit
        alpha = (t / (self.deadline - 1)) ** (1.0 / self.beta)
        price = round_dollar(self.start + alpha * (self.limit - self.start))
        return worst_of(self.side, best_of(self.side, price, self.limit), self.start)

    def params(self) -> dict[str, Any]:
        """JSON form (policy parameters)."""
        return asdict(self)


@dataclass(frozen=True)
class Reply:
    """One answer to an offer: ``accept``, ``counter`` at ``price``, or ``reject`` (walk away)."""

    move: Literal["accept", "counter", "reject"]
    price: int | None = None
    final: bool = False
    stalled: bool = False


@dataclass
class Bargainer:
    """A counterparty's state over one thread, driven by its :class:`Tactic`."""

    tactic: Tactic
    own: list[int] = field(default_factory=list)
    theirs: list[int] = field(default_factory=list)
    stalls: int = 0

    def open(self) -> int:
        """Its opening offer (when it speaks first)."""
        self.own.append(self.tactic.start)
        return self.tactic.start

    def _credible(self, price: int) -> int:
        c = self.tactic.credible
        return price if c is None else best_of(self.tactic.side, price, c)

    def next_offer(self) -> int:
        """The offer it would make next, given everything heard so far."""
        t = self.tactic
        if len(self.own) >= t.deadline:
            return self.own[-1] if self.own else t.limit
        if t.kind in TIME_DEPENDENT:
            return t.curve(len(self.own))
        if not self.own:
            return t.start
        if len(self.theirs) < 2:
            return self.own[-1]
        before, now = self._credible(self.theirs[-2]), self._credible(self.theirs[-1])
        moved = max(0, gain(t.side, now) - gain(t.side, before))
        nxt = round_dollar(conceded(t.side, self.own[-1], round(t.mirror * moved)))
        return best_of(t.side, worst_of(t.side, nxt, self.own[-1]), t.limit)

    def respond(self, price: int, *, can_counter: bool = True) -> Reply:
        """Answer the opponent's ``price`` by AC_next; walk away when it cannot or will not go on."""
        t = self.tactic
        self.theirs.append(price)
        stalled = False
        if t.patience is not None and len(self.theirs) >= 2:
            stalled = gain(t.side, price) - gain(t.side, self.theirs[-2]) < t.min_move
            self.stalls = self.stalls + 1 if stalled else 0
        nxt = self.next_offer()
        if as_good(t.side, price, nxt):
            return Reply("accept", price)
        if (stalled and t.patience is not None and self.stalls > t.patience) or not can_counter \
                or len(self.own) >= t.deadline:
            return Reply("reject", stalled=stalled)
        self.own.append(nxt)
        return Reply("counter", nxt, final=len(self.own) >= t.deadline, stalled=stalled)


@dataclass(frozen=True)
class Plan:
    """A patient negotiator's plan: where it opens and how it concedes, never past its limit.

    ``concede`` is the share of the gap to the opponent's last offer it gives up per counter, and
    never less than ``min_move``. With a ``cap`` (the thread's offer limit) it takes the
    opponent's offer rather than spend the last offer of the thread. ``accept_first`` (a mutation)
    takes the opponent's first number whatever it is.
    """

    side: Side
    limit: int
    opening: int
    concede: float = 0.0
    min_move: int = 100
    cap: int | None = None
    accept_first: bool = False

    def params(self) -> dict[str, Any]:
        """JSON form (policy parameters)."""
        return asdict(self)


@dataclass
class Patient:
    """The patient negotiator's state over one thread."""

    plan: Plan
    own: list[int] = field(default_factory=list)

    def open(self) -> int:
        """Its opening offer (a Buyer speaks first)."""
        self.own.append(self.plan.opening)
        return self.plan.opening

    def respond(self, price: int, *, offers: int, final: bool = False) -> Reply:
        """Answer ``price``; ``offers`` counts the thread's offers so far, ``price`` included."""
        p = self.plan
        if p.accept_first:
            return Reply("accept", price)
        if self.own:
            step = max(p.min_move, round_dollar(p.concede * abs(price - self.own[-1])))
            nxt = conceded(p.side, self.own[-1], step)
        else:
            nxt = p.opening
        nxt = best_of(p.side, nxt, p.limit)
        if as_good(p.side, price, nxt):
            return Reply("accept", price)
        fair = as_good(p.side, price, p.limit)
        last_call = p.cap is not None and offers + 1 >= p.cap
        if fair and (final or last_call):
            return Reply("accept", price)
        if final or (p.cap is not None and offers >= p.cap) or (self.own and nxt == self.own[-1]):
            return Reply("reject")
        self.own.append(nxt)
        return Reply("counter", nxt)


@dataclass(frozen=True)
class Outcome:
    """How a simulated bargain ended."""

    price: int | None
    agent_offers: tuple[int, ...]
    ended_by: str
    agent_moves: int


def bargain(counterparty: Tactic, plan: Plan, *, cap: int | None = None, max_moves: int = 14) -> Outcome:
    """Play ``plan`` (the evaluated side) against ``counterparty`` as the market would.

    The Buyer speaks first. ``cap`` is the thread's offer limit (the last offer can only be accepted
    or rejected); ``max_moves`` bounds the plan's own offers, acceptances and exits.
    """
    cp, me = Bargainer(counterparty), Patient(plan)
    if plan.side == BUYER:
        price, offers, moves, cp_turn, final = me.open(), 1, 1, True, False
    else:
        price, offers, moves, cp_turn, final = cp.open(), 1, 0, False, False
    while True:
        if cp_turn:
            r = cp.respond(price, can_counter=cap is None or offers < cap)
            if r.move == "accept":
                return Outcome(price, tuple(me.own), "counterparty_accept", moves)
            if r.move == "reject":
                return Outcome(None, tuple(me.own), "counterparty_exit", moves)
            assert r.price is not None
            price, final = r.price, r.final
        else:
            if moves >= max_moves:
                return Outcome(None, tuple(me.own), "budget", moves)
            moves += 1
            r = me.respond(price, offers=offers, final=final)
            if r.move == "accept":
                return Outcome(price, tuple(me.own), "agent_accept", moves)
            if r.move == "reject":
                return Outcome(None, tuple(me.own), "agent_exit", moves)
            if cap is not None and offers >= cap:  # the platform refuses a counter past the cap
                return Outcome(None, tuple(me.own), "refused", moves)
            assert r.price is not None
            price = r.price
        offers += 1
        cp_turn = not cp_turn
