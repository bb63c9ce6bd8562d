"""The words the privacy guard reads around a number: currencies, units, identifiers, comparisons.

Kept apart from the parsing code so that the vocabulary can grow without touching the logic.
Every entry is lower case (the guard folds case before reading).
"""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    """The whitespace-separated words of ``text``."""
    return frozenset(text.split())


CURRENCY_SYMBOLS = frozenset("$€£¥₹₩₽₺₪฿₫₱₦₴₡₭₮₲₵₸")
"""Symbols that make the number next to them an amount of money."""

CURRENCY_WORDS = _words("""
aud big bills bones brl buck bucks bux cad cash chf clams cny dinero dineros dkk dolla dollar
dollarinos dollars dollarydoos dollarz dollas dollaz eur euro euros franc francs frogskins gbp
greenbacks hkd inr jpy krw loonies money moolah mxn nok nzd peso pesos pound pounds quid rmb rs
rupee rupees sek sgd shekels simoleons smackeroos smackers spondulicks sterling toonies usd
yen yuan zar kr kn zl pln czk huf rub uah thb php idr myr vnd aed sar ils egp ngn kes ars clp cop
lei lev
""")
"""Words that make the number before (or after) them an amount of money."""

MONEY_MORPHEMES = ("doll", "buck", "smack", "simolean", "simoleon", "greenback", "dinero", "euro")
"""Stems of currency slang, so that new spellings (``dollaroos``) are still read as money."""

CENTS_WORDS = frozenset({"cents", "cent", "¢", "pennies", "penny", "c", "ct", "cts"})
"""Words that make the number before them a count of cents (``c``/``ct`` only when attached)."""

PERCENT_WORDS = frozenset({"%", "percent", "pct", "percentage", "percentile", "pc"})

DURATION_WORDS = _words("""
am apr april aug august business calendar d day days dec decade decades december feb february h
hour hours hr hrs jan january jul july jun june mar march min mins minute minutes mo month
months mos ms night nights nov november o'clock oclock oct october pm s sec second seconds secs
sep sept september week weekend weekends weeks wk wks working y year years yr yrs
""")
"""Time spans and times of day (``90 days``, ``10 am``)."""

UNIT_WORDS = _words("""
acre acres ah amp amps answer answers available awg bag bags bar bars bean beans bed beds bit
bits blade blades bottle bottles box boxes bpm branch branches btu btus bulb bulbs bundle
bundles button buttons buyer buyers byte bytes cal call calls calorie calories can cans capsule
capsules carton cartons case cases cc cell cells celsius cfm chapter chapters character
characters charge charges cities city cl click clicks client clients cm coil coils color colors
colour colours column columns comment comments copies copy count countries country cpm crate
crates cri ct cup cups customer customers cycle cycles db dba dbs deg degree degrees denier
design designs dl download downloads dozen dozens dpi edition editions email emails employee
employees entries entry episode episodes ev f fahrenheit fan fans feature features feet file
files fl flavor flavors flavour flavours floors floz fold follower followers foot fps ft
function functions g gal gallon gallons game games gauge gauges gb gbps ghz gpm gr gram grams
grit gsm guest guests hectare hectares hole holes hp hz image images in-stock inch inches
install installs instock iso issue issues item items jar jars kb kbps kcal kelvin key keys kg
kgs khz kilo kilogram kilograms kilos kit kits kj km kmh knot knots kohm kpa kph kw kwh l lap
laps layer layers lb lbs led leds left letter letters level levels like likes line lines listing
listings liter liters litre litres lm location locations lot lots lpi lpm ltr lumen lumens lux m
ma mah match matches mb mbps mcg megapixel megapixels member members message messages mg mhz mi
micron microns mile miles mils ml mm mode model models modes mohm mp mpg mph mw nit nits nm ohm
ohms option options order orders ounce ounces oz p pack packet packets packs page pages pair
pairs pallet pallets pattern patterns pb pc pcs people person persons photo photos picture
pictures piece pieces pint pints pixel pixels pk player players ply pod pods point points port
ports ppb ppi ppm product products psi px qt qty quart quarts question questions rating ratings
reader readers recipe recipes record records remaining rep replies reply reps review reviewer
reviewers reviews roll rolls room rooms round rounds row rows rpm rps sale sales sample samples
scent scents seat seats seller sellers serving servings set sets setting settings shade shades
sheet sheets shop shopper shoppers shops shot shots size sizes sku skus slice slices sold sones
song songs speed speeds spoke spokes sq sqft sqm staff star stars state states step steps stitch
stitches stock store stores storey storeys stories story strand strands style styles subscriber
subscribers table tables tablet tablets tb tc teeth test tests thread thread- threads ticket
tickets times ton tonne tonnes tons tooth tpi track tracks trial trials tube tubes um unit units
use user users uses v variant variants video videos view viewer viewers views visitor visitors
volt volts volume volumes vote votes w warehouse warehouses wash washes watt watts wh word words
worker workers wpm x yard yards yd yds year-old years-old yo ° °c °f µ μ ω ′ ″ ℃ ℉
""")
"""Words that bind the number before them to a unit, a count or a measure (not money)."""

