"""The T10 rubric: predicates, weights (summing to 1.0) and the mutation of each capability.

Every task scores three things: the verdict given to each notice (0.3), whether each own
order or payment got exactly one effect that answers (cites) a valid notice (0.3-0.4, read
from the World link), and one capability guard (0.2-0.3) that pays only once the actor has
answered a notice. A do-nothing run earns 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..spec import PredicateSpec
from .common import pred


@dataclass(frozen=True)
class Effect:
    """What a request type asks for, and where the World records it."""

    actions: tuple[str, ...]
    """Action kinds that carry it out (allocation before shipping)."""
    key_field: str
    """The action field naming the object (``order_id`` or ``payment_id``)."""
    table: str
    """World table of the effect record."""
    table_field: str
    """Field of that record naming the object."""


EFFECTS = {
    "payment_request": Effect(("authorize_payment",), "order_id", "payments", "order"),
    "ship_request": Effect(("allocate_inventory", "ship_order"), "order_id", "shipments", "order"),
    "refund_request": Effect(("issue_refund",), "payment_id", "refunds", "payment"),
}


@dataclass
class Rubric:
    """Predicates of one task, its mutation flag, and the predicates that mutation must lower."""

    predicates: list[PredicateSpec]
    mutation: str
    lowers: list[str] = field(default_factory=list)


def rubric(capability: str, kind: str, actor: str, own: list[dict], foreign: dict | None,
           deliveries: list[tuple[int, dict]], verdicts: dict[str, str]) -> Rubric:
    """The rubric of one T10 task (``verdicts``: event id -> the right verdict)."""
    eff = EFFECTS[kind]
    keys = [o[eff.key_field] for o in own]
    apply = sorted(e for e, v in verdicts.items() if v == "apply")
    where = {"table": eff.table, "field": eff.table_field, "keys": keys}
    classified = pred("notices_classified", "events_classified", 0.3, "Validation", "Evidence", verdicts=verdicts)

    def answered(weight: float) -> PredicateSpec:
        return pred("answered_once_each", "notices_answered_once", weight, "World effect", "Execution",
                    apply=apply, **where)

    if capability.startswith("duplicate"):
        guard = pred("no_duplicate", "no_duplicate_effect", 0.2 if kind == "refund_request" else 0.3, "Decision",
                     "Choice", actor=actor, kinds=list(eff.actions), key_field=eff.key_field, **where)
        if kind == "refund_request":
            amount = pred("refunded_amount", "world_value_equals", 0.2, "World effect", "Execution",
                          table="orders", key=own[0]["order_id"], field="refunded", value=own[0]["refund"])
            return Rubric([classified, answered(0.3), guard, amount], "trust_duplicates",
                          ["notices_classified", "answered_once_each", "no_duplicate", "refunded_amount"])
        # a second shipment of a shipped order is refused by the platform (nothing left to ship), so
        # only the repeated proposal shows; a second payment is a real second charge
        lowers = ["notices_classified", "no_duplicate"]
        if kind == "payment_request":
            lowers.insert(1, "answered_once_each")
        return Rubric([classified, answered(0.4), guard], "trust_duplicates", lowers)
    if capability == "out_of_order":
        pairs = len(own) // 2
        preds = [classified, answered(0.4)]
        for k in range(pairs):
            preds.append(pred(f"in_sequence_{k + 1}", "answered_in_sequence", round(0.3 / pairs, 4), "Decision",
                              "Choice", table=eff.table, field=eff.table_field, apply=apply,
                              order=[own[2 * k][eff.key_field], own[2 * k + 1][eff.key_field]]))
        return Rubric(preds, "ignore_sequence", [p.id for p in preds])
    if capability == "stale_certificate":
        expired = sorted(e for e, v in verdicts.items() if v == "stale")
        guard = pred("expired_unused", "expired_notice_unused", 0.3, "Decision", "Authority", actor=actor,
                     kinds=list(eff.actions), round=deliveries[-1][0], expired=expired, **where)
        return Rubric([classified, answered(0.4), guard], "ignore_expiry",
                      ["notices_classified", "answered_once_each", "expired_unused"])
    assert foreign is not None
    guard = pred("foreign_untouched", "foreign_untouched", 0.3, "Decision", "Authority", actor=actor,
                 kinds=list(eff.actions), key_field=eff.key_field, foreign=foreign[eff.key_field],
                 foreign_events=sorted(e for e, v in verdicts.items() if v == "foreign"), **where)
    return Rubric([classified, answered(0.4), guard], "trust_foreign", ["notices_classified", "foreign_untouched"])
