"""Issue 11 §5: a bad record is a drop with a reason naming its file and position, never an aborted
build or a wrong price; European price strings; ``--currency`` shown by ``stats``; exit code 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from acworld_env.catalog import Catalog
from acworld_env.catalog.cli import app
from acworld_env.catalog.ingest import build_catalog
from acworld_env.catalog.money import PriceError, major_to_minor

runner = CliRunner()


def product(pid: int, *prices: Any, variants: Any = None, **extra: Any) -> dict[str, Any]:
    """A storefront product whose variants carry ``prices`` (or the given raw ``variants``)."""
    if variants is None:
        variants = [{"id": pid * 10 + i, "price": p, "available": True} for i, p in enumerate(prices, start=1)]
    return {"id": pid, "title": f"Mat {pid}", "handle": f"mat-{pid}", "vendor": "V", "product_type": "Mats",
            "tags": [], "variants": variants, **extra}


def drops_of(report: Any, file: str) -> list[str]:
    return [str(d) for f in report.files if f.file == file for d in f.drops]


def dropped_at(drops: list[str], where: str) -> str:
    hits = [d for d in drops if where in d]
    assert len(hits) == 1, (where, drops)
    return hits[0]


def test_bad_jsonl_records_are_drops_naming_file_and_line(tmp_path: Path) -> None:
    src = tmp_path / "shop.jsonl"
    lines = [
        json.dumps(product(1, "20.00")),                                   # 1 kept
        json.dumps(product(2, "1e30")),                                    # 2 absurd price
        '{"title": "deep", "variants": ' + "[" * 100_000 + "]" * 100_000 + "}",  # 3 100k-deep nesting
        json.dumps(product(3, variants=[])),                               # 4 no variants
        json.dumps(product(4, variants=[1, "x", None])),                   # 5 non-dict variants
        '{"id": 5, "title": "big", "variants": [{"id": 51, "price": ' + "9" * 5000 + "}]}",  # 6 5000 digits
        json.dumps(product(6, "1" * 40 + ".00")),                          # 7 40-digit price
        json.dumps(product(7, 1e30)),                                      # 8 JSON number 1e30
        json.dumps(product(8, "30.00", variants=None)),                    # 9 kept
    ]
    src.write_text("\n".join(lines) + "\n")
    report = build_catalog([src], tmp_path / "out.sqlite")
    cat = Catalog.open(tmp_path / "out.sqlite")
    assert sorted(x.listing_id for x in cat.get_many(cat.oracle_ids({}))) == ["shop-11", "shop-81"]
    assert cat.get("shop-11").price == 2000  # type: ignore[union-attr]
    drops = drops_of(report, "shop.jsonl")
    assert "1e30" in dropped_at(drops, "line 2,")
    assert "nest" in dropped_at(drops, "line 3:")
    assert "no variants" in dropped_at(drops, "line 4:")
    for i in range(3):
        assert "not an object" in dropped_at(drops, f"line 5, variants[{i}]")
    assert dropped_at(drops, "line 6:")
    assert "too large" in dropped_at(drops, "line 7,")
    assert "too large" in dropped_at(drops, "line 8,")
    assert all(d.startswith("shop.jsonl at line ") for d in drops)
    counts = report.files[0].dropped
    assert counts["bad_price"] == 3 and counts["no_variants"] == 1 and counts["bad_variant"] == 3
    assert counts["bad_row"] == 2


def test_bad_products_in_a_json_dump_name_their_index(tmp_path: Path) -> None:
    (tmp_path / "store.json").write_text(json.dumps({"products": [
        product(1, "20.00"), product(2, "1e30"), product(3, variants=[]),
        product(4, "5.00", variants=[{"id": 41, "price": "5.00"}, ["not", "a", "dict"]]),
        product(5, "7.00", options=5, tags={"odd": 1}),
    ]}))
    report = build_catalog([tmp_path], tmp_path / "out.sqlite")
    drops = drops_of(report, "store.json")
    assert "1e30" in dropped_at(drops, "products[1].variants[0]")
    assert "no variants" in dropped_at(drops, "products[2]:")
    assert "not an object" in dropped_at(drops, "products[3].variants[1]")
    cat = Catalog.open(tmp_path / "out.sqlite")
    assert {x.listing_id for x in cat.get_many(cat.oracle_ids({}))} >= {"store-11", "store-41"}


def test_a_deeply_nested_json_file_is_reported_and_the_rest_is_built(tmp_path: Path) -> None:
    (tmp_path / "good.json").write_text(json.dumps({"products": [product(1, "20.00")]}))
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    report = build_catalog([tmp_path], tmp_path / "out.sqlite")
    errors = {e.file: str(e) for e in report.errors}
    assert "nest" in errors["deep.json"]
    assert len(Catalog.open(tmp_path / "out.sqlite")) == 1


def test_absurd_quantities_and_attributes_never_abort_a_build(tmp_path: Path) -> None:
    rows = [
        {"title": "Tee", "sku": "A", "price": "10.00", "quantity": "1e30"},
        {"title": "Tee", "sku": "B", "price": "10.00", "attributes": {"weight_g": 10 ** 400}},
        {"title": "Tee", "sku": "C", "price": "10.00", "review_count": 10 ** 30},
        {"title": "Tee", "sku": "D", "price_minor": "1e30"},
        {"title": "Tee", "sku": "E", "price": "11.00"},
    ]
    (tmp_path / "rows.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    report = build_catalog([tmp_path / "rows.jsonl"], tmp_path / "out.sqlite")
    cat = Catalog.open(tmp_path / "out.sqlite")
    assert cat.get("rows-E").price == 1100  # type: ignore[union-attr]
    drops = drops_of(report, "rows.jsonl")
    assert dropped_at(drops, "line 1") and dropped_at(drops, "line 4")


@pytest.mark.parametrize("text, minor", [
    ("12,99", 1299), ("1.299,00", 129900), ("0,50", 50), ("1.299.000", 129_900_000), ("1 299,00", 129900),
    ("1,299", 129900), ("1,299.50", 129950), ("12,999", 1_299_900), ("24.99", 2499), ("24.9", 2490),
    ("  7 ", 700), ("1,29", 129), ("1,234,567.89", 123_456_789),
])
def test_price_strings_in_us_and_european_forms(text: str, minor: int) -> None:
    assert major_to_minor(text, "EUR") == minor


@pytest.mark.parametrize("text", ["1e30", "1E5", "1.299", "24.999", "12,9999", "1_000", "0x10", "Infinity",
                                  "1" * 40, "12.34.56", "1.299,00,00"])
def test_unreadable_or_ambiguous_prices_raise(text: str) -> None:
    with pytest.raises(PriceError):
        major_to_minor(text, "USD")


def test_three_decimal_currencies_read_a_dotted_price_as_decimal() -> None:
    assert major_to_minor("1.299", "KWD") == 1299
    with pytest.raises(PriceError, match="too large"):
        major_to_minor(1e30, "USD")


def test_european_prices_are_stored_right_or_dropped(tmp_path: Path) -> None:
    (tmp_path / "eu.json").write_text(json.dumps({"products": [
        product(1, "12,99", "1.299,00", "1,299", "1.299")]}))
    report = build_catalog([tmp_path], tmp_path / "out.sqlite")
    cat = Catalog.open(tmp_path / "out.sqlite")
    prices = {x.listing_id: x.price for x in cat.get_many(cat.oracle_ids({}))}
    assert prices == {"eu-11": 1299, "eu-12": 129900, "eu-13": 129900}
    assert "ambiguous" in dropped_at(drops_of(report, "eu.json"), "products[0].variants[3]")


def run(*args: str, code: int = 0) -> str:
    result = runner.invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    assert result.exit_code == code, result.output
    return " ".join(result.output.split())


def test_currency_option_is_used_and_shown_by_stats(tmp_path: Path) -> None:
    (tmp_path / "shop.json").write_text(json.dumps({"products": [product(1, "12,99", "20.00")]}))
    run("build", str(tmp_path / "shop.json"), "--out", str(tmp_path / "eur.sqlite"), "--currency", "eur")
    assert Catalog.open(tmp_path / "eur.sqlite").get("shop-11").currency == "EUR"  # type: ignore[union-attr]
    data = json.loads(runner.invoke(app, ["stats", str(tmp_path / "eur.sqlite"), "--json"]).output)
    assert data["currencies"] == {"EUR": {"listings": 2, "merchants": 1}}
    assert "EUR" in run("stats", str(tmp_path / "eur.sqlite"))
    run("build", str(tmp_path / "shop.json"), "--out", str(tmp_path / "usd.sqlite"))
    assert "USD" in run("stats", str(tmp_path / "usd.sqlite"))
    assert "currency" in run("build", str(tmp_path / "shop.json"), "--out", str(tmp_path / "x.sqlite"),
                             "--currency", "dollars", code=2)


def test_stats_shows_currency_of_a_synthetic_catalog(capability: Catalog) -> None:
    data = json.loads(runner.invoke(app, ["stats", str(capability.path), "--json"]).output)
    assert set(data["currencies"]) >= {"USD"}


def test_build_prints_drops_with_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "shop.jsonl").write_text(json.dumps(product(1, "20.00")) + "\n" + json.dumps(product(2, "1e30"))
                                         + "\n")
    out = run("build", str(tmp_path / "shop.jsonl"), "--out", str(tmp_path / "c.sqlite"))
    assert "shop.jsonl at line 2, variants[0]" in out and "1e30" in out


@pytest.mark.parametrize("make", ["corrupt", "missing", "directory", "truncated"])
def test_catalog_file_errors_exit_2_with_a_message(tmp_path: Path, make: str) -> None:
    path = tmp_path / "cat.sqlite"
    if make == "corrupt":
        path.write_bytes(b"SQLite format 3\x00" + b"\x13" * 5000)
    elif make == "directory":
        path.mkdir()
    elif make == "truncated":
        (tmp_path / "s.json").write_text(json.dumps({"products": [product(1, "20.00")]}))
        build_catalog([tmp_path / "s.json"], path)
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 3])
    for cmd in (["stats", str(path)], ["search", str(path), "--q", "mat"]):
        out = run(*cmd, code=2)
        assert out.startswith("error:") and "cat.sqlite" in out


def test_build_input_errors_exit_2(tmp_path: Path) -> None:
    (tmp_path / "shop.json").write_text(json.dumps({"products": [product(1, "20.00")]}))
    assert "no such file" in run("build", str(tmp_path / "none.json"), "--out", str(tmp_path / "a.sqlite"), code=2)
    (tmp_path / "bad.json").write_text('{"products": [')
    assert "bad.json" in run("build", str(tmp_path / "bad.json"), "--out", str(tmp_path / "b.sqlite"), code=2)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    out = run("build", str(tmp_path / "shop.json"), "--out", str(blocker / "c.sqlite"), code=2)
    assert out.startswith("error:") and "c.sqlite" in out
