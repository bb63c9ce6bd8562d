"""What a participant can and cannot do in a sealed round: internals unreachable, one play per slot,
rate limits, concurrent participants, signed results that fail on any edit, and no secret, seed or
token in anything the host returns or writes before the reveal."""

from __future__ import annotations

import base64
import json
import threading
from pathlib import Path

import httpx
import pytest

from acworld_env.eval.config import EvalConfig
from acworld_env.sealed.client import SealedClient, SealedClientError
from acworld_env.sealed.participant import run_sealed
from acworld_env.sealed.result import verify_signed
from acworld_env.sealed.round import RateLimiter


def play(rnd, name: str, out: Path, policy: str = "random", concurrency: int = 2) -> dict:
    config = EvalConfig(env_id="capability-v1", policy=policy, out=out, concurrency=concurrency)
    return run_sealed(config, url=rnd.url, token=rnd.token(name), progress=False)


def test_task_internals_are_not_reachable(sealed_round, tmp_path):
    rnd = sealed_round
    client = SealedClient(rnd.url, rnd.token("bob"))
    sub = client.open_submission("probe")
    assert set(sub["slots"]) == set(rnd.sealed.rt.slots)
    start = client.open_episode("slot-001")
    task = rnd.sealed.rt.slots["slot-001"]
    eid = start["episode_id"]
    assert set(start["state"]) <= {"agents", "agent_selection", "terminations", "truncations", "version", "done",
                                   "status", "slot", "info", "observation"}
    obs = client.observation(eid)
    reply = client.act(eid, {"action": {"kind": "finish"}, "observe": True}, "k1")
    assert set(reply["info"]) <= {"actor", "role", "evaluated", "step", "validation"}
    assert "rewards" not in reply and "task_id" not in reply
    ended = client.end(eid)
    assert set(ended) == {"slot", "status", "reason"}  # no score
    blob = json.dumps([start, obs, reply, ended, sub, client.round()])
    assert task.task_id not in blob and str(rnd.sealed.rt.seed) not in blob
    for pred in task.predicates:
        assert f'"{pred.id}"' not in blob  # no predicate, credit or evidence
    for word in ('"reference"', '"predicates"', '"rubric', '"credits"', '"evidence"', '"score"'):
        assert word not in blob
    token = {"authorization": f"Bearer {rnd.token('bob')}"}
    with httpx.Client(base_url=rnd.url) as http:
        # the market server's host routes do not exist on a sealed server
        for path in (f"/v1/episodes/{eid}", f"/v1/episodes/{eid}/state", f"/v1/episodes/{eid}/transcript",
                     f"/v1/episodes/{eid}/result", "/v1/envs"):
            assert http.get(path, headers=token).status_code in (404, 405)
        assert http.post("/v1/episodes", headers=token, json={"task_id": task.task_id}).status_code in (404, 405)
        # a slot is played once per submission
        again = http.post("/v1/sealed/episodes", headers=token, json={"slot": "slot-001"})
        assert again.status_code == 409 and again.json()["error"]["code"] == "slot_played"
        # another participant cannot touch bob's episodes
        other = http.post("/v1/sealed/episodes", headers={"authorization": f"Bearer {rnd.token('carol')}"},
                          json={"slot": "slot-002"})
        assert other.status_code == 409 and other.json()["error"]["code"] == "no_open_submission"
        live = client.open_episode("slot-002")["episode_id"]
        carol = http.get(f"/v1/sealed/episodes/{live}/observation",
                         headers={"authorization": f"Bearer {rnd.token('carol')}"})
        assert carol.status_code == 404
        no_token = http.get(f"/v1/sealed/episodes/{live}/observation")
        assert no_token.status_code == 401
    result = client.close_submission()  # slot-002 in play and the others never opened: unscored
    assert result["unscored"] == len(rnd.sealed.rt.slots) - result["scored"] and result["unscored"] >= 9
    assert result["mean_score_over_all"] <= (result["mean_score"] or 0.0)
    log = [e for e in rnd.sealed.state.read_log() if e.get("participant") == "bob"]
    assert [e["slot"] for e in log if e["event"] == "episode_opened"] == ["slot-001", "slot-002"]


