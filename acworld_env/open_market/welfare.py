"""Welfare: what the market realised against the global optimum and the optimum over exposed candidates.

The welfare of a trade of Buyer ``b`` with Merchant ``m`` is ``value[b, m] - cost[m]`` (prices are
transfers). An optimum is an exact maximum-weight assignment: each Buyer takes at most one unit
and each Merchant sells at most ``capacity`` units. Merchants are expanded into one column per
unit, which makes the transportation LP (units > 1) an assignment problem solved exactly by
``scipy.optimize.linear_sum_assignment``.

* global: every pair that could trade at some price, ``cost <= min(value, budget)``;
* exposed: the pairs the platform exposed, at the quoted price ``cost <= price <= min(value, budget)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment

from .mandates import Mandates


@dataclass(frozen=True)
class Welfare:
    """Realised welfare, both optima and their ratios (ratios are 1.0 when the denominator is 0)."""

    realised: int
    global_optimum: int
    exposed_optimum: int
    trades: int
    optimal_trades: int

    @property
    def ratio_global(self) -> float:
        """Realised / global optimum."""
        return _ratio(self.realised, self.global_optimum)

    @property
    def ratio_exposed(self) -> float:
        """Realised / optimum over exposed candidates."""
        return _ratio(self.realised, self.exposed_optimum)

    @property
    def exposure_ratio(self) -> float:
        """Exposed optimum / global optimum: what the bounded candidate sets keep."""
        return _ratio(self.exposed_optimum, self.global_optimum)

    def to_dict(self) -> dict[str, float | int]:
        """JSON form (the env's ``info`` and the study's output)."""
        return {"realised": self.realised, "global_optimum": self.global_optimum,
                "exposed_optimum": self.exposed_optimum, "trades": self.trades,
                "optimal_trades": self.optimal_trades, "ratio_global": round(self.ratio_global, 4),
                "ratio_exposed": round(self.ratio_exposed, 4), "exposure_ratio": round(self.exposure_ratio, 4)}


def _ratio(a: int, b: int) -> float:
    return 1.0 if b == 0 else a / b


def optimum(surplus: np.ndarray, allowed: np.ndarray, capacity: np.ndarray) -> tuple[int, list[tuple[int, int]]]:
    """Maximum total surplus over ``allowed`` pairs, each column ``j`` usable ``capacity[j]`` times.

    Returns the total and the chosen ``(buyer, merchant)`` pairs. Exact.
    """
    weights = np.where(allowed & (surplus > 0), surplus, 0).astype(np.int64)
    columns = np.repeat(np.arange(weights.shape[1]), capacity)
    if weights.size == 0 or columns.size == 0:
        return 0, []
    expanded = weights[:, columns]
    rows, cols = linear_sum_assignment(expanded, maximize=True)
    pairs = [(int(r), int(columns[c])) for r, c in zip(rows, cols, strict=True) if expanded[r, c] > 0]
    return int(sum(int(expanded[r, c]) for r, c in zip(rows, cols, strict=True))), pairs


def global_optimum(mandates: Mandates) -> tuple[int, list[tuple[int, int]]]:
    """The first-best: every pair with ``cost <= min(value, budget)``."""
    values, costs, budgets = mandates.value_matrix, mandates.costs, mandates.budgets
    allowed = costs[None, :] <= np.minimum(values, budgets[:, None])
    capacity = np.array([m.capacity for m in mandates.merchants])
    return optimum(values - costs[None, :], allowed, capacity)


def exposed_optimum(mandates: Mandates, exposure: dict[str, list[str]], prices: dict[str, int]) -> int:
    """The optimum over exposed pairs that are individually rational at the quoted prices."""
    values, costs, budgets = mandates.value_matrix, mandates.costs, mandates.budgets
    allowed = np.zeros(values.shape, dtype=bool)
    for i, b in enumerate(mandates.buyers):
        for lid in exposure.get(b.actor, []):
            j = int(lid.rsplit("_", 1)[1])
            p = prices[lid]
            allowed[i, j] = costs[j] <= p <= min(int(values[i, j]), int(budgets[i]))
    capacity = np.array([m.capacity for m in mandates.merchants])
    return optimum(values - costs[None, :], allowed, capacity)[0]


def realised(mandates: Mandates, trades: list[tuple[str, str]]) -> int:
    """Welfare of completed trades ``(buyer, listing)``."""
    total = 0
    for b, lid in trades:
        mm = mandates.merchant_of_listing(lid)
        total += mandates.buyer(b).values[mm.actor] - mm.cost
    return total


def report(mandates: Mandates, trades: list[tuple[str, str]], exposure: dict[str, list[str]],
           prices: dict[str, int]) -> Welfare:
    """The welfare report of one market's outcome."""
    g, pairs = global_optimum(mandates)
    return Welfare(realised(mandates, trades), g, exposed_optimum(mandates, exposure, prices), len(trades),
                   len(pairs))
