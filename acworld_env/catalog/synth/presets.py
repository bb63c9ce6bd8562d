"""Named catalogs: the shipped ``capability-v1`` and the cached ``large-v1``.

``capability-v1`` (1,082 listings, six departments with the paper's listing and
in-stock counts, USD) ships inside the package; ``make_capability_v1`` regenerates
it byte-for-byte in content (same content hash). ``large-v1`` (791,431 source
records -> 785,022 listings over 3,344 merchants) is built on first use into the
cache directory (``$ACWORLD_CACHE`` or ``~/.cache/acworld``) with a progress bar,
reused afterwards, and checked against its pinned content hash.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from ..errors import CatalogError
from ..resources import cache_dir, default_catalog_path
from ..store import Catalog
from .build import synthesize
from .generator import GENERATOR_VERSION
from .plan import CategoryTarget, SynthConfig

CAPABILITY_V1 = SynthConfig(
    name="capability-v1", listings=1082, merchants=18, seed=20240917,
    targets=(
        CategoryTarget("footwear", 295, 8),
        CategoryTarget("home_textiles", 280, 172),
        CategoryTarget("coffee", 113, 110),
        CategoryTarget("cosmetics", 57, 57),
        CategoryTarget("yoga", 252, 241),
        CategoryTarget("pet_care", 85, 58),
    ),
    departments=("footwear", "home_textiles", "coffee", "cosmetics", "yoga", "pet_care"),
    currencies=(("USD", 1.0),), messy=False, category_level="department", max_variants=12,
    rated_share=0.92,
)
"""The shipped catalog: exact per-category listing and in-stock counts, USD only."""

LARGE_V1 = SynthConfig(name="large-v1", listings=785_022, merchants=3_344, records=791_431, seed=20240601)
"""The scale catalog: the paper's 791,431 source records -> 785,022 listings, 3,344 merchants."""

PRESETS: dict[str, SynthConfig] = {"capability-v1": CAPABILITY_V1, "large-v1": LARGE_V1}

PINNED_HASHES: dict[str, str] = {
    "capability-v1": "64be0160881874ff050b867a93685cc4ce88aeb86a44e7a49a89d89329d6c5e0",
    "large-v1": "542256172ca95184e02de20652b8b6b122aa4a8531e32ac3bc4f1ebc586681da",
}
"""Content hashes the presets must reproduce (checked after every build and on reuse)."""


def preset_config(name: str) -> SynthConfig:
    """The configuration of preset ``name``."""
    try:
        return PRESETS[name]
    except KeyError:
        raise CatalogError(f"unknown catalog preset {name!r} (known: {', '.join(PRESETS)})") from None


def cache_path(name: str) -> Path:
    """Where a built-on-first-use preset lives."""
    return cache_dir() / f"{name}-g{GENERATOR_VERSION}.sqlite"


def make_capability_v1(out: str | os.PathLike[str]) -> dict[str, Any]:
    """Regenerate the shipped ``capability-v1`` catalog into ``out``."""
    return synthesize(CAPABILITY_V1, out)


def _check_pin(name: str, content_hash: str) -> None:
    pinned = PINNED_HASHES.get(name)
    if pinned is not None and pinned != content_hash:
        raise CatalogError(f"{name}: built content hash {content_hash} differs from the pinned {pinned};"
                           " the generator is not reproducing on this platform (numpy version?)")


def build_preset(name: str, out: str | os.PathLike[str] | None = None, *, workers: int | None = None,
                 show_progress: bool = True) -> Path:
    """Build preset ``name`` into ``out`` (default: its cache path), with a progress bar."""
    cfg = preset_config(name)
    path = Path(out) if out is not None else cache_path(name)
    n_workers = workers if workers is not None else min(2, os.cpu_count() or 1)
    if not show_progress or cfg.n_records < 20_000:
        meta = synthesize(cfg, path, workers=n_workers)
    else:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        console = Console(stderr=True)
        console.print(f"Building catalog [bold]{name}[/] ({cfg.listings:,} listings) into {path}")
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TextColumn("records"), TimeElapsedColumn(), console=console, transient=False) as bar:
            task = bar.add_task(name, total=cfg.n_records)
            meta = synthesize(cfg, path, workers=n_workers,
                              progress=lambda done, total: bar.update(task, completed=done))
            bar.update(task, description=f"{name} finalising")
        console.print(f"Catalog {name} ready: {path}")
    try:
        _check_pin(name, meta["content_hash"])
    except CatalogError:
        path.unlink(missing_ok=True)
        raise
    return path


def ensure_preset(name: str, *, workers: int | None = None, show_progress: bool = True) -> Path:
    """Path of preset ``name``, building it on first use (cached presets only)."""
    if name == "capability-v1":
        return default_catalog_path()
    preset_config(name)
    path = cache_path(name)
    if path.exists():
        try:
            Catalog.open(path, expected_hash=PINNED_HASHES.get(name))
            return path
        except CatalogError as exc:
            print(f"cached {name} is unusable ({exc}); rebuilding", file=sys.stderr)
            path.unlink(missing_ok=True)
    return build_preset(name, path, workers=workers, show_progress=show_progress)


def open_preset(name: str, **kwargs: Any) -> Catalog:
    """Open preset ``name`` (building it first if needed)."""
    return Catalog.open(ensure_preset(name, **kwargs), expected_hash=PINNED_HASHES.get(name))
