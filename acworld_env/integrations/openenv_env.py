"""The acworld market as an OpenEnv ``Environment``: one session plays one actor of one episode.

Episodes live in a :class:`~acworld_env.remote.hosted.Host`, the class behind ``acworld serve``:
every action goes through the local env's ``step()`` (so ``Market.submit``), and what the
session's actor sees passes through :mod:`acworld_env.remote.views` (its own observation, info
and reward, never another actor's). OpenEnv's WebSocket session keeps one environment object per
connection; its plain-HTTP ``/reset`` and ``/step`` make a fresh object per request, so a reset
hands out the episode's credential as ``session`` and a plain-HTTP step names it (the actor
credential of the hosted episode: it acts only as that actor, in that episode).

``reset`` arguments: ``task_id`` (a task of the suite), or ``split`` + ``seed`` (task-generation
seed of the generated split) + ``index`` (the index-th task, of ``role`` if given); ``role``
(buyer or merchant: checked against the task); ``reward`` ("potential": the step rewards sum to
the task score; "terminal"); ``score`` ("score" or "safe"); ``hints``; ``suite`` (default: the
suite a ``task_id`` starts with, e.g. ``large-catalog-v1/...``, else capability-v1);
``episode_seed`` (default 0). Bad arguments are an observation with ``error``, never a 500.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from openenv.core.env_server.interfaces import Environment

from ..observe import render_text
from ..remote.hosted import Host, HostedEpisode, RemoteError
from ..remote.views import visible_info, visible_state, visible_summary
from ..vcp import openai_tools
from .openenv_models import RESET_KEYS, AcworldAction, AcworldObservation, AcworldState

WORK = threading.RLock()
"""One lock for every session's market work: steps are short and CPU-bound, so this costs no
throughput, and the market code never runs on two threads at once. Building an env (which may
generate a split's tasks for seconds) runs outside it, as the HTTP market server builds envs in a
worker thread while other episodes play."""
_HOST: Host | None = None
NAME = "acworld"
DESCRIPTION = ("Agentic Commerce World: buyers and merchants transact in one market; rewards and per-predicate "
               "credits from the verified trace.")


def package_version() -> str:
    """The installed acworld-env release (``0+unknown`` in a source tree that was never installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("acworld-env")
    except PackageNotFoundError:
        return "0+unknown"


def shared_host() -> Host:
    """The process's host of OpenEnv episodes (made on first use)."""
    global _HOST
    with WORK:
        if _HOST is None:
            _HOST = Host()
        return _HOST


def session_episode(host: Host, session: str, *, path: str) -> tuple[HostedEpisode, str]:
    """The episode and actor a reset's ``session`` credential names (:class:`RemoteError`
    ``unknown_credential`` for one that names none); ``path`` is recorded with a refusal."""
    episode_id = host.tokens.get(session, ("", ""))[0]
    actor = host.authorize(episode_id, session, path=path)
    return host.episode(episode_id), actor


def action_payload(action: AcworldAction | dict[str, Any]) -> tuple[str, Any]:
    """``("list_tools", None)`` or ``("act", payload)``: the VCP action the market is handed (a
    malformed one unchanged, for the market to reject with its code)."""
    if isinstance(action, AcworldAction):
        raw = {k: getattr(action, k) for k in action.model_fields_set if k != "metadata"}
        raw.update(action.model_extra or {})
    else:
        raw = dict(action)
    if "kind" in raw:
        return "act", raw
    if raw.get("type") == "list_tools":
        return "list_tools", None
    if raw.get("type") == "call_tool":
        return "act", _named_call(raw.get("tool_name"), raw.get("arguments"), raw)
    body = raw.get("function") if isinstance(raw.get("function"), dict) else raw  # OpenAI / Anthropic shapes
    if "name" in body:
        return "act", _named_call(body.get("name"), body.get("arguments", body.get("input")), raw)
    return "act", raw


def _named_call(name: Any, arguments: Any, raw: dict[str, Any]) -> Any:
    """A tool call's VCP action; arguments given as a JSON string are decoded (bad JSON is passed on
    as the string, which the market records as malformed JSON)."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError:
            return arguments
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        return raw
    return {**arguments, "kind": name}


class AcworldOpenEnv(Environment[AcworldAction, AcworldObservation, AcworldState]):
    """One OpenEnv session: resets start a hosted episode; steps act as its evaluated actor."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, host: Host | None = None) -> None:
        super().__init__()
        self.host = host or shared_host()
        self.episode: HostedEpisode | None = None
        self.actor: str | None = None

    # -- reset ----------------------------------------------------------------------
    def reset(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any) -> AcworldObservation:
        """Start an episode of the task the arguments name (see the module docstring)."""
        args = {k: v for k, v in {"seed": seed, **kwargs}.items() if k in RESET_KEYS and v is not None}
        with WORK:
            self._release()
        try:
            hosted = self.host.create_env(self._config(args))  # outside the lock: may generate a split for seconds
            with WORK:
                ep = self._start(hosted, args)
        except RemoteError as exc:
            return self._refusal(exc, done=True)
        except (KeyError, ValueError, TypeError) as exc:
            msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
            return self._refusal(RemoteError(422, "bad_reset", str(msg)[:500]), done=True)
        with WORK:
            self.episode = ep
            task = ep.env.task
            assert task is not None
            self.actor = task.actor
            return self._observe(ep, task.actor, reward=None, tools=True, session=ep.credentials[task.actor])

    @staticmethod
    def _config(args: dict[str, Any]) -> dict[str, Any]:
        from ..tasks.suites import SUITES

        prefix = str(args.get("task_id") or "").split("/", 1)[0]
        suite = args.get("suite") or (prefix if prefix in SUITES else "capability-v1")  # a task id names its suite
        config: dict[str, Any] = {"suite": suite, "split": args.get("split", "frozen"),
                                  "reward": args.get("reward", "potential"), "score": args.get("score", "score"),
                                  "hints": args.get("hints", "off")}
        if config["split"] == "generated":
            config["seed"] = int(args.get("seed", 0))
        return config

    def _start(self, hosted: Any, args: dict[str, Any]) -> HostedEpisode:
        try:
            task_id = args.get("task_id") or self._nth_task(hosted.env.tasks, args)
            task = hosted.env.task_by_id(task_id)
            role = args.get("role")
            actual = task.initial_state["actors"][task.actor]["role"]
            if role is not None and role != actual:
                raise ValueError(f"{task_id} is played by a {actual}, not a {role}")
            return self.host.reset(hosted, int(args.get("episode_seed", 0)), {"task_id": task_id})
        except Exception:
            self.host.drop_env(hosted)
            raise

    @staticmethod
    def _nth_task(tasks: list[Any], args: dict[str, Any]) -> str:
        role = args.get("role")
        pool = [t for t in tasks if role is None or t.initial_state["actors"][t.actor]["role"] == role]
        if not pool:
            raise ValueError(f"no {role} task in this split")
        return pool[int(args.get("index", 0)) % len(pool)].task_id

    # -- step -------------------------------------------------------------------------
    def step(self, action: AcworldAction, timeout_s: float | None = None, session: str | None = None,
             **kwargs: Any) -> AcworldObservation:
        """One action of the session's actor (or of the episode ``session`` names, over plain HTTP)."""
        with WORK:
            try:
                ep, actor = self._target(session)
            except RemoteError as exc:
                return self._refusal(exc, done=exc.status == 410)
            what, payload = action_payload(action)
            if what == "list_tools":
                return self._observe(ep, actor, reward=0.0, tools=True)
            if self._finished(ep, actor):
                over = RemoteError(410, "episode_over", "the episode is over; reset")
                return self._observe(ep, actor, reward=0.0, error=over)
            try:
                self.host.act(ep, actor, payload)
            except RemoteError as exc:
                return self._observe(ep, actor, reward=0.0, error=exc)
            return self._observe(ep, actor)

    def _target(self, session: str | None) -> tuple[HostedEpisode, str]:
        if session:
            return session_episode(self.host, session, path="openenv /step")
        if self.episode is None or self.actor is None:
            raise RemoteError(409, "no_episode", "reset first (a plain-HTTP step sends the reset's `session`)")
        return self.episode, self.actor

    @staticmethod
    def _finished(ep: HostedEpisode, actor: str) -> bool:
        env = ep.env
        return ep.summary is not None or actor not in env.agents or bool(env.terminations.get(actor)
                                                                         or env.truncations.get(actor))

    # -- observations -------------------------------------------------------------------
    def _observe(self, ep: HostedEpisode, actor: str, *, reward: float | None | str = "step", tools: bool = False,
                 session: str | None = None, error: RemoteError | None = None) -> AcworldObservation:
        """The actor's observation, through the one visibility rule (its own view, info and reward)."""
        with ep.lock:
            state = visible_state(self.host.snapshot(ep), actor)
            info = visible_info(state["infos"], actor).get(actor, {})
            done = self._finished(ep, actor)
            raw = self.host.observe(ep, actor) if ep.summary is None else {}
            summary = visible_summary(self.host.end(ep), actor) if done else None
        env = ep.env
        return AcworldObservation(
            done=done, reward=state["rewards"].get(actor, 0.0) if reward == "step" else reward,
            text=render_text(raw) if raw else "", observation=raw, task_id=info.get("task_id"), actor=actor,
            role=info.get("role"), step=int(info.get("step", 0)), validation=info.get("validation"),
            error=error.body()["error"] if error else None,
            score=float(info.get("score") or 0.0), safe_score=float(info.get("safe_score") or 0.0),
            credits={k: float(v) for k, v in (info.get("credits") or {}).items()},
            stages={k: float(v) for k, v in (info.get("stages") or {}).items()},
            critical_failed=list(info.get("critical_failed") or []), reward_mode=env.reward_mode,
            trace_digest=info.get("trace_digest"), tools=openai_tools(info["role"]) if tools else [],
            session=session, summary=summary)

    def _refusal(self, refusal: RemoteError, *, done: bool = False) -> AcworldObservation:
        """A refused request as an observation (the server's error body: code, message, status)."""
        return AcworldObservation(done=done, reward=0.0, error=refusal.body()["error"],
                                  text=f"refused ({refusal.code}): {refusal.message}")

    @property
    def state(self) -> AcworldState:
        """The session's episode: task, actor, steps, score (nothing of another actor)."""
        ep, actor = self.episode, self.actor
        if ep is None or actor is None:
            return AcworldState()
        with WORK, ep.lock:
            info = visible_info(ep.env.infos, actor).get(actor, {})
            return AcworldState(episode_id=ep.episode_id, step_count=int(info.get("step", 0)),
                                task_id=info.get("task_id"), actor=actor, role=info.get("role"),
                                score=float(info.get("score") or 0.0), done=self._finished(ep, actor),
                                reward_mode=ep.env.reward_mode)

    def get_metadata(self) -> Any:
        """The name, description and version OpenEnv's ``/metadata`` serves."""
        from openenv.core.env_server.types import EnvironmentMetadata

        return EnvironmentMetadata(name=NAME, version=package_version(), description=DESCRIPTION)

    # -- lifetime -------------------------------------------------------------------------
    def _release(self) -> None:
        """Forget this session's previous episode, and every hosted env whose episode has ended (an env
        another session is still starting has had no episode yet and stays)."""
        self.episode = self.actor = None
        for hosted in list(self.host.envs.values()):
            if hosted.current is None and hosted.episodes:
                self.host.drop_env(hosted)

    def close(self) -> None:
        """Drop the session's episode once it has ended (an open one stays for plain-HTTP steps until
        the host's idle timeout closes it)."""
        with WORK:
            ep = self.episode
            if ep is not None and ep.summary is not None:
                self.host.drop_env(ep.host_env)
