"""Opening catalogs: clear errors for bad files, hash checks, cheap shared opens, package data."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from acworld_env.catalog import Catalog, CatalogError, default_catalog_path
from acworld_env.catalog.schema import canonical_json, compute_content_hash


def test_shipped_catalog_is_found_through_package_resources() -> None:
    from importlib import resources

    path = default_catalog_path()
    assert path.is_file() and path.name == "capability-v1.sqlite"
    assert resources.files("acworld_env").joinpath("data", "catalog", "capability-v1.sqlite").is_file()
    cat = Catalog.open(path)
    assert len(cat) == 1082 and len(cat.content_hash) == 64
    assert cat.metadata["source"]["preset"] == "capability-v1"


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(CatalogError, match="not found"):
        Catalog.open(tmp_path / "nope.sqlite")
    with pytest.raises(CatalogError, match="not a catalog file"):
        Catalog.open(tmp_path)


def test_not_sqlite(tmp_path: Path) -> None:
    bad = tmp_path / "junk.sqlite"
    bad.write_bytes(b"this is not a database at all" * 200)
    with pytest.raises(CatalogError, match="not an SQLite database"):
        Catalog.open(bad)


def test_sqlite_but_not_a_catalog(tmp_path: Path) -> None:
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE t(x)")
    with pytest.raises(CatalogError, match="missing tables"):
        Catalog.open(other)


def _copy(tmp_path: Path, name: str) -> Path:
    dst = tmp_path / name
    shutil.copy(default_catalog_path(), dst)
    return dst


def test_edited_content_hash_is_caught_on_open(tmp_path: Path) -> None:
    path = _copy(tmp_path, "edited.sqlite")
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE metadata SET value = ? WHERE key = 'content_hash'", (canonical_json("0" * 64),))
    with pytest.raises(CatalogError, match="metadata does not match"):
        Catalog.open(path)


def test_edited_rows_are_caught_by_verify(tmp_path: Path) -> None:
    path = _copy(tmp_path, "rows.sqlite")
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE listings SET price = price + 1 WHERE lrow = 7")
    cat = Catalog.open(path)
    with pytest.raises(CatalogError, match="content hash mismatch"):
        cat.verify()
    with pytest.raises(CatalogError, match="content hash mismatch"):
        Catalog.open(path, verify="full")


def test_deleted_rows_are_caught_on_open(tmp_path: Path) -> None:
    path = _copy(tmp_path, "short.sqlite")
    with sqlite3.connect(path) as conn:
        conn.execute("DELETE FROM listings WHERE lrow = (SELECT max(lrow) FROM listings)")
    with pytest.raises(CatalogError, match="1081 listings"):
        Catalog.open(path)


def test_expected_hash_and_full_verify(capability: Catalog) -> None:
    assert capability.verify() is True
    assert Catalog.open(capability.path, expected_hash=capability.content_hash).content_hash == capability.content_hash
    with pytest.raises(CatalogError, match="content hash mismatch"):
        Catalog.open(capability.path, expected_hash="f" * 64)
    conn = sqlite3.connect(f"{capability.path.as_uri()}?mode=ro&immutable=1", uri=True)
    assert compute_content_hash(conn) == capability.content_hash


def test_opening_again_is_cheap_and_shares_state(capability: Catalog) -> None:
    import time

    capability.search({"category": "Coffee"})
    start = time.perf_counter()
    handles = [Catalog.open(default_catalog_path()) for _ in range(200)]
    per_open = (time.perf_counter() - start) / 200
    assert per_open < 0.005
    assert all(h._store is capability._store for h in handles)
    assert handles[0].search({"category": "Coffee"}).total == 113


def test_metadata_is_a_copy_and_counts_are_recorded(capability: Catalog) -> None:
    meta = capability.metadata
    meta["content_hash"] = "x"
    assert capability.content_hash != "x"
    assert capability.metadata["counts"]["listings_kept"] == 1082
    assert capability.metadata["counts"]["records_read"] == 1082 + sum(
        capability.metadata["counts"]["dropped"].values())
    assert capability.merchants()[:3] == ["m001", "m002", "m003"]
    assert capability.merchant_info("m001")["currency"] == "USD"
    assert capability.merchant_info("nobody") is None


def test_warm_loads_arrays(small: Catalog) -> None:
    held = small.warm(dense=False)
    assert held > 0
    assert small.warm(dense=True) > held
