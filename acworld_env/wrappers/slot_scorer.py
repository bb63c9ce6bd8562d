"""The slot-scoring policy network: one shared scorer applied to every open menu slot.

A slot's logit is a function of the observation encoding and **that slot's own facts** (its
:mod:`~acworld_env.wrappers.slot_features` row and its template, the slot label with its indices
removed), the way pointer networks score a large structured action set. Masked slots get no logit.
For observation vector ``x``, action mask ``m``, open slot ``i`` with features ``s_i`` and template ``t_i``::

    o   = tanh(W_obs [m; x] + b_obs)                     (H)
    h_i = tanh(W_ctx o + W_slot s_i + E[t_i] + b_hid)    (H)
    logit_i = v . h_i + c[t_i] + U_i . o

The last term is a per-slot head on the observation alone (what a plain MLP policy over the menu
computes); the shared scorer adds what only the slot's own facts tell apart.

This module holds the shapes (:func:`scorer_shapes`), the template table (:data:`TEMPLATES`), the
signature a saved scorer must match (:func:`slot_signature`) and a plain numpy forward pass
(:func:`scorer_logits`) used to play saved weights without torch and without unpickling.
"""

from __future__ import annotations

import hashlib
import re

import numpy as np

from ..envs.candidates import LABELS
from .slot_features import N_SLOT_FEATURES, SLOT_FEATURES, SLOT_WIDTHS

ARCHITECTURE = "slot-scorer/1"
N_ACTIONS = len(LABELS)
TEMPLATE_NAMES: tuple[str, ...] = tuple(dict.fromkeys(re.sub(r"\[\d+\]", "[]", label) for label in LABELS))
"""Slot labels with their indices removed (``listing[3].order@list`` -> ``listing[].order@list``)."""
TEMPLATES = np.array([TEMPLATE_NAMES.index(re.sub(r"\[\d+\]", "[]", label)) for label in LABELS], dtype=np.int64)
"""The template of each menu slot."""
N_TEMPLATES = len(TEMPLATE_NAMES)


def slot_signature(width: int = N_SLOT_FEATURES) -> str:
    """A digest of what a scorer reads per slot (the first ``width`` feature names, the templates): saved
    weights must match it. A scorer saved before the record facts were added reads the first columns only,
    and its digest is that of those columns."""
    text = "\n".join(SLOT_FEATURES[:width]) + "\n--\n" + "\n".join(TEMPLATE_NAMES)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def slot_width(signature: object) -> int | None:
    """The row width a saved scorer's ``slots`` digest names (one of :data:`SLOT_WIDTHS`), or None."""
    return next((w for w in SLOT_WIDTHS if slot_signature(w) == signature), None)


def scorer_shapes(n_features: int, hidden: int, n_slot: int = N_SLOT_FEATURES) -> dict[str, tuple[int, ...]]:
    """The name and shape of every weight of a scorer reading ``n_features`` and ``n_slot`` slot columns with
    ``hidden`` units."""
    return {"obs.weight": (hidden, N_ACTIONS + n_features), "obs.bias": (hidden,), "ctx.weight": (hidden, hidden),
            "index.weight": (N_ACTIONS, hidden),
            "slot.weight": (hidden, n_slot), "template.weight": (N_TEMPLATES, hidden),
            "hidden.bias": (hidden,), "score.weight": (hidden,), "template_bias.weight": (N_TEMPLATES,)}


def scorer_logits(weights: dict[str, np.ndarray], x: np.ndarray, rows: np.ndarray, slots: np.ndarray) -> np.ndarray:
    """Logits of the open ``slots`` (indices into the menu) given the observation vector ``x`` and the
    ``rows`` of slot features of those slots (``len(slots) x`` at least the scorer's width: a scorer reads the
    first columns it was trained on); the mask is ``slots``."""
    rows = rows[:, :weights["slot.weight"].shape[1]]
    mask = np.zeros(N_ACTIONS, dtype=np.float32)
    mask[slots] = 1.0
    o = np.tanh(weights["obs.weight"] @ np.concatenate([mask, x]) + weights["obs.bias"])
    ctx = weights["ctx.weight"] @ o + weights["hidden.bias"]
    t = TEMPLATES[slots]
    h = np.tanh(ctx[None, :] + rows @ weights["slot.weight"].T + weights["template.weight"][t])
    return h @ weights["score.weight"] + weights["template_bias.weight"][t] + weights["index.weight"][slots] @ o
