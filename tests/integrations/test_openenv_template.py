"""The OpenEnv template of the repository: ``openenv.yaml``, ``server/app.py``, the Dockerfile.

``openenv validate`` passes on the repository (its local checks) and against the server the
Dockerfile's own command starts (its runtime checks: OpenAPI, ``/health``, ``/metadata``,
``/schema``, ``POST /mcp``, the simulation routes). ``/metadata`` names the installed release;
``/schema`` carries the wire models; ``POST /mcp`` lists and calls the market's tools through the
one visibility rule: a buyer's session never sees the merchant's private floor. No Docker daemon
is needed: the command the image runs is run here, on 127.0.0.1 and a free port.
"""

from __future__ import annotations

import fnmatch
import importlib.util
import json
import shlex
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

pytest.importorskip("openenv", reason="OpenEnv is not installed (pip install -e '.[train]', docs/llm-training.md)")

from acworld_env.remote.serve import free_port  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TASK = "capability-v1/T4/buyer/private_value/01"
NEW_VALIDATE = importlib.util.find_spec("openenv.validation") is not None
needs_manifest_validation = pytest.mark.skipif(
    not NEW_VALIDATE, reason="this OpenEnv release (openenv-core 0.3) has no manifest validation; openenv>=0.4 has")


def _instructions(text: str) -> list[tuple[str, str]]:
    """The Dockerfile's instructions, ``(KEYWORD, arguments)``, continuation lines joined."""
    out, pending = [], ""
    for line in text.splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        pending += line.rstrip("\\").strip() + " "
        if not line.rstrip().endswith("\\"):
            keyword, _, args = pending.strip().partition(" ")
            out.append((keyword.upper(), args.strip()))
            pending = ""
    assert not pending, "a continuation line runs off the end of the Dockerfile"
    return out


def dockerfile_command(host: str, port: int) -> list[str]:
    """The Dockerfile's CMD with its ``--host`` and ``--port`` values replaced (this interpreter for python)."""
    cmds = [json.loads(args) for keyword, args in _instructions((ROOT / "Dockerfile").read_text()) if keyword == "CMD"]
    assert len(cmds) == 1 and isinstance(cmds[0], list), "one CMD, in exec (JSON) form"
    cmd = list(cmds[0])
    assert cmd[0] == "python" and "--host" in cmd and "--port" in cmd, cmd
    cmd[0] = sys.executable
    cmd[cmd.index("--host") + 1], cmd[cmd.index("--port") + 1] = host, str(port)
    return cmd


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    """The server the Dockerfile runs, started by its command in the repository root, on 127.0.0.1."""
    port = free_port()
    cmd = dockerfile_command("127.0.0.1", port)
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                pytest.fail(f"{shlex.join(cmd)} exited {proc.returncode}:\n{proc.stdout.read() if proc.stdout else ''}")
            try:
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the server did not answer /health within 120 s"
            time.sleep(0.25)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def openenv_cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``openenv ARGS`` with this interpreter's OpenEnv."""
    return subprocess.run([sys.executable, "-m", "openenv.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


def rpc(url: str, method: str, params: dict[str, Any] | None = None, rid: int = 1) -> dict[str, Any]:
    """One JSON-RPC request to ``POST /mcp``; the whole response."""
    resp = httpx.post(f"{url}/mcp", json={"jsonrpc": "2.0", "id": rid, "method": method, "params": params or {}},
                      timeout=60)
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["jsonrpc"] == "2.0" and body["id"] == rid, body
    return body


def call(url: str, name: str, arguments: dict[str, Any], session: str | None = None) -> dict[str, Any]:
    """``tools/call``; the CallToolResult."""
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    if session is not None:
        params["session"] = session
    body = rpc(url, "tools/call", params)
    assert "result" in body, body
    return body["result"]


# -- the local checks ---------------------------------------------------------------------------
def checkout_copy(dest: Path) -> Path:
    """The repository's own files (tracked, and untracked but not ignored) copied to ``dest``."""
    import shutil

    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        if (ROOT / name).is_file() and not (ROOT / name).is_symlink():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / name, dest / name)
    return dest


@needs_manifest_validation
def test_openenv_validate_local_checks_pass_on_the_repository(tmp_path: Path) -> None:
    static = openenv_cli("validate", str(ROOT), "--level", "static", "--json")
    assert static.returncode == 0, static.stdout + static.stderr
    report = json.loads(static.stdout)
    assert report["verdict"] == "pass", report
    assert {r["check_id"]: r["status"] for r in report["results"]} == {"static.manifest": "pass"}
    assert report["manifest"]["name"] == "acworld"
    # Every level: nothing fails; the image-dependent runtime checks are skipped without an image build.
    # Run on a copy of the repository's files: above the static level the validator digests the whole
    # tree before and after and errors if anything changed, and a working checkout's ignored folders
    # (runs/, studies in progress) may be written meanwhile.
    full = openenv_cli("validate", str(checkout_copy(tmp_path)), "--skip-build", "--json")
    assert full.returncode == 0, full.stdout + full.stderr
    statuses = {r["check_id"]: r["status"] for r in json.loads(full.stdout)["results"]}
    assert statuses["static.manifest"] == "pass" and statuses["runtime.startup"] == "skip"
    assert not {k for k, v in statuses.items() if v in ("fail", "error")}, statuses


def test_the_template_files_agree_with_the_package() -> None:
    """openenv.yaml names the app server/app.py builds; its version is the package's; server/app.py has main()."""
    import tomllib

    manifest = yaml.safe_load((ROOT / "openenv.yaml").read_text())
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert manifest["name"] == "acworld" and manifest["version"] == project["version"]
    assert manifest["app"] == "server.app:app" and manifest["port"] == 8000
    sys.path.insert(0, str(ROOT))
    try:
        import server.app as entry
    finally:
        sys.path.remove(str(ROOT))
    assert callable(entry.main) and callable(entry.app)
    include = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]["include"]
    assert not any(fnmatch.fnmatch("server", pattern) for pattern in include)  # server/ is not shipped in the wheel


