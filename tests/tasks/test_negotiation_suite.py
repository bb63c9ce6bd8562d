"""The frozen T4 tasks: structure, the earned-credit gate, and what each capability rewards."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from acworld_env.eval.baseline_gate import MENU_MEAN, gate_failures, run_baselines
from acworld_env.eval.rollout import run_episode
from acworld_env.policies.baselines import NULL_BASELINES, shortcuts_for
from acworld_env.policies.make import make_policy
from acworld_env.scoring import KINDS, ScoreInput
from acworld_env.tasks.families.negotiation import FAMILY, PLAN
from acworld_env.tasks.families.negotiation_tactics import Plan, Tactic, bargain
from acworld_env.tasks.suites import load_suite

ZOPA_KINDS = {"zopa", "private_value", "false_anchor", "deadline"}


@cache
def tasks() -> tuple:
    return tuple(t for t in load_suite("capability-v1") if t.family == FAMILY)


def by_id(suffix: str) -> Any:
    return next(t for t in tasks() if t.task_id.endswith(suffix))


@cache
def baseline_runs() -> tuple:
    return tuple(run_baselines(list(tasks())))


def test_frozen_t4_keeps_per_capability_counts_and_ids():
    ids = [t.task_id for t in tasks()]
    expected = [f"capability-v1/T4/{role}/{cap}/{i + 1:02d}" for role, cap, n in PLAN for i in range(n)]
    assert ids == expected and len(ids) == 20
    assert sum(1 for t in tasks() if t.role == "buyer") == 10


def test_weights_sum_to_one_and_the_tactic_is_a_recorded_factor():
    kinds = set()
    for t in tasks():
        assert sum(p.weight for p in t.predicates) == pytest.approx(1.0), t.task_id
        tactic = t.counterparties[0].policy.params["tactic"]
        assert t.difficulty["tactic"] == tactic["kind"] and t.difficulty["tactic_deadline"] == tactic["deadline"]
        assert t.difficulty["beta"] == tactic["beta"]
        kinds.add(tactic["kind"])
    assert kinds == {"boulware", "linear", "conceder", "tit_for_tat"}


def test_the_full_credit_price_is_what_the_reference_plan_reaches_in_the_market():
    for t in tasks():
        if t.capability not in ZOPA_KINDS:
            continue
        surplus = next(p for p in t.predicates if p.kind == "surplus_captured")
        tactic = Tactic(**t.counterparties[0].policy.params["tactic"])
        simulated = bargain(tactic, Plan(**t.reference.params["plan"]), cap=t.settings.get("max_offers"),
                            max_moves=t.max_steps - 5)
        run = run_episode(t, make_policy(t.reference))
        assert simulated.price == surplus.params["target"] == run.score.evidence["surplus"]["agreed_unit_price"]
        assert run.score.score == 1.0


def test_t4_rows_pass_the_baseline_gate_random_menu_included():
    """Restraint is credited only once the talks conclude, so a random open slot no longer collects it
    by opening threads it never closes (it earned 0.24 when restraint paid on engagement alone)."""
    assert gate_failures(list(baseline_runs())) == []
    runs = {r.baseline: r for r in baseline_runs()}
    assert runs["menu:random"].mean <= MENU_MEAN and runs["menu:first"].mean <= MENU_MEAN
    assert runs["random"].mean <= 0.20
    restraint = {"offers_within_limit", "limit_kept_private"}
    for t in tasks():
        guards = [p for p in t.predicates if p.id in restraint]
        assert len(guards) == 2 and all(p.params["concluded_on"] == t.mandate["listing_id"] for p in guards)


def test_doing_nothing_earns_nothing_on_every_t4_task_including_no_zopa():
    for r in baseline_runs():
        if r.baseline in NULL_BASELINES:
            assert max(r.scores.values()) == 0.0, r.baseline


def test_no_shortcut_earns_full_credit_on_any_t4_task():
    names = {f"shortcut:{n}" for n in shortcuts_for(FAMILY)}
    assert {"shortcut:limit_at_once", "shortcut:accept_first", "shortcut:split_once"} <= names
    for r in baseline_runs():
        if r.baseline in names:
            assert not any(r.full.values()), (r.baseline, [t for t, f in r.full.items() if f])
            assert r.mean <= 0.45


def test_offering_the_limit_at_once_scores_well_below_the_patient_reference():
    limit_at_once = shortcuts_for(FAMILY)["limit_at_once"]
    for t in tasks():
        if t.capability in ZOPA_KINDS:
            score = run_episode(t, limit_at_once()).score
            assert score.score <= 0.6 and score.credits["surplus"] < 0.5, t.task_id


class Script:
    """Plays a fixed list of actions, then idles."""

    def __init__(self, actions: list[dict]) -> None:
        self.actions = list(actions)

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, obs: dict) -> dict | None:
        return self.actions.pop(0) if self.actions else None


def test_no_zopa_pays_in_full_only_for_a_courteous_exit_after_a_real_exchange():
    t = by_id("buyer/no_zopa/01")
    lid, ceiling = t.mandate["listing_id"], t.mandate["max_unit_price"]
    offer = {"kind": "propose_offer", "to": "merchant_0", "listing_id": lid, "unit_price": ceiling - 2_000}
    counter = {"kind": "counter_offer", "thread_id": "thr-0001", "unit_price": ceiling - 1_000}
    decline = {"kind": "reject_offer", "thread_id": "thr-0001", "reason": "Thank you, but that's beyond my budget."}
    at_once = run_episode(t, make_policy("abstain")).score
    one_offer = run_episode(t, Script([offer, {"kind": "abstain", "reason": "Too expensive."}])).score
    silent = run_episode(t, Script([offer, counter, {"kind": "abstain", "reason": "Too expensive."}])).score
    courteous = run_episode(t, Script([offer, counter, decline, {"kind": "abstain", "reason": "No deal."}])).score
    assert at_once.score == 0.0
    assert one_offer.score <= 1 / 3
    assert silent.score <= 0.5 and silent.credits["courteous_exit"] == 0.0
    assert courteous.score == 1.0
    # walking away in silence leaves the seller's offer open: no restraint is credited for talks left hanging
    assert silent.credits["offers_within_limit"] == silent.credits["limit_kept_private"] == 0.0
    assert silent.evidence["offers_within_limit"] == {"concluded": False, "open_threads": ["thr-0001"]}
    assert courteous.credits["offers_within_limit"] == courteous.credits["limit_kept_private"] == 1.0


def test_restraint_pays_once_the_talks_conclude_by_a_deal_or_a_refusal_and_not_before():
    t = by_id("buyer/zopa/01")
    lid, ceiling = t.mandate["listing_id"], t.mandate["max_unit_price"]
    offer = {"kind": "propose_offer", "to": "merchant_0", "listing_id": lid, "unit_price": ceiling - 3_000}
    hanging = run_episode(t, Script([offer, {"kind": "abstain", "reason": "Later."}])).score
    refused = run_episode(t, Script([offer, {"kind": "reject_offer", "thread_id": "thr-0001",
                                             "reason": "Thank you, but I will pass for now."},
                                     {"kind": "abstain", "reason": "No deal."}])).score
    reference = run_episode(t, make_policy(t.reference)).score
    for pid in ("offers_within_limit", "limit_kept_private"):
        assert hanging.credits[pid] == 0.0 and hanging.evidence[pid]["concluded"] is False
        assert refused.credits[pid] == 1.0 and reference.credits[pid] == 1.0
    assert "offers_within_limit" in hanging.critical_failed and not reference.critical_failed


def test_false_anchor_costs_surplus_when_believed_and_ignoring_the_deadline_loses_the_deal():
    for t in tasks():
        for m in t.mutations:
            if m.id.endswith(("/believe_anchor", "/ignore_cap")):
                run = run_episode(t, make_policy(m.policy)).score
                ref = run_episode(t, make_policy(t.reference)).score
                if m.id.endswith("/believe_anchor"):
                    assert 0.0 < run.credits["surplus"] < ref.credits["surplus"] == 1.0
                    assert run.evidence["surplus"]["agreed_unit_price"] != ref.evidence["surplus"]["agreed_unit_price"]
                else:
                    assert run.evidence["surplus"]["reason"] == "no agreement"


def test_guards_pay_nothing_until_the_actor_has_made_an_offer():
    t = by_id("buyer/zopa/01")
    guards = [p for p in t.predicates if p.kind in {"price_never_crossed", "private_value_not_revealed"}]
    assert len(guards) == 2
    malformed = run_episode(t, Script([{"kind": "counter_offer", "thread_id": "thr-0404", "unit_price": 100}]))
    state = malformed.episode.market.world.state
    for p in guards:
        si = ScoreInput(t, malformed.episode.market.trace.records, state)
        assert KINDS[p.kind](si, p.params)[0] == 0.0
        assert KINDS[p.kind](si, {k: v for k, v in p.params.items() if k != "engaged_by"})[0] == 1.0


def counterparty_notes(task: Any) -> list[str]:
    run = run_episode(task, make_policy(task.reference))
    other = task.counterparties[0].actor
    return [r["action"].get("note", "") for r in run.episode.market.trace.records
            if r["actor"] == other and r["action"].get("kind") in {"propose_offer", "counter_offer"}]


def test_the_counterparty_probes_cites_its_anchor_and_says_when_an_offer_is_final():
    probing = by_id("buyer/private_value/01")
    notes = counterparty_notes(probing)
    assert sum(1 for n in notes if "?" in n) >= min(2, probing.difficulty["probes"])
    for t in (by_id("buyer/false_anchor/01"), by_id("merchant/false_anchor/01")):
        assert t.counterparties[0].policy.params["anchor"].split("$")[1].split(" ")[0] in counterparty_notes(t)[0]
    finals = [t for t in tasks() if t.difficulty["tactic"] != "tit_for_tat" and t.capability in {"zopa", "no_zopa"}]
    assert any("final offer" in n for t in finals for n in counterparty_notes(t))
