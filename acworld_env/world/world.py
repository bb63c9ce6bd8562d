"""The World: a state, the pure transition, and the hash-chained commits that changed it."""

from __future__ import annotations

import marshal
from typing import Any

try:  # a compiled decoder for copying initial states (see :class:`_JsonImage`)
    import orjson as _orjson
except ImportError:  # pragma: no cover - a declared dependency; marshal copies them otherwise
    _orjson = None

from . import handlers_after, handlers_trade  # noqa: F401  (register handlers)
from .commit_log import CommitLog
from .digest import GENESIS, canonical, chain, state_digest
from .state import clone
from .transition import apply_delta, transition


class World:
    """Deterministic commerce state. The only writer is :meth:`commit`.

    Commits are kept in memory; with a :class:`CommitLog` each one is also appended
    durably as it happens, so a crash loses nothing acknowledged.
    """

    def __init__(self, initial_state: dict, *, log: CommitLog | None = None) -> None:
        self._initial = _checked_image(initial_state)
        self.state = _load(self._initial)
        self._commits: list[dict] = []
        self._head = GENESIS
        self._unlinked: list[dict] = []
        """Commits made with ``linked=False`` whose hash links are not worked out yet, oldest first (the last
        of :attr:`_commits`); :attr:`commits` and :attr:`head` work them out before they are read."""
        self.log = log
        if log is not None:
            stored = log.commits()
            if stored:
                self._resume(stored)
            else:
                log.set_meta("initial_state", self.initial_state)

    def _resume(self, stored: list[dict]) -> None:
        from .replay import reconstruct

        assert self.log is not None
        saved_initial = self.log.get_meta("initial_state")
        result = reconstruct(saved_initial, stored, self.log.validations())
        self._initial = saved_initial
        self.state = result.state
        self.commits = stored
        self.head = result.event_digest

    @property
    def commits(self) -> list[dict]:
        """Every commit so far, oldest first, each with its hash links ``prev_hash`` and ``hash``."""
        if self._unlinked:
            self._link()
        return self._commits

    @commits.setter
    def commits(self, commits: list[dict]) -> None:
        self._link()
        self._commits = commits

    @property
    def head(self) -> str:
        """The hash of the latest commit (:data:`GENESIS` before the first)."""
        if self._unlinked:
            self._link()
        return self._head

    @head.setter
    def head(self, head: str) -> None:
        self._link()
        self._head = head

    def _link(self) -> None:
        """Work out the hash links of the commits made with ``linked=False``, in order (each cites the last)."""
        head = self._head
        for commit in self._unlinked:
            commit["prev_hash"] = head
            head = commit["hash"] = chain(head, commit["body"])
        self._head = head
        self._unlinked.clear()

    def commit(self, actor: str, validation: dict, events: list[dict], round_: int = 0, *,
               linked: bool = True) -> dict:
        """Apply one atomic list of events, citing an accepted validation; return the commit.

        ``linked=False`` (the market's own commits): the returned commit has no ``prev_hash`` and ``hash``
        yet; they are worked out, the same, when :attr:`commits`, :attr:`head` or :attr:`event_digest` is
        next read (a training loop reads none of them, and hashing was ~4 % of its step). Its body must not
        change meanwhile: nothing changes a commit, its events or the records its delta put in the state
        (:meth:`commit` replaces records, never edits them). With a commit log every commit is linked at once.
        """
        if not validation.get("accepted"):
            raise ValueError("a commit must cite an accepted validation")
        if validation.get("actor") != actor:
            raise ValueError("a commit must cite a validation of its own actor")
        delta = transition(self.state, events)
        body = {
            "seq": len(self._commits) + 1, "actor": actor, "validation_id": validation["validation_id"],
            "round": round_, "events": events, "delta": delta,
        }
        commit = {"seq": body["seq"], "actor": actor, "validation_id": validation["validation_id"], "body": body}
        apply_delta(self.state, delta)
        self._commits.append(commit)
        self._unlinked.append(commit)
        if linked or self.log is not None:
            self._link()
        if self.log is not None:
            self.log.append(commit, validation)
        return commit

    @property
    def initial_state(self) -> dict:
        """The state before the first commit: a fresh copy on every read (the World keeps its image)."""
        return _load(self._initial)

    @property
    def event_digest(self) -> str:
        """Head of the commit hash chain."""
        return self.head

    def state_digest(self) -> str:
        """SHA-256 of the canonical current state."""
        return state_digest(self.state)


