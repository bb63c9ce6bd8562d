"""An evaluation of a generated split with unscored runs verifies without ``--suite``: the unscored
runs find their published task through the manifest's suite, split and seed."""

from __future__ import annotations

import json

from eval_kit import OutageError, reference_unless

from acworld_env.eval.audit import audit_eval
from acworld_env.eval.plan import UNSCORED_FILE
from acworld_env.eval.runner import EvalConfig, run_eval


def _outage(task):
    return OutageError(f"{task.task_id}: 503 after 6 attempts", "server_error")


def test_unscored_runs_of_a_generated_split_verify_and_an_edited_one_does_not(tmp_path):
    config = EvalConfig(env_id="capability-v1", policy="reference", out=tmp_path, split="generated", seed=3,
                        tasks="*/T10/buyer/*", concurrency=2)
    summary = run_eval(config, progress=False,
                       factory=reference_unless(lambda t: t.capability == "duplicate_payment", _outage))
    assert summary["unscored"] >= 1 and summary["scored"] >= 1
    audit = audit_eval(tmp_path)
    assert audit.ok, (audit.problems, [(r.name, r.message) for r in audit.runs if not r.ok])
    assert sorted(r.status for r in audit.runs).count("unscored") == summary["unscored"]
    assert audit.root_digest == json.loads((tmp_path / "manifest.json").read_text())["root_digest"]

    unscored = next(tmp_path.rglob(UNSCORED_FILE))
    doc = json.loads(unscored.read_text())
    doc["task_id"] = doc["task_id"].replace("generated-3/", "generated-4/")
    unscored.write_text(json.dumps(doc))
    edited = audit_eval(tmp_path)
    assert not edited.ok