def test_the_dockerfile_builds_from_the_openenv_base_image_and_copies_what_exists() -> None:
    """A lint of the Dockerfile (building it needs network access): base image, sources, port, command."""
    steps = _instructions((ROOT / "Dockerfile").read_text())
    keywords = [k for k, _ in steps]
    assert keywords[0] in ("ARG", "FROM") and keywords.count("FROM") == 1 and keywords.count("CMD") == 1
    args = dict(a.split("=", 1) for k, a in steps if k == "ARG" and "=" in a)
    base = next(a for k, a in steps if k == "FROM").split()[0]
    base = args.get(base.strip("${}"), base)
    assert base.startswith("ghcr.io/huggingface/openenv-base:"), base
    for keyword, arguments in steps:
        assert keyword in {"ARG", "FROM", "WORKDIR", "COPY", "RUN", "ENV", "EXPOSE", "HEALTHCHECK", "CMD"}, keyword
        if keyword == "COPY":
            *sources, _ = arguments.split()
            missing = [s for s in sources if not (ROOT / s).exists()]
            assert not missing, f"COPY of files the repository lacks: {missing}"
    assert ("EXPOSE", "8000") in steps
    assert dockerfile_command("0.0.0.0", 8000)[1:] == ["-m", "server.app", "--host", "0.0.0.0", "--port", "8000"]
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert "*" in ignored and {"!acworld_env/", "!server/", "!pyproject.toml"} <= set(ignored)


# -- the runtime checks, against the Dockerfile's command --------------------------------------
@needs_manifest_validation
def test_openenv_validate_runtime_checks_pass_against_the_dockerfile_command(server_url: str) -> None:
    done = openenv_cli("validate", "--url", server_url, "--json", "--timeout", "30")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    criteria = {c["id"]: c["passed"] for c in report["criteria"]}
    assert report["passed"] and report["mode"] == "simulation", report
    assert {"openapi_version_available", "health_endpoint", "metadata_endpoint", "schema_endpoint", "mcp_endpoint",
            "mode_endpoint_consistency"} <= set(criteria)
    assert all(criteria.values()), criteria


def test_metadata_names_the_release(server_url: str) -> None:
    from acworld_env.integrations.openenv_env import package_version

    meta = httpx.get(f"{server_url}/metadata", timeout=10).json()
    assert meta["name"] == "acworld" and meta["version"] == package_version() != "0+unknown"
    assert "Buyer" in meta["description"] or "buyers" in meta["description"]


def test_schema_carries_the_wire_models(server_url: str) -> None:
    schema = httpx.get(f"{server_url}/schema", timeout=10).json()
    assert {"kind", "tool_name", "arguments", "type"} <= set(schema["action"]["properties"])
    assert {"credits", "stages", "score", "safe_score", "session", "validation"} <= set(schema["observation"]["properties"])
    import inspect

    from openenv.core.env_server.http_server import create_app

    if "state_cls" in inspect.signature(create_app).parameters:  # openenv>=0.4 (openenv-core 0.3: the base State)
        assert {"task_id", "actor", "score"} <= set(schema["state"]["properties"])
    assert {"episode_id", "step_count"} <= set(schema["state"]["properties"])


