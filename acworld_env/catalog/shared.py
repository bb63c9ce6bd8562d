"""The one way an episode opens its task's catalog: by name, read-only, shared by the process.

A task names its catalog (``TaskSpec.catalog``); :func:`open_catalog` resolves the name to the
file and returns one :class:`Catalog` handle per ``(name, path)``, opened once and shared by every
episode and environment of the process (nobody closes it; it is read-only).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path

from .errors import CatalogError
from .resources import default_catalog_path
from .store import Catalog


def _large_v1() -> Path:
    from .synth.presets import ensure_preset

    return ensure_preset("large-v1")  # built into the cache on first use, with a progress bar


TASK_CATALOGS: dict[str, Callable[[], Path]] = {"capability-v1": default_catalog_path, "large-v1": _large_v1}
"""Catalog names a task may use, each with the function giving its file; ``file:<path>`` names a user's file."""


def catalog_path(name: str) -> Path:
    """The file of task catalog ``name``; :class:`CatalogError` naming the known ones if there is none."""
    if name.startswith("file:"):
        return Path(name[len("file:"):])
    if name not in TASK_CATALOGS:
        raise CatalogError(f"no catalog named {name!r} for tasks (known: {', '.join(TASK_CATALOGS)})")
    return TASK_CATALOGS[name]()


def open_catalog(name: str) -> Catalog:
    """Task catalog ``name``, opened read-only once per ``(name, path)`` in this process and shared."""
    return _opened(name, catalog_path(name))


@cache
def _opened(name: str, path: Path) -> Catalog:
    return Catalog.open(path)
