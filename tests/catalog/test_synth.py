"""The synthetic generator: determinism, exact plans, calibration, presets."""

from __future__ import annotations

import collections
import os
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from acworld_env.catalog import Catalog, CatalogError, default_catalog_path
from acworld_env.catalog.synth import (
    CAPABILITY_V1,
    LARGE_V1,
    SynthConfig,
    make_capability_v1,
    synthesize,
)
from acworld_env.catalog.synth.build import make_chunk, merchant_chunks
from acworld_env.catalog.synth.generator import SyntheticCatalog
from acworld_env.catalog.synth.plan import allocate
from acworld_env.catalog.synth.presets import PINNED_HASHES
from acworld_env.catalog.writer import CatalogWriter

CAPABILITY_COUNTS = {"Footwear": (295, 8), "Home textiles": (280, 172), "Coffee": (113, 110),
                     "Cosmetics": (57, 57), "Yoga": (252, 241), "Pet care": (85, 58)}


def test_shipped_capability_v1_has_the_papers_counts(capability: Catalog) -> None:
    assert capability.category_counts() == CAPABILITY_COUNTS
    assert len(capability) == 1082
    assert {x.currency for x in capability.get_many(capability.oracle_ids({}))} == {"USD"}
    assert capability.merchants() == [f"m{i:03d}" for i in range(1, 19)]


def test_regenerating_capability_v1_gives_the_shipped_hash(tmp_path: Path) -> None:
    meta = make_capability_v1(tmp_path / "cap.sqlite")
    shipped = Catalog.open(default_catalog_path())
    assert meta["content_hash"] == shipped.content_hash == PINNED_HASHES["capability-v1"]
    assert meta["source"]["config"]["seed"] == CAPABILITY_V1.seed
    assert meta["source"]["preset"] == "capability-v1"


def test_same_config_same_hash_across_processes(tmp_path: Path) -> None:
    code = ("import sys; from acworld_env.catalog.synth import SynthConfig, synthesize;"
            "print(synthesize(SynthConfig(listings=1500, merchants=7, seed=5), sys.argv[1])['content_hash'])")
    hashes = set()
    for i, seed in enumerate(("0", "12345")):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run([sys.executable, "-c", code, str(tmp_path / f"c{i}.sqlite")], env=env,
                             capture_output=True, text=True, check=True)
        hashes.add(out.stdout.strip())
    hashes.add(synthesize(SynthConfig(listings=1500, merchants=7, seed=5), tmp_path / "c.sqlite")["content_hash"])
    assert len(hashes) == 1
    other = synthesize(SynthConfig(listings=1500, merchants=7, seed=6), tmp_path / "d.sqlite")["content_hash"]
    assert other not in hashes


def test_workers_do_not_change_the_result(tmp_path: Path) -> None:
    cfg = SynthConfig(listings=40_000, merchants=170, seed=3)
    a = synthesize(cfg, tmp_path / "a.sqlite", workers=0)
    b = synthesize(cfg, tmp_path / "b.sqlite", workers=2)
    assert a["content_hash"] == b["content_hash"] and a["derived_hash"] == b["derived_hash"]


@pytest.mark.parametrize("cfg", [CAPABILITY_V1, SynthConfig(listings=6000, merchants=25, seed=9)])
def test_fast_path_equals_reference_normaliser(cfg: SynthConfig, tmp_path: Path) -> None:
    gen = SyntheticCatalog(cfg)
    hashes = []
    for reference in (True, False):
        writer = CatalogWriter(tmp_path / f"{reference}.sqlite")
        counts = collections.Counter()
        for r in merchant_chunks(gen):
            chunk = make_chunk(gen, r, reference=reference)
            counts.update(chunk.counts["dropped"])
            writer.add_chunk(chunk)
        hashes.append((writer.finish({})["content_hash"], dict(counts)))
    assert hashes[0] == hashes[1]


def test_exact_record_and_listing_counts(tmp_path: Path) -> None:
    cfg = SynthConfig(listings=3000, merchants=12, records=3100, seed=1)
    meta = synthesize(cfg, tmp_path / "x.sqlite")
    assert meta["counts"]["records_read"] == 3100 and meta["counts"]["listings_kept"] == 3000
    assert sum(meta["counts"]["dropped"].values()) == 100
    assert set(meta["counts"]["dropped"]) <= {"missing_price", "non_positive_price", "duplicate_sku"}
    assert meta["merchant_count"] == 12


