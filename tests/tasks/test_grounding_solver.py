"""T2 tasks are solvable from what the agent sees: an honest solver that reads only its observations
(the listings it fetches, the mandate, the request and the buyer's question) earns full credit on
every frozen and generated task, stating each figure asked for in the unit asked for."""

from __future__ import annotations

import re
from typing import Any

import pytest

from acworld_env.eval.rollout import run_episode
from acworld_env.scoring.grounding_units import UNITS, key_unit, matches, quantity, to_base
from acworld_env.tasks.families.grounding import build

WORDS = {"weigh": "weight", "weight": "weight", "thick": "thickness", "thickness": "thickness", "long": "length",
         "length": "length", "wide": "width", "width": "width", "drop": "heel_drop"}
ASKED = re.compile(r"\b(" + "|".join(WORDS) + r")\b(?: is it)?(?: in (grams|ounces|pounds|kilograms|millimetres|"
                   r"centimetres|inches))?")


def _asked(text: str) -> dict[str, str | None]:
    """Spec stem -> the unit the words ask for it in (None: no unit named), in the order asked."""
    out: dict[str, str | None] = {}
    for m in ASKED.finditer(text.lower()):
        out.setdefault(WORDS[m.group(1)], m.group(2))
    return out


def _figures(view: dict) -> dict[str, tuple[float, str]]:
    """Spec stem -> (figure, unit) from a record's attributes (``weight_g`` -> weight in g)."""
    out = {}
    for k, v in (view.get("attributes") or {}).items():
        stem, unit = key_unit(k)
        if unit and isinstance(v, int | float) and not isinstance(v, bool):
            out[stem] = (float(v), unit)
    return out


def _in(fig: tuple[float, str], unit: str | None) -> str:
    v, u = fig
    unit = unit or u
    return f"{v * UNITS[u][1] / UNITS[unit][1]:.4g} {unit}"


def _backed(key: str, value: str, view: dict) -> bool:
    figs, attrs = _figures(view), view.get("attributes") or {}
    stem = key_unit(key)[0]
    if stem in figs:
        return matches(quantity(key, value), to_base(*figs[stem]))
    if isinstance(attrs.get(key), bool):
        return attrs[key] is True and value.lower() == "yes"
    return isinstance(attrs.get(key), str) and attrs[key].casefold() == value.casefold()


class HonestSolver:
    """Reads every listing named, then claims only what the records show."""

    def __init__(self) -> None:
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        self.todo: list[str] | None = None
        self.seen: dict[str, dict] = {}
        self.queue: list[dict] | None = None
        self.question: dict | None = None

    def act(self, obs: dict[str, Any]) -> dict | None:
        self.question = self.question or next((m for m in obs["inbox"] if m.get("kind") == "question"), None)
        last = obs.get("last_result") or {}
        if last.get("kind") == "get_listing" and last.get("accepted"):
            self.seen[last["result"]["listing_id"]] = last["result"]
        if self.todo is None:
            self.todo = list(obs["mandate"]["listings"])
        if self.todo:
            return {"kind": "get_listing", "listing_id": self.todo.pop(0)}
        if self.queue is None:
            self.queue = self.decide(obs["mandate"], obs["role"], obs["request"])
        return self.queue.pop(0) if self.queue else None

    def decide(self, m: dict, role: str, request: str) -> list[dict]:
        views = [self.seen[x] for x in m["listings"]]
        records = [v for v in views if v.get("attributes")]
        done = {"kind": "finish", "summary": "done"}
        if role == "buyer":
            fields = [f for f in m["answer_fields"] if f != "listing_id"]
            if "supported" in fields:
                v = views[0]
                sup = [k for k, val in v["claims"].items() if _backed(k, val, v)]
                return [{"kind": "submit_answer", "evidence": [v["listing_id"]], "answer": {
                    "listing_id": v["listing_id"], "supported": sup,
                    "unsupported": [k for k in v["claims"] if k not in sup]}}]
            if "compare" in m:
                stem, low = m["compare"]["attribute"], m["compare"]["goal"] == "lowest"
                pick = (min if low else max)(records, key=lambda v: to_base(*_figures(v)[stem])[1])
                records = [pick]
            rec = records[0]
            answer = {"listing_id": rec["listing_id"],
                      **{f: _in(_figures(rec)[key_unit(f)[0]], key_unit(f)[1]) for f in fields}}
            return [{"kind": "submit_answer", "answer": answer, "evidence": [v["listing_id"] for v in records]}]
        own = self.seen[m["listing"]]
        figs = _figures(own)
        if "draft" in m:
            units = _asked(request)
            claims = {s: _in(figs[s], units.get(s)) for s in m["claim_keys"]}
            return [{"kind": "update_listing", "listing_id": own["listing_id"], "claims": claims}, done]
        if "wanted_claims" in m:
            others = [v for v in views if v is not own]
            facts = {"lighter": lambda v: _figures(v)["weight"][0], "cheaper": lambda v: v["price"]}
            claims = {}
            for rel, value in m["wanted_claims"].items():
                word = rel.split("_")[0].replace("lightest", "lighter").replace("cheapest", "cheaper")
                f = facts[word]
                if rel.endswith("_than"):
                    ok = [t.strip() for t in value.split(",") if f(own) < f(self.seen[t.strip()])]
                    if ok:
                        claims[rel] = ", ".join(ok)
                elif all(f(own) < f(v) for v in others):
                    claims[rel] = "yes"
            return [{"kind": "update_listing", "listing_id": own["listing_id"], "claims": claims}, done]
        if self.question is not None:
            asked = {s: u for s, u in _asked(self.question["text"]).items() if s in figs}
            text = "From our product record: " + "; ".join(f"{s} {_in(figs[s], u)}" for s, u in asked.items()) + "."
            return [{"kind": "answer_question", "in_reply_to": self.question["message_id"], "text": text}, done]
        fixes = {k: _in(figs[key_unit(k)[0]], None) for k, v in own["claims"].items()
                 if key_unit(k)[0] in figs and not _backed(k, v, own)}
        drops = [{"kind": "retract_claim", "listing_id": own["listing_id"], "claim": k} for k, v in own["claims"].items()
                 if key_unit(k)[0] not in figs and not _backed(k, v, own)]
        return [{"kind": "update_listing", "listing_id": own["listing_id"], "claims": fixes}, *drops, done]


@pytest.mark.parametrize(("seed", "frozen"), [(0, True), (4, False)])
def test_an_honest_observation_only_solver_earns_full_credit(seed: int, frozen: bool) -> None:
    for task in build(seed, frozen=frozen):
        score = run_episode(task, HonestSolver()).score
        assert score.full_credit, (task.task_id, score.credits)