def test_two_participants_at_once_get_the_same_signed_figures(sealed_round, tmp_path):
    rnd = sealed_round
    results: dict[str, dict] = {}

    def go(name: str) -> None:
        results[name] = play(rnd, name, tmp_path / name)

    threads = [threading.Thread(target=go, args=(n,)) for n in ("carol", "dave")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    carol, dave = results["carol"], results["dave"]
    assert carol["scored"] == dave["scored"] == 10
    assert carol["root_digest"] == dave["root_digest"]  # same policy and seed: the same runs, byte for byte
    assert carol["participant"] == "carol" and dave["participant"] == "dave"
    key = rnd.state_dir / "public_key.pem"
    assert verify_signed(carol, key) == [] and verify_signed(dave, key) == []
    # a lost reply at closing: closing again, or asking for the last result, gives the same signed result
    client = SealedClient(rnd.url, rnd.token("carol"))
    assert client.close_submission() == carol
    assert client.call("GET", "/submissions/last") == carol
    config = EvalConfig(env_id="capability-v1", policy="random", out=tmp_path / "carol-again", resume=True)
    assert run_sealed(config, url=rnd.url, token=rnd.token("carol"), progress=False) == carol
    assert json.loads((tmp_path / "carol-again" / "signed_result.json").read_text()) == carol


def test_any_edit_of_a_signed_result_fails(sealed_round, tmp_path):
    rnd = sealed_round
    result = play(rnd, "erin", tmp_path / "erin")
    key = rnd.state_dir / "public_key.pem"
    assert verify_signed(result, key) == []
    edits = [("mean_score", 0.99), ("participant", "mallory"), ("root_digest", "0" * 64),
             ("by_family", {"T1_discovery": 1.0})]
    for field, value in edits:
        assert verify_signed({**result, field: value}, key), field
    runs = json.loads(json.dumps(result["runs"]))
    runs[0]["trace_digest"] = "f" * 64
    assert verify_signed({**result, "runs": runs}, key)
    sig = bytearray(base64.b64decode(result["signature"]))
    sig[0] ^= 1
    assert verify_signed({**result, "signature": base64.b64encode(bytes(sig)).decode()}, key)
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    other = tmp_path / "other.pem"
    other.write_bytes(Ed25519PrivateKey.generate().public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    assert verify_signed(result, other)


def test_requests_are_rate_limited_per_token(sealed_round, monkeypatch):
    rnd = sealed_round
    monkeypatch.setattr(rnd.sealed, "limiter", RateLimiter(rate=0.5, burst=3))
    headers = {"authorization": f"Bearer {rnd.token('frank')}"}
    with httpx.Client(base_url=rnd.url) as http:
        codes = [http.get("/v1/sealed/submissions/current", headers=headers) for _ in range(4)]
        assert [c.status_code for c in codes[:3]] == [409, 409, 409]  # no submission yet, but admitted
        assert codes[3].status_code == 429 and codes[3].json()["error"]["code"] == "rate_limited"
        assert int(codes[3].headers["retry-after"]) >= 1
        other = http.get("/v1/sealed/submissions/current", headers={"authorization": f"Bearer {rnd.token('grace')}"})
        assert other.status_code == 409  # another token has its own budget
    monkeypatch.setattr(rnd.sealed, "limiter", RateLimiter(rate=20.0, burst=1))
    client = SealedClient(rnd.url, rnd.token("frank"))
    with pytest.raises(SealedClientError) as err:  # the client waits out each 429 and gets the real answer
        for _ in range(5):
            client.call("GET", "/submissions/current")
    assert err.value.code == "no_open_submission"


def test_no_secret_token_or_seed_reaches_a_reply_or_a_file_before_the_reveal(sealed_round, tmp_path, capfd,
                                                                              caplog):
    import logging

    caplog.set_level(logging.DEBUG)
    rnd = sealed_round
    play(rnd, "heidi", tmp_path / "heidi")
    client = SealedClient(rnd.url, rnd.token("ivan"))
    client.open_submission("probe")
    for bad in ("/episodes/x/observation", "/nope"):
        with pytest.raises(SealedClientError) as err:
            client.call("GET", bad)
        assert rnd.token("ivan") not in str(err.value)
    secret = rnd.secret
    tokens = {n: rnd.token(n).encode() for n in ("alice", "bob", "carol", "dave", "erin", "heidi", "ivan")}
    seed = str(rnd.sealed.rt.seed).encode()
    replies = b"\n".join(rnd.replies)
    assert replies and secret not in replies and seed not in replies
    assert not any(t in replies for t in tokens.values())
    for path in rnd.state_dir.rglob("*"):
        if not path.is_file():
            continue
        data = path.read_bytes()
        assert secret not in data, path
        for name, tok in tokens.items():
            if path.name != f"{name}.token":
                assert tok not in data, path
    for path in tmp_path.rglob("*"):  # what the participant keeps: no token, no seed
        if path.is_file():
            data = path.read_bytes()
            assert seed not in data and not any(t in data for t in tokens.values()), path
    captured = capfd.readouterr()
    printed = (captured.out + captured.err + "\n".join(r.getMessage() for r in caplog.records)).encode()
    assert secret not in printed and not any(t in printed for t in tokens.values())


def test_resume_plays_only_the_slots_left_and_small_families_are_withheld(sealed_round, tmp_path, monkeypatch):
    rnd = sealed_round
    monkeypatch.setattr(rnd.sealed, "min_family_tasks", 3)  # one task per family here: no family mean is signed
    client = SealedClient(rnd.url, rnd.token("grace"))
    client.open_submission("random")
    first = client.open_episode("slot-003")["episode_id"]  # left in play, as by a process that died
    out = tmp_path / "grace"
    with pytest.raises(Exception, match="continue it with --resume"):
        play(rnd, "grace", out)
    config = EvalConfig(env_id="capability-v1", policy="random", out=out, concurrency=2, resume=True)
    notes: list[str] = []
    result = run_sealed(config, url=rnd.url, token=rnd.token("grace"), progress=False, notes=notes)
    assert any("resumed submission grace-1" in n for n in notes)
    assert result["scored"] == 9 and result["unscored"] == 1  # the slot left in play cannot be replayed
    assert result["by_family"] == {} and len(result["families_withheld"]) == 10
    assert result["mean_score_over_all"] is not None
    journal = json.loads((out / "participation.json").read_text())
    assert journal["slots"]["slot-003"]["status"] == "unscored"
    ended = [e for e in rnd.sealed.state.read_log() if e.get("episode") == first and e["event"] == "episode_ended"]
    assert ended and ended[0]["status"] == "unscored"


def test_ctrl_c_keeps_the_submission_open_and_resume_finishes_it(sealed_round, tmp_path):
    from acworld_env.policies.random_policy import RandomPolicy
    from acworld_env.sealed.participant import SealedInterrupted

    rnd = sealed_round
    made = iter(range(100))

    class CtrlC:
        def act(self, observation):
            raise KeyboardInterrupt

    def factory(task, seed):
        return CtrlC() if next(made) == 2 else RandomPolicy(seed=0)

    out = tmp_path / "judy"
    config = EvalConfig(env_id="capability-v1", policy="random", out=out, concurrency=1)
    with pytest.raises(SealedInterrupted) as stop:
        run_sealed(config, url=rnd.url, token=rnd.token("judy"), progress=False, factory=factory)
    assert stop.value.left == 7  # two slots played, the third stopped in flight, seven never started
    slots = SealedClient(rnd.url, rnd.token("judy")).call("GET", "/submissions/current")["slots"]
    assert sorted(slots.values()).count("new") == 7
    assert not (out / "signed_result.json").exists()
    config.resume = True
    result = run_sealed(config, url=rnd.url, token=rnd.token("judy"), progress=False)
    assert result["planned"] == 10 and result["scored"] + result["unscored"] == 10
    assert result["unscored"] >= 1 and (out / "signed_result.json").exists()


def test_a_restarted_host_turns_episodes_in_play_into_unscored_runs_and_goes_on(sealed_round, tmp_path):
    import shutil

    from acworld_env.remote.serve import ServerThread
    from acworld_env.sealed.host import SealedHost
    from acworld_env.sealed.routes import create_sealed_app

    rnd = sealed_round
    client = SealedClient(rnd.url, rnd.token("frank"))
    client.open_submission("random")
    client.open_episode("slot-004")  # in play when the host "stops"
    state = tmp_path / "D"
    shutil.copytree(rnd.state_dir, state)
    again = SealedHost.start(state)
    sub = again.subs["frank-1"]
    assert sub["slots"]["slot-004"]["status"] == "unscored"
    assert "host stopped" in sub["slots"]["slot-004"]["reason"]
    assert (state / "submissions" / "frank-1" / "runs" / sub["slots"]["slot-004"]["run"] / "unscored.json").is_file()
    with ServerThread(app=create_sealed_app(again)) as url:
        config = EvalConfig(env_id="capability-v1", policy="random", out=tmp_path / "frank", resume=True)
        result = run_sealed(config, url=url, token=rnd.token("frank"), progress=False)
    assert result["scored"] == 9 and result["unscored"] == 1
    assert verify_signed(result, state / "public_key.pem") == []


def test_an_abandoned_episode_is_unscored_and_cannot_be_ended_again(sealed_round, monkeypatch):
    rnd = sealed_round
    client = SealedClient(rnd.url, rnd.token("ivan"))
    client.open_submission("probe")  # opened by the leak test, or now
    eid = client.open_episode("slot-005")["episode_id"]
    monkeypatch.setattr(rnd.sealed, "idle_timeout", 0.0)
    slots = client.call("GET", "/submissions/current")["slots"]  # any request sweeps idle episodes
    assert slots["slot-005"] == "ended"
    sub = rnd.sealed.subs["ivan-1"]
    assert sub["slots"]["slot-005"]["status"] == "unscored"
    assert sub["slots"]["slot-005"]["reason"].startswith("abandoned")
    with pytest.raises(SealedClientError) as err:
        client.end(eid)
    assert err.value.status == 410 and err.value.code == "episode_closed"
