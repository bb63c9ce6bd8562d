"""The shared catalog is safe to first touch from any thread (a deadlock here hung ``acworld eval``)."""

from __future__ import annotations

import threading

import pytest

from acworld_env.catalog import Catalog, default_catalog_path
from acworld_env.episode import Episode
from acworld_env.tasks.suites import load_suite


def _t1_task():
    return next(t for t in load_suite("capability-v1", "frozen", 0) if t.family.startswith("T1"))


@pytest.mark.timeout(30)
def test_first_search_from_a_new_thread_does_not_deadlock() -> None:
    """The exact repro: an Episode opened in the main thread, its first search made in another thread."""
    task = _t1_task()
    catalog = Catalog.open(default_catalog_path())
    catalog._store.__dict__["_engine"] = None  # as on a fresh process: no engine built yet
    episode = Episode(task, catalog=catalog)
    results: list[object] = []

    def search() -> None:
        results.append(episode.act(task.actor, {"kind": "search_listings", "text": "coffee"}))

    worker = threading.Thread(target=search, daemon=True)
    worker.start()
    worker.join(20)
    assert not worker.is_alive(), "the first search from a new thread deadlocked"
    assert len(results) == 1 and results[0].accepted


@pytest.mark.timeout(60)
def test_many_threads_open_and_search_at_once() -> None:
    """Eight threads each open the catalog and search at the same time; all finish with the same page."""
    path = default_catalog_path()
    pages: list[list[str]] = []
    barrier = threading.Barrier(8)

    def work() -> None:
        cat = Catalog.open(path)
        barrier.wait(10)
        page = cat.search({"text": "coffee", "sort": "price_asc", "page_size": 5})
        pages.append([h.listing_id for h in page.items])

    threads = [threading.Thread(target=work, daemon=True) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not any(t.is_alive() for t in threads)
    assert len(pages) == 8 and all(p == pages[0] for p in pages) and pages[0]
