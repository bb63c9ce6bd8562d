"""Build a synthetic catalog file, optionally generating chunks in worker processes.

Merchants are grouped into chunks of about :data:`CHUNK_RECORDS` source records.
Each chunk is generated, normalised and turned into a columnar
:class:`~acworld_env.catalog.chunks.Chunk` independently (a merchant's records
depend only on the configuration and the merchant), so ``workers`` processes can
produce chunks while the main process appends them, in order, to the file. The
result does not depend on ``workers``.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from ..chunks import Chunk, ChunkBuilder
from ..errors import CatalogError
from ..records import ListingRow, NormalizedProduct, Normalizer, clean_attributes, dumps
from ..writer import CatalogWriter
from .generator import GENERATOR_VERSION, ProductDraw, SyntheticCatalog
from .plan import SynthConfig

CHUNK_RECORDS = 8192
Progress = Callable[[int, int], None]
"""``progress(records_done, records_total)``."""

_WORKER: SyntheticCatalog | None = None


def merchant_chunks(gen: SyntheticCatalog, target: int = CHUNK_RECORDS) -> list[range]:
    """Consecutive merchant ranges holding about ``target`` records each."""
    out: list[range] = []
    start, acc = 0, 0
    for m in gen.merchants:
        acc += m.size + m.defects
        if acc >= target:
            out.append(range(start, m.index + 1))
            start, acc = m.index + 1, 0
    if start < len(gen.merchants):
        out.append(range(start, len(gen.merchants)))
    return out


def make_chunk(gen: SyntheticCatalog, merchants: range, *, reference: bool = False) -> Chunk:
    """Generate, normalise and pack the products of ``merchants``.

    ``reference=True`` turns every drawn product into a storefront-like
    :class:`~acworld_env.catalog.records.SourceProduct` (text prices, SKUs, raw option
    names) and runs it through :class:`~acworld_env.catalog.records.Normalizer`, like
    real dumps. The default fast path emits the same rows directly (a test checks the
    two give the same content hash); it only skips formatting and re-parsing.
    """
    norm = Normalizer(grouped_by_merchant=True)
    builder = ChunkBuilder()
    if reference:
        for src in gen.products(merchants):
            builder.add_product(*norm.normalize(src))
    else:
        for draw in gen.draws(merchants):
            builder.add_product(*emit_rows(draw, norm))
    return builder.build(counts=norm.counts())


_DEFECT_REASON = {"zero": "non_positive_price", "missing": "missing_price", "dup": "duplicate_sku"}


def emit_rows(draw: ProductDraw, norm: Normalizer) -> tuple[NormalizedProduct, list[ListingRow]]:
    """Normalised rows of a drawn product, without the text round trip (fast path)."""
    src = draw.src
    product = norm.product(src)
    norm.records_read += len(draw.variants) + len(draw.defects)
    norm.kept += len(draw.variants)
    for _, kind, _ in draw.defects:
        norm.dropped[_DEFECT_REASON[kind]] += 1
    head = f"{src.merchant_id}-{draw.pkey}-v"
    names, url, title, currency = draw.names, draw.url, product.title, src.currency
    options_cache, parse = norm._options, norm._parse_options
    attrs_cache: dict[tuple[tuple[str, object], ...], tuple[dict[str, object], str]] = {}
    rows: list[ListingRow] = []
    for v, combo, price, cap, in_stock, qty, extra in draw.variants:
        raw = tuple(zip(names, combo, strict=False))
        options, options_json, suffix = options_cache.get(raw) or parse(raw)
        if extra:
            key = tuple(extra.items())
            merged = attrs_cache.get(key)
            if merged is None:
                attributes = {**product.attributes, **clean_attributes(extra, norm._key)}
                merged = attrs_cache[key] = (attributes, dumps(attributes))
            attributes, attributes_json = merged
        else:
            attributes, attributes_json = product.attributes, product.attributes_json
        rows.append((f"{head}{v:03d}", title + suffix, price, currency, cap, 1 if in_stock else 0, qty,
                     options, options_json, attributes, attributes_json, f"{url}{v}"))
    return product, rows


def limit_heap_growth() -> None:
    """On glibc, serve large (>1 MB) allocations from mmap so freed chunk buffers go back to
    the OS instead of fragmenting the heap (keeps a long build's RSS flat)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").mallopt(-3, 1 << 20)  # M_MMAP_THRESHOLD
    except (OSError, AttributeError):
        pass


def _init_worker(cfg: SynthConfig) -> None:
    global _WORKER
    limit_heap_growth()
    _WORKER = SyntheticCatalog(cfg)


def _worker_chunk(merchants: range) -> Chunk:
    assert _WORKER is not None
    return make_chunk(_WORKER, merchants)


def _bounded(items: list[range], gate: threading.Semaphore) -> Iterator[range]:
    for item in items:
        gate.acquire()
        yield item


def _chunks(cfg: SynthConfig, gen: SyntheticCatalog, workers: int) -> Iterator[Chunk]:
    ranges = merchant_chunks(gen)
    if workers <= 0 or len(ranges) < 4:
        for r in ranges:
            yield make_chunk(gen, r)
        return
    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context("spawn")
    gate = threading.Semaphore(workers + 1)
    with ctx.Pool(workers, initializer=_init_worker, initargs=(cfg,)) as pool:
        for chunk in pool.imap(_worker_chunk, _bounded(ranges, gate)):
            gate.release()
            yield chunk


def provenance(cfg: SynthConfig) -> dict[str, Any]:
    """The ``source`` metadata entry of a synthetic catalog."""
    config = asdict(cfg)
    config["targets"] = [asdict(t) for t in cfg.targets]
    return {"kind": "synthetic", "generator": "acworld_env.catalog.synth",
            "generator_version": GENERATOR_VERSION, "preset": cfg.name, "config": config,
            "records": cfg.n_records, "numpy_version": np.__version__}


def synthesize(cfg: SynthConfig, out: str | os.PathLike[str], *, workers: int = 0,
               progress: Progress | None = None, overwrite: bool = True,
               timings: dict[str, float] | None = None) -> dict[str, Any]:
    """Generate the catalog ``cfg`` describes into ``out``; returns its metadata.

    ``timings``, if given, receives seconds per phase (stream, waiting for workers,
    appending chunks, finalisation steps) for benchmarks.
    """
    try:
        cfg.validate()
    except ValueError as exc:
        raise CatalogError(f"bad synthetic catalog settings: {exc}") from None
    if cfg.n_records > 100_000:
        limit_heap_growth()
    gen = SyntheticCatalog(cfg)
    writer = CatalogWriter(Path(out), overwrite=overwrite)
    dropped: Counter[str] = Counter()
    read = kept = 0
    try:
        for m in gen.merchants:
            writer.add_merchant(m.merchant_id, m.name, m.currency, f"https://{m.slug}.example")
        t_start = time.perf_counter()
        waited = appended = 0.0
        chunks = _chunks(cfg, gen, workers)
        while True:
            t0 = time.perf_counter()
            chunk = next(chunks, None)
            t1 = time.perf_counter()
            waited += t1 - t0
            if chunk is None:
                break
            writer.add_chunk(chunk)
            appended += time.perf_counter() - t1
            read += chunk.counts["records_read"]
            kept += chunk.counts["listings_kept"]
            dropped.update(chunk.counts["dropped"])
            if progress is not None:
                progress(read, cfg.n_records)
        if kept != cfg.listings or read != cfg.n_records:
            raise CatalogError(f"generator produced {kept} listings from {read} records;"
                               f" expected {cfg.listings} from {cfg.n_records}")
    except BaseException:
        writer.abort()
        raise
    t_finish = time.perf_counter()
    meta = writer.finish({
        "name": cfg.name,
        "source": provenance(cfg),
        "counts": {"records_read": read, "listings_kept": kept, "dropped": dict(sorted(dropped.items()))},
        "build": {"kind": "synth", "chunk_records": CHUNK_RECORDS},
    })
    if timings is not None:
        timings.update(stream=t_finish - t_start, wait_for_chunks=waited, append_chunks=appended,
                       finalize=time.perf_counter() - t_finish, **writer.timings)
    return meta
