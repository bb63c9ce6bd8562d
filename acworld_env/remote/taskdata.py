"""Tasks and catalogs a remote client names: validated as :class:`TaskSpec`, over the server's catalogs only.

A client may send tasks as data (``tasks=[{...}, ...]``, ``task={...}``, ``reset(options={"task": {...}})``)
and name a catalog (a task's ``catalog`` field, or the env's ``catalog`` argument). It chooses
only among the catalogs the server offers: the shipped ``capability-v1`` and those the server
was started with (``acworld serve --catalog NAME=PATH``, or ``--catalog large-v1`` for that
shipped one). Any other name, ``file:`` paths included, is a 422 whose message is the same
whatever the name, so it tells nothing about the server's files. A task that does not validate
is a 422 naming it and the field (``tasks[2]: task 'x': predicates[0].kind: ...``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..tasks.spec import TaskSpec
from .bodies import field_path
from .records import RemoteError

SHIPPED_OFFERED = ("capability-v1",)
"""Catalogs every server offers (small, shipped with the package)."""


class ServerCatalogs:
    """The catalogs one server offers to its clients, by name."""

    def __init__(self, named: dict[str, str | Path] | None = None) -> None:
        self.names: dict[str, str] = {n: n for n in SHIPPED_OFFERED}
        """Name a client may send -> the catalog name a task holds on the server (a shipped name or ``file:<path>``)."""
        for name, path in (named or {}).items():
            self.names[name] = str(path) if str(path) in ("capability-v1", "large-v1") else \
                f"file:{Path(path).expanduser().resolve()}"

    @classmethod
    def from_specs(cls, specs: list[str] | None) -> ServerCatalogs:
        """From ``--catalog`` values: ``NAME=PATH`` (a catalog file) or a shipped name (``large-v1``)."""
        named: dict[str, str | Path] = {}
        for spec in specs or []:
            name, sep, path = spec.partition("=")
            if not sep:
                if spec not in ("capability-v1", "large-v1"):
                    raise ValueError(f"--catalog {spec!r}: NAME=PATH, or a shipped catalog (capability-v1, large-v1)")
                named[spec] = spec
                continue
            if not name or not path:
                raise ValueError(f"--catalog {spec!r}: NAME=PATH")
            if not Path(path).expanduser().is_file():
                raise ValueError(f"--catalog {spec!r}: no file {path}")
            named[name] = path
        return cls(named)

    def resolve(self, name: Any, where: str) -> str:
        """The server-side catalog of client name ``name`` (422 for any name it does not offer)."""
        if isinstance(name, str) and name in self.names:
            return self.names[name]
        raise RemoteError(422, "unknown_catalog", f"{where}: not a catalog this server offers "
                          f"(offered: {', '.join(sorted(self.names))})")

    def path_of(self, name: Any, where: str) -> Path:
        """The file of offered catalog ``name``."""
        from ..catalog.shared import catalog_path

        return catalog_path(self.resolve(name, where))


def task_from_data(data: Any, where: str, catalogs: ServerCatalogs) -> TaskSpec:
    """A client's task (a dict) as a :class:`TaskSpec` over an offered catalog; 422 naming the field."""
    if isinstance(data, TaskSpec):
        return data  # built in this process (the MCP command, a test): trusted as given
    if not isinstance(data, dict):
        raise RemoteError(422, "bad_task", f"{where}: a task is a JSON object (a TaskSpec)")
    if data.get("catalog") is not None:
        data = {**data, "catalog": catalogs.resolve(data["catalog"], f"{where}.catalog")}
    try:
        return TaskSpec.model_validate(data)
    except ValidationError as exc:
        first = exc.errors(include_input=False)[0]
        loc = field_path(tuple(first["loc"])) if first["loc"] else ""
        raise RemoteError(422, "bad_task", f"{where}: {loc + ': ' if loc else ''}{first['msg']}"[:800]) from None
    except ValueError as exc:
        raise RemoteError(422, "bad_task", f"{where}: {str(exc)[:800]}") from None


def tasks_from_data(items: Any, where: str, catalogs: ServerCatalogs) -> list[TaskSpec]:
    """A list of client tasks (see :func:`task_from_data`)."""
    if not isinstance(items, list):
        raise RemoteError(422, "bad_task", f"{where}: a glob over task ids, or a list of tasks")
    return [task_from_data(t, f"{where}[{i}]", catalogs) for i, t in enumerate(items)]
