"""The HTTP market server: a FastAPI app over a :class:`~acworld_env.remote.hosted.Host`.

Routes (all JSON; errors are ``{"error": {"code", "message", "status"}}``)::

    POST   /v1/episodes                      create an env and start an episode (task id or generated seed)
    POST   /v1/envs                          create an env (same arguments as acworld_env.make)
    POST   /v1/envs/{env_id}/reset           start its next episode               (env credential)
    DELETE /v1/envs/{env_id}                 close it                             (env credential)
    GET    /v1/episodes/{id}                 status, AEC state, refused requests  (actor or env credential)
    GET    /v1/episodes/{id}/observation     the actor's observation              (actor credential)
    POST   /v1/episodes/{id}/actions         submit one VCP action                (actor credential)
    GET    /v1/episodes/{id}/result          the actor's last result, and the summary once ended
    POST   /v1/episodes/{id}/end             end it: scored, or unscored with the reason
    GET    /v1/episodes/{id}/state           the env's state() vector
    GET    /v1/episodes/{id}/transcript      the readable transcript
    GET    /v1/tools/{role}                  the role's VCP tools (JSON schemas)

With an admin credential (``acworld serve --token``, generated when binding beyond loopback), the
two routes that create envs and episodes ask for it as their bearer token; every other route is
governed by the env and actor credentials those routes hand out (the admin credential reads
every episode as its host). What each credential sees is :mod:`acworld_env.remote.views`'s
rule, applied by every route; ``docs/remote.md`` lists it route by route.

A route checks its credential from the headers before it reads a byte of the body, then reads
the body as a counted stream (:mod:`acworld_env.remote.bodies`): a request without a credential,
or with a body over the limit, costs the server no memory for its body. Endpoints are ``async``
and do their short, CPU-bound work inline (one episode's requests are serialised by its lock;
no thread hop per action); creating an env, which may generate a split's tasks for seconds, runs
in a worker thread so other episodes keep playing. Bound to loopback, the app answers only
loopback ``Host`` headers (:mod:`acworld_env.remote.gates`).
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import PlainTextResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..observe import render_text
from ..vcp import openai_tools
from .bodies import BODY_DONE, parse_json, parse_model, read_body
from .gates import HostGate
from .hosted import Host, HostedEpisode, RemoteError
from .protocol import (
    API_PREFIX,
    ENV_CREDENTIAL_HEADER,
    MAX_BODY_BYTES,
    MAX_CONFIG_BYTES,
    EnvConfig,
    EpisodeRequest,
    ResetRequest,
    action_schemas,
    parse_action_body,
    request_schemas,
)
from .records import bearer_of, check_admin, same_secret
from .views import (
    HOST,
    Viewer,
    visible_global_state,
    visible_info,
    visible_state,
    visible_summary,
    visible_transcript,
)

log = logging.getLogger(__name__)


def _json(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    body = json.dumps(data, separators=(",", ":"), default=str, allow_nan=False)
    return Response(body, status_code=status, media_type="application/json", headers=headers)


def _bearer(request: Request) -> str | None:
    return bearer_of(request.headers.get("authorization", ""))


def _body_pending(request: Request) -> bool:
    """Whether the request came with a body the route has not read (its connection is then closed)."""
    if request.scope.get(BODY_DONE):
        return False
    length = request.headers.get("content-length")
    return "transfer-encoding" in request.headers or (length is not None and length.strip() not in ("", "0"))


MAX_WAIT_S = 30.0
"""The longest ``GET /v1/episodes/{id}?wait=S`` holds a request."""
TURN_POLL_S = 0.002
"""How often a waiting status request looks at the episode (a step runs on the same event loop)."""


def wait_seconds(value: str | None) -> float:
    """The ``wait`` query parameter: seconds from 0 to :data:`MAX_WAIT_S` (a 422 otherwise); 0 when absent."""
    if value is None:
        return 0.0
    try:
        wait = float(value)
    except ValueError:
        wait = -1.0
    if not 0.0 <= wait <= MAX_WAIT_S:
        raise RemoteError(422, "bad_request", f"wait must be a number of seconds from 0 to {MAX_WAIT_S:g}, not {value[:40]!r}")
    return wait


def turn_ready(ep: HostedEpisode, actor: str) -> bool:
    """Whether a request waiting on ``actor``'s turn may be answered: its turn, it is out, or the episode ended."""
    env = ep.env
    return ep.summary is not None or actor not in env.agents or env.agent_selection == actor


