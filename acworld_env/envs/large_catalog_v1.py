"""``large_catalog_v1``: the large-catalog track (60 tasks over the 785,022-listing ``large-v1`` catalog).

    import acworld_env
    env = acworld_env.make("large-catalog-v1")                       # builds large-v1 on first use
    mine = acworld_env.make("large-catalog-v1", catalog="my.sqlite", split="generated", seed=3)

With ``catalog`` (a file written by ``acworld catalog build`` or ``acworld catalog synth``), the track's
builders run over that catalog from ``seed``, every oracle recomputed over its full match space and
its content hash pinned in each task. Other arguments are those of :mod:`acworld_env.envs.aec`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pettingzoo import AECEnv

from ..tasks.large.suite import SUITE, build_over_file
from . import aec

NAME = "acworld_large_catalog_v1"


def _kwargs(catalog: str | Path | None, kwargs: dict[str, Any]) -> dict[str, Any]:
    kwargs = {"suite": SUITE, "name": NAME, **kwargs}
    if catalog is not None and kwargs.get("tasks") is None:
        kwargs["tasks"] = build_over_file(catalog, seed=int(kwargs.get("seed") or 0), frozen=False)
        kwargs["split"] = "generated"
    return kwargs


def raw_env(catalog: str | Path | None = None, **kwargs: Any) -> aec.AcworldAECEnv:
    """The unwrapped AEC environment of the track (over ``catalog`` when given)."""
    return aec.raw_env(**_kwargs(catalog, kwargs))


def env(catalog: str | Path | None = None, **kwargs: Any) -> AECEnv:
    """The AEC environment of the track with the order-enforcing wrapper (over ``catalog`` when given)."""
    return aec.env(**_kwargs(catalog, kwargs))


__all__ = ["env", "raw_env"]
