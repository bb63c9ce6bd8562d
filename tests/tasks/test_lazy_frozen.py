"""Frozen tasks are validated when first used, not when an env is made; a bad line still fails before
its episode runs, naming the file line, the task and the field (issue 32, item 4). No timings here:
the figures are ``benchmarks/bench_startup.py``'s."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import acworld_env
from acworld_env.core.taskspec import TaskError
from acworld_env.tasks import frozen
from acworld_env.tasks.frozen import FrozenFile, frozen_file, frozen_path, load_frozen
from acworld_env.tasks.suites import load_suite, suite_tasks
from acworld_env.tasks.task_list import TaskList, cast_of

LINES = frozen_path("capability-v1").read_text(encoding="utf-8").splitlines()


def _built(file: FrozenFile) -> int:
    return sum(spec is not None for spec in file._specs)


@pytest.fixture
def suite_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Write the capability suite's frozen file as the given lines; the env and loaders read it."""
    path = tmp_path / "capability-v1.jsonl"
    monkeypatch.setattr(frozen, "frozen_path", lambda suite: path)

    def write(lines: list[str]) -> Path:
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        return path

    return write


def _edit(line: str, change) -> str:
    """A canonical line after ``change(data)`` (the shape the frozen writer gives)."""
    data = json.loads(line)
    change(data)
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def test_make_builds_no_task_and_a_reset_builds_only_its_own() -> None:
    code = ("import json, sys, acworld_env\nfrom acworld_env.tasks.frozen import frozen_file\n"
            "env = acworld_env.make('capability-v1')\nfile = frozen_file('capability-v1')\n"
            "made = [sum(s is not None for s in file._specs), 'pydantic' in sys.modules,\n"
            "        len(env.unwrapped.tasks), env.unwrapped.possible_agents]\n"
            "env.reset(seed=0, options={'task_id': env.unwrapped.tasks.ids()[7]})\n"
            "print(json.dumps([made, sum(s is not None for s in file._specs)]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out.strip().splitlines()[-1]) == [[0, False, 200, ["buyer_0", "merchant_0"]], 1]


def test_the_lazy_list_reads_ids_and_casts_as_the_built_tasks_have_them() -> None:
    lazy = suite_tasks("capability-v1")
    built = load_suite("capability-v1")
    assert lazy.ids() == [t.task_id for t in built]
    assert lazy.casts() == [cast_of(t) for t in built]
    assert lazy == built and list(lazy) == built and all(a is b for a, b in zip(lazy, built, strict=True))
    t1 = lazy.select("*/T1/*")
    assert t1.ids() == [t.task_id for t in built if "/T1/" in t.task_id] and isinstance(t1[1:], TaskList)
    assert lazy.find(built[3].task_id) is built[3] and lazy.find("nope") is None


def test_agents_mode_announces_every_actor_as_the_eager_reading_did() -> None:
    env = acworld_env.make("capability-v1", counterparties="agents").unwrapped
    expected: dict[str, str] = {}
    for task in load_frozen("capability-v1"):
        for a in [task.actor, *(x for x in task.initial_state["actors"] if x != task.actor)]:
            expected.setdefault(a, task.initial_state["actors"][a]["role"])
    assert env.possible_agents == list(expected) and env._role_hint == expected


def test_a_bad_line_is_made_but_refused_at_its_first_reset(suite_file) -> None:
    bad = _edit(LINES[1], lambda d: d.update(max_steps=0))
    path = suite_file([LINES[0], bad, LINES[2]])
    env = acworld_env.make("capability-v1")
    tasks = env.unwrapped.tasks
    assert len(tasks) == 3 and _built(frozen_file("capability-v1")) == 0
    env.reset(seed=0, options={"task_id": tasks.ids()[0]})  # the good tasks play
    with pytest.raises(TaskError) as info:
        env.reset(seed=0, options={"task_id": tasks.ids()[1]})
    assert str(info.value).startswith(f"{path}: line 2: not a task spec: task {tasks.ids()[1]!r}: max_steps: ")
    with pytest.raises(TaskError, match="line 2"):
        load_frozen("capability-v1")


def test_a_broken_reference_and_an_unknown_event_type_are_refused_at_first_use(suite_file) -> None:
    def repeated_id(d: dict) -> None:
        d["predicates"][1]["id"] = d["predicates"][0]["id"]

    def unknown_event(d: dict) -> None:
        d["schedule"] = [{"round": 1, "id": "s", "events": [{"type": "no_such_event"}]}]

    path = suite_file([_edit(LINES[0], repeated_id), _edit(LINES[1], unknown_event)])
    env = acworld_env.make("capability-v1")
    ids = env.unwrapped.tasks.ids()
    with pytest.raises(TaskError, match=rf"^{path}: line 1: .*task '{ids[0]}': predicates\[1\]\.id: .* repeats an earlier"):
        env.reset(seed=0, options={"task_id": ids[0]})
    with pytest.raises(TaskError, match=rf"task '{ids[1]}': schedule\[0\]\.events\[0\]\.type: no World event type"):
        env.reset(seed=0, options={"task_id": ids[1]})


def test_a_line_not_in_canonical_shape_is_validated_when_the_env_is_made(suite_file) -> None:
    loose = json.loads(LINES[2])
    suite_file([LINES[0], json.dumps(loose), "{not json"])
    with pytest.raises(TaskError, match=r"line 3: not a task spec: task \(no task_id\): \(json\): not valid JSON"):
        acworld_env.make("capability-v1")
    suite_file([LINES[0], json.dumps(loose)])
    env = acworld_env.make("capability-v1").unwrapped
    assert env.tasks.ids() == [json.loads(LINES[0])["task_id"], loose["task_id"]]
    assert _built(frozen_file("capability-v1")) == 1  # the loose line, validated to read its id


def test_a_line_whose_first_reading_misleads_is_refused_when_built(suite_file) -> None:
    def decoy(d: dict) -> None:  # a nested copy of the actors, with a wrong role, ahead of the real ones
        d["difficulty"].update(a=1, initial_state={"actors": {d["actor"]: {"role": "merchant"}}})

    line = _edit(LINES[0], decoy)
    suite_file([line])
    env = acworld_env.make("capability-v1").unwrapped
    assert env._role_hint[json.loads(line)["actor"]] == "merchant"  # what the quick reading found
    with pytest.raises(TaskError, match=r"line 1: task '.*': initial_state\.actors: differs from what a first reading"):
        env.reset(seed=0)


def test_a_task_list_pickles_as_its_tasks() -> None:
    import pickle

    lazy = suite_tasks("capability-v1").select("*/T4/*")
    again = pickle.loads(pickle.dumps(lazy))
    assert again.ids() == lazy.ids() and [t.model_dump() for t in again] == [t.model_dump() for t in lazy]
