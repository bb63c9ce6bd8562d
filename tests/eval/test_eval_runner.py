"""Runner robustness: outages become unscored runs, resume, Ctrl-C, concurrency without serialisation."""

from __future__ import annotations

import json
import threading

import pytest
from eval_kit import OutageError, reference_unless, summary_of

from acworld_env.artifacts import verify_run
from acworld_env.eval.config import EpisodeCopies
from acworld_env.eval.plan import UNSCORED_FILE
from acworld_env.eval.runner import EvalConfig, EvalInterrupted, run_eval
from acworld_env.policies.make import make_policy
from acworld_env.tasks.frozen import load_frozen

N = len(load_frozen("capability-v1"))

T4 = "*/T4/*"


def config(out, policy="reference", **kw):
    return EvalConfig(env_id="capability-v1", policy=policy, out=out, **kw)


def is_timing(task):
    return task.family == "T10_timing"


def outage(task):
    return OutageError(f"{task.task_id}: 503 after 6 attempts", "server_error")


def test_provider_outage_makes_runs_unscored_with_their_reason(tmp_path):
    summary = run_eval(config(tmp_path, concurrency=8), progress=False,
                       factory=reference_unless(is_timing, outage))
    n_t10 = sum(1 for t in load_frozen("capability-v1") if is_timing(t))
    assert summary["planned"] == N and summary["scored"] == N - n_t10 and summary["unscored"] == n_t10 == 20
    assert summary["mean_score"] == 1.0  # of scored runs; the unscored are counted, not dropped
    reasons = summary["unscored_reasons"]
    assert len(reasons) == 20 and all(t.startswith("capability-v1/T10/") for t in reasons)
    assert all(r.startswith("OutageError (server_error): ") and "503" in r for r in reasons.values())
    bad = tmp_path / "runs" / "capability-v1__T10__buyer__duplicate_payment__01"
    assert sorted(p.name for p in bad.iterdir()) == [UNSCORED_FILE]  # no partial artifacts
    assert json.loads((bad / UNSCORED_FILE).read_text())["reason"].startswith("OutageError")
    rows = (tmp_path / "results.csv").read_text()
    assert rows.count(",unscored,") == n_t10


def test_resume_reruns_only_unscored_runs(tmp_path):
    run_eval(config(tmp_path, concurrency=4), progress=False, factory=reference_unless(is_timing, outage))
    calls: list[str] = []
    summary = run_eval(config(tmp_path, concurrency=4, resume=True), progress=False,
                       factory=reference_unless(lambda t: False, outage, calls))
    assert sorted(calls) == sorted(f"capability-v1/T10/{t}" for t in _t10_ids(tmp_path))
    assert summary["scored"] == N and summary["unscored"] == 0 and summary["mean_score"] == 1.0
    assert not list(tmp_path.rglob(UNSCORED_FILE))
    assert all(verify_run(p).ok for p in (tmp_path / "runs").iterdir())
    again: list[str] = []
    run_eval(config(tmp_path, resume=True), progress=False, factory=reference_unless(lambda t: False, outage, again))
    assert again == []


def _t10_ids(out):
    return [p.name.split("__", 2)[2].replace("__", "/") for p in (out / "runs").iterdir() if "__T10__" in p.name]


def test_keyboard_interrupt_keeps_finished_runs_and_writes_the_summary(tmp_path):
    stop_at = "capability-v1/T4/buyer/zopa/01"

    def interrupt(task):
        return KeyboardInterrupt()

    with pytest.raises(EvalInterrupted) as info:
        run_eval(config(tmp_path, concurrency=1, tasks=T4), progress=False,
                 factory=reference_unless(lambda t: t.task_id == stop_at, interrupt))
    s = info.value.summary
    assert s == summary_of(tmp_path)
    assert s["interrupted"] is True and s["planned"] == 20
    assert s["scored"] >= 1 and s["scored"] + s["unscored"] + s["missing"] == 20 and s["missing"] >= 1
    kept = [p for p in (tmp_path / "runs").iterdir() if (p / "score.json").exists()]
    assert len(kept) == s["scored"] and all(verify_run(p).ok for p in kept)
    calls: list[str] = []
    resumed = run_eval(config(tmp_path, concurrency=4, tasks=T4, resume=True), progress=False,
                       factory=reference_unless(lambda t: False, interrupt, calls))
    assert resumed["scored"] == 20 and resumed["interrupted"] is False
    assert len(calls) == 20 - s["scored"] and stop_at in calls


