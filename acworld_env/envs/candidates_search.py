"""Menu slot builders for structured searches built from the request's words and the catalog words seen.

With ``hints`` off, an agent knows a shopper's requirements only as words ("cruelty-free", "made by
Ember Roasters", "within a budget of $27"); a search filter needs the catalog's own vocabulary
(category ``Cosmetics``, attribute ``cruelty_free``, brand ``Ember Roasters``). These builders read only
:class:`~acworld_env.envs.known.Known`: the request, the structured hints when the env gives them,
the agent's own last action, and the *facets* (category, brand, attributes, options) of the listings
its own searches and reads showed. A word becomes a filter only when the request says a value or key
the agent has seen on a listing of the item's product type.

* ``search:noun``: the item the request names (the words before its first colon, after the last
  article: "a bag of whole-bean coffee"), as text, in stock, a full page: the page that shows the
  catalog's words for that item;
* ``search:type``: the item's category and product type (the seen product type whose words best
  match the item's), in stock, under the request's budget, cheapest first, a full page;
* ``search:words``: that, plus every requirement the request states in catalog words: flags
  (``eco_friendly`` as "eco-friendly"), attribute and option values seen on the item's listings
  ("a medium roast", "in the shade Ruby"), a brand seen, a minimum rating ("rated at least 4.5
  stars"), a bound on a measured attribute ("at least 6 mm thick");
* ``search:words-unbounded``: the same without the budget (the closest matches over budget);
* ``answer:last-read``: answer with the listing the agent's own last action read;
* ``search:refine[j]``: the agent's last structured search (else ``search:type``'s, or the hints'
  item filters) plus its ``j``-th candidate filter not already in it: first the hints' own attribute
  and option filters (when hints are on), then the flags, attribute values and option values seen on
  the item's listings (fewest distinct values first). Vague words ("safe for my latex allergy") map
  to no catalog word; narrowing one filter at a time is how an agent reformulates.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from ..vcp import VCPAction, parse_action
from .known import Known

Builder = Callable[[Known, int], "dict[str, Any] | None"]
PAGE = 50
N_REFINE = 24
"""Candidate filters the menu can add to the last structured search."""
LOOKUP_FIRST = ("search:noun", "search:type")
"""Read-only search slots that show the catalog's words for the requested item, in the order a replay
should try them before a structured search it cannot yet express (see ``wrappers/menu_coverage.py``)."""
_CONTAINERS = {"bag", "bags", "pair", "of", "set"}
_BUDGET = re.compile(r"\$(\d[\d,]*(?:\.\d\d)?)")


@lru_cache(maxsize=4096)
def _parses(action_json: str) -> bool:
    return isinstance(parse_action(json.loads(action_json)), VCPAction)


def valid_action(action: dict[str, Any]) -> dict[str, Any] | None:
    """``action`` when it parses as a VCP action (checked once per distinct action), else None."""
    return action if _parses(json.dumps(action, sort_keys=True)) else None


def _cache(k: Known) -> dict[str, Any]:
    """Scratch kept on ``k`` while the request, the hints and the listings seen stay the same (the
    vocabulary, the worded requirements and the candidate filters are computed once for them)."""
    if "search_cache" in k.memo:
        return k.memo["search_cache"]
    listings = k["listings"]
    key = (k.request, repr(k.hints.get("filters")), len(listings), sum(1 for r in listings.values() if "facets" in r))
    store = getattr(k, "_search_cache", None)
    if store is None or store["key"] != key:
        store = {"key": key}
        k._search_cache = store  # type: ignore[attr-defined]
    k.memo["search_cache"] = store
    return store


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


@lru_cache(maxsize=256)
def noun(request: str) -> str | None:
    """The item a request names: its words before the first colon, after the last "a"/"an", containers dropped."""
    head = request.split(":", 1)[0] if ":" in request else ""
    parts = re.split(r"\b(?:an?)\s+", head)
    if len(parts) < 2:
        return None
    words = [w for w in re.findall(r"[A-Za-z]+", parts[-1].replace("-", " ")) if w.lower() not in _CONTAINERS]
    return " ".join(words) or None


def search_noun(k: Known, _: int) -> dict[str, Any] | None:
    """Search the item the request names, in stock, a full page."""
    text = noun(k.request)
    return valid_action({"kind": "search_listings", "text": text, "in_stock": True, "page_size": PAGE}) if text else None


def _product_type(k: Known) -> tuple[str, str] | None:
    """(category, product type) of the seen product type whose words best match the request's item."""
    item = noun(k.request)
    if not item:
        return None
    wanted = {_stem(w) for w in item.lower().split()}
    best: tuple[tuple[int, int, str], tuple[str, str]] | None = None
    for rec in k["listings"].values():
        facets = rec.get("facets")
        ptype = facets.get("attributes", {}).get("product_type") if facets else None
        if not isinstance(ptype, str) or not isinstance(facets.get("category"), str):
            continue
        words = {_stem(w) for w in ptype.lower().split()}
        hit = len(wanted & words)
        key = (hit, -len(words - wanted), ptype)
        if hit and (best is None or key > best[0]):
            best = (key, (facets["category"], ptype))
    return None if best is None else best[1]


