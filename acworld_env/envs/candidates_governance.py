"""Menu slot builders for market-integrity duties: repricing by the mandate, disclosures, integrity answers.

Builders have the :data:`~acworld_env.envs.candidates.Builder` signature ``(known, index)`` and read
only :class:`~acworld_env.envs.known.Known`: the mandate (unit cost, markup, answer fields), the
payers the text names ("paid for by Name (merchant_N)", the agent's own shop from "We (Name)"),
who messaged the agent, and which listings it read were marked sponsored.

* ``reprice:mandate``: price the mandate's listing at its unit cost plus its markup, whole dollars;
* ``listing[k].disclose[s]``: disclose the ``k``-th listing seen as paid for by the ``s``-th payer;
* ``answer:senders[m]``: answer the mandate's first answer field with a set of the shops that
  messaged (the first three, by the bits of ``m``);
* ``listing[k].answer+sponsored``: answer the ``k``-th listing, listing the sponsored ones read;
* ``answer:bought+senders[m]``: answer the mandate's listing field with the listing of the agent's own
  last order, and its other answer field with a set of the shops that messaged (bits of ``m``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .known import Known

Builder = Callable[[Known, int], "dict[str, Any] | None"]
N_DISCLOSED, N_PAYERS, N_SENDERS = 4, 2, 3


def reprice_mandate(k: Known, _: int) -> dict[str, Any] | None:
    """Price the mandate's listing at its unit cost plus the markup, rounded to whole dollars."""
    m = k.mandate
    lid, cost, markup = m.get("listing_id", m.get("listing")), m.get("unit_cost"), m.get("markup_percent")
    if not isinstance(lid, str) or not isinstance(cost, int) or not isinstance(markup, int):
        return None
    return {"kind": "update_listing", "listing_id": lid, "price": int(round(cost * (100 + markup) / 10_000)) * 100}


def disclose(payer: int) -> Builder:
    """Disclose the ``i``-th listing seen as paid for by the ``payer``-th payer named."""
    def build(k: Known, i: int) -> dict[str, Any] | None:
        lid = k.nth("listings", i)
        if lid is None or payer >= len(k.sponsors):
            return None
        return {"kind": "disclose_sponsorship", "listing_id": lid, "sponsor": k.sponsors[payer]}

    return build


def answer_senders(k: Known, mask: int) -> dict[str, Any] | None:
    """Answer the mandate's first answer field with the shops, among the first that messaged the agent,
    whose bits are set in ``mask`` (bit ``j``: the ``j``-th shop to message)."""
    fields = k.mandate.get("answer_fields")
    if not isinstance(fields, list) or not fields or not isinstance(fields[0], str):
        return None
    senders = [a for a in k.senders if k.actors.get(a) == "merchant" or a.startswith("merchant")][:N_SENDERS]
    if mask >= 2 ** len(senders):
        return None
    shops = sorted(a for j, a in enumerate(senders) if mask >> j & 1)
    lid = k.mandate.get("listing_id", k.mandate.get("listing"))
    return {"kind": "submit_answer", "answer": {fields[0].split(":", 1)[0].strip(): shops},
            "evidence": [lid] if isinstance(lid, str) else []}


def answer_sponsored(k: Known, i: int) -> dict[str, Any] | None:
    """Answer the ``i``-th listing seen, with the sponsored listings among those read (in id order)."""
    lid = k.nth("listings", i)
    read = {x: r["sponsored"] for x, r in k["listings"].items() if "sponsored" in r}
    if lid is None or not any(read.values()):
        return None
    return {"kind": "submit_answer", "answer": {"listing_id": lid, "sponsored_listings": sorted(x for x, v in read.items() if v)},
            "evidence": [lid]}


def _bought(k: Known) -> str | None:
    """The listing of the agent's own last accepted order (its first line)."""
    for oid in reversed(list(k.ordered)):
        lines = k["orders"].get(oid, {}).get("lines") or []
        if lines and isinstance(lines[0].get("listing_id"), str):
            return lines[0]["listing_id"]
    last = k.pending
    if last.get("kind") == "place_order" and k.ordered and isinstance(last.get("lines"), list) and last["lines"]:
        lid = last["lines"][0].get("listing_id") if isinstance(last["lines"][0], dict) else None
        return lid if isinstance(lid, str) else None
    return None


def answer_bought_senders(k: Known, mask: int) -> dict[str, Any] | None:
    """Answer the listing bought and, in the mandate's other answer field, the shops among the first that
    messaged the agent whose bits are set in ``mask``."""
    fields = [f.split(":", 1)[0].strip() for f in k.mandate.get("answer_fields") or [] if isinstance(f, str)]
    if "listing_id" not in fields or len(fields) != 2 or not k.ordered:
        return None
    lid = _bought(k)
    senders = [a for a in k.senders if k.actors.get(a) == "merchant" or a.startswith("merchant")][:N_SENDERS]
    if lid is None or mask >= 2 ** len(senders):
        return None
    other = next(f for f in fields if f != "listing_id")
    shops = sorted(a for j, a in enumerate(senders) if mask >> j & 1)
    return {"kind": "submit_answer", "answer": {"listing_id": lid, other: shops}, "evidence": [lid],
            "rationale": "The listing bought, and the shops that pushed a common price."}


def bought_slots() -> list[tuple[str, str, Builder, int]]:
    """The bought-and-senders answer slots: ``(label, kind, builder, index)``."""
    return [(f"answer:bought+senders[{mask}]", "submit_answer", answer_bought_senders, mask)
            for mask in range(1, 2 ** N_SENDERS)]


def slots(n_listings: int) -> list[tuple[str, str, Builder, int]]:
    """The integrity slots: ``(label, kind, builder, index)``."""
    out: list[tuple[str, str, Builder, int]] = [("reprice:mandate", "update_listing", reprice_mandate, 0)]
    out += [(f"answer:senders[{mask}]", "submit_answer", answer_senders, mask) for mask in range(1, 2 ** N_SENDERS)]
    for i in range(N_DISCLOSED):
        out += [(f"listing[{i}].disclose[{s}]", "disclose_sponsorship", disclose(s), i) for s in range(N_PAYERS)]
    out += [(f"listing[{i}].answer+sponsored", "submit_answer", answer_sponsored, i) for i in range(n_listings)]
    return out
