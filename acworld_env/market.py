"""One episode's market: the single path every transport uses.

``submit(actor, action)`` binds the action to the authenticated actor (VCP envelope),
validates it (CIP), commits accepted business actions (World), delivers messages, and
leaves a lineage record whatever happened.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from .cip import Outcome, Platform
from .cip.context import MarketView, RuleSettings
from .cip.platform import NEW_REQUEST
from .trace import Trace, Validation
from .vcp import Envelope, Role, VCPAction, parse_action
from .vcp.union import TERMINAL_KINDS, plain_record
from .world import CommitLog, TransitionError, World

if TYPE_CHECKING:
    from .catalog import Catalog

_ROLES: dict[str, Role] = {r.value: r for r in Role}
"""Each role by its value."""
MARKET_ACTOR = "market"
"""The system actor that commits scheduled market events."""
ACTOR_FINISHED = "actor_finished"
"""Rejection code for any action from an actor after its accepted terminal action."""


@dataclass
class StepResult:
    """What happened to one proposal."""

    envelope: Envelope
    accepted: bool
    code: str
    message: str
    kind: str | None
    result: Any = None
    commit_seq: int | None = None
    replayed: bool = False
    terminal: bool = False
    validation_id: str = ""
    evidence: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON form (what an observation shows of the last action)."""
        return {
            "kind": self.kind, "accepted": self.accepted, "code": self.code, "message": self.message,
            "result": self.result, "commit_seq": self.commit_seq, "replayed": self.replayed,
            "validation_id": self.validation_id,
        }


