"""A persistent market World across real processes: a killed episode and a second opener (issue 30, items 14-15)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import acworld_env
from acworld_env.cli import app
from acworld_env.open_market import WorldFileError, WorldInUseError, verify_world
from acworld_env.open_market.agents import play, truthful
from acworld_env.world import chain, reconstruct
from acworld_env.world.transition import transition

SCRIPT = '''
import sys
import acworld_env
from acworld_env.open_market import WorldInUseError
from acworld_env.open_market.agents import play, truthful

path, mode = sys.argv[1], sys.argv[2]
env = acworld_env.make("market-v1", buyers=2, merchants=2, seed=3, world=path)
if mode == "try":  # open once; report how it went
    try:
        env.reset()
    except WorldInUseError as exc:
        print("in use:", exc, flush=True)
        raise SystemExit(3)
    print("opened", flush=True)
    raise SystemExit(0)
if mode == "episode":
    play(env, truthful)
    env.close()
    raise SystemExit(0)
env.reset()  # "hold" and "crash": play the quote phase, then wait with the episode open
while env.market.phase == "quote":
    obs, *_ = env.last()
    env.step(truthful(obs))
print("ready", flush=True)
sys.stdin.readline()
env.close()
'''


def _run(path: Path, mode: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", SCRIPT, str(path), mode], capture_output=True, text=True,
                          timeout=180)


def _start(path: Path, mode: str) -> subprocess.Popen:
    """A process that opens ``path`` and plays an episode's first phase, then waits on its stdin."""
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT, str(path), mode], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if line.strip() != "ready":
        proc.kill()
        raise AssertionError(f"the holder did not start: {line}{proc.communicate()[1]}")
    return proc


def test_a_killed_episode_is_closed_as_aborted_and_the_world_verifies(tmp_path: Path) -> None:
    path = tmp_path / "market.sqlite"
    assert _run(path, "episode").returncode == 0
    proc = _start(path, "crash")
    proc.kill()  # SIGKILL in the middle of episode 2: its quotes are committed, nothing else is written
    proc.wait(timeout=30)
    check = verify_world(path)
    assert check.ok, check.problems
    assert check.running is not None and "did not close (its process ended)" in check.notes[0]
    done = _run(path, "episode")
    assert done.returncode == 0, done.stderr
    check = verify_world(path)
    assert check.ok, check.problems
    assert check.episodes == 3 and check.aborted == [2] and check.running is None
    summary = json.loads((tmp_path / "market.sqlite.episodes" / "episode-0002.json").read_text())
    assert summary["status"] == "aborted" and len(summary["commits"]) == 2  # the two Merchants' quotes
    assert not (tmp_path / "market.sqlite.episodes" / "episode-0002.jsonl").exists()
    result = CliRunner().invoke(app, ["verify", str(path)])
    assert result.exit_code == 0, result.output
    assert "2 episode trace(s) linked to their commits, 1 aborted (episode 2" in result.output


def test_injected_commits_still_fail_with_their_own_message(tmp_path: Path) -> None:
    path = tmp_path / "market.sqlite"
    assert _run(path, "episode").returncode == 0
    conn = sqlite3.connect(path)
    rows = conn.execute("SELECT seq, actor, validation_id, body, prev_hash, hash FROM commits ORDER BY seq").fetchall()
    initial = json.loads(conn.execute("SELECT value FROM meta WHERE key = 'initial_state'").fetchone()[0])
    commits = [{"seq": s, "actor": a, "validation_id": v, "body": json.loads(b), "prev_hash": p, "hash": h}
               for s, a, v, b, p, h in rows]
    state = reconstruct(initial, commits).state
    last = commits[-1]
    body = {**last["body"], "seq": last["seq"] + 1, "events": [], "delta": transition(state, [])}
    forged = chain(last["hash"], body)
    conn.execute("INSERT INTO commits VALUES (?, ?, ?, ?, ?, ?)",
                 (body["seq"], last["actor"], last["validation_id"], json.dumps(body), last["hash"], forged))
    conn.execute("UPDATE meta SET value = ? WHERE key = 'open_market_head'",
                 (json.dumps({"seq": body["seq"], "hash": forged}),))
    conn.commit()
    conn.close()
    check = verify_world(path)
    assert check.problems == [f"1 commit(s) belong to no episode trace (first: {body['seq']}): commits made outside "
                              "any episode"]
    assert not check.aborted
    with pytest.raises(WorldFileError, match="belong to no episode trace"):
        acworld_env.make("market-v1", buyers=2, merchants=2, seed=3, world=path).reset()
    assert CliRunner().invoke(app, ["verify", str(path)]).exit_code == 1


