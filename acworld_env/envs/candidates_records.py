"""Menu slot builders that answer from a product record the agent read: figures in the units asked for.

Builders have the :data:`~acworld_env.envs.candidates.Builder` signature ``(known, index)`` and read
only :class:`~acworld_env.envs.known.Known`: the mandate's answer fields (``"<figure>_<unit>"``,
e.g. ``weight_oz``) and the attributes of the listing records the agent read (``weight_g``,
``length_cm``, ...).

* ``listing[k].answer:record`` / ``answer:record+read``: answer each field with the ``k``-th
  listing's figure converted to the field's unit (four significant digits; at 100 and above, whole
  figures with thousands separators and at most two decimals), citing that listing, or every
  listing read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .known import Known

Builder = Callable[[Known, int], "dict[str, Any] | None"]
UNITS: dict[str, tuple[str, float]] = {
    "g": ("mass", 1.0), "kg": ("mass", 1000.0), "oz": ("mass", 28.349523125), "lb": ("mass", 453.59237),
    "mm": ("length", 1.0), "cm": ("length", 10.0), "in": ("length", 25.4), "m": ("length", 1000.0),
}
"""Units a record figure may be asked in: dimension and size in the dimension's base unit."""


def figure(v: float) -> str:
    """A figure as a careful answer states it (see the module docstring)."""
    if v >= 100:
        text = f"{v:,.2f}".rstrip("0").rstrip(".")
        return text or "0"
    return f"{v:.4g}"


def _field_value(attrs: dict[str, Any], name: str) -> str | None:
    stem, _, unit = name.rpartition("_")
    if not stem or unit not in UNITS:
        return None
    for attr, v in attrs.items():
        a_stem, _, a_unit = attr.rpartition("_")
        if (a_stem == stem and a_unit in UNITS and UNITS[a_unit][0] == UNITS[unit][0]
                and isinstance(v, int | float) and not isinstance(v, bool)):
            return figure(v * UNITS[a_unit][1] / UNITS[unit][1])
    return None


def answer_record(cite_all: bool) -> Builder:
    """Answer the mandate's figure fields from the ``i``-th listing's record (see the module docstring)."""
    def build(k: Known, i: int) -> dict[str, Any] | None:
        fields = k.mandate.get("answer_fields")
        lid = k.nth("listings", i)
        attrs = k["listings"][lid].get("attributes") if lid else None
        if not isinstance(fields, list) or not attrs:
            return None
        answer: dict[str, Any] = {"listing_id": lid}
        for name in fields:
            if isinstance(name, str) and name != "listing_id":
                value = _field_value(attrs, name)
                if value is None:
                    return None
                answer[name] = value
        read = [x for x, r in k["listings"].items() if r.get("attributes")]
        if cite_all and len(read) < 2:
            return None
        return {"kind": "submit_answer", "answer": answer, "evidence": read if cite_all else [lid],
                "rationale": "Figures from the product record."}

    return build


def slots(n_listings: int) -> list[tuple[str, str, Builder, int]]:
    """The record-answer slots: ``(label, kind, builder, index)``."""
    return [(f"listing[{i}].answer:record{'+read' if cite else ''}", "submit_answer", answer_record(cite), i)
            for i in range(n_listings) for cite in (False, True)]
