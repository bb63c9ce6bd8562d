"""T1 agents see the shopper's words; ``hints="structured"`` (opt-in) shows the parsed requirements."""

from __future__ import annotations

import json

import pytest

import acworld_env
from acworld_env.envs import decode_observation
from acworld_env.episode import Episode
from acworld_env.policies.llm.prompt import first_turn_text
from acworld_env.tasks.frozen import load_frozen
from acworld_env.wrappers import RecordTrace

TASKS = [t for t in load_frozen("capability-v1") if t.family == "T1_discovery"]


def _structured_keys(task) -> set[str]:
    """Names only the parsed spec uses: attribute and option keys, the spec's own field names."""
    keys = {"product_type", "filters", "checks", "min_rating", "review_count"}
    for need in task.oracle["needs"]:
        keys.add(need["field"].split(".")[-1])
    return {k for k in keys if "_" in k or k in {"filters", "checks"}}


def _first_observation(task, hints: str = "off") -> tuple[dict, dict]:
    env = acworld_env.make("capability-v1", tasks=[task], hints=hints)
    env.reset(seed=0, options={"task_id": task.task_id})
    agent = env.agents[0]
    obs = decode_observation(env.observe(agent))
    info = dict(env.unwrapped.infos[agent])
    env.close()
    return obs, info


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.task_id.split("/", 3)[-1])
def test_the_agent_sees_words_not_a_query(task):
    obs, info = _first_observation(task)
    assert "hints" not in obs and info["hints"] == "off"
    assert set(obs["mandate"]) <= {"budget"}
    seen = json.dumps(obs) + first_turn_text(obs)
    assert not {k for k in _structured_keys(task) if k in seen}, task.task_id
    assert json.dumps(task.oracle["hints"]["filters"], sort_keys=True) not in seen
    ep = Episode(task)  # the mandate query returns the same budget-only mandate
    assert ep.act(task.actor, {"kind": "get_mandate"}).result == task.mandate


def test_structured_hints_expose_the_parsed_requirements():
    task = next(t for t in TASKS if t.capability == "hard_constraint_filtering")
    obs, info = _first_observation(task, hints="structured")
    assert info["hints"] == "structured"
    assert obs["hints"] == task.oracle["hints"]
    assert obs["hints"]["filters"]["category"] and obs["hints"]["checks"][0]["field"] == "description"
    assert obs["request"] == task.request and set(obs["mandate"]) <= {"budget"}
    assert "product_type" in json.dumps(obs)  # what the words-only check looks for does show up here


def test_hints_none_means_off_and_unknown_modes_are_refused():
    obs, info = _first_observation(TASKS[0], hints=None)  # type: ignore[arg-type]
    assert "hints" not in obs and info["hints"] == "off"
    with pytest.raises(ValueError, match="hints"):
        acworld_env.make("capability-v1", tasks=[TASKS[0]], hints="everything")


@pytest.mark.parametrize("mode", ["off", "structured"])
def test_a_recorded_run_says_which_mode_ran(tmp_path, mode):
    task = TASKS[0]
    env = RecordTrace(acworld_env.make("capability-v1", tasks=[task], hints=mode), tmp_path)
    env.reset(seed=0, options={"task_id": task.task_id})
    env.step({"kind": "abstain", "reason": "testing the recorder"})
    env.close()
    run = json.loads((env.saved[0] / "run.json").read_text())
    assert run.get("hints", "off") == mode
