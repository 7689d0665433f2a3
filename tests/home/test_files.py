"""Files written whole (adjudicator/home/files.py): flushed to disk before they are renamed
into place, but for a cache's, which is renamed into place unflushed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from test_position_cache import new, play  # the game the position cache's tests play

from adjudicator.games import positions
from adjudicator.home import files


@pytest.fixture
def fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    made: list[int] = []
    real = os.fsync

    def counted(descriptor: int) -> None:
        made.append(descriptor)
        real(descriptor)

    monkeypatch.setattr(os, "fsync", counted)
    return made


def test_a_record_is_flushed_to_disk_before_it_takes_its_name(
    tmp_path: Path, fsyncs: list[int]
) -> None:
    files.write_atomically(tmp_path / "record.json", b"{}")
    assert (tmp_path / "record.json").read_bytes() == b"{}"
    assert len(fsyncs) == 1
    assert [p.name for p in tmp_path.iterdir()] == ["record.json"]  # no temporary left


def test_a_cache_entry_is_renamed_into_place_unflushed(tmp_path: Path, fsyncs: list[int]) -> None:
    files.write_atomically(tmp_path / "entry.json", b"{}", durable=False)
    assert (tmp_path / "entry.json").read_bytes() == b"{}"
    assert fsyncs == []
    assert [p.name for p in tmp_path.iterdir()] == ["entry.json"]


def test_the_position_cache_is_written_unflushed(
    home: Path, fsyncs: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    kept: list[bool] = []
    real = files.write_atomically

    def noted(path: Path, data: bytes, *, mode: int = 0o666, durable: bool = True) -> None:
        kept.append(durable)
        real(path, data, mode=mode, durable=durable)

    monkeypatch.setattr(positions, "write_atomically", noted)
    repo = new(home)
    play(repo, home, 1)
    assert kept and not any(kept)