COUNT_SUFFIXES = ("ers", "ors", "ists", "ians", "ees", "ings", "tions", "sions", "ments", "nesses", "ities")
"""Plural noun endings read as "a count of things" after a number (``100 subscribers``)."""

VERBISH = _words("""
always answers apiece applies beats bothers brings bucks buys cents clears closes comes
considers counts covers delivers delivery differs does dollars earnings ends enters extras feels
fees fits functions gathers gets gives goes handling happens has helps hits holds hovers
includes its keeps lands leaves lets looks lowers makes matters means mentions moves needs nets
offers pays pennies perhaps plus postage prefers puts questions quid reaches registers remains
remembers renders satisfies savings says seals seems settles shipping shows sits sounds stands
starts stays sticks suffers suffices suits takes tax taxes thanks things this thus tops totals
unless vat wants was wavers wins works yes
""")
"""Words that look like plural nouns but follow a price as verbs or adverbs (``100 works for me``)."""

NOT_UNITS = frozenset({"pls", "plz", "thx", "thnx", "btw", "tbh", "imo", "fyi", "nvm", "idk", "ty",
                       "np", "sry", "hmm", "ppl", "vs", "xx", "smh", "lmk", "asap", "rn", "fr", "frfr",
                       "ngl", "jk", "tbf", "imho", "k", "kk", "cc", "ps", "nb", "wrt", "tx", "cpl", "pp", "ppp"})

PRICE_ABBREVIATIONS = frozenset({"msrp", "rrp", "srp", "mrp", "obo", "ono", "otd", "ppu"})
"""Abbreviations of prices: the number next to them is money (``MSRP 100``)."""
"""Short vowel-less words after a number that are not units (``100 pls``)."""


PRICE_FOLLOWERS = _words("""
a an the and or but for per each to in on at by with from of is are was be it that this will would
can could should if so then than as even flat firm max maximum min minimum tops total all only just
exactly ish approx roughly about around plus minus off final net gross shipped delivered included
including incl inc cash upfront now today tomorrow please pls ok okay deal no not never more less
i you we they he she me my your our their who which when because since while though although
""")
"""Words after a price that keep it a price even before a unit (``100 for both units``)."""

STREET_WORDS = frozenset({"street", "st", "avenue", "ave", "road", "rd", "boulevard", "blvd", "lane", "ln",
                          "drive", "dr", "way", "court", "ct", "place", "pl", "parkway", "pkwy", "highway"})
"""Second word after a house number (``100 Main Street``)."""

RELATIVE_AFTER = frozenset({"more", "extra", "additional", "another", "others", "spare", "spares"})
"""Words after a number that make it an increment or a count, not an amount (``95 more``)."""

ID_WORDS = _words("""
account acct age aged ages aisle all android appendix apr april apt area aug august batch bay
bin bldg bluetooth bug build building case cat catch category ch channel chapter claim class
code config covid customer day dec december district dock edition episode exit feb february
firmware flight galaxy gate gen generation grade group hdmi highway hwy id ids interstate
invoice ios ip iphone iso issue item jan january jul july jun june level listing listings lot
macos mar march mark member mk model mp no. nos nov november nr num number numbers oct october
opt option order orders p package page para paragraph parcel part pg phase pid pin pixel place
platform po pos position postcode pr ps pt q question rank ranked ranking rated receipt ref
reference region release rev revision rma room route row scored season seat sec section sep sept
september serial series shelf shipment sid size sku skus slot sn spf spot stage step store suite
sz table team ticket tier top track tracking type uid usb user v variant ver version vol volume
ward warehouse week wifi windows xbox year zip zipcode zone
""")
"""Words that make the number after them an identifier, rank, size or quantity (not money)."""

