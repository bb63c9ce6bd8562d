"""The participant's side of a sealed round: ``acworld eval SUITE --remote URL --token-file T``.

The policy runs here, with the participant's own model keys (never sent to the host), and acts
over HTTP as the evaluated actor of the round's slots. It is built by the evaluation's own policy
factory (:func:`~acworld_env.eval.config.make_factory`: every ``--policy`` ``eval`` accepts but
``reference``, which reads the task's reference plan that a sealed round never shows), and runs
with the evaluation's conventions: ``--concurrency`` slots in threads, the live progress bar, a
failed run recorded as unscored with its reason (the model client's own retries first, the HTTP
client's retries for the connection), Ctrl-C stopping the runs in flight at their next decision
(unscored, ``interrupted``) and ``--resume`` playing the slots not played yet. The local runner
itself cannot play these runs (it builds each episode from its task spec and writes artifacts a
participant never holds), so this module shares its parts rather than its loop.

What stays in ``--out``: ``participation.json`` (each slot's status, reason, model usage and wall
time; no score, none is returned) and, once every slot is played, ``signed_result.json``.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import threading
import time
import uuid
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..eval.config import EpisodeCopies, EvalConfig, make_factory
from ..eval.execute import failure_reason
from ..eval.out_lock import OutLock, prepare_out
from ..eval.progress import ProgressBar
from ..eval.rollout import Interrupted
from ..policies.llm.spec import is_llm_spec
from ..policies.specs import PolicyFactory
from ..vcp import VCPAction
from ..vcp.union import IDLE_ACTION
from .client import SealedClient, SealedClientError
from .commitment import SealedError
from .result import RESULT_FILE, write_result

JOURNAL_FILE = "participation.json"
USAGE_KEYS = ("calls", "input_tokens", "output_tokens", "latency_s", "cost_usd")


class SealedInterrupted(SealedError):
    """Ctrl-C stopped the submission before every slot was played (``--resume`` continues it)."""

    def __init__(self, played: int, left: int) -> None:
        super().__init__(f"interrupted: {played} slot(s) played, {left} not started")
        self.played, self.left = played, left


@dataclass
class SlotOutcome:
    """What the participant learns of one slot."""

    slot: str
    status: str
    reason: str = ""
    usage: dict[str, float] = field(default_factory=dict)
    wall_s: float = 0.0
    interrupted: bool = False
    """A ``KeyboardInterrupt`` reached the run itself (its episode is ended; the evaluation then stops)."""

    def row(self) -> dict[str, Any]:
        """The journal's entry."""
        return {"status": self.status, "reason": self.reason, "usage": self.usage, "wall_s": self.wall_s}


def read_token(path: Path) -> str:
    """The participant token in ``path``; a clear one-line error otherwise (the token is never quoted)."""
    try:
        token = Path(path).read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise SealedError(f"cannot read the token file {path}: {exc.strerror or type(exc).__name__}") from None
    except UnicodeDecodeError:
        raise SealedError(f"the token file {path} is not text") from None
    if not token or len(token) > 512 or any(c.isspace() for c in token):
        raise SealedError(f"the token file {path} does not hold one token")
    return token


def build_factory(config: EvalConfig) -> PolicyFactory:
    """The policy factory of ``config`` for a sealed round (LLM policies built once, copied per run)."""
    if config.policy == "reference":
        raise SealedError("the reference policy plays each task's reference plan, which a sealed round never "
                          "reveals; evaluate your own policy (openai:MODEL, random, sb3:PATH, ...)")
    factory = make_factory(config, None)
    if is_llm_spec(config.policy):
        prototype = factory(None, config.seed)  # type: ignore[arg-type]  (task-independent: errors surface here)
        if hasattr(prototype, "reset"):
            return EpisodeCopies(prototype)
    return factory


class _Bar(ProgressBar):
    """The evaluation's progress bar, counting ended slots (a sealed round returns no score per run)."""

    def _count(self, row: dict[str, Any]) -> None:
        if row["status"] == "scored":
            self.scores.append(0.0)
        else:
            self.unscored += 1

    def stats(self) -> str:
        return f"ended {len(self.scores)}  unscored {self.unscored}"


