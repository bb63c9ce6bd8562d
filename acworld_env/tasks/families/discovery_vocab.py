"""T1 Discovery vocabulary: kinds of item, and how a shopper words each requirement.

A *need* is one hard requirement as JSON: ``{"field", "op", "value", "words", "vague"}``.
``field`` is a listing field (``attributes.non_slip``, ``options.size``, ``brand``, ``rating``,
``review_count``, ``description``); ``op`` is ``eq``, ``min``, ``max`` or ``has`` (the text
contains the value). ``words`` is how the shopper says it; ``vague`` marks words that do not
name the catalog's vocabulary ("for hot yoga" for sweat-resistant closed-cell layers).
Needs on ``description`` and ``review_count`` cannot be expressed as search filters; the
others can (see :mod:`.discovery_needs`).

The phrases are written for the shipped ``capability-v1`` catalog: each kind lists the
attributes, options and description features its listings actually carry.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Kind:
    """A kind of item a shopper asks for: catalog category and product type, and what can vary."""

    category: str
    product_type: str
    noun: str
    attrs: tuple[str, ...] = ()
    opts: tuple[str, ...] = ()
    descs: tuple[str, ...] = ()
    unit: str | None = None
    """A numeric attribute that makes "price per unit" meaningful (grams of coffee)."""


_MAT_DESCS = ("a carrying strap", "alignment markings", "closed-cell, sweat-resistant layers",
              "joint-friendly cushioning")
_MAT_ATTRS = ("eco_friendly", "non_slip", "latex_free", "thickness_mm", "length_cm", "material")
_BED_DESCS = ("colourfast dyes", "breathable, temperature-regulating fibres", "double-stitched hems")
_BED_ATTRS = ("machine_washable", "material", "certified_organic", "weave", "thread_count")
_COFFEE_ATTRS = ("roast", "organic", "fair_trade", "origin", "process")
_COFFEE_DESCS = ("notes of dark chocolate", "bright citrus acidity", "a caramel sweetness", "a syrupy body")
_BEAUTY_ATTRS = ("cruelty_free", "fragrance_free", "vegan")
_BEAUTY_DESCS = ("dermatologist-tested ingredients", "long-lasting colour", "skin-loving botanicals")

KINDS: tuple[Kind, ...] = (
    Kind("Yoga", "Yoga Mats", "yoga mat", _MAT_ATTRS, ("color",), _MAT_DESCS),
    Kind("Yoga", "Travel Yoga Mats", "travel yoga mat", (*_MAT_ATTRS, "weight_g"), ("color",), _MAT_DESCS),
    Kind("Yoga", "Yoga Towels", "yoga towel", ("material", "length_cm"), ("color", "size"),
         ("a grippy, non-slip surface", "a carrying strap")),
    Kind("Yoga", "Yoga Bolsters", "yoga bolster", ("material",), ("color",),
         ("a grippy, non-slip surface", "plant-based materials")),
    Kind("Home textiles", "Sheet Sets", "sheet set", _BED_ATTRS, ("size", "color"), _BED_DESCS),
    Kind("Home textiles", "Duvet Covers", "duvet cover", _BED_ATTRS, ("size", "color"), _BED_DESCS),
    Kind("Home textiles", "Quilts", "quilt", ("machine_washable", "material"), ("size", "color"), _BED_DESCS),
    Kind("Home textiles", "Throw Blankets", "throw blanket",
         ("machine_washable", "material", "certified_organic", "weight_gsm"), ("color",), _BED_DESCS),
    Kind("Home textiles", "Pillowcases", "pillowcase pair", ("machine_washable", "material"), ("size", "color"),
         _BED_DESCS),
    Kind("Home textiles", "Bath Towels", "bath towel set", ("machine_washable", "material", "pieces"), ("color",),
         _BED_DESCS),
    Kind("Coffee", "Whole Bean Coffee", "bag of whole-bean coffee", _COFFEE_ATTRS, ("grind", "size"),
         _COFFEE_DESCS, unit="attributes.weight_g"),
    Kind("Coffee", "Single Origin Coffee", "bag of single-origin coffee", _COFFEE_ATTRS, ("grind", "size"),
         _COFFEE_DESCS, unit="attributes.weight_g"),
    Kind("Coffee", "Espresso Blends", "bag of espresso blend", _COFFEE_ATTRS, ("grind", "size"), _COFFEE_DESCS,
         unit="attributes.weight_g"),
    Kind("Pet care", "Dog Treats", "bag of dog treats", ("grain_free", "life_stage"), ("flavour", "size"),
         ("real meat as the first ingredient", "no artificial colours"), unit="attributes.weight_g"),
    Kind("Pet care", "Dry Dog Food", "bag of dry dog food", ("grain_free", "life_stage"), ("flavour", "size"),
         ("added omega oils for a glossy coat", "real meat as the first ingredient"), unit="attributes.weight_g"),
    Kind("Pet care", "Dog Leashes", "dog leash", ("material",), ("color", "size")),
    Kind("Cosmetics", "Lipsticks", "lipstick", _BEAUTY_ATTRS, ("finish", "shade"), _BEAUTY_DESCS),
    Kind("Cosmetics", "Foundations", "foundation", (*_BEAUTY_ATTRS, "finish"), ("shade",), _BEAUTY_DESCS),
)

# -- words: (plain, vague or None) -------------------------------------------------------------

FLAGS: dict[str, tuple[str, str | None]] = {
    "eco_friendly": ("listed as eco-friendly", "eco-friendly"),
    "non_slip": ("non-slip", "that won't slide around on my wooden floor"),
    "latex_free": ("latex-free", "safe for my latex allergy"),
    "machine_washable": ("machine washable", "that I can just throw in the washing machine"),
    "certified_organic": ("certified organic", None),
    "organic": ("organic", "grown without synthetic pesticides"),
    "fair_trade": ("Fair Trade certified", "ethically sourced, with the farmers paid fairly"),
    "grain_free": ("grain-free", "for my dog, who can't eat wheat or corn"),
    "cruelty_free": ("cruelty-free", "that was never tested on animals"),
    "fragrance_free": ("fragrance-free", "with no added scent at all"),
    "vegan": ("vegan", "with no animal-derived ingredients"),
}
"""Boolean attributes required to be true."""

VALUES: dict[tuple[str, str], tuple[str, str | None]] = {
    ("attributes.weave", "percale"): ("with a percale weave", "that feels crisp and cool rather than silky"),
    ("attributes.weave", "sateen"): ("with a sateen weave", "silky-smooth with a soft sheen"),
    ("attributes.life_stage", "puppy"): ("for puppies", "for my ten-week-old pup"),
    ("attributes.life_stage", "senior"): ("for senior dogs", "for my twelve-year-old dog"),
    ("attributes.life_stage", "adult"): ("for adult dogs", None),
    ("attributes.finish", "matte"): ("with a matte finish", "that won't look shiny"),
    ("attributes.finish", "dewy"): ("with a dewy finish", "that gives a fresh, glowy look"),
    ("options.size", "Twin"): ("in Twin size", "that fits a twin bed"),
    ("options.size", "Full"): ("in Full size", "for a double bed"),
    ("options.grind", "Moka Pot"): ("ground for a moka pot", "for my stovetop espresso maker"),
    ("options.grind", "French Press"): ("ground for a French press", "for my plunger pot"),
    ("options.grind", "Filter"): ("ground for filter", "for my drip coffee machine"),
    ("options.grind", "Espresso"): ("ground for espresso", "for my espresso machine"),
    ("options.grind", "Whole Bean"): ("left as whole beans", "that I can grind myself"),
    ("options.finish", "Matte"): ("with a matte finish", "that won't look shiny"),
}
"""Enumerated values with their own words; other values use :func:`plain_words`."""

DESCS: dict[str, tuple[str, str | None]] = {
    "a carrying strap": ("with a carrying strap", "that I can sling over my shoulder on the walk to class"),
    "alignment markings": ("with alignment markings", "with guide lines to help me line up my poses"),
    "closed-cell, sweat-resistant layers": ("with closed-cell, sweat-resistant layers", "for hot yoga"),
    "joint-friendly cushioning": ("with joint-friendly cushioning", "that's easy on my knees"),
    "a grippy, non-slip surface": ("with a grippy, non-slip surface", None),
    "plant-based materials": ("made with plant-based materials", None),
    "colourfast dyes": ("with colourfast dyes", "that won't fade in the wash"),
    "breathable, temperature-regulating fibres": ("with breathable, temperature-regulating fibres",
                                                  "for someone who sleeps hot"),
    "double-stitched hems": ("with double-stitched hems", None),
    "notes of dark chocolate": ("with dark chocolate notes", "that tastes a bit like chocolate"),
    "bright citrus acidity": ("with bright citrus acidity", "with a lively, lemony tang"),
    "a caramel sweetness": ("with a caramel sweetness", None),
    "a syrupy body": ("with a syrupy body", None),
    "real meat as the first ingredient": ("with real meat as the first ingredient",
                                          "where meat comes first on the label"),
    "no artificial colours": ("with no artificial colours", None),
    "added omega oils for a glossy coat": ("with added omega oils", "that will keep my dog's coat glossy"),
    "dermatologist-tested ingredients": ("with dermatologist-tested ingredients", "that a skin doctor has tested"),
    "long-lasting colour": ("with long-lasting colour", "that lasts all day without touch-ups"),
    "skin-loving botanicals": ("with skin-loving botanicals", None),
}
"""Description features (visible only in the full listing record)."""

MINIMUMS = {"thickness_mm": "at least {v:g} mm thick", "length_cm": "at least {v:g} cm long",
            "thread_count": "with a thread count of at least {v:g}", "weight_gsm": "of at least {v:g} gsm"}
MAXIMUMS = {"weight_g": "weighing no more than {v:g} g"}


def plain_words(field: str, value: object) -> str:
    """The plain words for an equality requirement without an entry in :data:`VALUES`."""
    key = field.split(".", 1)[-1]
    text = str(value)
    if field == "options.color":
        return f"in {text.lower()}"
    if field == "options.size":
        return f"in the {text} size"
    if field in {"options.shade"}:
        return f"in the shade {text}"
    if field in {"options.flavour"}:
        return f"{text.lower()} flavour"
    if field in {"options.finish", "attributes.finish"}:
        return f"with a {text.lower()} finish"
    if key == "material":
        return f"made of {text}"
    if key == "roast":
        return f"a {text} roast"
    if key == "origin":
        return f"from {text}"
    if key == "process":
        return f"{text}-processed"
    if key == "pieces":
        return f"with {text} pieces"
    if field == "brand":
        return f"made by {text}"
    return f"with {key.replace('_', ' ')} {text}"
