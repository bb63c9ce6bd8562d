"""Locations of the catalog shipped inside the package and of the local cache."""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

CAPABILITY_V1_FILE = "capability-v1.sqlite"


def default_catalog_path() -> Path:
    """Path of the shipped ``capability-v1`` catalog inside the installed package.

    Found through :mod:`importlib.resources`, so it works from a wheel as well as
    from a source checkout (package data ``acworld_env/data/catalog/``). Found once per process (the
    package does not move; every reset of a task on this catalog asks, and the lookup took ~50 us).
    """
    global _DEFAULT_PATH
    if _DEFAULT_PATH is None:
        ref = resources.files("acworld_env").joinpath("data", "catalog", CAPABILITY_V1_FILE)
        with resources.as_file(ref) as path:
            _DEFAULT_PATH = Path(path)
    return _DEFAULT_PATH


_DEFAULT_PATH: Path | None = None


def cache_dir() -> Path:
    """Directory for catalogs built on first use: ``$ACWORLD_CACHE`` or ``~/.cache/acworld``."""
    env = os.environ.get("ACWORLD_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "acworld"
