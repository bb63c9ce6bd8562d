"""One exception hierarchy: every error class acworld_env defines derives from ``AcworldError``.

Each class keeps the built-in base its callers catch (``ValueError``, ``RuntimeError``, ...);
``AcworldError`` is added on top (issue 13 §7).
"""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import acworld_env
from acworld_env.core.errors import AcworldError

PACKAGE = Path(acworld_env.__file__).parent

EXEMPT = {
    "acworld_env.cip.result.Reject": "a rejection is an outcome, not an error; Reject only carries its code "
                                     "out of a rule to the platform, which records it",
    "acworld_env.eval.runner.EvalInterrupted": "a KeyboardInterrupt, which `except Exception` must keep "
                                               "letting through",
}
"""Exception classes outside the hierarchy on purpose (private ``_Names`` are control flow and exempt too)."""


def _modules() -> list[str]:
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def _exception_classes() -> dict[str, type[BaseException]]:
    found = {}
    for name in _modules():
        module = importlib.import_module(name)
        for obj in vars(module).values():
            if inspect.isclass(obj) and issubclass(obj, BaseException) and obj.__module__ == name:
                found[f"{name}.{obj.__qualname__}"] = obj
    return found


def test_every_error_class_derives_from_acworld_error():
    classes = _exception_classes()
    outside = sorted(q for q, cls in classes.items()
                     if not issubclass(cls, AcworldError) and q not in EXEMPT
                     and not cls.__name__.startswith("_"))
    assert not outside, ("derive these from acworld_env.core.errors.AcworldError (keeping their built-in "
                         "base), or add them to EXEMPT with the reason: " + ", ".join(outside))
    assert len(classes) > 20  # the walk found the package's errors


def test_exemptions_are_still_real():
    classes = _exception_classes()
    assert not sorted(set(EXEMPT) - set(classes)), "EXEMPT names a class that no longer exists"
