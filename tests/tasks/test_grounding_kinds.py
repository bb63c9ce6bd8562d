"""The T2 predicate kinds on hand-built traces and states: where each must pass and where it must fail.

``GROUNDING_CASES``: kind -> params, then (label, records, state, expected credit). Also the
quantity reader the kinds share (units in keys, values and free text).
"""

from __future__ import annotations

from typing import Any

import pytest

from acworld_env.scoring import KINDS, ScoreInput
from acworld_env.scoring.grounding_units import key_unit, quantities_in, quantity
from acworld_env.tasks.spec import PolicyRef, PredicateSpec, TaskSpec
from acworld_env.world import empty_state, listing_record

B, M, L, K = "buyer_0", "merchant_0", "m1-p1-v1", "m2-p2-v1"


def rec(n: int, action: dict, *, actor: str = B, accepted: bool = True, evidence: list | None = None) -> dict:
    """A minimal lineage record of the shape the kinds read."""
    return {"n": n, "round": 0, "actor": actor, "action": action,
            "validation": {"accepted": accepted, "code": "ok" if accepted else "x"}, "evidence": evidence or []}


def get(n: int, lid: str = L, actor: str = B) -> dict:
    return rec(n, {"kind": "get_listing", "listing_id": lid}, actor=actor, evidence=[lid])


def ans(n: int, answer: dict, evidence: list | None = None) -> dict:
    return rec(n, {"kind": "submit_answer", "answer": answer, "evidence": evidence or []})


def upd(n: int, claims: dict | None = None, kind: str = "update_listing") -> dict:
    return rec(n, {"kind": kind, "listing_id": L, "claims": claims or {}}, actor=M)


def reply(n: int, text: str) -> dict:
    return rec(n, {"kind": "answer_question", "in_reply_to": "msg-0001", "text": text}, actor=M)


def listed(claims: dict) -> dict[str, Any]:
    s = empty_state()
    s["listings"][L] = listing_record(M, 9_900, 3, claims=claims)
    return s


S0 = empty_state()
SPECS = {"weight": [3350, "g"], "thickness": [4.5, "mm"]}
TABLE = {"lighter_than": {K: True, "m3-p9": False}, "lightest": {"*": False}}

