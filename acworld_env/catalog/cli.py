"""``acworld catalog ...``: build, synthesise, inspect and search catalogs.

Commands: ``build SOURCES... --out PATH``, ``synth --listings N [--merchants M]
[--seed S] [--preset NAME] --out PATH``, ``stats PATH``, ``search PATH --q ...``.
``PATH`` may also be a preset name (``capability-v1``, ``large-v1``); ``large-v1`` is
built into the cache on first use. Every error prints one clear line, never a
traceback, and exits 2 (a missing, corrupt or unwritable file, bad input or an invalid
query), as every ``acworld`` command does for usage and input errors; 1 is left for an
internal failure. ``build`` prints each problem and dropped record with its file and
position (the first :data:`SHOWN` of each kind; all are counted).
"""

from __future__ import annotations

import functools
import json
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import typer
from rich import box
from rich.console import Console
from rich.table import Table

from ..core.money import PriceError, format_money, parse_price
from .errors import CatalogError, CatalogQueryError

app = typer.Typer(name="catalog", help="Build, synthesise, inspect and search product catalogs.",
                  no_args_is_help=True, add_completion=False)
out = Console()
err = Console(stderr=True, soft_wrap=True)  # an error is one line, however long its paths
F = TypeVar("F", bound=Callable[..., Any])
INPUT_ERROR = 2
"""Exit code of every usage or input error."""
SHOWN = 20
NO_CATEGORY = "(no category)"
"""How listings whose source names no category are shown."""
"""Problems and drops ``build`` prints one by one (the rest are summarised)."""


def _fail(message: str, code: int = INPUT_ERROR) -> typer.Exit:
    err.print(f"[bold red]error:[/] {message}", highlight=False)
    return typer.Exit(code)


def guarded(fn: F) -> F:
    """Turn every failure into a one-line message and a non-zero exit code."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except typer.Exit:
            raise
        except CatalogQueryError as exc:
            raise _fail(f"invalid query ({exc.code}): {exc.message}") from None
        except CatalogError as exc:
            raise _fail(str(exc)) from None
        except OSError as exc:
            raise _fail(f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": ")) from None
        except sqlite3.DatabaseError as exc:
            raise _fail(f"catalog file unreadable: {exc}") from None
        except KeyboardInterrupt:
            raise _fail("interrupted", 130) from None
        except Exception as exc:  # noqa: BLE001 - the CLI promises no tracebacks
            raise _fail(f"internal error {type(exc).__name__}: {exc}", 1) from None
    return wrapper  # type: ignore[return-value]


def _pairs(items: list[str], what: str) -> dict[str, str]:
    outd: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise CatalogError(f"{what} must look like KEY=VALUE, got {item!r}")
        outd[key.strip()] = value.strip()
    return outd


def _open(path: str) -> Any:
    from .store import Catalog
    from .synth.presets import PRESETS, open_preset

    if path in PRESETS and not Path(path).exists():
        return open_preset(path)
    return Catalog.open(path)


@app.command()
@guarded
def build(
    sources: list[Path] = typer.Argument(..., help="Files or directories (.json Shopify dumps, .jsonl, .csv)."),
    out_path: Path = typer.Option(..., "--out", "-o", help="Catalog file to write."),
    currency: str = typer.Option("USD", help="Currency of sources that do not say."),
    currency_for: list[str] = typer.Option([], "--currency-for", help="GLOB=CODE, e.g. 'pet-*.json=INR'."),
    rename: list[str] = typer.Option([], "--map", help="SRC=DST column rename for JSONL/CSV rows."),
    strict: bool = typer.Option(False, help="Fail (write nothing) if any source has an error."),
    force: bool = typer.Option(False, help="Replace an existing catalog file."),
) -> None:
    """Ingest real dumps into a catalog; unreadable files are reported, the rest ingested."""
    from .ingest import IngestOptions, build_catalog

    if out_path.exists() and not force:
        raise CatalogError(f"{out_path} exists; pass --force to replace it")
    opts = IngestOptions(currency=currency.upper(), currency_for=_pairs(currency_for, "--currency-for"),
                         rename=_pairs(rename, "--map"))
    report = build_catalog(list(sources), out_path, options=opts, strict=strict)
    table = Table("file", "format", "records", "listings", "dropped", title="sources")
    for f in report.files:
        dropped = ", ".join(f"{k} {v}" for k, v in f.dropped.items())
        table.add_row(f.file, f.format or "-", str(f.records), str(f.listings), dropped)
    out.print(table)
    _problems(report)
    meta = report.metadata or {}
    out.print(f"wrote {out_path}: {meta.get('listing_count', 0):,} listings from {report.counts['records_read']:,}"
              f" records, content hash {meta.get('content_hash', '')}", highlight=False)


def _problems(report: Any) -> None:
    """Print the build's problems and dropped records, each with its file and position."""
    errors = report.errors
    listed = {id(e) for e in errors}
    drops = [d for d in report.drops if id(d) not in listed]
    for e in errors[:SHOWN]:
        err.print(f"warning: {e}", markup=False, highlight=False, soft_wrap=True)
    for d in drops[:SHOWN]:
        err.print(str(d), markup=False, highlight=False, soft_wrap=True)
    total = sum(report.counts["dropped"].values())
    if len(errors) > SHOWN or len(drops) > SHOWN or total > len(errors) + len(drops):
        err.print(f"... {total:,} records dropped in all (by reason in the table above)", highlight=False)


