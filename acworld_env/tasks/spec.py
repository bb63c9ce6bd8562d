"""The frozen task specification: everything an episode and its scorer need, as JSON data."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Stage = Literal["Search", "Evidence", "Decision", "Validation", "World effect"]
LossGroup = Literal["Evidence", "Choice", "Execution", "Authority"]


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PredicateSpec(_Frozen):
    """One weighted check of a run."""

    id: str = Field(description="Unique within the task.")
    kind: str = Field(description="A predicate kind from the scoring registry.")
    params: dict[str, Any] = Field(default_factory=dict)
    weight: float = Field(gt=0, le=1)
    stage: Stage
    loss_group: LossGroup
    required: bool = True


class PolicyRef(_Frozen):
    """A policy by registry name and constructor parameters."""

    name: str
    params: dict[str, Any] = Field(default_factory=dict)


class CounterpartySpec(_Frozen):
    """A scripted actor that acts inside ``step()`` through the same VCP path."""

    actor: str
    policy: PolicyRef


class MutationSpec(_Frozen):
    """A targeted wrong decision and the predicates it must lower."""

    id: str
    description: str
    policy: PolicyRef
    lowers: list[str]


class TaskSpec(_Frozen):
    """A capability task. Serialisable, hashable by content, replayable."""

    task_id: str
    family: str
    capability: str
    role: Literal["buyer", "merchant"]
    actor: str = Field(description="The evaluated actor's id.")
    difficulty: dict[str, Any] = Field(default_factory=dict)
    request: str = Field(description="The request in the user's own words.")
    mandate: dict[str, Any] = Field(default_factory=dict, description="The evaluated actor's private mandate.")
    sealed: list[int] = Field(default_factory=list, description="Private values the privacy guard protects.")
    initial_state: dict[str, Any]
    catalog: str | None = Field(None, description="Name of the shipped catalog, or None.")
    merchant_actors: dict[str, str] = Field(default_factory=dict, description="Catalog merchant id -> actor id.")
    counterparties: list[CounterpartySpec] = Field(default_factory=list)
    counterparty_mandates: dict[str, dict[str, Any]] = Field(default_factory=dict)
    counterparty_sealed: dict[str, list[int]] = Field(default_factory=dict)
    schedule: list[dict[str, Any]] = Field(default_factory=list)
    settings: dict[str, Any] = Field(default_factory=dict)
    max_steps: int = Field(30, ge=1, le=500)
    predicates: list[PredicateSpec]
    oracle: dict[str, Any] = Field(default_factory=dict, description="Ground truth the scorer needs.")
    reference: PolicyRef
    mutations: list[MutationSpec] = Field(default_factory=list)
