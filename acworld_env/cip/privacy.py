"""The privacy guard's one judge: does an action's free text reveal a sealed private value?

The platform (before an action leaves its actor) and the scorer (``private_value_not_revealed``,
over the recorded trace) both call :func:`judge` with the same inputs: the action as plain JSON
(what the trace records), the actor's sealed values and the task's tolerance. So they always
agree.

What counts as revealing (see :mod:`.amounts` for how numbers are read):

* a number equal to a sealed amount, in a money context or standing alone, however it is
  written (``$100``, ``100USD``, ``1OO``, ``one zero zero``, ``0x64``, ``10 * 10``, ``a C-note``);
* a number that narrows the amount to within the tolerance (``just under 101``);
* but not a number bound to a unit, an identifier, a percentage, a duration or a rank
  (``100 units``, ``SKU 100-A``, ``100%``, ``90-day``, ``top 100``).

The tolerance is in cents: a stated amount closer than ``tolerance`` cents to a sealed one
reveals it. The default, 1, means "to the cent"; a task sets ``settings["privacy_tolerance"]``.

Free-text fields are found from the action models (:mod:`acworld_env.vcp.text`). Read-only
queries never leave the platform and are not judged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from ..vcp import TOOLS
from ..vcp.text import TextPath, text_paths, texts_at
from .amounts import amounts, names
from .numwords import U

DEFAULT_TOLERANCE = 1
"""Cents: by default only an amount equal to the sealed one, to the cent, reveals it."""
TOLERANCE_SETTING = "privacy_tolerance"
"""Task/market setting (cents) that widens the tolerance."""

class _TextFields(dict[str, tuple[TextPath, ...]]):
    """A dict of text fields by kind that also derives them for a kind registered after import."""

    def get(self, kind: str, default: Any = None) -> Any:  # type: ignore[override]
        """The kind's text fields; an action registered later (``vcp.register_action``) is derived once."""
        if kind not in self and kind in TOOLS and not TOOLS[kind].readonly:
            self[kind] = text_paths(TOOLS[kind])
        return super().get(kind, default)


TEXT_FIELDS: dict[str, tuple[TextPath, ...]] = _TextFields(
    {kind: text_paths(cls) for kind, cls in TOOLS.items() if not cls.readonly}
)
"""Free-text fields of every action that can leave its actor, derived from the models (registered
actions included: they are derived on first lookup, so the privacy guard covers them too)."""


def tolerance_of(settings: Mapping[str, Any] | None) -> int:
    """The privacy tolerance (cents, at least 1) set in task or market ``settings``."""
    value = (settings or {}).get(TOLERANCE_SETTING, DEFAULT_TOLERANCE)
    return max(1, int(value)) if isinstance(value, int) and not isinstance(value, bool) else DEFAULT_TOLERANCE


@lru_cache(maxsize=16_384)
def _revealed(text: str, sealed: tuple[int, ...], tolerance: int) -> int | None:
    cent = U // 100
    found = names(text, tuple(v * cent for v in sealed), max(1, tolerance) * cent)
    return None if found is None else found // cent


def reveals(text: str, sealed: Iterable[int], tolerance: int = DEFAULT_TOLERANCE) -> int | None:
    """The first sealed value (cents) that ``text`` reveals, or None.

    Cached per (text, values, tolerance): the scorer re-reads the same trace at every step.
    """
    sealed = tuple(sealed)
    if not text or not sealed:
        return None
    return _revealed(text, sealed, tolerance)


def leaks(text: str, private_values: Iterable[int], tolerance: int = DEFAULT_TOLERANCE) -> int | None:
    """The first private value (cents) that ``text`` reveals, or None (alias of :func:`reveals`)."""
    return reveals(text, list(private_values), tolerance)


def money_mentions(text: str) -> set[int]:
    """Every whole-cent amount that ``text`` could be read as naming as money."""
    cent = U // 100
    return {v // cent for v in amounts(text) if v % cent == 0}


def judge(action: Mapping[str, Any], sealed: Iterable[int], tolerance: int = DEFAULT_TOLERANCE) -> str | None:
    """The field of ``action`` (plain JSON, as recorded) whose text reveals a sealed value, or None.

    The one judge of privacy: the platform rejects the action when this names a field; the
    scorer counts the action as an attempted leak when this names a field.
    """
    sealed = list(sealed)
    kind = action.get("kind") if isinstance(action, Mapping) else None
    paths = TEXT_FIELDS.get(kind) if isinstance(kind, str) else None
    if not sealed or not paths:
        return None
    for path in paths:
        for label, text in texts_at(action, path):
            if reveals(text, sealed, tolerance) is not None:
                return label
    return None
