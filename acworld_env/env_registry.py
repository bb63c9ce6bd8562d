"""Environment ids and ``make()``: versioned names, latest-version resolution, third-party registration.

Ids are ``name-vN`` (optionally ``namespace/name-vN``). ``make("capability")`` resolves to the
latest registered version. Every id is also registered with Gymnasium as a single-agent view,
``gymnasium.make("acworld/capability-v1")`` (ids with their own namespace keep it). Importing
``acworld_env`` does not import Gymnasium: when Gymnasium is not imported yet, the ids wait and are
handed to Gymnasium's registry as soon as anything imports it (:class:`_GymnasiumHook`).

A third-party package adds its own ids::

    from acworld_env import register_env
    register_env("mymarket-v1", "my_pkg.envs:env", kwargs={"suite": "my-suite"})

The entry point (a callable or ``"module:attr"``) takes keyword arguments and returns a
PettingZoo AEC env; ``kwargs`` are defaults that ``make(id, **kwargs)`` can override.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.abc
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

_ID = re.compile(r"^(?:(?P<ns>[A-Za-z0-9_.-]+)/)?(?P<name>[A-Za-z0-9_.-]+?)(?:-v(?P<version>\d+))?$")
GYM_NAMESPACE = "acworld"
GYM_ENTRY_POINT = "acworld_env.envs.gym_env:AcworldGymEnv"
REMOTE_ENTRY_POINT = "acworld_env.remote.client:env"


@dataclass(frozen=True)
class EnvSpec:
    """A registered environment id and how to build it."""

    env_id: str
    entry_point: str | Callable[..., Any]
    kwargs: dict[str, Any] = field(default_factory=dict)
    description: str = ""

    @property
    def family(self) -> str:
        """The id without its version (``capability`` for ``capability-v1``)."""
        return parse_id(self.env_id)[0]

    @property
    def version(self) -> int:
        """The version number."""
        return parse_id(self.env_id)[1] or 0

    def make(self, **kwargs: Any) -> Any:
        """Build the environment; ``kwargs`` override the registered defaults."""
        factory = self.entry_point
        if isinstance(factory, str):
            module, _, attr = factory.partition(":")
            factory = getattr(importlib.import_module(module), attr)
        return factory(**{**self.kwargs, **kwargs})


REGISTRY: dict[str, EnvSpec] = {}


def parse_id(env_id: str) -> tuple[str, int | None]:
    """``(name with namespace, version or None)`` of an id."""
    m = _ID.match(env_id)
    if m is None:
        raise ValueError(f"malformed environment id {env_id!r}; expected 'name-vN' or 'namespace/name-vN'")
    name = f"{m['ns']}/{m['name']}" if m["ns"] else m["name"]
    return name, int(m["version"]) if m["version"] is not None else None


def gym_id(env_id: str) -> str:
    """The Gymnasium id of an acworld id."""
    return env_id if "/" in env_id else f"{GYM_NAMESPACE}/{env_id}"


def register_env(env_id: str, entry_point: str | Callable[..., Any], *, kwargs: dict[str, Any] | None = None,
                 description: str = "", gym: bool = True, override: bool = False) -> EnvSpec:
    """Register ``env_id`` (``name-vN``). With ``gym=True`` also register the Gymnasium view."""
    _, version = parse_id(env_id)
    if version is None:
        raise ValueError(f"environment ids carry a version, e.g. '{env_id}-v1'")
    if env_id in REGISTRY and not override:
        raise ValueError(f"{env_id} is already registered (pass override=True to replace it)")
    spec = EnvSpec(env_id, entry_point, dict(kwargs or {}), description)
    REGISTRY[env_id] = spec
    if gym:
        _PENDING_GYM[gym_id(env_id)] = env_id
        if hasattr(sys.modules.get("gymnasium"), "register"):
            _register_pending_gym()
        elif not any(isinstance(f, _GymnasiumHook) for f in sys.meta_path):
            sys.meta_path.insert(0, _GymnasiumHook())
    return spec


_PENDING_GYM: dict[str, str] = {}
"""Gymnasium id -> acworld id, registered here but not yet in Gymnasium's registry."""


def _register_pending_gym() -> None:
    """Hand every waiting id to Gymnasium's registry (replacing an earlier entry of the same id)."""
    import gymnasium

    while _PENDING_GYM:
        gid, env_id = next(iter(_PENDING_GYM.items()))
        gymnasium.registry.pop(gid, None)
        gymnasium.register(id=gid, entry_point=GYM_ENTRY_POINT, kwargs={"env_id": env_id})
        del _PENDING_GYM[gid]


