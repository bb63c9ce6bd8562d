"""A name in a registry belongs to one function: a second, different one is refused, not silently kept."""

from __future__ import annotations

import pytest

from acworld_env.core.name_tables import NameTaken, register_in
from acworld_env.scoring.kinds import KINDS, predicate


def test_a_second_function_under_a_taken_name_is_refused():
    table: dict = {}

    @register_in(table, "x")
    def first() -> int:
        return 1

    register_in(table, "x")(first)  # the same function again (a module imported twice) is fine

    def second() -> int:
        return 2

    with pytest.raises(NameTaken, match="'x' is already registered to .*first"):
        register_in(table, "x")(second)
    assert table["x"] is first


def test_predicate_kinds_of_different_families_cannot_shadow_each_other():
    taken = next(iter(KINDS))
    with pytest.raises(NameTaken):
        predicate(taken)(lambda si, p: (1.0, {}))
