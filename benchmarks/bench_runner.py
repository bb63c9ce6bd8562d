"""Throughput of the evaluation runner against a model endpoint with a fixed latency.

Starts a fake OpenAI-compatible chat endpoint on 127.0.0.1 in a separate process (an asyncio
HTTP server; every request answered after a fixed ``--latency``, 100 ms by default), then runs
an evaluation suite through the real LLM policy (``openai-compatible:bench-model``: the
``openai`` SDK client, as users run it) at ``--concurrency 64`` and prints:

* efficiency against the latency bound: model calls per second divided by ``slots / latency``
  (640 calls/s at 64 slots and 100 ms: what the runner would reach if every slot always had a
  request waiting on the endpoint and the client cost nothing); goal >= 75 %;
* slot utilisation = busy time of slots / (slots x wall time), where a slot is busy from the
  start of a run to the end of its artifacts (time spent waiting for the interpreter lock counts
  as busy, so this overstates how well the slots are used; the efficiency above does not);
* the overhead per episode excluding model time (run time minus the policy's call latency);
* the peak number of requests the endpoint saw in flight (64 means no serialisation);
* how many processes the runner spread the slots over (``--processes``; by default the
  runner's own choice: two at 64 slots on a 2-core machine) and the time the evaluation spent
  outside its measured wall time (planning, building the policy, writing the summary), which
  the efficiency leaves out; worker processes start after the clock starts, so their start-up
  is inside the measured wall time.

The wall time is the runner's own (``summary.json`` ``timing.wall_s``): from the first run
handed out to the last outcome collected, worker start-up and shut-down included.

The endpoint's replies are scripted from the request alone: a few read-only tool calls that
answer the observation (``get_mandate``, ``get_inbox``), then ``finish``; the number of
calls varies by task (3 to 8) so episodes have uneven lengths, as with a real model. The
endpoint parses every request body in full (about 50 kB of JSON with the tool schemas). It
shares the machine's cores with the runner; it used to be a threaded ``http.server``
(a thread per connection), and is now one asyncio loop, which gives the same replies after the
same latency for less CPU per request.

``--repeats`` runs every task several times (with seeds ``seed + k``) so there are enough
episodes to keep every slot busy (one pass of 200 tasks on 64 slots is mostly start and tail).
``--fresh-policies`` builds a new LLM policy for every episode instead of per-run copies of
one (the runner's default), to show what per-episode setup costs (a custom policy factory
runs in one process).

Usage::

    python benchmarks/bench_runner.py                       # capability-v1, 64 slots, 100 ms
    python benchmarks/bench_runner.py --repeats 4 --concurrency 32 --latency 0.2
    python benchmarks/bench_runner.py --repeats 2 --processes 1   # all slots in one process
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

MODEL = "bench-model"


# -- the fake endpoint (runs in its own process) -------------------------------------------------

def plan_length(first_user: str) -> int:
    """Model calls of an episode (3 to 8), a function of its first observation."""
    return 3 + hashlib.sha256(first_user.encode()).digest()[0] % 6


def scripted_reply(request: dict[str, Any]) -> dict[str, Any]:
    """A Chat Completion with one tool call chosen from the conversation so far."""
    messages = request.get("messages") or []
    done = sum(1 for m in messages if m.get("role") == "assistant")
    first_user = next((str(m.get("content")) for m in messages if m.get("role") == "user"), "")
    if done + 1 >= plan_length(first_user):
        name, args = "finish", {"summary": "Checked my mandate and inbox; nothing more to do."}
    elif done == 0:
        name, args = "get_mandate", {}
    else:
        name, args = "get_inbox", {"unread_only": True}
    call = {"id": f"call_{done}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
    return {"id": f"chatcmpl-{done}", "object": "chat.completion", "created": 0, "model": MODEL,
            "choices": [{"index": 0, "finish_reason": "tool_calls",
                         "message": {"role": "assistant", "content": None, "tool_calls": [call]}}],
            "usage": {"prompt_tokens": 800 + 150 * done, "completion_tokens": 30, "total_tokens": 830 + 150 * done}}


def serve(latency: float) -> None:
    """Serve until the benchmark process goes; print the port on stdout once listening.

    An asyncio HTTP/1.1 server (keep-alive, ``content-length`` bodies; all the SDK sends): one
    coroutine per connection reads a request, parses its JSON body, waits ``latency`` seconds
    and answers. Replies and latency are those of the threaded ``http.server`` endpoint it
    replaced; it spends less of the shared cores per request (no thread per connection, no
    ``email`` header parser), which leaves them to the runner being measured.
    """
    stats = {"requests": 0, "in_flight": 0, "max_in_flight": 0}

    async def answer(writer: asyncio.StreamWriter, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        writer.write(b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n%s" % (
            status, b"OK" if status == 200 else b"Error", len(data), data))
        await writer.drain()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                request_line, *header_lines = head.decode("latin-1").split("\r\n")
                method = request_line.split(" ", 1)[0]
                length = 0
                for line in header_lines:
                    name, _, value = line.partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value)
                body = await reader.readexactly(length) if length else b""
                if method == "POST":
                    stats["requests"] += 1
                    stats["in_flight"] += 1
                    stats["max_in_flight"] = max(stats["max_in_flight"], stats["in_flight"])
                    try:
                        request = json.loads(body or b"{}")
                        await asyncio.sleep(latency)
                        await answer(writer, 200, scripted_reply(request))
                    finally:
                        stats["in_flight"] -= 1
                elif method == "DELETE":  # reset the counters
                    stats.update(requests=0, in_flight=0, max_in_flight=0)
                    await answer(writer, 200, dict(stats))
                else:
                    await answer(writer, 200, dict(stats))
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def main() -> None:
        server = await asyncio.start_server(handle, "127.0.0.1", 0, backlog=1024)
        print(server.sockets[0].getsockname()[1], flush=True)
        await server.serve_forever()

    def exit_with_parent() -> None:
        sys.stdin.read()  # EOF: the benchmark process has gone, however it ended
        os._exit(0)

    threading.Thread(target=exit_with_parent, daemon=True).start()
    asyncio.run(main())


class Endpoint:
    """The fake endpoint as a child process."""

    def __init__(self, latency: float) -> None:
        self.proc = subprocess.Popen([sys.executable, __file__, "--serve", "--latency", str(latency)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        self.port = int(self.proc.stdout.readline())
        self.url = f"http://127.0.0.1:{self.port}/v1"

    def stats(self, reset: bool = False) -> dict[str, int]:
        """Request counters (and reset them)."""
        import urllib.request

        req = urllib.request.Request(self.url, method="DELETE" if reset else "GET")
        with urllib.request.urlopen(req, timeout=10) as resp:
            return json.loads(resp.read())

    def close(self) -> None:
        """Stop the child process."""
        self.proc.terminate()
        self.proc.wait(timeout=10)


# -- a thin policy for when the LLM package is not installed -------------------------------------

class ThinHTTPPolicy:
    """One real HTTP call per decision to the endpoint, reading its tool call as the action."""

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/") + "/chat/completions"
        self.messages: list[dict[str, Any]] = []
        self.last_meta: dict[str, Any] = {}

    def reset(self, seed: int | None = None) -> None:
        """New episode."""
        self.messages = []

    def act(self, observation: dict[str, Any]) -> dict[str, Any]:
        """POST the conversation; the reply's tool call is the action."""
        import urllib.request

        self.messages.append({"role": "user", "content": json.dumps(observation, sort_keys=True, default=str)})
        data = json.dumps({"model": MODEL, "messages": self.messages}).encode()
        req = urllib.request.Request(self.url, data=data, headers={"content-type": "application/json"})
        start = time.perf_counter()
        with urllib.request.urlopen(req, timeout=60) as resp:
            reply = json.loads(resp.read())
        message = reply["choices"][0]["message"]
        self.messages.append(message)
        call = message["tool_calls"][0]["function"]
        self.last_meta = {"policy": "thin-http", "latency_s": round(time.perf_counter() - start, 6),
                          "input_tokens": reply["usage"]["prompt_tokens"],
                          "output_tokens": reply["usage"]["completion_tokens"]}
        return {"kind": call["name"], **json.loads(call["arguments"])}