def _vocab(k: Known) -> dict[str, Any] | None:
    """The catalog words seen for the item: its type, and the brands, flags, values and measures of its listings."""
    store = _cache(k)
    if "vocab" in store:
        return store["vocab"]
    found = _product_type(k)
    vocab = None
    if found is not None:
        vocab = {"category": found[0], "product_type": found[1], "brands": set(), "flags": set(),
                 "attributes": {}, "options": {}, "measures": set()}
        for rec in k["listings"].values():
            facets = rec.get("facets") or {}
            attrs = facets.get("attributes") or {}
            if attrs.get("product_type") != found[1]:
                continue
            if isinstance(facets.get("brand"), str):
                vocab["brands"].add(facets["brand"])
            for key, v in attrs.items():
                if key == "product_type":
                    continue
                if v is True:
                    vocab["flags"].add(key)
                elif isinstance(v, bool):
                    continue
                elif isinstance(v, int | float):
                    vocab["measures"].add(key)
                elif isinstance(v, str):
                    vocab["attributes"].setdefault(key, set()).add(v)
            for key, v in (facets.get("options") or {}).items():
                if isinstance(v, str):
                    vocab["options"].setdefault(key, set()).add(v)
    store["vocab"] = vocab
    return vocab


def _budget(request: str) -> int | None:
    m = _BUDGET.search(request)
    return None if m is None else int(round(float(m.group(1).replace(",", "")) * 100))


def _type_query(k: Known) -> dict[str, Any] | None:
    """The item's type as filters: from the hints when the env gives them, else from the catalog words seen."""
    store = _cache(k)
    if "type" not in store:
        store["type"] = _type_filters(k)
    query = store["type"]
    return None if query is None else {f: (dict(v) if isinstance(v, dict) else v) for f, v in query.items()}


def _type_filters(k: Known) -> dict[str, Any] | None:
    filters = k.hints.get("filters")
    if isinstance(filters, dict) and filters.get("category"):
        ptype = (filters.get("attributes") or {}).get("product_type")
        query = {key: filters[key] for key in ("category", "in_stock", "max_price") if key in filters}
        return {**query, **({"attributes": {"product_type": ptype}} if ptype else {})}
    vocab = _vocab(k)
    if vocab is None:
        return None
    query: dict[str, Any] = {"category": vocab["category"], "attributes": {"product_type": vocab["product_type"]}}
    if "in stock" in " ".join(_tokens(k.request)):
        query["in_stock"] = True
    budget = _budget(k.request)
    if budget is not None:
        query["max_price"] = budget
    return query


def _ordered(query: dict[str, Any]) -> dict[str, Any] | None:
    return valid_action({"kind": "search_listings", **query, "sort": "price_asc", "page_size": PAGE})


def search_type(k: Known, _: int) -> dict[str, Any] | None:
    """The item's category and product type, in stock, under the budget, cheapest first, a full page."""
    query = _type_query(k)
    return _ordered(query) if query else None


_DIMENSIONS = {"long": "length", "wide": "width", "thick": "thickness", "tall": "height", "high": "height",
               "heavy": "weight", "weighing": "weight", "weighs": "weight"}
"""Adjectives that name a measured dimension ("at least 183 cm long" bounds ``length_cm``)."""
_UNITS = ("mm", "cm", "m", "g", "kg", "gsm", "oz", "lb", "in", "ml", "l")


def _tokens(text: str) -> list[str]:
    """Lower-case words of ``text``; clause breaks (commas, "and", full stops) as ``"|"``; decimals kept."""
    text = re.sub(r"(?<!\d)\.|\.(?!\d)|[,;:!?()]", " | ", text.lower())
    words = re.findall(r"\$?\d[\d,]*(?:\.\d+)?|[a-z0-9]+|\|", text.replace("-", " ").replace("_", " "))
    return ["|" if w == "and" else w for w in words]


def _plural(word: str) -> set[str]:
    return {word, word + "s", word + "es", word[:-1] + "ies" if word.endswith("y") else word}


def _find(tokens: list[str], phrase: list[str], free: list[bool], at_word: dict[str, list[int]]) -> int:
    """Where ``phrase`` (its last word perhaps plural) starts among the unclaimed ``tokens``, else -1
    (``at_word``: each token's positions)."""
    n = len(phrase)
    starts = at_word.get(phrase[0], []) if n > 1 else sorted(
        i for form in _plural(phrase[0]) for i in at_word.get(form, []))
    for i in starts:
        if i + n <= len(tokens) and all(free[i:i + n]) and tokens[i:i + n - 1] == phrase[:-1] \
                and tokens[i + n - 1] in _plural(phrase[-1]):
            return i
    return -1


