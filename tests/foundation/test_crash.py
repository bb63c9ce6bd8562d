"""Durable commit log: kill -9 mid-episode, reopen, and everything acknowledged is there and verifies.

Also: a log can be closed and reopened so that one order spans several episodes.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from foundation_kit import ok, small_state, trace_validations

from acworld_env.market import Market
from acworld_env.world import CommitLog, World, reconstruct

HERE = Path(__file__).parent

CHILD = textwrap.dedent("""
    import sys
    sys.path.insert(0, sys.argv[2])
    from foundation_kit import small_state
    from acworld_env.market import Market
    from acworld_env.world import CommitLog

    state = small_state()
    state["listings"]["L1"]["stock"] = 1_000_000
    log = CommitLog(sys.argv[1], durable=True)
    m = Market(state, log=log)

    def go(actor, raw):
        r = m.submit(actor, raw)
        assert r.accepted, (raw, r.code, r.message)
        print(r.commit_seq, flush=True)  # acknowledged: World.commit returned after the durable append
        return r.result

    while True:  # never ends on its own: the parent kills it mid-episode
        oid = go("b1", {"kind": "place_order", "merchant_id": "m1", "lines": [{"listing_id": "L1"}]})["order_id"]
        pid = go("b1", {"kind": "authorize_payment", "order_id": oid, "amount": 1000})["payment_id"]
        go("m1", {"kind": "capture_payment", "payment_id": pid, "amount": 1000})
        go("m1", {"kind": "allocate_inventory", "order_id": oid})
        go("m1", {"kind": "ship_order", "order_id": oid})
        m.advance()
""")


def _check_log(path: Path) -> tuple[list[dict], dict]:
    log = CommitLog(path, durable=True)
    try:
        initial, commits, validations = log.get_meta("initial_state"), log.commits(), log.validations()
    finally:
        log.close()
    assert [c["seq"] for c in commits] == list(range(1, len(commits) + 1))
    rebuilt = reconstruct(initial, commits, validations)
    assert rebuilt.commits == len(commits)
    return commits, initial


def test_kill_9_mid_episode_loses_nothing_acknowledged(tmp_path):
    path = tmp_path / "commits.sqlite"
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(path), str(HERE)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    acked: list[int] = []
    try:
        assert proc.stdout is not None
        while len(acked) < 23:  # 23 = mid-settlement (4 full orders plus 3 steps of the fifth)
            line = proc.stdout.readline()
            if not line:
                pytest.fail(f"child ended early: {proc.stderr.read() if proc.stderr else ''}")
            acked.append(int(line))
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        out, _err = proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    acked += [int(x) for x in out.split()]  # acknowledged before the kill, still in the pipe
    assert acked == list(range(1, len(acked) + 1))

    commits, initial = _check_log(path)
    assert len(commits) >= len(acked), f"acknowledged {len(acked)} commits, found {len(commits)}"

    # the next episode resumes from the log and carries on, including any half-finished order
    log = CommitLog(path, durable=True)
    world = World(small_state(), log=log)  # the stored initial state wins over the one passed
    assert world.initial_state == initial and len(world.commits) == len(commits)
    m = Market(small_state(), log=log)
    assert m.world.state_digest() == world.state_digest()
    open_orders = [o for o, rec in m.world.state["orders"].items() if rec["status"] != "shipped"]
    for oid in open_orders:
        order = m.world.state["orders"][oid]
        if order["status"] == "placed":
            ok(m, "b1", {"kind": "authorize_payment", "order_id": oid, "amount": order["total"]})
        if m.world.state["orders"][oid]["status"] == "authorized":
            pid = m.world.state["orders"][oid]["payment"]
            ok(m, "m1", {"kind": "capture_payment", "payment_id": pid, "amount": order["total"]})
        if m.world.state["orders"][oid]["status"] == "paid":
            ok(m, "m1", {"kind": "allocate_inventory", "order_id": oid})
        ok(m, "m1", {"kind": "ship_order", "order_id": oid})
    ok(m, "b2", {"kind": "place_order", "merchant_id": "m2", "lines": [{"listing_id": "L3"}]})
    log.close()

    final, _ = _check_log(path)
    assert len(final) > len(commits)
    assert all(o["status"] == "shipped" for o in
               reconstruct(initial, final).state["orders"].values() if o["buyer"] == "b1")


def test_one_order_spans_three_episodes(tmp_path):
    path = tmp_path / "log.sqlite"

    log = CommitLog(path, durable=True)
    m = Market(small_state(), log=log)
    ok(m, "m1", {"kind": "get_inventory"})  # proposals without commits still use up numbers
    oid = ok(m, "b1", {"kind": "place_order", "merchant_id": "m1", "lines": [{"listing_id": "L1"}]}).result["order_id"]
    first = trace_validations(m)
    log.close()

    log = CommitLog(path, durable=True)
    m = Market(small_state(), log=log)
    assert m.world.state["orders"][oid]["status"] == "placed"
    pid = ok(m, "b1", {"kind": "authorize_payment", "order_id": oid, "amount": 1_000}).result["payment_id"]
    ok(m, "m1", {"kind": "capture_payment", "payment_id": pid, "amount": 1_000})
    second = trace_validations(m)
    log.close()

    log = CommitLog(path, durable=True)
    m = Market(small_state(), log=log)
    ok(m, "m1", {"kind": "allocate_inventory", "order_id": oid})
    ok(m, "m1", {"kind": "ship_order", "order_id": oid})
    third = trace_validations(m)
    log.close()

    commits, _ = _check_log(path)
    log = CommitLog(path, durable=False)
    stored = log.validations()
    log.close()
    assert len(commits) == 5
    vids = [c["validation_id"] for c in commits]
    assert len(set(vids)) == 5, f"validation ids repeat across episodes: {vids}"
    # each commit cites the validation of its own action, not an earlier episode's namesake
    kinds = [stored[v]["kind"] for v in vids]
    assert kinds == ["place_order", "authorize_payment", "capture_payment", "allocate_inventory", "ship_order"]
    assert {v: stored[v] for v in vids} == {**first, **second, **third}
    for c in commits:
        assert stored[c["validation_id"]]["actor"] == c["actor"]


def test_reopened_world_refuses_a_tampered_log(tmp_path):
    import sqlite3

    from acworld_env.world import ReplayError

    path = tmp_path / "log.sqlite"
    log = CommitLog(path, durable=True)
    m = Market(small_state(), log=log)
    ok(m, "b1", {"kind": "place_order", "merchant_id": "m1", "lines": [{"listing_id": "L1", "quantity": 2}]})
    ok(m, "b1", {"kind": "place_order", "merchant_id": "m1", "lines": [{"listing_id": "L2"}]})
    log.close()
    con = sqlite3.connect(path)
    body = con.execute("SELECT body FROM commits WHERE seq = 1").fetchone()[0]
    con.execute("UPDATE commits SET body = ? WHERE seq = 1", (body.replace('"quantity":2', '"quantity":3'),))
    con.commit()
    con.close()
    with pytest.raises(ReplayError, match="commit 1"):
        World(small_state(), log=CommitLog(path))
