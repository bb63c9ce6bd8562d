"""Reconstruction: rebuild a World from its initial state and commits, and verify both digests."""

from __future__ import annotations

import gc
from dataclasses import dataclass

from ..core.errors import AcworldError
from . import handlers_after, handlers_trade  # noqa: F401  (register handlers)
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


def _check_hash(seq: int, head: str, body: dict, expected: str) -> None:
    """Raise when ``body`` does not hash to ``expected`` after ``head`` (its content was changed)."""
    if chain(head, body) != expected:
        raise ReplayError(seq, "hash mismatch: the commit's content was changed")


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
    The cyclic garbage collector is paused meanwhile: replay only allocates acyclic JSON records,
    and its passes over the growing state made long histories superlinear.
    """
    paused = gc.isenabled()
    gc.disable()
    try:
        return _replay(initial_state, commits, validations)
    finally:
        if paused:
            gc.enable()


def _replay(initial_state: dict, commits: list[dict], validations: dict[str, dict] | None) -> Reconstruction:
    state = clone(initial_state)
    head = GENESIS
    for expected_seq, commit in enumerate(commits, start=1):
        body = commit["body"]
        seq = body.get("seq", commit.get("seq"))
        if seq != expected_seq or commit.get("seq") != seq:
            raise ReplayError(expected_seq, f"sequence gap or reorder: found commit {seq} at position {expected_seq}")
        if commit["prev_hash"] != head:
            raise ReplayError(seq, "previous-hash link broken (a commit before it was changed, dropped or inserted)")
        problem = _binding_problem(body, commit, validations)
        if problem is not None:
            _check_hash(seq, head, body, commit["hash"])  # a changed commit is reported as such first
            raise ReplayError(seq, problem)
        try:
            delta = transition(state, body["events"])
        except TransitionError as exc:
            _check_hash(seq, head, body, commit["hash"])
            raise ReplayError(seq, f"event cannot be applied: {exc}") from exc
        # One encoding checks both the hash and the recorded delta: the body with the recomputed
        # delta hashes to the commit's hash only if the recorded delta is the same, byte for byte.
        if chain(head, {**body, "delta": delta}) != commit["hash"]:
            _check_hash(seq, head, body, commit["hash"])
            raise ReplayError(seq, "recorded state delta differs from the transition's")
        apply_delta(state, delta)
        head = commit["hash"]
    return Reconstruction(state, state_digest(state), head, len(commits))
