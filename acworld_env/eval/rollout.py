"""Run one task with one policy for the evaluated actor; optionally save artifacts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.errors import AcworldError
from ..episode import Episode
from ..tasks.spec import TaskSpec
from ..vcp.union import IDLE_ACTION


class Interrupted(AcworldError):
    """The episode was stopped between two decisions (the evaluation is shutting down)."""


@dataclass
class Rollout:
    """A finished episode and where its artifacts went."""

    episode: Episode
    out_dir: Path | None
    score: Any = None
    sides: dict[str, Any] | None = None
    """A two-sided run's ``sides.json`` content (:mod:`~acworld_env.scoring.sides`); None otherwise."""


def run_episode(task: TaskSpec, policy: Any, *, seed: int = 0, out_dir: str | Path | None = None,
                extra: dict | None = None, should_stop: Callable[[], bool] | None = None) -> Rollout:
    """Drive ``policy`` as the evaluated actor until it finishes or runs out of steps.

    ``should_stop`` is asked before every decision; when it answers True the episode is
    abandoned with :class:`Interrupted` and nothing is saved. An exception leaving the loop
    carries the trace so far as ``partial_records`` (so a failed run's model usage is counted).
    """
    from ..observe import with_hints
    from ..scoring import save_task_run, score_episode

    ep = Episode(task, seed=seed)
    hints = getattr(policy, "hints", "off")  # a trained policy plays with the hints it was trained with
    if hints != "off":
        extra = {**(extra or {}), "hints": hints}
    if hasattr(policy, "reset"):
        policy.reset(seed)
    actor = task.actor
    try:
        while not ep.finished(actor) and not ep.truncated(actor):
            if should_stop is not None and should_stop():
                raise Interrupted(task.task_id)
            observation = ep.observe(actor)
            if hints != "off":
                observation = with_hints(observation, task, hints)
            action = policy.act(observation)
            meta = getattr(policy, "last_meta", None)
            ep.act(actor, IDLE_ACTION if action is None else action, meta)
    except Exception as exc:
        exc.partial_records = ep.market.trace.records  # type: ignore[attr-defined]  (usage of a failed run)
        raise
    score = score_episode(task, ep.market)
    path = None
    if out_dir is not None:
        path = save_task_run(ep.market, task, score, out_dir, seed=seed, **(extra or {}))
    return Rollout(ep, path, score)
