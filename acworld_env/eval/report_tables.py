"""Report tables drawn for the terminal with rich."""

from __future__ import annotations

from rich import box
from rich.table import Table

from .report import TableData


def rich_table(data: TableData) -> Table:
    """A compact rich :class:`~rich.table.Table` of ``data``: first column left, the others right-aligned.

    Numbers never wrap; labels and free text wrap (never cut) when the terminal is narrow.
    """
    table = Table(title=data.title, caption=data.caption or None, title_justify="left", caption_justify="left",
                  box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    for i, col in enumerate(data.columns):
        cells = [row[i] for row in data.rows if i < len(row)]
        numeric = all(_numeric(c) for c in cells)
        table.add_column(col, justify="right" if i and numeric else "left", no_wrap=numeric, overflow="fold",
                         min_width=min(max((len(c) for c in cells), default=0), 40) if i == 0 else None)
    for row in data.rows:
        table.add_row(*row)
    return table


def _numeric(cell: str) -> bool:
    """A number, percentage, count or dash (cells that must not wrap)."""
    return all(ch in "0123456789.-+%()/ " for ch in cell)
