"""The env step's fast paths give exactly what the plain code gave (issue 19, item 1).

Each test pins one shortcut to its slow, obvious form: the trace record's hash to the chain over its
JSON form, the canonical encoder to ``json.dumps``, the cached rubric of :func:`assemble` to the
formula written out, the World's kept initial image to independent copies, the lazily made walk
generator to an eager one, and the single-copy inbox of an observation to ``Market.inbox``.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace

import numpy as np
import pytest

import acworld_env
from acworld_env.scoring.kinds import CRITICAL
from acworld_env.scoring.score import LOSS_GROUPS, STAGES, Score, assemble, score_json
from acworld_env.tasks.suites import load_suite
from acworld_env.trace import Trace, TraceRecord, Validation, verify_trace
from acworld_env.world import World
from acworld_env.world.digest import GENESIS, canonical, chain

TASKS = load_suite("capability-v1")


def _validation(n: int) -> Validation:
    return Validation(validation_id=f"val-{n:05d}", envelope_id=f"env-0-{n:05d}", actor="buyer_0",
                      kind="get_inbox", accepted=True, code="ok", message="")


def test_a_record_hash_is_the_chain_over_its_json_form_with_and_without_optional_keys() -> None:
    trace = Trace()
    trace.append(round=0, actor="buyer_0", role="buyer", envelope={"e": 1}, action={"kind": "get_inbox"},
                 validation=_validation(1))
    trace.append(round=1, actor="buyer_0", role="buyer", envelope={"e": 2}, action={"kind": "get_inbox"},
                 validation=_validation(2), delta=[["orders", "ord-0001", {"total": 5}]], commit=1,
                 result={"items": ["é", 3]}, meta={"latency_ms": 12}, replayed=True, original_validation="val-00001")
    trace.append(round=1, actor="buyer_0", role="buyer", envelope=None, action={"kind": "x"},
                 validation=_validation(3), meta={})  # an empty meta is left out, as before
    head = GENESIS
    for rec in trace.records:
        assert rec.prev == head and rec.hash == chain(head, rec.body())
        head = rec.hash
    assert "meta" in trace.records[1] and "original_validation" in trace.records[1]
    assert "meta" not in trace.records[0] and "meta" not in trace.records[2]
    assert verify_trace(trace.records) == trace.digest


def test_a_record_kind_is_read_from_its_action_and_is_not_part_of_its_json_form() -> None:
    trace = Trace()
    rec = trace.append(round=0, actor="buyer_0", role="buyer", envelope=None, action={"kind": "get_inbox"},
                       validation=_validation(1))
    unparsed = trace.append(round=0, actor="buyer_0", role="buyer", envelope=None, action={"unparsed": "?"},
                            validation=_validation(2))
    assert rec.kind == "get_inbox" and unparsed.kind is None
    assert "kind" not in rec.to_dict() and "kind" not in rec.body()
    assert TraceRecord.from_dict(rec.to_dict()) == rec and TraceRecord.from_dict({"action": "text"}).kind is None
    assert replace(rec, action={"kind": "finish"}).kind == "finish"


@pytest.mark.parametrize("value", [
    {"b": 1, "a": [True, None, "ü\u2028x"], "c": {"z": "\"q\"", "y": -3}}, [], "plain", 10**30, {"": {}},
])
def test_canonical_is_json_dumps_with_sorted_keys_and_no_spaces(value: object) -> None:
    assert canonical(value) == json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _assemble_written_out(task, credits, evidence, weights):  # the formula as it stood before the cache
    def w(p):
        return 1.0 if weights == "equal" else p.weight
    preds = task.predicates
    score = sum(w(p) * credits[p.id] for p in preds) / sum(w(p) for p in preds)
    stages = {}
    for stage in STAGES:
        group = [p for p in preds if p.stage == stage]
        if group:
            stages[stage] = round(sum(w(p) * credits[p.id] for p in group) / sum(w(p) for p in group), 12)
    full = all(credits[p.id] >= 1.0 for p in preds if p.required)
    missing = {g: 0.0 for g in LOSS_GROUPS}
    for p in preds:
        missing[p.loss_group] += w(p) * (1.0 - credits[p.id])
    top = max(missing.values())
    leaders = [g for g, m in missing.items() if abs(m - top) < 1e-12]
    loss = None if top <= 1e-12 else (leaders[0] if len(leaders) == 1 else "Mixed")
    final = 1.0 if full else round(min(score, 1.0), 12)
    failed = [p.id for p in preds if p.kind in CRITICAL and credits[p.id] < 1.0]
    return Score(task.task_id, True, final, full, credits, evidence, stages, loss,
                 safe_score=0.0 if failed else final, critical_failed=failed)


def test_assemble_with_its_cached_rubric_equals_the_formula_on_every_frozen_task() -> None:
    rng = random.Random(19)
    for task in TASKS:
        for weights in ("task", "equal"):
            for _ in range(3):
                credits = {p.id: rng.choice([0.0, 1.0, round(rng.random(), 12)]) for p in task.predicates}
                evidence = {p.id: {} for p in task.predicates}
                assert score_json(assemble(task, credits, evidence, weights=weights)) == \
                    score_json(_assemble_written_out(task, credits, evidence, weights))


def test_the_rubric_cache_follows_the_task_object_not_its_id() -> None:
    task = next(t for t in TASKS if len({p.weight for p in t.predicates}) > 1)
    credits = {p.id: float(i % 2) for i, p in enumerate(task.predicates)}
    first = assemble(task, credits, {})
    heavier = task.model_copy(update={"predicates": [p.model_copy(update={"weight": 1.0}) for p in task.predicates]})
    assert score_json(assemble(heavier, credits, {})) == score_json(_assemble_written_out(heavier, credits, {}, "task"))
    assert score_json(assemble(task, credits, {})) == score_json(first)


def test_the_world_keeps_one_image_and_hands_out_independent_copies() -> None:
    initial = TASKS[0].initial_state
    world = World(initial)
    a, b = world.initial_state, world.initial_state
    assert a == initial and a is not b and a is not world.state
    a["actors"].clear()
    world.state["meta"]["schema"] = -1
    assert world.initial_state == initial and World(initial).state == initial


def _same_types(a: object, b: object) -> None:
    assert type(a) is type(b) and a == b
    if isinstance(a, dict):
        assert list(a) == list(b)
        for key in a:
            _same_types(a[key], b[key])  # type: ignore[index]
    elif isinstance(a, list | tuple):
        for x, y in zip(a, b, strict=True):  # type: ignore[call-overload]
            _same_types(x, y)


def test_a_world_copies_its_initial_state_exactly_whichever_image_it_keeps() -> None:
    """Task states are copied from their JSON form, others (a tuple, a 65-bit integer) from their marshal
    image: either way each copy has the very values, types and key order of the state given."""
    import marshal

    from acworld_env.world import world as world_module

    for task in TASKS[::7]:
        world = World(task.initial_state)
        assert type(world._initial) is world_module._JsonImage
        _same_types(world.state, marshal.loads(marshal.dumps(task.initial_state, 2)))
        _same_types(world.initial_state, task.initial_state)
    for odd in ({"actors": {}, "pair": (1, [2, True])}, {"actors": {}, "big": 2**64, "flag": False}):
        world = World(odd)
        assert type(world._initial) is bytes
        _same_types(world.state, odd)
        _same_types(World(odd).initial_state, odd)


def test_market_commits_are_linked_when_read_as_an_eagerly_linked_world_links_them() -> None:
    """The market's commits (``linked=False``) get their hash links when read: the same commits, keys and
    links as a World given the same events linking each commit at once, read at any point (issue 32)."""
    from acworld_env.episode import Episode
    from acworld_env.policies.make import make_policy

    for task in [t for t in TASKS if t.reference is not None][:40]:
        ep = Episode(task, seed=0)
        policy = make_policy(task.reference)
        policy.reset(0)
        for step in range(task.max_steps):
            if ep.finished(task.actor):
                break
            ep.act(task.actor, policy.act(ep.observe(task.actor)))
            if step == 1:
                assert ep.market.world.head == ep.market.world.commits[-1]["hash"] if ep.market.world.commits else True
        world = ep.market.world
        eager = World(task.initial_state)
        for c in world.commits:
            body = c["body"]
            eager.commit(c["actor"], {"validation_id": c["validation_id"], "actor": c["actor"], "accepted": True},
                         body["events"], body["round"])
        assert world.commits == eager.commits and world.event_digest == eager.event_digest
        assert [list(c) for c in world.commits] == [list(c) for c in eager.commits]
        assert all(list(c) == ["seq", "actor", "validation_id", "body", "prev_hash", "hash"] for c in world.commits)


def test_a_reset_that_names_its_task_leaves_the_walk_where_a_fresh_generator_starts() -> None:
    env = acworld_env.make("capability-v1")
    tasks = env.unwrapped.tasks
    env.reset(seed=3, options={"task_id": tasks[5].task_id})
    env.reset()
    rng = np.random.default_rng(3)
    order = [int(i) for i in rng.permutation(len(tasks))]
    assert env.unwrapped.task.task_id == tasks[order[0]].task_id
    assert env.unwrapped.episode_seed == int(rng.integers(2**31 - 1))


def test_an_observation_shows_the_unread_inbox_as_market_inbox_without_the_read_flag() -> None:
    env = acworld_env.make("capability-v1")
    for task in env.unwrapped.tasks:
        env.reset(seed=0, options={"task_id": task.task_id})
        market = env.unwrapped.episode.market
        for actor in market.inboxes:
            if market.inbox(actor):
                shown = env.unwrapped.episode.observe(actor)["inbox"]
                assert shown == [{k: v for k, v in m.items() if k != "read"} for m in market.inbox(actor)]
                return
    pytest.fail("no task delivers a message before its first step")


def test_records_and_validations_made_by_their_written_out_init_are_whole_sealed_dataclasses() -> None:
    """The hand-written ``__init__`` sets every field in order (keyword or positional), ``kind`` from the action;
    the instances stay frozen, compare, hash, copy and pickle as the dataclasses they are."""
    import copy
    import dataclasses
    import pickle

    val = Validation("val-00001", "env-0-00001", "buyer_0", "get_inbox", True, "ok", "")
    assert [getattr(val, f.name) for f in dataclasses.fields(val)] == ["val-00001", "env-0-00001", "buyer_0",
                                                                       "get_inbox", True, "ok", ""]
    assert val == _validation(1) and hash(val) == hash(_validation(1)) and val.refused("x", "y").code == "x"
    values = [3, 1, "buyer_0", "buyer", {"e": 1}, {"kind": "finish"}, val, ["ev"], 2, [["d"]], {"r": 1}, True,
              "p" * 64, "h" * 64, "val-00000", {"model": "m"}]
    rec = TraceRecord(*values)
    names = [f.name for f in dataclasses.fields(TraceRecord)]
    assert [getattr(rec, n) for n in names] == [*values, "finish"]
    assert TraceRecord(**dict(zip(names[:-1], values, strict=True))) == rec
    assert TraceRecord(*values[:14]).meta is None and TraceRecord(*values[:14]).original_validation is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        rec.n = 4  # type: ignore[misc]
    for twin in (copy.deepcopy(rec), pickle.loads(pickle.dumps(rec)), copy.copy(rec)):
        assert twin == rec and twin.kind == "finish"
    assert pickle.loads(pickle.dumps(val)) == val
