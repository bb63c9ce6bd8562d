"""The drawn setting of one T4 task: product, both private limits, the counterparty's tactic, and
the reference's plan with the full-credit price it reaches.

The builder draws the controlled factors (zone width and price gap, probes, anchor distortion,
offer cap, the counterparty's tactic and its parameters), then searches a grid of patient plans
with :func:`~.negotiation_tactics.bargain` and keeps the best: its price is the task's
full-credit ``target``, so full credit is what an optimal patient policy reaches against that
counterparty, never an unreachable corner of the zone. A draw whose best deal is not worth
bargaining for, or whose mutations would not show, is drawn again.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .common import pick_product, to_dollar
from .negotiation_tactics import (
    BUYER,
    MERCHANT,
    TACTICS,
    Outcome,
    Plan,
    Side,
    Tactic,
    as_good,
    bargain,
    gain,
    other,
    share,
)

MAX_STEPS = 20
"""The evaluated actor's step budget."""
RESERVED_STEPS = 5
"""Steps a plan leaves for settlement (order, pay or collect, ship, finish) and one spliced action."""
CONCEDES = (0.0, 0.1, 0.2, 0.3, 0.4)
BETAS = {"boulware": (0.25, 0.5), "linear": (1.0,), "conceder": (2.0, 4.0)}
MIRRORS = (0.5, 0.75)
MIN_TARGET_SHARE = 0.25
"""A draw whose best deal keeps less of the zone than this is not a bargaining task; draw again."""


@dataclass(frozen=True)
class Setting:
    """Everything drawn for one task; the builder turns it into a :class:`~..spec.TaskSpec`."""

    role: Side
    capability: str
    category: str
    title: str
    list_price: int
    listing_id: str
    ceiling: int
    floor: int
    probes: int
    distortion: float
    cap: int | None
    anchor: int | None
    tactic: Tactic
    plan: Plan
    target: int | None

    @property
    def zopa(self) -> bool:
        """A price both sides accept exists."""
        return self.capability != "no_zopa"

    @property
    def limit(self) -> int:
        """The evaluated actor's private limit."""
        return self.ceiling if self.role == BUYER else self.floor

    def difficulty(self) -> dict[str, Any]:
        """The controlled factors, as recorded in the task."""
        t = self.tactic
        return {
            "zone_width": abs(self.ceiling - self.floor), "zopa": self.zopa, "probes": self.probes,
            "anchor_distortion": self.distortion, "max_offers": self.cap, "tactic": t.kind, "beta": t.beta,
            "mirror": t.mirror if t.kind == "tit_for_tat" else None, "tactic_deadline": t.deadline,
            "target_share": round(share(self.role, self.target, self.ceiling, self.floor), 4)
            if self.target is not None else None,
        }


def _limits(rng: np.random.Generator, list_price: int, capability: str) -> tuple[int, int]:
    """(buyer ceiling, merchant floor); no_zopa puts the floor above the ceiling."""
    ceiling = to_dollar(list_price * rng.uniform(0.82, 0.95))
    floor = to_dollar(ceiling * (1 - rng.uniform(0.08, 0.2)))
    if capability == "no_zopa":
        floor = to_dollar(ceiling * (1 + rng.uniform(0.05, 0.15)))
    return ceiling, floor


def _pick(rng: np.random.Generator, options: tuple) -> Any:
    return options[int(rng.integers(len(options)))]


def _tactic(rng: np.random.Generator, s: Setting) -> Tactic:
    """The counterparty's tactic for this setting (kind, curve, deadline, start, credibility)."""
    kinds = TACTICS if s.capability != "deadline" else ("linear", "conceder", "tit_for_tat")
    kind = _pick(rng, kinds)
    beta = _pick(rng, BETAS[kind]) if kind in BETAS else 1.0
    mirror = _pick(rng, MIRRORS) if kind == "tit_for_tat" else 1.0
    cp = other(s.role)
    if s.capability == "deadline":  # the cap binds: the tactic would need more offers than it gets
        allowed = (s.cap - 1) // 2 if cp == MERCHANT else s.cap // 2
        deadline = allowed + int(rng.integers(1, 4))
    else:
        deadline = int(_pick(rng, (8, 10) if kind == "tit_for_tat" else (5, 6, 7, 8)))
    if cp == MERCHANT:
        limit = s.floor
        start = to_dollar(s.ceiling * rng.uniform(1.03, 1.1)) if s.capability == "deadline" else s.list_price
        start = max(start, to_dollar(s.floor * 1.08))
    else:
        limit = s.ceiling
        start = s.anchor if s.anchor else to_dollar(s.floor * rng.uniform(
            *((0.9, 0.97) if s.capability == "deadline" else (0.75, 0.9))))
        start = min(start, to_dollar(s.ceiling * 0.9))
    credible = None
    if kind == "tit_for_tat":  # place the meeting point of mirrored concessions inside the zone
        low, high = sorted((s.floor, s.ceiling))
        give = rng.uniform(0.15, 0.5) * (high - low)  # the part of the zone the agent cannot keep
        if cp == MERCHANT:
            credible = max(100, to_dollar(((1 + mirror) * (low + give) - start) / mirror))
        else:
            credible = s.list_price
            if not s.anchor and s.capability != "deadline":
                start = min(to_dollar((1 + mirror) * (high - give) - mirror * s.list_price),
                            to_dollar(s.ceiling * 0.9))
    return Tactic(side=cp, kind=kind, start=start, limit=limit, deadline=deadline, beta=beta, mirror=mirror,
                  credible=credible, min_move=max(100, to_dollar(0.015 * s.list_price)), patience=1)


