"""A persistent market World loses nothing and every edit is caught (issue 30, item 13).

Each test edits a copy of a real two-episode World file (SQLite) and its episode files as a user
could, then checks that opening refuses with a clear error having written nothing, and that
``acworld verify`` fails.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

import acworld_env
from acworld_env.cli import app
from acworld_env.open_market import WorldFileError, verify_world
from acworld_env.open_market.agents import play, truthful
from acworld_env.open_market.persistence import write_new

CONFIG = {"buyers": 3, "merchants": 3, "seed": 1}


def _episode(path: Path) -> None:
    env = acworld_env.make("market-v1", **CONFIG, world=path)
    play(env, truthful)
    env.close()


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("integrity") / "market.sqlite"
    _episode(path)
    _episode(path)
    assert verify_world(path).ok
    return path


def _copy(world: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "market.sqlite"
    shutil.copy(world, copy)
    shutil.copytree(f"{world}.episodes", f"{copy}.episodes")
    return copy


def _files(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` with the digest of its bytes."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _refused(path: Path, match: str) -> None:
    """Opening ``path`` refuses with ``match`` and writes, creates or removes no file; verify fails."""
    before = _files(path.parent)
    with pytest.raises(WorldFileError, match=match):
        acworld_env.make("market-v1", **CONFIG, world=path).reset()
    assert _files(path.parent) == before
    result = CliRunner().invoke(app, ["verify", str(path)])
    assert result.exit_code == 1, result.output
    assert "FAIL" in result.output and "Traceback" not in result.output


def _sql(path: Path, *statements: tuple[str, tuple]) -> None:
    conn = sqlite3.connect(path)
    for sql, args in statements:
        conn.execute(sql, args)
    conn.commit()
    conn.close()


def test_a_deleted_last_commit_row_refuses_to_open(world: Path, tmp_path: Path) -> None:
    path = _copy(world, tmp_path)
    _sql(path, ("DELETE FROM commits WHERE seq = (SELECT MAX(seq) FROM commits)", ()))
    _refused(path, "recorded head is commit")


def test_an_emptied_world_refuses_and_keeps_its_episode_files(world: Path, tmp_path: Path) -> None:
    path = _copy(world, tmp_path)
    path.write_bytes(b"")
    _refused(path, "empty \\(0 bytes\\)")
    assert (tmp_path / "market.sqlite.episodes" / "episode-0001.jsonl").stat().st_size > 0


@pytest.mark.parametrize("keep", [0.5, 0.9])
def test_a_truncated_world_refuses(world: Path, tmp_path: Path, keep: float) -> None:
    path = _copy(world, tmp_path)
    os.truncate(path, int(path.stat().st_size * keep) // 4096 * 4096)
    _refused(path, "cannot be opened")


def test_a_missing_world_beside_its_episodes_refuses(world: Path, tmp_path: Path) -> None:
    path = _copy(world, tmp_path)
    path.unlink()
    before = _files(tmp_path)
    with pytest.raises(WorldFileError, match="is missing but .* holds 4 episode file"):
        acworld_env.make("market-v1", **CONFIG, world=path).reset()
    assert _files(tmp_path) == before


def test_an_edited_initial_balance_is_caught(world: Path, tmp_path: Path) -> None:
    path = _copy(world, tmp_path)
    conn = sqlite3.connect(path)
    state = json.loads(conn.execute("SELECT value FROM meta WHERE key = 'initial_state'").fetchone()[0])
    state["actors"]["buyer_0002"]["balance"] += 100_00
    conn.execute("UPDATE meta SET value = ? WHERE key = 'initial_state'", (json.dumps(state, sort_keys=True),))
    conn.commit()
    conn.close()
    assert any("initial state" in p for p in verify_world(path).problems)
    _refused(path, "initial state")


@pytest.mark.parametrize("field", ["scores", "welfare", "surplus", "assignment"])
def test_an_edited_episode_summary_is_caught(world: Path, tmp_path: Path, field: str) -> None:
    path = _copy(world, tmp_path)
    summary_file = tmp_path / "market.sqlite.episodes" / "episode-0001.json"
    summary = json.loads(summary_file.read_text())
    summary[field] = {k: 0 for k in summary[field]} if summary[field] else {"buyer_0000": "L-open_0000"}
    summary_file.write_text(json.dumps(summary, indent=1, sort_keys=True))
    assert any("episode-0001.json was changed" in p for p in verify_world(path).problems)
    _refused(path, "episode-0001.json was changed")


def test_an_edited_anchored_record_is_caught(world: Path, tmp_path: Path) -> None:
    path = _copy(world, tmp_path)
    conn = sqlite3.connect(path)
    body = json.loads(conn.execute("SELECT body FROM open_market_episodes WHERE n = 1").fetchone()[0])
    body["files"]["episode-0001.json"] = "0" * 64
    conn.execute("UPDATE open_market_episodes SET body = ? WHERE n = 1", (json.dumps(body),))
    conn.commit()
    conn.close()
    _refused(path, "anchored record was changed")


def test_a_dropped_episode_record_never_lets_a_file_be_overwritten(world: Path, tmp_path: Path) -> None:
    path = _copy(world, tmp_path)  # the old counter reset: the World forgets its last episode
    _sql(path, ("DELETE FROM open_market_episodes WHERE n = 2", ()))
    _refused(path, "episode-0002.json, episode-0002.jsonl: episode file\\(s\\) not anchored")


def test_episode_files_are_created_exclusively(world: Path, tmp_path: Path) -> None:
    path = _copy(world, tmp_path)
    planted = tmp_path / "market.sqlite.episodes" / "episode-0003.json"
    env = acworld_env.make("market-v1", **CONFIG, world=path)
    env.reset()
    planted.write_text("planted while the episode ran\n")
    with pytest.raises(WorldFileError, match="episode-0003.json already exists: an episode file is never overwritten"):
        _finish(env)
    assert planted.read_text() == "planted while the episode ran\n"
    with pytest.raises(WorldFileError, match="never overwritten"):
        write_new(planted, b"{}")


def _finish(env: object) -> None:
    """Play the already reset AEC env to its end with truthful agents."""
    for _agent in env.agent_iter():  # type: ignore[attr-defined]
        obs, _, term, trunc, _ = env.last()  # type: ignore[attr-defined]
        env.step(None if term or trunc else truthful(obs))  # type: ignore[attr-defined]


def test_the_episode_file_holds_the_host_report_and_the_root_digest_is_deterministic(world: Path,
                                                                                     tmp_path: Path) -> None:
    summary = json.loads((Path(f"{world}.episodes") / "episode-0001.json").read_text())
    assert summary["status"] == "closed" and summary["welfare"]["realised"] == sum(summary["surplus"].values())
    again = tmp_path / "market.sqlite"
    _episode(again)
    _episode(again)
    assert verify_world(again).root_digest == verify_world(world).root_digest
    result = CliRunner().invoke(app, ["verify", str(world)])
    assert result.exit_code == 0 and f"root digest  {verify_world(world).root_digest}" in result.output


def test_verify_expect_holds_a_world_to_its_published_root(world: Path, tmp_path: Path) -> None:
    """``acworld verify WORLD --expect ROOT``: 0 for the published root, 1 for any other (an edit that
    verifies on its own, like a World played one episode further, is caught by the root)."""
    root = verify_world(world).root_digest
    assert CliRunner().invoke(app, ["verify", str(world), "--expect", root]).exit_code == 0
    longer = _copy(world, tmp_path)
    _episode(longer)
    result = CliRunner().invoke(app, ["verify", str(longer), "--expect", root])
    assert result.exit_code == 1 and "is not the expected" in result.output
