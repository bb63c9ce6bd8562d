"""Environment speed: reference rollouts over the suite versus a no-op PettingZoo AEC env.

Prints, in one run:

1. steps/s of the reference policies driven through ``acworld_env.make(env_id)`` (the
   PettingZoo AEC env with its standard order-enforcing wrapper), over every task of the suite;
2. the same ``agent_iter`` loop over a no-op AEC env with the same wrapper, the same observation
   encoding cost (a fixed observation) and the same episode lengths, and the ratio of per-step costs;
3. wall time of the full reference pass over ``load_suite(suite)``: through the env, and through
   the command line's path (:func:`acworld_env.eval.rollout.run_episode`).

Run::

    python benchmarks/bench_env.py [--env capability-v1] [--repeat 5]
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

import acworld_env
from acworld_env.envs import decode_observation
from acworld_env.envs.spaces import VCPActionSpace, encode_observation, observation_space
from acworld_env.eval.rollout import run_episode
from acworld_env.policies.make import make_policy

GOAL_RATIO, GOAL_FULL_PASS_S, GOAL_TASKS = 10.0, 4.7, 200


class NoopAEC(AECEnv):
    """One agent; ``step`` only counts. Episode length comes from ``reset(options={"steps": n})``."""

    metadata = {"name": "noop_v0", "render_modes": [], "is_parallelizable": False}

    def __init__(self) -> None:
        super().__init__()
        self.possible_agents = ["agent_0"]
        self._obs_space, self._act_space = observation_space(), VCPActionSpace()
        raw = {"actor": "agent_0", "role": "buyer", "round": 0, "step": 0, "max_steps": 1, "request": "",
               "mandate": {}, "inbox": [], "last_result": None, "balance": 0}
        self._obs = encode_observation(raw, "noop")

    def observation_space(self, agent: str) -> Any:
        return self._obs_space

    def action_space(self, agent: str) -> Any:
        return self._act_space

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.length, self.t = (options or {}).get("steps", 1), 0
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]

    def observe(self, agent: str) -> dict:
        return self._obs

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


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="capability-v1")
    parser.add_argument("--repeat", type=int, default=5, help="passes per measurement; the best is kept")
    args = parser.parse_args(argv)

    env = acworld_env.make(args.env)
    tasks = env.unwrapped.tasks

    def reference_pass() -> tuple[int, float]:
        return loop(env, [({"task_id": t.task_id}, make_policy(t.reference)) for t in tasks])

    lengths: list[int] = []
    for t in tasks:  # episode lengths, for the no-op env
        n, _ = loop(env, [({"task_id": t.task_id}, make_policy(t.reference))])
        lengths.append(n)
    ours = min((reference_pass() for _ in range(args.repeat)), key=lambda r: r[1])
    noop_env = OrderEnforcingWrapper(NoopAEC())
    noop = min((loop(noop_env, [({"steps": n}, IdlePolicy()) for n in lengths]) for _ in range(args.repeat)),
               key=lambda r: r[1])

    def cli_pass() -> float:
        start = time.perf_counter()
        for t in tasks:
            run_episode(t, make_policy(t.reference), seed=0)
        return time.perf_counter() - start

    cli = min(cli_pass() for _ in range(args.repeat))
    ours_rate, noop_rate = ours[0] / ours[1], noop[0] / noop[1]
    ratio = noop_rate / ours_rate
    per_task = ours[1] / len(tasks)
    print(f"suite {args.env}: {len(tasks)} tasks, {ours[0]} agent steps per reference pass (best of {args.repeat})")
    print(f"reference rollouts via make():   {ours_rate:10,.0f} steps/s  ({1e6 / ours_rate:7.1f} us/step)")
    print(f"no-op AEC env, same loop:        {noop_rate:10,.0f} steps/s  ({1e6 / noop_rate:7.1f} us/step)")
    print(f"per-step cost ratio (ours/no-op): {ratio:.1f}x  (goal <= {GOAL_RATIO:g}x)")
    print(f"full reference pass via make():  {ours[1]:.3f} s  ({per_task * 1e3:.2f} ms/task; "
          f"{per_task * GOAL_TASKS:.2f} s projected for {GOAL_TASKS} tasks, goal <= {GOAL_FULL_PASS_S} s)")
    print(f"full reference pass via CLI path (run_episode): {cli:.3f} s")
    env.close()
    return {"steps_per_s": ours_rate, "noop_steps_per_s": noop_rate, "ratio": ratio, "full_pass_s": ours[1],
            "cli_pass_s": cli}


if __name__ == "__main__":
    main()