_CHECKED: dict[bytes, bytes | _JsonImage] = {}
"""Exact ``marshal`` images of initial states that passed the canonical check (most recent last), each with
the image a World copies its state from: itself, or the state's :class:`_JsonImage` where there is one."""
_CHECKED_MAX = 256
_ALIASES: dict[bytes, bytes | _JsonImage] = {}
"""The same images by the states' version-4 ``marshal`` images (see :func:`_checked_image`), most recent last."""


_JSON_LEAVES = frozenset({str, int, bool, type(None)})
"""Value types that compact JSON gives back as they were (with string keys, integers within 64 bits)."""


class _JsonImage:
    """A state's compact JSON, kept instead of its ``marshal`` image where reading it back gives the very same
    values of the very same types, in the same order (dicts with string keys, lists, strings, integers within
    64 bits, booleans, None): the compiled decoder copies a task state in about half the time."""

    __slots__ = ("encoded",)

    def __init__(self, encoded: bytes) -> None:
        self.encoded = encoded


def _checked_image(state: dict) -> bytes | dict | _JsonImage:
    """``state``, checked to be canonical JSON data (integers, no floats), as an exact image to copy it from.

    An environment resets to the same few task states over and over: a state whose exact image
    (``marshal`` keeps every type: ``True`` is not ``1``) passed the check before is not checked
    again. A state ``marshal`` cannot write is kept as a checked copy instead.

    The state is first looked up by its version-4 ``marshal`` image (:data:`_ALIASES`), written in half
    the time of the version-2 one. Equal version-4 images are equal states (values, types, which strings
    are interned, and which objects the state holds twice), so they have the same version-2 image; a
    version-4 image also depends on which of the state's objects are referenced from elsewhere, so the
    same state may come with another one: that only costs a look-up by the version-2 image, as before.
    The copy is never made from a version-4 image (it would share what the state shares).
    """
    try:
        alias = marshal.dumps(state, 4)
        kept = _ALIASES.get(alias)
        if kept is not None:
            return kept
        image = marshal.dumps(state, 2)  # (fails where version 4 may not: on a state that holds itself)
    except ValueError:  # not plain data: the check below says why
        canonical(state, check=True)
        return clone(state)
    kept = _CHECKED.get(image)
    if kept is None:
        kept = _json_image(state)  # plain JSON data: canonical by construction, no second walk
        if kept is None:
            canonical(state, check=True)
            kept = image
        if len(_CHECKED) >= _CHECKED_MAX:
            del _CHECKED[next(iter(_CHECKED))]
        _CHECKED[image] = kept
    if len(_ALIASES) >= _CHECKED_MAX:
        _ALIASES.pop(next(iter(_ALIASES), None), None)  # (another thread may have taken it)
    _ALIASES[alias] = kept
    return kept


def _json_image(state: dict) -> _JsonImage | None:
    """``state``'s compact JSON if reading it back gives ``state`` exactly (see :class:`_JsonImage`), else None.

    One walk over the values, no path kept: every container must be a plain dict or list and every other
    value a plain string, integer, boolean or None. The compiled encoder then refuses the rest (a key that
    is not a string, an integer past 64 bits, a lone surrogate, nesting past 255 levels). Such a state
    holds no float and no object, so it passes the canonical check too (:func:`_checked_image` runs the
    check, which names the first problem, only where this returns None); and since marshal wrote it
    first, no value is a subclass (marshal refuses those), so the JSON reads back as the very same values.
    """
    if _orjson is None or type(state) is not dict:
        return None
    todo: list[Any] = [state]
    pop, push, leaves = todo.pop, todo.append, _JSON_LEAVES
    while todo:
        value = pop()
        for item in value.values() if type(value) is dict else value:
            kind = type(item)
            if kind is dict or kind is list:
                push(item)
            elif kind not in leaves:
                return None  # a float, a tuple (read back as a list), an object, ...
    try:
        return _JsonImage(_orjson.dumps(state))
    except (TypeError, ValueError):  # a key that is not a string, a huge integer, a lone surrogate, deep nesting
        return None


def _load(initial: bytes | dict | _JsonImage) -> dict:
    """An independent copy of a state kept by :func:`_checked_image` (or given as a dict)."""
    if type(initial) is _JsonImage:
        return _orjson.loads(initial.encoded)
    return marshal.loads(initial) if isinstance(initial, bytes) else clone(initial)
