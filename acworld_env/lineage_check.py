"""Cross-checks between a run's two records of the same history: the commit log and the trace.

The commit log (``commits.sqlite``) and the lineage trace (``trace.jsonl``) are each
hash-chained, so each is tamper-evident on its own. A forger who rewrites one of them and
re-hashes its chain is caught here, because the other still tells the original story:

* every commit's delta, actor, round and cited validation equal those of the trace record
  that cites it, and every trace record that cites a commit finds it;
* proposals are numbered without gaps (deleting a rejected proposal's record and
  re-hashing the trace leaves a hole in the envelope numbering), and their count equals
  the one in ``run.json``.
"""

from __future__ import annotations

from typing import Any

from .trace import TraceRecord
from .world import canonical


def lineage_problems(records: list[TraceRecord], commits: list[dict[str, Any]],
                     validations: dict[str, dict[str, Any]], proposals: Any, seed: Any = None) -> list[str]:
    """Every disagreement between the trace and the commit log, most precise first (empty when consistent).

    With ``seed`` (the episode seed in ``run.json``), every envelope id must carry it: the market
    names proposals ``env-<seed>-<seq>``, so a run copied in place of another seed's run is caught.
    """
    problems = _commit_problems(records, commits, validations)
    problems += _numbering_problems(records, proposals)
    if isinstance(seed, int) and not isinstance(seed, bool):
        problems += _seed_problems(records, seed)
    return problems


def _seed_problems(records: list[TraceRecord], seed: int) -> list[str]:
    for rec in records:
        env = rec.envelope
        if isinstance(env, dict) and env.get("envelope_id") != f"env-{seed}-{env.get('seq', 0):05d}":
            return [f"trace record {rec.n}: proposal {env.get('envelope_id')!r} was not made in an "
                    f"episode with seed {seed} (the seed in run.json)"]
    return []


def _commit_problems(records: list[TraceRecord], commits: list[dict[str, Any]],
                     validations: dict[str, dict[str, Any]]) -> list[str]:
    by_seq = {c["seq"]: c for c in commits}
    cited: dict[int, Any] = {}
    for rec in records:
        seq = rec.commit
        if seq is None:
            continue
        n, val = rec.n, rec.validation
        if not val.accepted:
            return [f"trace record {n} claims commit {seq}, but its validation "
                    f"{val.validation_id} rejected the action"]
        commit = by_seq.get(seq)
        if commit is None:
            return [f"trace record {n}: cites commit {seq}, which is not in commits.sqlite"]
        if seq in cited:
            return [f"trace records {cited[seq]} and {n} both claim commit {seq}"]
        cited[seq] = n
        if commit["validation_id"] != val.validation_id:
            return [f"trace record {n}: commit {seq} cites validation {commit['validation_id']}, "
                    f"the record holds {val.validation_id}"]
        if commit["actor"] != rec.actor:
            return [f"trace record {n}: actor binding broken (commit {seq} is by {commit['actor']!r})"]
        body = commit["body"]
        checks = [
            (canonical(rec.delta) == canonical(body.get("delta")),
             "its events or state delta differ from the trace record that cites it"),
            (rec.round == body.get("round"), "its round differs from the trace record that cites it"),
            (canonical(val.to_dict()) == canonical(validations.get(body.get("validation_id"), {})),
             "its stored validation differs from the one in the trace record that cites it"),
        ]
        for ok, what in checks:
            if not ok:
                return [f"commit {seq}: {what}"]
    return []


def _numbering_problems(records: list[TraceRecord], proposals: Any) -> list[str]:
    seqs = [rec.envelope.get("seq") for rec in records if isinstance(rec.envelope, dict)]
    for i, seq in enumerate(seqs):
        expected = i + 1
        if seq != expected:
            return [f"proposal {expected}: missing from the trace (found proposal {seq} in its place); "
                    "a record was removed and the trace re-hashed"]
    if isinstance(proposals, int) and proposals != len(seqs):
        return [f"{len(seqs)} proposals in the trace, {proposals} recorded in run.json"]
    return []
