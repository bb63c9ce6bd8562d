"""Issue 11 §5: a user-supplied task dict with a missing field or a reference to something that does not
exist fails with a message naming the task and the field, never a bare ``KeyError``."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from acworld_env.envs.aec import raw_env
from acworld_env.episode import Episode
from acworld_env.tasks.families.demo import build_demo_task
from acworld_env.tasks.spec import TaskError, TaskSpec
from acworld_env.tasks.suites import load_suite

TASK_ID = "demo/negotiation-001"
Edit = Callable[[dict[str, Any]], None]


def _set(path: str, value: Any) -> Edit:
    def edit(d: dict[str, Any]) -> None:
        *head, last = path.split(".")
        for key in head:
            d = d[int(key)] if key.isdigit() else d[key]  # type: ignore[index]
        d[last] = value
    return edit


def _pop(path: str) -> Edit:
    def edit(d: dict[str, Any]) -> None:
        *head, last = path.split(".")
        for key in head:
            d = d[int(key)] if key.isdigit() else d[key]  # type: ignore[index]
        d.pop(last)
    return edit


CASES: list[tuple[str, Edit, str]] = [
    ("unknown counterparty policy", _set("counterparties.0.policy.name", "nope"), "counterparties[0].policy"),
    ("counterparty policy bad params", _set("counterparties.0.policy.params.bogus", 1), "counterparties[0].policy"),
    ("mandate listing missing", _set("mandate.listing_id", "L-missing"), "mandate.listing_id"),
    ("predicate listing missing", _set("predicates.0.params.listing_id", "L-missing"), "predicates[0].params.listing_id"),
    ("reference listing missing", _set("reference.params.listing_id", "L-missing"), "reference.params.listing_id"),
    ("no task_id", _pop("task_id"), "task_id"),
    ("no initial_state", _pop("initial_state"), "initial_state"),
    ("no predicates", _pop("predicates"), "predicates"),
    ("no actors", _pop("initial_state.actors"), "initial_state.actors"),
    ("actor missing", _set("actor", "buyer_9"), "actor"),
    ("actor without role", _pop("initial_state.actors.buyer_0.role"), "initial_state.actors.buyer_0.role"),
    ("role differs", _set("role", "merchant"), "role"),
    ("counterparty actor missing", _set("counterparties.0.actor", "merchant_9"), "counterparties[0].actor"),
    ("counterparty mandate of nobody", _set("counterparty_mandates.ghost", {}), "counterparty_mandates.ghost"),
    ("listing of nobody", _set("initial_state.listings.L-grinder.merchant", "merchant_9"),
     "initial_state.listings.L-grinder.merchant"),
    ("unknown predicate kind", _set("predicates.0.kind", "nope"), "predicates[0].kind"),
    ("mutation lowers nothing", _set("mutations.0.lowers", ["nope"]), "mutations[0].lowers"),
    ("schedule without round", _set("schedule", [{"id": "s1", "events": []}]), "schedule[0].round"),
    ("unknown catalog", _set("catalog", "nope"), "catalog"),
]


def broken(edit: Edit) -> dict[str, Any]:
    d = copy.deepcopy(build_demo_task().model_dump(mode="json"))
    edit(d)
    return d


def _start_env(d: dict[str, Any]) -> None:
    env = raw_env(suite="demo", task=d)
    env.reset(seed=0)
    env.step({"kind": "propose_offer", "to": "merchant_0", "listing_id": "L-grinder", "quantity": 1,
              "unit_price": 8000})
    env.last()


def _start_episode(d: dict[str, Any]) -> None:
    Episode(TaskSpec.model_validate(d), seed=0)


@pytest.mark.parametrize("start", [_start_env, _start_episode], ids=["env", "episode"])
@pytest.mark.parametrize(("edit", "field"), [(e, f) for _, e, f in CASES], ids=[n for n, _, _ in CASES])
def test_bad_task_dict_names_the_task_and_the_field(start: Callable[[dict[str, Any]], None], edit: Edit,
                                                   field: str) -> None:
    d = broken(edit)
    with pytest.raises(ValueError) as info:
        start(d)
    message = str(info.value)
    assert not isinstance(info.value, KeyError)
    assert field in message, message
    if "task_id" in d:
        assert TASK_ID in message, message
    assert "input_value" not in message  # the task (and its private mandates) is not echoed back


def test_runtime_reference_errors_are_task_errors() -> None:
    with pytest.raises(TaskError) as info:
        _start_episode(broken(_set("counterparties.0.policy.name", "nope")))
    assert info.value.task_id == TASK_ID and info.value.field == "counterparties[0].policy.name"
    assert "scripted_merchant" in str(info.value)  # lists the known policies


def test_every_shipped_task_passes_the_reference_checks() -> None:
    tasks = [*load_suite("capability-v1"), *load_suite("capability-v1", "generated", 7), *load_suite("demo")]
    for t in tasks:
        assert TaskSpec.model_validate(t.model_dump(mode="json")) == t