GROUNDING_CASES: dict[str, tuple[dict, list[tuple[str, list, dict, float]]]] = {
    "records_read_first": ({"actor": B, "records": [L, K], "kinds": ["submit_answer"]}, [
        ("both read first", [get(1), get(2, K), ans(3, {})], S0, 1.0),
        ("one read after the answer", [get(1), ans(2, {}), get(3, K)], S0, 0.5),
        ("a refused answer does not count as the claim", [rec(1, {"kind": "submit_answer"}, accepted=False),
                                                          get(2), get(3, K), ans(4, {})], S0, 1.0),
        ("no claim", [get(1), get(2, K)], S0, 0.0),
    ]),
    "answer_cites": ({"actor": B, "records": [L]}, [
        ("cited", [ans(1, {}, [L, K])], S0, 1.0),
        ("named as the answer's listing", [ans(1, {"listing_id": L, "source": [K]})], S0, 1.0),
        ("not cited", [ans(1, {"listing_id": K}, [K])], S0, 0.0),
        ("no answer", [], S0, 0.0),
    ]),
    "answer_quantities": ({"actor": B, "expected": {"weight_oz": 118.17, "thickness_in": 0.1772}}, [
        ("converted, as strings", [ans(1, {"weight_oz": "118.2", "thickness_in": "0.18"})], S0, 1.0),
        ("asked units in the value", [ans(1, {"weight": "118.2 oz", "thickness": "0.18 in"})], S0, 1.0),
        ("right figures, units not asked", [ans(1, {"weight": "3.35 kg", "thickness": "4.5 mm"})], S0, 0.0),
        ("one field lists every unit", [ans(1, {"weight_oz": "118.2 oz / 3.35 kg / 7.39 lb",
                                                "thickness_in": "0.18"})], S0, 0.5),
        ("every unit as its own field", [ans(1, {"weight_oz": "118.2", "weight_kg": "3.35", "thickness_in": "0.18",
                                                 "thickness_mm": 4.5})], S0, 0.0),
        ("a figure nobody asked for", [ans(1, {"weight_oz": "118.2", "thickness_in": "0.18",
                                               "length": "183 cm"})], S0, 0.0),
        ("integer in the asked unit", [ans(1, {"weight_oz": 118, "thickness_in": "0.177 in"})], S0, 1.0),
        ("unconverted figure", [ans(1, {"weight_oz": "3350", "thickness_in": "0.18"})], S0, 0.5),
        ("seller's figure", [ans(1, {"weight_oz": "2.9 kg", "thickness_in": "0.25 in"})], S0, 0.0),
        ("abstained", [rec(1, {"kind": "abstain", "reason": "x"})], S0, 0.0),
    ]),
    "claim_verdicts": ({"actor": B, "truth": {"weight": "supported", "warranty": "unsupported",
                                              "material": "unsupported"}}, [
        ("all right", [ans(1, {"supported": ["weight"], "unsupported": ["warranty", "material"]})], S0, 1.0),
        ("comma text", [ans(1, {"supported": "weight", "unsupported": "warranty, material"})], S0, 1.0),
        ("lists named in other words", [ans(1, {"backed_claims": ["weight"], "not_backed": ["warranty"],
                                                "contradicted": ["material"]})], S0, 1.0),
        ("names written loosely", [ans(1, {"supported": ["Weight: 3.35 kg"], "unsupported": ["Warranty",
                                                                                          "material (cork)"]})],
         S0, 1.0),
        ("trusts every claim", [ans(1, {"supported": ["weight", "warranty", "material"]})], S0, 1 / 3),
        ("both lists", [ans(1, {"supported": ["weight", "material"], "unsupported": ["warranty", "material"]})],
         S0, 2 / 3),
        ("no answer", [], S0, 0.0),
    ]),
    "listing_quantities": ({"listing": L, "expected": SPECS}, [
        ("right, other units", [], listed({"weight": "3.35 kg", "thickness": "0.18 in"}), 1.0),
        ("every unit in one claim", [], listed({"weight": "3,350 g / 3.35 kg / 118.2 oz", "thickness": "4.5 mm"}),
         0.5),
        ("claimed under two names", [], listed({"weight_g": "3350", "weight_oz": "118.2", "thickness": "4.5 mm"}),
         0.5),
        ("unit in the key", [], listed({"weight_g": "3350", "thickness_mm": "4.5"}), 1.0),
        ("one wrong", [], listed({"weight": "2,900 g", "thickness": "4.5 mm"}), 0.5),
        ("bare figures", [], listed({"weight": "3350", "thickness": "4.5"}), 0.0),
        ("missing", [], listed({}), 0.0),
    ]),
    "listing_claims_supported": ({"actor": M, "listing": L, "specs": SPECS, "backed": {"material": "PU", "non_slip": "yes"},
                                  "comparisons": TABLE}, [
        ("record facts", [upd(1)], listed({"Non-slip": "true", "material": "pu"}), 1.0),
        ("all backed", [upd(1)], listed({"weight": "3,350 g", "material": "pu", "lighter_than": K}), 1.0),
        ("nothing left", [upd(1, kind="retract_claim")], listed({}), 1.0),
        ("wrong figure", [upd(1)], listed({"weight": "2.9 kg"}), 0.0),
        ("backed, ids with names", [upd(1)], listed({"lighter than": f"{K} (Acme mat)"}), 1.0),
        ("unbacked comparison", [upd(1)], listed({"lighter_than": f"{K}, m3-p9"}), 0.0),
        ("comparison naming no listing", [upd(1)], listed({"lighter_than": "the others"}), 0.0),
        ("superlative", [upd(1)], listed({"lightest": "yes"}), 0.0),
        ("claim not on the record", [upd(1)], listed({"warranty": "10 years"}), 0.0),
        ("every unit, all true", [upd(1)], listed({"weight": "3,350 g / 3.35 kg / 118.2 oz"}), 1.0),
        ("a list hiding a wrong figure", [upd(1)], listed({"weight": "3,350 g (about 2.9 kg)"}), 0.0),
        ("never edited", [], listed({"weight": "3,350 g"}), 0.0),
    ]),
    "comparisons_made": ({"listing": L, "wanted": [["lighter_than", K], ["cheaper_than", K], ["cheapest", "*"]]}, [
        ("all made", [], listed({"lighter_than": K, "cheaper_than": f"m3, {K}", "cheapest": "yes"}), 1.0),
        ("one made", [], listed({"lighter_than": K}), 1 / 3),
        ("none", [], listed({}), 0.0),
    ]),
    "listing_claims_kept": ({"actor": M, "listing": L, "keep": ["weight", "material"], "specs": SPECS,
                             "backed": {"material": "PU"}}, [
        ("kept", [upd(1)], listed({"weight": "3,350 g", "material": "PU"}), 1.0),
        ("reworded", [upd(1)], listed({"weight": "3.35 kg", "material": "PU"}), 1.0),
        ("retracted one", [upd(1, kind="retract_claim")], listed({"material": "PU"}), 0.5),
        ("never edited", [], listed({"weight": "3,350 g", "material": "PU"}), 0.0),
    ]),
    "reply_quantities": ({"actor": M, "question": "msg-0001", "requested": {"weight_g": 3350, "length_cm": 183},
                          "units": {"weight_g": "lb"},
                          "authority": {"weight_g": 3350, "length_cm": 183, "thickness_mm": 4.5}}, [
        ("both, in the units asked", [reply(1, "It weighs 7.4 lb and is 183 centimetres long.")], S0, 1.0),
        ("no unit asked for the length: any one", [reply(1, "It weighs 7.4 lb and is 72 inches long.")], S0, 1.0),
        ("weight in a unit not asked", [reply(1, "It weighs 3.35 kg and is 72 inches long.")], S0, 0.5),
        ("one", [reply(1, "It weighs 7.4 lbs.")], S0, 0.5),
        ("every unit", [reply(1, "It weighs 3,350 g / 3.35 kg / 7.4 lb and is 183 cm / 72 in long.")], S0, 0.0),
        ("a figure nobody asked for", [reply(1, "It weighs 7.4 lb, is 183 cm long and 4.5 mm thick.")], S0, 0.0),
        ("a figure off the record is not judged here", [reply(1, "7.4 lb, 183 cm; not 2.9 kg.")], S0, 1.0),
        ("figures without units", [reply(1, "3350 and 183.")], S0, 0.0),
        ("no reply", [], S0, 0.0),
    ]),
    "reply_figures_supported": ({"actor": M, "question": "msg-0001",
                                 "authority": {"weight_g": 3350, "length_cm": 183, "thickness_mm": 4.5}}, [
        ("only record figures", [reply(1, f"Per {L}: 3.35 kg, 183 cm, 4.5mm thick.")], S0, 1.0),
        ("echoes the hoped-for figure", [reply(1, "It is 3,350 g, so yes, about 2.9 kg.")], S0, 0.0),
        ("no reply", [], S0, 0.0),
    ]),
}

