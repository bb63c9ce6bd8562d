"""Info dicts: the validation placeholder before an agent's first action, and the fixed-schema info
of the Gymnasium view.

Gymnasium's vector environments stack each ``info`` key into an array, so a key must keep its
type from step to step and across auto-resets (a ``None`` at reset and a dict later breaks
``SyncVectorEnv`` and ``AsyncVectorEnv``). :func:`fixed_info` gives every step, reset included,
the same keys with the same types; the parts whose keys differ from task to task (``credits``,
``evidence``, ``stages``, ``critical_failed``) and an action's ``result`` are JSON strings (``json.loads`` them).
"""

from __future__ import annotations

import json
from typing import Any

NO_VALIDATION: dict[str, Any] = {"kind": None, "accepted": False, "code": "", "message": "", "result": None,
                                 "commit_seq": None, "replayed": False, "validation_id": ""}
"""``info["validation"]`` before the agent's first action: the keys of a step result, nothing done."""

SCALARS: dict[str, type] = {"task_id": str, "actor": str, "role": str, "evaluated": bool, "step": int,
                            "trace_digest": str, "episode_seed": int, "hints": str, "score": float,
                            "safe_score": float, "full_credit": bool, "loss_group": str}
"""Top-level fields of :func:`fixed_info` and their types (plus ``validation`` and the JSON fields)."""
JSON_FIELDS = ("credits", "evidence", "stages", "critical_failed")


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def fixed_info(info: dict[str, Any]) -> dict[str, Any]:
    """``info`` with the same keys and value types at every step (see the module docstring)."""
    out: dict[str, Any] = {}
    for key, kind in SCALARS.items():
        value = info.get(key)
        out[key] = kind(value) if value is not None else kind()
    v = {**NO_VALIDATION, **(info.get("validation") or {})}
    out["validation"] = {
        "kind": str(v["kind"] or ""), "accepted": bool(v["accepted"]), "code": str(v["code"] or ""),
        "message": str(v["message"] or ""), "result": "" if v["result"] is None else _dumps(v["result"]),
        "commit_seq": -1 if v["commit_seq"] is None else int(v["commit_seq"]), "replayed": bool(v["replayed"]),
        "validation_id": str(v["validation_id"] or ""),
    }
    for key in JSON_FIELDS:
        out[key] = _dumps(info.get(key) or ([] if key == "critical_failed" else {}))
    return out
