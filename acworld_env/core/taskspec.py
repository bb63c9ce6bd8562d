"""The frozen task specification: everything an episode and its scorer need, as JSON data.

It sits in ``core`` (below scoring, which reads tasks, and below the tasks layer, which builds
them); :mod:`acworld_env.tasks.spec` re-exports it for family builders.

A task is often written by hand, so validation names what is wrong: every error says which
task (its ``task_id``) and which field (``counterparties[0].actor``), never a bare
``KeyError`` from deep inside an episode. Validating a :class:`TaskSpec` checks its fields
and, when it is read from a dict or JSON (``model_validate``, ``model_validate_json``), its
internal references (:func:`first_problem`: actors, roles, listings, predicate ids, the
schedule, the catalog). An episode checks the references again before it starts (so a
task built in code gets the same messages), with what only a registry knows (policy names
and parameters, predicate kinds), as a :class:`TaskError`. Building a ``TaskSpec`` in code
checks only its fields, so a partial task can still be made for scoring alone.
"""

from __future__ import annotations

import hashlib
import json
import re
import weakref
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from .errors import AcworldError
from .task_checks import data_problem, later_problem

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


class TaskError(AcworldError, ValueError):
    """A task that cannot be used: names the task, the field path and what is wrong (and, when it was
    read from a file, where: ``source``, e.g. ``tasks.jsonl: line 3``). The one error of bad tasks,
    raised when a task is read or made (``make``, ``reset``), never in the middle of an episode."""

    def __init__(self, task_id: str | None, field: str, message: str, *, source: str = "") -> None:
        self.task_id, self.field, self.reason, self.source = task_id, field, message, source
        who = f"task {task_id!r}" if task_id else "task (no task_id)"
        super().__init__(f"{source + ': ' if source else ''}{who}: {field}: {message}")