# -- the benchmark ---------------------------------------------------------------------------------

def llm_available() -> bool:
    """True when the LLM policy package can be imported."""
    try:
        import acworld_env.policies.llm  # noqa: F401
    except ImportError:
        return False
    return True


def run(args: argparse.Namespace) -> dict[str, Any]:
    """One evaluation against a fresh endpoint; the summary with the endpoint's counters."""
    from acworld_env.eval.runner import EvalConfig, run_eval
    from acworld_env.policies.specs import resolve_policy

    endpoint = Endpoint(args.latency)
    try:
        with tempfile.TemporaryDirectory(prefix="acworld-bench-") as out:
            use_llm = llm_available() and not args.thin
            spec = f"openai-compatible:{MODEL}" if use_llm else "thin-http"
            options = {"base_url": endpoint.url, "timeout": 30.0, "max_retries": 2} if use_llm else {}
            config = EvalConfig(env_id=args.env, policy=spec, out=Path(out), concurrency=args.concurrency,
                                repeats=args.repeats, policy_options=options, tasks=args.tasks,
                                processes=args.processes)
            factory = None
            if not use_llm:
                def factory(task: Any, seed: int) -> ThinHTTPPolicy:
                    return ThinHTTPPolicy(endpoint.url)
            elif args.fresh_policies:
                factory = resolve_policy(spec, concurrency=args.concurrency, **options)
            called = time.perf_counter()
            summary = run_eval(config, progress=False, factory=factory)
            summary["setup_s"] = time.perf_counter() - called - summary["timing"]["wall_s"]
            summary["endpoint"] = endpoint.stats()
            summary["policy_kind"] = ("LLM policy (openai SDK)" if use_llm else "thin HTTP policy") + (
                ", fresh policy per episode" if args.fresh_policies and use_llm else "")
            return summary
    finally:
        endpoint.close()


