"""``make("large-catalog-v1")`` over a user's catalog: generated tasks, a shared read-only catalog, episodes."""

from __future__ import annotations

import threading
import warnings
from pathlib import Path

import pytest

import acworld_env
from acworld_env.catalog import open_catalog
from acworld_env.catalog.ingest.build import build_catalog
from acworld_env.eval.validate import validate_tasks
from acworld_env.tasks.large.suite import build_over_file


def test_make_over_my_catalog(small_catalog: Path) -> None:
    env = acworld_env.make("large-catalog-v1", catalog=str(small_catalog), split="generated", seed=3)
    tasks = env.unwrapped.tasks
    assert len(tasks) == 60 and all(t.task_id.startswith("large-catalog-v1-generated-3/") for t in tasks)
    env.reset(seed=0)
    first = env.unwrapped.episode.market
    env.reset(seed=1)
    assert env.unwrapped.episode.market is not first
    assert env.unwrapped.task.catalog == f"file:{small_catalog.resolve()}"


def test_catalog_is_shared_across_episodes_and_threads(small_catalog: Path) -> None:
    name = f"file:{small_catalog.resolve()}"
    seen: list[int] = []
    threads = [threading.Thread(target=lambda: seen.append(id(open_catalog(name)))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(seen)) == 1 and seen[0] == id(open_catalog(name))


def test_a_changed_catalog_is_refused(small_catalog: Path, small_tasks: list, tmp_path: Path) -> None:
    from acworld_env.catalog.synth import SynthConfig, synthesize
    from acworld_env.episode import CatalogMismatch, Episode

    other = tmp_path / "other.sqlite"
    synthesize(SynthConfig(name="other", listings=500, merchants=5, seed=9), other)
    with pytest.raises(CatalogMismatch):
        Episode(small_tasks[0], catalog=open_catalog(f"file:{other}"))


def test_real_shopify_dumps(shopify_dir: Path, tmp_path: Path) -> None:
    """The track's builders over a catalog built from the shared real Shopify dumps (read in place)."""
    out = tmp_path / "shop.sqlite"
    build_catalog([shopify_dir], out)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # capabilities the dumps cannot support are skipped with a warning
        tasks = build_over_file(out, seed=3)
    assert len(tasks) >= 24 and {t.family for t in tasks} == {"L1_discovery", "L2_grounding", "L3_preference",
                                                             "L5_multi_item"}
    reports = validate_tasks(tasks[::3])
    assert [f for r in reports.values() for f in r.failures] == []
