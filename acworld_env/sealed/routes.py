"""The sealed round's HTTP API (FastAPI), served by ``acworld serve --sealed``.

Routes (JSON; errors are ``{"error": {"code", "message", "status"}}`` as on the market server)::

    GET  /v1/sealed/round                           the commitment, the public key, the slots   (public)
    GET  /v1/sealed/public_key                      the host's Ed25519 public key (PEM)        (public)
    POST /v1/sealed/submissions                     open (or resume) your submission: {"policy": LABEL}
    GET  /v1/sealed/submissions/current             your open submission: slot states (new, open, ended)
    POST /v1/sealed/submissions/current/close       close it: the signed result (again: the same result)
    GET  /v1/sealed/submissions/last                your last closed submission's signed result
    POST /v1/sealed/episodes                        open a slot's episode: {"slot": "slot-001"}
    GET  /v1/sealed/episodes/{id}/observation       your actor's observation (structured and text)
    POST /v1/sealed/episodes/{id}/actions           one VCP action (Idempotency-Key: a retry runs nothing)
    POST /v1/sealed/episodes/{id}/end               end it: scored or unscored (no score)
    GET  /v1/tools/{role}                           the role's VCP tools                        (public)

Every other route needs the participant token as the bearer credential, is rate-limited per
participant (429 ``rate_limited`` with ``Retry-After``), and acts only as the evaluated actor of
that participant's own episodes. What an episode route returns is the actor's view
(:func:`acworld_env.remote.views.visible_state`) narrowed by :mod:`.view`: no task id, spec,
reference, counterparty mandate, rubric, predicate, reward or score. A failure's message names
the exception type only.
"""

from __future__ import annotations

import json
import logging
import math
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..observe import render_text
from ..remote.bodies import parse_json, read_body
from ..remote.gates import HostGate
from ..remote.protocol import parse_action_body
from ..remote.records import RemoteError, bearer_of
from ..vcp import openai_tools
from .host import RateLimited, SealedHost
from .keys import key_id, public_pem
from .view import sealed_end, sealed_state

log = logging.getLogger(__name__)
PREFIX = "/v1/sealed"
MAX_SMALL_BODY = 4096
MAX_ACTION_BODY = 81_920


