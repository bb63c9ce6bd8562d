"""Two separately hosted policies in one episode: each actor played by its own OS process over HTTP.

A real server on 127.0.0.1 hosts a T4 episode with every actor an agent (``acworld seats``); two
``acworld play`` processes, started at once and each given only its own actor's credential file,
play the Buyer and the Merchant. The episode must be the one the same two policies give in one
process (``acworld eval --counterparties agents``): same trace digest, and the server's run folder
holds the same ``score.json`` and ``sides.json`` bytes. Neither process ever sees the other's
private limit, and a credential used to act as the other actor is refused (403) without touching
the World.
"""

from __future__ import annotations

import json
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from remote_kit import bearer
from typer.testing import CliRunner

from acworld_env.cli import app
from acworld_env.core.money import format_money
from acworld_env.remote import Host
from acworld_env.remote.serve import ServerThread

TASK = "capability-v1/T4/buyer/zopa/01"
LIMITS = {"buyer_0": 8600, "merchant_0": 7200}
"""Each actor's private limit in TASK (the Buyer's ceiling, the Merchant's floor), in cents."""
IMPOSTOR = """
import sys
from acworld_env.remote.seat import Seat, SeatRefused
url, episode, token, other = sys.argv[1:5]
seat = Seat(url, episode, token)
try:
    seat.act({"kind": "finish"}, claim=other)
    print("accepted")
except SeatRefused as exc:
    print(exc.status, exc.code)
"""
"""A process holding one actor's credential that tries to act as the other actor."""


def cli(*args: Any) -> Any:
    """``acworld ARGS`` in this process."""
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """``(url, runs folder)`` of a live server writing every scored episode's run."""
    runs = tmp_path_factory.mktemp("two-process-runs")
    with ServerThread(Host(runs_dir=runs)) as url:
        yield url, runs


def _seats(url: str, out: Path) -> dict[str, Any]:
    result = cli("seats", url, "--task-id", TASK, "--out", out)
    assert result.exit_code == 0, result.output
    return json.loads((out / "episode.json").read_text())


def _local(tmp: Path, buyer: str, merchant: str) -> Path:
    """The run folder of the same two policies in one process (``acworld eval``)."""
    out = tmp / "local"
    result = cli("eval", "capability-v1", "--tasks", TASK, "--counterparties", "agents", "--policy",
                 f"buyer={buyer}", "--policy", f"merchant={merchant}", "--out", out, "--quiet")
    assert result.exit_code == 0, result.output
    return out / "runs" / TASK.replace("/", "__")


def _play(url: str, seats: Path, actor: str, policy: str, tmp: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "acworld_env.cli", "play", url, "--seats", str(seats), "--actor", actor,
         "--policy", policy, "--record", str(tmp / f"{actor}.jsonl"), "--result", str(tmp / f"{actor}.json")],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _leaks(records: list[dict[str, Any]], cents: int) -> list[str]:
    """Places in ``records`` that show the amount ``cents`` (as an integer or as money text)."""
    found = []
    texts = {format_money(cents), format_money(cents, trim_zero_cents=True)}
    for i, obs in enumerate(records):
        blob = json.dumps(obs, sort_keys=True)
        if any(t in blob for t in texts) or f": {cents}" in blob or f":{cents}" in blob:
            found.append(f"observation {i}")
    return found


