"""The sealed round's host: participants' submissions, one episode per slot, runs written as they end.

A :class:`SealedHost` holds the round's tasks (regenerated from the secret at start, checked
against the commitment) and a :class:`~acworld_env.remote.hosted.Host`, whose episode machinery
(the local env class, turns, idempotent retries) plays every episode; only the bookkeeping of a
round is added here. A participant token acts only as the evaluated actor of the episodes of its
own open submission; each slot is opened once per submission; an episode that ends before its
actor is done, is abandoned, or is still open when the submission closes is unscored, and so is
a slot never opened. Each ended episode is written at once into the submission's evaluation
folder (``D/submissions/NAME-K``, the layout of ``acworld eval``), so a host that stops loses at
most the episodes in flight (they become unscored when it starts again).
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from ..envs.aec import AcworldAECEnv
from ..remote.hosted import Host, HostedEpisode, RemoteError
from ..remote.records import HostedEnv
from .commitment import RoundTasks, SealedError, check_commitment, read_secret, round_tasks
from .round import RateLimiter, RoundState

EPISODE_SEED = 0
"""Every sealed episode is played with this episode seed (recorded in its run.json)."""
MAX_LABEL = 200
MIN_FAMILY_TASKS = 3
"""A family mean is signed only over at least this many of the round's tasks (else it is a task's score)."""


class SealedHost:
    """One open round: its tasks, participants and submissions (see the module docstring)."""

    def __init__(self, state: RoundState, rt: RoundTasks, key: Any, *, idle_timeout: float = 900.0) -> None:
        self.state, self.rt, self.key = state, rt, key
        info = state.round()
        self.round_id: str = info["round_id"]
        self.max_submissions: int = int(info.get("submissions_per_token", 1))
        self.limiter = RateLimiter(float(info.get("rate", 50.0)), int(info.get("burst", 100)))
        self.min_family_tasks: int = int(info.get("min_family_tasks", MIN_FAMILY_TASKS))
        self.commitment = state.commitment()
        self.host = Host(idle_timeout=1e9)  # idle episodes are closed here (reap), with the slot's bookkeeping
        self.idle_timeout = idle_timeout
        self.participants = state.participants()
        self.subs: dict[str, dict[str, Any]] = state.submissions()
        self.live: dict[str, tuple[str, str]] = {}
        """Episode id -> (submission id, slot) of the episodes in play."""
        self._lock = threading.RLock()
        self._recover()

    @classmethod
    def start(cls, state_dir: Path, *, secret_file: Path | None = None, idle_timeout: float = 900.0,
              generated: RoundTasks | None = None) -> SealedHost:
        """Load the round in ``state_dir``: regenerate its tasks from the secret (``generated``: the tasks this
        process has just generated from it) and check them against the commitment."""
        from .keys import load_or_create_key

        state = RoundState(state_dir)
        info = state.round()
        if info.get("closed"):
            raise SealedError(f"the round in {state_dir} was revealed and is closed")
        secret = read_secret(Path(secret_file or info["secret_file"]))
        rt = generated or round_tasks(secret, info["suite"], info.get("n_tasks"))
        problems = check_commitment(state.commitment(), secret, rt)
        if problems:
            raise SealedError(f"{state_dir}: {problems[0]}")
        return cls(state, rt, load_or_create_key(state.dir), idle_timeout=idle_timeout)

    # -- credentials -------------------------------------------------------------------
    def participant(self, token: str | None) -> str:
        """The participant holding ``token`` (401 otherwise), after its rate limit (429 when over it)."""
        if not token:
            raise RemoteError(401, "missing_credential", "send your participant token as 'Authorization: Bearer ...'")
        name = self.state.who(token, self.participants)
        if name is None:
            self.participants = self.state.participants()  # tokens added by another start of the host
            name = self.state.who(token, self.participants)
        if name is None:
            raise RemoteError(401, "unknown_credential", "that token belongs to no participant of this round")
        wait = self.limiter.take(name)
        if wait > 0:
            raise RateLimited(wait)
        with self._lock:
            self.reap()  # every admitted request sweeps idle episodes
        return name

    # -- submissions ---------------------------------------------------------------------
    def open_submission(self, name: str, label: str) -> dict[str, Any]:
        """The participant's open submission, or a new one (409 when it used all it may make)."""
        label = " ".join(str(label).split())[:MAX_LABEL]
        if not label:
            raise RemoteError(422, "bad_request", "policy: a non-empty label is needed")
        with self._lock:
            self.reap()
            mine = [s for s in self.subs.values() if s["participant"] == name]
            current = next((s for s in mine if s["status"] == "open"), None)
            if current is not None:
                if current["policy"] != label:
                    raise RemoteError(409, "submission_open", f"submission {current['id']} is open for policy "
                                      f"{current['policy']!r}, not {label!r}; finish it first")
                return {**self.public_submission(current), "resumed": True}
            if len(mine) >= self.max_submissions:
                raise RemoteError(409, "no_submissions_left", f"{name} has made {len(mine)} submission(s) in this "
                                  f"round, the most it may make")
            sub = {"id": f"{name}-{len(mine) + 1}", "participant": name, "policy": label, "status": "open",
                   "slots": {slot: {"status": "new"} for slot in self.rt.slots}}
            self.subs[sub["id"]] = sub
            self.state.save_submission(sub)
            self.state.log("submission_opened", participant=name, submission=sub["id"], policy=label)
            return {**self.public_submission(sub), "resumed": False}

    def current(self, name: str) -> dict[str, Any]:
        """The participant's open submission (409 when there is none)."""
        sub = next((s for s in self.subs.values() if s["participant"] == name and s["status"] == "open"), None)
        if sub is None:
            raise RemoteError(409, "no_open_submission", "open a submission first (POST /v1/sealed/submissions)")
        return sub

    @staticmethod
    def public_submission(sub: dict[str, Any]) -> dict[str, Any]:
        """A submission as its participant sees it: slot states (new, open, ended), no score."""
        return {"submission": sub["id"], "policy": sub["policy"], "status": sub["status"],
                "slots": {s: ("ended" if v["status"] in ("scored", "unscored") else v["status"])
                          for s, v in sub["slots"].items()}}

    # -- episodes -------------------------------------------------------------------------
    def open_episode(self, name: str, slot: str) -> tuple[HostedEpisode, str]:
        """Start the episode of ``slot`` in the participant's open submission (once per submission)."""
        with self._lock:
            self.reap()
            sub = self.current(name)
            entry = sub["slots"].get(slot)
            if entry is None:
                raise RemoteError(404, "unknown_slot", f"no slot {slot[:40]!r} in this round")
            if entry["status"] == "open" and entry.get("episode") in self.live:
                ep = self.host.episodes[entry["episode"]]  # the same episode again (a lost reply, a resumed client)
                return ep, ep.env.task.actor
            if entry["status"] != "new":
                raise RemoteError(409, "slot_played", f"{slot} was already played in submission {sub['id']}; "
                                  "each task is played once per submission")
            task = self.rt.slots[slot]
            env = AcworldAECEnv(tasks=[task])
            hosted = HostedEnv(f"env-{sub['id']}-{slot}", env, "")
            self.host.envs[hosted.env_id] = hosted
            ep = self.host.reset(hosted, EPISODE_SEED, None)
            entry.update(status="open", episode=ep.episode_id)
            self.live[ep.episode_id] = (sub["id"], slot)
            self.state.save_submission(sub)
            self.state.log("episode_opened", participant=name, submission=sub["id"], slot=slot,
                           episode=ep.episode_id)
            return ep, task.actor

    def episode_of(self, name: str, episode_id: str) -> tuple[HostedEpisode, str, str]:
        """``(episode, evaluated actor, slot)`` of one of the participant's live episodes (404 otherwise,
        the same answer for another participant's episode as for none)."""
        self.reap()
        found = self.live.get(episode_id)
        sub = self.subs.get(found[0]) if found else None
        if found is None or sub is None or sub["participant"] != name:
            ended = self._ended(name, episode_id)
            if ended is not None:
                raise RemoteError(410, "episode_closed", f"episode {episode_id} has ended ({ended})")
            raise RemoteError(404, "unknown_episode", f"no episode {episode_id[:80]!r} of yours is in play")
        ep = self.host.episodes[episode_id]
        return ep, ep.env.task.actor, found[1]

    def _ended(self, name: str, episode_id: str) -> str | None:
        for sub in self.subs.values():
            if sub["participant"] != name:
                continue
            for entry in sub["slots"].values():
                if entry.get("episode") == episode_id and entry["status"] in ("scored", "unscored"):
                    return entry["status"]
        return None

    def end_episode(self, episode_id: str, reason: str) -> dict[str, Any]:
        """End a live episode (scored if its actor is done, else unscored with ``reason``); write its run."""
        from .submission import write_run

        with self._lock:
            if episode_id not in self.live:  # ended meanwhile (a duplicate request, the idle reaper)
                raise RemoteError(410, "episode_closed", f"episode {episode_id} has ended")
            sub_id, slot = self.live.pop(episode_id)
            sub = self.subs[sub_id]
            ep = self.host.episodes[episode_id]
            summary = self.host.end(ep, reason)
            task = self.rt.slots[slot]
            name = write_run(self.state.submission_dir(sub_id), task, ep, summary, suite=self.rt.suite,
                             policy=sub["policy"],
                             seed=self.rt.seed)
            sub["slots"][slot] = {"status": summary["status"], "episode": episode_id, "run": name,
                                  "reason": summary.get("reason") or ""}
            self.state.save_submission(sub)
            self.state.log("episode_ended", participant=sub["participant"], submission=sub_id, slot=slot,
                           episode=episode_id, status=summary["status"])
            self.host.drop_env(ep.host_env)
            return summary

    def reap(self) -> None:
        """End episodes with no request for ``idle_timeout`` seconds (unscored, abandoned)."""
        now = time.monotonic()
        for eid in [e for e in self.live if now - self.host.episodes[e].last_seen > self.idle_timeout]:
            self.end_episode(eid, f"abandoned: no request for {self.idle_timeout:g} s")

    def close_submission(self, name: str) -> dict[str, Any]:
        """Close the participant's open submission: every episode in play and every slot not played is
        unscored; write the evaluation folder; return the signed result."""
        from .submission import finish_submission

        with self._lock:
            if not any(s["participant"] == name and s["status"] == "open" for s in self.subs.values()):
                last = self.last_result(name)  # closing again (a lost reply) returns the same signed result
                if last is not None:
                    return last
            sub = self.current(name)
            for eid in [e for e, (s, _) in self.live.items() if s == sub["id"]]:
                self.end_episode(eid, "aborted: the submission closed while the episode was in play")
            result = finish_submission(self, sub)
            sub["status"] = "closed"
            self.state.save_submission(sub)
            self.state.log("submission_closed", participant=name, submission=sub["id"],
                           root_digest=result["root_digest"], scored=result["scored"], unscored=result["unscored"])
            return result

    def last_result(self, name: str) -> dict[str, Any] | None:
        """The signed result of the participant's last closed submission, if any."""
        from .result import RESULT_FILE, read_result

        closed = [s for s in self.subs.values() if s["participant"] == name and s["status"] == "closed"]
        if not closed:
            return None
        last = max(closed, key=lambda s: int(s["id"].rsplit("-", 1)[1]))
        return read_result(self.state.submission_dir(last["id"]) / RESULT_FILE)

    def _recover(self) -> None:
        """Episodes in play when the host last stopped are lost: their slots become unscored runs."""
        from .submission import write_unscored

        for sub in self.subs.values():
            changed = False
            for slot, entry in sub["slots"].items():
                if entry["status"] == "open":
                    reason = "aborted: the host stopped while the episode was in play"
                    entry.update(status="unscored", reason=reason,
                                 run=write_unscored(self.state.submission_dir(sub["id"]), self.rt.slots[slot], reason))
                    changed = True
            if changed:
                self.state.save_submission(sub)
                self.state.log("episodes_recovered", submission=sub["id"])


class RateLimited(RemoteError):
    """A participant over its request rate (429, with the seconds to wait)."""

    def __init__(self, wait: float) -> None:
        super().__init__(429, "rate_limited", f"too many requests; retry in {wait:.2f} s")
        self.wait = wait