MEASURE_NOUNS = _words("""
count weight weighs weigh capacity size length width height depth diameter thickness speed power
wattage voltage resolution temperature temp volume battery rating score rank ranking year quantity
qty stock inventory dimensions dimension range distance mileage runtime brightness
""")
"""Nouns that make ``<noun> is 3350`` a measurement, not a price."""

YEAR_BEFORE = frozenset({"in", "since", "from", "circa", "year", "founded", "established", "est",
                         "until", "till", "built", "made", "vintage", "back"})
"""Words before a four-digit year (``founded in 1899``)."""

QUANTITY_VERBS = frozenset({"order", "ordering", "ordered", "restock", "restocking", "stock", "stocking",
                            "qty", "quantity", "quantities", "moq", "ship", "shipping", "packs",
                            "first", "last", "next", "another", "additional", "extra"})
"""Words before a number that count things rather than price them."""

CONTAINER_WORDS = frozenset({"pack", "box", "set", "case", "bundle", "batch", "carton", "bag", "packet",
                             "pallet", "crate", "roll", "kit", "lot", "group", "series", "run",
                             "lots", "batches", "orders"})
"""Containers in ``a pack of 100``: with ``of`` before the number they make it a count."""

OF_COUNTED = frozenset({"them", "these", "those", "the", "each", "it", "its", "their", "our", "your",
                        "his", "her", "all", "us", "you", "which", "whom", "stock", "inventory"})
"""Words after ``100 of`` that make it a count (``100 of them``)."""

SCORE_BEFORE = frozenset({"out", "outta"})
"""``out of 100``."""

RANK_AFTER = frozenset({"best", "most", "top", "greatest", "largest", "biggest", "worst", "finest",
                        "bestselling", "best-selling", "percentile", "proof", "series", "edition",
                        "model", "version"})
"""Words after a number that make it a rank or a name (``the 100 best``)."""

SCALE_SUFFIXES = {"k": 1000, "thousand": 1000, "thou": 1000, "grand": 1000, "g": None, "m": None,
                  "mil": 10**6, "million": 10**6, "mn": 10**6, "mm": None, "bn": 10**9,
                  "billion": 10**9, "hundred": 100}
"""Multipliers written after a number (``0.1k``, ``1.3 grand``); None means "not a multiplier"."""

COMPARE_DOWN = frozenset({"under", "below", "beneath", "sub", "short", "shy", "less", "lower",
                          "cheaper", "south", "off", "fewer", "<"})
COMPARE_LINK = frozenset({"than", "of"})
"""Second words of two-word comparisons (``less than``, ``short of``)."""

NARROWING = frozenset({"just", "barely", "slightly", "hair", "tad", "touch", "smidge", "smidgen",
                       "whisker", "fractionally", "marginally", "right", "bit", "little", "shade",
                       "fraction", "notch", "nudge", "hairs", "squeak", "teensy", "tiny", "only",
                       "scarcely", "hardly"})
"""Adverbs that make ``under 101`` mean ``100``: the next step below at the written precision."""


APPROX_WORDS = frozenset({"ish", "about", "around", "roughly", "approximately", "approx", "circa", "ca",
                          "some", "~"})

ARITHMETIC_TRIGGERS = frozenset({"+", "-", "*", "/", "^", "x", "plus", "minus", "times", "less", "multiplied",
                                 "divided", "power", "and"})
"""Signs and words that can join two numbers into a sum, difference, product, quotient or power."""
UNARY_TRIGGERS = frozenset({"half", "twice", "double", "triple", "thrice", "quarter", "doubled", "halved",
                            "squared"})
"""Words that scale one number (``half of 200``, ``ten squared``)."""
COMPARE_TRIGGERS = frozenset({"under", "below", "beneath", "sub", "<", ">", "over", "above", "past", "beyond",
                              "less", "more", "lower", "higher", "greater", "cheaper", "fewer", "pricier",
                              "dearer", "short", "shy", "north", "south"})
"""Words that can start a narrowing comparison (``just under 101``, ``a dollar short of 101``)."""
