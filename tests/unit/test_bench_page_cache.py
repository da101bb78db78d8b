"""No Kafka counterpart: bench/page_cache.py writes its frames, prints both cases and leaves nothing behind."""
import os

from bench import page_cache


def test_it_prints_both_cases_and_removes_its_files(tmp_path, capsys):
    assert page_cache.main(["--mb", "2", "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "previous file kept:" in out and "previous file unlinked:" in out
    assert os.listdir(tmp_path) == []


def test_write_file_writes_every_frame(tmp_path):
    path = tmp_path / "f"
    assert page_cache.write_file(str(path), 3, b"x" * page_cache.MB) > 0
    assert path.stat().st_size == 3 * page_cache.MB
