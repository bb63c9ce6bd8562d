"""Featurisers: what a menu policy reads besides the menu's base features, so that words are learnable.

The menu's base features (:func:`acworld_env.wrappers.menu.features`) say where the agent stands
(role, step, last result, counts of what it has seen, thread turns, order states) but not what the
request asks for, nor which seen listing fits it: with ``hints`` off a policy reading them cannot
tell a coffee task from a return task, nor listing 0 from listing 3. A featuriser adds those
facts, built **only from what the actor has seen** (its own observations and the menu's
:class:`~acworld_env.envs.known.Known`), never from the task's hidden answer.

``featuriser=None`` (the default) is the base vector alone. ``featuriser="bow"`` appends, in order:

1. ``REQUEST_BUCKETS`` hashed bag-of-words bits of the request text (lower-cased words and numbers,
   hashed with CRC-32, so the same words give the same bits in every process);
2. ``CONTEXT_BUCKETS`` hashed bits of the words of the latest result (its kind, code and message)
   and of the inbox messages' kinds and text;
3. ``LISTING_FEATURES`` numbers for each of the first ``N_READ`` seen listings, in the order the
   menu's ``listing[i]`` slots use (first seen first), then ``HIT_FEATURES`` for each of the
   ``N_HITS`` listings of the agent's last search (the ``hit[i]`` slots): whether the slot is
   filled; the share of the request's content words found in the listing's seen text (title,
   brand, category, options, attributes, tags); whether it is the best such match among the seen
   listings; whether its price is within the limit the actor was given (mandate ``budget`` or
   ``max_unit_price``, else a "$N" the request states after "at most", "under", "below" or "up
   to"); its price against that limit; whether it is the cheapest seen; in stock; its rating;
   whether the rating meets an "at least N stars" the request states; the share of the structured
   hints' filters it meets (``hints="structured"`` only); sponsored; in the last search's hits;
   its details read (``get_listing``); and "fits" (best word match, within the limit, in stock,
   rating met).

The listing text a featuriser needs is remembered per episode by :class:`Featuriser` from the raw
observations it is given (search pages, listing details, inbox messages). Absorbing the same
observation twice changes nothing, so the env (which may build an observation more than once per
step) and :class:`~acworld_env.wrappers.trained.TrainedMenuPolicy` (once per decision) compute
the same vector for the same episode.
"""

from __future__ import annotations

import re
import zlib
from typing import Any

import numpy as np

from ..envs.candidates import N_READ
from ..envs.candidates_plans import N_HITS
from ..envs.known import Known

FEATURISERS: tuple[str | None, ...] = (None, "bow")
"""The featurisers this version knows (``None``: the base features only)."""
REQUEST_BUCKETS = 128
CONTEXT_BUCKETS = 64
LISTING_FEATURES = 14
HIT_FEATURES = 14

_WORD = re.compile(r"[a-z0-9]+")
_STOP_TEXT = ("a an the of to in on at for and or but is it its be me my i you your we our us this that with from "
              "by as please help find need want would like could can do not don't just so if any some one which "
              "what it's tell buy get anything yet nothing fits listing item")
_STOP = frozenset(_STOP_TEXT.split())
_LIMIT = re.compile(r"(?:at most|under|below|up to|no more than|max(?:imum)?(?: of)?)\s*\$(\d+(?:\.\d\d)?)", re.I)
_STARS = re.compile(r"at least\s*(\d(?:\.\d)?)\s*stars?", re.I)
_TEXT_FIELDS = ("title", "brand", "category", "tags", "options", "attributes", "description")


def known_featurisers() -> str:
    """The accepted names, for error messages."""
    return ", ".join(repr(f) for f in FEATURISERS)


def check_featuriser(name: Any) -> str | None:
    """``name`` when it is a known featuriser, else a one-line ``ValueError``."""
    if name not in FEATURISERS:
        raise ValueError(f"unknown featuriser {name!r}; known: {known_featurisers()}")
    return name


def extra_features(name: str | None) -> int:
    """How many numbers featuriser ``name`` appends to the menu's base features."""
    check_featuriser(name)
    if name is None:
        return 0
    return REQUEST_BUCKETS + CONTEXT_BUCKETS + N_READ * LISTING_FEATURES + N_HITS * HIT_FEATURES


def words(text: str) -> list[str]:
    """Lower-cased words and numbers of ``text`` (hyphens split words)."""
    return _WORD.findall(text.lower())


