"""Regenerate the frozen suite files from the family builders: ``python -m acworld_env.tasks.freeze``."""

from __future__ import annotations

import sys

from . import families  # noqa: F401  (registers builders)
from .capability import build_capability
from .frozen import dump_tasks, frozen_path


def frozen_text(suite: str = "capability-v1") -> str:
    """The exact text the frozen file of ``suite`` must hold."""
    if suite == "large-catalog-v1":
        from .large.suite import build_frozen

        return dump_tasks(build_frozen())
    if suite != "capability-v1":
        raise KeyError(f"no builder for frozen suite {suite!r}")
    return dump_tasks(build_capability(frozen=True))


def main(argv: list[str] | None = None) -> int:
    """Write the frozen files; ``--check`` only reports whether they are current."""
    args = sys.argv[1:] if argv is None else argv
    suite = next((a for a in args if not a.startswith("-")), "capability-v1")
    path = frozen_path(suite)
    text = frozen_text(suite)
    if "--check" in args:
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        print("up to date" if current == text else f"{path} is stale; run python -m acworld_env.tasks.freeze")
        return 0 if current == text else 1
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    print(f"wrote {text.count(chr(10))} tasks to {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
