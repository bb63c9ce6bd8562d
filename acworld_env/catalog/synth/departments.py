"""The six departments of ``capability-v1`` (also the core of larger catalogs).

Brands, product lines and merchants are invented. Price medians are in USD and
follow the real storefront dumps the generator was calibrated on (log-normal
prices, sigma 0.35-0.6 by department). Word lists are written ``"a|b|c"``.
"""

from __future__ import annotations

from typing import Any

from .taxonomy import Axis, Department, Draw, ProductType, words

COLOR_NAMES = words("Color|Colour|color|colour|COLOR")
SIZE_NAMES = words("Size|size|SIZE|Sizes")
US_SIZES = tuple(f"US {s}" for s in words("5|5.5|6|6.5|7|7.5|8|8.5|9|9.5|10|10.5|11|11.5|12|13"))
ORIGINS = words("Ethiopia|Colombia|Guatemala|Kenya|Sumatra|Brazil|Costa Rica|Peru|Rwanda|Honduras")


def _t(name: str, singular: str, weight: float, mult: float, axes: str = "", tr: str = "",
       mats: str = "") -> ProductType:
    """A product type; ``tr`` is ``"de:Label|es:Label"``; ``mats`` overrides the department materials."""
    pairs = tuple(tuple(p.split(":", 1)) for p in words(tr))
    return ProductType(name, singular, weight, mult, words(axes), pairs, words(mats))  # type: ignore[arg-type]


def _footwear(d: Draw, t: ProductType, material: str) -> dict[str, Any]:
    boots = "Boot" in t.name or "Trail" in t.name
    laced = "Shoe" in t.singular or "Sneaker" in t.singular or (boots and d.chance(0.7))
    out: dict[str, Any] = {
        "material": material,
        "vegan": material in ("mesh", "canvas", "knit", "vegan leather", "recycled polyester")
        and d.chance(0.85),
        "waterproof": d.chance(0.6 if boots else 0.1),
        "weight_g": int(round(d.uniform(450, 900) if boots else d.uniform(180, 420), -1)),
        "sole": d.pick(("rubber", "EVA foam", "rubber", "crepe")),
        "closure": "laces" if laced else d.pick(("slip-on", "buckle", "zip")),
    }
    if "Running" in t.name:
        out["heel_drop_mm"] = d.pick((4, 6, 8, 10, 12))
    return out


FOOTWEAR = Department(
    key="footwear", name="Footwear",
    types=(
        _t("Running Shoes", "Running Shoe", 3.0, 1.0, "size|color",
           "de:Laufschuhe|es:Zapatillas de running|fr:Chaussures de course"),
        _t("Trail Running Shoes", "Trail Running Shoe", 1.5, 1.15, "size|color"),
        _t("Sneakers", "Sneaker", 3.0, 0.85, "size|color", "de:Turnschuhe|es:Zapatillas|fr:Baskets"),
        _t("Hiking Boots", "Hiking Boot", 1.5, 1.5, "size|color|width",
           "de:Wanderschuhe|es:Botas de montaña"),
        _t("Chelsea Boots", "Chelsea Boot", 1.0, 1.6, "size|color"),
        _t("Sandals", "Sandal", 1.5, 0.55, "size|color", "es:Sandalias|fr:Sandales"),
        _t("Slippers", "Slipper", 1.0, 0.45, "size|color", "de:Hausschuhe"),
        _t("Loafers", "Loafer", 1.0, 1.2, "size|color"),
    ),
    brands=words("Northstride|Pacewell|Kestrel & Co|Trailmark|Urbanfoot|Solace|Ridgeway|Fleetfoot|"
                 "Marlowe|Cobblestone"),
    lines=words("Glide|Tempo|Summit|Drift|Horizon|Cruise|Vector|Haven|Aurora|Nomad|Pulse|Ember"),
    adjectives=words("Lightweight|Cushioned|Waterproof|Classic|Everyday|Breathable|Recycled|Minimalist"),
    materials=words("mesh|leather|suede|canvas|knit|vegan leather|nubuck|recycled polyester"),
    price_median=95.0, price_sigma=0.42,
    axes=(
        Axis("size", SIZE_NAMES, US_SIZES, ordered=True, max_pick=12),
        Axis("color", COLOR_NAMES, words("Black|White|Navy|Grey|Tan|Olive|Burgundy|Sand|Charcoal|Red|"
                                         "Blue|Green"), max_pick=8),
        Axis("width", words("Width|width"), words("Regular|Wide"), steps=(1.0, 1.05)),
    ),
    tags=words("running|trail|everyday|gift|men|women|unisex|outdoor|comfort"),
    features=words("a grippy rubber outsole|a padded collar|a removable insole|a breathable lining|"
                   "a responsive foam midsole|reinforced toe caps"),
    attrs=_footwear, weight=1.3,
)


