"""Batches of normalised listings, packed for the writer.

A :class:`Chunk` holds a run of listings that are consecutive in listing-id order and
contain whole products: their rows in a small in-memory SQLite database shipped as
bytes (``Connection.serialize``), their share of the content hash, and column arrays
with chunk-local codes. Chunks can be built in worker processes; the writer attaches
the bytes and copies rows with ``INSERT ... SELECT``, so its per-listing cost is tiny.
"""

from __future__ import annotations

import sqlite3
from array import array
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .records import ListingRow, NormalizedProduct
from .schema import encode_row
from .textutil import fold

GROUP_FIELDS = ("category", "brand", "merchant")
FacetKey = tuple[str, str, str]
_NAN = float("nan")

CHUNK_DDL = """
CREATE TABLE products(prod INTEGER PRIMARY KEY, product_id, merchant_id, title, brand, category, tags,
                      description, fts_options, fts_tags);
CREATE TABLE listings(lrow INTEGER PRIMARY KEY, listing_id, prod, title, price, currency, compare_at_price,
                      in_stock, quantity, options, attributes, rating, review_count, url);
"""


@dataclass
class Chunk:
    """A batch of listings ready for :meth:`CatalogWriter.add_chunk`."""

    n: int
    n_products: int
    first_id: str
    last_id: str
    db: bytes
    listing_hash: bytes
    product_hash: bytes
    ids: np.ndarray
    price: np.ndarray
    in_stock: np.ndarray
    rating: np.ndarray
    prod: np.ndarray
    groups: dict[str, tuple[np.ndarray, list[str]]]
    facets: dict[FacetKey, tuple[np.ndarray, np.ndarray, list[str] | None]]
    currencies: dict[str, dict[str, int]]
    counts: dict[str, Any] = field(default_factory=dict)


