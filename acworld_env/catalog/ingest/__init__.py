"""Ingestion of real catalog dumps: three Shopify shapes and generic JSONL/CSV rows."""

from __future__ import annotations

from .build import BuildReport, Drop, FileReport, IngestOptions, SourceError, build_catalog

__all__ = ["BuildReport", "Drop", "FileReport", "IngestOptions", "SourceError", "build_catalog"]