@app.command()
@guarded
def synth(
    listings: int | None = typer.Option(None, "--listings", "-n", help="Transactable listings to generate."),
    merchants: int | None = typer.Option(None, help="Merchants (default: listings / 235)."),
    seed: int | None = typer.Option(None, help="Random seed (default 0)."),
    preset: str | None = typer.Option(None, help="capability-v1 or large-v1 (fixes size and seed)."),
    out_path: Path | None = typer.Option(None, "--out", "-o", help="Catalog file (presets default to the cache)."),
    workers: int = typer.Option(-1, help="Worker processes (-1: up to 2)."),
    force: bool = typer.Option(False, help="Replace an existing catalog file."),
) -> None:
    """Generate a deterministic synthetic catalog (same arguments, same content hash)."""
    from .synth.build import synthesize
    from .synth.plan import SynthConfig
    from .synth.presets import build_preset, cache_path, preset_config

    if out_path is not None and out_path.exists() and not force:
        raise CatalogError(f"{out_path} exists; pass --force to replace it")
    n_workers = None if workers < 0 else workers
    if preset is not None:
        if listings is not None or merchants is not None or seed is not None:
            raise CatalogError("--preset fixes listings, merchants and seed; do not pass them too")
        preset_config(preset)
        if out_path is None and preset == "capability-v1":
            raise CatalogError("capability-v1 ships with the package; pass --out to regenerate it elsewhere")
        target = out_path or cache_path(preset)
        path = build_preset(preset, target, workers=n_workers)
    else:
        if listings is None:
            raise CatalogError("pass --listings N (or --preset NAME)")
        if out_path is None:
            raise CatalogError("pass --out PATH")
        cfg = SynthConfig(listings=listings, merchants=merchants or max(1, round(listings / 235)),
                          seed=seed or 0, name=out_path.stem)
        synthesize(cfg, out_path, workers=min(2, n_workers if n_workers is not None else 2))
        path = out_path
    from .store import Catalog

    cat = Catalog.open(path)
    out.print(f"wrote {path}: {len(cat):,} listings, content hash {cat.content_hash}", highlight=False)


