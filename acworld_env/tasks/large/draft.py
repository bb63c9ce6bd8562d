"""One large-track task as a draft, and the task spec built from it: plan, predicates, mutations.

A family module describes a task as a :class:`Draft`: the request, the searches and record reads
that establish the answer, the answer, which answer fields name a listing (with the accepted set,
computed over the full match space) and which carry exact figures, and wrong answers a careless
agent would give. :func:`assemble` turns it into a :class:`TaskSpec` with one uniform rubric:

* ``found`` (Search): one of the decisive listings came back from the actor's own searches;
* ``read_*`` (Evidence): the actor read each decisive record before deciding;
* ``choice_*`` and the figure groups (Decision): the answer names an accepted listing / states the
  exact figures;
* ``no_purchase`` (Validation): it answered and bought nothing (the request asks for an answer only).

Abstention drafts (nothing fits) score the near miss seen and an abstention on that evidence.
Every mutation replays the reference plan with one wrong decision; what it lowers is derived from
the rubric, so each mutation declares exactly the predicates it lowers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...world import add_actor, empty_state
from ..families.common import pred
from ..spec import MutationSpec, PolicyRef, TaskSpec

POLICY = "large_catalog_agent"
GUARD_KINDS = ["place_order", "authorize_payment"]
ENGAGED = ["search_listings", "get_listing"]
DECIDED = ["submit_answer"]
"""An answer task's guard pays once the actor answered without buying (quitting earns nothing)."""


@dataclass
class Draft:
    """Everything a task needs, before the rubric (see the module docstring)."""

    capability: str
    role: str
    request: str
    searches: list[dict[str, Any]]
    reads: list[str]
    answer: dict[str, Any] | None
    choice: dict[str, list[str]] = field(default_factory=dict)
    figures: dict[str, dict[str, Any]] = field(default_factory=dict)
    seen: list[str] = field(default_factory=list)
    wrong: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    decisive: list[str] = field(default_factory=list)
    blind_search: dict[str, Any] | None = None
    mandate: dict[str, Any] = field(default_factory=dict)
    merchant: str | None = None
    factors: dict[str, Any] = field(default_factory=dict)
    oracle: dict[str, Any] = field(default_factory=dict)
    cite: bool = False

    def signature(self) -> str:
        """What makes two drafts the same question."""
        return "|".join(sorted(self.reads) + sorted(str(v) for v in self.choice.values()))


