"""Reconstruction's cost per commit: at most one canonical encoding per replayed commit.

The replay checks each commit's hash and its recorded delta with a single encoding of the body
(carrying the recomputed delta); the only other encoding is the final state digest, once per
replay. Counted on the probe's workload through ``Market.submit``, replayed from the SQLite log.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from acworld_env.eval import probe
from acworld_env.market import Market
from acworld_env.world import CommitLog, ReplayError, World, digest, reconstruct


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, list[dict], dict, tuple[str, str]]:
    """The probe's workload at n = 12 through Market.submit, read back from its log file."""
    path = Path(tmp_path_factory.mktemp("replay")) / "log.sqlite"
    w = probe.workload(12, 0)
    log = CommitLog(path, durable=False)
    market = Market(probe.initial_state(w), seed=0, log=log)
    probe.register_listings(market, w)
    probe.settle(market, probe.search(market.world.state["listings"], w))
    live = (market.world.state_digest(), market.world.event_digest)
    log.close()
    reader = CommitLog(path, readonly=True)
    stored = (reader.get_meta("initial_state"), reader.commits(), reader.validations())
    reader.close()
    return (*stored, live)


def _counting(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Count calls of the canonical encoder and every JSON encoding made: by the compiled encoder
    (``digest._compiled`` returning bytes) or by ``JSONEncoder.encode`` (the standard one)."""
    calls = {"canonical": 0, "json": 0}
    canonical, compiled, encode = digest.canonical, digest._compiled, json.JSONEncoder.encode

    def counted_canonical(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls["canonical"] += 1
        return canonical(*args, **kwargs)

    def counted_compiled(obj):  # type: ignore[no-untyped-def]
        out = compiled(obj)
        calls["json"] += out is not None
        return out

    def counted_encode(self, obj):  # type: ignore[no-untyped-def]
        calls["json"] += 1
        return encode(self, obj)

    monkeypatch.setattr(digest, "canonical", counted_canonical)
    monkeypatch.setattr(digest, "_compiled", counted_compiled)
    monkeypatch.setattr(json.JSONEncoder, "encode", counted_encode)
    return calls


def test_replay_encodes_each_commit_once_and_the_state_once(history, monkeypatch: pytest.MonkeyPatch) -> None:
    initial, commits, validations, live = history
    assert len(commits) == 12 * 6
    calls = _counting(monkeypatch)
    rebuilt = reconstruct(initial, commits, validations)
    assert (rebuilt.state_digest, rebuilt.event_digest) == live
    # N commits: N body encodings (hash and delta checked together) + 1 for the final state digest.
    assert calls == {"canonical": len(commits) + 1, "json": len(commits) + 1}


def test_an_edited_recorded_delta_is_caught(history) -> None:
    """The hash is checked on the stored body, so an edit of its delta alone is caught too."""
    initial, commits, validations, _ = history
    forged = json.loads(json.dumps(commits))
    forged[30]["body"]["delta"][0][2] = {**forged[30]["body"]["delta"][0][2], "forged": 1}
    with pytest.raises(ReplayError) as exc:
        reconstruct(initial, forged, validations)
    assert exc.value.seq == 31 and "hash mismatch" in exc.value.reason


def test_a_world_resumed_from_its_log_has_the_live_digests(history, tmp_path: Path) -> None:
    initial, commits, validations, live = history
    log = CommitLog(tmp_path / "copy.sqlite", durable=False)
    log.set_meta("initial_state", initial)
    log.append_many(commits, list(validations.values()))
    resumed = World(initial, log=log)
    assert (resumed.state_digest(), resumed.event_digest) == live
    log.close()


def test_reading_a_log_pauses_the_collector_and_restores_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Decoding runs with the cyclic collector off (flat cost per commit); it is on again after."""
    import gc

    from acworld_env.world import commit_log

    log = CommitLog(tmp_path / "gc.sqlite", durable=False)
    world = World(probe.initial_state(probe.workload(3, 0)), log=log)
    world.commit("M00000", {"validation_id": "val-1", "actor": "M00000", "accepted": True}, [
        {"type": "listing_published", "listing_id": "L-new-0001",
         "record": {"merchant": "M00000", "price": 100, "stock": 1, "status": "active"}}])
    seen: list[bool] = []
    load = commit_log._load

    def watching(text: str, what: str):  # type: ignore[no-untyped-def]
        seen.append(gc.isenabled())
        return load(text, what)

    monkeypatch.setattr(commit_log, "_load", watching)
    assert gc.isenabled()
    assert len(log.commits()) == 1 and len(log.validations()) == 1
    assert seen == [False, False] and gc.isenabled()
    gc.disable()  # a caller that had it off keeps it off
    try:
        log.commits()
        assert not gc.isenabled()
    finally:
        gc.enable()
    log.close()
