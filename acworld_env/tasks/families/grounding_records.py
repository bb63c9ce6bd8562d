"""T2 Grounding records: the catalog products tasks are built on, their spec figures, and how to word them.

The authoritative record of a product is its catalog entry (``attributes``: ``weight_g``,
``thickness_mm``, ``length_cm``, ``width_cm``, ``heel_drop_mm``); the World overlay holds
what sellers wrote about it (``claims``), which may be right, in another unit, or wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from ...catalog import Catalog, default_catalog_path
from ...scoring.grounding_units import UNITS
from ...world import add_actor, empty_state, listing_record


@dataclass(frozen=True)
class Spec:
    """One numeric spec: its claim stem, catalog attribute, record unit and the other units people use."""

    stem: str
    attr: str
    unit: str
    alt: tuple[str, ...]
    noun: str
    question: str


SPECS = {
    "weight": Spec("weight", "weight_g", "g", ("oz", "lb", "kg"), "weight", "how much does it weigh"),
    "thickness": Spec("thickness", "thickness_mm", "mm", ("in",), "thickness", "how thick is it"),
    "length": Spec("length", "length_cm", "cm", ("in",), "length", "how long is it"),
    "width": Spec("width", "width_cm", "cm", ("in",), "width", "how wide is it"),
    "heel_drop": Spec("heel_drop", "heel_drop_mm", "mm", ("in",), "heel-to-toe drop", "what is the heel drop"),
}
UNIT_WORDS = {"g": "grams", "oz": "ounces", "lb": "pounds", "kg": "kilograms", "mm": "millimetres",
              "cm": "centimetres", "in": "inches"}
TYPES = {"Yoga Mats": ("Yoga", "mat"), "Trail Running Shoes": ("Footwear", "shoe")}


@cache
def catalog() -> Catalog:
    """The shipped capability-v1 catalog (opened once per process)."""
    return Catalog.open(default_catalog_path())


@cache
def products(product_type: str) -> tuple[dict, ...]:
    """One record per product of a type (its first variant) that carries at least two spec figures."""
    category, _ = TYPES[product_type]
    cat = catalog()
    seen, out = set(), []
    for x in cat.get_many(cat.oracle_ids({"category": category, "attributes": {"product_type": product_type}})):
        rec = x.model_dump(mode="json")
        if rec["product_id"] in seen or len(specs_of(rec)) < 2:
            continue
        seen.add(rec["product_id"])
        out.append(rec)
    return tuple(sorted(out, key=lambda r: r["listing_id"]))


def specs_of(rec: dict) -> list[str]:
    """Stems of the spec figures a catalog record carries."""
    attrs = rec["attributes"]
    return [s.stem for s in SPECS.values() if isinstance(attrs.get(s.attr), int | float)
            and not isinstance(attrs.get(s.attr), bool) and attrs[s.attr] > 0]


def value(rec: dict, stem: str) -> float:
    """The record's figure for a stem, in the record unit."""
    return float(rec["attributes"][SPECS[stem].attr])


def convert(v: float, src: str, dst: str) -> float:
    """A figure in another unit of the same dimension."""
    return v * UNITS[src][1] / UNITS[dst][1]


def fmt(v: float) -> str:
    """A figure as people write it: at most two decimals, no trailing zeros."""
    text = f"{v:,.2f}".rstrip("0").rstrip(".")
    return text if text not in {"", "-0"} else "0"


def exact(v: float) -> str:
    """A figure to four significant digits (what a careful answer states)."""
    return fmt(v) if v >= 100 else f"{v:.4g}"


def say(v: float, unit: str) -> str:
    """``"3,350 g"``, ``'0.18 in'``."""
    return f"{fmt(v)} {unit}"


def wrong(rng: np.random.Generator, v: float) -> float:
    """A figure 15 % to 40 % off ``v`` (never within tolerance of it), rounded as a seller would."""
    factor = float(rng.uniform(1.15, 1.4)) if rng.random() < 0.5 else float(rng.uniform(0.6, 0.85))
    w = v * factor
    return round(w) if w >= 20 else round(w, 1)


def key(stem: str, unit: str) -> str:
    """An answer field name: ``weight_oz``."""
    return f"{stem}_{unit}"


def world(listings: dict[str, dict], *, buyers: int = 1, merchants: int = 3) -> dict:
    """A World pinned to the catalog with actors and the given listing overlays."""
    state = empty_state(catalog_hash=catalog().content_hash)
    for i in range(buyers):
        add_actor(state, f"buyer_{i}", "buyer", balance=100_000)
    for i in range(merchants):
        add_actor(state, f"merchant_{i}", "merchant")
    state["listings"].update(listings)
    return state


def overlay(rec: dict, merchant: str, claims: dict[str, str], *, price: int | None = None) -> dict:
    """The World overlay of a catalog listing, sold by ``merchant`` with the seller's ``claims``."""
    return listing_record(merchant, price or rec["price"], max(int(rec["quantity"]), 3), title=rec["title"],
                          category=rec["category"], claims=claims)


def reseller(rec: dict, merchant: str, claims: dict[str, str], price: int) -> dict:
    """A listing outside the catalog that resells ``rec``: only the seller's claims, no product record."""
    return listing_record(merchant, price, 4, title=f"{rec['title']} (resale)", category=rec["category"],
                          claims=claims)


def facts(rec: dict) -> dict[str, str]:
    """Text facts the record backs as listing claims: its material and the features it has (``yes``)."""
    attrs = rec["attributes"]
    out = {k: "yes" for k, v in attrs.items() if v is True}
    if isinstance(attrs.get("material"), str):
        out["material"] = attrs["material"]
    return out


def short(rec: dict) -> str:
    """The product's name without its variant options."""
    return rec["title"].split(" - ")[0]