def _bucket(word: str, n: int) -> int:
    return zlib.crc32(word.encode()) % n


def hashed_bits(tokens: list[str], n: int) -> np.ndarray:
    """``n`` bits, one set for each token's CRC-32 bucket."""
    out = np.zeros(n, dtype=np.float32)
    for token in tokens:
        out[_bucket(token, n)] = 1.0
    return out


def _flatten_text(value: Any, out: list[str], depth: int = 0) -> None:
    if depth > 4:
        return
    if isinstance(value, str):
        out.extend(words(value))
    elif isinstance(value, bool) or value is None:
        return
    elif isinstance(value, int | float):
        out.append(str(value))
    elif isinstance(value, dict):
        for key, item in value.items():
            if item is True:
                out.extend(words(str(key)))
            else:
                _flatten_text(item, out, depth + 1)
    elif isinstance(value, list):
        for item in value[:20]:
            _flatten_text(item, out, depth + 1)


class Featuriser:
    """One episode's featuriser state: the listing facts seen so far (see the module docstring)."""

    def __init__(self, name: str | None) -> None:
        self.name = check_featuriser(name)
        self.dim = extra_features(name)
        self.reset()

    def reset(self) -> None:
        """Forget the episode."""
        self.text: dict[str, set[str]] = {}
        self.facts: dict[str, dict[str, Any]] = {}
        self.read: set[str] = set()

    # -- memory ---------------------------------------------------------------
    def _listing(self, item: dict[str, Any]) -> None:
        lid = item.get("listing_id")
        if not isinstance(lid, str) or len(lid) > 64:
            return
        tokens: list[str] = []
        for key in _TEXT_FIELDS:
            if key != "description":
                _flatten_text(item.get(key), tokens)
        self.text.setdefault(lid, set()).update(tokens)
        facts = self.facts.setdefault(lid, {})
        for key in ("price", "rating", "in_stock", "quantity", "sponsored_by", "options", "attributes", "category",
                    "brand", "claims"):
            if key in item:
                facts[key] = item[key]

    def _walk(self, node: Any, depth: int = 0) -> None:
        if depth > 6:
            return
        if isinstance(node, dict):
            if isinstance(node.get("listing_id"), str) and any(k in node for k in ("title", "price", "attributes")):
                self._listing(node)
            for value in node.values():
                if isinstance(value, dict | list):
                    self._walk(value, depth + 1)
        elif isinstance(node, list):
            for value in node[:100]:
                self._walk(value, depth + 1)

    def absorb(self, raw: dict[str, Any]) -> None:
        """Remember the listing facts of one raw observation (idempotent)."""
        last = raw.get("last_result") or {}
        if isinstance(last, dict) and last.get("accepted"):
            result = last.get("result")
            self._walk(result)
            if last.get("kind") == "get_listing" and isinstance(result, dict) and isinstance(result.get("listing_id"), str):
                self.read.add(result["listing_id"])
        for msg in raw.get("inbox") or []:
            self._walk(msg)

    # -- features -------------------------------------------------------------
    def __call__(self, raw: dict[str, Any], known: Known) -> np.ndarray:
        """The appended features for the observation ``raw`` (absorbed first) and the menu's ``known``."""
        if self.name is None:
            return np.zeros(0, dtype=np.float32)
        self.absorb(raw)
        known.sync()
        request = str(raw.get("request") or "")
        req_words = words(request)
        parts = [hashed_bits(req_words, REQUEST_BUCKETS), hashed_bits(self._context(raw), CONTEXT_BUCKETS)]
        table = self._listing_table(known, request, req_words, raw)
        seen = list(known["listings"])[:N_READ]
        block = np.zeros((N_READ, LISTING_FEATURES), dtype=np.float32)
        for i, lid in enumerate(seen):
            block[i] = table[lid]
        hits = np.zeros((N_HITS, HIT_FEATURES), dtype=np.float32)
        for i, lid in enumerate(known.hits[:N_HITS]):
            hits[i] = table[lid]
        parts += [block.ravel(), hits.ravel()]
        return np.concatenate(parts).astype(np.float32)

    @staticmethod
    def _context(raw: dict[str, Any]) -> list[str]:
        tokens: list[str] = []
        last = raw.get("last_result")
        if isinstance(last, dict):
            tokens += [f"kind:{last.get('kind')}", f"code:{last.get('code')}"] + words(str(last.get("message") or ""))
        for msg in (raw.get("inbox") or [])[-5:]:
            if isinstance(msg, dict):
                tokens.append(f"msg:{msg.get('kind')}")
                tokens += words(str(msg.get("text") or msg.get("body") or ""))[:40]
        return tokens

    def _limit(self, known: Known, request: str) -> int | None:
        for key in ("max_unit_price", "budget"):
            value = known.mandate.get(key)
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                return value
        m = _LIMIT.search(request)
        return int(round(float(m.group(1)) * 100)) if m else None

    def _listing_table(self, known: Known, request: str, req_words: list[str],
                       raw: dict[str, Any]) -> dict[str, np.ndarray]:
        content = {w for w in req_words if w not in _STOP and len(w) > 1}
        ids = list(dict.fromkeys([*list(known["listings"])[:N_READ], *known.hits[:N_HITS]]))
        match = {lid: (len(content & self.text.get(lid, set())) / len(content) if content else 0.0) for lid in ids}
        best = max(match.values(), default=0.0)
        prices = {lid: self._price(lid, known) for lid in ids}
        cheapest = min((p for p in prices.values() if p is not None), default=None)
        limit = self._limit(known, request)
        stars = _STARS.search(request)
        min_rating = float(stars.group(1)) if stars else None
        hits = set(known.hits)
        return {lid: self._row(lid, prices, known, hits, limit, min_rating, match[lid],
                               cheapest, best > 0 and match[lid] >= best, raw) for lid in ids}

    def _price(self, lid: str, known: Known) -> int | None:
        value = known["listings"].get(lid, {}).get("price", self.facts.get(lid, {}).get("price"))
        return value if isinstance(value, int | float) and not isinstance(value, bool) else None

    def _row(self, lid: str, prices: dict[str, int | None], known: Known, hits: set[str], limit: int | None,
             min_rating: float | None, match: float, cheapest: int | None, best: bool,
             raw: dict[str, Any]) -> np.ndarray:
        facts, rec = self.facts.get(lid, {}), known["listings"].get(lid, {})
        price = prices.get(lid)
        within = 1.0 if limit is None or (price is not None and price <= limit) else 0.0
        ratio = min(2.0, price / limit) / 2.0 if price is not None and limit else 0.0
        stock = rec.get("stock", facts.get("quantity"))
        in_stock = float(bool(facts.get("in_stock", True)) and (not isinstance(stock, int) or stock > 0)
                         and (stock is not None or "in_stock" in facts))
        rating = facts.get("rating")
        rating_v = float(rating) / 5.0 if isinstance(rating, int | float) and not isinstance(rating, bool) else 0.0
        rating_ok = 1.0 if min_rating is None else float(rating_v * 5.0 >= min_rating - 1e-9)
        sponsored = float(bool(rec.get("sponsored")) or bool(facts.get("sponsored_by")))
        fits = float(best and within and in_stock and rating_ok)
        return np.array([1.0, match, float(best), within, ratio,
                          float(price is not None and price == cheapest), in_stock, rating_v, rating_ok,
                          self._hint_share(lid, raw), sponsored, float(lid in hits), float(lid in self.read), fits],
                         dtype=np.float32)

    def _hint_share(self, lid: str, raw: dict[str, Any]) -> float:
        hints = raw.get("hints")
        filters = hints.get("filters") if isinstance(hints, dict) else None
        if not isinstance(filters, dict) or not filters:
            return 0.0
        facts, ok, n = self.facts.get(lid, {}), 0, 0
        for key, want in filters.items():
            n += 1
            if key == "max_price":
                ok += isinstance(facts.get("price"), int) and facts["price"] <= want
            elif key == "min_price":
                ok += isinstance(facts.get("price"), int) and facts["price"] >= want
            elif key == "min_rating":
                ok += isinstance(facts.get("rating"), int | float) and facts["rating"] >= want
            elif key == "in_stock":
                ok += bool(facts.get("in_stock")) == bool(want)
            elif key in ("options", "attributes") and isinstance(want, dict):
                have = facts.get(key) if isinstance(facts.get(key), dict) else {}
                ok += all(have.get(k) == v for k, v in want.items())
            elif key in ("category", "brand"):
                ok += facts.get(key) == want
            else:
                n -= 1
        return ok / n if n else 0.0
