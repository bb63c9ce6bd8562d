"""What clients send and name: catalogs only among the server's, tasks as data, loopback Host headers."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from remote_kit import bearer

import acworld_env
from acworld_env.catalog.resources import default_catalog_path
from acworld_env.policies.make import make_policy
from acworld_env.remote import Host
from acworld_env.remote.client import RemoteEnvError
from acworld_env.remote.gates import host_allowed
from acworld_env.remote.mcp_server import MCPEpisode, http_app
from acworld_env.remote.parity import play
from acworld_env.remote.serve import ServerThread
from acworld_env.remote.taskdata import ServerCatalogs

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def offering() -> Iterator[tuple[str, Host]]:
    """A server started with one extra catalog, ``mine`` (the shipped catalog's file under another name)."""
    host = Host(catalogs=ServerCatalogs({"mine": default_catalog_path()}))
    with ServerThread(host) as url:
        yield url, host


def _catalog_task(tasks: list[Any]) -> Any:
    return next(t for t in tasks if t.catalog == "capability-v1")


def test_a_client_names_only_catalogs_the_server_offers(offering: tuple[str, Host], tasks: list[Any]) -> None:
    url, host = offering
    task = _catalog_task(tasks).model_dump(mode="json")
    made = httpx.post(f"{url}/v1/envs", json={"suite": "demo"}, timeout=60).json()
    probes = ["file:/etc/passwd", "file:/nonexistent/catalog.sqlite", f"file:{default_catalog_path()}",
              "large-v1", "../capability-v1"]
    answers = set()
    for name in probes:
        for path, body, headers in [
            ("/v1/envs", {"tasks": [{**task, "catalog": name}]}, {}),
            ("/v1/episodes", {"task": {**task, "catalog": name}}, {}),
            ("/v1/envs", {"catalog": name}, {}),
            (f"/v1/envs/{made['env_id']}/reset", {"options": {"task": {**task, "catalog": name}}},
             bearer(made["env_token"])),
        ]:
            resp = httpx.post(url + path, json=body, headers=headers, timeout=60)
            assert resp.status_code == 422 and resp.json()["error"]["code"] == "unknown_catalog", (name, resp.text)
            message = resp.json()["error"]["message"]
            assert "/" not in message.split(":", 1)[1] and "passwd" not in message and "sqlite" not in message
            answers.add((path.split("/")[-1], message))
    assert len(answers) == 4  # one answer per route, whatever the name: nothing tells which paths exist
    assert not any(ep.env.task and ep.env.task.catalog and "etc" in ep.env.task.catalog
                   for ep in host.episodes.values())


def test_a_catalog_the_server_offers_plays(offering: tuple[str, Host], tasks: list[Any]) -> None:
    url, _ = offering
    task = _catalog_task(tasks)
    renamed = task.model_copy(update={"catalog": "mine"})
    remote = acworld_env.make("capability-v1", transport="http", url=url, task=renamed)
    try:
        play(remote, task, make_policy(task.reference))
        summary = remote.unwrapped.end()
        assert summary["status"] == "scored" and summary["score"] == 1.0
    finally:
        remote.close()
    made = httpx.post(f"{url}/v1/envs", json={"catalog": "mine", "seed": 3}, timeout=120)
    assert made.status_code == 201, made.text
    assert made.json()["tasks"] > 0 and made.json()["name"] == "acworld_large_catalog_v1"
    track = acworld_env.make("large-catalog-v1", transport="http", url=url, catalog="mine", seed=3)
    try:
        track.reset(seed=0)
        assert track.unwrapped.task_id and track.agents
        track.step({"kind": "search_listings", "text": "coffee"})
        assert track.unwrapped.infos[track.agents[0]]["validation"]["accepted"] is True
    finally:
        track.close()


def test_tasks_given_as_data_play_as_locally(server: tuple[str, Host], tasks: list[Any]) -> None:
    url, _ = server
    chosen = [tasks[1], tasks[2]]
    local = acworld_env.make("capability-v1", tasks=chosen)
    remote = acworld_env.make("capability-v1", transport="http", url=url, tasks=chosen)
    try:
        for task in chosen:
            play(local, task, make_policy(task.reference))
            play(remote, task, make_policy(task.reference))
            summary = remote.unwrapped.end()
            assert summary["trace_digest"] == local.unwrapped.episode.market.trace.digest
            assert summary["score"] == local.unwrapped.score.score
    finally:
        remote.close()
    dicts = [t.model_dump(mode="json") for t in chosen]
    started = httpx.post(f"{url}/v1/episodes", json={"tasks": dicts, "task_id": chosen[1].task_id}, timeout=60)
    assert started.status_code == 201 and started.json()["state"]["task_id"] == chosen[1].task_id


def test_a_broken_task_is_a_422_naming_the_task_and_field(server: tuple[str, Host], tasks: list[Any]) -> None:
    url, _ = server
    good = tasks[1].model_dump(mode="json")
    broken = {**good, "counterparties": [{**good["counterparties"][0], "actor": "nobody_9"}]} \
        if good["counterparties"] else {**good, "actor": "nobody_9"}
    cases = [({"tasks": [good, {**good, "max_steps": "many"}]}, "tasks[1]", "max_steps"),
             ({"tasks": [good, broken]}, "tasks[1]", "nobody_9"),
             ({"tasks": [good, 7]}, "tasks[1]", "JSON object"),
             ({"task": {k: v for k, v in good.items() if k != "predicates"}}, "task", "predicates")]
    for body, where, word in cases:
        resp = httpx.post(f"{url}/v1/envs", json=body, timeout=60)
        assert resp.status_code == 422, (where, resp.text)
        error = resp.json()["error"]
        assert error["code"] == "bad_task" and error["message"].startswith(f"{where}: ") and word in error["message"]
    with pytest.raises(RemoteEnvError) as refused:
        acworld_env.make("capability-v1", transport="http", url=url, tasks=[good, {**good, "max_steps": "many"}])
    assert refused.value.status == 422 and "tasks[1]" in refused.value.message


def test_unknown_host_headers_get_421(server: tuple[str, Host]) -> None:
    url, _ = server
    port = url.rsplit(":", 1)[1]
    for name in ("evil.example", f"evil.example:{port}", f"127.0.0.1.evil.example:{port}", ""):
        resp = httpx.get(f"{url}/v1/health", headers={"Host": name}, timeout=30)
        assert resp.status_code == 421, (name, resp.status_code)
        assert resp.json()["error"]["code"] == "misdirected_request"
    for name in (f"127.0.0.1:{port}", f"localhost:{port}", "localhost", f"[::1]:{port}"):
        assert httpx.get(f"{url}/v1/health", headers={"Host": name}, timeout=30).status_code == 200, name
    assert host_allowed("evil.example", "0.0.0.0") and not host_allowed(None, "127.0.0.1")


def test_the_mcp_server_keeps_the_same_host_rule(tasks: list[Any]) -> None:
    episode = MCPEpisode({"task_id": tasks[0].task_id})
    with ServerThread(app=http_app(episode, "127.0.0.1")) as url:
        resp = httpx.post(f"{url}/mcp", json={}, headers={"Host": "evil.example"}, timeout=30)
        assert resp.status_code == 421 and resp.json()["error"]["code"] == "misdirected_request"


def test_unknown_routes_answer_in_the_error_format(server: tuple[str, Host]) -> None:
    url, _ = server
    missing = httpx.post(f"{url}/v1/nowhere", content=b"x" * 100_000, timeout=30)
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "unknown_route"
    assert missing.headers["connection"] == "close"  # its body was never read
    wrong = httpx.put(f"{url}/v1/health", timeout=30)
    assert wrong.status_code == 405 and wrong.json()["error"]["code"] == "method_not_allowed"


def test_serve_takes_catalogs_by_name_and_refuses_bad_ones(tmp_path: Any) -> None:
    from typer.testing import CliRunner

    from acworld_env.cli import app

    offered = ServerCatalogs.from_specs([f"mine={default_catalog_path()}", "large-v1"])
    assert sorted(offered.names) == ["capability-v1", "large-v1", "mine"]
    assert offered.resolve("mine", "catalog") == f"file:{default_catalog_path()}"
    for spec in ["mine", "=x", f"mine={tmp_path / 'none.sqlite'}"]:
        with pytest.raises(ValueError):
            ServerCatalogs.from_specs([spec])
        result = CliRunner().invoke(app, ["serve", "--catalog", spec, "--port", "1"])
        assert result.exit_code == 2 and "--catalog" in result.output
