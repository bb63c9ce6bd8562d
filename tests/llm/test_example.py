"""examples/llm_buyer.py runs end to end against the fake server."""

from __future__ import annotations

import runpy
from pathlib import Path

from llm_kit import DEMO_BUYER, FAKE_KEY, oa_tool

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "llm_buyer.py"


def test_llm_buyer_example(fake_llm, tmp_path, capsys):
    main = runpy.run_path(str(EXAMPLE))["main"]
    fake_llm.script("openai", *(oa_tool(n, a) for n, a in DEMO_BUYER))
    out = tmp_path / "run"
    status = main(["--policy", "openai:gpt-4o-mini", "--base-url", fake_llm.openai_url, "--suite", "demo",
                   "--out", str(out)])
    printed = capsys.readouterr().out
    assert status == 0, printed
    assert "Score 1.000" in printed and "paid_exact_total" in printed and "verified" in printed
    assert "counter_offer(thread_id=thr-0001, unit_price=$95.00)" in printed
    assert FAKE_KEY not in printed


def test_llm_buyer_example_reports_unscored_runs(fake_llm, tmp_path, capsys):
    main = runpy.run_path(str(EXAMPLE))["main"]
    status = main(["--policy", "openai:gpt-4o-mini", "--base-url", fake_llm.openai_url, "--suite", "demo",
                   "--out", str(tmp_path / "run")])  # nothing scripted: the server answers 400
    assert status == 3 and "run unscored" in capsys.readouterr().err
