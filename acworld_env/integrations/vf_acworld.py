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

The reward and the metrics are the task's ``@vf.reward`` / ``@vf.metric`` hooks over what the
rollout recorded, so ``vf-validate acworld_env_vf`` (verifiers' model-free check of a taskset) has
both of its checks: **gold** (:meth:`AcworldTask.validate`) plays the task's verified reference
over the server and is valid when it earns full credit; **noop** scores the task untouched (its
actor ends the episode before any action) and is valid when that is below full credit.

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

__all__ = ["AcworldConfig", "AcworldTask", "AcworldTaskset", "AcworldVerifiersEnv"]

MAX_ACTIONS = 500
"""The most actions a gold check plays before it gives up (invalid)."""


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


class AcworldTask(OpenEnvTask):
    """One acworld task played over the server; its reward and metrics are what the rollout recorded."""

    async def validate(self, runtime: Any) -> bool | None:
        """The gold check: the verified reference of the task the server started, played over the
        server, earns full credit."""
        from ..policies.make import make_policy
        from ..vcp.union import IDLE_ACTION
        from .openenv_client import AcworldEnv

        reset = self.data.reset
        async with AcworldEnv(base_url=_base_url(self.data)) as client:
            result = await client.reset(**reset)
            if result.observation.error:
                raise ValueError(f"reset refused: {result.observation.error}")
            policy = make_policy(_task_spec(reset, str(result.observation.task_id)).reference)
            policy.reset(int(reset.get("episode_seed", 0)))
            for _ in range(MAX_ACTIONS):
                if result.done:
                    break
                action = policy.act(result.observation.observation)  # the raw view, as a seat's policy gets it
                action = IDLE_ACTION if action is None else action
                result = await client.step(json.loads(json.dumps(
                    action.model_dump(mode="json") if hasattr(action, "model_dump") else action)))
        return bool(result.done) and result.observation.score >= 1.0

    @vf.reward
    async def acworld_reward(self, trace: Any) -> float:
        """The sum of the step rewards of the rollout; untouched (vf-validate's noop check), the score
        of the episode its actor ends before any action."""
        played = trace.info.get("acworld")
        if played is not None:
            return float(played["reward"])
        from .openenv_client import AcworldEnv

        async with AcworldEnv(base_url=_base_url(self.data)) as client:
            result = await client.reset(**self.data.reset)
            if result.observation.error:
                raise ValueError(f"reset refused: {result.observation.error}")
            total = float(result.reward or 0.0)
            while not result.done:
                result = await client.step({"kind": "finish"})
                total += result.reward or 0.0
        return total

    @vf.metric
    async def acworld_metrics(self, trace: Any) -> dict[str, float]:
        """The rollout's score, safe score, stage scores and per-predicate credits (none untouched)."""
        return dict((trace.info.get("acworld") or {}).get("metrics") or {})


def _task_spec(reset: dict[str, Any], task_id: str) -> Any:
    """The task ``task_id`` of the suite and split the reset arguments name (as the server reads them:
    the suite a task id starts with, else ``suite``, else capability-v1; the frozen split by default)."""
    from ..tasks.suites import SUITES, load_suite

    prefix = task_id.split("/", 1)[0]
    suite = reset.get("suite") or (prefix if prefix in SUITES else "capability-v1")
    split = reset.get("split", "frozen")
    seed = int(reset.get("seed", 0)) if split == "generated" else 0
    for task in load_suite(suite, split, seed):
        if task.task_id == task_id:
            return task
    raise ValueError(f"no task {task_id!r} in {suite} ({split})")


def _base_url(data: Any) -> str:
    if not data.base_url:
        raise ValueError("the acworld taskset needs base_url (acworld serve --openenv)")
    return str(data.base_url)


class AcworldTaskset(vf.Taskset[AcworldTask, AcworldConfig]):
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
            yield AcworldTask(data, config.task)


class AcworldVerifiersEnv(OpenEnvEnv):
    """Plays each task over the acworld OpenEnv server; records the reward and the credit metrics."""

    async def run(self, task: Any, agents: Any) -> None:
        """One rollout: reset the task, then one env step per model reply until done."""
        from .openenv_client import AcworldEnv

        data = task.data
        total, steps = 0.0, 0
        async with AcworldEnv(base_url=_base_url(data)) as client:
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
                obs = result.observation  # recorded before the interaction closes: the task's hooks score it
                interaction.trace.info["acworld"] = {
                    "task_id": obs.task_id, "steps": steps, "done": result.done, "reward_mode": obs.reward_mode,
                    "trace_digest": obs.trace_digest, "summary": obs.summary, "reward": total,
                    "metrics": credit_metrics(obs)}