class ChunkBuilder:
    """Collects listings (increasing id order) with their products into a :class:`Chunk`."""

    def __init__(self) -> None:
        self.n = 0
        self.first_id = ""
        self.last_id = ""
        self._listings: list[tuple[Any, ...]] = []
        self._products: list[list[Any]] = []
        self._product_index: dict[str, int] = {}
        self._lhash: list[bytes] = []
        self._phash: list[bytes] = []
        self._price = array("q")
        self._stock = array("b")
        self._rating = array("d")
        self._prod = array("i")
        self._codes = {f: array("i") for f in GROUP_FIELDS}
        self._names: dict[str, dict[str, int]] = {f: {} for f in GROUP_FIELDS}
        self._facets: dict[FacetKey, tuple[array, array, dict[str, int] | None]] = {}
        self._facet_cache: dict[tuple[str, str], list[tuple[array, array, Any]]] = {}
        self._slot_cache: dict[tuple[str, str, type, Any], tuple[array, array, Any]] = {}
        self._currencies: dict[str, Counter[str]] = {}

    def __len__(self) -> int:
        return self.n

    def _code(self, field_name: str, name: str) -> int:
        names = self._names[field_name]
        code = names.get(name)
        if code is None:
            code = names[name] = len(names)
        return code

    def _slot(self, kind: str, key: str, value: Any) -> tuple[array, array, Any]:
        """Arrays of the facet ``(kind, key, type of value)`` and the value as stored."""
        ck = (kind, key, type(value), value)
        hit = self._slot_cache.get(ck)
        if hit is not None:
            return hit
        t = type(value)
        if t is bool:
            vtype, v = "b", int(value)
        elif t is int or t is float:
            vtype, v = "n", float(value)
        else:
            vtype, v = "s", fold(value)
        slot = self._facets.get((kind, key, vtype))
        if slot is None:
            slot = self._facets[(kind, key, vtype)] = (
                array("i"), array("d") if vtype == "n" else array("i"), {} if vtype == "s" else None)
        rows, vals, vocab = slot
        if vocab is not None:
            code = vocab.get(v)
            if code is None:
                code = vocab[v] = len(vocab)
            v = code
        if len(self._slot_cache) > 50_000:
            self._slot_cache.clear()
        hit = self._slot_cache[ck] = (rows, vals, v)
        return hit

    def _entries(self, kind: str, text: str, mapping: dict[str, Any]) -> list[tuple[array, array, Any]]:
        """Facet entries of an options/attributes mapping, cached by its JSON text."""
        cache = self._facet_cache
        entries = cache.get((kind, text))
        if entries is None:
            if len(cache) > 20_000:
                cache.clear()
            entries = cache[(kind, text)] = [self._slot(kind, k, v) for k, v in mapping.items()]
        return entries

    def add(self, p: NormalizedProduct, row: ListingRow) -> None:
        """Append one listing of product ``p``; ids must strictly increase."""
        self.add_product(p, [row])

    def add_product(self, p: NormalizedProduct, rows: list[ListingRow]) -> None:
        """Append listings of product ``p`` (ids must continue the increasing order)."""
        if not rows:
            return
        prod = self._product_index.get(p.product_id)
        if prod is None:
            prod = self._product_index[p.product_id] = len(self._products) + 1
            self._products.append([prod, p.product_id, p.merchant_id, p.title, p.brand, p.category,
                                   p.tags_json, p.description, {}, " ".join(p.tags),
                                   self._code("category", p.category), self._code("brand", p.brand),
                                   self._code("merchant", p.merchant_id)])
            self._phash.append(encode_row((p.product_id, p.merchant_id, p.title, p.brand, p.category,
                                           p.tags_json, p.description)))
        prow = self._products[prod - 1]
        pid, rating, reviews = p.product_id, p.rating, p.review_count
        rating_value = _NAN if rating is None else rating
        opts = prow[8]
        entries = self._entries
        listings, lhash = self._listings, self._lhash
        last = self.last_id
        row_no = self.n
        for row in rows:
            (lid, title, price, currency, cap, in_stock, qty, options, options_json, attributes,
             attributes_json, url) = row
            if lid <= last:
                raise ValueError(f"listing ids must arrive in increasing order: {lid!r} after {last!r}")
            last = lid
            if options:
                for v in options.values():
                    opts[v] = None
                for f_rows, f_vals, v in entries("o", options_json, options):
                    f_rows.append(row_no)
                    f_vals.append(v)
            if attributes:
                for f_rows, f_vals, v in entries("a", attributes_json, attributes):
                    f_rows.append(row_no)
                    f_vals.append(v)
            row_no += 1
            listings.append((row_no, lid, prod, title, price, currency, cap, in_stock, qty, options_json,
                             attributes_json, rating, reviews, url))
            lhash.append(encode_row((lid, pid, title, price, currency, cap, in_stock, qty, options_json,
                                     attributes_json, rating, reviews, url)))
            self._price.append(price)
            self._stock.append(in_stock)
        k = len(rows)
        if not self.n:
            self.first_id = rows[0][0]
        self.last_id = last
        self.n = row_no
        self._rating.extend([rating_value] * k)
        self._prod.extend([prod - 1] * k)
        self._codes["category"].extend([prow[10]] * k)
        self._codes["brand"].extend([prow[11]] * k)
        self._codes["merchant"].extend([prow[12]] * k)
        per = self._currencies.get(p.merchant_id)
        if per is None:
            per = self._currencies[p.merchant_id] = Counter()
        for row in rows:
            per[row[3]] += 1

    def build(self, counts: dict[str, Any] | None = None) -> Chunk:
        """The finished chunk (the builder is not reusable afterwards)."""
        conn = sqlite3.connect(":memory:")
        conn.executescript(CHUNK_DDL)
        conn.executemany("INSERT INTO products VALUES (?,?,?,?,?,?,?,?,?,?)",
                         [(*p[:8], " ".join(p[8]), p[9]) for p in self._products])
        conn.executemany("INSERT INTO listings VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", self._listings)
        conn.commit()
        db = conn.serialize()
        conn.close()
        facets = {}
        for key, (rows, vals, vocab) in self._facets.items():
            dtype = np.float64 if key[2] == "n" else np.int32
            facets[key] = (np.frombuffer(rows, dtype=np.int32).copy(), np.frombuffer(vals, dtype=dtype).copy(),
                           None if vocab is None else list(vocab))
        return Chunk(
            n=self.n, n_products=len(self._products), first_id=self.first_id, last_id=self.last_id, db=db,
            listing_hash=b"".join(self._lhash), product_hash=b"".join(self._phash),
            ids=np.array([row[1].encode() for row in self._listings], dtype=bytes),
            price=np.frombuffer(self._price, dtype=np.int64).copy(),
            in_stock=np.frombuffer(self._stock, dtype=np.int8).astype(np.uint8),
            rating=np.frombuffer(self._rating, dtype=np.float64).copy(),
            prod=np.frombuffer(self._prod, dtype=np.int32).copy(),
            groups={f: (np.frombuffer(self._codes[f], dtype=np.int32).copy(), list(self._names[f]))
                    for f in GROUP_FIELDS},
            facets=facets, currencies={m: dict(c) for m, c in self._currencies.items()}, counts=counts or {},
        )
