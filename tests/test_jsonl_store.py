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


def test_row_torn_inside_a_multibyte_character_is_skipped_not_a_decode_error(tmp_path, caplog):
    store = JsonlStore(tmp_path / "p.jsonl")
    store.append([{"key": "a", "text": "Dvořák"}])
    row = '{"key": "b", "text": "Dvořák"}'.encode()
    with (tmp_path / "p.jsonl").open("ab") as handle:
        handle.write(row[: row.index("ř".encode()) + 1])  # half of the two-byte ř
    assert [r["text"] for r in store.rows()] == ["Dvořák"]
    assert "p.jsonl:2 is not a complete JSON row" in caplog.text
    store.append([{"key": "c", "text": "ü"}])
    assert [r["key"] for r in store.rows()] == ["a", "c"]


def test_rows_that_are_not_objects_or_lack_keys_are_skipped_naming_file_and_line(tmp_path, caplog):
    path = tmp_path / "p.jsonl"
    path.write_text('{"key": "a", "text": "x"}\n[1, 2]\n42\n{"text": "no key"}\n{"key": "b", "text": "y"}\n')
    assert [r["key"] for r in JsonlStore(path, required=("key", "text")).rows()] == ["a", "b"]
    assert "p.jsonl:2 is a JSON list, not an object" in caplog.text
    assert "p.jsonl:3 is a JSON int, not an object" in caplog.text
    assert "p.jsonl:4 lacks the key(s) ['key']" in caplog.text