class _GymnasiumHook(importlib.abc.MetaPathFinder):
    """Registers the waiting Gymnasium ids right after ``gymnasium`` itself is imported, then leaves.

    It finds ``gymnasium`` with the finders after it on ``sys.meta_path`` and wraps only that
    module's loader, so ``import acworld_env`` costs no Gymnasium (and numpy) import while
    ``gymnasium.make("acworld/capability-v1")`` still works whenever Gymnasium comes in.
    """

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None) -> ModuleSpec | None:
        """The real spec of ``gymnasium`` with a loader that registers after executing it; None otherwise."""
        if fullname != "gymnasium":
            return None
        finders = sys.meta_path[sys.meta_path.index(self) + 1:] if self in sys.meta_path else []
        for finder in finders:
            spec = finder.find_spec(fullname, path, target) if hasattr(finder, "find_spec") else None
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _RegisterAfter(spec.loader, self)
                return spec
        return None


class _RegisterAfter(importlib.abc.Loader):
    """Loader wrapper: run the real loader, then register the waiting ids and remove the hook."""

    def __init__(self, loader: Any, hook: _GymnasiumHook) -> None:
        self.loader, self.hook = loader, hook

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        """As the real loader."""
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        """Execute ``gymnasium`` with the real loader (restored as its loader), then register."""
        module.__loader__ = self.loader
        if module.__spec__ is not None:
            module.__spec__.loader = self.loader
        self.loader.exec_module(module)
        if self.hook in sys.meta_path:
            sys.meta_path.remove(self.hook)
        _register_pending_gym()


def resolve(env_id: str) -> EnvSpec:
    """The spec of an id; an unversioned id resolves to its latest version."""
    if env_id.startswith(f"{GYM_NAMESPACE}/"):
        env_id = env_id[len(GYM_NAMESPACE) + 1:]
    if env_id in REGISTRY:
        return REGISTRY[env_id]
    name, version = parse_id(env_id)
    if version is None:
        versions = [s for s in REGISTRY.values() if s.family == name]
        if versions:
            return max(versions, key=lambda s: s.version)
    close = difflib.get_close_matches(env_id, list(REGISTRY), n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else f"; registered: {', '.join(list_envs())}"
    raise KeyError(f"unknown environment {env_id!r}{hint}")


def make(env_id: str, **kwargs: Any) -> Any:
    """Build a registered environment: a PettingZoo AEC env (with the order-enforcing wrapper).

    Keyword arguments of the built-in ids: ``split``, ``seed``, ``task_id``, ``task``, ``tasks``,
    ``counterparties`` ("scripted" or "agents"), ``reward`` ("potential", "terminal" or "success"), ``score``
    ("score" or "safe": the figure rewards pay), ``render_mode`` (None, "ansi", "human"), ``hints``, ``max_cycles``. See :mod:`acworld_env.envs.aec`;
    the same environments come from the versioned modules :mod:`acworld_env.envs.capability_v1`
    and :mod:`acworld_env.envs.demo_v1` (``env``, ``raw_env``, ``parallel_env``).
    ``transport="http"`` with ``url=...`` plays the same env on an ``acworld serve`` server
    (:mod:`acworld_env.remote.client`).
    """
    transport = kwargs.pop("transport", "local")
    if transport == "http":
        spec = resolve(env_id)
        return EnvSpec(spec.env_id, REMOTE_ENTRY_POINT, spec.kwargs).make(**kwargs)
    if transport != "local":
        raise ValueError(f"transport must be 'local' or 'http', not {transport!r}")
    return resolve(env_id).make(**kwargs)


def list_envs() -> list[str]:
    """Every registered id, sorted."""
    return sorted(REGISTRY)


register_env("capability-v1", "acworld_env.envs.aec:env",
             kwargs={"suite": "capability-v1", "name": "acworld_capability_v1"},
             description="Frozen capability track: one evaluated actor per task, scripted counterparties.")
register_env("large-catalog-v1", "acworld_env.envs.large_catalog_v1:env", kwargs={},
             description="Large-catalog track: 60 catalog tasks over large-v1 (785,022 listings); catalog=FILE for yours.")
register_env("demo-v1", "acworld_env.envs.aec:env", kwargs={"suite": "demo", "name": "acworld_demo_v1"},
             description="The demo negotiation: a $100 ceiling meets a $90 floor and settles at $95.")
register_env("market-v1", "acworld_env.open_market.env:env", gym=False,
             description="The open market: N Buyers x M Merchants as agents, welfare against the optimum.")
