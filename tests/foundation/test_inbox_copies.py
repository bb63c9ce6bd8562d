"""A get_inbox result recorded in the trace is a snapshot: reading the message later cannot change the record."""

from __future__ import annotations

from acworld_env.episode import Episode
from acworld_env.tasks.suites import load_suite
from acworld_env.trace import verify_trace


def test_inbox_result_in_the_trace_is_not_changed_by_a_later_read() -> None:
    task = next(t for t in load_suite("capability-v1") if t.family == "T10_timing")
    ep = Episode(task)
    ep.market.submit(task.actor, {"kind": "get_inbox", "unread_only": True})  # a look without acting
    record = ep.market.trace.records[-1]
    before = [dict(m) for m in record.result["messages"]]
    assert before and not any(m.get("read") for m in before)
    ep.act(task.actor, {"kind": "get_inbox", "unread_only": True})  # acting takes the messages: now read
    assert record.result["messages"] == before
    assert verify_trace(ep.market.trace.records)  # every record still matches the hash it was sealed with
