"""Report tables drawn for the terminal with rich."""

from __future__ import annotations

from rich import box
from rich.table import Table

from .report import TableData


def rich_table(data: TableData) -> Table:
    """A compact rich :class:`~rich.table.Table` of ``data``: first column left, the others right-aligned."""
    table = Table(title=data.title, caption=data.caption or None, title_justify="left", caption_justify="left",
                  box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    for i, col in enumerate(data.columns):
        table.add_column(col, justify="left" if i == 0 else "right", no_wrap=True)
    for row in data.rows:
        table.add_row(*row)
    return table
