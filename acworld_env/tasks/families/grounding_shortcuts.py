"""Surface shortcuts for T2 Grounding, run by the baseline gate (``acworld validate``).

- ``trust_listing_claims``: read the listings named and take every seller claim at its word
  (answer with the claimed figures, file every claim as supported, publish the copy it saw,
  reply with the listing copy);
- ``first_record``: read only the first listing named and answer or publish from it;
- ``claim_best``: assert what is wanted without checking: every comparison marketing asked for,
  a ``best`` claim on the listing, the figure the buyer hopes for.

The rubric must keep each of them well below full credit.
"""

from __future__ import annotations

import re
from typing import Any

from ...scoring.grounding_units import quantity
from ..names import register_shortcut

FAMILY = "T2_grounding"


def _stem(field: str) -> str:
    """The spec a field or claim name is about (``weight_oz`` -> ``weight``)."""
    return field.split("_")[0] if not field.startswith("heel_drop") else "heel_drop"


def _claim(view: dict, stem: str) -> str | None:
    """The seller's claim about a spec on a listing, if any."""
    return next((v for k, v in (view.get("claims") or {}).items() if _stem(k) == stem), None)


def _attr(view: dict, stem: str) -> str | None:
    """The record's figure for a spec with its unit (``3350 g``), if the listing has a record."""
    for k, v in (view.get("attributes") or {}).items():
        if _stem(k) == stem and not isinstance(v, bool) and isinstance(v, int | float):
            return f"{v} {k.rsplit('_', 1)[-1]}"
    return None


class _Script:
    """Read some listings, then queue the final actions worked out from what was read."""

    def __init__(self) -> None:
        """A fresh script."""
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """Forget the episode."""
        self.todo: list[str] | None = None
        self.seen: dict[str, dict] = {}
        self.queue: list[dict] | None = None
        self.question: dict | None = None

    def reads(self, obs: dict[str, Any]) -> list[str]:
        """Listings to read first."""
        return list(obs["mandate"].get("listings", []))

    def final(self, obs: dict[str, Any]) -> list[dict]:
        """The claiming actions."""
        raise NotImplementedError

    def act(self, obs: dict[str, Any]) -> dict | None:
        """Next read, then the final actions, then nothing."""
        for m in obs["inbox"]:
            if m.get("kind") == "question" and self.question is None:
                self.question = m
        last = obs.get("last_result") or {}
        if last.get("kind") == "get_listing" and last.get("accepted"):
            self.seen[last["result"]["listing_id"]] = last["result"]
        if self.todo is None:
            self.todo = self.reads(obs)
        if self.todo:
            return {"kind": "get_listing", "listing_id": self.todo.pop(0)}
        if self.queue is None:
            self.queue = self.final(obs)
        return self.queue.pop(0) if self.queue else None

    # -- shared shapes -------------------------------------------------------
    def views(self, obs: dict[str, Any]) -> list[dict]:
        """What was read, in the mandate's order."""
        return [self.seen[x] for x in obs["mandate"].get("listings", []) if x in self.seen]

    def reply(self, text: str) -> list[dict]:
        """Answer the waiting question, then finish."""
        link = self.question["message_id"] if self.question else "msg-0001"
        return [{"kind": "answer_question", "in_reply_to": link, "text": text}, _FINISH]


_FINISH = {"kind": "finish", "summary": "Done."}


def _answer(fields: dict, evidence: list[str]) -> list[dict]:
    """A final answer citing ``evidence``."""
    return [{"kind": "submit_answer", "answer": fields, "evidence": evidence}]