def _textiles(d: Draw, t: ProductType, material: str) -> dict[str, Any]:
    out: dict[str, Any] = {"material": material, "machine_washable": d.chance(0.9)}
    if t.name in ("Sheet Sets", "Duvet Covers", "Pillowcases") and "cotton" in material:
        out["thread_count"] = d.pick((200, 300, 400, 400, 500, 600, 800))
        out["weave"] = d.pick(("percale", "sateen"))
    if t.name in ("Bath Towels", "Throw Blankets"):
        out["weight_gsm"] = d.randint(30, 80) * 10
    if "organic" in material:
        out["certified_organic"] = d.chance(0.8)
    return out


HOME_TEXTILES = Department(
    key="home_textiles", name="Home textiles",
    types=(
        _t("Duvet Covers", "Duvet Cover", 2.0, 1.3, "bed_size|color", "de:Bettbezüge|fr:Housses de couette"),
        _t("Sheet Sets", "Sheet Set", 2.0, 1.1, "bed_size|color", "es:Juegos de sábanas"),
        _t("Pillowcases", "Pillowcase Pair", 1.5, 0.45, "pillow_size|color"),
        _t("Throw Blankets", "Throw Blanket", 1.5, 0.9, "throw_size|color", "de:Kuscheldecken|fr:Plaids"),
        _t("Bath Towels", "Bath Towel Set", 1.5, 0.7, "towel_set|color", "es:Toallas de baño"),
        _t("Curtains", "Curtain Panel", 1.0, 0.9, "curtain_size|color", "de:Vorhänge|fr:Rideaux"),
        _t("Quilts", "Quilt", 1.0, 1.6, "bed_size|color"),
        _t("Eye Masks", "Sleep Eye Mask", 0.7, 0.3, "color", mats="silk|cotton|memory foam"),
    ),
    brands=words("Linenfold|Hearth & Loom|Softwell|Nordvik Home|Cotton Lane|Sleepwell Co|Marigold House|"
                 "Driftwood Linen|Alder & Ash"),
    lines=words("Essential|Heritage|Cloud|Harbor|Meadow|Stonewash|Luxe|Nest|Coastal|Atelier"),
    adjectives=words("Organic|Stonewashed|Percale|Sateen|Waffle|Brushed|Heavyweight|Breathable"),
    materials=words("cotton|organic cotton|linen|bamboo|microfiber|wool|Egyptian cotton|lyocell"),
    price_median=60.0, price_sigma=0.5,
    axes=(
        Axis("size", SIZE_NAMES, words("Twin|Full|Queen|King|California King"), role="bed_size",
             steps=(1.0, 1.12, 1.25, 1.4, 1.45), attr="width_cm", attr_values=(173, 203, 228, 264, 264),
             ordered=True),
        Axis("size", SIZE_NAMES, words("Standard|King"), role="pillow_size", steps=(1.0, 1.2)),
        Axis("size", SIZE_NAMES, words("2-Piece|4-Piece|6-Piece"), role="towel_set", steps=(1.0, 1.7, 2.3),
             attr="pieces", attr_values=(2, 4, 6), ordered=True),
        Axis("size", SIZE_NAMES, words("127 x 152 cm|152 x 203 cm"), role="throw_size", steps=(1.0, 1.35),
             attr="width_cm", attr_values=(127, 152)),
        Axis("size", SIZE_NAMES, words("132 x 160 cm|132 x 213 cm|132 x 244 cm"), role="curtain_size",
             steps=(1.0, 1.15, 1.3), attr="length_cm", attr_values=(160, 213, 244), ordered=True),
        Axis("color", COLOR_NAMES, words("White|Ivory|Oat|Sage|Charcoal|Navy|Blush|Terracotta|"
                                         "Slate Blue|Stone")),
    ),
    tags=words("bedroom|sleep|gift|home|bath|cosy|hotel quality|new arrival"),
    features=words("a soft hand feel|double-stitched hems|a relaxed stonewashed finish|"
                   "breathable, temperature-regulating fibres|colourfast dyes"),
    attrs=_textiles, weight=1.2,
)