def field_path(loc: tuple[int | str, ...]) -> str:
    """``("counterparties", 0, "actor")`` -> ``counterparties[0].actor``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(task)"


def _named(data: Any, exc: ValidationError) -> PydanticCustomError:
    """One error naming the task and every field pydantic found wrong (inputs are not echoed)."""
    raw = data.get("task_id") if isinstance(data, dict) else None
    task_id = raw if isinstance(raw, str) else None
    problems = [(field_path(e["loc"]), "missing required field" if e["type"] == "missing" else e["msg"])
                for e in exc.errors(include_input=False)[:8]]
    text = str(TaskError(task_id, *problems[0]))
    if len(problems) > 1:
        text += "; " + "; ".join(f"{f}: {m}" for f, m in problems[1:])
    return PydanticCustomError("task_spec", "{text}", {"text": text, "task_id": task_id, "field": problems[0][0],
                                                      "message": problems[0][1]})


SAFE_TASK_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,127}(/[A-Za-z0-9][A-Za-z0-9_.+-]{0,127}){0,15}")
"""Task ids are ``/``-separated segments of letters, digits and ``_ . + -``, none starting with a dot and
none holding ``__`` (run folders join segments with ``__``): an id is never a path trick like ``..``."""


def unsafe_task_id(task_id: object) -> str | None:
    """Why ``task_id`` is not a safe task id, or ``None`` when it is."""
    if not isinstance(task_id, str) or not SAFE_TASK_ID.fullmatch(task_id) or "__" in task_id:
        return (f"task id {task_id!r:.80} is not safe to use as a folder name (allowed: segments of letters, "
                "digits, '_', '.', '+', '-' separated by '/', none starting with '.', no '__')")
    return None


def task_dir_name(task_id: object) -> str:
    """The one way to turn a task id into a folder name (``a/b`` -> ``a__b``): a single path segment that
    never climbs out of the folder it is joined to. An unsafe id (``..``, ``/abs``, ``a\\b``, a model
    copied past validation) raises :class:`TaskError`."""
    problem = unsafe_task_id(task_id)
    if problem:
        raise TaskError(task_id if isinstance(task_id, str) else None, "task_id", problem)
    return str(task_id).replace("/", "__")


class TaskSpec(_Frozen):
    """A capability task. Serialisable, hashable by content, replayable."""

    model_config = ConfigDict(extra="forbid", frozen=True, hide_input_in_errors=True)

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
    counterparty_requests: dict[str, str] = Field(
        default_factory=dict, exclude_if=lambda v: not v,
        description="Each other actor's request in its own words (what it reads when it is an agent).")
    counterparty_rubrics: dict[str, list[PredicateSpec]] = Field(
        default_factory=dict, exclude_if=lambda v: not v,
        description="Each other actor's own predicates (its score when it is an agent); never the evaluated actor's.")
    schedule: list[dict[str, Any]] = Field(default_factory=list)
    settings: dict[str, Any] = Field(default_factory=dict)
    max_steps: int = Field(30, ge=1, le=500)
    predicates: list[PredicateSpec]
    oracle: dict[str, Any] = Field(default_factory=dict, description="Ground truth the scorer needs.")
    reference: PolicyRef
    mutations: list[MutationSpec] = Field(default_factory=list)

    @field_validator("task_id")
    @classmethod
    def _safe_id(cls, value: str) -> str:
        problem = unsafe_task_id(value)
        if problem:
            raise ValueError(problem)
        return value

    @model_validator(mode="wrap")
    @classmethod
    def _named_errors(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> TaskSpec:
        """Validate the fields; an error names the task and every field found wrong."""
        try:
            return handler(data)
        except ValidationError as exc:
            if isinstance(data, TaskSpec):
                raise
            raise _named(data, exc) from None

    def model_copy(self, *, update: Any = None, deep: bool = False) -> TaskSpec:
        """A copy; a new ``task_id`` in ``update`` is checked like a validated one (:class:`TaskError`)."""
        if update and "task_id" in update:
            task_dir_name(update["task_id"])
        return super().model_copy(update=update, deep=deep)

    @classmethod
    def model_validate(cls, obj: Any, *args: Any, **kwargs: Any) -> TaskSpec:  # type: ignore[override]
        """A task from a dict (e.g. one a user wrote), with its references checked."""
        return _referenced(super().model_validate(obj, *args, **kwargs))

    @classmethod
    def model_validate_json(cls, json_data: Any, *args: Any, **kwargs: Any) -> TaskSpec:  # type: ignore[override]
        """A task from JSON text (a task file, a suite line), with its references checked."""
        return _referenced(super().model_validate_json(json_data, *args, **kwargs), numbers=_maybe_out_of_range(json_data))


_DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")
_OUT_OF_RANGE_SHAPES = (b"0" * 16, *(b"0" + e + s + b"000" for e in (b"e", b"E") for s in (b"", b"+", b"-")))
"""What an out-of-range number needs in JSON text (digits read as ``0``): 16 digits in a row, or a digit
and a 3-digit exponent."""


def _maybe_out_of_range(json_data: Any) -> bool:
    """False when JSON text cannot hold a number out of range: the walk over every value is then skipped
    (a quick byte scan; the frozen suites are read this way). True also for anything but text."""
    if isinstance(json_data, str):
        json_data = json_data.encode("utf-8", "surrogatepass")
    if not isinstance(json_data, bytes | bytearray):
        return True
    digits = bytes(json_data).translate(_DIGITS_AS_ZERO)
    return any(shape in digits for shape in _OUT_OF_RANGE_SHAPES)
_CHECKED: dict[int, weakref.ref] = {}
"""Tasks (by identity, while they live) whose references and data passed :func:`first_problem` when read:
:func:`check_runnable` does not walk them again."""


def _referenced(task: TaskSpec, *, numbers: bool = True) -> TaskSpec:
    """``task`` if its internal references hold, else a ``ValidationError`` naming task and field."""
    problem = first_problem(task, numbers=numbers)
    if problem is None:
        key = id(task)
        _CHECKED[key] = weakref.ref(task, lambda _ref: _CHECKED.pop(key, None))
        return task
    error = PydanticCustomError("task_reference", "{text}", {"text": str(TaskError(task.task_id, *problem)),
                                                             "task_id": task.task_id, "field": problem[0],
                                                             "message": problem[1]})
    raise ValidationError.from_exception_data("TaskSpec", [{"type": error, "loc": (), "input": None}],
                                              hide_input=True)


# -- references --------------------------------------------------------------------------

SHIPPED_CATALOGS = ("capability-v1", "large-v1")
"""Catalog names a task may use (episodes open these read-only and share them); a task built over a
user's own catalog file names it ``file:<absolute path>`` (its pinned content hash still applies)."""
LISTING_KEYS = ("listing_id", "listing_ids")
"""Parameter names that refer to listings of the initial world."""
Problem = tuple[str, str]
"""``(field, message)``."""


