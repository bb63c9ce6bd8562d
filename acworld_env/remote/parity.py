"""The parity gate: the same task and policy, locally and over HTTP, must give the same run.

For every task its reference, and a sample of its mutations, are played twice through the AEC
API with the same driver: on a local env and on a client env of an HTTP server (started on
127.0.0.1 for the gate, or one at ``url``). Parity requires, per run: the same trace digest, the
same event-chain digest, the same score, and the same step-by-step stream of observations,
rewards, terminations, truncations and infos (compared by digest).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..envs.spaces import decode_observation
from ..policies.make import make_policy
from ..tasks.spec import TaskSpec

MAX_ITER = 5_000
"""Bound on the AEC iterations of one run."""


@dataclass
class RunDigest:
    """What one run produced, as parity compares it."""

    trace_digest: str
    event_digest: str
    score: float | None
    steps_digest: str
    steps: int

    def key(self) -> tuple[Any, ...]:
        """The fields that must be equal across transports."""
        return (self.trace_digest, self.event_digest, self.score, self.steps_digest)


@dataclass
class ParityCase:
    """One task and policy, local against HTTP."""

    task_id: str
    family: str
    run: str
    local: RunDigest
    remote: RunDigest

    @property
    def ok(self) -> bool:
        """Every compared field is equal."""
        return self.local.key() == self.remote.key()

    def problem(self) -> str:
        """Which fields differ."""
        names = ("trace digest", "event digest", "score", "observations/rewards/infos")
        diff = [n for n, a, b in zip(names, self.local.key(), self.remote.key(), strict=True) if a != b]
        return f"{self.task_id} {self.run}: {', '.join(diff)} differ (local score {self.local.score}, " \
               f"http score {self.remote.score})"


@dataclass
class ParityReport:
    """Counts of the gate, by family, and its failures."""

    cases: list[ParityCase] = field(default_factory=list)

    def by_family(self) -> dict[str, tuple[int, int]]:
        """``family -> (identical runs, runs)``."""
        out: dict[str, list[int]] = {}
        for c in self.cases:
            row = out.setdefault(c.family, [0, 0])
            row[0] += c.ok
            row[1] += 1
        return {k: (v[0], v[1]) for k, v in sorted(out.items())}

    @property
    def failures(self) -> list[str]:
        """One line per differing run."""
        return [c.problem() for c in self.cases if not c.ok]


def _plain(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value


def play(env: Any, task: TaskSpec, policy: Any, seed: int = 0) -> tuple[str, int]:
    """Drive ``env`` (AEC) through one episode of ``task`` with ``policy``; digest of every ``last()``."""
    env.reset(seed=seed, options={"task_id": task.task_id})
    if hasattr(policy, "reset"):
        policy.reset(seed)
    h = hashlib.sha256()
    steps = 0
    for agent in env.agent_iter(max_iter=MAX_ITER):
        obs, reward, term, trunc, info = env.last()
        row = [agent, {k: _plain(v) for k, v in obs.items()}, reward, term, trunc, info]
        h.update(json.dumps(row, sort_keys=True, default=str).encode())
        steps += 1
        if term or trunc:
            env.step(None)
            continue
        action = policy.act(decode_observation(obs))
        meta = getattr(policy, "last_meta", None)
        if meta:
            env.unwrapped.annotate(meta)
        env.step(action)
    return h.hexdigest(), steps


def _local_digest(env: Any, steps: tuple[str, int]) -> RunDigest:
    raw = env.unwrapped
    market = raw.episode.market
    return RunDigest(market.trace.digest, market.world.event_digest, raw.score.score, *steps)


def _remote_digest(env: Any, steps: tuple[str, int]) -> RunDigest:
    s = env.unwrapped.end()
    return RunDigest(s["trace_digest"], s["event_digest"], s["score"], *steps)


def runs_of(task: TaskSpec, index: int, mutations: int) -> list[tuple[str, Any]]:
    """The runs the gate plays for a task: its reference, then ``mutations`` of its mutations (rotating)."""
    out: list[tuple[str, Any]] = [("reference", task.reference)]
    muts = list(task.mutations)
    for j in range(min(mutations, len(muts))):
        mut = muts[(index + j) % len(muts)]
        out.append((f"mutation {mut.id}", mut.policy))
    return out


def parity_gate(tasks: Iterable[TaskSpec], url: str, *, env_id: str = "capability-v1", split: str = "frozen",
                seed: int = 0, mutations: int = 1, episode_seed: int = 0,
                progress: Callable[[ParityCase], None] | None = None) -> ParityReport:
    """Play every task's reference and ``mutations`` sampled mutations locally and on the server at ``url``."""
    from ..env_registry import make

    kwargs: dict[str, Any] = {"split": split, "seed": seed}
    local, remote = make(env_id, **kwargs), make(env_id, transport="http", url=url, **kwargs)
    report = ParityReport()
    try:
        for i, task in enumerate(tasks):
            for run, ref in runs_of(task, i, mutations):
                a = _local_digest(local, play(local, task, make_policy(ref), episode_seed))
                b = _remote_digest(remote, play(remote, task, make_policy(ref), episode_seed))
                case = ParityCase(task.task_id, task.family, run, a, b)
                report.cases.append(case)
                if progress is not None:
                    progress(case)
    finally:
        remote.close()
        local.close()
    return report