def test_bad_configs_are_clear_errors(tmp_path: Path) -> None:
    for cfg in (SynthConfig(listings=5, merchants=9), SynthConfig(listings=0, merchants=1),
                SynthConfig(listings=10, merchants=1, records=5),
                SynthConfig(listings=10, merchants=1, departments=("spaceships",))):
        with pytest.raises(CatalogError, match="bad synthetic catalog settings"):
            synthesize(cfg, tmp_path / "bad.sqlite")
    assert not (tmp_path / "bad.sqlite").exists()


def test_allocate_is_exact_and_respects_minimum() -> None:
    import numpy as np

    parts = allocate(100, np.array([1.0, 1.0, 1.0]), minimum=1)
    assert sum(parts) == 100 and min(parts) >= 1 and parts == [34, 33, 33]
    with pytest.raises(ValueError):
        allocate(2, np.ones(3), minimum=1)


def test_calibration_properties_of_the_generator() -> None:
    """Shares the real dumps show: ~half compare-at, ~85% in stock, .00/.99/.95 endings,
    several currencies, a long tail of variants, heavy-tailed merchant sizes."""
    gen = SyntheticCatalog(SynthConfig(listings=60_000, merchants=255, seed=4))
    draws = list(gen.draws())
    variants = [(d, v) for d in draws for v in d.variants]
    n = len(variants)
    assert n == 60_000
    assert 0.4 < sum(v[3] is not None for _, v in variants) / n < 0.65
    assert 0.78 < sum(v[4] for _, v in variants) / n < 0.92
    cents = collections.Counter(v[2] % 100 for d, v in variants if d.src.currency not in ("JPY", "INR"))
    assert (cents[0] + cents[99] + cents[95]) / sum(cents.values()) > 0.75
    currencies = collections.Counter(d.src.currency for d, _ in variants)
    assert len(currencies) >= 5 and currencies.most_common(1)[0][0] == "USD"
    counts = [len(d.variants) for d in draws]
    assert statistics.median(counts) == 2 and max(counts) > 50
    assert 0.35 < sum(c == 1 for c in counts) / len(counts) < 0.55
    sizes = sorted(m.size for m in gen.merchants)
    assert sizes[-1] > 10 * statistics.median(sizes)
    labels = collections.Counter(d.src.category for d in draws)
    assert 0.05 < labels[""] / len(draws) < 0.2
    assert any(any(ord(ch) > 127 for ch in label) for label in labels)
    assert any(label and label == label.lower() for label in labels)


def test_small_catalog_drops_defects(small: Catalog) -> None:
    dropped = small.metadata["counts"]["dropped"]
    assert set(dropped) <= {"missing_price", "non_positive_price", "duplicate_sku"} and sum(dropped.values()) > 0
    assert small.metadata["counts"]["records_read"] == len(small) + sum(dropped.values())


def test_raw_option_names_are_spelled_several_ways() -> None:
    gen = SyntheticCatalog(SynthConfig(listings=4000, merchants=17, seed=11))
    names = collections.Counter(n for src in gen.products() for v in src.variants for n, _ in v.options)
    assert {"Color", "Colour"} & set(names) and len({n for n in names if n.lower() in ("color", "colour")}) >= 2


def test_large_v1_plan_matches_the_paper_without_building() -> None:
    gen = SyntheticCatalog(LARGE_V1)
    assert len(gen.merchants) == 3344
    assert sum(m.size for m in gen.merchants) == 785_022
    assert sum(m.size + m.defects for m in gen.merchants) == 791_431
    assert gen.merchants[0].merchant_id == "m0001" and gen.merchants[-1].merchant_id == "m3344"


@pytest.mark.slow
def test_large_v1_builds_into_cache_and_is_reused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from acworld_env.catalog.synth.presets import cache_path, ensure_preset

    monkeypatch.setenv("ACWORLD_CACHE", str(tmp_path))
    path = ensure_preset("large-v1", show_progress=False)
    assert path == cache_path("large-v1") and path.parent == tmp_path
    cat = Catalog.open(path)
    assert len(cat) == 785_022
    assert cat.metadata["counts"]["records_read"] == 791_431
    assert cat.metadata["merchant_count"] == 3344
    assert cat.content_hash == PINNED_HASHES["large-v1"]
    mtime = path.stat().st_mtime_ns
    assert ensure_preset("large-v1", show_progress=False) == path
    assert path.stat().st_mtime_ns == mtime
