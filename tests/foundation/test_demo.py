"""The demo story end to end: the $80 -> $100 -> $95 negotiation, settlement, artifacts."""

from __future__ import annotations

from typer.testing import CliRunner

from acworld_env.artifacts import verify_run
from acworld_env.cli import app


def test_demo_settles_at_95_and_verifies(tmp_path):
    out = tmp_path / "demo"
    result = CliRunner().invoke(app, ["demo", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "unit_price=$80.00" in result.output
    assert "unit_price=$100.00" in result.output
    assert "unit_price=$95.00" in result.output
    assert "captured $95.00" in result.output
    v = verify_run(out)
    assert v.ok, v.message
    assert v.commits == 9


def test_verify_cli_fails_on_tampered_run(tmp_path):
    import sqlite3

    out = tmp_path / "demo"
    CliRunner().invoke(app, ["demo", "--out", str(out)])
    con = sqlite3.connect(out / "commits.sqlite")
    body = con.execute("SELECT body FROM commits WHERE seq = 3").fetchone()[0]
    con.execute("UPDATE commits SET body = ? WHERE seq = 3", (body.replace("9500", "9400"),))
    con.commit()
    con.close()
    result = CliRunner().invoke(app, ["verify", str(out)])
    assert result.exit_code == 1
    assert "commit 3" in result.output