@pytest.mark.parametrize("merchant", ["reference", "random"])
def test_two_processes_play_one_episode_as_one_process_does(served: tuple[str, Path], tmp_path: Path,
                                                            merchant: str) -> None:
    url, runs = served
    seats = tmp_path / "seats"
    episode = _seats(url, seats)
    assert episode["roles"] == {"buyer_0": "buyer", "merchant_0": "merchant"}
    for actor in episode["roles"]:
        assert stat.S_IMODE((seats / f"{actor}.token").stat().st_mode) == 0o600
    tokens = {a: (seats / f"{a}.token").read_text().strip() for a in episode["roles"]}

    # a process with the Buyer's credential acting as the Merchant is refused, and so the other way round
    for actor, other in (("buyer_0", "merchant_0"), ("merchant_0", "buyer_0")):
        done = subprocess.run([sys.executable, "-c", IMPOSTOR, url, episode["episode_id"], tokens[actor], other],
                              capture_output=True, text=True, timeout=60)
        assert done.stdout.split() == ["403", "wrong_actor"], done.stdout + done.stderr

    procs = {"buyer_0": _play(url, seats, "buyer_0", "reference", tmp_path),
             "merchant_0": _play(url, seats, "merchant_0", merchant, tmp_path)}
    outputs = {a: p.communicate(timeout=120)[0] for a, p in procs.items()}
    for actor, proc in procs.items():
        assert proc.returncode == 0, outputs[actor]
    results = {a: json.loads((tmp_path / f"{a}.json").read_text()) for a in procs}

    local = _local(tmp_path, "reference", merchant)
    digest = json.loads((local / "run.json").read_text())["trace_digest"]
    assert results["buyer_0"]["trace_digest"] == results["merchant_0"]["trace_digest"] == digest
    served_run = runs / episode["episode_id"]
    for name in ("score.json", "sides.json"):
        assert (served_run / name).read_bytes() == (local / name).read_bytes(), name
    assert json.loads((served_run / "run.json").read_text())["trace_digest"] == digest
    local_score = json.loads((local / "score.json").read_text())["score"]
    local_side = json.loads((local / "sides.json").read_text())["scores"]["merchant_0"]["score"]
    assert results["buyer_0"]["score"] == pytest.approx(local_score)
    assert results["merchant_0"]["score"] == pytest.approx(local_side)
    assert cli("verify", served_run).exit_code == 0

    for actor, other in (("buyer_0", "merchant_0"), ("merchant_0", "buyer_0")):
        seen = [json.loads(line) for line in (tmp_path / f"{actor}.jsonl").read_text().splitlines()]
        assert len(seen) == results[actor]["actions"] > 0
        assert {o["actor"] for o in seen} == {actor}
        assert _leaks(seen, LIMITS[other]) == [], f"{actor} saw {other}'s limit"
        assert _leaks(seen, LIMITS[actor]), "the check finds a limit where one is shown (the actor's own)"

    with httpx.Client(base_url=url, timeout=30) as http:
        env_token = (seats / "env.token").read_text().strip()
        status = http.get(f"/v1/episodes/{episode['episode_id']}", headers=bearer(env_token)).json()
    refused = [(r["status"], r["code"], r["claimed"]) for r in status["summary"]["refused_requests"]]
    assert sorted(refused) == [(403, "wrong_actor", "buyer_0"), (403, "wrong_actor", "merchant_0")]
    assert status["summary"]["side_scores"] == {"merchant_0": pytest.approx(local_side)}


def test_waiting_for_a_turn_holds_until_it_comes(served: tuple[str, Path], tmp_path: Path) -> None:
    url, _ = served
    episode = _seats(url, tmp_path / "seats")
    tokens = {a: (tmp_path / "seats" / f"{a}.token").read_text().strip() for a in episode["roles"]}
    path = f"/v1/episodes/{episode['episode_id']}"
    with httpx.Client(base_url=url, timeout=30) as http:
        start = time.monotonic()
        mine = http.get(path, params={"wait": 5}, headers=bearer(tokens["buyer_0"])).json()
        assert time.monotonic() - start < 2.0 and mine["agent_selection"] == mine["actor"] == "buyer_0"
        assert set(mine["infos"]) == {"buyer_0"}  # its own info only
        start = time.monotonic()
        theirs = http.get(path, params={"wait": 0.4}, headers=bearer(tokens["merchant_0"])).json()
        assert time.monotonic() - start >= 0.35 and theirs["agent_selection"] == "buyer_0"
        bad = http.get(path, params={"wait": "forever"}, headers=bearer(tokens["merchant_0"]))
        assert bad.status_code == 422 and bad.json()["error"]["code"] == "bad_request"


def test_play_refusals_are_clear_errors(served: tuple[str, Path], tmp_path: Path) -> None:
    url, _ = served
    seats = tmp_path / "seats"
    _seats(url, seats)
    (tmp_path / "wrong.token").write_text("not-a-credential\n")
    episode = json.loads((seats / "episode.json").read_text())["episode_id"]
    cases = [
        (("--episode", episode, "--token-file", tmp_path / "wrong.token", "--policy", "reference"),
         "401 unknown_credential"),
        (("--seats", seats, "--actor", "buyer_0", "--policy", "nonesuch"), "unknown policy 'nonesuch'"),
        (("--seats", seats, "--actor", "nobody_9", "--policy", "reference"), "nobody_9.token"),
        (("--seats", seats, "--policy", "reference"), "--seats DIR goes with --actor"),
        (("--policy", "reference"), "name the seat"),
    ]
    for args, message in cases:
        result = cli("play", url, *args)
        assert result.exit_code == 2, result.output
        assert message in result.output and "Traceback" not in result.output, result.output
    again = cli("seats", url, "--task-id", TASK, "--out", seats)
    assert again.exit_code == 2 and "already holds seats" in again.output