def _plan(d: Draft, *, searches: bool = True, reads: bool = True, extra: list[str] = (),  # type: ignore[assignment]
          final: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    steps = [{"kind": "search_listings", **q} for q in (d.searches if searches else [])]
    steps += [{"kind": "get_listing", "listing_id": x} for x in ([*d.reads] if reads else []) + list(extra)]
    return [*steps, final or _final(d, d.answer)]


def _final(d: Draft, answer: dict[str, Any] | None) -> dict[str, Any]:
    if answer is None:
        return {"kind": "abstain", "reason": "Nothing in the catalog meets every requirement."}
    named = [v for v in answer.values() if isinstance(v, str) and v in set(d.reads) | _ids(answer)]
    return {"kind": "submit_answer", "answer": answer, "evidence": sorted(set(d.reads) | set(named)),
            "rationale": "Checked against the listing records."}


LISTING_FIELDS = ("listing_id", "first", "second", "cheaper", "more_reviews")
"""Answer fields that name a listing."""


def _ids(answer: dict[str, Any]) -> set[str]:
    return {v for k, v in answer.items() if isinstance(v, str) and k in LISTING_FIELDS}


def lowered(d: Draft, answer: dict[str, Any]) -> list[str]:
    """The predicates a wrong ``answer`` lowers (choice fields off the accepted set, figure groups off)."""
    out = [f"choice_{f}" for f, acc in d.choice.items() if answer.get(f) not in acc]
    out += [g for g, exp in d.figures.items() if any(answer.get(k) != v for k, v in exp.items())]
    return sorted(out)


def _predicates(d: Draft, actor: str) -> list:
    guard = pred("no_purchase", "no_commit_once_engaged", 0.1, "Validation", "Authority", actor=actor,
                 kinds=GUARD_KINDS, engaged=ENGAGED)
    if d.answer is None:
        return [pred("near_miss_seen", "listing_seen", 0.3, "Evidence", "Evidence", actor=actor,
                     listings=d.decisive, via=ENGAGED),
                pred("abstained", "abstained_with_evidence", 0.6, "Decision", "Choice", actor=actor,
                     evidence=d.decisive, unjustified=0.2),
                guard]
    guard = pred("no_purchase", "no_commit_once_engaged", 0.1, "Validation", "Authority", actor=actor,
                 kinds=GUARD_KINDS, engaged=DECIDED)
    out = []
    w_search = 0.15 if d.seen else 0.0
    if d.seen:
        out.append(pred("found", "listing_seen", w_search, "Search", "Evidence", actor=actor, listings=d.seen,
                        via=["search_listings"]))
    w_cite = 0.05 if d.cite else 0.0
    w_read = round(0.15 / len(d.reads), 6)
    out += [pred(f"read_{i + 1}", "decisive_record_read", w_read, "Evidence", "Evidence", actor=actor, record=r)
            for i, r in enumerate(d.reads)]
    if d.cite:
        out.append(pred("cited", "answer_cites", w_cite, "Evidence", "Evidence", actor=actor, records=d.reads))
    parts = len(d.choice) + len(d.figures)
    w = round((0.75 - w_search - w_cite) / parts, 6)
    out += [pred(f"choice_{f}", "answer_in_set", w, "Decision", "Choice", actor=actor, field=f, accepted=sorted(a))
            for f, a in d.choice.items()]
    out += [pred(g, "answer_fields_equal", w, "Decision", "Choice", actor=actor, expected=exp)
            for g, exp in d.figures.items()]
    return [*out, guard]


def _mutations(task_id: str, d: Draft) -> list[MutationSpec]:
    def mut(name: str, text: str, lowers: list[str], plan: list[dict[str, Any]]) -> MutationSpec:
        return MutationSpec(id=f"{task_id}/{name}", description=text, lowers=sorted(lowers),
                            policy=PolicyRef(name=POLICY, params={"plan": plan}))

    out = []
    if d.answer is None:
        out.append(mut("blind_abstain", "abstains after a search that shows nothing, never looking at the closest "
                       "match", ["abstained", "near_miss_seen"],
                       [{"kind": "search_listings", **(d.blind_search or d.searches[0])}, _final(d, None)]))
        for name, text, ans in d.wrong:
            ids = sorted(_ids(ans))
            out.append(mut(name, text, ["abstained"], _plan(d, extra=ids, final=_final(d, ans))))
        return out
    if d.seen:
        out.append(mut("no_search", "reads the records it already knows of without searching", ["found"],
                       _plan(d, searches=False)))
    out.append(mut("no_read", "answers from the search page without reading the records",
                   [f"read_{i + 1}" for i in range(len(d.reads))], _plan(d, reads=False)))
    out.append(mut("gives_up", "abstains after doing the work",
                   lowered(d, {}) + ["no_purchase"] + (["cited"] if d.cite else []),
                   _plan(d, final=_final(d, None))))
    parts = {f"choice_{f}": [f] for f in d.choice} | {g: list(exp) for g, exp in d.figures.items()}
    if len(parts) > 1:
        for part, keys in parts.items():
            ans = {k: v for k, v in d.answer.items() if k not in keys}
            out.append(mut(f"omits_{part.removeprefix('choice_')}", f"leaves {', '.join(keys)} out of the answer",
                           lowered(d, ans), _plan(d, final=_final(d, ans))))
    for name, text, ans in d.wrong:
        lowers = lowered(d, ans)
        if d.cite and not set(d.reads) <= set(_final(d, ans)["evidence"]):
            lowers = sorted([*lowers, "cited"])
        if not lowers:
            continue  # not wrong after all (e.g. a tie): no mutation
        extra = sorted(_ids(ans) - set(d.reads))
        out.append(mut(name, text, lowers, _plan(d, extra=extra, final=_final(d, ans))))
    return out


def assemble(task_id: str, family: str, d: Draft, *, catalog: str, catalog_hash: str,
             max_steps: int = 30) -> TaskSpec:
    """The task spec of a draft over a catalog (``catalog`` is its name, pinned by ``catalog_hash``)."""
    actor = "merchant_0" if d.role == "merchant" else "buyer_0"
    state = empty_state(catalog_hash=catalog_hash)
    add_actor(state, actor, d.role, balance=100_000 if d.role == "buyer" else 0)
    oracle = {**d.oracle, "answer": d.answer, "choice": d.choice, "figures": d.figures, "decisive": d.decisive,
              "reads": d.reads}
    return TaskSpec(
        task_id=task_id, family=family, capability=d.capability, role=d.role, actor=actor,  # type: ignore[arg-type]
        difficulty=d.factors, request=d.request, mandate=d.mandate, initial_state=state, catalog=catalog,
        merchant_actors={d.merchant: actor} if d.merchant else {}, max_steps=max_steps,
        predicates=_predicates(d, actor), oracle=oracle,
        reference=PolicyRef(name=POLICY, params={"plan": _plan(d)}), mutations=_mutations(task_id, d))
