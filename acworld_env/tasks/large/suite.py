"""The ``large-catalog-v1`` suite: 60 catalog tasks over ``large-v1`` (or over any catalog a user built).

Discovery 12, Grounding 21, Preference 12, Multi-item 15 (45 Buyer, 15 Merchant; 18 capabilities).
Frozen tasks load from ``data/tasks/large-catalog-v1.jsonl`` (``python -m acworld_env.tasks.freeze
large-catalog-v1`` rebuilds it over ``large-v1``); :func:`build_large` runs the same builders over any
catalog file, every oracle recomputed over that catalog's full match space and its content hash pinned.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ...catalog import Catalog, open_catalog
from ..names import FAMILY_BUILDERS, register_family, register_suite
from ..sides import with_sides
from ..spec import TaskSpec
from . import discovery, grounding, multi_item, preference
from .draft import Draft, assemble
from .policy import FAMILIES
from .view import CatalogView, TooMany

SUITE = "large-catalog-v1"
PLAN: dict[str, tuple[Callable[..., Draft | None], list[tuple[str, int]]]] = {
    "L1_discovery": (discovery.draft, [(c, 3) for c in discovery.CAPABILITIES]),
    "L2_grounding": (grounding.draft, list(grounding.PLAN)),
    "L3_preference": (preference.draft, [(c, 3) for c in preference.CAPABILITIES]),
    "L5_multi_item": (multi_item.draft, list(multi_item.PLAN)),
}
"""Family -> (draft maker, [(capability, tasks)])."""
ATTEMPTS = 400


def _family_tasks(view: CatalogView, family: str, prefix: str, rng: np.random.Generator,
                  taken: set[str], strict: bool) -> list[TaskSpec]:
    """The family's tasks; a capability the catalog cannot support raises when ``strict``, else is skipped."""
    make, plan = PLAN[family]
    out = []
    for cap, count in plan:
        for i in range(count):
            for _ in range(ATTEMPTS):
                try:
                    d = make(view, cap, rng, i)
                except TooMany:
                    continue
                if d is not None and d.signature() not in taken and d.reads[0] not in taken:
                    taken.update({d.signature(), *d.reads})
                    break
            else:
                if strict:
                    raise RuntimeError(f"could not build a {cap} task over catalog {view.name}")
                warnings.warn(f"{cap}: the catalog {view.name} has too little to build task {i + 1} of {count} "
                              "from (e.g. no typed attributes); skipped", stacklevel=3)
                break
            out.append(assemble(f"{prefix}/{family.split('_', 1)[1]}/{d.role}/{cap}/{i + 1:02d}", family, d,
                                catalog=view.name, catalog_hash=view.cat.content_hash))
    return out


def build_large(catalog: Catalog, name: str, *, seed: int = 0, frozen: bool = True,
                families: tuple[str, ...] = FAMILIES, strict: bool = True) -> list[TaskSpec]:
    """The track's tasks over ``catalog`` (named ``name`` in the tasks: ``large-v1`` or ``file:<path>``).

    ``strict=False`` (a user's catalog) skips, with a warning, the tasks a catalog cannot support, e.g.
    vague-word tasks over a catalog without typed attributes."""
    view = CatalogView(catalog, name)
    prefix = SUITE if frozen else f"{SUITE}-generated-{seed}"
    taken: set[str] = set()
    tasks: list[TaskSpec] = []
    for k, family in enumerate(families):
        rng = np.random.default_rng([21, k, 2027] if frozen else [21, k, seed, 7])
        tasks += _family_tasks(view, family, prefix, rng, taken, strict)
    return [with_sides(t) for t in tasks]  # every actor that can be an agent has its own rubric


def build_over_file(path: str | Path, *, seed: int = 0, frozen: bool = False, strict: bool = False) -> list[TaskSpec]:
    """The track's tasks over a catalog file a user built (``acworld catalog build``); see :func:`build_large`."""
    p = Path(path).resolve()
    return build_large(open_catalog(f"file:{p}"), f"file:{p}", seed=seed, frozen=frozen, strict=strict)


def build_frozen() -> list[TaskSpec]:
    """The published tasks, built over ``large-v1`` (built into the cache on first use)."""
    return build_large(open_catalog("large-v1"), "large-v1", frozen=True)


@register_suite(SUITE)
def large_suite(split: str, seed: int) -> list[TaskSpec]:
    """Frozen: the published tasks; generated: fresh tasks over ``large-v1`` from ``seed``."""
    from ..frozen import load_frozen

    if split == "frozen":
        return load_frozen(SUITE) or build_frozen()
    return build_large(open_catalog("large-v1"), "large-v1", seed=seed, frozen=False)


def _family_builder(family: str) -> Callable[..., list[TaskSpec]]:
    def build(seed: int = 0, frozen: bool = True) -> list[TaskSpec]:
        if frozen:
            return [t for t in large_suite("frozen", 0) if t.family == family]
        return build_large(open_catalog("large-v1"), "large-v1", seed=seed, frozen=False, families=(family,))

    build.__doc__ = f"The {family} tasks of {SUITE} (frozen, or generated over large-v1 from ``seed``)."
    return build


for _fam in FAMILIES:
    if _fam not in FAMILY_BUILDERS:
        register_family(_fam)(_family_builder(_fam))


def summary(tasks: list[TaskSpec]) -> str:
    """Counts by family, capability and role, as JSON text."""
    counts: dict[str, int] = {}
    for t in tasks:
        for key in (t.family, f"{t.family}/{t.capability}", t.role):
            counts[key] = counts.get(key, 0) + 1
    return json.dumps(dict(sorted(counts.items())), indent=1)
