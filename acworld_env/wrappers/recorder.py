"""Trace recording: write each episode's artifacts exactly as the command line does.

Every episode goes to ``out_dir/NNNNN-<task id>/``: ``commits.sqlite``, ``trace.jsonl`` and
``run.json`` (via :func:`acworld_env.artifacts.save_run`, with ``task_id`` and ``seed``),
``task.json`` and ``score.json``; ``acworld verify`` checks them. An episode is written when
its evaluated actor is done, or at the next ``reset()``/``close()`` if it was cut short
(``run.json`` then says ``"complete": false``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import gymnasium
from pettingzoo.utils.wrappers import BaseWrapper

from ..scoring import save_task_run, score_episode


def save_episode(raw_env: Any, out_dir: str | Path, **extra: Any) -> Path:
    """Write the current episode of an acworld AEC env to ``out_dir``; return the directory."""
    task, episode = raw_env.task, raw_env.episode
    if getattr(raw_env, "hints", "off") != "off":  # a run that saw parsed requirements says so
        extra = {"hints": raw_env.hints, **extra}
    return save_task_run(episode.market, task, score_episode(task, episode.market), out_dir,
                         seed=raw_env.episode_seed, **extra)


class _Recorder:
    def __init__(self, out_dir: str | Path, extra: dict[str, Any] | None) -> None:
        self.out_dir, self.extra = Path(out_dir), dict(extra or {})
        self.saved: list[Path] = []
        self.pending = False

    def flush(self, raw_env: Any, complete: bool) -> None:
        if not self.pending or raw_env.episode is None:
            return
        self.pending = False
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", raw_env.task.task_id).strip("_")
        target = self.out_dir / f"{len(self.saved):05d}-{slug}"
        extra = self.extra if complete else {**self.extra, "complete": False}
        self.saved.append(save_episode(raw_env, target, **extra))

    def after_step(self, raw_env: Any) -> None:
        actor = raw_env.task.actor
        if raw_env.episode.finished(actor) or raw_env.episode.truncated(actor):
            self.flush(raw_env, complete=True)


class RecordTrace(BaseWrapper):
    """PettingZoo AEC wrapper writing one run directory per episode under ``out_dir``."""

    def __init__(self, env: Any, out_dir: str | Path, extra: dict[str, Any] | None = None) -> None:
        super().__init__(env)
        self.recorder = _Recorder(out_dir, extra)

    @property
    def saved(self) -> list[Path]:
        """Run directories written so far."""
        return self.recorder.saved

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Write any unfinished episode, then start a new one."""
        self.recorder.flush(self.env.unwrapped, complete=False)
        self.env.reset(seed=seed, options=options)
        self.recorder.pending = True

    def step(self, action: Any) -> None:
        """Step; write the episode once its evaluated actor is done."""
        self.env.step(action)
        self.recorder.after_step(self.env.unwrapped)

    def close(self) -> None:
        """Write any unfinished episode and close."""
        self.recorder.flush(self.env.unwrapped, complete=False)
        self.env.close()


class GymRecordTrace(gymnasium.Wrapper, gymnasium.utils.RecordConstructorArgs):
    """The same recorder for the Gymnasium view."""

    def __init__(self, env: gymnasium.Env, out_dir: str | Path, extra: dict[str, Any] | None = None) -> None:
        gymnasium.utils.RecordConstructorArgs.__init__(self, out_dir=str(out_dir), extra=extra)
        gymnasium.Wrapper.__init__(self, env)
        self.recorder = _Recorder(out_dir, extra)

    @property
    def saved(self) -> list[Path]:
        """Run directories written so far."""
        return self.recorder.saved

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        """Write any unfinished episode, then reset."""
        self.recorder.flush(self.env.unwrapped.aec, complete=False)
        out = self.env.reset(**kwargs)
        self.recorder.pending = True
        return out

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Step; write the episode when it ends."""
        out = self.env.step(action)
        self.recorder.after_step(self.env.unwrapped.aec)
        return out

    def close(self) -> None:
        """Write any unfinished episode and close."""
        self.recorder.flush(self.env.unwrapped.aec, complete=False)
        super().close()
