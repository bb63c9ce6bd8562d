"""Ingestion: the three real Shopify shapes, generic JSONL/CSV, and damaged files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from acworld_env.catalog import Catalog, CatalogError
from acworld_env.catalog.ingest import IngestOptions, build_catalog

GBP_STORES = {"liforme.json": "GBP", "yogamatters.json": "GBP", "yogi-bare.json": "GBP",
              "products_by_brand.json": "INR"}


@pytest.fixture(scope="module")
def real(shopify_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Catalog, object]:
    out = tmp_path_factory.mktemp("real") / "real.sqlite"
    report = build_catalog([shopify_dir], out, options=IngestOptions(currency_for=GBP_STORES))
    return Catalog.open(out), report


def test_real_dumps_all_three_shapes(real: tuple[Catalog, object], shopify_dir: Path) -> None:
    cat, report = real
    by_file = {f.file: f for f in report.files}  # type: ignore[attr-defined]
    assert by_file["home-textiles/products.json"].format == "admin"
    assert by_file["pet-care/products_by_brand.json"].format == "product_js"
    assert by_file["yoga-2026-01-06/manduka.json"].format == "storefront"
    assert not any(name.endswith("_summary.json") for name in by_file)
    assert report.errors == []  # type: ignore[attr-defined]
    source_variants = 0
    for path in shopify_dir.rglob("*.json"):
        if path.name.startswith("_"):
            continue
        doc = json.loads(path.read_text())
        groups = doc["products"] if "products" in doc else [p for v in doc.values() for p in v]
        source_variants += sum(len(p["variants"]) for p in groups)
    counts = cat.metadata["counts"]
    assert counts["records_read"] == source_variants
    assert counts["listings_kept"] == len(cat) == source_variants - sum(counts["dropped"].values())
    assert set(cat.merchants()) >= {"manduka", "home-textiles", "acana", "huft"}
    assert {"GBP", "INR", "USD"} <= {x.currency for x in cat.get_many(cat.oracle_ids({}))}


def test_real_prices_are_minor_units_per_currency(real: tuple[Catalog, object], shopify_dir: Path) -> None:
    cat, _ = real
    pets = json.loads((shopify_dir / "pet-care" / "products_by_brand.json").read_text())
    group, products = next(iter(pets.items()))
    variant = products[0]["variants"][0]
    listing = cat.get(f"{group.lower()}-{variant['id']}")
    assert listing is not None and listing.currency == "INR"
    assert listing.price == variant["price"]
    assert listing.in_stock == variant["available"]
    yoga = json.loads((shopify_dir / "yoga-2026-01-06" / "manduka.json").read_text())["products"][0]
    v = yoga["variants"][0]
    item = cat.get(f"manduka-{v['id']}")
    assert item is not None and item.price == round(float(v["price"]) * 100) and item.currency == "USD"
    assert item.options and set(item.options) <= {"color", "size", "thickness", "length"}


def test_admin_inventory_and_weights(real: tuple[Catalog, object], shopify_dir: Path) -> None:
    cat, _ = real
    p = json.loads((shopify_dir / "home-textiles" / "products.json").read_text())["products"][0]
    v = p["variants"][0]
    item = cat.get(f"home-textiles-{v['id']}")
    assert item is not None
    assert item.quantity == v["inventory_quantity"] and item.in_stock == (v["inventory_quantity"] > 0)
    assert item.attributes.get("weight_g") == v["grams"]
    assert item.tags[0] == p["tags"].split(",")[0].strip()
    assert "<" not in item.description


def test_rebuild_gives_same_ids_and_hash(real: tuple[Catalog, object], shopify_dir: Path, tmp_path: Path) -> None:
    cat, _ = real
    files = sorted(p for p in shopify_dir.rglob("*.json") if not p.name.startswith("_"))
    again = build_catalog(list(reversed(files)), tmp_path / "again.sqlite",
                          options=IngestOptions(currency_for=GBP_STORES))
    assert again.metadata["content_hash"] == cat.content_hash  # type: ignore[index]


def _shop_doc(n: int, vendor: str = "Acme") -> dict:
    return {"products": [{
        "id": 100 + i, "title": f"Mat {i}", "handle": f"mat-{i}", "vendor": vendor, "product_type": "Mats",
        "body_html": "<p>Grippy</p>", "tags": ["yoga", "USD"], "options": [{"name": "Colour", "values": ["Red"]}],
        "variants": [{"id": 1000 + i, "price": f"{10 + i}.00", "available": True, "option1": "Red",
                      "sku": f"S{i}", "compare_at_price": None, "grams": 900}],
    } for i in range(n)]}


def test_corrupt_and_truncated_files_are_reported_and_others_ingested(tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(_shop_doc(3)))
    text = json.dumps(_shop_doc(5), indent=1)
    (tmp_path / "truncated.json").write_text(text[: len(text) // 2])
    (tmp_path / "binary.json").write_bytes(b"\xff\xfe\x00garbage")
    (tmp_path / "odd.json").write_text(json.dumps({"hello": "world"}))
    report = build_catalog([tmp_path, tmp_path / "missing.json"], tmp_path / "out.sqlite")
    errors = {e.file: e for e in report.errors}
    assert set(errors) == {"truncated.json", "binary.json", "odd.json", str(tmp_path / "missing.json")}
    assert errors["truncated.json"].position.startswith("line ") and "char" in errors["truncated.json"].position
    assert "truncated" in errors["truncated.json"].message
    assert errors["binary.json"].position == "byte 0"
    cat = Catalog.open(tmp_path / "out.sqlite")
    assert len(cat) == 3 and cat.get("good-1000").options == {"color": "Red"}
    assert cat.metadata["source"]["files"][1]["errors"]
    with pytest.raises(CatalogError, match="--strict"):
        build_catalog([tmp_path], tmp_path / "strict.sqlite", strict=True)
    assert not (tmp_path / "strict.sqlite").exists()


def test_nothing_readable_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(CatalogError, match="no listings to write.*broken.json"):
        build_catalog([tmp_path], tmp_path / "out.sqlite")


def test_generic_jsonl_and_csv_with_mapping(tmp_path: Path) -> None:
    rows = [
        {"shop": "acme", "sku": "T-1", "name": "Tee", "product": "tee", "Cost": "12.50", "currency": "eur",
         "options": {"Colour": "Black", "Size": "M"}, "attributes": {"organic": True, "weight_g": 180},
         "in_stock": "yes", "quantity": 4, "tags": "basics, cotton", "rating": 4.5, "review_count": 12},
        {"shop": "acme", "sku": "T-2", "name": "Tee", "product": "tee", "Cost": "12.50", "currency": "EUR",
         "options": {"Colour": "White", "Size": "M"}, "in_stock": "no"},
        {"shop": "acme", "sku": "T-1", "name": "Tee", "product": "tee", "Cost": "13.00"},
        {"shop": "acme", "name": "Cap", "Cost": "0"},
    ]
    jl = tmp_path / "rows.jsonl"
    jl.write_text("\n".join(json.dumps(r) for r in rows) + "\n{not json\n")
    csv_path = tmp_path / "shop.csv"
    csv_path.write_text("title,price_minor,option.Color,attr.width_cm,attr.vegan,in_stock,merchant_id\n"
                        "Sock,499,Blue,12,true,1,socks-co\n"
                        "Sock,oops,Red,12,false,1,socks-co\n")
    report = build_catalog([jl, csv_path], tmp_path / "g.sqlite", options=IngestOptions(rename={"Cost": "price"}))
    cat = Catalog.open(tmp_path / "g.sqlite")
    tee = cat.get("acme-T-1")
    assert tee is not None and tee.price == 1250 and tee.currency == "EUR" and tee.quantity == 4
    assert tee.options == {"color": "Black", "size": "M"} and tee.attributes == {"organic": True, "weight_g": 180}
    assert tee.tags == ["basics", "cotton"] and tee.rating == 4.5 and tee.review_count == 12
    assert tee.title == "Tee - Black / M"
    assert cat.get("acme-T-2").in_stock is False
    sock = cat.search({"merchant_id": "socks-co"}).items
    assert len(sock) == 1 and sock[0].price == 499 and sock[0].attributes == {"width_cm": 12, "vegan": True}
    by_file = {f.file: f for f in report.files}
    assert by_file["rows.jsonl"].dropped == {"bad_row": 1, "duplicate_sku": 1, "non_positive_price": 1}
    assert by_file["shop.csv"].dropped == {"bad_row": 1}
    assert [e.position for e in report.errors] == ["line 5 column 2", "line 3"]
