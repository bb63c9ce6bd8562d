"""Environment speed: the training loop (reset, step, decode, a policy) versus a no-op PettingZoo AEC env.

**Full loop** (the goal, issue 32 item 1): every task of the suite (``capability-v1``: 200 frozen
tasks; and the same number of tasks of a generated split, ``split="generated", seed=--gen-seed``),
each through ``acworld_env.make(env_id)``: ``env.reset(seed=0, options={"task_id": ...})``, the
task's reference policy (``make_policy(env.unwrapped.task.reference)``), then the standard
``agent_iter`` loop (``env.last()``, :func:`~acworld_env.envs.decode_observation`,
``policy.act``, ``env.step``). Compared against, in the same process: a two-agent no-op AEC env
behind the same order-enforcing wrapper whose ``observe`` JSON-encodes a fixed ~1.5 KB
observation on every call (``json.dumps``, decoded by the loop with ``json.loads``: a fixed floor that
owes nothing to our code), reset per task and played for as
many agent steps as our episode of that task took, by an idle policy. The two sides alternate
task by task; each figure is the best of ``--repeat`` passes; the ratio of per-step costs (reset
and decoding included) is printed in the process's CPU time and in wall time. A last, separately
timed pass splits our time into reset, ``step``, ``last``/observe, decoding and the policy.

**Step-only** (the older figure, kept for comparison): the no-op env encodes, on every call, the
raw observation our env showed at that step (recorded in a first pass) with the env's own
functions (:func:`~acworld_env.observe.render_text` and
:func:`~acworld_env.envs.spaces.encode_observation`), and the loop decodes it the same way; the
ratio is per agent step with the same observation work on both sides (median of ``--repeat``
passes). The full reference pass through the command line's path
(:func:`acworld_env.eval.rollout.run_episode`) is timed too.

Run::

    python benchmarks/bench_env.py [--env capability-v1] [--repeat 3] [--gen-seed 1]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

from env_loop import play, reference_episode  # this folder's loop (on the path)
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

import acworld_env
from acworld_env.envs import decode_observation
from acworld_env.envs.spaces import VCPActionSpace, encode_observation, observation_space
from acworld_env.eval.rollout import run_episode
from acworld_env.observe import render_text
from acworld_env.policies.make import make_policy

GOAL_RATIO, GOAL_FULL_PASS_S, GOAL_TASKS = 5.0, 4.7, 200


def start_agents(env: AECEnv) -> None:
    """Every possible agent live, no reward, no flag, the first to act (a no-op env's reset)."""
    env.agents = list(env.possible_agents)
    env.rewards = {a: 0.0 for a in env.agents}
    env._cumulative_rewards = {a: 0.0 for a in env.agents}
    env.terminations = {a: False for a in env.agents}
    env.truncations = {a: False for a in env.agents}
    env.infos = {a: {} for a in env.agents}
    env.agent_selection = env.agents[0]


class NoopAEC(AECEnv):
    """One agent; ``step`` only counts. ``reset(options={"observations": [raw, ...]})`` sets the episode:
    its length is the number of raw observations, and ``observe`` encodes the current one on every call,
    exactly as the real env does (render the text, encode the space element)."""

    metadata = {"name": "noop_v0", "render_modes": [], "is_parallelizable": False}

    def __init__(self) -> None:
        super().__init__()
        self.possible_agents = ["agent_0"]
        self._obs_space, self._act_space = observation_space(), VCPActionSpace()
        self._raws: list[dict] = []

    def observation_space(self, agent: str) -> Any:
        return self._obs_space

    def action_space(self, agent: str) -> Any:
        return self._act_space

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._raws = (options or {}).get("observations", [])
        self.length, self.t = len(self._raws), 0
        start_agents(self)

    def observe(self, agent: str) -> dict:
        raw = self._raws[min(self.t, self.length - 1)]
        return encode_observation(raw, render_text(raw))

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.t += 1
        self.terminations[agent] = self.t >= self.length
        self._accumulate_rewards()


class IdlePolicy:
    """Returns the idle action."""

    def reset(self, seed: int | None = None) -> None:
        """Nothing to forget."""

    def act(self, observation: dict) -> dict:
        """Read the inbox."""
        return {"kind": "get_inbox", "unread_only": True}


def record_observations(env: Any, task: Any) -> list[dict]:
    """The raw observations the reference policy acts on in ``task`` (one per agent step)."""
    raws: list[dict] = []
    policy = make_policy(task.reference)
    env.reset(seed=0, options={"task_id": task.task_id})
    policy.reset(0)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            env.step(None)
            continue
        raws.append(env.unwrapped.raw_observation(agent))
        env.step(policy.act(decode_observation(observation)))
    return raws


def loop(env: Any, episodes: list[tuple[dict, Any]]) -> tuple[int, float]:
    """The standard ``agent_iter`` loop over ``(reset options, policy)`` pairs: (steps, seconds)."""
    steps, start = 0, time.perf_counter()
    for options, policy in episodes:
        env.reset(seed=0, options=options)
        policy.reset(0)
        for _agent in env.agent_iter():
            observation, reward, termination, truncation, info = env.last()
            if termination or truncation:
                env.step(None)
                continue
            env.step(policy.act(decode_observation(observation)))
            steps += 1
    return steps, time.perf_counter() - start


class Pass:
    """Steps, wall seconds and CPU seconds of one side over a pass (summed over its episodes)."""

    def __init__(self) -> None:
        self.steps, self.wall, self.cpu = 0, 0.0, 0.0

    def add(self, env: Any, episodes: list[tuple[dict, Any]]) -> None:
        """Run :func:`loop` over ``episodes``; add its steps, wall time and the process's CPU time."""
        cpu = time.process_time()
        steps, wall = loop(env, episodes)
        self.cpu += time.process_time() - cpu
        self.steps += steps
        self.wall += wall


NOOP_OBSERVATION: dict[str, Any] = {
    "actor": "agent_0", "role": "buyer", "round": 3, "step": 2, "max_steps": 12, "balance": 250_000,
    "request": "Buy one burr coffee grinder under $90.00 from a merchant with a return policy; compare two "
               "offers first and keep your ceiling to yourself. " * 3,
    "mandate": {"ceiling": 9000, "quantity": 1, "request": "coffee grinder"},
    "inbox": [{"message_id": f"M-{i}", "from": "merchant_0", "kind": "offer", "thread_id": f"T-{i}",
               "text": "We can offer the grinder at $84.00 with free shipping and a 30-day return window."}
              for i in range(4)],
    "last_result": {"kind": "search_catalog", "accepted": True, "code": None, "message": None, "replayed": False,
                    "result": {"items": [{"listing_id": f"L-{i}", "title": "Burr grinder", "price": 8400 + i}
                                         for i in range(3)]}},
}
"""The observation the two-agent no-op env encodes on every ``observe`` (~1.5 KB of JSON)."""


class NoopPairAEC(AECEnv):
    """Two agents taking turns; ``step`` only counts. ``reset(options={"steps": n})`` sets the episode length in
    agent steps; ``observe`` JSON-encodes :data:`NOOP_OBSERVATION` on every call."""

    metadata = {"name": "noop_pair_v0", "render_modes": [], "is_parallelizable": False}

    def __init__(self) -> None:
        super().__init__()
        self.possible_agents = ["agent_0", "agent_1"]
        self._obs_space, self._act_space = observation_space(), VCPActionSpace()

    def observation_space(self, agent: str) -> Any:
        return self._obs_space

    def action_space(self, agent: str) -> Any:
        return self._act_space

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.length, self.t = int((options or {}).get("steps", 1)), 0
        start_agents(self)

    def observe(self, agent: str) -> dict:
        return {"json": json.dumps(NOOP_OBSERVATION), "step": self.t}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.t += 1
        if self.t >= self.length:
            self.terminations = {a: True for a in self.agents}
        self.agent_selection = self.agents[self.t % 2]
        self._accumulate_rewards()


def our_episode(env: Any, task_id: str) -> int:
    """One episode of the full loop through our env (reset, reference policy, decode every step): its steps."""
    return reference_episode(env, task_id, make_policy, decode_observation)


def noop_episode(env: Any, steps: int) -> int:
    """The same loop over the no-op pair for ``steps`` agent steps: its steps. It decodes with the standard
    ``json.loads`` (a fixed floor: a no-op env owes nothing to our decoder, and our decoder's speed counts on
    our side only)."""
    env.reset(seed=0, options={"steps": steps})
    policy = IdlePolicy()
    policy.reset(0)
    return play(env, policy, _json_field)


def _json_field(observation: dict[str, Any]) -> Any:
    """The no-op side's decoder: ``json.loads`` of the observation's ``json`` field."""
    return json.loads(observation["json"])


def timed(fn: Any, *args: Any) -> tuple[int, float, float]:
    """``fn(*args)`` (a step count), its wall seconds and this process's CPU seconds."""
    wall, cpu = time.perf_counter(), time.process_time()
    steps = fn(*args)
    return steps, time.perf_counter() - wall, time.process_time() - cpu


def full_loop(env: Any, repeat: int) -> dict[str, float]:
    """The full-loop figures over ``env``'s tasks: best-of-``repeat`` per-step costs of both sides and their ratios."""
    ids = [t.task_id for t in env.unwrapped.tasks]
    lengths = [our_episode(env, i) for i in ids]  # warm-up pass: episode lengths for the no-op side
    noop_env = OrderEnforcingWrapper(NoopPairAEC())
    best: dict[str, float] = {}
    for _ in range(repeat):
        tot = dict.fromkeys(("ours_wall", "ours_cpu", "noop_wall", "noop_cpu"), 0.0)
        for task_id, n in zip(ids, lengths, strict=True):
            _, wall, cpu = timed(our_episode, env, task_id)
            tot["ours_wall"] += wall
            tot["ours_cpu"] += cpu
            _, wall, cpu = timed(noop_episode, noop_env, n)
            tot["noop_wall"] += wall
            tot["noop_cpu"] += cpu
        for k, v in tot.items():
            best[k] = min(best.get(k, v), v)
    steps = sum(lengths)
    return {"tasks": len(ids), "steps": steps, "ours_us": best["ours_wall"] / steps * 1e6,
            "noop_us": best["noop_wall"] / steps * 1e6, "ratio_wall": best["ours_wall"] / best["noop_wall"],
            "ratio_cpu": best["ours_cpu"] / best["noop_cpu"]}


def where_time_goes(env: Any) -> dict[str, float]:
    """One pass of the full loop with each part timed apart: seconds in reset, last, decode, policy and step."""
    parts = dict.fromkeys(("reset", "last", "decode", "policy", "step"), 0.0)
    clock = time.perf_counter
    for task in env.unwrapped.tasks:
        t0 = clock()
        env.reset(seed=0, options={"task_id": task.task_id})
        policy = make_policy(env.unwrapped.task.reference)
        policy.reset(0)
        parts["reset"] += clock() - t0
        for _agent in env.agent_iter():
            t0 = clock()
            observation, reward, termination, truncation, info = env.last()
            t1 = clock()
            parts["last"] += t1 - t0
            if termination or truncation:
                env.step(None)
                parts["step"] += clock() - t1
                continue
            decoded = decode_observation(observation)
            t2 = clock()
            action = policy.act(decoded)
            t3 = clock()
            env.step(action)
            parts["step"] += clock() - t3
            parts["decode"] += t2 - t1
            parts["policy"] += t3 - t2
    return parts


def print_full_loop(label: str, fig: dict[str, float], parts: dict[str, float] | None, repeat: int) -> None:
    """Print one split's full-loop figures."""
    print(f"full loop, {label}: {fig['tasks']:.0f} tasks, {fig['steps']:.0f} agent steps and {fig['tasks']:.0f} "
          f"resets per pass (best of {repeat} passes, alternating task by task)")
    print(f"  ours {fig['ours_us']:7.1f} us/step, no-op pair {fig['noop_us']:6.1f} us/step (reset and decoding "
          "included)")
    print(f"  full-loop ratio ({label}): CPU {fig['ratio_cpu']:.2f}x, wall {fig['ratio_wall']:.2f}x "
          f"(goal <= {GOAL_RATIO:g}x)")
    if parts:
        total = sum(parts.values())
        print("  our time per episode: " + ", ".join(f"{k} {v / total:.0%}" for k, v in parts.items()))


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="capability-v1")
    parser.add_argument("--repeat", type=int, default=3, help="passes per measurement (best of, or median of)")
    parser.add_argument("--gen-seed", type=int, default=1, help="seed of the generated split of the full loop")
    parser.add_argument("--full-only", action="store_true", help="only the full loop (no step-only figure)")
    args = parser.parse_args(argv)

    env = acworld_env.make(args.env)
    tasks = env.unwrapped.tasks
    figures: dict[str, float] = {}
    full = full_loop(env, args.repeat)
    print_full_loop(f"frozen {args.env}", full, where_time_goes(env), args.repeat)
    gen_env = acworld_env.make(args.env, split="generated", seed=args.gen_seed)
    gen = full_loop(gen_env, args.repeat)
    print_full_loop(f"generated split seed {args.gen_seed}", gen, None, args.repeat)
    gen_env.close()
    figures.update({f"full_{k}": v for k, v in full.items()})
    figures.update({f"gen_{k}": v for k, v in gen.items()})
    if args.full_only:
        return figures
    print()

    recorded = [record_observations(env, t) for t in tasks]  # what the no-op env will encode
    noop_env = OrderEnforcingWrapper(NoopAEC())

    def interleaved_pass() -> tuple[Pass, Pass]:
        """One pass of each side over every task, alternating task by task."""
        ours, noop = Pass(), Pass()
        policies = [make_policy(t.reference) for t in tasks]
        for task, policy, raws in zip(tasks, policies, recorded, strict=True):
            ours.add(env, [({"task_id": task.task_id}, policy)])
            noop.add(noop_env, [({"observations": raws}, IdlePolicy())])
        return ours, noop

    passes = [interleaved_pass() for _ in range(args.repeat)]
    ours = (passes[0][0].steps, statistics.median(p[0].wall for p in passes))
    noop = (passes[0][1].steps, statistics.median(p[1].wall for p in passes))
    ratio_cpu = statistics.median(p[0].cpu / p[0].steps / (p[1].cpu / p[1].steps) for p in passes)

    def cli_pass() -> float:
        start = time.perf_counter()
        for t in tasks:
            run_episode(t, make_policy(t.reference), seed=0)
        return time.perf_counter() - start

    cli = statistics.median(cli_pass() for _ in range(args.repeat))
    ours_rate, noop_rate = ours[0] / ours[1], noop[0] / noop[1]
    ratio = noop_rate / ours_rate
    per_task = ours[1] / len(tasks)
    print(f"step-only: suite {args.env}, {len(tasks)} tasks, {ours[0]} agent steps and {len(tasks)} resets per "
          f"reference pass, seed 0 (median of {args.repeat} passes)")
    print(f"reference rollouts via make():   {ours_rate:10,.0f} steps/s  ({1e6 / ours_rate:7.1f} us/step)")
    print(f"no-op AEC env, same loop and same observations encoded per step: "
          f"{noop_rate:10,.0f} steps/s  ({1e6 / noop_rate:7.1f} us/step)")
    print(f"per-step cost ratio (ours/no-op): {ratio:.1f}x  (goal <= {GOAL_RATIO:g}x)")
    print(f"per-step CPU-time ratio (ours/no-op, this process's CPU time, median of per-pass ratios): "
          f"{ratio_cpu:.1f}x")
    print(f"full reference pass via make():  {ours[1]:.3f} s  ({per_task * 1e3:.2f} ms/task; "
          f"{per_task * GOAL_TASKS:.2f} s projected for {GOAL_TASKS} tasks, goal <= {GOAL_FULL_PASS_S} s)")
    print(f"full reference pass via CLI path (run_episode): {cli:.3f} s")
    env.close()
    return {**figures, "steps_per_s": ours_rate, "noop_steps_per_s": noop_rate, "ratio": ratio, "ratio_cpu": ratio_cpu,
            "full_pass_s": ours[1], "cli_pass_s": cli}


if __name__ == "__main__":
    main()
