"""Every side of a task: which actors have a rubric, and a task as one of them sees and scores it.

A task's evaluated actor is scored by ``predicates``; every other actor that can be an agent
(``counterparties="agents"``) by its own rubric in ``counterparty_rubrics``, read with its own
request, mandate and sealed values. :func:`actor_task` gives that view as a :class:`TaskSpec`
whose ``actor``, ``role``, ``request``, ``mandate``, ``sealed`` and ``predicates`` are the
actor's, so the one scorer (``score_trace``) and the one reward (``PotentialReward``) serve
every side unchanged.
"""

from __future__ import annotations

from .taskspec import TaskSpec


def rubric_actors(task: TaskSpec) -> list[str]:
    """Actors other than the evaluated one that have a rubric, in the task's actor order."""
    return [a for a in task.initial_state.get("actors", {}) if a != task.actor and task.counterparty_rubrics.get(a)]


def actor_task(task: TaskSpec, actor: str) -> TaskSpec:
    """``task`` as ``actor`` is scored: the task itself for the evaluated actor, else its own side.

    Raises ``KeyError`` naming the actor when it has no rubric.
    """
    if actor == task.actor:
        return task
    rubric = task.counterparty_rubrics.get(actor)
    if not rubric:
        raise KeyError(f"task {task.task_id} has no rubric for {actor!r} "
                       f"(rubrics: {', '.join(task.counterparty_rubrics) or 'none'})")
    return task.model_copy(update={
        "actor": actor, "role": task.initial_state["actors"][actor]["role"],
        "request": task.counterparty_requests.get(actor, ""),
        "mandate": dict(task.counterparty_mandates.get(actor, {})),
        "sealed": list(task.counterparty_sealed.get(actor, [])),
        "predicates": list(rubric), "mutations": [],
    })