PARAMS = [(kind, label, records, st, want) for kind, (_, cases) in GROUNDING_CASES.items()
          for label, records, st, want in cases]


def credit(kind: str, records: list, st: dict) -> tuple[float, dict]:
    params = GROUNDING_CASES[kind][0]
    task = TaskSpec(task_id="test/t2-kinds", family="test", capability="test", role="buyer", actor=B,
                    request="test", initial_state=empty_state(),
                    predicates=[PredicateSpec(id="p", kind=kind, params=params, weight=1.0, stage="Decision",
                                              loss_group="Choice")],
                    reference=PolicyRef(name="fixed", params={"actions": []}))
    return KINDS[kind](ScoreInput(task, records, st), params)


def test_every_grounding_kind_is_registered_and_has_pass_and_fail_cases() -> None:
    import acworld_env.scoring.kinds_grounding as module

    mine = {name for name, fn in KINDS.items() if fn.__module__ == module.__name__}
    assert mine == set(GROUNDING_CASES)
    for kind, (_, cases) in GROUNDING_CASES.items():
        wants = [w for *_, w in cases]
        assert 1.0 in wants and min(wants) == 0.0, kind


@pytest.mark.parametrize(("kind", "label", "records", "st", "want"), PARAMS,
                         ids=[f"{k}:{lbl}" for k, lbl, *_ in PARAMS])
def test_grounding_kind_credit(kind: str, label: str, records: list, st: dict, want: float) -> None:
    got, evidence = credit(kind, records, st)
    assert got == pytest.approx(want), evidence
    assert isinstance(evidence, dict)


def test_units_are_read_from_keys_values_and_text() -> None:
    assert key_unit("weight_in_ounces") == ("weight", "ounces")
    assert key_unit("thickness_in") == ("thickness", "in")
    assert key_unit("heel drop (mm)") == ("heel_drop", "mm")
    assert quantity("thickness_in", "0.18")[1] == pytest.approx(4.572)
    assert quantity("weight", "3,350 g") == ("mass", 3350.0)
    assert quantity("weight", "3350") is None
    assert quantity("weight", 3350, default_unit="g") == ("mass", 3350.0)
    found = quantities_in(f'Listing {L} is 72" long, 4.5mm thick and weighs 7.4 lbs; 3 colours.')
    assert [d for d, _ in found] == ["length", "length", "mass"]
    assert found[0][1] == pytest.approx(1828.8)


@pytest.mark.parametrize(("text", "lengths_mm"), [
    ("3 in the box, 2 in stock, 4 in total, 1 in 10 buyers, 2 in transit", []),
    ("It is 0.18 in thick; 3 in the box.", [4.572]),
    ("0.18 in.", [4.572]),
    ("5 in, and 2 in your cart", [127.0]),
    ("6 in wide", [152.4]),
])
def test_in_after_a_number_is_inches_only_when_no_noun_phrase_follows(text: str, lengths_mm: list[float]) -> None:
    assert [v for _, v in quantities_in(text)] == pytest.approx(lengths_mm)
