"""The catalog file format (schema version 1) and its content hash.

Tables::

    metadata(key, value)            JSON values: format, schema_version, content_hash, counts,
                                    source, build, derived_hash, metadata_digest, ...
    merchants(merchant_id, name, currency, url)
    products(prod, product_id, merchant_id, title, brand, category, tags, description)
    listings(lrow, listing_id, prod, product_id, merchant_id, brand, category, tags, description,
             title, price, currency, compare_at_price, in_stock, quantity, options, attributes,
             rating, review_count, url)   (product fields repeated so a page is one lookup per row)
    colstore(name, dtype, data)     derived column arrays used by search (see colstore.py)
    products_fts                    contentless FTS5 over product text, rowid = prod

``lrow`` is dense (1..N) in ascending ``listing_id`` order, so ordering by ``lrow``
is ordering by listing id. ``prod`` is dense in order of each product's first listing.

The **content hash** is SHA-256 over a fixed header and three section digests:
listings (``listing_id`` order: id, product id, title, price, currency, compare-at,
stock flag, quantity, options, attributes, rating, review count, url), products
(``prod`` order, i.e. by first listing: product id, merchant, title, brand,
category, tags, description) and merchants (``merchant_id`` order). Each row is its
fields' text joined by US (0x1F) and ended by RS (0x1E), ``None`` as the empty
string; stored strings never hold control characters, so the encoding is
unambiguous. The hash depends on content only, not on file layout, SQLite version
or build parameters.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Sequence
from typing import Any

FORMAT = "acworld-catalog"
SCHEMA_VERSION = 1
HASH_HEADER = f"{FORMAT}/{SCHEMA_VERSION}\n".encode()

DDL = """
CREATE TABLE metadata(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE merchants(merchant_id TEXT PRIMARY KEY, name TEXT NOT NULL,
                       currency TEXT NOT NULL, url TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE products(prod INTEGER PRIMARY KEY, product_id TEXT NOT NULL,
                      merchant_id TEXT NOT NULL, title TEXT NOT NULL, brand TEXT NOT NULL,
                      category TEXT NOT NULL, tags TEXT NOT NULL, description TEXT NOT NULL);
CREATE TABLE listings(lrow INTEGER PRIMARY KEY, listing_id TEXT NOT NULL,
                      prod INTEGER NOT NULL, product_id TEXT NOT NULL, merchant_id TEXT NOT NULL,
                      brand TEXT NOT NULL, category TEXT NOT NULL, tags TEXT NOT NULL,
                      description TEXT NOT NULL, title TEXT NOT NULL, price INTEGER NOT NULL,
                      currency TEXT NOT NULL, compare_at_price INTEGER,
                      in_stock INTEGER NOT NULL, quantity INTEGER NOT NULL,
                      options TEXT NOT NULL, attributes TEXT NOT NULL, rating REAL,
                      review_count INTEGER NOT NULL, url TEXT NOT NULL);
CREATE TABLE colstore(name TEXT PRIMARY KEY, dtype TEXT NOT NULL, data BLOB NOT NULL);
CREATE VIRTUAL TABLE products_fts USING fts5(
    title, brand, category, options, tags, description,
    content='', tokenize='porter unicode61 remove_diacritics 2', detail=column);
"""

FINAL_DDL = "CREATE UNIQUE INDEX listings_by_id ON listings(listing_id);"

FTS_RANK = "bm25(10.0, 6.0, 4.0, 3.0, 2.0, 1.0)"
"""BM25 column weights: title, brand, category, option values, tags, description."""

LISTING_SELECT = (
    "SELECT l.listing_id, l.merchant_id, l.product_id, l.title, l.brand, l.category, l.price,"
    " l.currency, l.compare_at_price, l.in_stock, l.quantity, l.options, l.attributes, l.tags,"
    " l.rating, l.review_count, l.description, l.url, l.lrow FROM listings l"
)
"""Listing fields in :class:`Listing` order, then ``lrow``."""

LISTING_FIELDS = (
    "listing_id", "merchant_id", "product_id", "title", "brand", "category", "price", "currency",
    "compare_at_price", "in_stock", "quantity", "options", "attributes", "tags", "rating",
    "review_count", "description", "url",
)
LISTING_COLUMNS = ("lrow", "listing_id", "prod", "product_id", "merchant_id", "brand", "category", "tags",
                   "description", "title", "price", "currency", "compare_at_price", "in_stock", "quantity",
                   "options", "attributes", "rating", "review_count", "url")
REQUIRED_TABLES = frozenset({"metadata", "merchants", "products", "listings", "colstore", "products_fts"})


def encode_row(row: Sequence[Any]) -> bytes:
    """The hashed form of one row (see module docstring)."""
    return ("\x1f".join(["" if v is None else str(v) for v in row]) + "\x1e").encode()


def combine_hash(listings: str, products: str, merchants: str) -> str:
    """The content hash from the three section digests."""
    text = f"listings:{listings}\nproducts:{products}\nmerchants:{merchants}\n"
    return hashlib.sha256(HASH_HEADER + text.encode()).hexdigest()


HASHED_LISTING_SQL = (
    "SELECT listing_id, product_id, title, price, currency, compare_at_price, in_stock, quantity, options,"
    " attributes, rating, review_count, url, lrow FROM listings WHERE lrow > ? ORDER BY lrow LIMIT ?"
)
HASHED_PRODUCT_SQL = ("SELECT product_id, merchant_id, title, brand, category, tags, description, prod"
                      " FROM products WHERE prod > ? ORDER BY prod LIMIT ?")


def _section(conn: sqlite3.Connection, sql: str, batch: int = 20_000) -> str:
    h = hashlib.sha256()
    last = 0
    while True:
        rows = conn.execute(sql, (last, batch)).fetchall()
        if not rows:
            return h.hexdigest()
        h.update(b"".join([encode_row(r[:-1]) for r in rows]))
        last = rows[-1][-1]


def compute_content_hash(conn: sqlite3.Connection) -> str:
    """Recompute the content hash from the stored rows (full scan)."""
    merchants = hashlib.sha256(b"".join(
        encode_row(r) for r in conn.execute("SELECT merchant_id, name, currency, url FROM merchants"
                                            " ORDER BY merchant_id"))).hexdigest()
    return combine_hash(_section(conn, HASHED_LISTING_SQL), _section(conn, HASHED_PRODUCT_SQL), merchants)


def canonical_json(value: Any) -> str:
    """Sorted keys, no whitespace: the form metadata values are stored and digested in."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def metadata_digest(meta: dict[str, Any]) -> str:
    """SHA-256 of every metadata entry except ``metadata_digest`` itself."""
    body = {k: v for k, v in meta.items() if k != "metadata_digest"}
    return hashlib.sha256(canonical_json(body).encode()).hexdigest()


def write_metadata(conn: sqlite3.Connection, meta: dict[str, Any]) -> dict[str, Any]:
    """Store ``meta`` plus its digest; returns the stored mapping."""
    full = {**meta, "metadata_digest": metadata_digest(meta)}
    conn.execute("DELETE FROM metadata")
    conn.executemany("INSERT INTO metadata(key, value) VALUES (?, ?)",
                     [(k, canonical_json(v)) for k, v in sorted(full.items())])
    return full


def read_metadata(conn: sqlite3.Connection) -> dict[str, Any]:
    """The metadata table as a dict of decoded JSON values."""
    return {k: json.loads(v) for k, v in conn.execute("SELECT key, value FROM metadata")}


def table_names(conn: sqlite3.Connection) -> set[str]:
    """Names of the tables in the main schema."""
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
