"""Locations of the catalog shipped inside the package and of the local cache."""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

CAPABILITY_V1_FILE = "capability-v1.sqlite"


def default_catalog_path() -> Path:
    """Path of the shipped ``capability-v1`` catalog inside the installed package.

    Found through :mod:`importlib.resources`, so it works from a wheel as well as
    from a source checkout (package data ``acworld_env/data/catalog/``).
    """
    ref = resources.files("acworld_env").joinpath("data", "catalog", CAPABILITY_V1_FILE)
    with resources.as_file(ref) as path:
        return Path(path)


def cache_dir() -> Path:
    """Directory for catalogs built on first use: ``$ACWORLD_CACHE`` or ``~/.cache/acworld``."""
    env = os.environ.get("ACWORLD_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "acworld"
