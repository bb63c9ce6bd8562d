"""Further departments used by large synthetic catalogs (``large-v1`` and ``synth``).

Lighter than the core six: each draws a material plus a few choice or boolean
attributes through :func:`_attrs`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .departments import COLOR_NAMES, SIZE_NAMES, _t
from .taxonomy import Axis, Department, Draw, ProductType, words

APPAREL_SIZES = words("XS|S|M|L|XL|XXL")


def _attrs(choices: str = "", flags: str = "", weight: tuple[int, int] | None = None
           ) -> Callable[[Draw, ProductType, str], dict[str, Any]]:
    """Attribute function: ``choices`` is ``"name=a/b/c;name2=x/y"``, ``flags`` ``"name:p|..."``."""
    parsed = [(c.split("=")[0], tuple(c.split("=")[1].split("/"))) for c in choices.split(";") if c]
    bools = [(f.split(":")[0], float(f.split(":")[1])) for f in words(flags)]

    def fn(d: Draw, t: ProductType, material: str) -> dict[str, Any]:
        out: dict[str, Any] = {"material": material}
        for name, options in parsed:
            out[name] = d.pick(options)
        for name, p in bools:
            out[name] = d.chance(p)
        if weight is not None:
            out["weight_g"] = int(round(d.uniform(*weight), -1))
        return out
    return fn


def _dept(key: str, name: str, types: tuple[ProductType, ...], brands: str, lines: str, adjectives: str,
          materials: str, median: float, sigma: float, axes: tuple[Axis, ...], tags: str, features: str,
          attrs: Callable[[Draw, ProductType, str], dict[str, Any]], weight: float) -> Department:
    return Department(key=key, name=name, types=types, brands=words(brands), lines=words(lines),
                      adjectives=words(adjectives), materials=words(materials), price_median=median,
                      price_sigma=sigma, axes=axes, tags=words(tags), features=words(features),
                      attrs=attrs, weight=weight)


COLORS = words("Black|White|Navy|Grey|Beige|Olive|Red|Blue|Green|Pink|Brown|Mustard")
COLOR = Axis("color", COLOR_NAMES, COLORS)
FEATURES = ("built to last|thoughtful details|a clean, modern design|easy care|responsibly sourced "
            "materials|a generous warranty")

MORE = (
    _dept("apparel", "Apparel", (
        _t("T-Shirts", "T-Shirt", 3.0, 0.4, "size|color", "de:T-Shirts|es:Camisetas|fr:T-shirts"),
        _t("Hoodies", "Hoodie", 2.0, 0.9, "size|color", "es:Sudaderas"),
        _t("Jeans", "Jeans", 2.0, 1.0, "size|color", "fr:Jeans"),
        _t("Dresses", "Dress", 2.0, 1.1, "size|color", "es:Vestidos|fr:Robes"),
        _t("Jackets", "Jacket", 1.5, 1.8, "size|color", "de:Jacken"),
        _t("Socks", "Socks", 1.5, 0.2, "size|color", "de:Socken"),
        _t("Leggings", "Leggings", 1.5, 0.7, "size|color")),
        "Fernhill|Ashby & Lane|Coastline Apparel|Woolmark Row|Thread & Co|Kindred Cloth|Everlane Row|Saltmarsh",
        "Essential|Weekend|Heritage|Studio|Trail|Classic|Relaxed|Slim", "Organic|Relaxed|Slim-Fit|Oversized|"
        "Lightweight|Heavyweight", "cotton|organic cotton|merino wool|linen|denim|recycled polyester|modal",
        55.0, 0.6, (Axis("size", SIZE_NAMES, APPAREL_SIZES, ordered=True), COLOR),
        "men|women|unisex|basics|sale|new arrival|organic", FEATURES,
        _attrs("fit=regular/slim/relaxed;care=machine wash/hand wash", "organic:0.2"), 3.0),
    _dept("kitchen", "Kitchen", (
        _t("Chef Knives", "Chef Knife", 1.5, 1.2, "blade", "de:Kochmesser"),
        _t("Frying Pans", "Frying Pan", 2.0, 1.0, "pan_size", "es:Sartenes|fr:Poêles"),
        _t("Cutting Boards", "Cutting Board", 1.5, 0.6, "board_size"),
        _t("Mixing Bowls", "Mixing Bowl Set", 1.0, 0.6, "color"),
        _t("Kettles", "Kettle", 1.0, 1.1, "color", "de:Wasserkocher"),
        _t("Storage Jars", "Storage Jar Set", 1.0, 0.5, "board_size|color")),
        "Forge & Field|Copperline|Mesa Kitchen|Oakhearth|Saltbox|Kitchenary|Cask & Crumb",
        "Pro|Classic|Everyday|Chef|Artisan|Heritage", "Nonstick|Forged|Cast Iron|Stainless|Handmade",
        "stainless steel|cast iron|carbon steel|bamboo|olive wood|ceramic|glass|enamel", 45.0, 0.6,
        (Axis("size", SIZE_NAMES, words("20 cm|24 cm|28 cm|32 cm"), role="pan_size", steps=(1.0, 1.2, 1.4, 1.6),
              attr="diameter_cm", attr_values=(20, 24, 28, 32), ordered=True),
         Axis("size", SIZE_NAMES, words("Small|Medium|Large"), role="board_size", steps=(1.0, 1.3, 1.6),
              ordered=True), COLOR,
         Axis("size", SIZE_NAMES, words("15 cm|20 cm|25 cm"), role="blade", steps=(1.0, 1.2, 1.4),
              attr="blade_cm", attr_values=(15, 20, 25), ordered=True)),
        "kitchen|cookware|gift|chef|baking|dishwasher safe", FEATURES,
        _attrs("", "dishwasher_safe:0.5|induction_compatible:0.5", (200, 2500)), 1.6),
    _dept("tea", "Tea", (
        _t("Loose Leaf Tea", "Loose Leaf Tea", 2.0, 1.0, "tea_size", "de:Loser Tee|fr:Thé en vrac"),
        _t("Tea Bags", "Tea Bags", 2.0, 0.7, "bag_count"),
        _t("Matcha", "Matcha", 1.0, 1.6, "tea_size"),
        _t("Herbal Tea", "Herbal Tea", 1.5, 0.8, "tea_size", "de:Kräutertee|es:Infusiones"),
        _t("Chai", "Chai Blend", 0.8, 0.9, "tea_size")),
        "Leaf & Kettle|Misty Peak Tea|Steep Society|Jade Terrace|Chamomile House|Teaworks",
        "Morning|Garden|Imperial|Evening|Mountain|Harvest", "Organic|Smoky|Floral|Calming|Bold",
        "black tea|green tea|oolong|white tea|rooibos|chamomile|peppermint", 16.0, 0.4,
        (Axis("size", SIZE_NAMES, words("50g|100g|250g"), role="tea_size", steps=(1.0, 1.7, 3.6),
              attr="weight_g", attr_values=(50, 100, 250), ordered=True),
         Axis("size", SIZE_NAMES, words("20 bags|50 bags|100 bags"), role="bag_count", steps=(1.0, 2.2, 4.0),
              ordered=True)),
        "tea|organic|caffeine free|gift|wellness", FEATURES,
        _attrs("caffeine=none/low/medium/high", "organic:0.4"), 0.7),
    _dept("electronics_accessories", "Electronics accessories", (
        _t("Phone Cases", "Phone Case", 3.0, 0.5, "screen|color", "de:Handyhüllen|es:Fundas de móvil"),
        _t("Chargers", "Charger", 2.0, 0.7, "power"),
        _t("Headphones", "Headphones", 1.5, 2.5, "color", "de:Kopfhörer|es:Auriculares"),
        _t("USB Cables", "USB-C Cable", 1.5, 0.3, "cable_length"),
        _t("Power Banks", "Power Bank", 1.0, 1.0, "color"),
        _t("Watch Bands", "Watch Band", 1.0, 0.6, "color")),
        "Voltwell|Amplio|Circuit & Co|Nimbus Audio|Pocketgrid|Lumaforge|Wavecraft",
        "Pro|Mini|Max|Air|Go|Flex|Ultra", "Wireless|Fast-Charging|Slim|Rugged|Magnetic|Braided",
        "silicone|aluminium|nylon|leather|polycarbonate|TPU", 30.0, 0.7,
        (COLOR, Axis("size", SIZE_NAMES, words("1 m|2 m|3 m"), role="cable_length", steps=(1.0, 1.3, 1.6),
                     attr="length_cm", attr_values=(100, 200, 300), ordered=True),
         Axis("size", SIZE_NAMES, words("5.8 in|6.1 in|6.4 in|6.7 in"), role="screen", ordered=True),
         Axis("power", words("Power|power|Wattage"), words("20W|30W|45W|65W|100W"), steps=(1.0, 1.2, 1.5, 1.8, 2.4),
              attr="watts", attr_values=(20, 30, 45, 65, 100), ordered=True)),
        "tech|accessories|wireless|fast charging|gift", FEATURES,
        _attrs("connector=USB-C/Lightning/USB-A", "wireless:0.3", (20, 400)), 1.8),
    _dept("outdoor", "Outdoor", (
        _t("Tents", "Tent", 1.0, 3.0, "tent_size", "de:Zelte|fr:Tentes"),
        _t("Sleeping Bags", "Sleeping Bag", 1.0, 1.8, "color", "de:Schlafsäcke"),
        _t("Backpacks", "Backpack", 2.0, 1.4, "capacity|color", "de:Rucksäcke|es:Mochilas|fr:Sacs à dos"),
        _t("Water Bottles", "Water Bottle", 2.0, 0.4, "bottle_size|color", "es:Botellas de agua"),
        _t("Headlamps", "Headlamp", 1.0, 0.6, "color"),
        _t("Camping Chairs", "Camping Chair", 0.8, 0.9, "color")),
        "Ridgeline|Northbound|Alpenglow|Cairn & Co|Wildpath|Basecamp Supply|Timberline",
        "Trek|Summit|Ranger|Explorer|Scout|Alpine|Venture", "Ultralight|Waterproof|Insulated|Packable|Rugged",
        "ripstop nylon|polyester|stainless steel|aluminium|down|synthetic insulation", 70.0, 0.75,
        (Axis("size", SIZE_NAMES, words("1 person|2 person|4 person"), role="tent_size", steps=(1.0, 1.4, 2.1),
              attr="capacity_people", attr_values=(1, 2, 4), ordered=True),
         Axis("size", SIZE_NAMES, words("20 L|30 L|40 L"), role="capacity", steps=(1.0, 1.2, 1.4),
              attr="volume_l", attr_values=(20, 30, 40), ordered=True),
         Axis("size", SIZE_NAMES, words("500 ml|750 ml|1 L"), role="bottle_size", steps=(1.0, 1.15, 1.3),
              attr="volume_ml", attr_values=(500, 750, 1000), ordered=True), COLOR),
        "outdoor|camping|hiking|travel|waterproof|gift", FEATURES,
        _attrs("season=3-season/4-season/summer", "waterproof:0.5", (100, 4000)), 1.5),
    _dept("toys", "Toys", (
        _t("Building Sets", "Building Set", 1.5, 1.2, "", "de:Bausätze"),
        _t("Plush Toys", "Plush Toy", 1.5, 0.5, "color", "es:Peluches|fr:Peluches"),
        _t("Puzzles", "Puzzle", 1.5, 0.6, "pieces|color", "de:Puzzles"),
        _t("Board Games", "Board Game", 1.5, 1.0, "", "de:Brettspiele|es:Juegos de mesa"),
        _t("Wooden Toys", "Wooden Toy", 1.0, 0.8, "")),
        "Little Oak|Playwell|Brightbox Toys|Marble & Kite|Tinker Lane|Puddle Jump",
        "Adventure|Classic|Discovery|Junior|Family|Explorer", "Wooden|Cuddly|Educational|Classic|Giant",
        "wood|cardboard|plush|recycled plastic|cotton", 28.0, 0.55,
        (COLOR, Axis("size", SIZE_NAMES, words("500 pieces|1000 pieces|1500 pieces"), role="pieces",
                     steps=(1.0, 1.3, 1.6), attr="piece_count", attr_values=(500, 1000, 1500), ordered=True)),
        "kids|toys|gift|educational|family|christmas", FEATURES,
        _attrs("age_range=0-2/3-5/6-8/9-12/teen/adult", "battery_free:0.8"), 1.2),
    _dept("jewelry", "Jewelry", (
        _t("Necklaces", "Necklace", 1.5, 1.0, "chain|metal", "es:Collares|fr:Colliers"),
        _t("Earrings", "Earrings", 1.5, 0.7, "metal", "de:Ohrringe"),
        _t("Rings", "Ring", 1.5, 0.9, "ring_size|metal", "fr:Bagues"),
        _t("Bracelets", "Bracelet", 1.2, 0.8, "ring_size|metal")),
        "Aurum & Ivy|Silverleaf|Maren Atelier|Golden Hour Studio|Lune Jewels|Petra & Co",
        "Celeste|Luna|Aria|Solstice|Ember|Isla", "Dainty|Minimalist|Statement|Vintage|Handmade",
        "sterling silver|gold vermeil|14k gold|stainless steel|brass", 60.0, 0.8,
        (Axis("metal", words("Metal|metal|Finish"), words("Gold|Silver|Rose Gold")),
         Axis("size", SIZE_NAMES, words("5|6|7|8|9|10"), role="ring_size", ordered=True),
         Axis("length", words("Length|length|Chain Length"), words("40 cm|45 cm|50 cm|60 cm"), role="chain",
              attr="length_cm", attr_values=(40, 45, 50, 60), ordered=True)),
        "jewelry|gift|handmade|minimalist|wedding", FEATURES,
        _attrs("stone=none/pearl/diamond/opal/sapphire", "hypoallergenic:0.6"), 1.3),
    _dept("home_decor", "Home decor", (
        _t("Candles", "Candle", 2.0, 0.6, "candle_size|scent", "de:Kerzen|es:Velas|fr:Bougies"),
        _t("Vases", "Vase", 1.2, 0.8, "color", "fr:Vases"),
        _t("Wall Art", "Art Print", 1.5, 1.0, "print_size|color", "de:Wandbilder"),
        _t("Cushion Covers", "Cushion Cover", 1.5, 0.5, "color", "de:Kissenbezüge|fr:Housses de coussin"),
        _t("Rugs", "Rug", 1.0, 2.2, "rug_size|color", "es:Alfombras|fr:Tapis")),
        "Hollow Pine|Atelier Nord|Ember & Wick|Claystone|Juniper House|Loomcraft",
        "Nordic|Coastal|Botanical|Terra|Haven|Dune", "Handmade|Minimal|Boho|Textured|Scented",
        "soy wax|ceramic|glass|jute|wool|cotton|stoneware", 40.0, 0.7,
        (Axis("scent", words("Scent|scent|Fragrance"), words("Fig|Cedarwood|Lavender|Sea Salt|Amber|Vanilla")),
         Axis("size", SIZE_NAMES, words("Small|Medium|Large"), role="candle_size", steps=(1.0, 1.6, 2.4),
              ordered=True),
         Axis("size", SIZE_NAMES, words("A4|A3|50 x 70 cm"), role="print_size", steps=(1.0, 1.5, 2.2),
              ordered=True),
         Axis("size", SIZE_NAMES, words("120 x 170 cm|160 x 230 cm|200 x 300 cm"), role="rug_size",
              steps=(1.0, 1.7, 2.6), ordered=True), COLOR),
        "home|decor|gift|living room|handmade|cosy", FEATURES, _attrs("style=modern/boho/classic/rustic"), 1.4),
    _dept("supplements", "Supplements", (
        _t("Protein Powder", "Protein Powder", 2.0, 1.2, "powder_size|flavour", "de:Proteinpulver"),
        _t("Multivitamins", "Multivitamin", 1.5, 0.6, "count|flavour", "es:Multivitamínicos"),
        _t("Collagen", "Collagen Powder", 1.0, 1.1, "powder_size"),
        _t("Omega-3", "Omega-3 Softgels", 1.0, 0.7, "count")),
        "Vitalis|Purely Nourish|Greenfield Labs|Ironwood Nutrition|Bloom & Root",
        "Daily|Active|Complete|Pure|Plant|Performance", "Plant-Based|Unflavoured|High-Strength|Vegan",
        "whey|pea protein|fish oil|bovine collagen|algae", 32.0, 0.45,
        (Axis("size", SIZE_NAMES, words("500g|1kg|2kg"), role="powder_size", steps=(1.0, 1.8, 3.2),
              attr="weight_g", attr_values=(500, 1000, 2000), ordered=True),
         Axis("flavour", words("Flavour|Flavor|flavour"), words("Vanilla|Chocolate|Strawberry|Unflavoured")),
         Axis("size", SIZE_NAMES, words("60 capsules|120 capsules"), role="count", steps=(1.0, 1.8),
              ordered=True)),
        "wellness|fitness|vegan|gluten free|supplement", FEATURES, _attrs("", "vegan:0.4|gluten_free:0.7"), 1.0),
    _dept("bags", "Bags", (
        _t("Tote Bags", "Tote Bag", 1.5, 0.6, "color", "fr:Sacs cabas"),
        _t("Wallets", "Wallet", 1.5, 0.5, "color", "de:Geldbörsen|es:Carteras"),
        _t("Crossbody Bags", "Crossbody Bag", 1.2, 1.0, "color"),
        _t("Duffel Bags", "Duffel Bag", 1.0, 1.4, "color")),
        "Satchel & Sons|Canvas Row|Harbor Leather|Wayfarer Goods|Mori Bags",
        "City|Weekender|Daily|Voyager|Classic", "Leather|Waxed|Recycled|Compact|Vegan",
        "leather|waxed canvas|recycled nylon|cork|vegan leather", 65.0, 0.65, (COLOR,),
        "bags|travel|gift|leather|everyday", FEATURES, _attrs("", "vegan:0.3", (100, 1500)), 1.1),
    _dept("garden", "Garden", (
        _t("Planters", "Planter", 1.5, 0.7, "pot_size|color", "de:Pflanzgefäße|fr:Jardinières"),
        _t("Seed Kits", "Seed Kit", 1.0, 0.4, ""),
        _t("Garden Tools", "Garden Trowel", 1.5, 0.5, ""),
        _t("Watering Cans", "Watering Can", 0.8, 0.7, "color"),
        _t("Hoses", "Garden Hose", 0.8, 0.9, "hose_length")),
        "Greenthumb|Potting Shed Co|Fern & Fennel|Wildroot|Hedgerow Supply",
        "Heritage|Urban|Cottage|Grow|Harvest", "Self-Watering|Heavy-Duty|Organic|Compact",
        "terracotta|ceramic|galvanised steel|recycled plastic|stainless steel", 30.0, 0.6,
        (Axis("size", SIZE_NAMES, words("15 cm|20 cm|30 cm"), role="pot_size", steps=(1.0, 1.4, 2.0),
              attr="diameter_cm", attr_values=(15, 20, 30), ordered=True),
         Axis("size", SIZE_NAMES, words("15 m|25 m|30 m"), role="hose_length", steps=(1.0, 1.4, 1.6),
              ordered=True), COLOR),
        "garden|outdoor|plants|gift|spring", FEATURES, _attrs("", "frost_resistant:0.4"), 0.9),
    _dept("baby", "Baby", (
        _t("Baby Bodysuits", "Baby Bodysuit", 1.5, 0.5, "baby_size|color", "fr:Bodies bébé"),
        _t("Baby Blankets", "Baby Blanket", 1.0, 0.8, "color"),
        _t("Baby Bottles", "Baby Bottle Set", 1.0, 0.6, ""),
        _t("Teethers", "Teether", 0.8, 0.3, "color")),
        "Little Sprout|Cradle & Co|Dewdrop Baby|Moonbeam Kids|Pebble & Pip",
        "First|Cloud|Snuggle|Dream|Tiny", "Organic|Soft|Gentle|Cosy", "organic cotton|bamboo|muslin|silicone",
        25.0, 0.5, (Axis("size", SIZE_NAMES, words("0-3M|3-6M|6-12M|12-18M"), role="baby_size", ordered=True),
                    COLOR),
        "baby|newborn|gift|organic|nursery", FEATURES, _attrs("", "organic:0.5|bpa_free:0.9"), 0.9),
    _dept("fitness", "Fitness", (
        _t("Dumbbells", "Dumbbell Pair", 1.5, 1.0, "dumbbell_weight", "de:Hanteln|es:Mancuernas"),
        _t("Resistance Bands", "Resistance Band Set", 1.5, 0.4, "", mats="latex|fabric"),
        _t("Kettlebells", "Kettlebell", 1.0, 1.2, "kettlebell_weight"),
        _t("Jump Ropes", "Jump Rope", 0.8, 0.3, "color", mats="PVC|steel cable|leather"),
        _t("Foam Rollers", "Foam Roller", 0.8, 0.5, "color", mats="EVA foam|cork")),
        "Ironclad|Flexcore|Motive Fitness|Forge Athletics|Kinetic Supply",
        "Pro|Home|Studio|Elite|Core", "Adjustable|Rubber-Coated|Heavy-Duty|Compact",
        "cast iron|neoprene|rubber|steel|EVA foam", 40.0, 0.7,
        (Axis("weight", words("Weight|weight"), words("2 kg|4 kg|6 kg|8 kg|10 kg"), role="dumbbell_weight",
              steps=(1.0, 1.6, 2.2, 2.8, 3.4), attr="weight_kg", attr_values=(2, 4, 6, 8, 10), ordered=True),
         Axis("weight", words("Weight|weight"), words("8 kg|12 kg|16 kg|20 kg"), role="kettlebell_weight",
              steps=(1.0, 1.4, 1.8, 2.2), attr="weight_kg", attr_values=(8, 12, 16, 20), ordered=True), COLOR),
        "fitness|home gym|strength|training|gift", FEATURES, _attrs("level=beginner/intermediate/advanced"),
        1.0),
    _dept("stationery", "Stationery", (
        _t("Notebooks", "Notebook", 2.0, 0.6, "ruling|color", "de:Notizbücher|fr:Carnets"),
        _t("Pens", "Pen Set", 1.5, 0.5, "tip|color", "es:Bolígrafos"),
        _t("Planners", "Planner", 1.0, 0.9, "color"),
        _t("Sketchbooks", "Sketchbook", 1.0, 0.7, "")),
        "Papergrove|Inkwell & Co|Quillstone|Margin Notes|Foxley Paper",
        "Classic|Studio|Daily|Field|Pocket", "Dotted|Hardcover|Recycled|Refillable",
        "recycled paper|cotton paper|leather|linen", 18.0, 0.5,
        (Axis("ruling", words("Ruling|Paper|ruling"), words("Lined|Dotted|Blank|Grid")), COLOR,
         Axis("tip", words("Tip|tip|Nib"), words("0.3 mm|0.5 mm|0.7 mm|1.0 mm"), ordered=True)),
        "stationery|office|gift|journaling|back to school", FEATURES, _attrs("paper_gsm=80/100/120/160"), 0.8),
)
"""Departments added to the core six in large catalogs."""
