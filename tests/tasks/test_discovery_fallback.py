"""A T1 seed whose draws all fail for a task's variant still builds: it falls back to the next variant."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from acworld_env.tasks.families import discovery


def test_a_variant_whose_draws_all_fail_falls_back_to_the_next(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(discovery, "ATTEMPTS", 1500)
    real = discovery._attempt
    calls: list[int] = []

    def first_variant_fails(cap: str, rng: np.random.Generator, variant: int) -> dict[str, Any] | None:
        calls.append(variant)
        return None if variant == 0 else real(cap, rng, variant)

    monkeypatch.setattr(discovery, "_attempt", first_variant_fails)
    task = discovery._task("generated-9/T1/buyer/correct_abstention/01", "correct_abstention",
                           np.random.default_rng([1, 9, 7]), set(), 0)
    assert calls[:1500] == [0] * 1500 and set(calls[1500:]) == {1}
    assert task.capability == "correct_abstention" and task.difficulty["conflict"] == "obvious"


def test_when_every_variant_fails_the_error_names_the_capability(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(discovery, "ATTEMPTS", 5)
    monkeypatch.setattr(discovery, "_attempt", lambda cap, rng, variant: None)
    with pytest.raises(RuntimeError, match="could not build a best_feasible_selection task"):
        discovery._task("x/T1/buyer/best_feasible_selection/01", "best_feasible_selection",
                        np.random.default_rng(0), set(), 0)
