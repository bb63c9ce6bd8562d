"""Episodes hosted for remote agents: per-actor credentials, turns, retries, idle closing.

A :class:`Host` keeps environments (an :class:`~acworld_env.envs.aec.AcworldAECEnv` each, the very
class a local run uses) and the episodes started in them. Every action goes through the env's
``step()``, so through ``Episode.act`` and ``Market.submit``: a remote run commits exactly what a
local run would. Transport concerns live here, outside the market: who holds which credential,
whose turn it is, a retried request answered from its stored reply, an idle episode closed.
Nothing here touches FastAPI; the HTTP app and the MCP server both call it.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import secrets
import threading
import time
from pathlib import Path
from typing import Any

from ..envs.aec import AcworldAECEnv
from ..observe import with_hints
from .records import HostedEnv, HostedEpisode, RemoteError, same_secret
from .taskdata import ServerCatalogs, task_from_data, tasks_from_data

__all__ = ["Host", "HostedEnv", "HostedEpisode", "RemoteError"]

ENV_KEYS = ("suite", "split", "seed", "tasks", "task_id", "task", "counterparties", "reward", "score", "hints",
            "max_cycles", "name", "catalog")
"""Constructor arguments of the env a client may set."""
MAX_REPLIES = 256
"""Stored replies per episode for retried requests (the oldest are forgotten first)."""


class Host:
    """Every environment and episode of one server, with their credentials."""

    def __init__(self, *, runs_dir: str | Path | None = None, idle_timeout: float = 900.0,
                 max_envs: int = 1024, step_delay: float = 0.0, catalogs: ServerCatalogs | None = None) -> None:
        self.runs_dir = Path(runs_dir) if runs_dir else None
        self.idle_timeout, self.max_envs = idle_timeout, max_envs
        self.envs: dict[str, HostedEnv] = {}
        self.episodes: dict[str, HostedEpisode] = {}
        self.tokens: dict[str, tuple[str, str]] = {}
        """Credential -> (episode id, actor)."""
        self.audit: list[dict[str, Any]] = []
        """Refused credentials that named no known episode."""
        self.step_delay = step_delay
        """Seconds the HTTP app waits before each step (a test hook: time a client out mid-request)."""
        self._lock = threading.Lock()
        self._reaped = 0.0
        self._suites: dict[tuple[str, str, int], list[Any]] = {}
        self._loading: dict[tuple[str, str, int], threading.Lock] = {}
        """One lock per suite being loaded: two requests for the same generated split generate it once."""
        self.catalogs = catalogs or ServerCatalogs()
        """The catalogs clients may name (see :mod:`acworld_env.remote.taskdata`)."""

    # -- environments and episodes ----------------------------------------------
    def create_env(self, config: dict[str, Any]) -> HostedEnv:
        """Build an env from ``config`` (keys of :data:`ENV_KEYS`); bad arguments are a 422.

        Generating a split's tasks can take seconds: the HTTP app calls this in a worker thread.
        """
        unknown = sorted(set(config) - set(ENV_KEYS))
        if unknown:
            raise RemoteError(422, "bad_config", f"unknown env argument(s) {unknown}; allowed: {list(ENV_KEYS)}")
        self.reap()
        if len(self.envs) >= self.max_envs:
            for idle in [h for h in self.envs.values() if h.current is None][: len(self.envs) - self.max_envs + 1]:
                self.drop_env(idle)  # ended episodes are kept until the room is needed, oldest first
        if len(self.envs) >= self.max_envs:
            raise RemoteError(503, "server_full", f"{self.max_envs} environments have open episodes; end some first")
        config = self._client_tasks({k: v for k, v in config.items() if v is not None})
        try:
            env = AcworldAECEnv(**self._with_tasks(config))
        except (KeyError, ValueError, TypeError) as exc:
            msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
            raise RemoteError(422, "bad_config", str(msg)[:500]) from None
        hosted = HostedEnv(f"env-{secrets.token_hex(6)}", env, secrets.token_urlsafe(24))
        with self._lock:
            self.envs[hosted.env_id] = hosted
        return hosted

    def _client_tasks(self, config: dict[str, Any]) -> dict[str, Any]:
        """``config`` with a client's tasks validated as TaskSpecs and its catalog among the offered ones."""
        config = dict(config)
        if config.get("tasks") is not None and not isinstance(config["tasks"], str):
            config["tasks"] = tasks_from_data(config["tasks"], "tasks", self.catalogs)
        if config.get("task") is not None:
            config["task"] = task_from_data(config["task"], "task", self.catalogs)
        name = config.pop("catalog", None)
        if name is not None:
            path = self.catalogs.path_of(name, "catalog")
            if config.get("tasks") is None or isinstance(config["tasks"], str):
                from ..tasks.large.suite import SUITE, build_over_file

                seed = int(config.get("seed") or 0)
                built = self._cached((f"catalog:{name}", "generated", seed),
                                     lambda: build_over_file(path, seed=seed, frozen=False))
                glob = config.get("tasks")
                config["tasks"] = built if glob is None else [t for t in built if fnmatch.fnmatch(t.task_id, glob)]
                config["suite"], config["split"] = SUITE, "generated"
        return config

    def _with_tasks(self, config: dict[str, Any]) -> dict[str, Any]:
        """``config`` with its suite's tasks loaded once per server (a suite file takes ~0.1 s to read).

        The env gets the same task list, in the same order, as it would load itself (a glob in
        ``tasks`` filters it the same way), so walks, ids and possible agents are unchanged.
        """
        if config.get("tasks") is not None and not isinstance(config["tasks"], str):
            return config
        from ..tasks.suites import load_suite

        key = (config.get("suite", "capability-v1"), config.get("split", "frozen"), config.get("seed") or 0)
        tasks = self._cached(key, lambda: load_suite(*key))
        glob = config.get("tasks")
        return {**config, "tasks": tasks if glob is None else [t for t in tasks if fnmatch.fnmatch(t.task_id, glob)]}

    def _cached(self, key: tuple[str, str, int], build: Any) -> list[Any]:
        """The task list under ``key``, built once per server (a second request for it waits for the first)."""
        with self._lock:
            loading = self._loading.setdefault(key, threading.Lock())
        with loading:
            with self._lock:
                tasks = self._suites.get(key)
            if tasks is None:
                tasks = build()
                with self._lock:
                    self._suites[key] = tasks
                    while len(self._suites) > 8:
                        oldest = next(iter(self._suites))
                        self._suites.pop(oldest)
                        self._loading.pop(oldest, None)
        return tasks

    def env_for(self, env_id: str, bearer: str | None) -> HostedEnv:
        """The env ``env_id`` if ``bearer`` is its credential (401 without, 403 with another)."""
        hosted = self.envs.get(env_id)
        if hosted is None:
            raise RemoteError(404, "unknown_env", f"no environment {env_id!r} on this server")
        if not bearer:
            raise RemoteError(401, "missing_credential", "send the env's credential as 'Authorization: Bearer ...'")
        if not same_secret(bearer, hosted.token):
            raise RemoteError(403, "wrong_credential", f"that credential is not {env_id}'s")
        return hosted

    def reset(self, hosted: HostedEnv, seed: int | None, options: dict[str, Any] | None) -> HostedEpisode:
        """Start the env's next episode (closing an open one as unscored) with fresh actor credentials."""
        if hosted.current is not None:
            self.close(self.episodes[hosted.current], "reset before the episode ended")
        if options and options.get("task") is not None:
            options = {**options, "task": task_from_data(options["task"], "options.task", self.catalogs)}
        try:
            hosted.env.reset(seed=seed, options=options)
        except (KeyError, ValueError, TypeError) as exc:
            msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
            raise RemoteError(422, "bad_reset", str(msg)[:500]) from None
        hosted.episodes += 1
        eid = f"{hosted.env_id}-{hosted.episodes}"
        creds = {a: secrets.token_urlsafe(24) for a in hosted.env.agents}
        episode = HostedEpisode(eid, hosted, creds)
        with self._lock:
            self.episodes[eid] = episode
            self.tokens.update({tok: (eid, a) for a, tok in creds.items()})
        hosted.current = eid
        return episode

    def episode(self, episode_id: str) -> HostedEpisode:
        """An episode by id (404 when there is none)."""
        ep = self.episodes.get(episode_id)
        if ep is None:
            raise RemoteError(404, "unknown_episode", f"no episode {episode_id!r} on this server")
        return ep

    # -- credentials ------------------------------------------------------------
    def authorize(self, episode_id: str, bearer: str | None, path: str = "", claimed: str | None = None) -> str:
        """The actor ``bearer`` stands for in ``episode_id``; a refusal is recorded and raised.

        Missing or unknown credential: 401. A credential of another episode, or of another actor
        than the one the request claims to act as: 403. The World is never touched.
        """
        ep = self.episodes.get(episode_id)
        found = self._holder(bearer)
        refusal: RemoteError | None = None
        if not bearer:
            refusal = RemoteError(401, "missing_credential", "send your actor's credential as 'Authorization: Bearer ...'")
        elif found is None:
            refusal = RemoteError(401, "unknown_credential", "that credential belongs to no actor of this server")
        elif ep is None:
            refusal = RemoteError(404, "unknown_episode", f"no episode {episode_id!r} on this server")
        elif found[0] != episode_id:
            refusal = RemoteError(403, "other_episode", f"that credential is for episode {found[0]}, not {episode_id}")
        elif claimed is not None and claimed != found[1]:
            refusal = RemoteError(403, "wrong_actor", f"that credential acts only as {found[1]}, not as {claimed}")
        if refusal is None:
            assert found is not None
            return found[1]
        entry = {"time": time.time(), "path": path, "status": refusal.status, "code": refusal.code,
                 "claimed": claimed, "as": found[1] if found else None}
        (ep.audit if ep is not None else self.audit).append(entry)
        raise refusal

    def _holder(self, bearer: str | None) -> tuple[str, str] | None:
        """``(episode id, actor)`` of an actor credential, or None.

        The dict finds the candidate by the token's hash (keyed per process, so its timing says
        nothing usable about the token's characters); the candidate is then confirmed with a
        constant-time comparison, never ``==`` on the secret.
        """
        found = self.tokens.get(bearer or "")
        if found is None:
            return None
        ep = self.episodes.get(found[0])
        return found if ep is not None and same_secret(bearer, ep.credentials.get(found[1])) else None

    # -- acting -------------------------------------------------------------------
    def observe(self, ep: HostedEpisode, actor: str) -> dict[str, Any]:
        """The actor's structured observation (the local env's ``raw_observation``: it counts as seen)."""
        with ep.lock:
            self._touch(ep)
            return ep.env.raw_observation(actor)

    def act(self, ep: HostedEpisode, actor: str, action: Any, *, meta: dict[str, Any] | None = None,
            seen: int | None = None, key: str | None = None, observe: bool = False) -> dict[str, Any]:
        """Step the env with ``actor``'s action; the reply is the AEC state after it.

        ``key`` (the request's ``Idempotency-Key``, scoped to ``actor``: another actor's same key is
        a fresh request): a retry with the same key and body gets the stored reply and steps
        nothing; the same key with another body is a 409. The reply is the host's view of the
        state (every agent's info): a transport passes it through
        :func:`~acworld_env.remote.views.visible_state` for its caller. ``seen``: how many
        inbox messages the observation the actor acted on showed (default: what the last
        :meth:`observe` showed, as locally). ``observe``: add the next agent's observation (when it
        is ``actor``), counted as seen only if the actor acts on it with ``seen``.
        """
        body_hash = hashlib.sha256(json.dumps([action, meta, seen], sort_keys=True, default=str).encode()).hexdigest()
        scoped = (actor, key) if key is not None else None
        with ep.lock:
            if scoped is not None and scoped in ep.replies:
                old_hash, reply = ep.replies[scoped]
                if old_hash != body_hash:
                    raise RemoteError(409, "idempotency_conflict",
                                      f"Idempotency-Key {key!r} was used for a different request")
                return {**reply, "replayed": True}
            self._check_open(ep)
            self._touch(ep)
            env = ep.env
            if actor != env.agent_selection:
                raise RemoteError(409, "not_your_turn", f"it is {env.agent_selection}'s turn, not {actor}'s")
            if seen is not None:
                env._seen[actor] = seen  # the observation the client acted on (see the docstring)
            if meta:
                env.annotate(meta)
            try:
                env.step(action)
            except Exception as exc:  # a bug, not the agent's doing: the episode cannot be trusted any more
                self.close(ep, f"server error during a step: {type(exc).__name__}: {str(exc)[:200]}")
                raise RemoteError(500, "step_failed", f"the step failed on the server ({type(exc).__name__}); "
                                                      f"episode {ep.episode_id} is closed unscored") from None
            reply = self.snapshot(ep, observe=observe and env.agent_selection == actor)
            if scoped is not None:
                ep.replies[scoped] = (body_hash, reply)
                while len(ep.replies) > MAX_REPLIES:
                    ep.replies.pop(next(iter(ep.replies)))
            return {**reply, "replayed": False}

    def snapshot(self, ep: HostedEpisode, *, observe: bool = False) -> dict[str, Any]:
        """The AEC state of the episode, every agent's entries (the host's view; a transport serves
        :func:`~acworld_env.remote.views.visible_state` of it for its caller's credential)."""
        env = ep.env
        out: dict[str, Any] = {
            "episode_id": ep.episode_id, "status": ep.status, "task_id": env.task.task_id if env.task else None,
            "agents": list(env.agents), "agent_selection": env.agent_selection, "rewards": dict(env.rewards),
            "cumulative_rewards": dict(env._cumulative_rewards), "terminations": dict(env.terminations),
            "truncations": dict(env.truncations), "infos": env.infos, "possible_agents": list(env.possible_agents),
            "version": env.version, "done": not env.agents,
        }
        if observe and env.agents and env.episode is not None:
            agent = env.agent_selection
            out["observation"] = {"agent": agent, "raw": with_hints(env.episode.observe(agent), env.task, env.hints)}
        return out

    # -- ending -------------------------------------------------------------------
    def end(self, ep: HostedEpisode, reason: str = "ended by the client before the evaluated actor was done") -> dict:
        """Close the episode: scored if the evaluated actor is done, else unscored with ``reason``."""
        with ep.lock:
            if ep.summary is None:
                env = ep.env
                done = env.task is not None and env.task.actor not in [a for a in env.agents
                                                                       if not (env.terminations[a] or env.truncations[a])]
                self.close(ep, "" if done else reason, scored=done)
            assert ep.summary is not None
            return ep.summary

    def close(self, ep: HostedEpisode, reason: str, *, scored: bool = False) -> None:
        """Mark the episode ended (``scored``, or ``unscored`` with ``reason``) and write its run if asked."""
        with ep.lock:
            if ep.summary is not None:
                return
            env, market = ep.env, ep.env.episode.market if ep.env.episode else None
            ep.status, ep.reason = ("scored", "") if scored else ("unscored", reason)
            score = env.score
            summary: dict[str, Any] = {
                "episode_id": ep.episode_id, "task_id": env.task.task_id if env.task else None, "status": ep.status,
                "reason": ep.reason, "episode_seed": env.episode_seed,
                "score": score.score if score is not None and scored else None,
                "safe_score": score.safe_score if score is not None and scored else None,
                "critical_failed": list(score.critical_failed) if score is not None and scored else None,
                "full_credit": bool(score.full_credit) if score is not None and scored else None,
                "trace_digest": market.trace.digest if market else None,
                "event_digest": market.world.event_digest if market else None,
                "state_digest": market.world.state_digest() if market else None,
                "records": len(market.trace.records) if market else 0, "run_dir": None,
                "refused_requests": list(ep.audit),
            }
            sides = self._sides(ep) if scored else None
            if sides is not None:  # every actor an agent: each side's own score, and the deal
                summary.update(side_scores={a: s["score"] for a, s in sides["scores"].items()},
                               deal=sides["deal"], price=sides["price"])
            if scored and self.runs_dir is not None and market is not None and score is not None and env.task:
                from ..scoring import save_task_run

                extra: dict[str, Any] = {}
                if sides is not None:
                    extra = {"counterparties": env.counterparties, "agents": dict(sides["roles"])}
                path = save_task_run(market, env.task, score, self.runs_dir / ep.episode_id, seed=env.episode_seed,
                                     **extra)
                if sides is not None:
                    from ..scoring.sides import write_sides

                    write_sides(path, sides)
                summary["run_dir"] = str(path)
            ep.summary = summary
            if ep.host_env.current == ep.episode_id:
                ep.host_env.current = None

    @staticmethod
    def _sides(ep: HostedEpisode) -> dict[str, Any] | None:
        """``sides.json``'s content for an episode with every actor an agent (None otherwise)."""
        env = ep.env
        if env.counterparties != "agents" or env.task is None or env.episode is None:
            return None
        from ..scoring.sides import sides_doc

        market = env.episode.market
        return sides_doc(env.task, market.trace.records, market.world.state)

    def drop_env(self, hosted: HostedEnv) -> None:
        """Forget an env and its episodes' credentials (after closing its open episode)."""
        if hosted.current is not None:
            self.end(self.episodes[hosted.current], "the client closed the env")
        with self._lock:
            self.envs.pop(hosted.env_id, None)
            for eid in [e for e, ep in self.episodes.items() if ep.host_env is hosted]:
                for tok in self.episodes.pop(eid).credentials.values():
                    self.tokens.pop(tok, None)

    def reap(self, *, every: float = 0.0) -> None:
        """Close episodes idle longer than ``idle_timeout`` as unscored (the client went away).

        ``every``: skip the sweep when the last one is more recent than this many seconds.
        """
        now = time.monotonic()
        if now - self._reaped < every:
            return
        self._reaped = now
        for ep in list(self.episodes.values()):
            if ep.summary is None and now - ep.last_seen > self.idle_timeout:
                self.close(ep, f"abandoned: no request for {self.idle_timeout:g} s (client disconnected?)")

    def _touch(self, ep: HostedEpisode) -> None:
        ep.last_seen = time.monotonic()

    def _check_open(self, ep: HostedEpisode) -> None:
        if ep.summary is not None:
            why = f": {ep.reason}" if ep.reason else ""
            raise RemoteError(410, "episode_closed", f"episode {ep.episode_id} is closed ({ep.status}{why})")
