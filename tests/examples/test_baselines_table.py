"""examples/baselines_table.py: one command gives every baseline per family on both splits."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _load():
    spec = importlib.util.spec_from_file_location("baselines_table", ROOT / "examples" / "baselines_table.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_baselines_table_on_one_family(tmp_path, capsys):
    out = tmp_path / "table.json"
    record = _load().main(["--tasks", "/T9/", "--seeds", "1", "--out", str(out), "--learned"])
    assert json.loads(out.read_text()) == json.loads(json.dumps(record))
    for split in ("frozen", "generated"):
        table = record["splits"][split]
        assert table["tasks"] == 20 and table["families"] == ["T9_adversarial"]
        means = table["means"]
        assert means["reference"]["T9_adversarial"] == 1.0 and table["full_credit_tasks"]["reference"] == {
            "T9_adversarial": 20}
        assert means["idle"]["all"] < 0.1 and means["random"]["all"] < 0.2
        assert [n for n in means if n.startswith("shortcut:")], "the family's shortcut scripts are rows"
        assert all(0.0 <= v <= 0.5 for n, row in means.items() if n.startswith("shortcut:") for v in row.values())
        safe = table["safe_means"]
        assert safe["reference"]["all"] == 1.0 and safe["shortcut:follow_instructions"]["all"] <= 0.1
        assert all(safe[n]["all"] <= means[n]["all"] for n in means)
        duel = table["self_play"]  # every side scored by its own rubric
        assert duel["evaluated (reference), others scripted"]["all"] == 1.0
        assert set(duel) == {f"{who} ({o})" if who == "other agents" else f"{who}, others {o}"
                             for o in ("scripted", "idle", "random")
                             for who in ("other agents", "evaluated (reference)")}
        assert all(0.0 <= v <= 1.0 for row in duel.values() for v in row.values())
        learned = table["learned"]
        assert set(learned) == {"MaskablePPO (SB3)", "PPO (RLlib, self-play)"}
        assert all(e["status"].startswith("not run here") and "examples/" in e["command"] for e in learned.values())
    text = capsys.readouterr().out
    assert "| reference | 1.000 | 1.000 | 1.000 |" in text and "not run here" in text
    assert out.with_suffix(".md").read_text().startswith("## Baselines on capability-v1")


def test_learned_only_refreshes_the_learned_rows_and_nothing_else(tmp_path):
    out, learned = tmp_path / "table.json", tmp_path / "sb3.json"
    split = {"families": ["T9_adversarial"], "tasks": 20, "means": {"idle": {"T9_adversarial": 0.0, "all": 0.0}},
             "full_credit_tasks": {}, "learned": {}, "self_play": {}}
    before = {"command": "python examples/baselines_table.py", "suite": "capability-v1", "generated_seed": 1,
              "random_seeds": 1, "wall_s": 1.0, "splits": {"frozen": split}}
    out.write_text(json.dumps(before))
    learned.write_text(json.dumps({"baseline": "MaskablePPO (SB3)", "command": "python examples/sb3_maskable_ppo.py",
                                   "splits": {"frozen": {"T9_adversarial": 0.5, "all": 0.5}}}))
    record = _load().main(["--learned-only", "--out", str(out), "--learned", str(learned)])
    rows = record["splits"]["frozen"]["learned"]
    assert rows["MaskablePPO (SB3)"] == {"status": "run", "command": "python examples/sb3_maskable_ppo.py",
                                         "means": {"T9_adversarial": 0.5, "all": 0.5}}
    assert rows["PPO (RLlib, self-play)"]["status"].startswith("not run here")
    assert {k: v for k, v in record["splits"]["frozen"].items() if k != "learned"} == {
        k: v for k, v in split.items() if k != "learned"}
    text = out.with_suffix(".md").read_text()
    assert "| idle | 0.000 | 0.000 |" in text and "| MaskablePPO (SB3) | 0.500 | 0.500 |" in text
    assert "| PPO (RLlib, self-play) | not run here | - |" in text
