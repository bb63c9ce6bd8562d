"""``Market.mark_read`` is ``take_unread`` without the copies (issue 32: the episode discards them)."""

from __future__ import annotations

from acworld_env.market import Market


def _market() -> Market:
    state = {"actors": {"buyer_0": {"role": "buyer", "balance": 0}, "merchant_0": {"role": "merchant", "balance": 0}}}
    for table in ("listings", "orders", "threads", "payments", "shipments", "returns", "refunds", "reviews",
                  "ledger", "disputes", "exchanges", "quotes", "quote_requests", "market_events", "reputation",
                  "counters", "meta"):
        state[table] = {}
    market = Market(state)
    for i in range(3):
        market._deliver("merchant_0", {"to": "buyer_0", "kind": "message", "text": f"note {i}"})
    return market


def test_both_mark_the_same_messages_read() -> None:
    taken, marked = _market(), _market()
    copies = taken.take_unread("buyer_0", 2)
    same = marked.mark_read("buyer_0", 2)
    assert copies == same and all(m["read"] for m in same)
    assert taken.unread("buyer_0") == marked.unread("buyer_0") and len(marked.unread("buyer_0")) == 1
    assert same[0] is marked.messages[same[0]["message_id"]]  # the messages themselves
    copies[0]["text"] = "changed"
    assert taken.messages[copies[0]["message_id"]]["text"] == "note 0"  # take_unread's are copies