def test_mcp_answers_json_rpc_and_refuses_what_is_not(server_url: str) -> None:
    empty = httpx.post(f"{server_url}/mcp", json={}, timeout=10)
    assert empty.status_code == 200 and empty.json()["jsonrpc"] == "2.0" and "error" in empty.json()
    garbage = httpx.post(f"{server_url}/mcp", content=b"{not json", timeout=10)
    assert garbage.status_code == 200 and garbage.json()["error"]["code"] == -32700
    note = httpx.post(f"{server_url}/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"}, timeout=10)
    assert note.status_code == 202 and not note.content
    init = rpc(server_url, "initialize", {"protocolVersion": "2025-06-18"})["result"]
    assert init["serverInfo"]["name"] == "acworld" and "tools" in init["capabilities"]
    assert rpc(server_url, "no/such/method")["error"]["code"] == -32601
    assert [t["name"] for t in rpc(server_url, "tools/list")["result"]["tools"]] == ["acworld_reset"]
    nobody = call(server_url, "get_mandate", {})
    assert nobody["isError"] and nobody["structuredContent"]["error"]["code"] == "missing_credential"
    forged = call(server_url, "get_mandate", {}, session="not-a-credential")
    assert forged["isError"] and forged["structuredContent"]["error"]["code"] == "unknown_credential"
    bad = call(server_url, "acworld_reset", {"task_id": "capability-v1/T99/none/none/01"})
    assert bad["isError"] and bad["structuredContent"]["error"]["code"] == "bad_reset"


def test_mcp_tools_go_through_the_visibility_rule(server_url: str) -> None:
    """A buyer's session: its tools only, its own ceiling, never the merchant's floor (read from the task)."""
    task = next(t for t in map(json.loads, (ROOT / "acworld_env/data/tasks/capability-v1.jsonl").open())
                if t["task_id"] == TASK)
    floor = task["counterparty_mandates"]["merchant_0"]["min_unit_price"]
    ceiling = task["mandate"]["max_unit_price"]
    listing = task["mandate"]["listing_id"]
    assert floor != ceiling
    secrets = [str(floor), f"{floor / 100:.2f}"]  # cents, and dollars as the text view writes money

    replies: list[dict[str, Any]] = []
    started = call(server_url, "acworld_reset", {"task_id": TASK})
    replies.append(started)
    view = started["structuredContent"]
    assert not started["isError"] and view["actor"] == "buyer_0" and view["role"] == "buyer" and view["session"]
    session = view["session"]

    listed = rpc(server_url, "tools/list", {"session": session})["result"]["tools"]
    replies.append({"tools": listed})
    names = {t["name"] for t in listed}
    assert {"acworld_reset", "acworld_observe", "acworld_end", "get_mandate", "propose_offer"} <= names
    assert not names & {"issue_refund", "ship_order", "get_inventory"}  # merchant-only tools are not the buyer's
    propose = next(t for t in listed if t["name"] == "propose_offer")
    assert {"to", "listing_id", "unit_price"} <= set(propose["inputSchema"]["required"])

    mandate = call(server_url, "get_mandate", {}, session)
    replies.append(mandate)
    assert not mandate["isError"] and mandate["structuredContent"]["validation"]["accepted"]
    assert str(ceiling) in json.dumps(mandate)  # the buyer reads its own limit: the check below could fail
    for price in (ceiling // 2, ceiling // 2 + 1500, ceiling // 2 + 3000):
        offer = call(server_url, "propose_offer", {"to": "merchant_0", "listing_id": listing, "unit_price": price},
                     session)
        replies.append(offer)
        assert not offer["isError"], offer
        replies.append(call(server_url, "get_offer_thread", {"listing_id": listing}, session))
        replies.append(call(server_url, "get_inbox", {}, session))
    refused = call(server_url, "issue_refund", {"order_id": "O-1", "amount": 1}, session)
    assert refused["isError"] and "no tool" in refused["structuredContent"]["error"]
    replies.append(call(server_url, "acworld_observe", {}, session))
    end = call(server_url, "acworld_end", {}, session)
    replies.append(end)
    assert "score" in end["structuredContent"]

    wire = json.dumps(replies)
    assert "merchant_0" in wire  # the counterparty took part in what the buyer saw
    leaked = [s for s in secrets if s in wire]
    assert not leaked, f"the merchant's private floor reached the buyer's session: {leaked}"