def play_slot(client: SealedClient, slot: str, policy: Any, stop: threading.Event | None = None) -> SlotOutcome:
    """Play one slot with ``policy``; never raises but on ``KeyboardInterrupt``."""
    start = time.perf_counter()
    out = SlotOutcome(slot, "unscored")
    usage: dict[str, float] = dict.fromkeys(USAGE_KEYS, 0)
    episode_id: str | None = None
    try:
        if getattr(policy, "hints", "off") != "off":
            raise SealedError("a policy trained with hints cannot play a sealed round (hints read the task)")
        if hasattr(policy, "reset"):
            policy.reset(0)
        started = client.open_episode(slot)
        episode_id, actor, state = started["episode_id"], started["actor"], started["state"]
        obs = state.get("observation")
        keys, nonce = itertools.count(1), uuid.uuid4().hex[:12]
        while actor in state["agents"] and not (state["terminations"].get(actor) or state["truncations"].get(actor)):
            if stop is not None and stop.is_set():
                raise Interrupted(slot)
            if obs is None:
                obs = client.observation(episode_id)["raw"]
            action = policy.act(obs)
            if isinstance(action, VCPAction):
                action = action.model_dump(mode="json", exclude_none=True)
            meta = getattr(policy, "last_meta", None) or None
            _add_usage(usage, meta)
            body = {"action": IDLE_ACTION if action is None else action, "seen": len(obs.get("inbox") or []),
                    "observe": True, **({"meta": meta} if meta else {})}
            state = client.act(episode_id, body, f"{nonce}-{next(keys)}")
            obs = state.get("observation")
        ended = client.end(episode_id)
        out.status, out.reason = ended["status"], ended.get("reason") or ""
    except Interrupted:
        out.reason = "interrupted"
    except KeyboardInterrupt:
        out.reason, out.interrupted = "interrupted", True
    except Exception as exc:  # noqa: BLE001  (a failed run is recorded as unscored, never dropped)
        out.reason = failure_reason(exc)
    if out.status != "scored" and episode_id is not None:
        with contextlib.suppress(SealedClientError):  # closed already, or the host is gone: unscored either way
            client.end(episode_id, out.reason)
    out.usage = {k: round(v, 8) for k, v in usage.items()}
    out.wall_s = round(time.perf_counter() - start, 6)
    return out


def _add_usage(usage: dict[str, float], meta: dict[str, Any] | None) -> None:
    """Add one decision's model usage (counted as :func:`~acworld_env.eval.summary.usage_from_trace` counts it)."""
    if not meta:
        return
    usage["calls"] += int(meta.get("calls", 1))
    for k in USAGE_KEYS[1:]:
        value = (meta or {}).get(k)
        if isinstance(value, int | float) and not isinstance(value, bool):
            usage[k] += value


def run_sealed(config: EvalConfig, *, url: str, token: str, progress: bool = True,
               factory: PolicyFactory | None = None, notes: list[str] | None = None) -> dict[str, Any]:
    """Play every slot of the round at ``url`` as the participant holding ``token``; close the
    submission and write ``--out``/signed_result.json; return the signed result.

    Raises :class:`SealedError` (a clear message) for what the user must change, and
    :class:`SealedInterrupted` after Ctrl-C (the submission stays open: ``--resume``).
    """
    if config.concurrency < 1:
        raise SealedError(f"concurrency must be at least 1, got {config.concurrency}")
    factory = factory or build_factory(config)
    client = SealedClient(url, token, timeout=120.0, retries=3)
    prepare_out(config.out)
    if (config.out / "manifest.json").exists():
        raise SealedError(f"--out {config.out} holds a local evaluation; choose another folder for a sealed round")
    lock = OutLock(config.out).acquire()
    try:
        return _run(config, client, factory, progress, notes)
    except SealedClientError as exc:
        raise SealedError(f"{client.url}: {exc.code}: {exc.message}") from None
    finally:
        lock.release()
        client.close()


