"""Runs of the local backend spread over several interpreters: the driver's threads plus worker processes.

One Python process runs one thread at a time (the interpreter lock). An LLM evaluation at a
high concurrency against a fast endpoint is bound by the client's own CPU work (the SDK
building and sending each request, the environment step, the artifacts), so its slots queue
for that lock instead of waiting on the model. With ``processes = N`` the slots are split
into ``N`` shares: one runs in threads of the driver process, as with one process, and each
other share runs in threads of a worker process (a fresh interpreter).

Nothing the evaluation writes depends on where a run ran: every run goes through the same
:func:`~acworld_env.eval.execute.execute_run` into its own folder, and the driver collects the
outcomes (the manifest, ``summary.json`` and ``results.csv`` list runs in plan order, not in
completion order).

With one slot in one process (``--concurrency 1``) the driver runs every run in its own thread,
one after the other, with the same artifacts (see :meth:`_Driver._run_inline`). Otherwise the
driver hands out runs one at a time as slots free up, so a share never holds more runs than it
has slots and the driver always knows which runs are in flight where:

* until a worker has started (imported the package, built its policy: about a second), its
  slots stay with the driver, so no slot waits on a start-up;
* a worker that dies (killed, out of memory) turns its runs in flight into *unscored* runs
  with the reason, and its slots go back to the driver; a worker that cannot build its policy
  never takes any;
* Ctrl-C reaches the driver only (workers run in a session of their own and ignore
  ``SIGINT``): the driver stops handing out runs and asks every share to stop its runs in
  flight at their next decision (unscored, reason ``interrupted``), collects them, and ends
  the workers; a second Ctrl-C stops waiting.
"""

from __future__ import annotations

import dataclasses
import json
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, Any

from ..policies.llm.spec import is_llm_spec
from .execute import PolicyFactory, RunOutcome, execute_run, failure_reason, mark_unscored
from .plan import RunSpec, config_extra

if TYPE_CHECKING:
    from ..tasks.spec import TaskSpec
    from .config import EvalConfig

SLOTS_PER_PROCESS = 32
"""Slots each process must have before more than one is started by default (a worker costs about a
second of CPU to start): at 64 slots a machine with two or more cores runs two processes."""

WORKER_EXIT_GRACE_S = 10.0
"""Seconds a worker gets to finish and exit once told to, before it is terminated."""

Collect = Callable[[RunSpec, RunOutcome], None]