def _json(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    body = json.dumps(data, separators=(",", ":"), allow_nan=False)
    return Response(body, status_code=status, media_type="application/json", headers=headers)


def create_sealed_app(sealed: SealedHost, *, bind: str = "127.0.0.1") -> FastAPI:
    """The ASGI app of a sealed round (see the module docstring)."""
    app = FastAPI(title="acworld sealed evaluation", version="1",
                  description="A hosted test split: play its tasks with your participant token; results are signed.")
    app.state.sealed = sealed
    pem = public_pem(sealed.key)

    @app.exception_handler(RemoteError)
    async def _refused(request: Request, exc: RemoteError) -> Response:
        headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else {}
        if isinstance(exc, RateLimited):
            headers["Retry-After"] = str(max(1, math.ceil(exc.wait)))
        return _json(exc.body(), exc.status, headers)

    @app.exception_handler(StarletteHTTPException)
    async def _no_route(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 404:
            return _json(RemoteError(404, "unknown_route", f"no route {request.method} "
                                     f"{request.url.path[:200]}").body(), 404)
        if exc.status_code == 405:
            return _json(RemoteError(405, "method_not_allowed", "that method is not allowed here").body(), 405)
        return _json(RemoteError(exc.status_code, "http_error", "request refused").body(), exc.status_code)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> Response:
        return _json(RemoteError(422, "bad_request", "the request does not have the expected shape").body(), 422)

    @app.exception_handler(Exception)
    async def _crash(request: Request, exc: Exception) -> Response:
        log.error("request %s %s failed: %s", request.method, request.url.path, type(exc).__name__)
        return _json(RemoteError(500, "server_error", f"the server failed ({type(exc).__name__})").body(), 500,
                     {"Connection": "close"})

    def who(request: Request) -> str:
        return sealed.participant(bearer_of(request.headers.get("authorization", "")))

    async def small_body(request: Request) -> dict[str, Any]:
        data = parse_json(await read_body(request, MAX_SMALL_BODY) or b"{}")
        if not isinstance(data, dict):
            raise RemoteError(422, "bad_request", "the body is a JSON object")
        return data

    @app.get(f"{PREFIX}/round")
    async def round_info() -> Response:
        """The round's commitment, the host's public key and the slots (what anyone may know)."""
        return _json({"commitment": sealed.commitment, "public_key": pem.decode(), "key_id": key_id(pem),
                      "slots": list(sealed.rt.slots), "submissions_per_token": sealed.max_submissions})

    @app.get(f"{PREFIX}/public_key")
    async def public_key() -> Response:
        """The host's Ed25519 public key (PEM): ``acworld verify --signed R --public-key K``."""
        return Response(pem, media_type="application/x-pem-file")

    @app.post(f"{PREFIX}/submissions", status_code=201)
    async def open_submission(request: Request) -> Response:
        """Open your submission (or get your open one back, ``resumed``)."""
        name = who(request)
        body = await small_body(request)
        label = body.get("policy")
        if not isinstance(label, str):
            raise RemoteError(422, "bad_request", 'policy: a string label is needed ({"policy": "openai:MODEL"})')
        return _json(sealed.open_submission(name, label), 201)

    @app.get(f"{PREFIX}/submissions/current")
    async def current(request: Request) -> Response:
        """Your open submission: each slot new, open or ended."""
        return _json(sealed.public_submission(sealed.current(who(request))))

    @app.get(f"{PREFIX}/submissions/last")
    async def last(request: Request) -> Response:
        """The signed result of your last closed submission (404 when none is closed)."""
        result = sealed.last_result(who(request))
        if result is None:
            raise RemoteError(404, "no_closed_submission", "none of your submissions is closed")
        return _json(result)

    @app.post(f"{PREFIX}/submissions/current/close")
    async def close(request: Request) -> Response:
        """Close your submission; the reply is the signed result (family and overall means, digests)."""
        return _json(sealed.close_submission(who(request)))

    @app.post(f"{PREFIX}/episodes", status_code=201)
    async def open_episode(request: Request) -> Response:
        """Open one slot's episode in your submission (each slot once)."""
        name = who(request)
        slot = (await small_body(request)).get("slot")
        if not isinstance(slot, str):
            raise RemoteError(422, "bad_request", 'slot: a slot name is needed ({"slot": "slot-001"})')
        ep, actor = sealed.open_episode(name, slot)
        state = sealed.host.snapshot(ep, observe=True)
        role = ep.env.task.initial_state["actors"][actor]["role"]
        return _json({"episode_id": ep.episode_id, "slot": slot, "actor": actor, "role": role,
                      "state": sealed_state(state, actor, slot)}, 201)

    @app.get(f"{PREFIX}/episodes/{{episode_id}}/observation")
    async def observation(episode_id: str, request: Request) -> Response:
        """Your actor's observation (the local env's, counted as seen)."""
        ep, actor, _slot = sealed.episode_of(who(request), episode_id)
        raw = sealed.host.observe(ep, actor)
        return _json({"actor": actor, "raw": raw, "text": render_text(raw)})

    @app.post(f"{PREFIX}/episodes/{{episode_id}}/actions")
    async def act(episode_id: str, request: Request) -> Response:
        """One action as your actor; the reply is your view of the state after it."""
        ep, actor, slot = sealed.episode_of(who(request), episode_id)
        data = parse_action_body(await read_body(request, MAX_ACTION_BODY))
        if data.get("actor") not in (None, actor):
            raise RemoteError(403, "wrong_actor", f"your token acts only as {actor} in this episode")
        reply = sealed.host.act(ep, actor, data["action"], meta=data.get("meta"), seen=data.get("seen"),
                                key=request.headers.get("idempotency-key"), observe=bool(data.get("observe")))
        headers = {"Idempotent-Replay": "true"} if reply["replayed"] else None
        return _json(sealed_state(reply, actor, slot), headers=headers)

    @app.post(f"{PREFIX}/episodes/{{episode_id}}/end")
    async def end(episode_id: str, request: Request) -> Response:
        """End your episode: scored when your actor is done, else unscored (``reason``)."""
        _ep, _actor, slot = sealed.episode_of(who(request), episode_id)
        body = await small_body(request)
        why = body.get("reason") if isinstance(body.get("reason"), str) else ""
        reason = "ended by the participant before the evaluated actor was done" + (
            f" ({' '.join(why.split())[:200]})" if why else "")
        return _json(sealed_end(sealed.end_episode(episode_id, reason), slot))

    @app.get("/v1/tools/{role}")
    async def tools(role: str) -> Response:
        """The role's VCP tools as OpenAI-style function schemas."""
        if role not in ("buyer", "merchant"):
            raise RemoteError(404, "unknown_role", "no such role; buyer or merchant")
        return _json(openai_tools(role))

    app.add_middleware(HostGate, bind=bind)
    return app
