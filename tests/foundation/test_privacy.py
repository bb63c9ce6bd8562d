"""The privacy guard: a sealed $95 (9500 cents) is caught in every ordinary money form, others pass."""

from __future__ import annotations

import pytest

from acworld_env.cip import leaks, money_mentions

SEALED = [9_500]


@pytest.mark.parametrize("text", [
    "95", "$95", "95.00", "$95.00", "9500 cents", "9,500 cents", "9500", "ninety-five", "Ninety Five dollars",
    "NINETY-FIVE", "USD 95", "$ 95", "95$", "95 dollars", "I can do 95.", "max is $95!", "(95)",
    "my ceiling: ninety-five bucks", "ok 95,00",
])
def test_sealed_value_is_caught(text):
    assert leaks(text, SEALED) == 9_500


@pytest.mark.parametrize("text", [
    "", "94", "$96", "95.50", "$95.01", "9400 cents", "ninety-four", "ninety", "ninety-six", "$950",
    "950", "$195", "19500", "$9.50", "listing L-95", "listing #95", "order ord-0095", "sku 95x",
    "I have 5 units", "Can you do better than that?",
])
def test_other_amounts_pass(text):
    assert leaks(text, SEALED) is None


def test_any_of_several_sealed_values():
    assert leaks("floor is $90", [9_500, 9_000]) == 9_000
    assert leaks("anything", []) is None


def test_money_mentions_reads_words_and_cents():
    assert 10_000 in money_mentions("a hundred dollars")
    assert 10_500 in money_mentions("one hundred and five")
    assert 9_500 in money_mentions("ninety five")
    assert money_mentions("9500 cents") == {9_500}
    assert money_mentions("$95.5") == {9_550}