def default_processes(config: EvalConfig, *, custom_factory: bool) -> int:
    """How many processes run the slots of ``config`` (``config.processes`` when set).

    By default more than one only for LLM specs (whose client work per model call is what
    binds a fast endpoint), with at least ``SLOTS_PER_PROCESS`` slots per process, up to the
    CPU count. A custom factory cannot be sent to another process, so it always runs in one.
    """
    if custom_factory or os.name != "posix":  # workers inherit their socket (a POSIX file descriptor)
        return 1
    if config.processes is not None:
        return max(1, min(config.processes, config.concurrency))
    if not any(is_llm_spec(spec) for spec in config.specs):
        return 1
    return max(1, min(os.cpu_count() or 1, config.concurrency // SLOTS_PER_PROCESS))


def split_slots(concurrency: int, processes: int) -> list[int]:
    """``concurrency`` slots in ``processes`` shares as even as can be (the driver's share first)."""
    base, extra = divmod(concurrency, processes)
    return [base + (1 if i < extra else 0) for i in range(processes)]


class _WorkerReady:
    """A worker has started and built its policy: it takes its slots."""


class _WorkerGone(Exception):
    """A worker ended (or could not build its policy); the message says how."""


Result = RunOutcome | BaseException | _WorkerReady
"""What a share reports: a run's outcome, an exception raised by a run (or a worker's end), or readiness."""


# -- the shares of slots, as the driver sees them ------------------------------------------------

class _ThreadShare:
    """Slots in threads of the driver process (with one process, the only share)."""

    def __init__(self, slots: int, max_slots: int, config: EvalConfig, factory: PolicyFactory,
                 done: queue.Queue[tuple[Any, str | None, Result]]) -> None:
        self.slots = slots
        """Runs it may hold now: its own share, plus the slots of workers that are not ready."""
        self.running: dict[str, RunSpec] = {}
        self.ready = self.alive = True
        self.runs_dir = config.out / "runs"
        self.factory = factory
        self.done = done
        self.extra = config_extra(config)
        self.stop_event = threading.Event()
        self.pool = ThreadPoolExecutor(max_workers=max_slots, thread_name_prefix="acworld-run")

    def start(self, run: RunSpec) -> bool:
        self.running[run.name] = run
        self.pool.submit(self._run, run)
        return True

    def _run(self, run: RunSpec) -> None:
        try:
            result: Result = execute_run(run, run_dir=self.runs_dir / run.name, factory=self.factory,
                                         extra=self.extra, stop=self.stop_event)
        except BaseException as exc:  # noqa: BLE001  (a KeyboardInterrupt raised in a run stops the driver)
            result = exc
        self.done.put((self, run.name, result))

    def stop(self) -> None:
        self.stop_event.set()

    def close(self, *, wait: bool) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


class _ProcessShare:
    """Slots in threads of a worker process; runs go down a socket, outcomes come back up it.

    The worker is a fresh interpreter (``python -c``, with the driver's ``sys.path``) rather than
    a :mod:`multiprocessing` child, which would import the driver's main script again (and run
    a script without a ``__main__`` guard twice). It starts in a session of its own, so a Ctrl-C
    at the terminal reaches the driver only.
    """

    def __init__(self, slots: int, config: EvalConfig, probe: TaskSpec,
                 done: queue.Queue[tuple[Any, str | None, Result]]) -> None:
        self.slots = slots
        self.running: dict[str, RunSpec] = {}
        self.ready = False
        self.alive = True
        self.closing = False
        self.runs_dir = config.out / "runs"
        self.done = done
        ours, theirs = socket.socketpair()
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", _WORKER_BOOT, json.dumps(sys.path), str(theirs.fileno())],
                pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, start_new_session=True)
        finally:
            theirs.close()
        self.conn = Connection(ours.detach())
        self.conn.send((config, slots, probe))
        self.sent_tasks = {probe.task_id}
        self.reader = threading.Thread(target=self._read, name="acworld-eval-reader", daemon=True)
        self.reader.start()

    def start(self, run: RunSpec) -> bool:
        task_id = run.task.task_id
        task = None if task_id in self.sent_tasks else run.task  # a task goes over once (repeats share it)
        try:
            self.conn.send(("run", (task, task_id, run.repeat, run.seed, run.name)))
        except (OSError, ValueError):  # the worker is gone; the run was never handed over
            return False
        self.sent_tasks.add(task_id)
        self.running[run.name] = run
        return True

    def _read(self) -> None:
        try:
            while True:
                name, result = self.conn.recv()
                self.done.put((self, name, result))
        except (EOFError, OSError):
            if self.closing:
                return
            try:
                code: int | None = self.proc.wait(timeout=WORKER_EXIT_GRACE_S)
            except subprocess.TimeoutExpired:
                code = None
            self.done.put((self, None, _WorkerGone(f"worker process ended (exit code {code})")))

    def stop(self) -> None:
        with suppress(OSError, ValueError):
            self.conn.send(("stop", None))

    def close(self, *, wait: bool) -> None:
        self.closing = True
        with suppress(OSError, ValueError):
            self.conn.send(None)
        try:
            self.proc.wait(timeout=WORKER_EXIT_GRACE_S if wait else 0.5)
        except subprocess.TimeoutExpired:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.conn.close()


_WORKER_BOOT = ("import sys, json; sys.path[:] = json.loads(sys.argv[1]); "
                "from acworld_env.eval.workers import worker_main; worker_main(int(sys.argv[2]))")
"""A worker's program: the driver's import path, then :func:`worker_main` on the inherited socket."""


# -- the driver --------------------------------------------------------------------------------

class _Driver:
    """Hands out runs to shares as their slots free up and collects what comes back."""

    def __init__(self, runs: list[RunSpec], config: EvalConfig, factory: PolicyFactory, collect: Collect,
                 processes: int) -> None:
        config = dataclasses.replace(config, out=config.out.resolve())  # a worker's cwd is not ours to trust
        self.collect = collect
        self.concurrency = config.concurrency
        self.inline = config.concurrency == 1 and processes == 1
        """One slot in one process: every run in the driver's own thread (see :meth:`_run_inline`)."""
        self.pending = deque(runs)
        self.done: queue.Queue[tuple[Any, str | None, Result]] = queue.Queue()
        slots = split_slots(config.concurrency, processes)
        self.local = _ThreadShare(config.concurrency, config.concurrency, config, factory, self.done)
        self.shares: list[Any] = [self.local]
        for n in slots[1:] if runs else []:
            self.shares.append(_ProcessShare(n, config, runs[0].task, self.done))

    def run(self) -> None:
        """Until every run is collected; on ``KeyboardInterrupt`` stop, drain and re-raise."""
        if self.inline:
            self._run_inline()
            return
        try:
            self._hand_out()
            while any(s.running for s in self.shares):
                self._take(*self.done.get())
                self._hand_out()
        except KeyboardInterrupt:
            self.pending.clear()
            for share in self.shares:
                share.stop()
            waited = self._drain()
            self._close(wait=waited)
            raise
        except BaseException:
            for share in self.shares:
                share.stop()
            self._close(wait=False)
            raise
        self._close(wait=True)

    def _run_inline(self) -> None:
        """Run and collect every run in this thread, one after the other.

        With one slot a run's own thread bought nothing but two thread wake-ups per run (handing
        the run out, handing its outcome back), which a loaded machine made cost 1-2.5 ms a run.
        A Ctrl-C reaches the run in flight itself here: it is unscored with reason ``interrupted``
        (as a run stopped at its next decision is), the runs not started stay missing, and the
        ``KeyboardInterrupt`` goes on to the runner.
        """
        share = self.local
        while self.pending:
            run = self.pending.popleft()
            run_dir = share.runs_dir / run.name
            try:
                outcome = execute_run(run, run_dir=run_dir, factory=share.factory, extra=share.extra)
            except KeyboardInterrupt:
                self.pending.clear()
                mark_unscored(run, run_dir, "interrupted", {})
                self.collect(run, RunOutcome(run.name, run.task.task_id, run.repeat, run.seed, "unscored",
                                             reason="interrupted"))
                raise
            self.collect(run, outcome)

    def _hand_out(self) -> None:
        """Fill every free slot of every ready share with the next pending run, never more than
        ``concurrency`` in flight in all (the driver may still be above its share when a worker
        becomes ready)."""
        in_flight = sum(len(s.running) for s in self.shares)
        for share in self.shares:
            while self.pending and share.ready and len(share.running) < share.slots and in_flight < self.concurrency:
                run = self.pending.popleft()
                if not share.start(run):
                    self.pending.appendleft(run)
                    break
                in_flight += 1

    def _take(self, share: Any, name: str | None, result: Result) -> None:
        """One report: collect a finished run; hand a ready worker its slots; settle a dead worker's
        runs; re-raise an exception a run raised (a ``KeyboardInterrupt`` stops the evaluation)."""
        if isinstance(result, _WorkerReady):
            share.ready = True
            self.local.slots -= share.slots
        elif isinstance(result, _WorkerGone):
            self._gone(share, result)
        else:
            assert name is not None
            run = share.running.pop(name)
            if isinstance(result, BaseException):
                raise result
            self.collect(run, result)

    def _gone(self, share: Any, why: _WorkerGone) -> None:
        """A worker ended: its runs in flight are unscored with the reason; its slots return to the driver."""
        if share.ready:
            self.local.slots += share.slots
        share.ready = share.alive = False
        for run in list(share.running.values()):
            outcome = RunOutcome(run.name, run.task.task_id, run.repeat, run.seed, "unscored", reason=str(why))
            mark_unscored(run, share.runs_dir / run.name, outcome.reason, {})
            self.collect(run, outcome)
        share.running.clear()

    def _drain(self) -> bool:
        """Collect the runs still in flight as they stop; False when a second Ctrl-C stopped the wait."""
        try:
            while any(s.running for s in self.shares):
                share, name, result = self.done.get()
                if isinstance(result, _WorkerGone):
                    self._gone(share, result)
                elif name is not None:
                    run = share.running.pop(name)
                    if isinstance(result, RunOutcome):
                        self.collect(run, result)
        except KeyboardInterrupt:
            return False
        return True

    def _close(self, *, wait: bool) -> None:
        for share in self.shares:
            share.close(wait=wait)


def run_shared(runs: list[RunSpec], config: EvalConfig, factory: PolicyFactory, collect: Collect,
               processes: int) -> None:
    """Run ``runs`` on ``config.concurrency`` slots over the driver and ``processes - 1`` workers;
    ``collect`` every outcome in the calling thread. After an interrupt, raises ``KeyboardInterrupt``
    once the runs in flight have stopped and been collected."""
    _Driver(runs, config, factory, collect, processes).run()


# -- the worker process -----------------------------------------------------------------------

def worker_main(fd: int) -> None:
    """Body of a worker process: run what the driver sends on the socket ``fd`` until told to end.

    The first message is ``(EvalConfig, slots, probe task)``: the worker builds its policy
    factory from the probe and answers ``(None, _WorkerReady())``, or ``(None, _WorkerGone)``
    with the reason and exits. Then ``("run", (task or None, task id, repeat, seed, name))``
    (the task travels with the first run of its id only), ``("stop", None)`` (stop the runs in
    flight at their next decision) and ``None`` (finish the runs in flight, then exit); the
    driver going away counts as stop and end. Each run answers ``(run name, RunOutcome)``, or
    ``(run name, KeyboardInterrupt)`` when the run itself raised it.
    """
    from .config import make_factory

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the driver's to handle
    conn = Connection(fd)
    config, slots, probe = conn.recv()
    try:
        factory = make_factory(config, probe)
    except Exception as exc:  # noqa: BLE001  (the driver's own factory was built; tell it why this one was not)
        conn.send((None, _WorkerGone(f"worker process could not build the policy: {failure_reason(exc)}")))
        conn.close()
        return
    conn.send((None, _WorkerReady()))
    tasks = {probe.task_id: probe}
    stop = threading.Event()
    send_lock = threading.Lock()
    extra = config_extra(config)

    def run_one(run: RunSpec) -> None:
        result: RunOutcome | BaseException
        try:
            result = execute_run(run, run_dir=config.out / "runs" / run.name, factory=factory, extra=extra,
                                 stop=stop)
        except BaseException as exc:  # noqa: BLE001  (a KeyboardInterrupt raised by the run stops the driver)
            result = exc if isinstance(exc, KeyboardInterrupt) else RuntimeError(failure_reason(exc))
        with send_lock:
            try:
                conn.send((run.name, result))
            except (OSError, ValueError):
                stop.set()  # the driver is gone

    pool = ThreadPoolExecutor(max_workers=slots, thread_name_prefix="acworld-run")
    try:
        while True:
            message = conn.recv()
            if message is None:
                break
            kind, body = message
            if kind == "stop":
                stop.set()
            else:
                task, task_id, repeat, seed, name = body
                if task is not None:
                    tasks[task_id] = task
                pool.submit(run_one, RunSpec(tasks[task_id], repeat, seed, name))
    except (EOFError, OSError):
        stop.set()
    pool.shutdown(wait=True)
    conn.close()
