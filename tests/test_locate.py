"""Line and column of byte offsets: the one-pass count agrees with counting from the start."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from creatorpack.contract._locate import Positions


def _naive(data: bytes, offset: int) -> tuple[int, int]:
    before = data[:offset]
    line_start = before.rfind(b"\n") + 1
    return before.count(b"\n") + 1, len(data[line_start:offset].decode("utf-8")) + 1


@given(st.text(alphabet=st.sampled_from(["a", " ", "\n", "é", "中", "😀", '"']), max_size=300), st.data())
def test_line_columns_agree_with_counting_from_the_start(text: str, data: st.DataObject) -> None:
    raw = text.encode()
    boundaries = [i for i in range(len(raw) + 1) if i == len(raw) or not 0x80 <= raw[i] < 0xC0]
    offsets = data.draw(st.lists(st.sampled_from(boundaries), max_size=20))
    found = Positions(raw, {}, {}).line_columns(offsets)
    assert found == {offset: _naive(raw, offset) for offset in offsets}


def test_many_offsets_on_one_long_line_are_counted_once() -> None:
    raw = b'{"a":[' + b'"\xc3\xa9",' * 50_000 + b"1]}"
    offsets = list(range(6, len(raw) - 3, 5))
    found = Positions(raw, {}, {}).line_columns(offsets)
    assert found[offsets[-1]] == (1, 6 + 4 * (len(offsets) - 1) + 1)
