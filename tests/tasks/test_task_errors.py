"""Issue 30 §18-20: a task written by a user fails when it is read or made, with one TaskError naming the
task and the field path (and the file line it came from), never a KeyError or ValueError mid-episode; and a
task id is never trusted as a path."""

from __future__ import annotations

import ast
import copy
import inspect
import json
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import acworld_env
from acworld_env.core.predicate_params import REQUIRED_PARAMS
from acworld_env.eval.validate import validate_tasks
from acworld_env.scoring.kinds import KINDS
from acworld_env.tasks import frozen
from acworld_env.tasks.families.demo import build_demo_task
from acworld_env.tasks.frozen import load_frozen
from acworld_env.tasks.spec import (
    TaskError,
    TaskSpec,
    first_problem,
    read_task_lines,
    task_dir_name,
    task_from_data,
    task_from_json,
)
from acworld_env.tasks.suites import load_suite

TASK_ID = "demo/negotiation-001"
DEMO = build_demo_task()


def _demo(edit: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    data = copy.deepcopy(DEMO.model_dump(mode="python"))
    edit(data)
    return data


def _play(task: TaskSpec) -> None:
    """Make, reset and play a few turns: a task error must come out of make/reset, not a step."""
    env = acworld_env.make("demo", task=task)
    env.reset(seed=0)
    for _ in env.agent_iter(max_iter=30):
        _, _, term, trunc, _ = env.last()
        env.step(None if (term or trunc) else {"kind": "get_inbox"})


def _start(task: TaskSpec) -> TaskError:
    """The TaskError raised by make or reset (before any step) for ``task``."""
    with pytest.raises(TaskError) as info:
        env = acworld_env.make("demo", task=task)
        env.reset(seed=0)
    assert info.value.task_id == TASK_ID
    return info.value


def _set_balance(value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(d: dict[str, Any]) -> None:
        d["initial_state"]["actors"]["buyer_0"]["balance"] = value
    return edit


def _notice(notice: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    def edit(d: dict[str, Any]) -> None:
        d["schedule"] = [{"round": 1, "id": "n1", "notices": [notice]}]
    return edit


def _predicate(kind: str, params: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    def edit(d: dict[str, Any]) -> None:
        d["predicates"][1].update(kind=kind, params=params)
    return edit


# field path, edit, words the message must hold
CASES = [
    ("initial_state.actors.buyer_0.balance", _set_balance(10**5000), "out of range"),
    ("initial_state.actors.buyer_0.balance", _set_balance(-5), "whole number"),
    ("initial_state.actors.buyer_0.balance", _set_balance("lots"), "whole number"),
    ("initial_state.listings.L-grinder.price",
     lambda d: d["initial_state"]["listings"]["L-grinder"].update(price=1.5), "whole number"),
    ("settings.x", lambda d: d["settings"].update(x=float("nan")), "finite"),
    ("schedule[0].notices[0].to", _notice({"kind": "notice", "text": "hi"}), "missing"),
    ("schedule[0].notices[0].to", _notice({"to": "ghost", "text": "hi"}), "not an actor"),
    ("schedule[0].events[0].type", lambda d: d.update(schedule=[{"round": 1, "id": "e", "events": [{}]}]), "type"),
    ("predicates[1].params", _predicate("order_settled", {}), "'buyer'"),
    ("predicates[1].params",
     _predicate("world_value_equals", {"table": "orders", "key": "o-1", "value": 1}), "'field'"),
    ("predicates[1].params.table",
     _predicate("world_value_equals", {"table": "nope", "key": "k", "field": "f", "value": 1}), "no World table"),
    ("predicates[1].params.table",
     _predicate("applied_exactly_once", {"table": "Orders", "field": "order", "key": "k"}), "no World table"),
    ("predicates[0].params",
     lambda d: d["predicates"][0].update(params={"listing_id": "L-grinder"}), "'max_unit_price' or"),
]
IDS = [f"{field}:{words}" for field, _, words in CASES]


@pytest.mark.parametrize("field, edit, words", CASES, ids=IDS)
def test_a_task_built_in_code_fails_at_make_or_reset_naming_task_and_field(field: str, edit: Any, words: str) -> None:
    task = TaskSpec(**_demo(edit))  # built in code: fields validated, references and data not yet
    error = _start(task)
    assert error.field == field and words in error.reason, str(error)
    assert f"task {TASK_ID!r}: {field}: " in str(error)


@pytest.mark.parametrize("field, edit, words", CASES, ids=IDS)
def test_a_task_dict_fails_when_read_naming_task_and_field(field: str, edit: Any, words: str) -> None:
    with pytest.raises(TaskError) as info:
        task_from_data(_demo(edit), source="mine.json")
    assert (info.value.task_id, info.value.field) == (TASK_ID, field), str(info.value)
    assert str(info.value).startswith(f"mine.json: task {TASK_ID!r}: {field}: ")
    with pytest.raises(ValueError, match=f"task {TASK_ID!r}: {field.replace('[', '.').replace(']', '.')}"):
        TaskSpec.model_validate(_demo(edit))


def test_a_scheduled_event_of_no_world_type_fails_at_make_or_reset() -> None:
    task = DEMO.model_copy(update={"schedule": [{"round": 1, "id": "e1", "events": [{"type": "bogus"}]}]})
    error = _start(task)
    assert (error.field, error.reason) == ("schedule[0].events[0].type", "no World event type 'bogus'")


def _jsonl(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "tasks.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_a_jsonl_line_error_names_the_file_line_task_and_field(tmp_path: Path) -> None:
    good = DEMO.model_dump_json()
    huge = good.replace('"balance":50000', '"balance":5' + "0" * 5000)
    assert huge != good
    path = _jsonl(tmp_path, good, "", huge)
    with pytest.raises(TaskError) as info:
        read_task_lines(path)
    assert str(info.value) == (f"{path}: line 3: task {TASK_ID!r}: initial_state.actors.buyer_0.balance: "
                               "integer out of range (at most 1,000,000,000,000,000 in magnitude)")
    missing = json.loads(good)
    del missing["predicates"][0]["weight"]
    with pytest.raises(TaskError, match=rf"line 2: task '{TASK_ID}': predicates\[0\]\.weight: missing"):
        read_task_lines(_jsonl(tmp_path, good, json.dumps(missing)))
    with pytest.raises(TaskError, match=r"line 1: task \(no task_id\): \(json\): not valid JSON"):
        read_task_lines(_jsonl(tmp_path, "{not json"))
    with pytest.raises(TaskError, match="nested too deeply"):
        task_from_json("[" * 100_000)


def test_a_frozen_file_with_a_bad_line_raises_a_task_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = DEMO.model_dump(mode="json")
    bad["schedule"] = [{"round": 0, "id": "n", "notices": [{"text": "hi"}]}]
    path = _jsonl(tmp_path, DEMO.model_dump_json(), json.dumps(bad))
    monkeypatch.setattr(frozen, "frozen_path", lambda suite: path)
    with pytest.raises(TaskError, match=r"line 2: not a task spec: task '.*': schedule\[0\]\.notices\[0\]\.to"):
        load_frozen("x")


def test_the_demo_task_still_plays() -> None:
    _play(task_from_data(DEMO.model_dump(mode="python")))


# -- the declared parameters of each predicate kind -------------------------------------------------

def _read_keys(fn: Callable[..., Any]) -> set[str]:
    """String keys the predicate function subscripts its parameters with (``p["x"]``)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    params = tree.body[0].args.args[1].arg  # type: ignore[attr-defined]
    return {node.slice.value for node in ast.walk(tree) if isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name) and node.value.id == params
            and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)}


def test_each_declared_parameter_is_one_its_kind_reads() -> None:
    for kind, needs in REQUIRED_PARAMS.items():
        assert kind in KINDS, f"{kind} is declared but is not a predicate kind"
        read = _read_keys(KINDS[kind])
        for need in needs:
            names = {need} if isinstance(need, str) else set(need)
            assert names <= read, f"{kind} declares {need!r}, which its function never reads as p[...]"


@pytest.fixture(scope="module")
def every_task() -> list[TaskSpec]:
    return [*load_suite("capability-v1"), *load_suite("capability-v1", "generated", 3),
            *load_suite("large-catalog-v1"), *load_suite("demo")]


def test_every_frozen_and_generated_task_passes_the_checks(every_task: list[TaskSpec]) -> None:
    frozen_ids = [t.task_id for t in load_suite("capability-v1")]
    assert len(frozen_ids) == 200
    for task in every_task:
        assert first_problem(task) is None, task.task_id
        assert "/" not in task_dir_name(task.task_id) and task_dir_name(task.task_id).replace("__", "/") == task.task_id


# -- §20: a task id is never a path ----------------------------------------------------------------

@pytest.mark.parametrize("task_id", ["..", ".", "../x", "a/../b", "/abs", "a\\b", "a/./b", "", "a__b", "a/.hidden"])
def test_an_unsafe_task_id_is_refused_wherever_a_path_is_made(task_id: str, tmp_path: Path) -> None:
    with pytest.raises(TaskError, match="not safe to use as a folder name"):
        task_dir_name(task_id)
    with pytest.raises(TaskError):
        DEMO.model_copy(update={"task_id": task_id})
    work = tmp_path / "work"
    work.mkdir()
    forged = TaskSpec.model_construct(**{**dict(DEMO), "task_id": task_id})
    with pytest.raises(TaskError):
        validate_tasks([forged], workdir=work)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["work"] and not any(work.iterdir())
    with pytest.raises(TaskError, match="task_id"):
        acworld_env.make("demo", task=forged).reset(seed=0)
