"""Reconstruction: rebuild a World from its initial state and commits, and verify both digests."""

from __future__ import annotations

from dataclasses import dataclass

from ..core.errors import AcworldError
from . import handlers_after, handlers_trade  # noqa: F401  (register handlers)
from .commit_log import gc_paused
from .digest import GENESIS, chain, state_digest
from .state import clone
from .transition import TransitionError, apply_delta, transition


class ReplayError(AcworldError, ValueError):
    """Reconstruction failed; ``seq`` names the first bad commit (0 for the run as a whole)."""

    def __init__(self, seq: int, reason: str) -> None:
        super().__init__(f"commit {seq}: {reason}" if seq else reason)
        self.seq = seq
        self.reason = reason


@dataclass
class Reconstruction:
    """A rebuilt World: final state and both digests."""

    state: dict
    state_digest: str
    event_digest: str
    commits: int


def _binding_problem(body: dict, commit: dict, validations: dict[str, dict] | None) -> str | None:
    """Why a commit's header or cited validation does not bind it to an accepted proposal, or None."""
    if body["actor"] != commit["actor"] or body["validation_id"] != commit["validation_id"]:
        return "commit header disagrees with its body"
    if validations is None:
        return None
    val = validations.get(body["validation_id"])
    if val is None:
        return f"cites validation {body['validation_id']} which is not stored"
    if not val.get("accepted"):
        return f"cites validation {body['validation_id']} which rejected the action"
    if val.get("actor") != body["actor"]:
        return "actor binding broken: the validation belongs to another actor"
    return None


def reconstruct(
    initial_state: dict, commits: list[dict], validations: dict[str, dict] | None = None
) -> Reconstruction:
    """Replay ``commits`` over ``initial_state``. Detects edited, dropped, reordered and inserted commits.

    With ``validations`` every commit must cite a stored, accepted validation of the same actor.
    Each commit costs one canonical encoding (its stored body, checked against its hash), and the
    cyclic garbage collector is paused meanwhile (:func:`gc_paused`): cost per commit stays flat.
    """
    with gc_paused():
        return _replay(initial_state, commits, validations)


def _replay(initial_state: dict, commits: list[dict], validations: dict[str, dict] | None) -> Reconstruction:
    """The replay loop: one canonical encoding per commit (its stored body, for the hash chain)."""
    state = clone(initial_state)
    head = GENESIS
    for expected_seq, commit in enumerate(commits, start=1):
        body = commit["body"]
        seq = body.get("seq", commit.get("seq"))
        if seq != expected_seq or commit.get("seq") != seq:
            raise ReplayError(expected_seq, f"sequence gap or reorder: found commit {seq} at position {expected_seq}")
        if commit["prev_hash"] != head:
            raise ReplayError(seq, "previous-hash link broken (a commit before it was changed, dropped or inserted)")
        if chain(head, body) != commit["hash"]:
            raise ReplayError(seq, "hash mismatch: the commit's content was changed")
        problem = _binding_problem(body, commit, validations)
        if problem is not None:
            raise ReplayError(seq, problem)
        try:
            delta = transition(state, body["events"])
        except TransitionError as exc:
            raise ReplayError(seq, f"event cannot be applied: {exc}") from exc
        # The hash covers the recorded delta's bytes; equality says the transition gives the same
        # puts, without encoding the recomputed delta again.
        if delta != body["delta"]:
            raise ReplayError(seq, "recorded state delta differs from the transition's")
        apply_delta(state, delta)
        head = commit["hash"]
    return Reconstruction(state, state_digest(state), head, len(commits))
