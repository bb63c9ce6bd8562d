"""The read-only :class:`Catalog` handle.

``Catalog.open(path)`` is cheap: the file is opened with SQLite's ``mode=ro&immutable=1``
URI, checked (format, schema version, metadata digest, listing count), and its
metadata read once. Handles opened on the same unchanged file share one underlying
store (per-thread connections, lazily loaded column arrays, small result caches),
so every episode may open the shared catalog without paying for it again. A handle
is safe to use from several threads.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sqlite3
import threading
import weakref
from collections import OrderedDict
from pathlib import Path
from typing import Any, Literal

import numpy as np

from .colstore import ColumnStore, colstore_digest
from .errors import CatalogError, CatalogQueryError
from .models import Listing, SearchPage, SearchQuery, parse_query
from .schema import (
    FORMAT,
    LISTING_COLUMNS,
    LISTING_SELECT,
    REQUIRED_TABLES,
    SCHEMA_VERSION,
    compute_content_hash,
    metadata_digest,
    read_metadata,
    table_names,
)
from .search import SearchEngine

_HEX64 = re.compile(r"^[0-9a-f]{64}$")
FTS_CACHE_SIZE = 256
LISTING_CACHE_SIZE = 4096


_LISTING_FIELDS = frozenset(Listing.model_fields)
_scan = json.JSONDecoder().scan_once
"""The C JSON scanner: stored JSON is canonical (no surrounding whitespace), so scanning
from position 0 is exact and avoids ``json.loads``' per-call overhead."""
_new_listing = Listing.__new__
_set = object.__setattr__


def _listing(row: tuple[Any, ...]) -> Listing:
    """A :class:`Listing` from a trusted stored row (:data:`LISTING_SELECT` order), without re-validation.

    Equivalent to ``Listing.model_construct(...)`` (the stored row was validated when
    the catalog was built) at a fraction of the cost; a test checks the equivalence.
    """
    (listing_id, merchant_id, product_id, title, brand, category, price, currency, compare_at_price,
     in_stock, quantity, options, attributes, tags, rating, review_count, description, url, _lrow) = row
    obj = _new_listing(Listing)
    _set(obj, "__dict__", {
        "listing_id": listing_id, "merchant_id": merchant_id, "product_id": product_id, "title": title,
        "brand": brand, "category": category, "price": price, "currency": currency,
        "compare_at_price": compare_at_price, "in_stock": bool(in_stock), "quantity": quantity,
        "options": _scan(options, 0)[0], "attributes": _scan(attributes, 0)[0], "tags": _scan(tags, 0)[0],
        "rating": rating, "review_count": review_count, "description": description, "url": url,
    })
    _set(obj, "__pydantic_fields_set__", set(_LISTING_FIELDS))
    _set(obj, "__pydantic_extra__", None)
    _set(obj, "__pydantic_private__", None)
    return obj


def _close_all(conns: list[sqlite3.Connection]) -> None:
    for c in conns:
        with contextlib.suppress(sqlite3.Error):
            c.close()


