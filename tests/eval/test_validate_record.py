"""``acworld validate --record FILE`` writes the baseline gate's figures (the baselines/ file and README table)."""

from __future__ import annotations

import json

from eval_kit import cli


def test_record_writes_means_maxima_and_full_counts_and_keeps_before(tmp_path):
    out = tmp_path / "gate.json"
    out.write_text(json.dumps({"before": {"idle": {"T4_negotiation": 0.535}}}))
    result = cli("validate", "capability-v1", "--tasks", "*/T4/buyer/zopa/*", "--record", out)
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["before"] == {"idle": {"T4_negotiation": 0.535}}
    assert data["suite"] == "capability-v1" and data["split"] == "frozen"
    assert {"idle", "finish", "abstain", "random", "shortcut:accept_first"} <= set(data["means"])
    for name, fams in data["means"].items():
        assert set(fams) == {"T4_negotiation"}
        assert 0 <= fams["T4_negotiation"] <= data["max_task"][name]["T4_negotiation"] <= 1
        assert data["full_credit_tasks"][name]["T4_negotiation"] <= 3
    assert data["means"]["idle"]["T4_negotiation"] == 0.0
