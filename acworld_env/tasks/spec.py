"""The frozen task specification, re-exported from :mod:`acworld_env.core.taskspec`.

The data model lives in ``core`` so that scoring, which reads tasks, never imports the tasks layer;
family builders keep importing it from here.
"""

from ..core.task_load import read_task_lines, task_from_data, task_from_json
from ..core.taskspec import (
    LISTING_KEYS,
    SAFE_TASK_ID,
    SHIPPED_CATALOGS,
    CounterpartySpec,
    LossGroup,
    MutationSpec,
    PolicyRef,
    PredicateSpec,
    Problem,
    Stage,
    TaskError,
    TaskSpec,
    check_runnable,
    field_path,
    first_problem,
    task_dir_name,
    unsafe_task_id,
)

__all__ = [
    "CounterpartySpec", "LISTING_KEYS", "LossGroup", "MutationSpec", "PolicyRef", "PredicateSpec",
    "Problem", "SAFE_TASK_ID", "SHIPPED_CATALOGS", "Stage", "TaskError", "TaskSpec",
    "check_runnable", "field_path", "first_problem", "read_task_lines", "task_dir_name", "task_from_data",
    "task_from_json", "unsafe_task_id",
]
