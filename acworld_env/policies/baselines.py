"""Baseline policies for the gate: what credit does doing nothing, quitting, or a surface script earn?

``idle`` never acts (each turn it only looks at its inbox), ``finish`` ends the episode at once,
``abstain`` gives up at once. *Shortcut* scripts use only the surface of an observation (the
obvious move for a family: offer the limit, pay every notice, answer the top search hit); each
family registers its own with :func:`~acworld_env.tasks.names.register_shortcut`.
``acworld validate`` runs them all and fails a suite whose tasks pay them (see
:mod:`acworld_env.eval.baseline_gate`).
"""

from __future__ import annotations

from typing import Any

from ..tasks.names import SHORTCUTS, ShortcutFactory, register_policy


def shortcuts_for(family: str) -> dict[str, ShortcutFactory]:
    """The shortcut scripts registered for a family (families register on import)."""
    from ..tasks import families  # noqa: F401  (registers the shortcuts)

    return dict(SHORTCUTS.get(family, {}))


class _Once:
    """Takes one fixed action on its first turn, then nothing."""

    action: dict[str, Any] = {}

    def __init__(self) -> None:
        self.done = False

    def reset(self, seed: int | None = None) -> None:
        """Forget the episode."""
        self.done = False

    def act(self, observation: dict[str, Any]) -> dict[str, Any] | None:
        """The fixed action once; afterwards ``None`` (only look at the inbox)."""
        if self.done:
            return None
        self.done = True
        return dict(self.action)


@register_policy("idle")
class Idle:
    """Never acts: every turn it only reads its inbox."""

    def reset(self, seed: int | None = None) -> None:
        """Nothing to forget."""

    def act(self, observation: dict[str, Any]) -> None:
        """No action."""
        return None


@register_policy("finish")
class FinishAtOnce(_Once):
    """Declares itself done on its first turn."""

    action = {"kind": "finish"}


@register_policy("abstain")
class AbstainAtOnce(_Once):
    """Gives up on its first turn."""

    action = {"kind": "abstain", "reason": "I cannot help with this request."}


NULL_BASELINES = ("idle", "finish", "abstain")
"""Baselines that do no work; the gate holds them near zero."""
