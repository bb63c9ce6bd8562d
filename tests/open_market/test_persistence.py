"""One order across three episodes and three processes: placed, then paid and fulfilled, then refunded."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import acworld_env
from acworld_env.cli import app
from acworld_env.open_market import MarketConfigError, verify_world
from acworld_env.world import CommitLog, reconstruct

EPISODE = '''
import sys
import acworld_env
from acworld_env.open_market.agents import play, truthful

path, episode = sys.argv[1], sys.argv[2]
phases = {"1": ["quote", "rank"], "2": ["pay", "fulfil"], "3": ["aftersales"]}[episode]


def refund(obs):
    if obs["role"] != "merchant" or not obs["my_turn"]:
        return None
    return [{"kind": "issue_refund", "payment_id": o["payment_id"], "amount": o["captured"] - o["refunded"]}
            for o in obs["orders"] if o["captured"] > o["refunded"]] or None


env = acworld_env.make("market-v1", buyers=2, merchants=2, seed=3, world=path, phases=phases)
play(env, refund if episode == "3" else truthful)
env.close()
'''


def _episode(path: Path, n: int) -> None:
    done = subprocess.run([sys.executable, "-c", EPISODE, str(path), str(n)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr


def _orders(path: Path) -> dict:
    log = CommitLog(path, readonly=True)
    try:
        state = reconstruct(log.get_meta("initial_state"), log.commits(), log.validations()).state
    finally:
        log.close()
    return state["orders"]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("persist") / "market.sqlite"
    _episode(path, 1)
    orders = _orders(path)
    assert orders and all(o["status"] == "placed" for o in orders.values())
    _episode(path, 2)
    orders = _orders(path)
    assert all(o["status"] == "shipped" and o["captured"] == o["total"] for o in orders.values())
    _episode(path, 3)
    return path


def test_an_order_is_placed_paid_fulfilled_and_refunded_across_processes(world: Path) -> None:
    orders = _orders(world)
    assert orders and all(o["refunded"] == o["total"] == o["captured"] for o in orders.values())


def test_verify_reconstructs_the_history_and_links_every_episode_to_its_commits(world: Path) -> None:
    check = verify_world(world)
    assert check.ok, check.problems
    assert check.episodes == 3 and check.commits >= 9
    result = CliRunner().invoke(app, ["verify", str(world)])
    assert result.exit_code == 0, result.output
    assert "3 episode trace(s) linked" in result.output


def test_a_changed_commit_fails_verification(world: Path, tmp_path: Path) -> None:
    bad = tmp_path / "market.sqlite"
    shutil.copy(world, bad)
    shutil.copytree(f"{world}.episodes", f"{bad}.episodes")
    conn = sqlite3.connect(bad)
    body = conn.execute("SELECT body FROM commits WHERE seq = 2").fetchone()[0]
    conn.execute("UPDATE commits SET body = ? WHERE seq = 2", (body.replace('"round":0', '"round":7', 1),))
    conn.commit()
    conn.close()
    assert not verify_world(bad).ok
    assert CliRunner().invoke(app, ["verify", str(bad)]).exit_code == 1


def test_a_missing_episode_trace_leaves_commits_unaccounted(world: Path, tmp_path: Path) -> None:
    bad = tmp_path / "market.sqlite"
    shutil.copy(world, bad)
    shutil.copytree(f"{world}.episodes", f"{bad}.episodes")
    (Path(f"{bad}.episodes") / "episode-0002.jsonl").write_text("")
    problems = verify_world(bad).problems
    assert any("belong to no episode trace" in p for p in problems)


def test_reopening_a_world_with_another_market_is_a_clear_error(world: Path, tmp_path: Path) -> None:
    copy = tmp_path / "market.sqlite"
    shutil.copy(world, copy)
    with pytest.raises(MarketConfigError, match="World of another market: seed=3"):
        acworld_env.make("market-v1", buyers=2, merchants=2, seed=4, world=copy).reset()
    with pytest.raises(MarketConfigError, match="is a directory"):
        acworld_env.make("market-v1", world=tmp_path).reset()
