"""Trivial menu policies, for the baseline gate: the first open slot, and a seeded random open slot.

They play the same discrete menu a learner plays (:func:`~acworld_env.envs.candidates.menu_actions`
over the policy's own :class:`~acworld_env.envs.known.Known`). If either earned real credit, a
menu learner's score would partly be the menu's doing, not the learner's: ``acworld validate``
requires each to stay at or below
:data:`~acworld_env.eval.baseline_gate.MENU_MEAN` on every family.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..envs.candidates import menu_actions
from ..envs.known import Known
from ..vcp.union import IDLE_ACTION


class MenuSlotPolicy:
    """Plays the first open menu slot (``random=False``) or a seeded uniformly random one."""

    def __init__(self, *, random: bool = False, seed: int = 0) -> None:
        self.random, self.seed = random, seed
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """Forget the episode; reseed."""
        self.known: Known | None = None
        self.rng = np.random.default_rng(self.seed if seed is None else seed)

    def act(self, observation: dict[str, Any]) -> dict[str, Any]:
        """The chosen open slot's action (idle when none is open)."""
        if self.known is None:
            self.known = Known(actor=observation.get("actor", ""), role=observation.get("role", "buyer"))
        self.known.feed(observation)
        open_ = [a for a in menu_actions(self.known) if a is not None]
        if not open_:
            return dict(IDLE_ACTION)
        chosen = open_[int(self.rng.integers(len(open_)))] if self.random else open_[0]
        self.known.feed(action=chosen)
        return chosen
