"""Run one frozen task with an LLM of your choice as the Buyer; print the transcript and credits.

Usage::

    export OPENAI_API_KEY=...            # or ANTHROPIC_API_KEY, or --api-key-file
    python examples/llm_buyer.py --policy openai:gpt-4o-mini
    python examples/llm_buyer.py --policy anthropic:claude-haiku-4-5
    python examples/llm_buyer.py --policy openai-compatible:qwen2.5:7b-instruct \\
        --base-url http://localhost:11434/v1           # Ollama, vLLM, llama.cpp, OpenRouter ...

Artifacts go to ``--out`` (check them with ``acworld verify DIR``). ``--cache-dir`` makes a
rerun replay the recorded replies without calling the model. If the provider cannot
answer after retries the run is reported as unscored (exit status 3).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from acworld_env.artifacts import verify_run
from acworld_env.eval.rollout import run_episode
from acworld_env.policies.llm import LLMConfigError, ProviderError, policy_from_spec
from acworld_env.tasks.suites import load_suite
from acworld_env.transcript import transcript_lines


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, run the episode, print what happened; return the exit status."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--policy", default="openai:gpt-4o-mini",
                    help="openai:MODEL, anthropic:MODEL or openai-compatible:MODEL")
    ap.add_argument("--base-url", default=None, help="endpoint (required for openai-compatible)")
    ap.add_argument("--api-key-file", default=None, help="file holding the API key")
    ap.add_argument("--suite", default="capability-v1")
    ap.add_argument("--task", type=int, default=0, help="index of the task in the suite")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path("runs/llm_buyer"))
    ap.add_argument("--cache-dir", default=None, help="response cache folder (reruns are free)")
    ap.add_argument("--timeout", type=float, default=240.0, help="seconds per call")
    ap.add_argument("--temperature", type=float, default=None, help="default: the provider's")
    args = ap.parse_args(argv)

    task = load_suite(args.suite)[args.task]
    try:
        policy = policy_from_spec(args.policy, base_url=args.base_url, api_key_file=args.api_key_file,
                                  cache_dir=args.cache_dir, timeout=args.timeout, temperature=args.temperature)
    except LLMConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    print(f"{task.task_id} ({task.family}/{task.capability}) as {task.actor} with {args.policy}")
    print(f"Request: {task.request}\n")
    try:
        rollout = run_episode(task, policy, seed=args.seed, out_dir=args.out,
                              extra={"policy": args.policy})
    except ProviderError as exc:
        print(f"run unscored: provider failure ({exc.reason}) after {exc.attempts} attempt(s): {exc}",
              file=sys.stderr)
        return 3

    records = rollout.episode.market.trace.records
    for line in transcript_lines(records):
        print(line)
    metas = [r.meta for r in records if r.meta]
    tokens_in = sum(m.get("input_tokens") or 0 for m in metas)
    tokens_out = sum(m.get("output_tokens") or 0 for m in metas)
    costs = [m.get("cost_usd") for m in metas]
    cost = f"${sum(costs):.4f}" if costs and None not in costs else "unknown"
    print(f"\n{len(metas)} model calls, {tokens_in} input / {tokens_out} output tokens, cost {cost}, "
          f"{sum(1 for m in metas if m.get('cache_hit'))} from cache")

    score = rollout.score
    print(f"\nScore {score.score:.3f}")
    for pid, credit in score.credits.items():
        print(f"  {credit:>4g}  {pid}")
    check = verify_run(args.out)
    print(f"\nArtifacts in {args.out}/: {'verified' if check.ok else 'NOT verified: ' + check.message}")
    return 0 if check.ok else 1


if __name__ == "__main__":
    sys.exit(main())
