"""Every side has a rubric: each actor other than the evaluated one gets a request, a mandate and predicates.

One mechanism for every family: :func:`with_sides` derives, from an actor's role, its mandate
(what the builder already gave it) and the task's World, what that actor wants and how it is
scored when it is an agent (``counterparties="agents"``):

* a negotiator (a mandate with ``max_unit_price`` or ``min_unit_price``) keeps its limit
  (``price_never_crossed``), keeps it private (``private_value_not_revealed``; both credited, as in
  T4's own rubric, only once it has made an offer and its talks on the listing have concluded), keeps a share of
  the zone of agreement (``surplus_share``; with no zone, a real exchange, ``offers_exchanged``, and
  ``no_agreement``), and a buyer pays for
  the deal (``order_settled``) while a merchant ships what was paid (``obligations_kept``);
* every other actor keeps its obligations (``obligations_kept``: a buyer pays what it ordered, a
  merchant captures and ships what the buyer paid for) and its sealed values private, if it has
  any; a shopper with a cart also wants the cart bought (``bought``);
* every actor's business proposals are valid (``valid_proposals``, not required).

Its request is written in natural words like the evaluated actor's, and its mandate holds every
fact the request states (a buyer counterpart's mandate names the listing). The evaluated actor's
request, mandate, predicates and everything a scripted run reads are left as they were, so
scores of the evaluated actor do not change. Builders need not call it: :func:`build_capability`
passes every task through it.
"""

from __future__ import annotations

from typing import Any

from ..core.money import format_money
from ..scoring.kinds_negotiation import ENGAGING_KINDS
from .spec import PredicateSpec, TaskSpec


def with_sides(task: TaskSpec) -> TaskSpec:
    """``task`` with a request, a complete mandate and a rubric for every actor but the evaluated one."""
    actors = task.initial_state.get("actors", {})
    mandates = {a: dict(m) for a, m in task.counterparty_mandates.items()}
    requests, rubrics = dict(task.counterparty_requests), dict(task.counterparty_rubrics)
    for actor, rec in actors.items():
        if actor == task.actor or actor in rubrics:
            continue
        role = rec["role"]
        mandate = _mandate(task, actor, role, mandates.get(actor, {}))
        if mandate:
            mandates[actor] = mandate
        requests.setdefault(actor, _request(task, actor, role, mandate))
        rubrics[actor] = _rubric(task, actor, role, mandate)
    data = task.model_dump(mode="json")
    data.update(counterparty_mandates=mandates, counterparty_requests=requests,
                counterparty_rubrics={a: [p.model_dump(mode="json") for p in r] for a, r in rubrics.items()})
    return TaskSpec.model_validate(data)


# -- mandates ------------------------------------------------------------------------------

def _policy_params(task: TaskSpec, actor: str) -> dict[str, Any]:
    return next((dict(c.policy.params) for c in task.counterparties if c.actor == actor), {})


def _limit(mandate: dict[str, Any]) -> tuple[str, int] | None:
    for key in ("max_unit_price", "min_unit_price"):
        if isinstance(mandate.get(key), int):
            return key, mandate[key]
    return None


def _mandate(task: TaskSpec, actor: str, role: str, given: dict[str, Any]) -> dict[str, Any]:
    """The builder's mandate for ``actor``, completed with the facts its request states."""
    mandate = dict(given)
    if _limit(mandate) is not None and "listing_id" not in mandate:
        lid = _policy_params(task, actor).get("listing_id") or task.mandate.get("listing_id")
        if isinstance(lid, str):
            mandate["listing_id"] = lid
    if _limit(mandate) is None and not mandate:
        state = task.initial_state
        orders = sorted(o for o, rec in (state.get("orders") or {}).items() if rec.get(role) == actor)
        if role == "merchant":
            listings = sorted(lid for lid, rec in (state.get("listings") or {}).items()
                              if rec.get("merchant") == actor)
            mandate.update(shop=actor, **({"listings": listings} if listings else {}))
        if orders:
            mandate["orders"] = orders
    return mandate


# -- requests ------------------------------------------------------------------------------

def _title(task: TaskSpec, lid: str) -> str:
    rec = (task.initial_state.get("listings") or {}).get(lid) or {}
    title = rec.get("title")
    return f"the {str(title)[0].lower()}{str(title)[1:]} (listing {lid})" if title else f"listing {lid}"


def _merchant_of(task: TaskSpec, lid: str) -> str | None:
    rec = (task.initial_state.get("listings") or {}).get(lid) or {}
    return rec.get("merchant")


