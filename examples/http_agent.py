"""A buyer agent in its own process, over plain HTTP: no acworld import, only httpx (any language would do).

Start a server (``acworld serve``), then::

    python examples/http_agent.py --url http://127.0.0.1:8765

The agent starts an episode of the demo negotiation (a grinder listed at $110; the buyer's private
ceiling is $100), reads its observation, haggles, orders, pays and finishes, one VCP action per
request, then ends the episode and prints its score and trace digest. The same calls with curl::

    curl -s -X POST $URL/v1/episodes -H 'content-type: application/json' -d '{"suite": "demo"}'
    curl -s $URL/v1/episodes/$EP/observation -H "authorization: Bearer $TOKEN"
    curl -s -X POST $URL/v1/episodes/$EP/actions -H "authorization: Bearer $TOKEN" \\
         -H 'content-type: application/json' -d '{"action": {"kind": "propose_offer", ...}}'
    curl -s -X POST $URL/v1/episodes/$EP/end -H "authorization: Bearer $TOKEN"
"""

from __future__ import annotations

import argparse

import httpx


def decide(obs: dict, memory: dict) -> dict | None:
    """One action from the structured observation (prices in cents), or None to idle."""
    ceiling = obs["mandate"]["max_unit_price"]
    listing = obs["mandate"]["listing_id"]
    last = obs.get("last_result") or {}
    if "bid" not in memory:
        memory["bid"] = 8_000
        return {"kind": "propose_offer", "to": "merchant_0", "listing_id": listing, "unit_price": 8_000}
    if last.get("kind") == "place_order" and last.get("accepted"):
        order = last["result"]
        return {"kind": "authorize_payment", "order_id": order["order_id"], "amount": order["total"]}
    if last.get("kind") == "accept_offer" and last.get("accepted"):
        return {"kind": "place_order", "thread_id": memory["thread"]}
    for msg in obs["inbox"]:
        if msg.get("offer_event") == "counter":
            price, memory["thread"] = msg["unit_price"], msg["thread_id"]
            if price <= ceiling and (memory.get("countered") or price <= memory["bid"]):
                return {"kind": "accept_offer", "thread_id": msg["thread_id"]}
            memory["bid"], memory["countered"] = min(ceiling, (memory["bid"] + price) // 200 * 100), True
            return {"kind": "counter_offer", "thread_id": msg["thread_id"], "unit_price": memory["bid"]}
        if msg.get("offer_event") == "accepted":
            return {"kind": "place_order", "thread_id": msg["thread_id"]}
        if msg.get("shipment_id"):
            return {"kind": "finish", "summary": "Bought within my limit; it has shipped."}
    return None


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description="A buyer agent over plain HTTP (httpx only).")
    ap.add_argument("--url", default="http://127.0.0.1:8765", help="Where acworld serve listens.")
    args = ap.parse_args(argv)
    with httpx.Client(base_url=args.url, timeout=30) as http:
        started = http.post("/v1/episodes", json={"suite": "demo"}).json()
        episode, actor = started["episode_id"], started["state"]["agent_selection"]
        auth = {"Authorization": f"Bearer {started['credentials'][actor]}"}
        memory: dict = {}
        done = False
        while not done:
            obs = http.get(f"/v1/episodes/{episode}/observation", headers=auth).json()
            action = decide(obs["raw"], memory)
            reply = http.post(f"/v1/episodes/{episode}/actions", json={"action": action}, headers=auth).json()
            result = reply["infos"][actor]["validation"]
            print(f"{actor}: {result['kind']} -> {'accepted' if result['accepted'] else result['code']}")
            done = reply["terminations"][actor] or reply["truncations"][actor]
        summary = http.post(f"/v1/episodes/{episode}/end", headers=auth).json()
    print(f"{summary['status']}: score {summary['score']}, trace digest {summary['trace_digest']}")
    return summary


if __name__ == "__main__":
    main()