def _ends_clause(tokens: list[str], end: int, key: str, item: set[str]) -> bool:
    """Whether a value said just before ``tokens[end]`` closes its requirement, or is followed by its key
    ("a medium roast", "honey-processed") or the item's name ("for adult dogs")."""
    if end >= len(tokens) or tokens[end] == "|":
        return True
    nxt = tokens[end]
    return _stem(nxt) in item or any(nxt.startswith(part) for part in key.split("_") if len(part) > 2)


def _worded(k: Known) -> list[tuple[int, str, str, Any]] | None:
    """The requirements the request states in seen catalog words: (position, group, key, value)."""
    store = _cache(k)
    if "worded" not in store:
        vocab = _vocab(k)
        store["worded"] = None if vocab is None else _match(k, vocab)
    return store["worded"]


def _match(k: Known, vocab: dict[str, Any]) -> list[tuple[int, str, str, Any]]:
    tokens = _tokens(k.request.split(":", 1)[1] if ":" in k.request else k.request)
    free = [True] * len(tokens)
    at_word: dict[str, list[int]] = {}
    for i, w in enumerate(tokens):
        at_word.setdefault(w, []).append(i)
    item = {_stem(w) for w in (noun(k.request) or "").lower().split()}
    found: list[tuple[int, str, str, Any]] = []

    def claim(at: int, length: int) -> None:
        free[at:at + length] = [False] * length

    found += _bounds(tokens, vocab["measures"], claim)
    for i in range(len(tokens) - 4):
        if tokens[i:i + 3] == ["rated", "at", "least"] and tokens[i + 4] in {"star", "stars"}:
            claim(i, 5)
            found.append((i, "min_rating", "min_rating", float(tokens[i + 3])))
    for key in sorted(vocab["flags"], key=lambda x: (-len(x), x)):
        phrase = _tokens(key)
        at = _find(tokens, phrase, free, at_word)
        if at >= 0:
            claim(at, len(phrase))
            found.append((at, "attributes", key, True))
    values = [(group, key, v) for group in ("attributes", "options") for key, vs in sorted(vocab[group].items())
              for v in vs] + [("brand", "brand", b) for b in vocab["brands"]]
    for group, key, v in sorted(values, key=lambda x: (-len(x[2]), x)):
        phrase = _tokens(v)
        named = {_stem(w) for w in phrase} <= item and len(vocab.get(group, {}).get(key, ())) == 1
        if not phrase or "|" in phrase or named:
            continue  # what every listing of the item says, in the item's own name ("dog" treats), is no requirement
        at = _find(tokens, phrase, free, at_word)
        if at >= 0 and _ends_clause(tokens, at + len(phrase), key, item):
            claim(at, len(phrase))
            found.append((at, group, key, v))
    return sorted(found, key=lambda x: (x[0], x[2]))


def _bounds(tokens: list[str], measures: set[str], claim: Callable[[int, int], None]) -> list[tuple[int, str, str, Any]]:
    """Bounds on measured attributes: "at least 6 mm thick" (by unit, then by the adjective after it),
    "a thread count of at least 400" (by the attribute's name just before)."""
    out: list[tuple[int, str, str, Any]] = []
    for i in range(len(tokens)):
        two = " ".join(tokens[i:i + 2])
        side = "min" if two == "at least" else "max" if two in {"no more", "at most"} else None
        if side is None:
            continue
        at = i + (3 if two == "no more" else 2)  # "no more than N"
        if at >= len(tokens) or not re.fullmatch(r"\d[\d,]*(?:\.\d+)?", tokens[at]):
            continue
        value = float(tokens[at].replace(",", ""))
        unit = tokens[at + 1] if at + 1 < len(tokens) and tokens[at + 1] in _UNITS else None
        after = tokens[at + 2] if unit and at + 2 < len(tokens) else ""
        keys = [key for key in sorted(measures) if unit and key.rsplit("_", 1)[-1] == unit]
        if len(keys) > 1:
            keys = [key for key in keys if key.rsplit("_", 1)[0] == _DIMENSIONS.get(after)]
        if not keys:
            before = " ".join(tokens[max(0, i - 6):i])
            keys = [key for key in sorted(measures) if key.rsplit("_", 1)[0].replace("_", " ") in before]
        if len(keys) == 1:
            span = at + 1 - i + (1 if unit else 0) + (1 if after in _DIMENSIONS else 0)
            claim(i, span)
            out.append((i, "attributes", keys[0], {side: int(value) if value.is_integer() else value}))
    return out