class _Store:
    """Everything shared by handles on one file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.uri = path.as_uri() + "?mode=ro&immutable=1"
        self._local = threading.local()
        self._conns: list[sqlite3.Connection] = []
        # Lock ownership: ``_conns_lock`` guards only the connection list, ``_engine_lock`` only
        # the one-time engine build, ``_lock`` only the small caches. No lock is held while
        # another is taken except ``_engine_lock`` -> ``_conns_lock`` (building the engine may
        # open this thread's connection), so no thread can wait on itself.
        self._conns_lock = threading.Lock()
        self._engine_lock = threading.Lock()
        self._lock = threading.Lock()
        self._finalizer = weakref.finalize(self, _close_all, self._conns)
        self._engine: SearchEngine | None = None
        self._fts_cache: OrderedDict[tuple[str, bool], np.ndarray] = OrderedDict()
        self._listing_cache: OrderedDict[int, Listing] = OrderedDict()
        self.by_id: OrderedDict[str, Listing] = OrderedDict()
        self.metadata = self._check()

    def conn(self) -> sqlite3.Connection:
        c = getattr(self._local, "conn", None)
        if c is None:
            try:
                c = sqlite3.connect(self.uri, uri=True, check_same_thread=False)
                c.execute("PRAGMA query_only=1")
                c.execute("PRAGMA mmap_size=2147418112")
            except sqlite3.Error as exc:
                raise CatalogError(f"cannot open catalog {self.path}: {exc}") from None
            self._local.conn = c
            with self._conns_lock:
                self._conns.append(c)
        return c

    def _check(self) -> dict[str, Any]:
        where = str(self.path)
        try:
            conn = self.conn()
            tables = table_names(conn)
        except sqlite3.DatabaseError as exc:
            raise CatalogError(f"{where} is not a catalog: not an SQLite database ({exc})") from None
        missing = REQUIRED_TABLES - tables
        if missing:
            raise CatalogError(f"{where} is not an acworld catalog (missing tables: {', '.join(sorted(missing))})")
        columns = tuple(r[1] for r in conn.execute("PRAGMA table_info(listings)"))
        if columns != LISTING_COLUMNS:
            raise CatalogError(f"{where}: unsupported catalog layout (listings columns differ from schema"
                               f" version {SCHEMA_VERSION}); rebuild it with this version")
        try:
            meta = read_metadata(conn)
        except (sqlite3.Error, json.JSONDecodeError) as exc:
            raise CatalogError(f"{where}: unreadable catalog metadata ({exc})") from None
        if meta.get("format") != FORMAT:
            raise CatalogError(f"{where} is not an acworld catalog (format {meta.get('format')!r})")
        if meta.get("schema_version") != SCHEMA_VERSION:
            raise CatalogError(f"{where}: unsupported catalog schema version {meta.get('schema_version')!r}"
                               f" (this code reads version {SCHEMA_VERSION})")
        if meta.get("metadata_digest") != metadata_digest(meta):
            raise CatalogError(f"{where}: catalog metadata does not match its digest (the file was modified)")
        if not _HEX64.match(str(meta.get("content_hash", ""))):
            raise CatalogError(f"{where}: catalog metadata has no valid content hash")
        last = conn.execute("SELECT max(lrow) FROM listings").fetchone()[0] or 0
        if last != meta.get("listing_count"):
            raise CatalogError(f"{where}: content hash mismatch: the file holds {last} listings,"
                               f" its metadata records {meta.get('listing_count')}")
        return meta

    @property
    def engine(self) -> SearchEngine:
        if self._engine is None:
            with self._engine_lock:
                if self._engine is None:
                    self._engine = SearchEngine(ColumnStore(self.conn), self.fts)
        return self._engine

    def fts(self, expr: str, ranked: bool) -> np.ndarray:
        key = (expr, ranked)
        with self._lock:
            hit = self._fts_cache.get(key)
            if hit is not None:
                self._fts_cache.move_to_end(key)
                return hit
        try:
            if ranked:
                rows = self.conn().execute(
                    "SELECT rowid FROM products_fts WHERE products_fts MATCH ? ORDER BY rank, rowid",
                    (expr,)).fetchall()
            else:
                rows = self.conn().execute(
                    "SELECT rowid FROM products_fts WHERE products_fts MATCH ?", (expr,)).fetchall()
        except sqlite3.OperationalError as exc:
            raise CatalogQueryError("bad_text", f"cannot run text query {expr!r}: {exc}") from None
        prods = np.fromiter((r[0] - 1 for r in rows), dtype=np.int64, count=len(rows))
        with self._lock:
            self._fts_cache[key] = prods
            if len(self._fts_cache) > FTS_CACHE_SIZE:
                self._fts_cache.popitem(last=False)
        return prods

    def clear_caches(self) -> None:
        with self._lock:
            self._fts_cache.clear()
            self._listing_cache.clear()
            self.by_id.clear()

    def rows(self, lrows: list[int]) -> list[Listing]:
        """Listings by ``lrow`` (cached: listings are immutable and safe to share)."""
        cache = self._listing_cache
        found: dict[int, Listing] = {}
        missing = []
        for r in lrows:
            hit = cache.get(r)
            if hit is None:
                missing.append(r)
            else:
                found[r] = hit
        if missing:
            sql = LISTING_SELECT + f" WHERE l.lrow IN ({','.join('?' * len(missing))})"
            fetched = {row[-1]: _listing(row) for row in self.conn().execute(sql, missing)}
            found.update(fetched)
            with self._lock:
                cache.update(fetched)
                while len(cache) > LISTING_CACHE_SIZE:
                    cache.popitem(last=False)
        return [found[r] for r in lrows]


_STORES: weakref.WeakValueDictionary[tuple[Any, ...], _Store] = weakref.WeakValueDictionary()
_STORES_LOCK = threading.Lock()


class Catalog:
    """A read-only product catalog. Open with :meth:`open`."""

    def __init__(self, store: _Store) -> None:
        self._store = store

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, verify: bool | Literal["full"] = True,
             expected_hash: str | None = None) -> Catalog:
        """Open ``path`` read-only.

        The first open of a file always checks, cheaply, that it is a catalog: format,
        schema version, the metadata digest (so the recorded content hash was not
        edited) and the recorded listing count. ``verify="full"`` also recomputes the
        content hash from every row (see :meth:`verify`). ``expected_hash`` requires a
        given content hash. Any failure raises :class:`CatalogError`.
        """
        p = Path(path).expanduser()
        try:
            st = p.resolve(strict=True).stat()
        except (FileNotFoundError, NotADirectoryError):
            raise CatalogError(f"catalog file not found: {p}") from None
        except OSError as exc:
            raise CatalogError(f"cannot open catalog {p}: {exc}") from None
        if not p.is_file():
            raise CatalogError(f"not a catalog file: {p}")
        key = (str(p.resolve()), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        with _STORES_LOCK:
            store = _STORES.get(key)
            if store is None:
                store = _Store(p.resolve())
                _STORES[key] = store
        cat = cls(store)
        if expected_hash is not None and cat.content_hash != expected_hash:
            raise CatalogError(f"{p}: content hash mismatch: expected {expected_hash},"
                               f" file records {cat.content_hash}")
        if verify == "full":
            cat.verify()
        return cat

    # -- identity --------------------------------------------------------------------------
    @property
    def path(self) -> Path:
        """Resolved path of the catalog file."""
        return self._store.path

    @property
    def content_hash(self) -> str:
        """Hex SHA-256 of the catalog content, recorded at build."""
        return str(self._store.metadata["content_hash"])

    @property
    def metadata(self) -> dict[str, Any]:
        """A copy of the metadata table (provenance, counts, build parameters)."""
        return json.loads(json.dumps(self._store.metadata))

    def __len__(self) -> int:
        return int(self._store.metadata["listing_count"])

    def __repr__(self) -> str:
        return f"Catalog({str(self.path)!r}, listings={len(self)}, hash={self.content_hash[:12]})"

    def verify(self) -> bool:
        """Recompute the content hash and the derived-array digest; raise on mismatch."""
        conn = self._store.conn()
        actual = compute_content_hash(conn)
        if actual != self.content_hash:
            raise CatalogError(f"{self.path}: content hash mismatch: metadata records"
                               f" {self.content_hash}, content hashes to {actual}")
        derived = colstore_digest(conn)
        if derived != self._store.metadata.get("derived_hash"):
            raise CatalogError(f"{self.path}: search arrays do not match their recorded digest")
        return True

    # -- reads -----------------------------------------------------------------------------
    def get(self, listing_id: str) -> Listing | None:
        """One listing by id, or ``None`` (recently read listings are served from a cache)."""
        store = self._store
        hit = store.by_id.get(listing_id)
        if hit is not None:
            return hit
        row = store.conn().execute(LISTING_SELECT + " WHERE l.listing_id = ?", (listing_id,)).fetchone()
        if row is None:
            return None
        item = _listing(row)
        with store._lock:
            store.by_id[listing_id] = item
            if len(store.by_id) > LISTING_CACHE_SIZE:
                store.by_id.popitem(last=False)
        return item

    def get_many(self, ids: list[str]) -> list[Listing]:
        """The listings among ``ids`` that exist, in the order asked (duplicates kept)."""
        found: dict[str, Listing] = {}
        unique = list(dict.fromkeys(ids))
        conn = self._store.conn()
        for i in range(0, len(unique), 500):
            part = unique[i:i + 500]
            sql = LISTING_SELECT + f" WHERE l.listing_id IN ({','.join('?' * len(part))})"
            for row in conn.execute(sql, part):
                found[row[0]] = _listing(row)
        return [found[i] for i in ids if i in found]

    def search(self, q: SearchQuery | dict[str, Any]) -> SearchPage:
        """One page of matches; a bad query raises :class:`CatalogQueryError`."""
        query = parse_query(q)
        total, rows = self._store.engine.page(query)
        return SearchPage.model_construct(total=total, page=query.page, page_size=query.page_size,
                                          items=self._store.rows([r + 1 for r in rows]))

    def count(self, q: SearchQuery | dict[str, Any]) -> int:
        """Number of matches (paging ignored)."""
        return int(self._store.engine.matches(parse_query(q))[0].size)

    def search_ids(self, q: SearchQuery | dict[str, Any]) -> tuple[int, list[str]]:
        """``(total, listing ids of the requested page)``: :meth:`search` without building
        :class:`Listing` objects (for callers that only need ids)."""
        engine = self._store.engine
        total, rows = engine.page(parse_query(q))
        return total, engine.cols.ids(rows)

    def oracle_ids(self, q: SearchQuery | dict[str, Any]) -> list[str]:
        """Every matching listing id in the query's sort order, ignoring paging."""
        engine = self._store.engine
        return engine.cols.ids(engine.ordered(parse_query(q)))

    def categories(self) -> list[str]:
        """Distinct non-empty categories, sorted."""
        rows = self._store.conn().execute("SELECT DISTINCT category FROM products WHERE category != ''"
                                          " ORDER BY category")
        return [r[0] for r in rows]

    def merchants(self) -> list[str]:
        """Merchant ids, sorted."""
        return [r[0] for r in self._store.conn().execute("SELECT merchant_id FROM merchants ORDER BY merchant_id")]

    def merchant_info(self, merchant_id: str) -> dict[str, str] | None:
        """``{merchant_id, name, currency, url}`` or ``None``."""
        row = self._store.conn().execute("SELECT merchant_id, name, currency, url FROM merchants"
                                         " WHERE merchant_id = ?", (merchant_id,)).fetchone()
        return None if row is None else dict(zip(("merchant_id", "name", "currency", "url"), row, strict=True))

    def category_counts(self) -> dict[str, tuple[int, int]]:
        """``{category: (listings, in stock)}`` over the whole catalog."""
        rows = self._store.conn().execute(
            "SELECT category, count(*), sum(in_stock) FROM listings GROUP BY category ORDER BY category")
        return {c: (n, s) for c, n, s in rows}

    def warm(self, dense: bool = True) -> int:
        """Load all search arrays now instead of on first use; returns bytes held.

        A long-running process (a training loop sharing one catalog) pays this once;
        without it, the first query touching a sort or an option key pays it.
        """
        engine = self._store.engine
        engine.cols.load_all(dense=dense)
        return engine.cols.nbytes()

    def clear_caches(self) -> None:
        """Forget cached text results and listings (benchmarks use this to measure cold queries)."""
        self._store.clear_caches()

    def close(self) -> None:
        """Release this handle (connections close when the last handle on the file goes)."""
        self._store = None  # type: ignore[assignment]

    def __enter__(self) -> Catalog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