def _listing_refs(value: Any, path: str) -> list[tuple[str, str]]:
    """``(field path, listing id)`` for every ``listing_id``/``listing_ids`` under ``value``."""
    found: list[tuple[str, str]] = []
    if isinstance(value, dict):
        for k, v in value.items():
            sub = f"{path}.{k}" if path else str(k)
            if k == "listing_id" and isinstance(v, str):
                found.append((sub, v))
            elif k == "listing_ids" and isinstance(v, list):
                found += [(f"{sub}[{i}]", x) for i, x in enumerate(v) if isinstance(x, str)]
            else:
                found += _listing_refs(v, sub)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found += _listing_refs(v, f"{path}[{i}]")
    return found


def _actor_problem(task: TaskSpec) -> Problem | None:
    actors = task.initial_state.get("actors")
    if not isinstance(actors, dict) or not actors:
        return "initial_state.actors", "missing; the initial world must list its actors with their roles"
    for a, rec in actors.items():
        if not isinstance(rec, dict) or rec.get("role") not in ("buyer", "merchant"):
            return f"initial_state.actors.{a}.role", "missing or not 'buyer' or 'merchant'"
    known = f"actors are {', '.join(sorted(actors))}"
    if task.actor not in actors:
        return "actor", f"{task.actor!r} is not an actor of initial_state.actors ({known})"
    if actors[task.actor]["role"] != task.role:
        return "role", f"{task.role!r}, but {task.actor!r} is a {actors[task.actor]['role']} in initial_state.actors"
    named = [(f"counterparties[{i}].actor", c.actor) for i, c in enumerate(task.counterparties)]
    named += [(f"counterparty_mandates.{a}", a) for a in task.counterparty_mandates]
    named += [(f"counterparty_sealed.{a}", a) for a in task.counterparty_sealed]
    named += [(f"counterparty_requests.{a}", a) for a in task.counterparty_requests]
    named += [(f"counterparty_rubrics.{a}", a) for a in task.counterparty_rubrics]
    named += [(f"merchant_actors.{m}", a) for m, a in task.merchant_actors.items()]
    listings = task.initial_state.get("listings") or {}
    if not isinstance(listings, dict):
        return "initial_state.listings", "must be a mapping of listing id to record"
    named += [(f"initial_state.listings.{lid}.merchant", rec["merchant"]) for lid, rec in listings.items()
              if isinstance(rec, dict) and "merchant" in rec]
    for field, actor in named:
        if actor not in actors:
            return field, f"{actor!r} is not an actor of initial_state.actors ({known})"
    return None


def _listing_ids(value: Any, out: set[str]) -> set[str]:
    """Add to ``out`` every listing id :func:`_listing_refs` finds under ``value``, without building paths."""
    if isinstance(value, dict):
        for k, v in value.items():
            if k == "listing_id" and isinstance(v, str):
                out.add(v)
            elif k == "listing_ids" and isinstance(v, list):
                out.update(x for x in v if isinstance(x, str))
            else:
                _listing_ids(v, out)
    elif isinstance(value, list):
        for v in value:
            _listing_ids(v, out)
    return out


