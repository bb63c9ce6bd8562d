"""A verifiers (``verifiers.v1``) taskset for the acworld OpenEnv server, credits kept.

Loadable by id (``vf-eval acworld_env_vf ...``; the top-level :mod:`acworld_env_vf` re-exports
this module, since verifiers imports a taskset id as a top-level module). Its config:
``base_url`` (``acworld serve --openenv``; default ``http://127.0.0.1:8765``), ``tasks`` (frozen
task ids, one task each) and/or ``resets`` (reset arguments, one task each, as in verifiers'
built-in ``openenv`` taskset), ``reward`` (``potential`` or ``terminal``).

The engine plays the user, as the built-in one does: each model reply is one action (a JSON
object: a VCP action ``{"kind": ..., ...}`` or a tool call ``{"type": "call_tool", "tool_name":
..., "arguments": {...}}``), sent to the env over OpenEnv's WebSocket session; the next
observation is the next user turn, until the episode is done. Recorded on each trace:

* reward ``acworld_reward``: the sum of the step rewards (with ``reward="potential"``, the
  default, exactly the task score);
* metrics (unweighted, so outside the reward): ``score``, ``safe_score``, ``stage/<stage>`` for
  each stage and ``credit/<predicate>`` for each predicate, so eval and training logs show
  where credit was lost;
* ``info["acworld"]``: the task, the steps, the episode summary (trace digest, score).

Importing this module imports verifiers and OpenEnv; ``import acworld_env`` never does.
"""

from __future__ import annotations

import json
from typing import Any

import verifiers.v1 as vf
from verifiers.v1.tasksets.openenv.taskset import OpenEnvData, OpenEnvEnv, OpenEnvTask

INSTRUCTIONS = ("Act through the marketplace's tools. Reply with exactly one action per turn, as one JSON "
                'object and nothing else: {{"kind": "<tool name>", <its arguments>}}. Money is in integer '
                "cents. End with submit_answer, abstain or finish.\n\nYour tools (name: description; "
                "parameters as JSON schema):\n{tools}")

__all__ = ["AcworldConfig", "AcworldTaskset", "AcworldVerifiersEnv"]


def reply_action(reply: str) -> dict[str, Any]:
    """A model's reply as the action sent to the env: its JSON object (fences allowed); anything
    else is sent as a malformed call, which the market records as a rejection with its code."""
    text = reply.strip()
    if text.startswith("```") and text.endswith("```"):
        text = "\n".join(text.splitlines()[1:-1]).strip()
    try:
        action = json.loads(text)
    except json.JSONDecodeError:
        action = None
    if isinstance(action, dict):
        return action
    return {"type": "call_tool", "tool_name": None, "arguments": text}


def first_turn(obs: Any) -> str:
    """The opening user turn: the observation and the actor's tools."""
    tools = "\n".join(f"- {t['function']['name']}: {t['function']['description']} "
                      f"{json.dumps(t['function']['parameters'], separators=(',', ':'))}" for t in obs.tools)
    return f"{obs.text}\n\n{INSTRUCTIONS.format(tools=tools)}"


def next_turn(obs: Any) -> str:
    """A later user turn: the last action's result, then the observation."""
    head = ""
    if obs.error:
        head = f"refused ({obs.error.get('code')}): {obs.error.get('message')}\n\n"
    return head + obs.text


def credit_metrics(obs: Any) -> dict[str, float]:
    """The observation's score, stages and per-predicate credits, as named metrics."""
    return {"score": obs.score, "safe_score": obs.safe_score,
            **{f"stage/{k}": v for k, v in obs.stages.items()}, **{f"credit/{k}": v for k, v in obs.credits.items()}}


class AcworldConfig(vf.TasksetConfig):
    """Where the server is and which tasks to play."""

    base_url: str = "http://127.0.0.1:8765"
    """The acworld OpenEnv server (``acworld serve --openenv``)."""
    tasks: list[str] = []
    """Frozen task ids, one task each (e.g. ``capability-v1/T4/buyer/private_value/01``)."""
    resets: list[dict[str, Any]] = []
    """Reset arguments, one task each (``task_id``, or ``split`` + ``seed`` + ``index`` [+ ``role``])."""
    reward: str = "potential"
    """``potential`` (the step rewards sum to the task score) or ``terminal``."""


class AcworldTaskset(vf.Taskset[OpenEnvTask, AcworldConfig]):
    """One task per entry of ``tasks`` and of ``resets``, played on an acworld OpenEnv server."""

    def load(self) -> Any:
        """The tasks, in order: ``tasks`` first, then ``resets``."""
        config = self.config
        resets = [{"task_id": t} for t in config.tasks] + [dict(r) for r in config.resets]
        if not resets:
            raise ValueError("name the tasks to play: tasks = [task ids] or resets = [reset arguments]")
        for idx, reset in enumerate(resets):
            data = OpenEnvData(name=str(reset.get("task_id") or f"acworld#{idx}"), prompt=None, env=None,
                               base_url=config.base_url, use_docker=False, provider_kwargs={},
                               reset={"reward": config.reward, **reset})
            yield OpenEnvTask(data, config.task)


class AcworldVerifiersEnv(OpenEnvEnv):
    """Plays each task over the acworld OpenEnv server; records the reward and the credit metrics."""

    async def run(self, task: Any, agents: Any) -> None:
        """One rollout: reset the task, then one env step per model reply until done."""
        from .openenv_client import AcworldEnv

        data = task.data
        if not data.base_url:
            raise ValueError("the acworld taskset needs base_url (acworld serve --openenv)")
        total, steps = 0.0, 0
        async with AcworldEnv(base_url=data.base_url) as client:
            result = await client.reset(**data.reset)
            if result.observation.error:
                raise ValueError(f"reset refused: {result.observation.error}")
            async with agents.player.interaction(task) as interaction:
                segment = await interaction.turn(first_turn(result.observation))
                while not segment.terminated and not result.done:
                    reply = segment.last_reply.strip()
                    if not reply:
                        interaction.trace.stop("empty_action")
                        break
                    result = await client.step(reply_action(reply))
                    total += result.reward or 0.0
                    steps += 1
                    if result.done:
                        break
                    segment = await interaction.turn(next_turn(result.observation))
            obs = result.observation
            trace = interaction.trace
            trace.record_reward("acworld_reward", total)
            trace.record_metrics(credit_metrics(obs))
            trace.info["acworld"] = {"task_id": obs.task_id, "steps": steps, "done": result.done,
                                     "reward_mode": obs.reward_mode, "trace_digest": obs.trace_digest,
                                     "summary": obs.summary}
