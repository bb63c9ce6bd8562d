"""T4 counterparty tactics: concession curves, tit-for-tat, the AC_next acceptance rule, walking away."""

from __future__ import annotations

import pytest

from acworld_env.tasks.families.negotiation_tactics import (
    BUYER,
    MERCHANT,
    Bargainer,
    Plan,
    Tactic,
    bargain,
    share,
)

SELLER = {"side": MERCHANT, "start": 20_000, "limit": 10_000, "deadline": 6}


def curve(kind: str, beta: float) -> list[int]:
    t = Tactic(kind=kind, beta=beta, **SELLER)  # type: ignore[arg-type]
    return [t.curve(i) for i in range(t.deadline)]


def test_time_dependent_curves_run_from_the_opening_to_the_limit_at_the_deadline():
    for kind, beta in (("boulware", 0.25), ("linear", 1.0), ("conceder", 4.0)):
        asks = curve(kind, beta)
        assert asks[0] == 20_000 and asks[-1] == 10_000
        assert all(a >= b for a, b in zip(asks, asks[1:], strict=False))  # a seller never asks more later


def test_boulware_holds_and_conceder_gives_early_relative_to_linear():
    boulware, linear, conceder = curve("boulware", 0.25), curve("linear", 1.0), curve("conceder", 4.0)
    assert linear == [20_000, 18_000, 16_000, 14_000, 12_000, 10_000]
    for t in range(1, 5):
        assert boulware[t] > linear[t] > conceder[t]
    assert boulware[1] >= 19_900  # concedes almost nothing early
    assert conceder[1] <= 13_500  # gives most of the way at once


def test_buyer_curve_rises_toward_its_ceiling():
    t = Tactic(side=BUYER, kind="linear", start=6_000, limit=9_000, deadline=4)
    assert [t.curve(i) for i in range(4)] == [6_000, 7_000, 8_000, 9_000]


def test_tit_for_tat_returns_a_share_of_the_opponents_concession_and_nothing_for_stalling():
    b = Bargainer(Tactic(side=MERCHANT, kind="tit_for_tat", start=20_000, limit=10_000, deadline=10, mirror=0.5))
    assert b.respond(8_000).price == 20_000  # the first answer is its opening
    assert b.respond(10_000).price == 19_000  # the buyer gave $20; it gives half
    assert b.respond(10_000).price == 19_000  # the buyer did not move; neither does it
    assert b.respond(14_000).price == 17_000


def test_tit_for_tat_does_not_credit_offers_beyond_its_credible_price():
    b = Bargainer(Tactic(side=MERCHANT, kind="tit_for_tat", start=20_000, limit=10_000, deadline=10,
                         credible=9_000))
    b.respond(1_000)
    assert b.respond(10_000).price == 19_000  # only the move from $90 counts, not from $10


def test_ac_next_does_not_take_an_offer_just_because_it_clears_the_limit():
    b = Bargainer(Tactic(side=MERCHANT, kind="linear", start=20_000, limit=10_000, deadline=6))
    reply = b.respond(15_000)  # well above its $100 floor
    assert reply.move == "counter" and reply.price == 20_000


def test_ac_next_takes_an_offer_at_least_as_good_as_its_next_counter():
    b = Bargainer(Tactic(side=MERCHANT, kind="linear", start=20_000, limit=10_000, deadline=6))
    b.respond(12_000)  # it asks $200
    assert b.respond(17_999).move == "counter"  # its next ask would be $180
    b2 = Bargainer(Tactic(side=MERCHANT, kind="linear", start=20_000, limit=10_000, deadline=6))
    b2.respond(12_000)
    assert b2.respond(18_000).move == "accept"


def test_final_offer_is_flagged_and_a_lower_offer_after_it_ends_the_talks():
    b = Bargainer(Tactic(side=MERCHANT, kind="linear", start=12_000, limit=10_000, deadline=2))
    assert not b.respond(5_000).final
    last = b.respond(6_000)
    assert last.final and last.price == 10_000
    assert b.respond(9_900).move == "reject"


def test_with_no_counter_left_it_rejects_rather_than_lowering_its_standard():
    b = Bargainer(Tactic(side=MERCHANT, kind="linear", start=20_000, limit=10_000, deadline=6))
    b.respond(12_000)
    assert b.respond(15_000, can_counter=False).move == "reject"  # next ask $180: no, though above the floor


def test_a_stalling_opponent_is_warned_then_left():
    b = Bargainer(Tactic(side=MERCHANT, kind="boulware", beta=0.25, start=20_000, limit=10_000, deadline=8,
                         min_move=200, patience=1))
    b.respond(8_000)
    warned = b.respond(8_100)
    assert warned.move == "counter" and warned.stalled
    left = b.respond(8_200)
    assert left.move == "reject" and left.stalled
    fair = Bargainer(Tactic(side=MERCHANT, kind="boulware", beta=0.25, start=20_000, limit=10_000, deadline=8,
                            min_move=200, patience=1))
    fair.respond(8_000)
    assert fair.respond(8_200).move == "counter" and not fair.respond(8_400).stalled


@pytest.mark.parametrize("kind,beta", [("boulware", 0.25), ("linear", 1.0), ("conceder", 4.0)])
def test_a_patient_buyer_reaches_the_floor_and_offering_the_ceiling_keeps_nothing(kind, beta):
    seller = Tactic(side=MERCHANT, kind=kind, beta=beta, start=20_000, limit=14_000, deadline=6, min_move=200,
                    patience=1)
    patient = bargain(seller, Plan(side=BUYER, limit=17_000, opening=9_000, min_move=200))
    assert patient.price == 14_000 and share(BUYER, patient.price, 17_000, 14_000) == 1.0
    hasty = bargain(seller, Plan(side=BUYER, limit=17_000, opening=17_000, accept_first=True))
    assert hasty.price is None or share(BUYER, hasty.price, 17_000, 14_000) <= 0.0


def test_a_cap_aware_plan_closes_before_the_cap_and_a_forgetful_one_loses_the_deal():
    seller = Tactic(side=MERCHANT, kind="linear", start=20_000, limit=14_000, deadline=8, min_move=200)
    aware = bargain(seller, Plan(side=BUYER, limit=19_000, opening=9_000, min_move=200, cap=7), cap=7)
    assert aware.price is not None and aware.price <= 19_000
    forgetful = bargain(seller, Plan(side=BUYER, limit=19_000, opening=9_000, min_move=200), cap=7)
    assert forgetful.price is None and forgetful.ended_by == "counterparty_exit"