@register_shortcut(FAMILY, "trust_listing_claims")
class TrustListingClaims(_Script):
    """Take every seller claim at its word."""

    def final(self, obs: dict[str, Any]) -> list[dict]:
        """Answer, publish or reply with the claims read."""
        m, views = obs["mandate"], self.views(obs)
        read = [v["listing_id"] for v in views]
        if obs["role"] == "buyer":
            fields = [f for f in m.get("answer_fields", []) if f != "listing_id"]
            if "supported" in fields:
                return _answer({"listing_id": read[0], "supported": sorted(views[0].get("claims", {})),
                                "unsupported": []}, read)
            if "compare" in m:
                stem, low = m["compare"]["attribute"], m["compare"]["goal"] == "lowest"
                scored = [((quantity(stem, _claim(v, stem)) or ("", 0.0))[1], v["listing_id"]) for v in views]
                best = min(scored) if low else max(scored)
                return _answer({"listing_id": best[1], fields[0]: _claim(self.seen[best[1]], stem)}, read)
            out: dict = {}
            for f in fields:
                src = next((v for v in views if _claim(v, _stem(f))), None)
                if src is not None:
                    out.setdefault("listing_id", src["listing_id"])
                    out[f] = _claim(src, _stem(f))
            return _answer(out, read)
        if "draft" in m:
            src = next((v for v in views if v.get("claims")), None)
            return [{"kind": "update_listing", "listing_id": m["listing"], "claims": dict(src["claims"])}, _FINISH] \
                if src else [_FINISH]
        if "wanted_claims" in m:
            return [{"kind": "update_listing", "listing_id": m["listing"], "claims": m["wanted_claims"]}, _FINISH]
        if self.question is not None:
            own = self.seen.get(m["listing"], {}).get("claims", {})
            return self.reply("Per our listing: " + "; ".join(f"{k} {v}" for k, v in sorted(own.items())) + ".")
        return [_FINISH]


@register_shortcut(FAMILY, "first_record")
class FirstRecord(_Script):
    """Read only the first listing named; answer or publish from it."""

    def reads(self, obs: dict[str, Any]) -> list[str]:
        """The first listing only."""
        return list(obs["mandate"].get("listings", []))[:1]

    def final(self, obs: dict[str, Any]) -> list[dict]:
        """Everything from the one record read."""
        m = obs["mandate"]
        views = self.views(obs)
        if not views:
            return [_FINISH]
        v = views[0]
        lid = v["listing_id"]
        if obs["role"] == "buyer":
            fields = [f for f in m.get("answer_fields", []) if f != "listing_id"]
            if "supported" in fields:
                return _answer({"listing_id": lid, "supported": sorted(v.get("claims", {})), "unsupported": []},
                               [lid])
            return _answer({"listing_id": lid, **{f: _attr(v, _stem(f)) or _claim(v, _stem(f)) for f in fields}},
                           [lid])
        if "draft" in m:
            return [{"kind": "update_listing", "listing_id": m["listing"],
                     "claims": {s: _attr(v, s) or "" for s in m["claim_keys"]}}, _FINISH]
        if "wanted_claims" in m:
            return [{"kind": "update_listing", "listing_id": m["listing"], "claims": m["wanted_claims"]}, _FINISH]
        if self.question is not None:
            figures = [f"{k.rsplit('_', 1)[0]} {_attr(v, _stem(k))}" for k in sorted(v.get("attributes") or {})
                       if _attr(v, _stem(k))]
            return self.reply("From our product record: " + "; ".join(figures) + ".")
        fixes = {k: _attr(v, _stem(k)) for k in v.get("claims") or {} if _attr(v, _stem(k))}
        return [{"kind": "update_listing", "listing_id": m["listing"], "claims": fixes}, _FINISH] if fixes else [_FINISH]


_HOPE = re.compile(r"around ([\d.,]+ ?[a-z\"]+)")


@register_shortcut(FAMILY, "claim_best")
class ClaimBest(_Script):
    """Assert what is wanted: superlatives, every requested comparison, the buyer's hoped-for figure."""

    def reads(self, obs: dict[str, Any]) -> list[str]:
        """Buyers glance at the first listing; merchants read nothing."""
        return list(obs["mandate"].get("listings", []))[:1] if obs["role"] == "buyer" else []

    def final(self, obs: dict[str, Any]) -> list[dict]:
        """Claim the best."""
        m = obs["mandate"]
        if obs["role"] == "buyer":
            views = self.views(obs)
            lid = views[0]["listing_id"] if views else m["listings"][0]
            fields = [f for f in m.get("answer_fields", []) if f != "listing_id"]
            if "supported" in fields:
                return _answer({"listing_id": lid, "supported": sorted(views[0].get("claims", {})) if views else [],
                                "unsupported": []}, [lid])
            return _answer({"listing_id": lid, **{f: "best in class" for f in fields}}, [lid])
        if "wanted_claims" in m:
            return [{"kind": "update_listing", "listing_id": m["listing"], "claims": m["wanted_claims"]}, _FINISH]
        if self.question is not None:
            hope = _HOPE.search(self.question.get("text", ""))
            return self.reply(f"Yes, it's {hope.group(1) if hope else 'exactly what you need'}, the best there is.")
        claims = {**m.get("draft", {}), "best": "yes"}
        return [{"kind": "update_listing", "listing_id": m["listing"], "claims": claims}, _FINISH]