def _coffee(d: Draw, t: ProductType, material: str) -> dict[str, Any]:
    single = t.name == "Single Origin Coffee" or d.chance(0.4)
    out: dict[str, Any] = {
        "roast": d.pick(("light", "medium", "medium", "medium-dark", "dark")),
        "origin": d.pick(ORIGINS) if single else "Blend",
        "decaf": t.name == "Decaf Coffee",
        "organic": d.chance(0.3),
        "fair_trade": d.chance(0.25),
    }
    if single:
        out["process"] = d.pick(("washed", "natural", "honey"))
    if t.name == "Espresso Blends":
        out["roast"] = d.pick(("medium-dark", "dark"))
    return out


def _coffee_title(d: Draw, dept: Department, t: ProductType, brand: str, material: str) -> str:
    if t.name in ("Single Origin Coffee", "Whole Bean Coffee") and d.chance(0.6):
        return f"{brand} {d.pick(ORIGINS)} {d.pick(dept.lines)} {t.singular}"
    return f"{brand} {d.pick(dept.lines)} {t.singular}"


COFFEE = Department(
    key="coffee", name="Coffee",
    types=(
        _t("Whole Bean Coffee", "Whole Bean Coffee", 3.0, 1.0, "bag_size|grind",
           "de:Kaffeebohnen|es:Café en grano|fr:Café en grains"),
        _t("Ground Coffee", "Ground Coffee", 2.0, 0.95, "bag_size|ground", "de:Gemahlener Kaffee|es:Café molido"),
        _t("Espresso Blends", "Espresso Blend", 1.5, 1.05, "bag_size|grind"),
        _t("Single Origin Coffee", "Single Origin", 2.0, 1.25, "bag_size|grind"),
        _t("Decaf Coffee", "Decaf", 0.8, 1.05, "bag_size"),
        _t("Cold Brew Concentrate", "Cold Brew Concentrate", 0.5, 0.9),
        _t("Coffee Pods", "Coffee Pods", 0.7, 0.8, "pod_count"),
    ),
    brands=words("Ember Roasters|Highland Bean Co|Morning Ritual|Copperkettle|Blue Ridge Roastery|"
                 "Parlour Coffee|Terrace Roasting|Steamline|Fieldnote Coffee"),
    lines=words("House|Breakfast|Midnight|Sunrise|Reserve|Heritage|Daybreak|Velvet|Harvest|Summit"),
    adjectives=words("Smooth|Bold|Bright|Rich|Fruity|Chocolatey"),
    materials=words("arabica|arabica|arabica and robusta"),
    price_median=18.0, price_sigma=0.33,
    axes=(
        Axis("size", SIZE_NAMES, words("250g|340g|500g|1kg"), role="bag_size", steps=(1.0, 1.3, 1.8, 3.2),
             attr="weight_g", attr_values=(250, 340, 500, 1000), ordered=True),
        Axis("grind", words("Grind|grind|GRIND"), words("Whole Bean|Espresso|Filter|French Press|Moka Pot")),
        Axis("grind", words("Grind|grind"), words("Espresso|Filter|French Press|Moka Pot"), role="ground"),
        Axis("size", SIZE_NAMES, words("10 pods|30 pods|60 pods"), role="pod_count", steps=(1.0, 2.6, 4.8),
             attr="pod_count", attr_values=(10, 30, 60), ordered=True),
    ),
    tags=words("coffee|beans|espresso|filter|morning|gift|specialty|roasted to order"),
    features=words("notes of dark chocolate and cherry|a caramel sweetness|bright citrus acidity|"
                   "a syrupy body|hints of toasted almond|a clean, lingering finish"),
    attrs=_coffee, title=_coffee_title, weight=0.8,
)


