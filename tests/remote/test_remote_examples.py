"""The plain-HTTP example agent and the HTTP benchmark run end to end against real servers."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load(relative: str) -> Any:
    spec = importlib.util.spec_from_file_location(Path(relative).stem, ROOT / relative)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_http_agent_uses_only_httpx_and_earns_full_credit(server: tuple[str, Any], capsys: Any) -> None:
    source = (ROOT / "examples" / "http_agent.py").read_text()
    imported = {a.name.split(".")[0] for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module.split(".")[0] for n in ast.walk(ast.parse(source))
                 if isinstance(n, ast.ImportFrom) and n.module}
    assert imported <= {"argparse", "httpx", "__future__"}
    summary = _load("examples/http_agent.py").main(["--url", server[0]])
    assert summary["status"] == "scored" and summary["score"] == 1.0
    assert "finish -> accepted" in capsys.readouterr().out


@pytest.mark.timeout(240)
def test_bench_http_runs(capsys: Any) -> None:
    figures = _load("benchmarks/bench_http.py").main(["--tasks", "*/T1/*/01", "--repeat", "1", "--concurrent", "4",
                                                      "--in-process"])
    out = capsys.readouterr().out
    assert "HTTP overhead per action: p50" in out and out.count("4/4 scored") == 3
    assert figures["overhead_p50_ms"] > 0 and figures["actions_per_s"] > 0