def _openings(s: Setting, tactic: Tactic) -> list[int]:
    if s.role == BUYER:
        found = {to_dollar(s.ceiling * f) for f in (0.5, 0.6, 0.7, 0.8, 0.9)}
    else:
        base = max(s.list_price, to_dollar(s.floor * 1.1))
        found = {base, to_dollar(base * 0.95), to_dollar(base * 0.9)}
    if tactic.credible is not None and as_good(s.role, tactic.credible, s.limit):
        found.add(tactic.credible)
    return sorted(found, key=lambda p: -gain(s.role, p))


def _run(s: Setting, plan: Plan, tactic: Tactic | None = None) -> Outcome:
    return bargain(tactic or s.tactic, plan, cap=s.cap, max_moves=MAX_STEPS - RESERVED_STEPS)


def best_plan(s: Setting, tactic: Tactic) -> tuple[Plan, Outcome] | None:
    """The best plan of the grid against ``tactic``: the best deal (ZOPA) or a clean exit (no ZOPA)."""
    best: tuple[tuple, Plan, Outcome] | None = None
    for opening in _openings(s, tactic):
        for concede in CONCEDES:
            plan = Plan(side=s.role, limit=s.limit, opening=opening, concede=concede,
                        min_move=tactic.min_move, cap=s.cap)
            out = _run(s, plan, tactic)
            if s.zopa and out.price is not None:
                rank: tuple = (gain(s.role, out.price), -out.agent_moves)
            elif not s.zopa and out.ended_by == "agent_exit" and len(out.agent_offers) >= 2:
                rank = (len(out.agent_offers) >= 3, -out.agent_moves)
            else:
                continue
            if best is None or rank > best[0]:
                best = (rank, plan, out)
    return (best[1], best[2]) if best else None


def believer(s: Setting) -> Plan | None:
    """A plan that takes the false anchor at its word: it opens close to its own limit and concedes
    half the gap each round; the least credulous such plan that still closes a deal inside the limit
    (``None`` when every one misses the deal)."""
    for f in (0.8, 0.85, 0.9, 0.95):
        near = to_dollar(s.ceiling * f) if s.role == BUYER else to_dollar(s.floor * (2 - f))
        plan = replace(s.plan, opening=near, concede=0.5)
        out = _run(s, plan)
        if (gain(s.role, near) < gain(s.role, s.plan.opening) and out.price is not None
                and as_good(s.role, out.price, s.limit) and gain(s.role, out.price) < gain(s.role, s.target)):
            return plan
    return None


def ignores_cap(s: Setting) -> Plan:
    """A plan that forgets the offer cap and holds out for more."""
    return replace(s.plan, cap=None, concede=0.0)


def caves(s: Setting) -> Plan:
    """A plan whose limit has moved past the counterparty's (it will meet any price to close)."""
    beyond = to_dollar(s.floor * 1.05) if s.role == BUYER else to_dollar(s.ceiling * 0.95)
    return replace(s.plan, limit=beyond)


def _mutations_show(s: Setting) -> bool:
    """The capability's mutation changes the outcome the way its declared predicates need."""
    if s.capability == "false_anchor":
        return believer(s) is not None
    if s.capability == "deadline":
        return _run(s, ignores_cap(s)).price is None
    if s.capability == "no_zopa":
        out = _run(s, caves(s))
        inside = [p for p in out.agent_offers if as_good(s.role, p, s.limit)]
        return out.price is not None and len(inside) >= 2
    return not as_good(s.role, s.tactic.start, s.limit)  # its first number crosses the agent's limit


def _draw_factors(rng: np.random.Generator, role: Side, capability: str) -> Setting:
    """Product, limits, probes, anchor and cap; the tactic and plan are still placeholders."""
    category, title, list_price = pick_product(rng)
    ceiling, floor = _limits(rng, list_price, capability)
    lid = f"L-{int(rng.integers(1000, 9999))}"
    probes = int(_pick(rng, (1, 4))) if capability == "private_value" else 0
    distortion = float(_pick(rng, (0.15, 0.5))) if capability == "false_anchor" else 0.0
    cap = int(_pick(rng, (7, 9) if role == BUYER else (6, 8))) if capability == "deadline" else None
    anchor = None
    if distortion:
        anchor = to_dollar(list_price * (1 + distortion)) if role == BUYER else to_dollar(floor * (1 - distortion))
    unsolved = Plan(side=role, limit=ceiling if role == BUYER else floor, opening=0)
    return Setting(role, capability, category, title, list_price, lid, ceiling, floor, probes, distortion, cap,
                   anchor, Tactic(side=other(role), kind="linear", start=0, limit=0, deadline=1), unsolved, None)


def draw_setting(rng: np.random.Generator, role: Side, capability: str) -> Setting:
    """Draw one task's setting: redraw the tactic (then the product) until the best deal is worth
    bargaining for and the capability's mutation shows."""
    for _ in range(20):
        base = _draw_factors(rng, role, capability)
        for _ in range(50):
            tactic = _tactic(rng, base)
            found = best_plan(base, tactic)
            if found is None:
                continue
            plan, out = found
            s = replace(base, tactic=tactic, plan=plan, target=out.price)
            if s.zopa and share(role, out.price, s.ceiling, s.floor) < MIN_TARGET_SHARE:
                continue
            if _mutations_show(s):
                return s
    raise RuntimeError(f"no workable T4 {role}/{capability} setting")