class Market:
    """Wires one episode: actors, inboxes, a logical clock, platform, World, trace."""

    def __init__(
        self,
        initial_state: dict,
        *,
        catalog: Catalog | None = None,
        mandates: dict[str, dict] | None = None,
        sealed: dict[str, list[int]] | None = None,
        schedule: list[dict] | None = None,
        settings: dict[str, Any] | None = None,
        seed: int = 0,
        log: CommitLog | None = None,
    ) -> None:
        self.seed = seed
        self.world = World(initial_state, log=log)
        self.round = 0
        self.seq = _last_proposal_seq(self.world.commits)
        """Proposal counter; a World resumed from a log continues its numbering so ids never repeat."""
        self.inboxes: dict[str, list[dict]] = {a: [] for a in self.world.state["actors"]}
        self.messages: dict[str, dict] = {}
        self.deliveries: dict[str, list[str]] = {}
        """Validation id -> ids of the messages its accepted proposal (or scheduled event) delivered, in order."""
        self.mandates = mandates or {}
        self.schedule = sorted(schedule or [], key=lambda s: (s["round"], s.get("order", 0)))
        self.sealed: dict[str, list[int]] = sealed or {}
        self.settings: Mapping[str, Any] = MappingProxyType(dict(settings or {}))
        """The task's settings, read-only; the live state above (inboxes, messages, mandates, sealed) is apart."""
        self.platform = Platform(catalog, RuleSettings.from_dict(self.settings),
                                 MarketView(self.messages, self.inboxes, self.mandates, self.sealed))
        self.trace = Trace()
        self.finished: set[str] = set()
        self._deliver_due()

    # -- identity -------------------------------------------------------------
    def role(self, actor: str) -> Role:
        """An actor's role."""
        value = self.world.state["actors"][actor]["role"]
        try:
            return _ROLES[value]  # what ``Role(value)`` returns, without the enum call (every observation asks)
        except (KeyError, TypeError):
            return Role(value)

    # -- clock and scheduled events -------------------------------------------
    def advance(self) -> None:
        """Move the logical clock one round and deliver market events due by then."""
        self.round += 1
        self._deliver_due()

    def _deliver_due(self) -> None:
        while self.schedule and self.schedule[0]["round"] <= self.round:
            item = self.schedule.pop(0)
            validation = Validation(validation_id=f"val-sched-{item['id']}", envelope_id=f"sched-{item['id']}",
                                    actor=MARKET_ACTOR, kind="scheduled_event", accepted=True, code="ok",
                                    message="scheduled market event")
            commit = None
            if item.get("events"):
                commit = self.world.commit(MARKET_ACTOR, validation.to_dict(), item["events"], self.round, linked=False)
            for notice in item.get("notices", []):
                self._deliver(MARKET_ACTOR, notice, validation.validation_id)
            self.trace.append(
                round=self.round, actor=MARKET_ACTOR, role="market", envelope=None,
                action={"kind": "scheduled_event", "id": item["id"]}, validation=validation,
                commit=commit["seq"] if commit else None, delta=commit["body"]["delta"] if commit else [],
            )

    # -- messaging --------------------------------------------------------------
    def _deliver(self, sender: str, notice: dict, cause: str = "") -> str:
        mid = f"msg-{len(self.messages) + 1:04d}"
        msg = {"message_id": mid, "from": sender, "round": self.round, "read": False, **notice}
        self.messages[mid] = msg
        self.deliveries.setdefault(cause, []).append(mid)
        self.inboxes.setdefault(msg["to"], []).append(msg)
        return mid

    def unread(self, actor: str) -> list[dict]:
        """The messages delivered to ``actor`` that it has not taken yet, themselves (read, never change them)."""
        return [m for m in self.inboxes.get(actor, []) if not m["read"]]

    def inbox(self, actor: str) -> list[dict]:
        """Copies of the messages delivered to ``actor`` that it has not taken yet. Changes nothing."""
        return [dict(m) for m in self.unread(actor)]

    def take_unread(self, actor: str, count: int | None = None) -> list[dict]:
        """Mark ``actor``'s unread messages (the first ``count`` of them, or all) read; return them (copies).

        Called by whoever delivered an observation to the actor and lets it act on it (the
        :class:`~acworld_env.episode.Episode` calls :meth:`mark_read`, the same without copies), so the
        next :meth:`inbox` starts after them and ``get_inbox`` with ``unread_only`` leaves them out.
        """
        fresh = self.mark_read(actor, count)
        return [dict(m) for m in fresh]

    def mark_read(self, actor: str, count: int | None = None) -> list[dict]:
        """:meth:`take_unread` without the copies: the messages marked read, themselves (read, never change them)."""
        fresh = self.unread(actor)[:count]
        for m in fresh:
            m["read"] = True
        return fresh

    # -- the one path -----------------------------------------------------------
    def submit(self, actor: str, raw: Any, meta: dict[str, Any] | None = None) -> StepResult:
        """Bind, validate, commit and record one proposed action by an authenticated actor.

        ``meta`` (for example a model call's latency and token usage) is stored with the
        decision's lineage record; it never influences validation.
        """
        self.seq += 1
        action = parse_action(raw)
        parsed = isinstance(action, VCPAction)
        known = self.world.state["actors"].get(actor)
        fields = vars(action) if parsed else {}  # the action's field values (only some kinds have a thread)
        envelope = Envelope.__pydantic_validator__.validate_python({  # what ``Envelope(...)`` runs, called directly
            "envelope_id": f"env-{self.seed}-{self.seq:05d}", "actor": actor, "role": known["role"] if known else None,
            "round": self.round, "seq": self.seq, "thread_id": fields.get("thread_id"),
            "in_reply_to": fields.get("in_reply_to"), "idempotency_key": fields.get("idempotency_key"),
        })
        kind = action.kind if parsed else None
        vid = f"val-{self.seq:05d}"
        key = self.platform.check_key(envelope, action) if parsed else NEW_REQUEST
        if key.replay is not None:  # a retry of an accepted request, even one made before finishing
            return self._record_replay(envelope, action, key.replay, vid, meta)
        refusal = self._finished_refusal(actor)
        if refusal is None and key.conflict is not None:  # an idempotency conflict
            refusal = (key.conflict.code, key.conflict.message)
        outcome: Outcome | None = None
        recorded = (action.__pydantic_serializer__.to_python(action, mode="json", exclude_none=True, warnings=True)
                    if parsed else _raw_repr(raw))  # ``action.model_dump(mode="json", exclude_none=True)``, called directly
        if refusal is not None:
            outcome_accepted, (code, message) = False, refusal
        else:
            outcome = self.platform.validate(self.world.state, envelope, action, recorded=recorded if parsed else None)
            outcome_accepted, code, message = outcome.accepted, outcome.code, outcome.message
        validation = Validation(validation_id=vid, envelope_id=envelope.envelope_id, actor=actor, kind=kind,
                                accepted=outcome_accepted, code=code, message=message)
        commit = None
        if outcome is not None and outcome.accepted and outcome.events:
            try:
                commit = self.world.commit(actor, validation.to_dict(), outcome.events, self.round,
                                           linked=False)  # hash links when read (only seq and delta are read here)
            except TransitionError as exc:  # a rule let through what the World refuses: reject, don't crash
                outcome = Outcome(False, "transition_refused", f"the World refused the events: {exc}")
                outcome_accepted, code, message = False, outcome.code, outcome.message
                validation = validation.refused(code, message)
        if outcome is not None and outcome.accepted:
            for notice in outcome.notices:
                self._deliver(actor, notice, vid)
        terminal = bool(parsed and outcome_accepted and action.terminal)
        if terminal:
            self.finished.add(actor)
        step = StepResult(
            envelope, outcome_accepted, code, message, kind,
            result=outcome.result if outcome is not None else None,
            commit_seq=commit["seq"] if commit else None, terminal=terminal, validation_id=vid,
            evidence=outcome.evidence if outcome is not None else [],
        )
        if parsed and action.idempotency_key is not None and not action.readonly:  # only keyed requests are stored
            self.platform.remember(envelope, action, step.to_dict())
        recorded_envelope = envelope_json(envelope)
        self.trace.append(
            round=self.round, actor=actor, role=recorded_envelope["role"],
            envelope=recorded_envelope, action=recorded, validation=validation, evidence=step.evidence,
            commit=step.commit_seq, delta=commit["body"]["delta"] if commit else [],
            result=step.result, meta=meta,
        )
        return step

    def _finished_refusal(self, actor: str) -> tuple[str, str] | None:
        """``(code, message)`` refusing any new action from an actor whose terminal action was accepted.

        Only an exact retry of a request accepted earlier (same idempotency key and payload) is
        still answered, from the store, as a replay: it commits nothing and is not a new action.
        """
        if actor not in self.finished:
            return None
        return (ACTOR_FINISHED, f"{actor} already finished its episode with a terminal action "
                                f"({', '.join(sorted(TERMINAL_KINDS))}); no further actions are accepted")

    def _record_replay(self, envelope: Envelope, action: VCPAction, original: dict, vid: str,
                       meta: dict[str, Any] | None) -> StepResult:
        validation = Validation(
            validation_id=vid, envelope_id=envelope.envelope_id, actor=envelope.actor, kind=action.kind,
            accepted=original["accepted"], code="idempotent_replay",
            message=f"same key and payload as {original['validation_id']}; original result returned")
        step = StepResult(envelope, original["accepted"], "idempotent_replay", validation.message,
                          action.kind, result=original["result"], commit_seq=None, replayed=True,
                          validation_id=vid)
        self.trace.append(
            round=self.round, actor=envelope.actor, role=envelope.role.value if envelope.role else None,
            envelope=envelope.model_dump(mode="json"),
            action=action.model_dump(mode="json", exclude_none=True), validation=validation,
            result=original["result"], replayed=True, original_validation=original["validation_id"], meta=meta,
        )
        return step