def _with(query: dict[str, Any], group: str, key: str, value: Any) -> dict[str, Any]:
    out = {f: (dict(v) if isinstance(v, dict) else v) for f, v in query.items()}
    if group in {"attributes", "options"}:
        out.setdefault(group, {})[key] = value
    else:
        out[key] = value
    return out


def search_words(k: Known, _: int) -> dict[str, Any] | None:
    """The item's type plus every requirement the request states in the catalog words seen."""
    worded = _worded(k)
    query = _type_query(k) if worded is not None else None
    if query is None or "category" not in query:
        return None
    for _, group, key, value in worded:
        query = _with(query, group, key, value)
    return _ordered(query)


def search_words_unbounded(k: Known, _: int) -> dict[str, Any] | None:
    """:func:`search_words` without the budget: the page then shows the closest matches over budget."""
    action = search_words(k, 0)
    if action is None or "max_price" not in action:
        return None
    return {f: v for f, v in action.items() if f != "max_price"}


def answer_last_read(k: Known, _: int) -> dict[str, Any] | None:
    """Answer with the listing the agent's own last action read (``get_listing``), citing it."""
    last = k.pending
    lid = last.get("listing_id") if last.get("kind") == "get_listing" else None
    if not isinstance(lid, str) or lid not in k["listings"]:
        return None
    return {"kind": "submit_answer", "answer": {"listing_id": lid}, "evidence": [lid],
            "rationale": "It meets every requirement I was given."}


def _last_structured(k: Known) -> dict[str, Any] | None:
    last = k.pending
    if last.get("kind") == "search_listings" and last.get("category") and not last.get("text"):
        return {f: v for f, v in last.items() if f not in {"kind", "sort", "page", "page_size"}}
    return _type_query(k)


def _candidates(k: Known) -> list[tuple[str, str, Any]]:
    """Filters a refinement may add: the hints' attribute and option filters, then the seen facets of the item."""
    store = _cache(k)
    if "candidates" in store:
        return store["candidates"]
    out: list[tuple[str, str, Any]] = []
    filters = k.hints.get("filters")
    if isinstance(filters, dict):
        for group in ("attributes", "options"):
            for key, v in sorted((filters.get(group) or {}).items()):
                if key != "product_type":
                    out.append((group, key, v))
    vocab = _vocab(k)
    if vocab is not None:
        out += [("attributes", key, True) for key in sorted(vocab["flags"])]
        for group in ("attributes", "options"):
            for key, values in sorted(vocab[group].items(), key=lambda kv: (len(kv[1]), kv[0])):
                out += [(group, key, v) for v in sorted(values)]
    unique = list(dict.fromkeys((g, key, repr(v)) for g, key, v in out))
    values = {(g, key, repr(v)): v for g, key, v in out}
    store["candidates"] = [(g, key, values[(g, key, r)]) for g, key, r in unique]
    return store["candidates"]


def _refinable(k: Known) -> tuple[dict[str, Any] | None, list[tuple[str, str, Any]]]:
    """The search to refine (its validity checked) and the filters not in it (once per menu)."""
    if "search_refine" not in k.memo:
        query = _last_structured(k)
        if query is None or "category" not in query or _ordered(query) is None:
            k.memo["search_refine"] = (None, [])
        else:
            fresh = [(g, key, v) for g, key, v in _candidates(k) if key not in (query.get(g) or {})]
            k.memo["search_refine"] = (query, [c for c in fresh if _filter_ok(*c)])
    return k.memo["search_refine"]


@lru_cache(maxsize=4096)
def _filter_ok_key(group: str, key: str, value_json: str) -> bool:
    value = json.loads(value_json)
    query = {group: {key: value}} if group in {"attributes", "options"} else {key: value}
    return _parses(json.dumps({"kind": "search_listings", **query}, sort_keys=True))


def _filter_ok(group: str, key: str, value: Any) -> bool:
    return _filter_ok_key(group, key, json.dumps(value, sort_keys=True))


def refine(k: Known, j: int) -> dict[str, Any] | None:
    """The last structured search plus its ``j``-th candidate filter not already in it."""
    query, fresh = _refinable(k)
    if query is None or j >= len(fresh):
        return None
    return {"kind": "search_listings", **_with(query, *fresh[j]), "sort": "price_asc", "page_size": PAGE}


def slots() -> list[tuple[str, str, Builder, int]]:
    """The structured-search slots: ``(label, kind, builder, index)``."""
    out: list[tuple[str, str, Builder, int]] = [
        ("search:noun", "search_listings", search_noun, 0), ("search:type", "search_listings", search_type, 0),
        ("search:words", "search_listings", search_words, 0),
        ("search:words-unbounded", "search_listings", search_words_unbounded, 0),
        ("answer:last-read", "submit_answer", answer_last_read, 0)]
    out += [(f"search:refine[{j}]", "search_listings", refine, j) for j in range(N_REFINE)]
    return out
