"""The JSON records of the service's store, each read through the pydantic type of its kind.

A record is the service's own file (or row: adjudicator/home/store.py), but a person may
have edited it, a disk may have cut it short, an older version may have written it. Read
through `RecordKind.parse`, one that is not JSON or not of its kind's shape is a
`StoreError` that names the record, what it should be and where it is wrong
(`the record mail/ledger/kabul.json is not a mail ledger: commit: Input should be a
valid string`), rather than a KeyError far from the read. Whoever reads decides what a
bad record means: most let the error stop the work (the operator repairs or deletes the
record), a few read it as none where that was always deliberate (each says why).

`RecordKind.dump` writes what the service always wrote (`json.dumps`, indented by two,
a final newline), so files written before and after the models exist read the same.
"""

from __future__ import annotations

import json
from datetime import date, datetime
from functools import cached_property
from typing import Annotated, Any, Generic, TypeVar

from pydantic import AfterValidator, ConfigDict, TypeAdapter, ValidationError

from adjudicator.home.store import Store, StoreError

T = TypeVar("T")

# The models of records: frozen, and keeping a key they do not know (a later version's),
# so that reading and writing a record back changes nothing in it.
RECORD_CONFIG = ConfigDict(extra="allow", frozen=True)


def _iso_time(text: str) -> str:
    datetime.fromisoformat(text)  # ValueError, which pydantic reports with where it is
    return text


def _iso_day(text: str) -> str:
    date.fromisoformat(text)
    return text


# A time and a day as the records keep them, ISO 8601 text (`2026-03-01T12:00:00+00:00`,
# `2026-03-01`): checked on reading, kept as text so that they are written back as they were.
IsoTime = Annotated[str, AfterValidator(_iso_time)]
IsoDay = Annotated[str, AfterValidator(_iso_day)]


class RecordKind(Generic[T]):
    """A kind of JSON record: its name in messages and the pydantic type of its content."""

    def __init__(
        self, noun: str, shape: Any, *, sort_keys: bool = False, ensure_ascii: bool = True
    ) -> None:
        self.noun = noun  # "a mail ledger": what the record should be
        self.shape = shape
        # How the record's writer always called json.dumps, kept so the bytes stay the same.
        self.sort_keys = sort_keys
        self.ensure_ascii = ensure_ascii

    @cached_property
    def adapter(self) -> TypeAdapter[T]:
        # Built at first use, not at import: a command that reads no record pays nothing.
        adapter: TypeAdapter[T] = TypeAdapter(self.shape)
        return adapter

    def parse(self, name: str, data: bytes) -> T:
        """The content of the record `name` whose bytes are `data`; StoreError when they are
        not JSON of this kind (strict: a number written as a string is wrong)."""
        try:
            return self.adapter.validate_json(data, strict=True)
        except ValidationError as error:
            raise StoreError(f"the record {name} is not {self.noun}: {_described(error)}") from None

    def check(self, name: str, value: Any) -> T:
        """`parse` for a record the database hands over as JSON already (a jsonb column)."""
        # Through its text, so that it is held to the very rules of a record read as bytes.
        return self.parse(name, json.dumps(value).encode("utf-8"))

    def plain(self, value: T) -> Any:
        """`value` as the plain JSON data (dicts, lists, strings, numbers) it is written as."""
        # exclude_unset: a field the record did not hold stays out of it, as before; by_alias:
        # a field whose key is a Python keyword (`from`) is written under that key.
        return self.adapter.dump_python(value, mode="json", exclude_unset=True, by_alias=True)

    def dump(self, value: T) -> bytes:
        """The bytes of a record holding `value`: indented JSON with a final newline."""
        plain = self.plain(value)
        text = json.dumps(plain, indent=2, sort_keys=self.sort_keys, ensure_ascii=self.ensure_ascii)
        return (text + "\n").encode("utf-8")

    def read(self, records: Store, name: str) -> T | None:
        """The record's content, None when there is none (StoreError when it is bad)."""
        data = records.read(name)
        return None if data is None else self.parse(name, data)

    def write(self, records: Store, name: str, value: T) -> None:
        records.write(name, self.dump(value))


def _described(error: ValidationError) -> str:
    """`where: what; ...`, or `what` alone for a record that is not JSON (no where)."""
    return "; ".join(
        ": ".join([".".join(str(x) for x in e["loc"]), e["msg"]] if e["loc"] else [e["msg"]])
        for e in error.errors()
    )
