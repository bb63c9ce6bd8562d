"""A report as one self-contained HTML page: inline CSS, tables, plots as base64 PNG data URIs, and
the run viewer (:mod:`.viewer_page`: a per-task table and every run's transcript, inline JSON and
a little inline JavaScript).

The page loads nothing from anywhere (no scripts, stylesheets, fonts or images by URL), so it
can be mailed, archived or opened offline.
"""

from __future__ import annotations

import base64
import html
from pathlib import Path
from typing import Any

from .report import Evaluation, TableData
from .viewer_page import VIEWER_STYLE, viewer_html

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 72rem;
       color: #222; padding: 0 1rem; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin-top: 2rem; }
table { border-collapse: collapse; margin: 0.5rem 0; font-size: 0.9rem; }
th, td { border-bottom: 1px solid #ddd; padding: 0.3rem 0.7rem; text-align: right; }
th:first-child, td:first-child { text-align: left; }
th { background: #f3f3f3; }
caption { caption-side: bottom; text-align: left; font-size: 0.8rem; color: #666; padding-top: 0.3rem; }
img { max-width: 100%; margin: 0.5rem 0; }
.meta { color: #666; font-size: 0.85rem; }
.warn { color: #a15c00; font-size: 0.85rem; }
"""


def table_html(data: TableData) -> str:
    """One table as HTML."""
    head = "".join(f"<th>{html.escape(c)}</th>" for c in data.columns)
    body = "\n".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in data.rows)
    caption = f"<caption>{html.escape(data.caption)}</caption>" if data.caption else ""
    return (f"<h2>{html.escape(data.title)}</h2>\n<table>{caption}\n<thead><tr>{head}</tr></thead>\n"
            f"<tbody>\n{body}\n</tbody></table>")


def image_html(name: str, png: bytes) -> str:
    """A PNG inlined as a data URI."""
    data = base64.b64encode(png).decode("ascii")
    alt = html.escape(name.rsplit(".", 1)[0].replace("_", " "))
    return f'<figure><img alt="{alt}" src="data:image/png;base64,{data}"></figure>'


def report_page(evals: list[Evaluation], tables: list[TableData], plots: dict[str, bytes] | None,
                *, note: str = "", viewer: dict[str, Any] | None = None) -> str:
    """The whole page (with the run viewer when ``viewer`` data is given)."""
    sources = "".join(
        f"<li><b>{html.escape(e.label)}</b>: {html.escape(str(e.path))} "
        f"({html.escape(str(e.summary.get('env_id', '')))}, split {html.escape(str(e.summary.get('split', '')))}, "
        f"seed {html.escape(str(e.summary.get('seed', '')))})</li>" for e in evals)
    warnings = "".join(f'<p class="warn">{html.escape(w)}</p>' for e in evals for w in e.warnings)
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        "<title>acworld evaluation report</title>", f"<style>{STYLE}{VIEWER_STYLE if viewer else ''}</style></head><body>",
        "<h1>acworld evaluation report</h1>", f'<ul class="meta">{sources}</ul>', warnings,
        *(table_html(t) for t in tables),
    ]
    if plots:
        parts.append("<h2>Plots</h2>")
        parts += [image_html(name, png) for name, png in plots.items()]
    if note:
        parts.append(f'<p class="warn">{html.escape(note)}</p>')
    if viewer:
        parts.append(viewer_html(viewer))
    parts.append("</body></html>\n")
    return "\n".join(parts)


def write_report_page(path: str | Path, evals: list[Evaluation], tables: list[TableData],
                      plots: dict[str, bytes] | None, *, note: str = "",
                      viewer: dict[str, Any] | None = None) -> Path:
    """Write the page to ``path``."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report_page(evals, tables, plots, note=note, viewer=viewer), encoding="utf-8")
    return out