def _cosmetics(d: Draw, t: ProductType, material: str) -> dict[str, Any]:
    out: dict[str, Any] = {"vegan": d.chance(0.6), "cruelty_free": d.chance(0.85),
                           "fragrance_free": d.chance(0.4)}
    if t.name in ("Face Serums", "Moisturizers", "Sunscreens", "Cleansers"):
        out["skin_type"] = d.pick(("all", "dry", "oily", "combination", "sensitive"))
    if t.name == "Sunscreens" or (t.name == "Moisturizers" and d.chance(0.3)):
        out["spf"] = d.pick((15, 30, 30, 50))
    if t.name == "Foundations":
        out["finish"] = d.pick(("matte", "satin", "dewy"))
    return out


COSMETICS = Department(
    key="cosmetics", name="Cosmetics",
    types=(
        _t("Lipsticks", "Lipstick", 1.5, 0.8, "shade|lip_finish", "fr:Rouges à lèvres"),
        _t("Foundations", "Foundation", 1.5, 1.2, "skin_shade"),
        _t("Face Serums", "Face Serum", 1.5, 1.3, "volume", "fr:Sérums visage"),
        _t("Moisturizers", "Moisturizer", 1.5, 1.0, "volume", "de:Feuchtigkeitscremes"),
        _t("Mascaras", "Mascara", 1.0, 0.7, "lash_shade"),
        _t("Sunscreens", "Sunscreen", 1.0, 0.8, "volume"),
        _t("Cleansers", "Cleanser", 1.0, 0.7, "volume"),
        _t("Eyeshadow Palettes", "Eyeshadow Palette", 0.8, 1.4),
    ),
    brands=words("Lumière Lab|Petal & Pine|Verdant Skin|Glowhaus|Aurelia Beauty|Clearwater Botanicals|"
                 "Maison Rosé"),
    lines=words("Velvet|Dew|Radiance|Pure|Silk|Bloom|Hydra|Matte|Luminous"),
    adjectives=words("Hydrating|Long-Wear|Weightless|Nourishing|Brightening|Gentle"),
    materials=words("botanical|mineral|hyaluronic|vitamin C|ceramide"),
    price_median=28.0, price_sigma=0.45,
    axes=(
        Axis("shade", words("Shade|shade"), words("Rosewood|Nude Beige|Ruby|Coral|Mauve|Berry|Cherry|Plum"),
             max_pick=8),
        Axis("shade", words("Shade|shade"), words("Porcelain|Ivory|Sand|Honey|Caramel|Almond|Chestnut|"
                                                  "Espresso"), role="skin_shade", ordered=True),
        Axis("size", SIZE_NAMES, words("15 ml|30 ml|50 ml"), role="volume", steps=(1.0, 1.6, 2.3),
             attr="volume_ml", attr_values=(15, 30, 50), ordered=True),
        Axis("shade", words("Shade|shade"), words("Black|Brown|Blue"), role="lash_shade"),
        Axis("finish", words("Finish|finish"), words("Matte|Satin|Gloss"), role="lip_finish"),
    ),
    tags=words("beauty|skincare|makeup|clean beauty|gift|travel size|bestseller"),
    features=words("a lightweight, non-greasy texture|long-lasting colour|skin-loving botanicals|"
                   "a buildable formula|dermatologist-tested ingredients"),
    attrs=_cosmetics, weight=0.9,
)


