"""The protocol test vectors and the settings table, read from the tables in
docs/protocol.md so the document and the tests cannot drift apart."""

from __future__ import annotations

from dataclasses import dataclass

from tests.paths import REPO

PROTOCOL_DOC = REPO / "docs" / "protocol.md"


@dataclass(frozen=True)
class ValidVector:
    line: bytes
    type: str
    seq: int
    fields: tuple[str, ...]


@dataclass(frozen=True)
class InvalidVector:
    line: bytes
    kind: str


@dataclass(frozen=True)
class StreamVector:
    """A line (its ``\\n`` not included) with noise or torn frames in it, the
    valid frames read from it and how many pieces of it are rejected."""

    line: bytes
    frames: tuple[bytes, ...]
    rejected: int


@dataclass(frozen=True)
class SettingRow:
    """One row of the settings table: a firmware setting, its unit, range
    (both ends allowed) and default, and whether a ``C`` frame may set it."""

    name: str
    unit: str
    minimum: int
    maximum: int
    default: int
    host_may_set: bool


def _table(heading: str) -> list[list[str]]:
    text = PROTOCOL_DOC.read_text("utf-8")
    section = text.split(heading, 1)[1]
    rows = []
    for line in section.splitlines():
        if rows and not line.startswith("|"):
            break
        if line.startswith("|") and not line.startswith("|---"):
            rows.append([cell.strip().strip("`") for cell in line.strip("|").split("|")])
    return rows[1:]


def valid_vectors() -> list[ValidVector]:
    return [
        ValidVector(
            row[0].encode("ascii"),
            row[1],
            int(row[2]),
            tuple(row[3].split(",")) if row[3] else (),
        )
        for row in _table("Valid frames")
    ]


def invalid_vectors() -> list[InvalidVector]:
    return [InvalidVector(row[0].encode("ascii"), row[1]) for row in _table("Invalid lines")]


def stream_vectors() -> list[StreamVector]:
    return [
        StreamVector(
            row[0].encode("ascii"),
            tuple(frame.encode("ascii") for frame in row[1].replace("`", " ").split()),
            int(row[2]),
        )
        for row in _table("Torn and noisy lines")
    ]


def settings_table() -> list[SettingRow]:
    rows = _table("## Settings")
    assert all(row[5] in ("yes", "no") for row in rows), rows
    return [
        SettingRow(row[0], row[1], int(row[2]), int(row[3]), int(row[4]), row[5] == "yes")
        for row in rows
    ]
