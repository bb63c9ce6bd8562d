"""The ``acworld catalog`` commands, through typer's CliRunner."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from acworld_env.catalog import Catalog
from acworld_env.catalog.cli import app

runner = CliRunner()


def run(*args: str, code: int = 0) -> str:
    result = runner.invoke(app, list(args))
    assert "Traceback" not in result.output
    assert result.exit_code == code, result.output
    return result.output


def flat(text: str) -> str:
    return " ".join(text.split())


def test_synth_is_deterministic_and_refuses_to_overwrite(tmp_path: Path) -> None:
    a, b = tmp_path / "a.sqlite", tmp_path / "b.sqlite"
    out_a = run("synth", "--listings", "800", "--merchants", "4", "--seed", "3", "--out", str(a))
    out_b = run("synth", "--listings", "800", "--merchants", "4", "--seed", "3", "--out", str(b), "--workers", "0")
    hash_a = re.search(r"[0-9a-f]{64}", flat(out_a)).group(0)  # type: ignore[union-attr]
    assert hash_a == re.search(r"[0-9a-f]{64}", flat(out_b)).group(0)  # type: ignore[union-attr]
    assert Catalog.open(a).content_hash == hash_a and len(Catalog.open(a)) == 800
    assert "exists" in flat(run("synth", "--listings", "800", "--out", str(a), code=2))
    run("synth", "--listings", "800", "--merchants", "4", "--seed", "4", "--out", str(a), "--force")
    assert Catalog.open(a).content_hash != hash_a


def test_synth_argument_errors(tmp_path: Path) -> None:
    assert "--preset fixes" in flat(run("synth", "--preset", "large-v1", "--listings", "5", code=2))
    assert "unknown catalog preset" in flat(run("synth", "--preset", "huge", "--out", str(tmp_path / "x"), code=2))
    assert "--listings" in flat(run("synth", "--out", str(tmp_path / "x.sqlite"), code=2))
    assert "cannot share" in flat(run("synth", "--listings", "3", "--merchants", "9",
                                      "--out", str(tmp_path / "y.sqlite"), code=2))


def test_synth_preset_capability_reproduces_shipped_hash(tmp_path: Path, capability: Catalog) -> None:
    out = run("synth", "--preset", "capability-v1", "--out", str(tmp_path / "cap.sqlite"))
    assert capability.content_hash in flat(out)


def test_build_reports_files_and_warnings(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "shop.json").write_text(json.dumps({"products": [{
        "id": 1, "title": "Mat", "handle": "mat", "vendor": "V", "product_type": "Mats", "tags": [],
        "variants": [{"id": 11, "price": "20.00", "available": True, "option1": None}]}]}))
    (src / "broken.json").write_text('{"products": [')
    out = flat(run("build", str(src), "--out", str(tmp_path / "c.sqlite"), "--currency", "gbp"))
    assert "broken.json" in out and "warning" in out and "wrote" in out
    cat = Catalog.open(tmp_path / "c.sqlite")
    assert cat.get("shop-11").currency == "GBP"
    assert "exists" in flat(run("build", str(src), "--out", str(tmp_path / "c.sqlite"), code=2))
    assert "--strict" in flat(run("build", str(src), "--out", str(tmp_path / "d.sqlite"), "--strict", code=2))
    assert "no such file" in flat(run("build", str(tmp_path / "nothing"), "--out", str(tmp_path / "e.sqlite"),
                                      code=2))
    assert "KEY=VALUE" in flat(run("build", str(src), "--out", str(tmp_path / "f.sqlite"), "--map", "oops",
                                   code=2))


def test_stats_json_and_table(capability: Catalog) -> None:
    data = json.loads(run("stats", str(capability.path), "--json"))
    assert data["listings"] == 1082 and data["content_hash"] == capability.content_hash
    assert data["by_category"]["Footwear"] == {"listings": 295, "in_stock": 8}
    assert data["counts"]["listings_kept"] == 1082
    table = flat(run("stats", "capability-v1"))
    assert "Home textiles" in table and "280" in table and "172" in table


def test_search_matches_the_api(capability: Catalog) -> None:
    page = json.loads(run("search", str(capability.path), "--category", "yoga", "--max-price", "90",
                          "--in-stock", "--attr", "thickness_mm=5..", "--option", "color=black",
                          "--sort", "price_asc", "--page-size", "5", "--json"))
    api = capability.search({"category": "yoga", "max_price": 9000, "in_stock": True,
                             "attributes": {"thickness_mm": {"min": 5}}, "options": {"color": "black"},
                             "sort": "price_asc", "page_size": 5})
    assert page["total"] == api.total > 0
    assert [x["listing_id"] for x in page["items"]] == [x.listing_id for x in api.items]
    cents = json.loads(run("search", str(capability.path), "--category", "yoga", "--max-price", "9000c", "--json"))
    dollars = json.loads(run("search", str(capability.path), "--category", "yoga", "--max-price", "$90.00", "--json"))
    assert cents["total"] == dollars["total"] == capability.search({"category": "yoga", "max_price": 9000}).total
    table = flat(run("search", "capability-v1", "--q", "cork mat", "--page-size", "3"))
    assert "matches" in table and "USD" in table


@pytest.mark.parametrize(("args", "code", "fragment"), [
    (["--page-size", "99"], 2, "bad_page_size"),
    (["--page", "0"], 2, "bad_page"),
    (["--sort", "cheap"], 2, "bad_sort"),
    (["--min-price", "9", "--max-price", "1"], 2, "bad_range"),
    (["--option", "size"], 2, "KEY=VALUE"),
    (["--max-price", "4x"], 2, "is not a price"),
    (["--max-price", "1.999"], 2, "cents with a c"),
])
def test_search_errors_are_one_line(capability: Catalog, args: list[str], code: int, fragment: str) -> None:
    assert fragment in flat(run("search", str(capability.path), *args, code=code))


def test_bad_files_exit_nonzero(tmp_path: Path) -> None:
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"nope" * 1000)
    assert "not an SQLite database" in flat(run("stats", str(junk), code=2))
    assert "not found" in flat(run("search", str(tmp_path / "missing.sqlite"), code=2))
