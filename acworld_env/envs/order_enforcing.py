"""PettingZoo's order-enforcing wrapper around the acworld AEC env, reading the env's fields directly.

:func:`acworld_env.envs.aec.env` wraps every env in :class:`OrderEnforcing`: the same checks, errors
and values as ``pettingzoo.utils.wrappers.OrderEnforcingWrapper``, without reading each field through
``__getattr__`` on every step of a training loop.
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.order_enforcing import (
    AECOrderEnforcingIterable,
    AECOrderEnforcingIterator,
)


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order-enforcing wrapper, whose ``last`` and agent iterator read the env directly once
    it was reset (the base class reads each field through ``__getattr__``, every step). Same checks,
    same errors, same values; printed as the base class prints."""

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Observation, cumulative reward, terminated, truncated and info of the agent to act."""
        if not self._has_reset:
            return super().last(observe)  # the base class's errors
        inner = self.env
        agent = inner.agent_selection
        assert agent is not None
        observation = inner.observe(agent) if observe else None
        return (observation, inner._cumulative_rewards[agent], inner.terminations[agent],
                inner.truncations[agent], inner.infos[agent])

    def step(self, action: Any) -> None:
        """``OrderEnforcingWrapper.step``, reading ``agents`` from the env directly."""
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        elif not self.env.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._has_updated = True
            self.env.step(action)

    def agent_iter(self, max_iter: int = 2**63) -> AECOrderEnforcingIterable:
        """The agents in turn, as ``OrderEnforcingWrapper.agent_iter`` yields them."""
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _AgentIterable(self, max_iter)

    def __str__(self) -> str:
        return str(self.env) if hasattr(self, "metadata") else repr(self)


class _AgentIterable(AECOrderEnforcingIterable):
    def __iter__(self) -> AECOrderEnforcingIterator:
        return _AgentIterator(self.env, self.max_iter)


class _AgentIterator(AECOrderEnforcingIterator):
    """``AECOrderEnforcingIterator`` reading the agents from the wrapped env itself."""

    def __next__(self) -> str:
        inner = self.env.env
        if not inner.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert self.env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        self.env._has_updated = False
        return inner.agent_selection