def _yoga(d: Draw, t: ProductType, material: str) -> dict[str, Any]:
    out: dict[str, Any] = {"material": material}
    if "Mat" in t.singular and "Bag" not in t.singular:
        travel = t.name == "Travel Yoga Mats"
        out["thickness_mm"] = 1.5 if travel else d.pick((3, 4, 4.5, 5, 6, 6, 8))
        out["width_cm"] = d.pick((61, 66, 68, 71))
        out["length_cm"] = d.pick((173, 183, 183, 185, 200))
        out["weight_g"] = int(round(d.uniform(700, 1400) if travel else d.uniform(1100, 3600), -1))
        out["non_slip"] = d.chance(0.75)
        out["latex_free"] = material != "natural rubber"
        out["eco_friendly"] = material in ("natural rubber", "cork", "jute") or d.chance(0.15)
    elif t.name in ("Yoga Blocks", "Meditation Cushions", "Yoga Bolsters"):
        out["weight_g"] = int(round(d.uniform(150, 1800), -1))
    return out


YOGA = Department(
    key="yoga", name="Yoga",
    types=(
        _t("Yoga Mats", "Yoga Mat", 4.0, 1.0, "color|thickness",
           "es:Esterillas de yoga|de:Yogamatten|fr:Tapis de yoga"),
        _t("Travel Yoga Mats", "Travel Yoga Mat", 1.0, 0.8, "color|mat_size"),
        _t("Yoga Blocks", "Yoga Block", 1.2, 0.25, "color", "es:Bloques de yoga", mats="cork|foam|bamboo"),
        _t("Yoga Straps", "Yoga Strap", 0.6, 0.2, "color", mats="organic cotton|hemp|nylon"),
        _t("Yoga Bolsters", "Yoga Bolster", 0.7, 0.7, "color", mats="organic cotton|buckwheat hull|foam"),
        _t("Mat Bags", "Yoga Mat Bag", 0.6, 0.45, "color", mats="organic cotton|canvas|recycled polyester"),
        _t("Yoga Towels", "Yoga Towel", 0.7, 0.45, "color|mat_size", mats="microfiber|organic cotton"),
        _t("Meditation Cushions", "Meditation Cushion", 0.5, 0.6, "color", mats="buckwheat hull|organic cotton"),
    ),
    brands=words("Lotus & Oak|Sattva Studio|Groundwork Yoga|Asana Supply|Mandala Mats|Pranaflow|"
                 "Stillpoint|Kinship Yoga"),
    lines=words("Align|Balance|Flow|Root|Rise|Zen|Studio|Pro|Eco|Journey"),
    adjectives=words("Non-Slip|Cushioned|Eco|Lightweight|Grippy|Essential|Studio"),
    materials=words("natural rubber|TPE|cork|PU|PVC|jute"),
    price_median=85.0, price_sigma=0.45,
    axes=(
        Axis("color", COLOR_NAMES, words("Black|Sage|Plum|Ocean Blue|Terracotta|Charcoal|Sand|Lilac|"
                                         "Forest Green|Midnight")),
        Axis("thickness", words("Thickness|thickness|THICKNESS"), words("3mm|4.5mm|6mm|8mm"),
             steps=(0.9, 1.0, 1.1, 1.25), attr="thickness_mm", attr_values=(3, 4.5, 6, 8), ordered=True),
        Axis("size", SIZE_NAMES, words("Standard|Long"), role="mat_size", steps=(1.0, 1.15),
             attr="length_cm", attr_values=(183, 200)),
    ),
    tags=words("yoga|pilates|meditation|studio|home practice|eco|gift|travel"),
    features=words("a grippy, non-slip surface|alignment markings|closed-cell, sweat-resistant layers|"
                   "a carrying strap|joint-friendly cushioning|plant-based materials"),
    attrs=_yoga, weight=1.0,
)


