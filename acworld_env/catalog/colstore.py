"""Column arrays that make filtered, sorted, counted search fast.

SQLite stores the listings; this module stores, next to them in the ``colstore``
table, the columns search filters and sorts on as little-endian numpy arrays:
price, stock, rating, product, category/brand/merchant codes with per-code member
lists, three precomputed sort ranks, and one entry per option/attribute key (rows,
values, and per-value postings). A query picks its most selective filter as the
candidate set and checks the others with vectorised gathers, so its cost follows
the size of that candidate set, not the catalog: counts are exact and cheap.

Arrays are loaded lazily, one blob at a time, and shared by every thread and every
:class:`~acworld_env.catalog.store.Catalog` handle on the same file.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .chunks import GROUP_FIELDS, Chunk
from .textutil import fold


def _csr(codes: np.ndarray, n_codes: int) -> tuple[np.ndarray, np.ndarray]:
    """Offsets and members (ascending rows within each code) grouping rows by code."""
    order = np.argsort(codes, kind="stable").astype("<i4")
    counts = np.bincount(codes, minlength=n_codes)
    offsets = np.zeros(n_codes + 1, dtype="<i8")
    np.cumsum(counts, out=offsets[1:])
    return offsets, order


def _rank(primary: np.ndarray) -> np.ndarray:
    """Rank of each row ordering by ``primary`` then by row (ties by listing id)."""
    order = np.lexsort((np.arange(primary.size), primary))
    rank = np.empty(primary.size, dtype="<i4")
    rank[order] = np.arange(primary.size, dtype="<i4")
    return rank


def _distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values of a float array without NaN, ascending: what ``np.unique`` gives, without the
    ``numpy.ma`` import it makes on first use (tens of milliseconds, paid inside a process's first search)."""
    ordered = np.sort(values)
    keep = np.empty(ordered.size, dtype=bool)
    keep[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


class _Spill:
    """Append-only scratch file of array parts, read back one name at a time."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / f".colstore.{os.getpid()}.{id(self):x}.spill"
        self._file = open(self.path, "w+b")  # noqa: SIM115 - closed in close()
        self._parts: dict[str, list[tuple[int, int, str]]] = {}

    def append(self, name: str, arr: np.ndarray) -> None:
        arr = np.ascontiguousarray(arr)
        self._file.seek(0, os.SEEK_END)
        offset = self._file.tell()
        self._file.write(arr.tobytes())
        self._parts.setdefault(name, []).append((offset, arr.size, arr.dtype.str))

    def names(self) -> list[str]:
        return list(self._parts)

    def read(self, name: str, dtype: str) -> np.ndarray:
        parts = self._parts.pop(name, [])
        out = np.empty(sum(n for _, n, _ in parts), dtype=dtype)
        pos = 0
        for offset, n, dt in parts:
            self._file.seek(offset)
            out[pos:pos + n] = np.frombuffer(self._file.read(n * np.dtype(dt).itemsize), dtype=dt)
            pos += n
        return out

    def size(self, name: str) -> int:
        return sum(n for _, n, _ in self._parts.get(name, []))

    def close(self) -> None:
        self._file.close()
        self.path.unlink(missing_ok=True)


class ColumnBuilder:
    """Accumulates the column arrays of a build chunk by chunk (spilled to a scratch
    file next to the output, so memory stays flat), then writes them."""

    def __init__(self, directory: Path) -> None:
        self.n = 0
        self._spill = _Spill(directory)
        self.group_names: dict[str, dict[str, int]] = {f: {} for f in GROUP_FIELDS}
        self._facet_vocab: dict[tuple[str, str, str], dict[str, int]] = {}
        self._facet_keys: set[tuple[str, str, str]] = set()
        self._id_width = 1

    @staticmethod
    def _lut(names: list[str], index: dict[str, int]) -> np.ndarray:
        return np.array([index.setdefault(name, len(index)) for name in names], dtype=np.int32)

    def add_chunk(self, chunk: Chunk, prod_offset: int) -> None:
        """Append a chunk's columns (rows continue from the previous chunk)."""
        off = self.n
        spill = self._spill
        self._id_width = max(self._id_width, chunk.ids.dtype.itemsize)
        spill.append("ids", chunk.ids)
        spill.append("price", chunk.price)
        spill.append("in_stock", chunk.in_stock)
        spill.append("rating", chunk.rating)
        spill.append("prod", chunk.prod + prod_offset)
        for field in GROUP_FIELDS:
            codes, names = chunk.groups[field]
            lut = self._lut(names, self.group_names[field])
            spill.append(f"group:{field}", lut[codes] if codes.size else codes)
        for key, (rows, vals, vocab) in chunk.facets.items():
            if vocab is not None:
                vals = self._lut(vocab, self._facet_vocab.setdefault(key, {}))[vals]
            self._facet_keys.add(key)
            spill.append(f"facet:{key!r}:rows", rows + off)
            spill.append(f"facet:{key!r}:vals", vals)
        self.n += chunk.n

    def close(self) -> None:
        """Remove the scratch file."""
        self._spill.close()

    def write(self, conn: sqlite3.Connection, n_products: int) -> str:
        """Compute derived arrays, store them in ``colstore``; returns their digest."""
        out = _Sink(conn)
        read = self._spill.read
        out["ids"] = read("ids", f"S{self._id_width}")
        price = read("price", "<i8")
        rating = read("rating", "<f8")
        prod = read("prod", "<i4")
        out["price"] = price
        out["in_stock"] = read("in_stock", "u1")
        out["rating"] = rating
        out["prod"] = prod
        out["rank.price_asc"] = _rank(price)
        out["rank.price_desc"] = _rank(-price)
        out["rank.rating_desc"] = _rank(np.where(np.isnan(rating), np.inf, -rating))
        order = np.lexsort((np.arange(price.size), price)).astype("<i4")
        out["sorted.price.rows"], out["sorted.price.values"] = order, price[order]
        neg = np.where(np.isnan(rating), np.inf, -rating)
        order = np.lexsort((np.arange(price.size), neg)).astype("<i4")
        out["sorted.rating.rows"], out["sorted.rating.values"] = order, neg[order]
        out["prod.offsets"], out["prod.members"] = _csr(prod, n_products)
        schema: dict[str, Any] = {"n": int(price.size), "n_products": n_products, "groups": {},
                                  "facets": []}
        for field in GROUP_FIELDS:
            codes = read(f"group:{field}", "<i4")
            names = list(self.group_names[field])
            out[f"{field}.codes"] = codes
            out[f"{field}.offsets"], out[f"{field}.members"] = _csr(codes, len(names))
            schema["groups"][field] = names
        del price, rating, prod
        for fid, (kind, key, vtype) in enumerate(sorted(self._facet_keys)):
            vocab = self._facet_vocab.get((kind, key, vtype))
            rows = read(f"facet:{(kind, key, vtype)!r}:rows", "<i4")
            entry: dict[str, Any] = {"fid": fid, "kind": kind, "key": key, "vtype": vtype}
            out[f"f{fid}.rows"] = rows
            if vtype == "n":
                vals = read(f"facet:{(kind, key, vtype)!r}:vals", "<f8")
                order = np.lexsort((rows, vals))
                out[f"f{fid}.vals"] = vals
                out[f"f{fid}.sorted.rows"] = rows[order]
                out[f"f{fid}.sorted.values"] = vals[order]
            else:
                codes = read(f"facet:{(kind, key, vtype)!r}:vals", "<i4")
                n_vals = len(vocab) if vocab is not None else 2
                out[f"f{fid}.vals"] = codes
                offsets, order = _csr(codes, n_vals)
                out[f"f{fid}.offsets"], out[f"f{fid}.postings"] = offsets, rows[order]
                if vocab is not None:
                    entry["values"] = list(vocab)
            schema["facets"].append(entry)
        blob = json.dumps(schema, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
        conn.execute("INSERT INTO colstore(name, dtype, data) VALUES ('schema', 'json', ?)", (blob,))
        return colstore_digest(conn)

    @staticmethod
    def _put(conn: sqlite3.Connection, name: str, arr: np.ndarray) -> None:
        arr = np.ascontiguousarray(arr)
        conn.execute("INSERT INTO colstore(name, dtype, data) VALUES (?, ?, ?)",
                     (name, arr.dtype.str, arr.tobytes()))


class _Sink:
    """Dict-like target that stores each array as soon as it is assigned."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __setitem__(self, name: str, arr: np.ndarray) -> None:
        ColumnBuilder._put(self.conn, name, arr)


def colstore_digest(conn: sqlite3.Connection) -> str:
    """Recompute the digest :meth:`ColumnBuilder.write` returned, from the stored blobs."""
    digest = hashlib.sha256()
    schema = b""
    for name, dtype, data in conn.execute("SELECT name, dtype, data FROM colstore ORDER BY name"):
        if name == "schema":
            schema = data
            continue
        digest.update(f"{name}:{dtype}:{len(data)}\n".encode())
        digest.update(data)
    digest.update(b"schema:" + schema)
    return digest.hexdigest()


@dataclass(frozen=True)
class Facet:
    """One option or attribute key of one value type (s=string, n=number, b=bool)."""

    fid: int
    kind: str
    key: str
    vtype: str
    values: dict[str, int]


class ColumnStore:
    """Lazily loaded column arrays of one catalog file (thread-safe, read-only)."""

    def __init__(self, connect: Any) -> None:
        self._connect = connect
        self._arrays: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()
        schema = json.loads(self._blob("schema")[1])
        self.n: int = schema["n"]
        self.n_products: int = schema["n_products"]
        self.group_names: dict[str, list[str]] = schema["groups"]
        self._group_fold: dict[str, dict[str, list[int]]] = {}
        for field, names in self.group_names.items():
            index: dict[str, list[int]] = {}
            for code, name in enumerate(names):
                index.setdefault(fold(name), []).append(code)
            self._group_fold[field] = index
        self.facets: dict[tuple[str, str, str], Facet] = {}
        for e in schema["facets"]:
            values = {v: i for i, v in enumerate(e.get("values", ()))}
            self.facets[(e["kind"], e["key"], e["vtype"])] = Facet(e["fid"], e["kind"], e["key"],
                                                                   e["vtype"], values)

    def _blob(self, name: str) -> tuple[str, bytes]:
        row = self._connect().execute("SELECT dtype, data FROM colstore WHERE name = ?", (name,)).fetchone()
        if row is None:
            from .errors import CatalogError

            raise CatalogError(f"catalog lacks the search array {name!r}; rebuild it with this version")
        return row[0], row[1]

    def array(self, name: str) -> np.ndarray:
        """The named array (loaded on first use, then cached)."""
        arr = self._arrays.get(name)
        if arr is None:
            with self._lock:
                arr = self._arrays.get(name)
                if arr is None:
                    dtype, data = self._blob(name)
                    arr = np.frombuffer(data, dtype=np.dtype(dtype))
                    self._arrays[name] = arr
        return arr

    def load_all(self, dense: bool = True) -> None:
        """Load every stored array now (and build dense facet arrays if ``dense``)."""
        names = [r[0] for r in self._connect().execute("SELECT name FROM colstore WHERE name != 'schema'")]
        for name in names:
            self.array(name)
        if dense:
            for facet in self.facets.values():
                self.dense(facet)

    def nbytes(self) -> int:
        """Memory held by loaded arrays."""
        return sum(a.nbytes for a in self._arrays.values())

    def dense(self, facet: Facet) -> np.ndarray:
        """Per-row codes of ``facet`` over the whole catalog (built on first use, cached), -1
        where a row lacks the key: the value's index in ``facet.values`` for strings, 0/1 for
        bools, and for numbers the value's index in :meth:`facet_numbers` (so a numeric range is a
        range of codes). The narrowest integer type that holds the codes keeps these arrays small
        (one byte per listing for most keys: a long search load touches dozens of keys)."""
        name = f"dense.f{facet.fid}"
        arr = self._arrays.get(name)
        if arr is None:
            rows, vals = self.array(f"f{facet.fid}.rows"), self.array(f"f{facet.fid}.vals")
            if facet.vtype == "n":
                numbers = self.facet_numbers(facet)
                codes = np.searchsorted(numbers, vals)
                codes[np.isnan(vals)] = -1
                n_codes = numbers.size
            else:
                codes = vals
                n_codes = len(facet.values) if facet.vtype == "s" else 2
            dtype = next(t for t in (np.int8, np.int16, np.int32) if n_codes <= np.iinfo(t).max)
            arr = np.full(self.n, -1, dtype=dtype)
            arr[rows] = codes
            arr.setflags(write=False)
            with self._lock:
                arr = self._arrays.setdefault(name, arr)
        return arr

    def facet_numbers(self, facet: Facet) -> np.ndarray:
        """The distinct values of a numeric ``facet``, ascending (NaN left out)."""
        name = f"numbers.f{facet.fid}"
        arr = self._arrays.get(name)
        if arr is None:
            values = self.array(f"f{facet.fid}.sorted.values")
            arr = _distinct(values[~np.isnan(values)])
            arr.setflags(write=False)
            with self._lock:
                arr = self._arrays.setdefault(name, arr)
        return arr

    def group_codes(self, field: str, value: str) -> list[int]:
        """Codes of ``field`` (category/brand/merchant) whose name folds to ``value``."""
        return self._group_fold[field].get(fold(value), [])

    def group_rows(self, field: str, codes: list[int]) -> np.ndarray:
        """Rows having any of ``codes`` (ascending within each code)."""
        offsets, members = self.array(f"{field}.offsets"), self.array(f"{field}.members")
        parts = [members[offsets[c]:offsets[c + 1]] for c in codes]
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def group_size(self, field: str, codes: list[int]) -> int:
        """Number of rows having any of ``codes``."""
        offsets = self.array(f"{field}.offsets")
        return int(sum(offsets[c + 1] - offsets[c] for c in codes))

    def ids(self, rows: np.ndarray | list[int]) -> list[str]:
        """Listing ids of ``rows`` (0-based), from the stored id array."""
        picked = self.array("ids")[np.asarray(rows, dtype=np.int64)]
        return [b.decode() for b in picked.tolist()]

    def product_rows(self, prods: np.ndarray) -> np.ndarray:
        """Rows of the given products, product by product, ascending within each."""
        offsets, members = self.array("prod.offsets"), self.array("prod.members")
        starts = offsets[prods]
        counts = offsets[prods + 1] - starts
        total = int(counts.sum())
        if total == 0:
            return np.empty(0, dtype=np.int32)
        shift = np.repeat(starts - np.concatenate(([0], np.cumsum(counts)[:-1])), counts)
        return members[np.arange(total) + shift]

    def product_sizes(self, prods: np.ndarray) -> int:
        """Total rows of ``prods``."""
        offsets = self.array("prod.offsets")
        return int((offsets[prods + 1] - offsets[prods]).sum())
