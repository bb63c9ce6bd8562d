"""A run's commit log written in one piece is byte for byte the log the on-disk WAL way wrote (and a
thread's reused in-memory log starts every image from empty, even after a failure)."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

import pytest

from acworld_env.artifacts import read_log, verify_run
from acworld_env.eval.rollout import run_episode
from acworld_env.policies.make import make_policy
from acworld_env.run_log import log_image
from acworld_env.tasks.frozen import load_frozen
from acworld_env.world import CommitLog


def on_disk_log(path: Path, initial: dict, commits: list[dict], validations: list[dict]) -> bytes:
    """The log as runs used to write it: built on disk in WAL mode, folded back, taken out of WAL mode."""
    log = CommitLog(path, durable=False)
    log.set_meta("initial_state", initial)
    log.append_many(commits, validations)
    log.seal()
    log.close()
    return path.read_bytes()


def episode_records(task_id: str, policy: object | None = None) -> tuple[dict, list[dict], list[dict]]:
    """(initial state, commits, cited validations) of one episode of a frozen task."""
    task = next(t for t in load_frozen("capability-v1") if t.task_id == task_id)
    rollout = run_episode(task, policy or make_policy(task.reference), seed=0)
    market = rollout.episode.market
    validations = [r.validation.to_dict() for r in market.trace.records if r.commit is not None]
    return market.world.initial_state, market.world.commits, validations


class Idle:
    """Finishes at once: an episode without a commit."""

    def act(self, observation: dict) -> dict:
        return {"kind": "finish", "summary": "nothing to do"}


def synthetic(n: int) -> tuple[dict, list[dict], list[dict]]:
    """A long history with bulky bodies (many pages, overflow pages), in the shape runs store."""
    commits = [{"seq": i, "actor": f"actor-{i % 7}", "validation_id": f"v{i}",
                "body": {"type": "note", "text": "x" * (i % 5000), "n": i}, "prev_hash": f"{i - 1:064x}",
                "hash": f"{i:064x}"} for i in range(1, n + 1)]
    validations = [{"validation_id": f"v{i}", "accepted": True, "checks": ["a", "b"] * (i % 30)}
                   for i in range(1, n + 1)]
    return {"catalog": ["item"] * 3000, "balances": {"a": 1}}, commits, validations


CASES = {
    "negotiation": lambda: episode_records("capability-v1/T4/buyer/zopa/01"),
    "lifecycle": lambda: episode_records(next(t.task_id for t in load_frozen("capability-v1") if "/T7/" in t.task_id)),
    "no commit": lambda: episode_records("capability-v1/T4/buyer/zopa/01", Idle()),
    "long history": lambda: synthetic(2500),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_log_image_equals_the_log_written_on_disk(case: str, tmp_path: Path) -> None:
    initial, commits, validations = CASES[case]()
    expected = on_disk_log(tmp_path / "disk.sqlite", initial, commits, validations)
    image = log_image(initial, commits, validations)
    assert image == expected
    (tmp_path / "image.sqlite").write_bytes(image)
    stored_initial, stored_commits, stored_validations = read_log(tmp_path / "image.sqlite")
    assert stored_initial == initial and stored_commits == commits
    assert stored_validations == {v["validation_id"]: v for v in validations}


def test_a_saved_run_leaves_only_its_artifacts(tmp_path: Path) -> None:
    task = next(t for t in load_frozen("capability-v1") if t.task_id == "capability-v1/T4/buyer/zopa/01")
    run_episode(task, make_policy(task.reference), seed=0, out_dir=tmp_path / "run")
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == [
        "commits.sqlite", "run.json", "score.json", "task.json", "trace.jsonl"]
    assert verify_run(tmp_path / "run").ok


def test_a_failed_image_leaves_the_next_one_intact(tmp_path: Path) -> None:
    initial, commits, validations = CASES["negotiation"]()
    expected = on_disk_log(tmp_path / "disk.sqlite", initial, commits, validations)
    assert log_image(initial, commits, validations) == expected
    with pytest.raises(sqlite3.IntegrityError):
        log_image(initial, commits + commits[:1], validations)  # a repeated seq is refused
    assert log_image(initial, commits, validations) == expected
    images: list[bytes] = []
    worker = threading.Thread(target=lambda: images.append(log_image(initial, commits, validations)))
    worker.start()
    worker.join()
    assert images == [expected]


def test_the_initial_state_text_is_encoded_once_per_distinct_state() -> None:
    from acworld_env import run_log

    state = {"b": [1, 2, {"z": True}], "a": "é", "n": None}
    assert run_log.initial_state_text(state) == json.dumps(state, sort_keys=True)
    assert run_log.initial_state_text(dict(reversed(state.items()))) == json.dumps(state, sort_keys=True)
    ones = {"flag": 1}
    trues = {"flag": True}  # equal to ones in Python, not in JSON
    assert run_log.initial_state_text(ones) == '{"flag": 1}'
    assert run_log.initial_state_text(trues) == '{"flag": true}'

    class Odd(dict):  # marshal cannot write it: encoded each time, never cached
        pass

    before = len(run_log._INITIAL_TEXT)
    assert run_log.initial_state_text(Odd(x=1)) == '{"x": 1}'
    assert len(run_log._INITIAL_TEXT) == before
    for i in range(run_log._INITIAL_TEXT_MAX + 10):
        run_log.initial_state_text({"i": i})
    assert len(run_log._INITIAL_TEXT) == run_log._INITIAL_TEXT_MAX
