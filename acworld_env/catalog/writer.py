"""Write a catalog file: batched chunk inserts, then index, FTS, column arrays, hash.

Listings arrive as :class:`~acworld_env.catalog.chunks.Chunk` objects in strictly
increasing ``listing_id`` order (the synthetic generator produces them that way;
ingestion sorts first). That makes ``lrow`` the listing-id order without a sort pass
and lets the content hash be computed while rows stream in. The file is written
under a temporary name with journaling and syncing off, then finalised and moved
into place atomically, so a failed build never leaves a half-written catalog.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .chunks import Chunk, ChunkBuilder
from .colstore import ColumnBuilder
from .errors import CatalogError
from .records import ListingRow, NormalizedProduct
from .schema import (
    DDL,
    FINAL_DDL,
    FORMAT,
    FTS_RANK,
    SCHEMA_VERSION,
    combine_hash,
    encode_row,
    write_metadata,
)
from .textutil import clean

VACUUM_BELOW = 50_000
"""Catalogs with fewer listings are VACUUMed at the end (compact, tidy layout)."""


class CatalogWriter:
    """Streams chunks into a new catalog file. End with :meth:`finish` or :meth:`abort`."""

    def __init__(self, path: str | os.PathLike[str], *, overwrite: bool = True) -> None:
        self.timings: dict[str, float] = {}
        """Seconds spent per finalisation phase (for benchmarks; not stored in the file)."""
        self.path = Path(path)
        if self.path.exists() and not overwrite:
            raise CatalogError(f"{self.path} already exists (use --force to replace it)")
        if self.path.is_dir():
            raise CatalogError(f"{self.path} is a directory, not a catalog file path")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CatalogError(f"cannot write {self.path}: cannot create folder {self.path.parent}"
                               f" ({exc.strerror or exc})") from None
        self.tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            self.tmp.unlink(missing_ok=True)
            self.conn = sqlite3.connect(self.tmp, isolation_level=None)
            self.conn.execute("PRAGMA user_version").fetchone()
        except (OSError, sqlite3.Error) as exc:
            raise CatalogError(f"cannot write {self.path}: {getattr(exc, 'strerror', None) or exc}") from None
        for pragma in ("journal_mode=OFF", "synchronous=OFF", "locking_mode=EXCLUSIVE",
                       "cache_size=-8192", "temp_store=FILE", "threads=2"):
            self.conn.execute(f"PRAGMA {pragma}")
        self.conn.executescript(DDL)
        self.conn.execute("ATTACH ':memory:' AS chunk")
        self._listing_hash = hashlib.sha256()
        self._product_hash = hashlib.sha256()
        self.cols = ColumnBuilder(self.path.parent)
        self.n = 0
        self.n_products = 0
        self._last_id = ""
        self._merchants: dict[str, tuple[str, str, str]] = {}
        self._currency: dict[str, Counter[str]] = {}

    def add_merchant(self, merchant_id: str, name: str, currency: str, url: str = "") -> None:
        """Describe a merchant (optional; missing ones are filled in at the end)."""
        self._merchants[merchant_id] = (clean(name) or merchant_id, currency, clean(url))

    def add_chunk(self, chunk: Chunk) -> None:
        """Append a chunk; its first id must follow the previous chunk's last id."""
        if chunk.n == 0:
            return
        if chunk.first_id <= self._last_id:
            raise CatalogError(f"chunks out of order: {chunk.first_id!r} after {self._last_id!r}")
        r, p = self.n, self.n_products
        conn = self.conn
        conn.deserialize(chunk.db, name="chunk")
        conn.execute("BEGIN")
        conn.execute(f"INSERT INTO products SELECT prod+{p}, product_id, merchant_id, title, brand, category,"
                     " tags, description FROM chunk.products ORDER BY prod")
        conn.execute(f"INSERT INTO listings SELECT l.lrow+{r}, l.listing_id, l.prod+{p}, p.product_id,"
                     " p.merchant_id, p.brand, p.category, p.tags, p.description, l.title, l.price, l.currency,"
                     " l.compare_at_price, l.in_stock, l.quantity, l.options, l.attributes, l.rating,"
                     " l.review_count, l.url FROM chunk.listings l JOIN chunk.products p ON p.prod = l.prod"
                     " ORDER BY l.lrow")
        conn.execute("INSERT INTO products_fts(rowid, title, brand, category, options, tags, description)"
                     f" SELECT prod+{p}, title, brand, category, fts_options, fts_tags, description"
                     " FROM chunk.products ORDER BY prod")
        conn.execute("COMMIT")
        self._listing_hash.update(chunk.listing_hash)
        self._product_hash.update(chunk.product_hash)
        self.cols.add_chunk(chunk, p)
        for mid, counts in chunk.currencies.items():
            self._currency.setdefault(mid, Counter()).update(counts)
        self.n += chunk.n
        self.n_products += chunk.n_products
        self._last_id = chunk.last_id

    def add_products(self, items: Iterable[tuple[NormalizedProduct, ListingRow]]) -> None:
        """Append ``(product, listing row)`` pairs (increasing listing ids) as one chunk."""
        builder = ChunkBuilder()
        for product, row in items:
            builder.add(product, row)
        self.add_chunk(builder.build())

    def _columns_in_background(self, conn: sqlite3.Connection) -> tuple[str, BaseException | None]:
        """Build the id index and merge FTS segments on ``conn`` while a thread computes the
        column arrays into a scratch file; then copy the arrays in. Returns their digest."""
        aux_path = self.tmp.with_name(self.tmp.name + ".cols")
        aux_path.unlink(missing_ok=True)
        result: dict[str, Any] = {}

        def compute() -> None:
            try:
                aux = sqlite3.connect(aux_path)
                aux.execute("PRAGMA journal_mode=OFF")
                aux.execute("PRAGMA synchronous=OFF")
                aux.execute("CREATE TABLE colstore(name TEXT PRIMARY KEY, dtype TEXT NOT NULL, data BLOB NOT NULL)")
                result["digest"] = self.cols.write(aux, self.n_products)
                aux.commit()
                aux.close()
            except BaseException as exc:  # noqa: BLE001 - re-raised by the caller
                result["error"] = exc

        worker = threading.Thread(target=compute, name="catalog-columns")
        worker.start()
        try:
            conn.execute(FINAL_DDL)
            conn.execute("INSERT INTO products_fts(products_fts) VALUES ('optimize')")
            conn.execute("INSERT INTO products_fts(products_fts, rank) VALUES ('rank', ?)", (FTS_RANK,))
        finally:
            worker.join()
        if "error" in result:
            aux_path.unlink(missing_ok=True)
            return "", result["error"]
        conn.execute("COMMIT")
        conn.execute("ATTACH ? AS aux", (str(aux_path),))
        conn.execute("INSERT INTO colstore SELECT * FROM aux.colstore")
        conn.execute("DETACH aux")
        conn.execute("BEGIN")
        aux_path.unlink(missing_ok=True)
        return result["digest"], None

    def finish(self, metadata: dict[str, Any]) -> dict[str, Any]:
        """Finalise (index, FTS merge, column arrays, hash, metadata), move into place."""
        if self.n == 0:
            self.abort()
            raise CatalogError("no listings to write: every source record was dropped or unreadable")
        try:
            conn = self.conn
            conn.execute("DETACH chunk")
            conn.execute("BEGIN")
            for mid, counts in self._currency.items():
                if mid not in self._merchants:
                    self._merchants[mid] = (mid, counts.most_common(1)[0][0], "")
            merchants = sorted(self._merchants.items())
            conn.executemany("INSERT INTO merchants VALUES (?,?,?,?)", [(m, *rest) for m, rest in merchants])
            merchant_hash = hashlib.sha256(b"".join(encode_row((m, *rest)) for m, rest in merchants))
            content_hash = combine_hash(self._listing_hash.hexdigest(), self._product_hash.hexdigest(),
                                        merchant_hash.hexdigest())
            t0 = time.perf_counter()
            derived, failure = self._columns_in_background(conn)
            t1 = time.perf_counter()
            self.timings.update(index_fts_columns=t1 - t0)
            if failure is not None:
                raise failure
            t3 = time.perf_counter()
            categories = conn.execute("SELECT count(DISTINCT category) FROM products").fetchone()[0]
            currencies: Counter[str] = Counter()
            for counts in self._currency.values():
                currencies.update(counts)
            meta = write_metadata(conn, {
                **metadata,
                "format": FORMAT, "schema_version": SCHEMA_VERSION,
                "content_hash": content_hash, "derived_hash": derived,
                "listing_count": self.n, "product_count": self.n_products,
                "merchant_count": len(merchants), "category_count": categories,
                "currencies": dict(sorted(currencies.items())),
            })
            conn.execute("COMMIT")
            self.timings["metadata"] = time.perf_counter() - t3
            if self.n < VACUUM_BELOW:
                conn.execute("VACUUM")
            conn.close()
            os.replace(self.tmp, self.path)
            self.cols.close()
            return meta
        except BaseException:
            self.abort()
            raise

    def abort(self) -> None:
        """Discard the partial file."""
        try:
            self.conn.close()
        finally:
            self.cols.close()
            self.tmp.with_name(self.tmp.name + ".cols").unlink(missing_ok=True)
            if self.tmp.exists():
                self.tmp.unlink()
