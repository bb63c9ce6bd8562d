"""Record facts of a slot (``acworld_env/wrappers/slot_records.py``): they mark what the reference's choices
turn on in lifecycle and inventory tasks, they come from the actor's own reads, and a scorer saved with the
first features alone still plays as it did."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from acworld_env.envs.candidates import LABELS, SLOTS
from acworld_env.envs.known import Known
from acworld_env.eval.rollout import run_episode
from acworld_env.tasks.suites import load_suite
from acworld_env.wrappers.menu import n_features
from acworld_env.wrappers.menu_coverage import INBOX_SLOT, task_coverage
from acworld_env.wrappers.slot_features import (
    SLOT_FEATURES,
    SLOT_FEATURES_V1,
    SLOT_WIDTHS,
    SlotFeaturiser,
)
from acworld_env.wrappers.slot_scorer import (
    ARCHITECTURE,
    scorer_logits,
    scorer_shapes,
    slot_signature,
    slot_width,
)
from acworld_env.wrappers.trained import PolicyFileError, TrainedMenuPolicy, write_sidecar

COL = {name: i for i, name in enumerate(SLOT_FEATURES)}
ROOT = Path(__file__).resolve().parents[2]


@lru_cache(maxsize=4)
def generated(seed: int) -> tuple[Any, ...]:
    return tuple(load_suite("capability-v1", "generated", seed))


def _steps(task: Any) -> list[dict[str, Any]]:
    """Every reference step, waits included: the rows, the menu and the chosen slot."""
    slotter, out = SlotFeaturiser(), []

    def hook(env: Any, agent: str, actions: list[Any], index: int) -> None:
        rows = slotter(env.raw_observation(agent), env.known(agent), actions)
        out.append({"rows": rows, "actions": actions, "chosen": index, "round": env.raw_observation(agent)["round"]})

    task_coverage(task, hints="off", on_step=hook, reference_score=False, idle_steps=True)
    return out


def _tasks(capability: str, seeds: tuple[int, ...] = (1, 2)) -> list[Any]:
    return [t for s in seeds for t in generated(s) if t.capability == capability]


def test_a_lost_parcel_is_disputed_a_late_one_waited_for_and_the_end_of_notices_is_known():
    checked = 0
    for task in _tasks("buyer_delivery_exception"):
        steps = _steps(task)
        end = task.mandate["updates_close_round"]
        for step in steps:
            rows, chosen, action = step["rows"], step["chosen"], step["actions"][step["chosen"]]
            if action["kind"] == "open_dispute":
                assert rows[chosen, COL["order_lost"]] == 1.0, task.task_id
                late = [i for i, a in enumerate(step["actions"]) if a is not None and a["kind"] == "open_dispute"
                        and rows[i, COL["order_delayed"]] == 1.0]
                assert all(rows[i, COL["order_lost"]] == 0.0 for i in late)
                checked += 1
            if chosen == INBOX_SLOT:  # the reference waits while notices are still due
                assert rows[chosen, COL["notices_due"]] == 1.0 and step["round"] <= end, task.task_id
            if action["kind"] == "finish":
                assert rows[chosen, COL["notices_due"]] == 0.0, task.task_id
        assert sum(s["chosen"] == INBOX_SLOT for s in steps) >= 3  # waits are demonstrated
    assert checked >= 3


def test_returns_the_policy_rules_out_are_the_ones_the_reference_denies():
    approved = denied = flagged = 0
    for task in _tasks("merchant_return_authorization"):
        for step in _steps(task):
            action = step["actions"][step["chosen"]]
            if action["kind"] != "authorize_return":
                continue
            row = step["rows"][step["chosen"]]
            ruled_out = row[COL["outside_return_window"]] == 1.0 or row[COL["excluded_item"]] == 1.0
            if action["approve"]:
                approved += 1
                assert not ruled_out, task.task_id  # nothing the records show rules an approved one out
            else:
                denied += 1
                flagged += ruled_out
    assert approved >= 3 and denied >= 3 and flagged >= denied // 2


def _known(request: str, mandate: dict[str, Any]) -> tuple[Known, dict[str, Any]]:
    known = Known(actor="buyer_0", role="buyer")
    raw = {"actor": "buyer_0", "role": "buyer", "request": request, "mandate": mandate, "round": 2, "step": 2,
           "max_steps": 20, "inbox": []}
    known.feed(raw)
    return known, raw


def _read(slotter: SlotFeaturiser, known: Known, raw: dict[str, Any], kind: str, result: dict[str, Any],
          vid: str) -> dict[str, Any]:
    seen = {**raw, "last_result": {"kind": kind, "accepted": True, "validation_id": vid, "result": result}}
    known.feed(seen)
    known.feed(action={"kind": kind, **{k: v for k, v in result.items() if k.endswith("_id")}})
    slotter(seen, known, [None] * len(SLOTS))
    return seen


def test_a_promised_day_after_the_move_and_an_open_hold_come_from_the_records_read():
    slotter = SlotFeaturiser()
    known, raw = _known("I'm moving out on day 6 (today is day 0). My open orders: ord-0001 and ord-0002.", {})
    raw = _read(slotter, known, raw, "get_order", {"order_id": "ord-0001", "status": "authorized", "eta_round": 9,
                                                   "payment": "pay-0001", "lines": []}, "v1")
    raw = _read(slotter, known, raw, "get_order", {"order_id": "ord-0002", "status": "paid", "eta_round": 3,
                                                   "payment": "pay-0002", "lines": []}, "v2")
    ledger = {"ledger": {"ord-0002": {"entries": [{"type": "authorize", "amount": 10, "payment": "pay-0002"},
                                                  {"type": "capture", "amount": 10, "payment": "pay-0002"},
                                                  {"type": "authorize", "amount": 10, "payment": "pay-0003"}]}}}
    raw = _read(slotter, known, raw, "get_ledger", ledger, "v3")
    actions: list[Any] = [None] * len(SLOTS)
    actions[0] = {"kind": "cancel_order", "order_id": "ord-0001"}
    actions[1] = {"kind": "cancel_order", "order_id": "ord-0002"}
    actions[2] = {"kind": "void_authorization", "payment_id": "pay-0003"}
    actions[3] = {"kind": "void_authorization", "payment_id": "pay-0002"}
    rows = slotter(raw, known, actions)
    assert rows[0, COL["arrives_after_stated_day"]] == 1.0 and rows[1, COL["arrives_after_stated_day"]] == 0.0
    assert rows[0, COL["order_open"]] == 1.0 and rows[2, COL["names_order"]] == 1.0
    assert rows[2, COL["extra_hold"]] == 1.0 and rows[3, COL["extra_hold"]] == 0.0
    blank = {k: v for k, v in raw.items() if k != "last_result"}
    unread = SlotFeaturiser()(blank, Known(actor="buyer_0", role="buyer"), actions)  # one that never saw the reads
    assert unread[:, COL["arrives_after_stated_day"]].sum() == unread[:, COL["extra_hold"]].sum() == 0.0
    assert unread[:4, COL["names_order"]].tolist() == [1.0, 1.0, 0.0, 0.0]  # the cancels name their orders


def _scorer(path: Path, width: int, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    weights = {k: rng.normal(0, 0.5, shape).astype(np.float32)
               for k, shape in scorer_shapes(n_features("bow"), 16, width).items()}
    with open(path, "wb") as fh:
        np.savez(fh, **weights)
    write_sidecar(path, hints="off", featuriser="bow", net_arch=[16], algorithm="slot-scorer PPO",
                  extra={"architecture": ARCHITECTURE, "slots": slot_signature(width)})
    return path


def test_a_scorer_saved_with_the_first_features_reads_only_those_and_others_are_refused(tmp_path):
    assert (len(SLOT_FEATURES_V1), len(SLOT_FEATURES)) == SLOT_WIDTHS and SLOT_FEATURES[:62] == SLOT_FEATURES_V1
    # a scorer saved before the record facts existed names the first columns' signature, and still loads
    old_path = _scorer(tmp_path / "old.npz", len(SLOT_FEATURES_V1))
    assert slot_width(json.loads(old_path.with_name("old.npz.json").read_text())["slots"]) == len(SLOT_FEATURES_V1)
    old = TrainedMenuPolicy(old_path)
    rng = np.random.default_rng(3)
    rows, slots, x = rng.random((4, len(SLOT_FEATURES))).astype(np.float32), np.array([1, 5, 9, 12]), \
        rng.normal(size=n_features("bow")).astype(np.float32)
    changed = rows.copy()
    changed[:, len(SLOT_FEATURES_V1):] = rng.random((4, len(SLOT_FEATURES) - len(SLOT_FEATURES_V1)))
    assert np.array_equal(scorer_logits(old.weights, x, rows, slots), scorer_logits(old.weights, x, changed, slots))
    new = TrainedMenuPolicy(_scorer(tmp_path / "new.npz", len(SLOT_FEATURES)))
    assert not np.array_equal(scorer_logits(new.weights, x, rows, slots), scorer_logits(new.weights, x, changed, slots))
    task = generated(1)[0]
    assert run_episode(task, old, seed=0).score is not None and run_episode(task, new, seed=0).score is not None
    with pytest.raises(PolicyFileError, match="trained for other slot features"):
        TrainedMenuPolicy(_scorer(tmp_path / "odd.npz", 40))
    assert LABELS[INBOX_SLOT] == "inbox"
