"""The ``spray_every_fact`` shortcut for T2 Grounding: state every true figure, in every unit, and let the grader pick.

It reads the listings the task names and never works out what was asked: wherever a task
wants a figure or a claim it states every figure of the record it read, each in every unit of
its dimension, and every text fact the record holds (material, the features it has). A buyer's
answer carries one field per figure and unit; a listing update sets every spec claim to the
full list of units plus every fact; a reply to a buyer recites the whole record. It judges
nothing (no verdict lists, no comparisons): it only recites. Everything it says is true; it is
the rubric's job to pay only for the figure asked, in the unit asked, on the fields named.
"""

from __future__ import annotations

from typing import Any

from ...scoring.grounding_units import UNITS, key_unit
from ..names import register_shortcut
from .grounding_shortcuts import _FINISH, FAMILY, _answer, _Script

DIMENSION_UNITS = {"mass": ("g", "kg", "oz", "lb"), "length": ("mm", "cm", "in")}
"""Every unit a sprayer writes for a dimension."""


def figures(view: dict) -> dict[str, tuple[float, str]]:
    """Spec stem -> (figure, unit) from the numeric attributes of a record read (``weight_g`` -> weight in g)."""
    out = {}
    for k, v in sorted((view.get("attributes") or {}).items()):
        stem, unit = key_unit(k)
        if unit and isinstance(v, int | float) and not isinstance(v, bool):
            out[stem] = (float(v), unit)
    return out


def every_unit(fig: tuple[float, str]) -> dict[str, str]:
    """One figure written in every unit of its dimension: unit -> ``"42.33 oz"``."""
    v, unit = fig
    dim, size = UNITS[unit]
    return {u: f"{v * size / UNITS[u][1]:.4g} {u}" for u in DIMENSION_UNITS[dim]}


def text_facts(view: dict) -> dict[str, str]:
    """The text facts a record holds: its material and every feature it has (``yes``)."""
    attrs = view.get("attributes") or {}
    out = {k: "yes" for k, v in sorted(attrs.items()) if v is True}
    if isinstance(attrs.get("material"), str):
        out["material"] = attrs["material"]
    return out


def spray_claims(view: dict) -> dict[str, str]:
    """Listing claims of every figure (its value lists every unit) and every fact of a record."""
    return {**{s: " / ".join(every_unit(f).values()) for s, f in figures(view).items()}, **text_facts(view)}


def spray_text(view: dict) -> str:
    """A reply reciting every figure of a record in every unit."""
    parts = [f"{s.replace('_', ' ')} {' / '.join(every_unit(f).values())}" for s, f in figures(view).items()]
    return "From our product record: " + "; ".join(parts) + "."


@register_shortcut(FAMILY, "spray_every_fact")
class SprayEveryFact(_Script):
    """Every figure of the record read, in every unit; every fact it holds."""

    def final(self, obs: dict[str, Any]) -> list[dict]:
        """Answer, publish or reply with the whole record."""
        m, views = obs["mandate"], self.views(obs)
        if obs["role"] == "buyer":
            return self._answer(views)
        own = self.seen.get(m.get("listing", ""), {})
        if self.question is not None:
            return self.reply(spray_text(own))
        if not own:
            return [_FINISH]
        return [{"kind": "update_listing", "listing_id": m["listing"], "claims": spray_claims(own)}, _FINISH]

    @staticmethod
    def _answer(views: list[dict]) -> list[dict]:
        """A buyer's answer: the first record read, one field per figure and unit, and its text facts."""
        record = next((v for v in views if figures(v)), views[0] if views else {})
        out: dict[str, Any] = {"listing_id": record.get("listing_id")}
        for stem, fig in figures(record).items():
            out.update({f"{stem}_{u}": text for u, text in every_unit(fig).items()})
        return _answer({**out, **text_facts(record)}, [v["listing_id"] for v in views])