@app.command()
@guarded
def stats(
    path: str = typer.Argument(..., help="Catalog file or preset name."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of tables."),
) -> None:
    """Show a catalog's provenance, counts and per-category composition."""
    cat = _open(path)
    meta = cat.metadata
    cats = cat.category_counts()
    currencies = _currencies(cat)
    summary = {
        "path": str(cat.path), "name": meta.get("name"), "content_hash": cat.content_hash,
        "listings": len(cat), "products": meta.get("product_count"), "merchants": meta.get("merchant_count"),
        "categories": meta.get("category_count"), "source": meta.get("source", {}).get("kind"),
        "currencies": currencies, "counts": meta.get("counts"),
        "by_category": {k or NO_CATEGORY: {"listings": n, "in_stock": s} for k, (n, s) in cats.items()},
    }
    if as_json:
        out.print_json(json.dumps(summary))
        return
    name = summary["name"] or cat.path.stem
    head = Table(show_header=False, title=f"Catalog {name}", title_justify="left", box=box.SIMPLE)
    head.add_column("field", style="bold")
    head.add_column("value", overflow="fold")
    labels = {"path": "file", "content_hash": "content hash", "source": "source"}
    for key in ("path", "content_hash", "listings", "products", "merchants", "categories", "source"):
        head.add_row(labels.get(key, key), f"{summary[key]:,}" if isinstance(summary[key], int) else str(summary[key]))
    head.add_row("currency", ", ".join(
        code + (f" ({c['listings']:,} listings)" if c["listings"] is not None and len(currencies) > 1 else "")
        for code, c in currencies.items()) or "-")
    default = (meta.get("build") or {}).get("default_currency")
    if default:
        head.add_row("default currency", f"{default} (for sources that name none)")
    counts = meta.get("counts") or {}
    head.add_row("records read", f"{counts.get('records_read', 0):,}")
    head.add_row("dropped", ", ".join(f"{k} {v:,}" for k, v in (counts.get("dropped") or {}).items()) or "none")
    out.print(head)
    table = Table(title=f"Listings by category ({'largest 40 of ' if len(cats) > 40 else ''}{len(cats)})",
                  title_justify="left", box=box.SIMPLE_HEAD)
    table.add_column("category")
    table.add_column("listings", justify="right")
    table.add_column("in stock", justify="right")
    for cat_name, (n, s) in sorted(cats.items(), key=lambda kv: (-kv[1][0], kv[0]))[:40]:
        table.add_row(cat_name or NO_CATEGORY, f"{n:,}", f"{s:,}")
    out.print(table)


def _currencies(cat: Any) -> dict[str, dict[str, int | None]]:
    """``{code: {"listings": n or None, "merchants": m}}``; listing counts come from the metadata
    of catalogs that record them (older catalogs give only their merchants' currencies)."""
    by_listing = cat.metadata.get("currencies") or {}
    merchants: dict[str, int] = {}
    for mid in cat.merchants():
        code = (cat.merchant_info(mid) or {}).get("currency") or "?"
        merchants[code] = merchants.get(code, 0) + 1
    codes = sorted(set(by_listing) | set(merchants))
    return {c: {"listings": by_listing.get(c) if by_listing else None, "merchants": merchants.get(c, 0)}
            for c in codes}


def _attr(value: str) -> Any:
    from .ingest.tabular import typed

    lo, sep, hi = value.partition("..")
    if sep:
        rng: dict[str, float] = {}
        if lo.strip():
            rng["min"] = float(lo)
        if hi.strip():
            rng["max"] = float(hi)
        return rng
    return typed(value)


@app.command()
@guarded
def search(
    path: str = typer.Argument(..., help="Catalog file or preset name."),
    q: str | None = typer.Option(None, "--q", help="Free text (every word must match)."),
    category: str | None = typer.Option(None, help="Category (case-insensitive)."),
    brand: str | None = typer.Option(None, help="Brand (case-insensitive)."),
    merchant: str | None = typer.Option(None, help="Merchant id."),
    min_price: str | None = typer.Option(None, help="Lowest price: dollars (50, 49.99) or cents with a c (4999c)."),
    max_price: str | None = typer.Option(None, help="Highest price: dollars (50, 49.99) or cents with a c (4999c)."),
    in_stock: bool | None = typer.Option(None, "--in-stock/--out-of-stock", help="Stock filter."),
    option: list[str] = typer.Option([], help="KEY=VALUE option filter, e.g. size='US 10'."),
    attr: list[str] = typer.Option([], help="KEY=VALUE or KEY=MIN..MAX attribute filter."),
    min_rating: float | None = typer.Option(None, help="Minimum rating 0..5."),
    sort: str = typer.Option("relevance", help="relevance, price_asc, price_desc or rating_desc."),
    page: int = typer.Option(1, help="Page number."),
    page_size: int = typer.Option(10, help="Results per page (1-50)."),
    as_json: bool = typer.Option(False, "--json", help="Print the page as JSON."),
) -> None:
    """Search a catalog the way agents do (bounded pages, exact totals). Prices are in the listing currency's
    main unit (dollars for USD: 50 or 49.99), or minor units with a c (4999c)."""
    try:
        min_price, max_price = (None if p is None else parse_price(p) for p in (min_price, max_price))
    except PriceError as exc:
        raise _fail(str(exc)) from None
    query: dict[str, Any] = {"text": q, "category": category, "brand": brand, "merchant_id": merchant,
                             "min_price": min_price, "max_price": max_price, "in_stock": in_stock,
                             "min_rating": min_rating, "sort": sort, "page": page, "page_size": page_size}
    query = {k: v for k, v in query.items() if v is not None}
    if option:
        query["options"] = _pairs(option, "--option")
    if attr:
        query["attributes"] = {k: _attr(v) for k, v in _pairs(attr, "--attr").items()}
    cat = _open(path)
    result = cat.search(query)
    if as_json:
        out.print_json(result.model_dump_json())
        return
    table = Table("listing", "title", "price", "stock", "rating", "merchant",
                  title=f"{result.total:,} matches, page {result.page} of {max(result.pages, 1)}")
    for item in result.items:
        rating = "-" if item.rating is None else f"{item.rating:.1f} ({item.review_count})"
        table.add_row(item.listing_id, item.title, format_money(item.price, item.currency),
                      str(item.quantity) if item.in_stock else "out", rating, item.merchant_id)
    out.print(table)


def main() -> None:
    """Run the catalog CLI on its own (``python -m acworld_env.catalog.cli``)."""
    app()


if __name__ == "__main__":
    sys.exit(main())
