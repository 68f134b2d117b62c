"""The kill-safe JSONL cache: torn rows are skipped, never glued to the next row."""

from __future__ import annotations

from scoreqa.evaluation.jsonl_store import JsonlStore


def test_torn_last_row_is_skipped_and_next_append_starts_a_new_line(tmp_path, caplog):
    store = JsonlStore(tmp_path / "p.jsonl")
    store.append([{"key": "a"}, {"key": "b"}])
    with (tmp_path / "p.jsonl").open("a") as handle:
        handle.write('{"key": "c", "te')  # what SIGKILL mid-write leaves
    assert [r["key"] for r in store.rows()] == ["a", "b"]
    assert "p.jsonl:3" in caplog.text
    store.append([{"key": "d"}])
    assert [r["key"] for r in store.rows()] == ["a", "b", "d"]


def test_missing_file_has_no_rows_and_empty_append_writes_nothing(tmp_path):
    store = JsonlStore(tmp_path / "sub" / "p.jsonl")
    assert list(store.rows()) == []
    store.append([])
    assert not store.path.exists()
