"""The base of every error this package raises on purpose.

Programmer and infrastructure errors (a malformed task, a broken or forged artifact, an
unreadable catalog, a missing optional dependency, a failing model provider) derive from
:class:`AcworldError`, so ``except AcworldError`` catches each of ours and nothing else. Every
class also keeps the built-in base its callers already catch (``ValueError``, ``RuntimeError``,
``TypeError``), so ``except ValueError`` still works where it did.

Outside the hierarchy, on purpose: a rejected action is an outcome, not an error (a code in the
step result; :class:`~acworld_env.cip.result.Reject` only carries it out of a rule); private
control-flow signals (names starting with ``_``); and
:class:`~acworld_env.eval.runner.EvalInterrupted`, a ``KeyboardInterrupt`` that
``except Exception`` must keep letting through.
"""

from __future__ import annotations


class AcworldError(Exception):
    """Base class of the errors acworld_env raises."""
