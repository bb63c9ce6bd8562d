"""Environment speed: reference rollouts over the suite versus a no-op PettingZoo AEC env.

Workload: every task of the suite (``capability-v1``: 200 frozen tasks, 1,452 agent steps and 200
resets per pass), each played once by its reference policy in the standard ``agent_iter`` loop
(``env.last()``, ``decode_observation``, ``policy.act``, ``env.step``), seed 0.

Compared against, in the same process and run: a no-op AEC env with the same order-enforcing
wrapper, the same episode lengths and the **same observation work**: its ``observe`` encodes, on
every call, the raw observation our env showed at that step (recorded in a first pass) with the
env's own functions (:func:`~acworld_env.observe.render_text` and
:func:`~acworld_env.envs.spaces.encode_observation`), and the loop decodes it the same way. So
the ratio measures what the market, the World, the trace and scoring add per step (plus the
reference policies' own decisions, which the no-op side's idle policy does not make: about 1 % of
a reference step, measured with ``time.process_time`` around ``policy.act``).

Prints:

1. steps/s of the reference policies through ``acworld_env.make(env_id)``;
2. steps/s of the no-op env, and the ratio of per-step costs (goal <= 5x, wall time), also in the
   process's CPU time;
3. wall time of the full reference pass: through the env, and through the command line's path
   (:func:`acworld_env.eval.rollout.run_episode`).

Each figure is the median of ``--repeat`` passes (the machine is shared; medians are stabler
than minima under load). Within a pass the two envs alternate task by task (our episode of a
task, then the no-op episode of the same task), so both sides see the same machine load; the
ratio is printed for wall time (the goal) and for the process's CPU time (less sensitive to
other processes on the machine).

Run::

    python benchmarks/bench_env.py [--env capability-v1] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

import acworld_env
from acworld_env.envs import decode_observation
from acworld_env.envs.spaces import VCPActionSpace, encode_observation, observation_space
from acworld_env.eval.rollout import run_episode
from acworld_env.observe import render_text
from acworld_env.policies.make import make_policy

GOAL_RATIO, GOAL_FULL_PASS_S, GOAL_TASKS = 5.0, 4.7, 200


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
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]

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


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="capability-v1")
    parser.add_argument("--repeat", type=int, default=3, help="passes per measurement; the median is kept")
    args = parser.parse_args(argv)

    env = acworld_env.make(args.env)
    tasks = env.unwrapped.tasks

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
    print(f"workload: suite {args.env}, {len(tasks)} tasks, {ours[0]} agent steps and {len(tasks)} resets per "
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
    return {"steps_per_s": ours_rate, "noop_steps_per_s": noop_rate, "ratio": ratio, "ratio_cpu": ratio_cpu,
            "full_pass_s": ours[1], "cli_pass_s": cli}


if __name__ == "__main__":
    main()
