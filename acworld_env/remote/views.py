"""The one visibility rule of the remote surfaces: what a credential's holder may see.

A viewer is either an actor (it holds that actor's credential) or :data:`HOST` (the env
credential, the server's admin credential, or the process hosting the episode). An actor sees
its own observation, its own info (validation, score and credits when it is scored), its own
rewards, the public turn state (who is still playing, whose turn it is, who ended), its own
proposals (a refused one with its code and text) and the messages delivered to it. The host
sees everything. Every route of the HTTP server and every MCP tool result passes what it sends
through these functions with the viewer its credential names; none decides visibility itself.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

from ..transcript import transcript_for, transcript_lines

HOST = None
"""The viewer that sees everything (env or admin credential, or the hosting process itself)."""
Viewer = str | None
"""An actor id, or :data:`HOST`."""
PER_AGENT_PRIVATE = ("infos", "rewards", "cumulative_rewards")
"""Per-agent fields of an AEC state that only the agent itself (and the host) may read."""


def visible_state(state: dict[str, Any], viewer: Viewer) -> dict[str, Any]:
    """``state`` (an AEC snapshot) as ``viewer`` may see it: its own entries of the per-agent private fields."""
    if viewer is HOST:
        return state
    out = dict(state)
    for key in PER_AGENT_PRIVATE:
        if key in out:
            out[key] = {a: v for a, v in out[key].items() if a == viewer}
    obs = out.get("observation")
    if obs is not None and obs.get("agent") != viewer:
        out.pop("observation")
    return out


def visible_info(infos: dict[str, Any], viewer: Viewer) -> dict[str, Any]:
    """The infos ``viewer`` may read: every agent's for the host, its own for an actor."""
    return dict(infos) if viewer is HOST else {a: v for a, v in infos.items() if a == viewer}


def visible_summary(summary: dict[str, Any] | None, viewer: Viewer) -> dict[str, Any] | None:
    """An ended episode's summary as ``viewer`` may read it: the same outcome for everyone, but the
    run folder's server path only for the host (an actor gets the folder's name), and of
    ``side_scores`` (every actor an agent: each non-evaluated actor's own score) an actor gets its own."""
    if summary is None or viewer is HOST:
        return summary
    out = dict(summary)
    if out.get("run_dir"):
        out["run_dir"] = PurePath(out["run_dir"]).name
    if isinstance(out.get("side_scores"), dict):  # with every actor an agent: its own side's score only
        out["side_scores"] = {a: v for a, v in out["side_scores"].items() if a == viewer}
    return out


def visible_global_state(env: Any, viewer: Viewer) -> list[float] | None:
    """The env's ``state()`` vector for the host; None for an actor (it holds every actor's balance and inbox)."""
    return [float(x) for x in env.state()] if viewer is HOST else None


def visible_transcript(market: Any, viewer: Viewer) -> list[str]:
    """The transcript lines of ``market``'s trace that ``viewer`` may read."""
    if market is None:
        return []
    records = market.trace.records
    if viewer is HOST:
        return transcript_lines(records)
    messages, deliveries = market.messages, market.deliveries
    return transcript_for(records, viewer, lambda vid: [messages[m] for m in deliveries.get(vid, ())])