def envelope_json(envelope: Envelope) -> dict[str, Any]:
    """``envelope.model_dump(mode="json")``, field by field (the same dict, keys in field order), built directly:
    the market records one per proposal."""
    return {"envelope_id": envelope.envelope_id, "actor": envelope.actor,
            "role": envelope.role._value_ if envelope.role is not None else None, "round": envelope.round,
            "seq": envelope.seq, "thread_id": envelope.thread_id, "in_reply_to": envelope.in_reply_to,
            "idempotency_key": envelope.idempotency_key}


def _last_proposal_seq(commits: list[dict]) -> int:
    """Highest proposal number cited by earlier commits (``val-00042`` -> 42), 0 for a fresh World."""
    nums = [int(c["validation_id"][4:]) for c in commits
            if c["validation_id"].startswith("val-") and c["validation_id"][4:].isdigit()]
    return max(nums, default=0)


def _raw_repr(raw: Any) -> dict:
    """A JSON-safe, bounded record of input that could not be parsed. Never raises."""
    plain = plain_record(raw) if isinstance(raw, dict | VCPAction) else None
    if plain is not None:
        return {"unparsed": plain}
    if isinstance(raw, str):
        text = raw[:2000]
    else:
        import reprlib

        bounded = reprlib.Repr()
        bounded.maxlevel, bounded.maxstring, bounded.maxother = 4, 2000, 200
        try:
            text = bounded.repr(raw)
        except Exception:  # e.g. an integer too long to print, or a hostile __repr__
            text = f"<unprintable {type(raw).__name__}>"
    return {"unparsed": text[:2000].encode("utf-8", "replace").decode("utf-8")}
