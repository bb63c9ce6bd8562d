"""World: state, pure transition, canonical digests, durable commit log and replay."""

from .commit_log import CommitLog, LogError
from .digest import GENESIS, canonical, chain, sha256, state_digest
from .replay import Reconstruction, ReplayError, reconstruct
from .state import add_actor, empty_state, listing_record, next_id
from .transition import TransitionError, apply_delta, transition
from .world import World

__all__ = [
    "GENESIS", "CommitLog", "LogError", "Reconstruction", "ReplayError", "TransitionError",
    "World", "add_actor", "apply_delta", "canonical", "chain", "empty_state", "listing_record",
    "next_id", "reconstruct", "sha256", "state_digest", "transition",
]