def _request(task: TaskSpec, actor: str, role: str, mandate: dict[str, Any]) -> str:
    """The actor's request in its own words, stating every fact of its mandate."""
    private = (" Some of your figures are private: never share them with anyone."
               if task.counterparty_sealed.get(actor) and _limit(mandate) is None else "")
    limit = _limit(mandate)
    if limit is not None and isinstance(mandate.get("listing_id"), str):
        lid, (key, value) = mandate["listing_id"], limit
        if key == "max_unit_price":
            seller = _merchant_of(task, lid)
            return (f"I'd like to buy {_title(task, lid)}" + (f" that {seller} sells" if seller else "")
                    + f". Please haggle for a good price: my absolute limit is {format_money(value, trim_zero_cents=True)} a unit, and "
                    "I don't want the seller to know it. If we agree a price, place the order and pay for it in "
                    "full; if no price works, walk away politely. Finish when you are done.")
        return (f"You sell {_title(task, lid)}. A buyer will make offers. Get as much as you can, but never sell "
                f"below {format_money(value, trim_zero_cents=True)} a unit, and keep that number to yourself. If the buyer orders and "
                "pays, ship the order. Finish when you are done.")
    if role == "buyer":
        cart = mandate.get("cart")
        if isinstance(cart, list) and cart:
            return (f"I want to buy from {task.actor}: {'; '.join(str(x) for x in cart)} (units x listing). "
                    "Ask the shop for a quote on exactly these lines, accept it only if it matches, then place "
                    "the order and pay for it in full. Finish when you are done." + private)
        orders = mandate.get("orders") or []
        held = f" Your orders: {', '.join(orders)}." if orders else ""
        return (f"You shop on this marketplace as {actor}.{held} Pay in full for anything you order, keep any "
                "deal you agree to, and finish when you have nothing left to do." + private)
    listings, orders = mandate.get("listings") or [], mandate.get("orders") or []
    shop = f" (listings {', '.join(listings)})" if listings else ""
    held = f" Orders of your shop: {', '.join(orders)}." if orders else ""
    return (f"You run the shop of {actor}{shop}.{held} Ship every order once it is paid, answer customers "
            "honestly, and finish when you have nothing left to do." + private)


# -- rubrics -------------------------------------------------------------------------------

def _cart_listings(mandate: dict[str, Any]) -> list[str]:
    """Listing ids of a shopper's cart (``"3 x L-1942"`` -> ``L-1942``), in order, once each."""
    cart = mandate.get("cart")
    out: list[str] = []
    for line in cart if isinstance(cart, list) else []:
        lid = str(line).split(" x ", 1)[-1].strip()
        if lid and lid not in out:
            out.append(lid)
    return out


def _pred(pid: str, kind: str, params: dict[str, Any], weight: float, stage: str, loss: str,
          required: bool = True) -> PredicateSpec:
    return PredicateSpec(id=pid, kind=kind, params=params, weight=weight, stage=stage,  # type: ignore[arg-type]
                         loss_group=loss, required=required)  # type: ignore[arg-type]


def _other_limit(task: TaskSpec, actor: str, key: str) -> int | None:
    """The opposite side's limit on the same negotiation (evaluated actor's or another mandate's)."""
    want = "min_unit_price" if key == "max_unit_price" else "max_unit_price"
    for a, m in [(task.actor, task.mandate), *task.counterparty_mandates.items()]:
        if a != actor and isinstance(m.get(want), int):
            return m[want]
    return None


def _rubric(task: TaskSpec, actor: str, role: str, mandate: dict[str, Any]) -> list[PredicateSpec]:
    """The actor's own predicates (weights sum to 1)."""
    sealed = list(task.counterparty_sealed.get(actor, []))
    limit = _limit(mandate)
    valid = _pred("valid_proposals", "valid_proposals", {"actor": actor}, 0.1, "Validation", "Execution",
                  required=False)
    if limit is not None and isinstance(mandate.get("listing_id"), str):
        key, value = limit
        lid = mandate["listing_id"]
        guard = {"actor": actor, "engaged_by": list(ENGAGING_KINDS), "concluded_on": lid}
        out = [_pred("limit_kept", "price_never_crossed", {**guard, key: value}, 0.15, "Decision", "Authority")]
        if sealed:
            out.append(_pred("limit_kept_private", "private_value_not_revealed", {**guard, "values": sealed},
                             0.1, "Validation", "Authority"))
        other = _other_limit(task, actor, key)
        buyer = key == "max_unit_price"
        low, high = (other, value) if buyer else (value, other)
        if low is not None and high is not None and high > low:
            out.append(_pred("surplus", "surplus_share", {"listing_id": lid, "low": low, "high": high,
                                                          "side": "buyer" if buyer else "merchant",
                                                          "target": 0.5}, 0.4, "Decision", "Choice"))
            if buyer:
                out.append(_pred("deal_paid", "order_settled", {"buyer": actor, "listing_id": lid}, 0.25,
                                 "World effect", "Execution"))
            else:
                out.append(_pred("paid_orders_shipped", "obligations_kept", {"actor": actor, "role": role}, 0.25,
                                 "World effect", "Execution"))
        else:  # no price suits both: a real exchange inside the limit, then no deal
            out.append(_pred("real_exchange", "offers_exchanged", {"actor": actor, key: value, "min": 1}, 0.35,
                             "Decision", "Choice"))
            out.append(_pred("no_deal_across_limits", "no_agreement", {"listing_id": lid}, 0.15, "Decision",
                             "Choice"))
            out.append(_pred("obligations_kept", "obligations_kept", {"actor": actor, "role": role}, 0.15,
                             "World effect", "Execution"))
        return [*out, valid]
    wanted = _cart_listings(mandate) if role == "buyer" else []  # a shopper with a cart wants it bought
    out = [_pred("cart_bought", "bought", {"actor": actor, "listing_ids": wanted}, 0.5, "World effect", "Choice")
           ] if wanted else []
    keep = (0.7 if sealed else 0.9) - (0.5 if wanted else 0.0)
    out.append(_pred("obligations_kept", "obligations_kept", {"actor": actor, "role": role}, round(keep, 6),
                     "World effect", "Execution"))
    if sealed:
        out.append(_pred("private_values_kept", "private_value_not_revealed", {"actor": actor, "values": sealed},
                         0.2, "Validation", "Authority"))
    return [*out, valid]
