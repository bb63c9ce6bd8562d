"""``acworld catalog build``: ingest files into a catalog, reporting every problem.

Sources are files or directories (searched recursively, in sorted order, for
``.json``, ``.jsonl``/``.ndjson`` and ``.csv``; names starting with ``_`` or ``.``
such as ``_summary.json`` are skipped). A file that cannot be read (corrupt,
truncated, not UTF-8, not a recognised shape) is reported with its name and the
position of the problem, and the other files are still ingested; a bad line of a
JSONL/CSV file is reported and the rest of the file is read. One bad record never
aborts a build: an unreadable line, a product without variants, a variant that is not
an object, an absurd or ambiguous price, JSON nested too deeply, or anything else that
makes reading or normalising one product fail, is a drop with its reason, file and
position (see :mod:`.report`).

Merchant ids come from the file name (``manduka.json`` -> ``manduka``), from the
parent directory for generic names (``home-textiles/products.json`` ->
``home-textiles``), or from the group key for files grouped by brand. Listings are
sorted by id before writing, so the input order of files only decides which copy of a
duplicated SKU or variant id is kept (the first).
"""

from __future__ import annotations

import csv
import fnmatch
import io
import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import CatalogError
from ..money import is_currency_code
from ..records import ListingRow, NormalizedProduct, Normalizer, SourceProduct
from ..textutil import slug
from ..writer import CatalogWriter
from .report import MAX_DROP_NOTES, BuildReport, Drop, FileReport, SourceError
from .shallow import MAX_DEPTH, holds_cut, loads_shallow
from .shopify import ShapeError, is_product, product_groups, read_product, shape_of
from .tabular import RowError, normalise_columns, read_row

__all__ = ["BuildReport", "Drop", "FileReport", "IngestOptions", "SourceError", "build_catalog"]

EXTENSIONS = (".json", ".jsonl", ".ndjson", ".csv")
GENERIC_STEMS = frozenset({"products", "products_by_brand", "catalog", "data", "export", "items", "listings"})


@dataclass
class IngestOptions:
    """How to read sources: default currency, per-file currencies, column renames."""

    currency: str = "USD"
    currency_for: dict[str, str] = field(default_factory=dict)
    rename: dict[str, str] = field(default_factory=dict)

    def currency_of(self, path: Path) -> str | None:
        """The currency chosen for ``path`` by a ``currency_for`` glob, if any."""
        for pattern, code in self.currency_for.items():
            if fnmatch.fnmatch(path.name, pattern) or fnmatch.fnmatch(str(path), pattern):
                return code.upper()
        return None

    def check(self) -> None:
        """Raise :class:`CatalogError` for a currency that is not an ISO 4217 code."""
        for where, code in [("--currency", self.currency), *((f"--currency-for {k}", v)
                                                             for k, v in self.currency_for.items())]:
            if not is_currency_code(code.strip().upper()):
                raise CatalogError(f"{where}: {code!r} is not a currency code (three letters, e.g. USD, EUR, GBP)")


def expand(sources: list[str | os.PathLike[str]]) -> tuple[list[Path], list[SourceError]]:
    """Files to read, and errors for sources that do not exist."""
    files: list[Path] = []
    errors: list[SourceError] = []
    for s in sources:
        p = Path(s)
        if p.is_dir():
            found = sorted(q for q in p.rglob("*") if q.is_file() and q.suffix.lower() in EXTENSIONS
                           and not any(part.startswith(("_", ".")) for part in q.relative_to(p).parts))
            if not found:
                errors.append(SourceError(str(p), "", "directory holds no .json/.jsonl/.csv files"))
            files.extend(found)
        elif p.is_file():
            files.append(p)
        else:
            errors.append(SourceError(str(p), "", "no such file or directory"))
    return files, errors


def merchant_of(path: Path) -> str:
    """Default merchant id of a file."""
    stem = path.stem.lower()
    name = path.parent.name if stem in GENERIC_STEMS and path.parent.name else path.stem
    return slug(name) or "merchant"


def _read_text(path: Path, label: str) -> str:
    data = path.read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _FileError(SourceError(label, f"byte {exc.start}", f"not UTF-8 text ({exc.reason})")) from None


class _FileError(Exception):
    def __init__(self, error: SourceError) -> None:
        super().__init__(str(error))
        self.error = error


