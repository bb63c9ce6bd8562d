"""Example extension: a new product domain, ``bikes``, with its own attributes.

It adds a catalog department (product types, brands, price level, an option axis and typed
attributes: ``frame_cm``, ``gears``, ``electric``, ``weight_g``) to the synthetic generator's
department table from outside ``acworld_env``. A catalog built with ``departments=("bikes",)``
is then searched, ordered from and settled through the unchanged platform and World.
"""

from __future__ import annotations

from typing import Any

from acworld_env.catalog.synth import plan
from acworld_env.catalog.synth.taxonomy import Axis, Department, Draw, ProductType, words

KEY = "bikes"


def _attrs(d: Draw, t: ProductType, material: str) -> dict[str, Any]:
    out: dict[str, Any] = {"material": material, "weight_g": int(round(d.uniform(200, 16_000), -1))}
    if t.name != "Helmets":
        out["frame_cm"] = d.pick((48, 51, 54, 56, 58, 61))
        out["gears"] = d.pick((1, 8, 11, 12, 22, 24))
        out["electric"] = d.chance(0.3)
    return out


DEPARTMENT = Department(
    key=KEY, name="Bikes",
    types=(ProductType("Road Bikes", "Road Bike", 2.0, 3.0, ("color",)),
           ProductType("City Bikes", "City Bike", 2.0, 2.0, ("color",)),
           ProductType("Helmets", "Helmet", 1.0, 0.2, ("color",))),
    brands=words("Velora|Cadence Works|Northpeak Cycles|Urbanrider"), lines=words("Sprint|Commute|Ridge|Tour"),
    adjectives=words("Lightweight|Carbon|Folding|Classic"), materials=words("aluminium|carbon|steel"),
    price_median=400, price_sigma=0.5, axes=(Axis("color", ("Color", "Colour"), words("Black|White|Red|Blue")),),
    tags=words("cycling|outdoor|commute"), features=words("a lifetime frame warranty|hydraulic brakes"),
    attrs=_attrs, weight=1.0,
)


def register() -> Department:
    """Add the department to the generator's table (idempotent); return it."""
    current = plan.DEPARTMENTS.get(KEY)
    if current is not None and current is not DEPARTMENT:
        raise ValueError(f"department {KEY!r} is already registered by someone else")
    plan.DEPARTMENTS[KEY] = DEPARTMENT
    return DEPARTMENT