def _run(config: EvalConfig, client: SealedClient, factory: PolicyFactory, progress: bool,
         notes: list[str] | None) -> dict[str, Any]:
    info = client.round()
    suite = info["commitment"]["suite"]
    if config.env_id not in (suite, suite.rsplit("-v", 1)[0]):
        raise SealedError(f"the round at {client.url} plays {suite}, not {config.env_id}")
    journal_path = config.out / JOURNAL_FILE
    try:
        sub = client.open_submission(config.policy)
    except SealedClientError as exc:  # closed by a process that died before saving its result: fetch it
        if not (config.resume and exc.code == "no_submissions_left"):
            raise
        result = client.call("GET", "/submissions/last")
        if result.get("policy") != config.policy:
            raise
        write_result(config.out / RESULT_FILE, result)
        return result
    journal = _read_journal(journal_path, sub["submission"])
    if sub["resumed"] and not config.resume:
        ended = sum(v == "ended" for v in sub["slots"].values())
        raise SealedError(f"submission {sub['submission']} is open on the host ({ended} of {len(sub['slots'])} "
                          "slots played): continue it with --resume")
    for slot, status in sub["slots"].items():
        if status == "open":  # left in play by a process that stopped: it cannot be replayed
            client.end(slot_episode(client, slot), "interrupted: the participant's process stopped")
            journal["slots"].setdefault(slot, {"status": "unscored", "reason": "interrupted", "usage": {}})
    todo = [s for s, status in sub["slots"].items() if status == "new"]
    if notes is not None and sub["resumed"]:
        notes.append(f"resumed submission {sub['submission']}: {len(sub['slots']) - len(todo)} slot(s) played "
                     "before, the rest now")
    bar = _Bar(len(sub["slots"]), len(sub["slots"]) - len(todo), enabled=progress, label="sealed")
    stop = threading.Event()
    lock = threading.Lock()

    def collect(outcome: SlotOutcome) -> None:
        with lock:
            journal["slots"][outcome.slot] = outcome.row()
            _write_journal(journal_path, journal)
            bar.update({"status": outcome.status})

    try:
        _play_all(client, todo, factory, config.concurrency, stop, collect)
    except KeyboardInterrupt:
        bar.close()
        left = len([s for s in todo if s not in journal["slots"]])
        raise SealedInterrupted(len(sub["slots"]) - left, left) from None
    bar.close()
    result = client.close_submission()
    write_result(config.out / RESULT_FILE, result)
    journal["closed"] = True
    _write_journal(journal_path, journal)
    return result


def slot_episode(client: SealedClient, slot: str) -> str:
    """The id of the live episode of ``slot`` (opening a slot in play returns the same episode)."""
    return str(client.open_episode(slot)["episode_id"])


def _play_all(client: SealedClient, todo: list[str], factory: PolicyFactory, slots: int, stop: threading.Event,
              collect: Any) -> None:
    """Play ``todo`` in ``slots`` threads; Ctrl-C stops handing out slots and stops those in flight."""
    pending = list(todo)
    with ThreadPoolExecutor(max_workers=slots, thread_name_prefix="sealed") as pool:
        running: dict[Future[SlotOutcome], str] = {}
        try:
            while pending or running:
                while pending and len(running) < slots:
                    slot = pending.pop(0)
                    running[pool.submit(_one, client, slot, factory, stop)] = slot
                done, _ = wait(running, timeout=0.5, return_when=FIRST_COMPLETED)
                for fut in done:
                    running.pop(fut)
                    outcome = fut.result()
                    collect(outcome)
                    if outcome.interrupted:
                        raise KeyboardInterrupt
        except KeyboardInterrupt:
            stop.set()
            for fut in list(running):
                collect(fut.result())
            raise


def _one(client: SealedClient, slot: str, factory: PolicyFactory, stop: threading.Event) -> SlotOutcome:
    try:
        policy = factory(None, 0)  # type: ignore[arg-type]  (no task: the participant never holds it)
    except Exception as exc:  # noqa: BLE001
        return SlotOutcome(slot, "unscored", failure_reason(exc))
    try:
        return play_slot(client, slot, policy, stop)
    finally:
        client.close()


def _read_journal(path: Path, submission: str) -> dict[str, Any]:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        doc = None
    if not isinstance(doc, dict) or doc.get("submission") != submission or not isinstance(doc.get("slots"), dict):
        return {"submission": submission, "slots": {}, "closed": False}
    return doc


def _write_journal(path: Path, journal: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(journal, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(path)