def _body_ref(name: str) -> dict[str, Any]:
    return {"requestBody": {"required": False, "content": {"application/json": {
        "schema": {"$ref": f"#/components/schemas/{name}"}}}}}


def create_app(host: Host | None = None, *, admin_token: str | None = None, bind: str = "127.0.0.1") -> FastAPI:
    """The ASGI application serving ``host`` (a fresh :class:`Host` by default).

    ``admin_token``: when given, creating an env or an episode needs it as the bearer credential
    (401 ``missing_credential`` without one, 401 ``unknown_credential`` with another), and it reads
    every episode as its host. ``bind``: the interface the server listens on; on a loopback one,
    requests must name a loopback ``Host`` (421 otherwise).
    """
    host = host or Host()
    app = FastAPI(title="acworld market server", version="1",
                  description="Episodes of any acworld suite, played over HTTP with per-actor bearer credentials. "
                              "Every action goes through Market.submit, as in a local run.")
    app.state.host = host

    @app.exception_handler(RemoteError)
    async def _refused(request: Request, exc: RemoteError) -> Response:
        headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else {}
        if _body_pending(request):
            headers["Connection"] = "close"  # never read (nor wait for) a refused request's body
        return _json(exc.body(), exc.status, headers)

    @app.exception_handler(StarletteHTTPException)
    async def _no_route(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 404:
            refusal = RemoteError(404, "unknown_route", f"no route {request.method} {request.url.path[:200]}")
        elif exc.status_code == 405:
            refusal = RemoteError(405, "method_not_allowed", f"{request.method} is not allowed on this route")
        else:
            refusal = RemoteError(exc.status_code, "http_error", str(exc.detail)[:300])
        return await _refused(request, refusal)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> Response:
        first = exc.errors()[0] if exc.errors() else {"loc": (), "msg": "invalid request"}
        where = ".".join(str(p) for p in first.get("loc", ())[1:]) or "body"
        return _json(RemoteError(422, "bad_request", f"{where}: {first.get('msg')}").body(), 422)

    @app.exception_handler(Exception)
    async def _crash(request: Request, exc: Exception) -> Response:
        log.exception("request %s %s failed", request.method, request.url.path)
        # The type only: a message may name server paths or state the client has no business reading.
        return _json(RemoteError(500, "server_error", f"the server failed ({type(exc).__name__}); "
                                                      "see its log").body(), 500, {"Connection": "close"})

    def admit(request: Request) -> None:
        """Refuse a creation request without the admin credential (when the server has one)."""
        check_admin(_bearer(request), admin_token, what="creating envs and episodes on this server")

    def viewer_of(episode_id: str, request: Request) -> tuple[HostedEpisode, Viewer]:
        """The episode and who reads it: :data:`HOST` for its env's or the admin credential, else the actor."""
        host.reap(every=1.0)
        ep, bearer = host.episodes.get(episode_id), _bearer(request)
        if ep is not None and (same_secret(bearer, ep.host_env.token) or same_secret(bearer, admin_token)):
            return ep, HOST
        actor = host.authorize(episode_id, bearer, request.url.path)
        return host.episode(episode_id), actor

    def actor_of(episode_id: str, request: Request) -> tuple[HostedEpisode, str]:
        host.reap(every=1.0)
        actor = host.authorize(episode_id, _bearer(request), request.url.path)
        return host.episode(episode_id), actor

    def started(ep: HostedEpisode, **extra: Any) -> dict[str, Any]:
        env = ep.env
        roles = {a: env.task.initial_state["actors"][a]["role"] for a in env.agents} if env.task else {}
        return {**extra, "episode_id": ep.episode_id, "credentials": ep.credentials, "roles": roles,
                "state": visible_state(host.snapshot(ep, observe=True), HOST)}  # to the env's creator

    async def config_of(request: Request, model: type[EnvConfig]) -> dict[str, Any]:
        data = parse_model(model, parse_json(await read_body(request, MAX_CONFIG_BYTES)))
        return data.model_dump(exclude_unset=True)

    @app.get(f"{API_PREFIX}/health")
    async def health() -> dict[str, Any]:
        """Liveness and counts."""
        return {"ok": True, "envs": len(host.envs), "episodes": len(host.episodes)}

    @app.post(f"{API_PREFIX}/envs", status_code=201, openapi_extra=_body_ref("EnvConfig"))
    async def create_env(request: Request) -> Response:
        """Create an env (not started): its id, credential, possible agents and their roles."""
        admit(request)
        config = await config_of(request, EnvConfig)
        hosted = await asyncio.to_thread(host.create_env, config)
        env = hosted.env
        return _json({"env_id": hosted.env_id, "env_token": hosted.token, "possible_agents": env.possible_agents,
                      "roles": dict(env._role_hint), "name": env.metadata["name"], "tasks": len(env.tasks)}, 201)

    @app.post(f"{API_PREFIX}/envs/{{env_id}}/reset", status_code=201, openapi_extra=_body_ref("ResetRequest"))
    async def reset(env_id: str, request: Request) -> Response:
        """Start the env's next episode: fresh credentials, one per actor, and the first state."""
        hosted = host.env_for(env_id, _bearer(request))
        body = parse_model(ResetRequest, parse_json(await read_body(request, MAX_CONFIG_BYTES)))
        ep = host.reset(hosted, body.seed, body.options)
        return _json(started(ep), 201)

    @app.delete(f"{API_PREFIX}/envs/{{env_id}}")
    async def drop_env(env_id: str, request: Request) -> Response:
        """Close an env (its open episode ends unscored) and forget its credentials."""
        host.drop_env(host.env_for(env_id, _bearer(request)))
        return _json({"closed": env_id})

    @app.post(f"{API_PREFIX}/episodes", status_code=201, openapi_extra=_body_ref("EpisodeRequest"))
    async def create_episode(request: Request) -> Response:
        """Create an env and start one episode: ``task_id`` (a frozen task) or ``split=generated`` with ``seed``."""
        admit(request)
        config = await config_of(request, EpisodeRequest)
        seed = config.pop("episode_seed", None)
        hosted = await asyncio.to_thread(host.create_env, config)
        ep = host.reset(hosted, 0 if seed is None else seed, None)
        return _json(started(ep, env_id=hosted.env_id, env_token=hosted.token), 201)

    @app.get(f"{API_PREFIX}/episodes/{{episode_id}}")
    async def status(episode_id: str, request: Request) -> Response:
        """The episode's AEC state (as the credential may see it), status and refused requests.

        ``?wait=S`` (an actor credential, at most 30 s): answer once it is the actor's turn, the actor is out
        of the episode, or the episode has ended, or after ``S`` seconds, whichever comes first (a process
        playing one actor waits for its turn with one request instead of polling).
        """
        ep, viewer = viewer_of(episode_id, request)
        wait = wait_seconds(request.query_params.get("wait"))
        if wait and viewer is not HOST:
            deadline = asyncio.get_running_loop().time() + wait
            while not turn_ready(ep, viewer) and asyncio.get_running_loop().time() < deadline:
                await asyncio.sleep(TURN_POLL_S)
        state = visible_state(host.snapshot(ep), viewer)
        return _json({**state, "actor": viewer, "reason": ep.reason, "summary": visible_summary(ep.summary, viewer),
                      "audit": ep.audit})

    @app.get(f"{API_PREFIX}/episodes/{{episode_id}}/observation")
    async def observation(episode_id: str, request: Request) -> Response:
        """Your actor's role-private observation (structured, and as text)."""
        ep, actor = actor_of(episode_id, request)
        raw = host.observe(ep, actor)
        return _json({"actor": actor, "raw": raw, "text": render_text(raw)})

    @app.post(f"{API_PREFIX}/episodes/{{episode_id}}/actions",
              openapi_extra={"requestBody": {"required": True, "content": {"application/json": {
                  "schema": {"$ref": "#/components/schemas/ActionRequest"}}}}})
    async def act(episode_id: str, request: Request) -> Response:
        """Submit one VCP action as your actor. ``Idempotency-Key``: a retry gets the stored reply, nothing new runs.

        The reply holds your info only; with the env's credential in ``X-Env-Credential`` as well
        (the env's creator, e.g. the client env), every agent's.
        """
        ep, actor = actor_of(episode_id, request)  # from the headers, before any of the body is read
        viewer: Viewer = actor
        env_credential = request.headers.get(ENV_CREDENTIAL_HEADER)
        if env_credential is not None:
            if not same_secret(env_credential, ep.host_env.token):
                raise RemoteError(403, "wrong_credential", f"{ENV_CREDENTIAL_HEADER} is not this episode's env credential")
            viewer = HOST
        data = parse_action_body(await read_body(request, MAX_BODY_BYTES))
        if data.get("actor") is not None:
            host.authorize(episode_id, _bearer(request), request.url.path, data["actor"])
        key = request.headers.get("idempotency-key")
        if host.step_delay and (actor, key) not in ep.replies:  # test hook: a slow step (a stored reply is not)
            await asyncio.sleep(host.step_delay)
        reply = host.act(ep, actor, data["action"], meta=data.get("meta"), seen=data.get("seen"),
                         key=key, observe=bool(data.get("observe")))
        return _json(visible_state(reply, viewer), headers={"Idempotent-Replay": "true"} if reply["replayed"] else None)

    @app.get(f"{API_PREFIX}/episodes/{{episode_id}}/result")
    async def result(episode_id: str, request: Request) -> Response:
        """Your last action's result (validation), and the episode summary once it has ended."""
        ep, actor = actor_of(episode_id, request)
        info = visible_info(ep.env.infos, actor).get(actor) or {}
        return _json({"actor": actor, "status": ep.status, "validation": info.get("validation"),
                      "score": info.get("score"), "summary": visible_summary(ep.summary, actor)})

    @app.post(f"{API_PREFIX}/episodes/{{episode_id}}/end")
    async def end(episode_id: str, request: Request) -> Response:
        """End the episode: scored when the evaluated actor is done, else unscored with the reason."""
        ep, viewer = viewer_of(episode_id, request)
        return _json(visible_summary(host.end(ep), viewer))

    @app.get(f"{API_PREFIX}/episodes/{{episode_id}}/state")
    async def global_state(episode_id: str, request: Request) -> Response:
        """The env's ``state()`` vector (for centralised critics: every actor's balance and inbox), host only."""
        ep, viewer = viewer_of(episode_id, request)
        vector = visible_global_state(ep.env, viewer)
        if vector is None:
            raise RemoteError(403, "host_only", "the global state holds every actor's figures; "
                                                "it needs the env's (or the admin) credential")
        return _json({"state": vector})

    @app.get(f"{API_PREFIX}/episodes/{{episode_id}}/transcript", response_class=PlainTextResponse)
    async def transcript(episode_id: str, request: Request) -> str:
        """The readable transcript as the credential may see it (an actor: its own lines and its deliveries)."""
        ep, viewer = viewer_of(episode_id, request)
        with ep.lock:
            return "\n".join(visible_transcript(ep.env.episode.market if ep.env.episode else None, viewer))

    @app.get(f"{API_PREFIX}/tools/{{role}}")
    async def tools(role: str) -> Response:
        """The role's VCP tools as OpenAI-style function schemas (the same the LLM view shows)."""
        if role not in ("buyer", "merchant"):
            raise RemoteError(404, "unknown_role", f"no role {role!r}; buyer or merchant")
        return _json(openai_tools(role))

    _openapi = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = _openapi()
            components = schema.setdefault("components", {}).setdefault("schemas", {})
            components.update(action_schemas())
            components.update(request_schemas())
            schema["components"]["securitySchemes"] = {"bearer": {"type": "http", "scheme": "bearer"}}
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    app.add_middleware(HostGate, bind=bind)
    return app

