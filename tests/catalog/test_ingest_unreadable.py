"""Issue 30 §21: a record that cannot be read (nested thousands of levels deep) is counted in the ingestion
report with its file, position and reason; the rest of its file is still ingested, never lost silently."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from acworld_env.catalog.ingest.build import build_catalog
from acworld_env.catalog.ingest.shallow import TOO_DEEP, cut_deep, holds_cut, loads_shallow

DEPTH = 5_000


def _deep(levels: int = DEPTH) -> str:
    return "[" * levels + "]" * levels


def _with_deep_record(products: list[dict[str, Any]], index: int) -> str:
    """A storefront document whose product ``index`` carries a value nested :data:`DEPTH` levels deep."""
    parts = [json.dumps(p) for p in products]
    parts[index] = parts[index][:-1] + ', "body_html": ' + _deep() + "}"
    return '{"products": [' + ", ".join(parts) + "]}"


def _variants(products: list[dict[str, Any]]) -> int:
    return sum(len(p["variants"]) for p in products)


def test_cutting_counts_brackets_outside_strings_only() -> None:
    text = '{"a": "[[[[", "b": [[[1]]], "c": "\\"]"}'
    assert json.loads(cut_deep(text, 2)) == {"a": "[[[[", "b": [TOO_DEEP], "c": '"]'}
    assert loads_shallow(text, 10) == json.loads(text)
    assert holds_cut(loads_shallow(_deep(), 3)) and not holds_cut(json.loads(text))


def test_a_deep_record_in_a_real_dump_is_counted_and_the_rest_kept(shopify_dir: Path, tmp_path: Path) -> None:
    source = shopify_dir / "yoga-2026-01-06" / "42birds.json"
    products = json.loads(source.read_text(encoding="utf-8"))["products"]
    assert len(products) >= 3
    clean = build_catalog([source], tmp_path / "clean.sqlite")
    dump = tmp_path / "42birds.json"
    dump.write_text(_with_deep_record(products, 1), encoding="utf-8")

    report = build_catalog([dump], tmp_path / "cut.sqlite")

    (file,) = report.files
    lost = len(products[1]["variants"])
    assert file.records == clean.files[0].records
    assert file.dropped.get("bad_record", 0) == clean.files[0].dropped.get("bad_record", 0) + lost
    assert report.counts["listings_kept"] == clean.counts["listings_kept"] - lost
    (error,) = [e for e in report.errors if "nested" in str(e)]
    assert (error.file, error.position) == ("42birds.json", "products[1]")
    assert "nested more than" in error.message
    assert any(str(error) == entry for entry in report.metadata["source"]["files"][0]["errors"])


def test_a_deep_record_in_a_grouped_dump_is_counted(shopify_dir: Path, tmp_path: Path) -> None:
    groups = json.loads((shopify_dir / "pet-care" / "products_by_brand.json").read_text(encoding="utf-8"))
    brand = sorted(groups)[0]
    text = json.dumps(groups)
    first = json.dumps(groups[brand][0])
    assert text.count(first) == 1
    dump = tmp_path / "products_by_brand.json"
    dump.write_text(text.replace(first, first[:-1] + ', "description": ' + _deep() + "}"), encoding="utf-8")

    report = build_catalog([dump], tmp_path / "cut.sqlite", options=None)

    nested = [e for e in report.errors if "nested" in str(e)]
    assert [(e.file, e.position) for e in nested] == [("products_by_brand.json", f"{brand}[0]")]
    assert report.counts["dropped"]["bad_record"] >= len(groups[brand][0]["variants"])
    assert report.counts["listings_kept"] > 0


def test_a_deep_line_of_a_jsonl_file_is_counted(tmp_path: Path) -> None:
    good = {"title": "Mat", "price": "20.00", "sku": "m-1"}
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(good) + "\n" + '{"title": "x", "attributes": ' + _deep() + "}\n"
                    + json.dumps({**good, "sku": "m-2", "title": "Mat 2"}) + "\n", encoding="utf-8")
    report = build_catalog([path], tmp_path / "rows.sqlite")
    assert [(e.position, "nested too deeply" in e.message) for e in report.errors] == [("line 2", True)]
    assert report.files[0].records == 3 and report.counts["listings_kept"] == 2


def test_strict_refuses_a_dump_with_a_deep_record(tmp_path: Path) -> None:
    product = {"id": 1, "title": "Mat", "handle": "mat", "variants": [{"id": 2, "price": "10.00", "available": True}]}
    dump = tmp_path / "shop.json"
    dump.write_text(_with_deep_record([product, {**product, "id": 3, "handle": "b"}], 0), encoding="utf-8")
    from acworld_env.catalog.errors import CatalogError

    with pytest.raises(CatalogError, match=r"shop\.json at products\[0\].*nested more than"):
        build_catalog([dump], tmp_path / "shop.sqlite", strict=True)
