"""The least-recently-used map the in-process caches share."""

from __future__ import annotations

from creatorpack.service.lru import Lru, SizedCache


def test_put_forgets_the_least_recently_used_beyond_the_size() -> None:
    cache: Lru[str, int] = Lru(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # a is now the most recent
    cache.put("c", 3)
    assert cache.peek("b") is None
    assert (cache.peek("a"), cache.peek("c"), len(cache)) == (1, 3, 2)


def test_peek_leaves_the_order_and_touch_changes_it() -> None:
    cache: Lru[str, int] = Lru(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.peek("a") == 1
    cache.put("c", 3)
    assert cache.peek("a") is None  # peeking did not save it
    cache.touch("b")
    cache.touch("missing")
    cache.put("d", 4)
    assert (cache.peek("b"), cache.peek("c"), cache.peek("d")) == (2, None, 4)


def test_put_of_a_present_key_makes_it_recent_and_size_zero_keeps_nothing() -> None:
    cache: Lru[str, int] = Lru(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("a", 10)
    cache.put("c", 3)
    assert (cache.peek("a"), cache.peek("b")) == (10, None)
    empty: Lru[str, int] = Lru(0)
    empty.put("a", 1)
    assert len(empty) == 0


def test_a_sized_cache_forgets_the_oldest_while_over_its_bytes() -> None:
    cache: SizedCache[str, str] = SizedCache(10)
    cache.put("a", "A", 4)
    cache.put("b", "B", 4)
    assert cache.get("a") == "A"  # a hit does not reorder: "a" stays the oldest
    cache.put("c", "C", 4)
    assert (cache.get("a"), cache.get("b"), cache.get("c")) == (None, "B", "C")
    assert (len(cache), cache.size) == (2, 8)


def test_a_sized_cache_counts_a_replaced_or_popped_entry_once() -> None:
    cache: SizedCache[str, str] = SizedCache(10)
    cache.put("a", "A", 6)
    cache.put("a", "A2", 3)
    assert (cache.get("a"), cache.size) == ("A2", 3)
    cache.pop("a")
    cache.pop("missing")
    assert (len(cache), cache.size) == (0, 0)
    cache.put("big", "X", 11)  # larger than the whole budget: not kept
    assert (cache.get("big"), cache.size) == (None, 0)
    cache.put("b", "B", 5)
    cache.clear()
    assert (len(cache), cache.size) == (0, 0)
