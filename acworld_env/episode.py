"""One task episode: a market built from a task, its scripted counterparties, and turn order.

The environment and the command line both drive episodes through this class; it calls
``Market.submit`` for every action, the evaluated agent's and the counterparties'.
"""

from __future__ import annotations

import weakref
from typing import Any

from .core.errors import AcworldError
from .core.taskspec import TaskError, TaskSpec, check_runnable
from .market import Market, StepResult
from .observe import observe


class CatalogMismatch(AcworldError, RuntimeError):
    """A task's pinned catalog content hash differs from the catalog it would run on."""


MAX_COUNTERPARTY_ACTIONS = 8
"""Actions a counterparty may take in one turn (bounded, so a step is bounded)."""


class Episode:
    """Runs a task: ``agents`` act through :meth:`act`; counterparties react inside it."""

    def __init__(self, task: TaskSpec, *, seed: int = 0, agents: list[str] | None = None,
                 catalog: Any = None) -> None:
        _check_once(task)
        self.task = task
        if catalog is None and task.catalog:
            from .catalog import open_catalog

            catalog = open_catalog(task.catalog)
        pinned = task.initial_state.get("meta", {}).get("catalog_hash")
        if catalog is not None and pinned and catalog.content_hash != pinned:
            raise CatalogMismatch(f"task {task.task_id} was built on catalog {pinned[:12]}, but the catalog "
                                  f"opened is {catalog.content_hash[:12]}; rebuild the tasks or restore the catalog")
        mandates = {task.actor: dict(task.mandate), **{a: dict(m) for a, m in task.counterparty_mandates.items()}}
        sealed = {task.actor: list(task.sealed), **{a: list(v) for a, v in task.counterparty_sealed.items()}}
        settings = {**task.settings, "merchant_actors": dict(task.merchant_actors)}
        self.market = Market(task.initial_state, catalog=catalog, mandates=mandates, sealed=sealed,
                             schedule=[dict(s) for s in task.schedule], settings=settings, seed=seed)
        scripted = {c.actor: _counterparty_policy(task, i) for i, c in enumerate(task.counterparties)}
        self.agents = agents if agents is not None else [task.actor]
        for a in self.agents:
            scripted.pop(a, None)
        self.counterparties = scripted
        for p in scripted.values():
            p.reset(seed)
        self.steps = {a: 0 for a in self.agents}
        self.last: dict[str, StepResult | None] = {a: None for a in [*self.agents, *scripted]}
        self.requests = {**task.counterparty_requests, task.actor: task.request}
        """Each actor's request: the evaluated actor's, and every other actor's own (its side of the task)."""
        self._acted: set[str] = set()
        """Agents that acted in the current round (the clock moves once every live agent has acted)."""
        self.retired: set[str] = set()
        """Agents an outside loop stopped (e.g. a cap on their actions): the clock no longer waits for them."""
        self._react()

    # -- observation ---------------------------------------------------------
    def observe(self, actor: str) -> dict[str, Any]:
        """The actor's role-private observation; its inbox holds the messages it has not acted on yet.

        A pure read: observing twice gives the same observation. The messages count as delivered when
        the actor acts (:meth:`act`, or a counterparty's turn), which takes them from its unread inbox.
        """
        request = self.requests[actor] if actor in self.requests else _counterparty_request(self, actor)
        return observe(self.market, actor, request=request,
                       last=self.last.get(actor), step=self.steps.get(actor, 0), max_steps=self.task.max_steps)

    # -- acting ----------------------------------------------------------------
    def act(self, actor: str, action: Any, meta: dict[str, Any] | None = None, *,
            seen: int | None = None) -> StepResult:
        """Submit one agent action, then let counterparties react; the clock moves when the round is over.

        A round is over once every live agent (:meth:`live_agents`) has acted once in it: with one
        agent (scripted counterparties) after each of its actions, with several (self-play) after each
        has had its turn, so the market's timing is the same both ways. An agent acting a second time
        in a round closes the round first. The actor's unread messages are taken first: it acted on
        an observation showing them. ``seen`` says how many of them that observation showed when the
        caller knows (the environment: none if the agent acted without observing); by default all.
        """
        self.market.mark_read(actor, seen)
        if actor in self._acted:
            self._close_round()
        result = self.market.submit(actor, action, meta)
        self.last[actor] = result
        self.steps[actor] = self.steps.get(actor, 0) + 1
        self._acted.add(actor)
        self._react()
        if self._round_over():
            self._close_round()
        return result

    def live_agents(self) -> list[str]:
        """Agents still playing: not finished, not out of steps, not retired."""
        return [a for a in self.agents if not self.finished(a) and not self.truncated(a) and a not in self.retired]

    def retire(self, actor: str) -> None:
        """Stop waiting for ``actor`` (an outside loop ended it); closes the round if it was the last to act."""
        self.retired.add(actor)
        if self._acted and self._round_over():
            self._close_round()

    def _round_over(self) -> bool:
        return all(a in self._acted for a in self.live_agents())

    def _close_round(self) -> None:
        """Move the clock one round, deliver what is due, and let counterparties react."""
        self._acted.clear()
        self.market.advance()
        self._react()

    def _react(self) -> None:
        for actor, policy in self.counterparties.items():
            if actor in self.market.finished:
                continue
            for _ in range(MAX_COUNTERPARTY_ACTIONS):
                obs = self.observe(actor)
                self.market.mark_read(actor)
                action = policy.act(obs)
                if action is None:
                    break
                self.last[actor] = self.market.submit(actor, action)

    # -- status --------------------------------------------------------------
    def finished(self, actor: str) -> bool:
        """The actor ended its episode with a terminal action."""
        return actor in self.market.finished

    def truncated(self, actor: str) -> bool:
        """The actor used up its step budget."""
        return self.steps.get(actor, 0) >= self.task.max_steps


_RUNNABLE: dict[int, weakref.ref] = {}
"""Tasks (by identity, while they live) that passed :func:`check_runnable`; a reset does not check again."""


def _check_once(task: TaskSpec) -> None:
    """:func:`check_runnable` for ``task``, once per task object (a frozen spec: its checks cannot change)."""
    known = _RUNNABLE.get(id(task))
    if known is not None and known() is task:
        return
    from .scoring.kinds import KINDS

    check_runnable(task, kinds=KINDS)
    key = id(task)
    _RUNNABLE[key] = weakref.ref(task, lambda _ref: _RUNNABLE.pop(key, None))


def _counterparty_policy(task: TaskSpec, i: int) -> Any:
    """Counterparty ``i``'s policy; an unknown name or bad parameters is a :class:`TaskError`."""
    from .policies.make import make_policy

    ref = task.counterparties[i].policy
    try:
        return make_policy(ref)
    except KeyError as exc:
        raise TaskError(task.task_id, f"counterparties[{i}].policy.name", str(exc.args[0] if exc.args else exc)) from None
    except TypeError as exc:
        raise TaskError(task.task_id, f"counterparties[{i}].policy.params", f"{ref.name}: {exc}") from None


def _counterparty_request(ep: Episode, actor: str) -> str:
    mandate = ep.market.mandates.get(actor, {})
    return str(mandate.get("request", "Trade according to your mandate."))
