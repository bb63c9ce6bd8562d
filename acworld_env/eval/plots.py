"""PNG plots of a report, drawn with matplotlib's Agg backend (no display, thread-safe, no pyplot).

* ``credit_distribution.png``: share of runs with full, partial and zero credit (and unscored), per policy.
* ``family_heatmap.png``: mean score by family (rows) and policy (columns).
* ``loss_composition.png``: runs losing score, by loss group, per family; one panel per policy.

matplotlib is an optional extra: ``pip install 'acworld-env[plots]'``.
"""

from __future__ import annotations

import io
import math
from typing import Any

from ..core.errors import AcworldError
from .report import Evaluation, credit_counts, families, family_means, loss_counts
from .summary import LOSS_COLUMNS

MATPLOTLIB_MISSING = "plots need matplotlib, an optional extra: pip install 'acworld-env[plots]'"

CREDIT_COLOURS = {"full": "#2e7d32", "partial": "#f9a825", "zero": "#c62828", "unscored": "#9e9e9e"}
LOSS_COLOURS = {"Evidence": "#1565c0", "Choice": "#6a1b9a", "Execution": "#ef6c00", "Authority": "#c62828",
                "Mixed": "#757575"}
PNG_METADATA = {"Software": None}
"""No software version in the files, so the same report gives the same bytes."""


class PlotsUnavailable(AcworldError, RuntimeError):
    """matplotlib is not installed."""


def _figure(width: float, height: float) -> Any:
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise PlotsUnavailable(MATPLOTLIB_MISSING) from None
    fig = Figure(figsize=(width, height), dpi=100)
    FigureCanvasAgg(fig)
    return fig


def _png(fig: Any) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight", metadata=PNG_METADATA)
    return buf.getvalue()


def credit_distribution(evals: list[Evaluation]) -> bytes:
    """Stacked horizontal bars: share of each policy's runs per credit class."""
    fig = _figure(8, 1.2 + 0.6 * len(evals))
    ax = fig.add_subplot()
    labels = [e.label for e in evals]
    left = [0.0] * len(evals)
    for kind, colour in CREDIT_COLOURS.items():
        shares = []
        for e in evals:
            c = credit_counts(e)
            total = sum(c.values())
            shares.append(c[kind] / total if total else 0.0)
        ax.barh(labels, shares, left=left, color=colour, label=kind)
        for i, (x0, w) in enumerate(zip(left, shares, strict=True)):
            if w >= 0.06:
                ax.text(x0 + w / 2, i, f"{100 * w:.0f}%", ha="center", va="center", fontsize=8, color="white")
        left = [a + b for a, b in zip(left, shares, strict=True)]
    ax.set_xlim(0, 1)
    ax.invert_yaxis()
    ax.set_xlabel("share of runs")
    ax.set_title("Credit distribution per policy")
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    return _png(fig)


def family_heatmap(evals: list[Evaluation]) -> bytes:
    """Mean score by family x policy, annotated."""
    fams = families(evals)
    grid = [[family_means(e).get(f) for e in evals] for f in fams]
    values = [[math.nan if v is None else v for v in row] for row in grid]
    fig = _figure(2.5 + 1.6 * len(evals), 1.5 + 0.45 * max(1, len(fams)))
    ax = fig.add_subplot()
    image = ax.imshow(values or [[math.nan]], vmin=0.0, vmax=1.0, cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(evals)), [e.label for e in evals], rotation=20, ha="right")
    ax.set_yticks(range(len(fams)), fams)
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            ax.text(j, i, "-" if v is None else f"{v:.2f}", ha="center", va="center", fontsize=9,
                    color="black" if v is not None and v > 0.6 else "white")
    fig.colorbar(image, ax=ax, label="mean score")
    ax.set_title("Mean score by family and policy")
    return _png(fig)


def loss_composition(evals: list[Evaluation]) -> bytes:
    """Per policy, stacked bars of runs losing score by loss group, one bar per family."""
    from matplotlib.ticker import MaxNLocator

    fams = families(evals)
    fig = _figure(max(5.0, 1.2 + 1.1 * len(fams)) * min(len(evals), 3), 3.8 * math.ceil(len(evals) / 3))
    cols = min(len(evals), 3)
    for k, e in enumerate(evals):
        ax = fig.add_subplot(math.ceil(len(evals) / 3), cols, k + 1)
        bottom = [0] * len(fams)
        per_family = [loss_counts(e, f) for f in fams]
        for group in LOSS_COLUMNS:
            heights = [c[group] for c in per_family]
            ax.bar(fams, heights, bottom=bottom, color=LOSS_COLOURS[group], label=group)
            bottom = [a + b for a, b in zip(bottom, heights, strict=True)]
        top = max(bottom, default=0)
        if top == 0:
            ax.text(0.5, 0.5, "no run lost score", ha="center", va="center", transform=ax.transAxes, color="#666")
        ax.set_ylim(0, max(1, top) * 1.1)
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_title(e.label, fontsize=10)
        ax.set_ylabel("runs losing score")
        ax.tick_params(axis="x", labelrotation=20)
        if k == 0:
            handles, labels = ax.get_legend_handles_labels()
            fig.legend(handles, labels, loc="lower center", ncol=len(LOSS_COLUMNS), frameon=False,
                       bbox_to_anchor=(0.5, -0.02))
    fig.subplots_adjust(bottom=0.25)
    fig.suptitle("Loss composition by family")
    return _png(fig)


PLOTS = {"credit_distribution.png": credit_distribution, "family_heatmap.png": family_heatmap,
         "loss_composition.png": loss_composition}


def render_plots(evals: list[Evaluation]) -> dict[str, bytes]:
    """Every plot as PNG bytes, by file name."""
    return {name: fn(evals) for name, fn in PLOTS.items()}
