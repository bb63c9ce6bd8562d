"""Frozen suite files: JSONL of task specs shipped inside the package."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from .spec import TaskSpec


def frozen_path(suite: str) -> Path:
    """Where a suite's frozen file lives inside the installed package."""
    return Path(str(resources.files("acworld_env") / "data" / "tasks" / f"{suite}.jsonl"))


def dump_tasks(tasks: list[TaskSpec]) -> str:
    """Canonical JSONL text of a task list (byte-identical for identical tasks)."""
    return "".join(json.dumps(t.model_dump(mode="json"), sort_keys=True, ensure_ascii=False,
                              separators=(",", ":")) + "\n" for t in tasks)


def load_frozen(suite: str) -> list[TaskSpec]:
    """The frozen tasks of a suite, or an empty list when none are shipped."""
    path = frozen_path(suite)
    if not path.exists():
        return []
    out = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                out.append(TaskSpec.model_validate_json(line))
            except ValueError as exc:
                raise ValueError(f"{path}: line {lineno}: not a task spec ({exc})") from exc
    return out