def _pet(d: Draw, t: ProductType, material: str) -> dict[str, Any]:
    cat = "Cat" in t.name
    out: dict[str, Any] = {"pet": "cat" if cat else "dog"}
    if "Food" in t.name or "Treats" in t.name:
        out["life_stage"] = d.pick(("kitten" if cat else "puppy", "adult", "adult", "senior", "all"))
        out["grain_free"] = d.chance(0.4)
    if t.name in ("Dog Beds", "Dog Leashes", "Cat Toys"):
        out["material"] = material
    if t.name == "Dog Beds":
        out["machine_washable"] = d.chance(0.7)
    return out


PET_CARE = Department(
    key="pet_care", name="Pet care",
    types=(
        _t("Dry Dog Food", "Dry Dog Food", 2.0, 1.0, "food_size|flavour",
           "de:Hundetrockenfutter|es:Pienso para perros"),
        _t("Wet Cat Food", "Wet Cat Food", 1.2, 0.6, "flavour", "fr:Pâtée pour chat"),
        _t("Dry Cat Food", "Dry Cat Food", 1.2, 0.9, "food_size|flavour"),
        _t("Dog Treats", "Dog Treats", 1.5, 0.4, "treat_size|flavour"),
        _t("Cat Litter", "Cat Litter", 0.8, 0.6, "litter_size"),
        _t("Dog Beds", "Dog Bed", 1.0, 1.6, "bed_size|color", mats="memory foam|cotton|recycled polyester"),
        _t("Pet Shampoo", "Pet Shampoo", 0.6, 0.4, mats="oatmeal|aloe vera|coconut"),
        _t("Dog Leashes", "Dog Leash", 0.8, 0.6, "bed_size|color", mats="nylon|leather|recycled polyester"),
        _t("Cat Toys", "Cat Toy", 0.6, 0.3, "color", mats="felt|cotton|catnip-filled cotton"),
    ),
    brands=words("Happy Paws|Wildwood Pet|Tailwise|Barkley & Co|Purrfect Day|Northfield Pet Nutrition|"
                 "Whisker Works"),
    lines=words("Adult|Puppy|Senior|Grain-Free|Active|Indoor|Gentle|Natural|Everyday"),
    adjectives=words("Natural|Everyday|Premium|Classic|Gentle"),
    materials=words("chicken|salmon|lamb|turkey"),
    price_median=35.0, price_sigma=0.55,
    axes=(
        Axis("size", SIZE_NAMES, words("1 kg|3 kg|7 kg|12 kg"), role="food_size", steps=(1.0, 2.5, 5.0, 7.5),
             attr="weight_g", attr_values=(1000, 3000, 7000, 12000), ordered=True),
        Axis("flavour", words("Flavour|Flavor|flavour|flavor"), words("Chicken|Salmon|Lamb|Beef|Turkey|Duck"),
             max_pick=4),
        Axis("size", SIZE_NAMES, words("100g|250g|500g"), role="treat_size", steps=(1.0, 2.2, 4.0),
             attr="weight_g", attr_values=(100, 250, 500), ordered=True),
        Axis("size", SIZE_NAMES, words("S|M|L|XL"), role="bed_size", steps=(1.0, 1.2, 1.45, 1.7), ordered=True),
        Axis("color", COLOR_NAMES, words("Black|Red|Navy|Grey|Green|Orange|Pink")),
        Axis("size", SIZE_NAMES, words("5 L|10 L|20 L"), role="litter_size", steps=(1.0, 1.7, 3.0),
             attr="volume_l", attr_values=(5, 10, 20), ordered=True),
    ),
    tags=words("dog|cat|pet food|treats|grain free|vet approved|gift|bestseller"),
    features=words("real meat as the first ingredient|no artificial colours|easy-clean fabric|"
                   "a non-slip base|added omega oils for a glossy coat"),
    attrs=_pet, weight=0.9,
)

CORE = (FOOTWEAR, HOME_TEXTILES, COFFEE, COSMETICS, YOGA, PET_CARE)
"""The capability-v1 departments, in the order the issue lists them."""