def report(summary: dict[str, Any], args: argparse.Namespace) -> None:
    """Print the figures."""
    t = summary["timing"]
    calls = summary["usage"]["calls"]
    runs = t["runs_executed"]
    print(f"suite {summary['env_id']}  policy {summary['policy']} ({summary['policy_kind']})")
    processes = t.get("processes", 1)
    print(f"processes {processes} (the driver{f' + {processes - 1} worker process(es)' if processes > 1 else ''}; "
          f"set by --processes, else the runner's default)  outside the wall time below {summary['setup_s']:.2f} s "
          f"(planning, building the policy, writing the summary; worker start-up is inside)")
    print(f"latency {args.latency * 1000:.0f} ms  slots {t['slots']}  runs {runs} "
          f"({summary['planned'] // max(1, args.repeats)} tasks x {args.repeats})  "
          f"scored {summary['scored']}  unscored {summary['unscored']}")
    print(f"model calls {calls:.0f}  ({calls / max(1, runs):.1f} per episode)  "
          f"endpoint requests {summary['endpoint']['requests']}  "
          f"peak in flight {summary['endpoint']['max_in_flight']}")
    print(f"wall {t['wall_s']:.2f} s  busy {t['busy_s']:.1f} slot-s  model {t['model_s']:.1f} s  "
          f"throughput {runs / t['wall_s']:.1f} episodes/s, {calls / t['wall_s']:.0f} calls/s")
    per_call = t["model_s"] / calls if calls else 0.0
    endpoint_s = calls * args.latency
    print(f"mean model time per call as the policy measured it {per_call * 1000:.1f} ms "
          f"(endpoint latency {args.latency * 1000:.0f} ms; the rest is client work and waiting for the GIL)")
    bound = t["slots"] / args.latency
    print(f"efficiency {calls / t['wall_s']:.0f} calls/s = {calls / t['wall_s'] / bound * 100:.1f}% of the latency "
          f"bound (slots / latency = {bound:.0f} calls/s: every slot always waiting on the endpoint; goal >= 75%)")
    print(f"slot utilisation {t['slot_utilisation'] * 100:.1f}%  (busy slot time / (slots x wall); counts time a "
          f"slot waits for the interpreter lock as busy, so it overstates the efficiency above); "
          f"tail after the last run started {t['tail_s']:.2f} s")
    print(f"overhead per episode excluding model time {t['overhead_s_per_run'] * 1000:.1f} ms "
          f"(run time minus the policy's measured call time)")
    print(f"overhead per episode excluding endpoint latency {(t['busy_s'] - endpoint_s) / runs * 1000:.1f} ms; "
          f"share of slot time spent waiting on the endpoint {endpoint_s / (t['slots'] * t['wall_s']) * 100:.1f}%")


def main(argv: list[str] | None = None) -> None:
    """Command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="capability-v1")
    parser.add_argument("--tasks", default=None, help="glob over task ids")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--latency", type=float, default=0.1, help="seconds per model request")
    parser.add_argument("--repeats", type=int, default=16, help="episodes per task")
    parser.add_argument("--thin", action="store_true", help="use the thin HTTP policy even if the LLM one exists")
    parser.add_argument("--fresh-policies", action="store_true", help="build a new LLM policy per episode")
    parser.add_argument("--processes", type=int, default=None,
                        help="processes to spread the slots over (default: the runner's choice)")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON too")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        serve(args.latency)
        return
    os.environ.pop("OPENAI_BASE_URL", None)
    summary = run(args)
    report(summary, args)
    if args.json:
        print(json.dumps({k: summary[k] for k in ("timing", "usage", "endpoint")}, indent=2))


if __name__ == "__main__":
    main()
