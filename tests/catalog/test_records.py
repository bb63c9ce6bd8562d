"""Normalisation rules shared by every source: prices, drops, de-duplication, options, stock, ids."""

from __future__ import annotations

import json

import pytest

from acworld_env.catalog.money import (
    PriceError,
    cents_to_minor,
    major_to_minor,
)
from acworld_env.catalog.records import (
    NOMINAL_QUANTITY,
    Normalizer,
    SourceProduct,
    SourceVariant,
    dumps,
    flat_json,
    parse_price,
)
from acworld_env.catalog.textutil import html_to_text, option_key, slug
from acworld_env.core.money import exponent, format_money


def product(*variants: SourceVariant, **kw: object) -> SourceProduct:
    base = {"merchant_id": "m001", "product_key": "p1", "title": "Cork Mat", "currency": "USD"}
    base.update(kw)
    return SourceProduct(variants=list(variants), **base)  # type: ignore[arg-type]


def test_money_conversion_per_currency_exponent() -> None:
    assert major_to_minor("24.99", "USD") == 2499
    assert major_to_minor("1,299.5", "GBP") == 129950
    assert major_to_minor("4280", "JPY") == 4280 and exponent("JPY") == 0
    assert major_to_minor("1.2345", "KWD") == 1235 and exponent("KWD") == 3
    assert major_to_minor(0.1 + 0.2, "USD") == 30
    assert cents_to_minor(979900, "INR") == 979900
    assert cents_to_minor(428000, "JPY") == 4280
    assert format_money(2499, "USD") == "24.99 USD" and format_money(4280, "JPY") == "4280 JPY"
    for bad in ("abc", "NaN", "", True):
        with pytest.raises(PriceError):
            major_to_minor(bad, "USD")  # type: ignore[arg-type]


def test_parse_price_formats() -> None:
    assert parse_price("12.50", "major", "USD") == 1250
    assert parse_price("12.5", "major", "USD") == 1250
    assert parse_price(12.5, "major", "EUR") == 1250
    assert parse_price(1250, "cents", "USD") == 1250
    assert parse_price(1250, "minor", "JPY") == 1250
    with pytest.raises(PriceError):
        parse_price("12.50", "minor", "USD")


def test_drops_are_counted_by_reason_and_first_sku_wins() -> None:
    norm = Normalizer()
    src = product(
        SourceVariant("v1", "10.00", sku="A"),
        SourceVariant("v2", None, sku="B"),
        SourceVariant("v3", "  ", sku="C"),
        SourceVariant("v4", "0.00", sku="D"),
        SourceVariant("v5", "-3", sku="E"),
        SourceVariant("v6", "ten", sku="F"),
        SourceVariant("v7", "11.00", sku="A"),
        SourceVariant("v1", "12.00", sku="G"),
        SourceVariant("v8", "13.00"),
    )
    _, rows = norm.normalize(src)
    assert [r[0] for r in rows] == ["m001-v1", "m001-v8"]
    assert rows[0][2] == 1000
    assert norm.counts() == {"records_read": 9, "listings_kept": 2, "dropped": {
        "bad_price": 1, "duplicate_listing_id": 1, "duplicate_sku": 1, "missing_price": 2,
        "non_positive_price": 2}}


def test_sku_memory_is_per_merchant() -> None:
    norm = Normalizer()
    _, a = norm.normalize(product(SourceVariant("v1", "1.00", sku="X")))
    _, b = norm.normalize(product(SourceVariant("v1", "1.00", sku="X"), merchant_id="m002"))
    assert len(a) == len(b) == 1


def test_bad_currency_and_missing_title_drop_whole_products() -> None:
    norm = Normalizer()
    assert norm.normalize(product(SourceVariant("v1", "1.00"), currency="dollars"))[1] == []
    assert norm.normalize(product(SourceVariant("v1", "1.00"), title="  "))[1] == []
    assert norm.counts()["dropped"] == {"bad_currency": 1, "missing_title": 1}


def test_options_are_canonicalised_and_default_title_removed() -> None:
    norm = Normalizer()
    _, rows = norm.normalize(product(
        SourceVariant("v1", "5.00", options=[("Colour", " Deep  Black "), ("SIZE", "M")]),
        SourceVariant("v2", "5.00", options=[("Title", "Default Title")]),
        SourceVariant("v3", "5.00", options=[("Color", "Red"), ("colour", "Blue")]),
    ))
    assert rows[0][7] == {"color": "Deep Black", "size": "M"}
    assert rows[0][1] == "Cork Mat - Deep Black / M"
    assert rows[1][7] == {} and rows[1][1] == "Cork Mat"
    assert rows[2][7] == {"color": "Red", "color_2": "Blue"}
    assert option_key("Pack Size") == "pack_size" and option_key("Flavor") == "flavour"


def test_stock_rules() -> None:
    norm = Normalizer()
    _, rows = norm.normalize(product(
        SourceVariant("a", "1.00", available=False, quantity=5),
        SourceVariant("b", "1.00", available=True, quantity=0),
        SourceVariant("c", "1.00", quantity=3),
        SourceVariant("d", "1.00", quantity=0),
        SourceVariant("e", "1.00"),
    ))
    assert [(r[5], r[6]) for r in rows] == [(0, 0), (1, NOMINAL_QUANTITY), (1, 3), (0, 0), (1, NOMINAL_QUANTITY)]


def test_compare_at_and_attributes() -> None:
    norm = Normalizer()
    p, rows = norm.normalize(product(
        SourceVariant("a", "10.00", compare_at="15.00", attributes={"Weight G": 250.0, "Vegan": True}),
        SourceVariant("b", "10.00", compare_at="0", attributes={"note": "  "}),
        attributes={"material": "cork", "bad": float("nan")},
    ))
    assert p.attributes == {"material": "cork"}
    assert rows[0][4] == 1500 and rows[0][9] == {"material": "cork", "weight_g": 250, "vegan": True}
    assert rows[1][4] is None and rows[1][9] == {"material": "cork"}
    assert json.loads(rows[0][10]) == rows[0][9]


def test_ids_do_not_depend_on_input_order() -> None:
    v = [SourceVariant(f"{i}", f"{i}.00", sku=f"S{i}") for i in range(1, 6)]
    fwd = Normalizer().normalize(product(*v))[1]
    rev = Normalizer().normalize(product(*reversed(v)))[1]
    assert sorted(r[0] for r in fwd) == sorted(r[0] for r in rev)
    weird = Normalizer().normalize(product(SourceVariant("a/b c", "1.00"), product_key="x y"))[0]
    assert weird.product_id == "m001-x-y"


@pytest.mark.parametrize("value", [
    {"b": 1, "a": 'x"y\\', "c": True, "d": 1.5, "e": "ü\n\t", "f": False, "g": -0.0, "h": 10**20},
    {}, {"z": 2.0}, ["x", "é", 'q"'], [],
])
def test_fast_json_matches_json_dumps(value: object) -> None:
    expected = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert dumps(value) == expected
    if isinstance(value, dict):
        assert flat_json(value) == expected


def test_text_helpers() -> None:
    assert html_to_text("<p>Hello&nbsp;<b>world</b></p><script>x()</script><li>a</li>") == "Hello world a"
    assert len(html_to_text("word " * 1000)) <= 1000
    assert slug("Öko Living!") == "oko-living"