def _listing_problem(task: TaskSpec) -> Problem | None:
    if task.catalog is not None:
        return None  # a listing may be in the catalog; episodes resolve those
    known = set(task.initial_state.get("listings") or {})
    _listing_ids(task.schedule, known)
    places: list[tuple[str, Any]] = [("mandate", task.mandate), ("counterparty_mandates", task.counterparty_mandates),
                                     ("reference.params", task.reference.params)]
    places += [(f"predicates[{i}].params", p.params) for i, p in enumerate(task.predicates)]
    places += [(f"counterparties[{i}].policy.params", c.policy.params) for i, c in enumerate(task.counterparties)]
    places += [(f"mutations[{i}].policy.params", m.policy.params) for i, m in enumerate(task.mutations)]
    if _listing_ids([value for _, value in places], set()) <= known:
        return None  # the usual case; the field paths are built only to name a missing listing
    for path, value in places:
        for field, lid in _listing_refs(value, path):
            if lid not in known:
                return field, f"listing {lid!r} is not in initial_state.listings"
    return None


def _structure_problem(task: TaskSpec) -> Problem | None:
    if task.catalog is not None and task.catalog not in SHIPPED_CATALOGS and not task.catalog.startswith("file:"):
        return "catalog", f"no shipped catalog named {task.catalog!r} (known: {', '.join(SHIPPED_CATALOGS)})"
    ids: set[str] = set()
    for i, p in enumerate(task.predicates):
        if p.id in ids:
            return f"predicates[{i}].id", f"{p.id!r} repeats an earlier predicate id"
        ids.add(p.id)
    for actor, rubric in task.counterparty_rubrics.items():
        if actor == task.actor:
            return f"counterparty_rubrics.{actor}", "is the evaluated actor, whose rubric is predicates"
        own: set[str] = set()
        for i, p in enumerate(rubric):
            if p.id in own:
                return f"counterparty_rubrics.{actor}[{i}].id", f"{p.id!r} repeats an earlier predicate id"
            own.add(p.id)
    for i, m in enumerate(task.mutations):
        unknown = [x for x in m.lowers if x not in ids]
        if unknown:
            return f"mutations[{i}].lowers", f"no predicate with id {unknown[0]!r}"
    for i, item in enumerate(task.schedule):
        if not isinstance(item.get("round"), int) or isinstance(item.get("round"), bool) or item["round"] < 0:
            return f"schedule[{i}].round", "missing or not a round number (an integer from 0)"
        if not isinstance(item.get("id"), str) or not item["id"]:
            return f"schedule[{i}].id", "missing or not a string"
    return None


def first_problem(task: TaskSpec, *, numbers: bool = True) -> Problem | None:
    """The first broken internal reference or unusable value of ``task`` as ``(field, message)``, or None
    (references, then the free-form data: :func:`~acworld_env.core.task_checks.data_problem`;
    ``numbers=False`` skips the range check of every number, for JSON text known to hold none out of range)."""
    return (_actor_problem(task) or _structure_problem(task) or _listing_problem(task)
            or data_problem(task, numbers=numbers))


def check_runnable(task: TaskSpec, *, kinds: Any) -> None:
    """Raise :class:`TaskError` for a broken internal reference, or a predicate kind not among
    ``kinds`` (the scoring registry): what an episode checks before it starts."""
    task_dir_name(task.task_id)  # a model copied or constructed past validation
    known = _CHECKED.get(id(task))
    problem = (None if known is not None and known() is task else first_problem(task)) or later_problem(task)
    if problem is not None:
        raise TaskError(task.task_id, *problem)
    for i, p in enumerate(task.predicates):
        if p.kind not in kinds:
            raise TaskError(task.task_id, f"predicates[{i}].kind", f"unknown predicate kind {p.kind!r}")
    for actor, rubric in task.counterparty_rubrics.items():
        for i, p in enumerate(rubric):
            if p.kind not in kinds:
                raise TaskError(task.task_id, f"counterparty_rubrics.{actor}[{i}].kind",
                                f"unknown predicate kind {p.kind!r}")


def task_canonical(task: TaskSpec) -> bytes:
    """The canonical bytes of a task: the same line the frozen suite file holds."""
    return json.dumps(task.model_dump(mode="json"), sort_keys=True, ensure_ascii=False,
                      separators=(",", ":")).encode("utf-8")


def task_hash(task: TaskSpec) -> str:
    """SHA-256 of a task's canonical JSON."""
    return hashlib.sha256(task_canonical(task)).hexdigest()
