"""T2 answers answer what was asked: the figure asked, in the unit asked, on the fields the request named.

Stating every figure of the record in every unit is all true, and earns no answer credit: a reply
that recites the record, an answer with a field per unit, a listing update that rewrites every
spec with every unit. The ``spray_every_fact`` shortcut does exactly that on every T2 task and
must stay under the baseline gate on the frozen suite and on a generated split.
"""

from __future__ import annotations

from collections import defaultdict

import pytest

from acworld_env.eval.baseline_gate import (
    SHORTCUT_FULL_SHARE,
    SHORTCUT_MEAN,
    gate_failures,
    run_baselines,
)
from acworld_env.eval.rollout import run_episode
from acworld_env.policies.make import make_policy
from acworld_env.scoring.grounding_units import key_unit
from acworld_env.tasks.families.grounding import FAMILY, build
from acworld_env.tasks.families.grounding_draft import FINISH, answer, read, set_claims
from acworld_env.tasks.families.grounding_spray import every_unit
from acworld_env.tasks.spec import PolicyRef, TaskSpec
from acworld_env.tasks.suites import load_suite

FROZEN = build(0, frozen=True)


def _task(capability: str, n: int = 1) -> TaskSpec:
    """The n-th frozen task of a capability."""
    return next(t for t in FROZEN if t.capability == capability and t.task_id.endswith(f"/{n:02d}"))


def _params(task: TaskSpec, pid: str) -> dict:
    """A predicate's params."""
    return next(p.params for p in task.predicates if p.id == pid)


def _credits(task: TaskSpec, plan: list[dict]) -> dict[str, float]:
    """Predicate credits of a plan replayed on the task."""
    return run_episode(task, make_policy(PolicyRef(name="grounded_plan", params={"plan": plan}))).score.credits


def _record(task: TaskSpec, pid: str) -> dict[str, tuple[float, str]]:
    """Spec stem -> (figure, unit) of the task's authoritative record, from a predicate's authority."""
    p = _params(task, pid)
    if "authority" in p:
        return {key_unit(k)[0]: (float(v), str(key_unit(k)[1])) for k, v in p["authority"].items()}
    return {s: (float(v), str(u)) for s, (v, u) in p["specs"].items()}


def _reply(text: str) -> dict:
    """An answer to the waiting question."""
    return {"kind": "answer_question", "in_reply_to": "$question", "text": text}


@pytest.mark.parametrize("n", [1, 2, 3])
def test_a_reply_reciting_every_figure_in_every_unit_loses_the_answer_credit(n: int) -> None:
    task = _task("evidence_backed_response", n)
    listing = task.mandate["listing"]
    spray = "; ".join(f"{s} " + " / ".join(every_unit(f).values()) for s, f in _record(task, "no_unsupported_figure").items())
    exact = _credits(task, [*read(listing), _reply(task.oracle["reply"]), FINISH])
    sprayed = _credits(task, [*read(listing), _reply(f"From our product record: {spray}."), FINISH])
    assert exact["reply_grounded"] == 1.0 and all(v == 1.0 for v in exact.values())
    assert sprayed["reply_grounded"] == 0.0
    assert sprayed["no_unsupported_figure"] == 1.0, "every figure sprayed is true; only the answer credit goes"


def test_the_asked_figures_alone_in_another_unit_or_every_unit_do_not_answer() -> None:
    task = next(t for t in FROZEN if t.capability == "evidence_backed_response" and _params(t, "reply_grounded")["units"])
    p = _params(task, "reply_grounded")
    listing = task.mandate["listing"]
    asked = {k: (float(v), str(key_unit(k)[1])) for k, v in p["requested"].items()}
    every = " and ".join(" / ".join(every_unit(f).values()) for f in asked.values())
    unnamed = " and ".join(f"{f[0]:g} {f[1]}" for f in asked.values())
    assert _credits(task, [*read(listing), _reply(f"It is {every}."), FINISH])["reply_grounded"] == 0.0
    assert _credits(task, [*read(listing), _reply(f"It is {unnamed}."), FINISH])["reply_grounded"] < 1.0


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_a_listing_update_rewriting_every_field_with_every_unit_loses_credit(n: int) -> None:
    task = _task("truthful_listing_update", n)
    listing = task.mandate["listing"]
    record = _record(task, "nothing_unsupported")
    in_value = {s: " / ".join(every_unit(f).values()) for s, f in record.items()}
    per_key = {f"{s}_{u}": text for s, f in record.items() for u, text in every_unit(f).items()}
    exact = _credits(task, [*read(listing), set_claims(listing, task.oracle["claims"]), FINISH])
    assert all(v == 1.0 for v in exact.values()), exact
    for claims in (in_value, per_key):
        sprayed = _credits(task, [*read(listing), set_claims(listing, claims), FINISH])
        assert sprayed["claims_grounded"] == 0.0 and sprayed["nothing_unsupported"] == 0.0, (claims, sprayed)


def test_a_listing_update_of_the_named_fields_in_other_units_is_not_the_update_asked() -> None:
    task = next(t for t in FROZEN if t.capability == "truthful_listing_update"
                and any(u != _params(t, "claims_grounded")["expected"][s][1]
                        for s, u in _params(t, "claims_grounded")["units"].items()))
    listing = task.mandate["listing"]
    expected = _params(task, "claims_grounded")["expected"]
    in_record_units = {s: f"{v:g} {u}" for s, (v, u) in expected.items()}
    got = _credits(task, [*read(listing), set_claims(listing, in_record_units), FINISH])
    assert got["claims_grounded"] < 1.0 and got["nothing_unsupported"] == 1.0


def test_a_buyer_answer_with_a_field_per_unit_loses_the_figure_credit() -> None:
    task = _task("conflict_and_normalization")
    record = task.oracle["record"]
    fields = {k: v for k, v in task.oracle["answer"].items() if k != "listing_id"}
    per_unit = {f"{key_unit(k)[0]}_{u}": text for k, v in fields.items()
                for u, text in every_unit((float(v), str(key_unit(k)[1]))).items()}
    plan = read(*task.mandate["listings"])
    exact = _credits(task, [*plan, answer(task.oracle["answer"], [record], "From the record.")])
    sprayed = _credits(task, [*plan, answer({"listing_id": record, **per_unit}, [record], "Every unit.")])
    assert exact["figures_grounded"] == 1.0 and sprayed["figures_grounded"] == 0.0


@pytest.mark.parametrize(("split", "seed"), [("frozen", 0), ("generated", 5)])
def test_the_spray_shortcut_stays_under_the_gate(split: str, seed: int) -> None:
    tasks = [t for t in load_suite("capability-v1", split, seed) if t.family == FAMILY]
    assert len(tasks) == 20
    runs = run_baselines(tasks, seeds=1)
    spray = next(r for r in runs if r.baseline == "shortcut:spray_every_fact")
    assert spray.mean <= SHORTCUT_MEAN - 0.05, spray.worst(5)
    by_cap: dict[str, list[bool]] = defaultdict(list)
    for t, full in spray.full.items():
        by_cap[spray.capability[t]].append(full)
    assert all(sum(v) / len(v) <= SHORTCUT_FULL_SHARE for v in by_cap.values()), dict(by_cap)
    assert gate_failures([r for r in runs if r.baseline.startswith("shortcut:")]) == []
