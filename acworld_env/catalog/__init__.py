"""Read-only product catalog: ingestion, synthetic generation and bounded search.

The World serves product records from one shared SQLite file opened read-only;
agents see it only through :meth:`Catalog.search` (filters, FTS5 text with BM25,
sorts with a listing-id tiebreak, bounded pages, exact totals) and
:meth:`Catalog.get`; scoring oracles use :meth:`Catalog.oracle_ids` for the full
ordered match set.

Usage::

    from acworld_env.catalog import Catalog, default_catalog_path

    cat = Catalog.open(default_catalog_path())          # shipped capability-v1, read-only
    page = cat.search({"category": "Yoga", "max_price": 9000, "in_stock": True,
                       "attributes": {"thickness_mm": {"min": 5}}, "sort": "price_asc"})
    page.total, [x.listing_id for x in page.items]
    cat.oracle_ids({"category": "Coffee", "attributes": {"decaf": True}, "sort": "price_asc"})[0]

    from acworld_env.catalog.synth import open_preset
    big = open_preset("large-v1")                        # built into $ACWORLD_CACHE on first use

Command line (mounted as ``acworld catalog``): ``build``, ``synth``, ``stats``, ``search``;
see :mod:`acworld_env.catalog.cli`. Generic JSONL/CSV columns are documented in
:mod:`acworld_env.catalog.ingest.tabular`, the file format and content hash in
:mod:`acworld_env.catalog.schema`, matching rules in :mod:`acworld_env.catalog.models`.

Modules: ``models`` (Listing, SearchQuery, SearchPage), ``store`` (Catalog),
``shared`` (:func:`open_catalog`: a task's catalog by name, opened once per process),
``search``/``colstore`` (query evaluation), ``schema``/``writer`` (file format,
content hash, building), ``records`` (normalisation rules), ``ingest`` (Shopify
dumps, JSONL/CSV), ``synth`` (deterministic generator and the ``capability-v1`` /
``large-v1`` presets), ``cli`` (``acworld catalog ...``).
"""

from __future__ import annotations

from .errors import QUERY_ERROR_CODES, CatalogError, CatalogQueryError
from .models import Listing, SearchPage, SearchQuery, parse_query
from .resources import cache_dir, default_catalog_path
from .shared import open_catalog
from .store import Catalog

__all__ = [
    "QUERY_ERROR_CODES",
    "Catalog",
    "CatalogError",
    "CatalogQueryError",
    "Listing",
    "SearchPage",
    "SearchQuery",
    "cache_dir",
    "default_catalog_path",
    "open_catalog",
    "parse_query",
]