def test_a_second_process_gets_in_use_at_open(tmp_path: Path) -> None:
    path = tmp_path / "market.sqlite"
    holder = _start(path, "hold")
    try:
        other = _run(path, "try")
        assert other.returncode == 3, other.stderr
        assert f"in use by another process (process {holder.pid})" in other.stdout
        assert "Traceback" not in other.stderr and "IntegrityError" not in other.stderr
        with pytest.raises(WorldInUseError, match="in use by another process"):
            acworld_env.make("market-v1", buyers=2, merchants=2, seed=3, world=path).reset()
        live = verify_world(path)  # read-only, beside the holder
        assert live.ok and live.notes == ["episode 1 is running (another process holds the World): 2 commit(s) so far"]
    finally:
        assert holder.stdin is not None
        holder.stdin.write("\n")
        holder.stdin.close()
        assert holder.wait(timeout=60) == 0
    assert _run(path, "try").stdout.startswith("opened")  # released on close
    check = verify_world(path)
    assert check.ok, check.problems


def test_two_envs_of_one_process_cannot_share_a_world(tmp_path: Path) -> None:
    path = tmp_path / "market.sqlite"
    first = acworld_env.make("market-v1", buyers=2, merchants=2, seed=3, world=path)
    first.reset()
    with pytest.raises(WorldInUseError):
        acworld_env.make("market-v1", buyers=2, merchants=2, seed=3, world=path).reset()
    first.close()
    second = acworld_env.make("market-v1", buyers=2, merchants=2, seed=3, world=path)
    second.reset()
    second.close()
    assert verify_world(path).ok
    assert not Path(f"{path}.lock").exists()


def _interrupted_close(path: Path, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    """Play one episode whose close stops ``where`` (as a killed process would), in this process."""
    from acworld_env.open_market import persistence, world_log

    def stop(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt("stopped while closing")

    if where == "before_anchor":
        monkeypatch.setattr(world_log.MarketLog, "anchor", stop)
    else:  # after the trace file, before the summary
        real = persistence.write_new
        monkeypatch.setattr(persistence, "write_new", lambda p, d: real(p, d) if p.suffix == ".jsonl" else stop())
    env = acworld_env.make("market-v1", buyers=2, merchants=2, seed=3, world=path)
    with pytest.raises(KeyboardInterrupt):
        play(env, truthful)
    monkeypatch.undo()
    assert verify_world(path).ok and "without their anchor" in verify_world(path).notes[-1]


def test_a_close_stopped_after_its_files_is_anchored_as_the_closed_episode(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "market.sqlite"
    _interrupted_close(path, monkeypatch, "before_anchor")
    assert _run(path, "episode").returncode == 0
    check = verify_world(path)
    assert check.ok and check.episodes == 2 and check.aborted == [] and not check.notes, check.problems


def test_a_close_stopped_between_its_files_keeps_the_trace_beside_an_aborted_summary(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "market.sqlite"
    _interrupted_close(path, monkeypatch, "between_files")
    trace = (tmp_path / "market.sqlite.episodes" / "episode-0001.jsonl").read_bytes()
    assert _run(path, "episode").returncode == 0
    check = verify_world(path)
    assert check.ok and check.aborted == [1], check.problems
    assert (tmp_path / "market.sqlite.episodes" / "episode-0001.jsonl").read_bytes() == trace
    assert set(check.records[0]["body"]["files"]) == {"episode-0001.json", "episode-0001.jsonl"}


def test_a_foreign_file_in_an_interrupted_episodes_place_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "market.sqlite"
    holder = _start(path, "crash")
    holder.kill()
    holder.wait(timeout=30)
    planted = tmp_path / "market.sqlite.episodes" / "episode-0001.json"
    planted.write_text('{"status": "closed", "scores": {"buyer_0000": 1.0}}')
    kept = {p: p.read_bytes() for p in (path, Path(f"{path}-wal"), planted)}
    with pytest.raises(WorldFileError, match="episode-0001.json is not episode 1's"):
        acworld_env.make("market-v1", buyers=2, merchants=2, seed=3, world=path).reset()
    assert {p: p.read_bytes() for p in kept} == kept