def test_interrupt_stops_runs_in_flight_at_their_next_decision(tmp_path):
    started = threading.Barrier(4, timeout=10)
    release = threading.Event()

    class Slow:
        """Holds its first decision until every slot has started; the third one interrupts."""

        def __init__(self, task, n):
            self.inner, self.n, self.first = make_policy(task.reference), n, n < 4

        def reset(self, seed=None):
            self.inner.reset(seed)

        def act(self, obs):
            if self.first:
                self.first = False
                started.wait()
                if self.n == 2:
                    # the held runs go on a second after the interrupt (not after a fixed time from the
                    # start, which a slow machine could spend before every slot has even started)
                    threading.Timer(1.0, release.set).start()
                    raise KeyboardInterrupt
                release.wait(10)
            return self.inner.act(obs)

    counter = iter(range(1000))
    lock = threading.Lock()
    held: list[str] = []

    def factory(task, seed):
        with lock:
            n = next(counter)
            if n in (0, 1, 3):
                held.append(task.task_id)
        return Slow(task, n)

    with pytest.raises(EvalInterrupted) as info:
        run_eval(config(tmp_path, concurrency=4, tasks=T4), progress=False, factory=factory)
    s = info.value.summary
    # the three runs held in flight end as interrupted; the slot freed by the interrupt may have
    # started (even finished) one more run before the stop reached it
    assert all(s["unscored_reasons"].get(t) == "interrupted" for t in held)
    assert set(s["unscored_reasons"].values()) == {"interrupted"}
    assert s["scored"] <= 1 and s["scored"] + s["unscored"] + s["missing"] == 20 and s["missing"] >= 15


def test_runs_are_concurrent_not_serialised(tmp_path):
    barrier = threading.Barrier(8, timeout=10)  # breaks unless 8 runs are deciding at the same time
    made = []
    lock = threading.Lock()

    class AtBarrier:
        """The reference policy; the first eight runs meet at the barrier before their first decision."""

        def __init__(self, task):
            self.inner = make_policy(task.reference)
            with lock:
                made.append(task.task_id)
                self.wait = len(made) <= 8

        def reset(self, seed=None):
            self.inner.reset(seed)

        def act(self, obs):
            if self.wait:
                self.wait = False
                barrier.wait()
            return self.inner.act(obs)

    summary = run_eval(config(tmp_path, concurrency=8, tasks="*/T4/buyer/*"), progress=False,
                       factory=lambda task, seed: AtBarrier(task))
    assert summary["scored"] == 10 and summary["unscored"] == 0, summary["unscored_reasons"]


def test_repeats_get_their_own_folders_and_seeds(tmp_path):
    summary = run_eval(config(tmp_path, policy="random", repeats=3, tasks="*/T4/buyer/zopa/01"), progress=False)
    assert summary["planned"] == 3 and summary["repeats"] == 3
    names = sorted(p.name for p in (tmp_path / "runs").iterdir())
    assert names == [f"capability-v1__T4__buyer__zopa__01__r{k}" for k in range(3)]
    seeds = [json.loads((tmp_path / "runs" / n / "run.json").read_text())["seed"] for n in names]
    assert seeds == [0, 1, 2]
    assert "repeat" in (tmp_path / "results.csv").read_text().splitlines()[0]


def test_episode_copies_share_nothing_per_episode():
    class Stateful:
        def __init__(self):
            self.history = []
            self.client = object()

        def reset(self, seed=None):
            self.history = []

        def act(self, obs):
            self.history.append(obs)

    make = EpisodeCopies(Stateful())
    a, b = make(None, 0), make(None, 1)
    a.act(1)
    assert b.history == [] and a.client is b.client


def test_a_failing_policy_factory_is_an_unscored_run(tmp_path):
    def factory(task, seed):
        raise RuntimeError("cannot build")

    summary = run_eval(config(tmp_path, tasks="*/T4/buyer/zopa/0[12]"), progress=False, factory=factory)
    assert summary["unscored"] == 2 and all("cannot build" in r for r in summary["unscored_reasons"].values())


def test_model_usage_of_a_failed_run_is_still_counted(tmp_path):
    class FailsSecond:
        """One metered decision, then a provider outage."""

        def __init__(self, task):
            self.inner, self.n = make_policy(task.reference), 0
            self.last_meta = {}

        def reset(self, seed=None):
            self.inner.reset(seed)

        def act(self, obs):
            self.n += 1
            if self.n > 1:
                raise OutageError("gone", "timeout")
            self.last_meta = {"calls": 1, "input_tokens": 7, "output_tokens": 2, "cost_usd": 0.5}
            return self.inner.act(obs)

    summary = run_eval(config(tmp_path, tasks="*/T4/buyer/zopa/0[12]"), progress=False,
                       factory=lambda task, seed: FailsSecond(task))
    assert summary["unscored"] == 2
    assert summary["usage"]["calls"] == 2 and summary["usage"]["input_tokens"] == 14
    assert summary["usage"]["cost_usd"] == 1.0
