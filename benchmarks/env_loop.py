"""The training loop the speed benchmarks time: one reference episode through a PettingZoo env.

It imports nothing from the package, so a benchmark comparing two source trees in one process
(``ab_env_loop.py``) runs the very same loop over each tree's env, policy factory and decoder.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def play(env: Any, policy: Any, decode: Callable[[Any], Any]) -> int:
    """The ``agent_iter`` loop over a reset ``env``: ``last``, ``decode``, ``policy.act``, ``step``; its steps.
    Both sides of a ratio run this same loop (bench_env's no-op pair too)."""
    steps = 0
    for _agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            env.step(None)
            continue
        env.step(policy.act(decode(observation)))
        steps += 1
    return steps


def reference_episode(env: Any, task_id: str, make_policy: Callable[[Any], Any],
                      decode: Callable[[Any], Any]) -> int:
    """Reset ``env`` to ``task_id`` (seed 0), play the task's reference, decoding every observation: its steps."""
    env.reset(seed=0, options={"task_id": task_id})
    policy = make_policy(env.unwrapped.task.reference)
    policy.reset(0)
    return play(env, policy, decode)