def _why(exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    text = str(exc)
    return f"{type(exc).__name__}: {text[:200]}" if text else type(exc).__name__


def _load_json(text: str) -> tuple[Any, bool]:
    """A whole JSON document, and whether parts of it were cut: one nested too deeply for Python's reader
    is read again with its too-deep parts cut out (:mod:`.shallow`), so only the records holding them are
    lost, each counted."""
    try:
        return json.loads(text), False
    except RecursionError:
        return loads_shallow(text), True


class _Reader:
    """Reads one file into source products (per-file state). A record that cannot be read
    is a drop with its position; only a file that cannot be read at all raises."""

    def __init__(self, path: Path, label: str, opts: IngestOptions) -> None:
        self.path, self.label, self.opts = path, label, opts
        self.merchant = merchant_of(path)
        self.currency = opts.currency_of(path)
        self.report = FileReport(file=label)
        self.products: list[SourceProduct] = []
        self.inactive = 0
        self._groups: dict[tuple[str, str], SourceProduct] = {}
        self._shapes: Counter[str] = Counter()
        self._cut = False
        """Whether the JSON document was read with too-deep parts cut out (records holding one are dropped)."""

    def _shopify(self, p: Any, merchant: str, origin: str) -> None:
        if self._cut and holds_cut(p):
            n = len(p["variants"]) if is_product(p) else 1
            self.report.drop("bad_record", origin, f"cannot read the product (nested more than {MAX_DEPTH} "
                             "levels deep)", n=max(1, n), error=True)
            return
        if not is_product(p):
            self.report.drop("bad_record", origin, "not a Shopify product (an object with a 'variants' list)")
            return
        try:
            shape = shape_of(p)
            src = read_product(p, merchant, self.currency, self.opts.currency, origin=origin)
        except Exception as exc:  # noqa: BLE001 - one bad record never aborts a build
            self.report.drop("bad_record", origin, f"cannot read the product ({_why(exc)})",
                             n=max(1, len(p["variants"])))
            return
        self._shapes[shape] += 1
        if src is None:
            self.inactive += len(p["variants"])
        else:
            self.products.append(src)

    def _row(self, row: dict[str, Any], position: str) -> None:
        try:
            key, product, variant = read_row(normalise_columns(row, self.opts.rename), self.merchant,
                                             self.currency or self.opts.currency, position)
        except RowError as exc:
            self.report.drop("bad_row", position, str(exc), error=True)
            return
        except Exception as exc:  # noqa: BLE001 - one bad record never aborts a build
            self.report.drop("bad_row", position, f"cannot read the row ({_why(exc)})", error=True)
            return
        self._shapes["rows"] += 1
        group = self._groups.get(key)
        if group is None:
            group = self._groups[key] = product
            self.products.append(product)
        group.variants.append(variant)

    def _json(self, text: str) -> None:
        try:
            doc, self._cut = _load_json(text)
        except json.JSONDecodeError as exc:
            raise _FileError(SourceError(self.label, f"line {exc.lineno} column {exc.colno} (char {exc.pos})",
                                         f"invalid or truncated JSON: {exc.msg}")) from None
        except (ValueError, RecursionError) as exc:
            raise _FileError(SourceError(self.label, "", f"unreadable JSON: {_why(exc)}")) from None
        try:
            groups = product_groups(doc)
        except ShapeError as exc:
            cut = f"unreadable JSON: nested more than {MAX_DEPTH} levels deep; " if self._cut else ""
            raise _FileError(SourceError(self.label, "", cut + str(exc))) from None
        for name, entries in groups:
            merchant = (slug(name) if name is not None else self.merchant) or self.merchant
            for origin, p in entries:
                self._shopify(p, merchant, origin)

    def _jsonl(self, text: str) -> None:
        for n, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                self.report.drop("bad_row", f"line {n} column {exc.colno}", f"invalid JSON: {exc.msg}", error=True)
                continue
            except (ValueError, RecursionError) as exc:
                self.report.drop("bad_row", f"line {n}", f"unreadable JSON: {_why(exc)}", error=True)
                continue
            if is_product(obj):
                self._shopify(obj, self.merchant, f"line {n}")
            elif isinstance(obj, dict):
                self._row(obj, f"line {n}")
            else:
                self.report.drop("bad_row", f"line {n}", "not a JSON object", error=True)

    def _csv(self, text: str) -> None:
        reader = csv.DictReader(io.StringIO(text, newline=""))
        try:
            for row in reader:
                if None in row:
                    self.report.drop("bad_row", f"line {reader.line_num}", "more fields than the header", error=True)
                    continue
                self._row(row, f"line {reader.line_num}")
        except csv.Error as exc:
            self.report.errors.append(SourceError(self.label, f"line {reader.line_num}", f"bad CSV: {exc}"))

    def read(self) -> None:
        """Read the file; raises :class:`_FileError` only when nothing of it can be read."""
        suffix = self.path.suffix.lower()
        text = _read_text(self.path, self.label)
        if suffix == ".json":
            self._json(text)
        elif suffix in (".jsonl", ".ndjson"):
            self._jsonl(text)
        elif suffix == ".csv":
            self._csv(text)
        else:
            raise _FileError(SourceError(self.label, "", f"unsupported file type {suffix!r}"))
        self.report.format = "+".join(sorted(self._shapes)) or "empty"


def _normalize(norm: Normalizer, src: SourceProduct) -> tuple[NormalizedProduct | None, list[ListingRow]]:
    """``norm.normalize(src)``; a product that makes it fail is dropped whole, with its position."""
    read, kept, dropped, notes = norm.records_read, norm.kept, norm.dropped.copy(), len(norm.notes)
    try:
        return norm.normalize(src)
    except Exception as exc:  # noqa: BLE001 - one bad record never aborts a build
        n = len(src.variants) + len(src.problems)
        norm.records_read, norm.kept, norm.dropped = read + n, kept, dropped
        del norm.notes[notes:]
        norm.drop("bad_record", src.origin, f"cannot normalise the product ({_why(exc)})", n)
        return None, []


def _finish_file(rep: FileReport, reader: _Reader, norm: Normalizer,
                 before: tuple[int, int, Counter[str]]) -> None:
    """Fill in a file's counts from the normaliser's progress, and name its drops."""
    for note in norm.notes:
        if len(rep.drops) < MAX_DROP_NOTES:
            rep.drops.append(Drop(rep.file, note.where, note.why, note.reason))
    norm.notes.clear()
    rep.products = len(reader.products)
    rep.merchants = sorted({p.merchant_id for p in reader.products})
    rep.records = norm.records_read - before[0] + reader.inactive + sum(rep.dropped.values())
    rep.listings = norm.kept - before[1]
    dropped = Counter(norm.dropped)
    dropped.subtract(before[2])
    if reader.inactive:
        dropped["inactive_product"] += reader.inactive
    dropped.update(rep.dropped)
    rep.dropped = {k: v for k, v in sorted(dropped.items()) if v}


def build_catalog(sources: list[str | os.PathLike[str]], out: str | os.PathLike[str], *,
                  options: IngestOptions | None = None, strict: bool = False,
                  overwrite: bool = True) -> BuildReport:
    """Ingest ``sources`` into a catalog at ``out``. ``strict``: any error aborts the build."""
    opts = options or IngestOptions()
    opts.check()
    files, missing = expand(sources)
    root = Path(os.path.commonpath([str(f.parent.resolve()) for f in files])) if files else Path.cwd()
    norm = Normalizer(notes=True, note_limit=MAX_DROP_NOTES)
    reports: list[FileReport] = []
    if missing:
        reports.append(FileReport(file="(sources)", errors=missing))
    pairs: list[tuple[str, NormalizedProduct, ListingRow]] = []
    merchants: dict[str, tuple[str, str]] = {}
    for path in files:
        label = os.path.relpath(path.resolve(), root)
        reader = _Reader(path, label, opts)
        before = (norm.records_read, norm.kept, Counter(norm.dropped))
        try:
            reader.read()
        except _FileError as exc:
            reader.report.errors.append(exc.error)
            reports.append(reader.report)
            continue
        except OSError as exc:
            reader.report.errors.append(SourceError(label, "", f"cannot read: {exc.strerror or exc}"))
            reports.append(reader.report)
            continue
        for src in reader.products:
            product, rows = _normalize(norm, src)
            if product is None or not rows:
                continue
            merchants.setdefault(src.merchant_id, (src.merchant_id, rows[0][3]))
            pairs.extend((row[0], product, row) for row in rows)
        _finish_file(reader.report, reader, norm, before)
        reports.append(reader.report)
    all_dropped: Counter[str] = Counter()
    for r in reports:
        all_dropped.update(r.dropped)
    counts = {"records_read": sum(r.records for r in reports), "listings_kept": len(pairs),
              "dropped": dict(sorted(all_dropped.items()))}
    report = BuildReport(files=reports, counts=counts)
    if strict and report.errors:
        raise CatalogError("build aborted (--strict): " + "; ".join(str(e) for e in report.errors))
    if not pairs:
        shown = [*report.errors, *(d for d in report.drops if d not in report.errors)][:5]
        detail = "; ".join(str(e) for e in shown) or "the sources hold no records"
        raise CatalogError(f"no listings to write ({detail})")
    pairs.sort(key=lambda t: t[0])
    writer = CatalogWriter(out, overwrite=overwrite)
    try:
        for mid, (name, currency) in sorted(merchants.items()):
            writer.add_merchant(mid, name, currency)
        writer.add_products((product, row) for _, product, row in pairs)
    except BaseException:
        writer.abort()
        raise
    report.metadata = writer.finish({
        "name": Path(out).stem,
        "source": {"kind": "ingest", "root": root.name, "files": [r.as_dict() for r in reports]},
        "counts": counts,
        "build": {"kind": "ingest", "default_currency": opts.currency, "currency_for": opts.currency_for,
                  "rename": opts.rename},
    })
    return report
