"""What a participant of a sealed round may see: the actor's view, minus everything the scorer says.

The visibility rule of :mod:`acworld_env.remote.views` decides what the evaluated actor may see
of an episode; a sealed round then keeps, of that view, only what the actor needs to play and
nothing that scores or identifies the task: no task id (the episode is named by its slot), no
reward (its sum is the task's score, its steps are predicate credit), no score, credit, evidence
or trace digest in the info. Fields are kept by name (a list of what may pass), so a field added
to the env's state or info later stays out until it is added here.
"""

from __future__ import annotations

from typing import Any

from ..remote.views import visible_state

STATE_FIELDS = ("agents", "agent_selection", "terminations", "truncations", "version", "done", "status")
"""AEC state fields a participant gets (after :func:`~acworld_env.remote.views.visible_state`)."""
INFO_FIELDS = ("actor", "role", "evaluated", "step", "validation")
"""Info fields a participant gets for its own actor: its last action's validation (with a read's result)."""


def sealed_state(state: dict[str, Any], actor: str, slot: str) -> dict[str, Any]:
    """``state`` (the host's AEC snapshot) as the participant playing ``actor`` in ``slot`` may see it."""
    seen = visible_state(state, actor)
    out = {k: seen[k] for k in STATE_FIELDS if k in seen}
    out["slot"] = slot
    info = (seen.get("infos") or {}).get(actor) or {}
    out["info"] = {k: info[k] for k in INFO_FIELDS if k in info}
    obs = seen.get("observation")
    if obs is not None:
        out["observation"] = obs["raw"]
    return out


def sealed_end(summary: dict[str, Any], slot: str) -> dict[str, Any]:
    """An ended episode as its participant learns it: scored or not, and why not; no score."""
    return {"slot": slot, "status": summary.get("status"), "reason": summary.get("reason") or ""}
