"""docs/mqtt.md's schema blocks, printed from the contract: ``python -m
tests.mqtt_doc`` rewrites each ``<!-- schema: NAME -->`` block with the schema
the contract generates (``test_doc_prints_every_schema_exactly`` holds the
page to it); the prose and the examples around them stay as written."""

from __future__ import annotations

import json
import re
from typing import Any

from mqtt_contract import (
    LEADERBOARD_LEVEL,
    LEADERBOARD_TOPIC,
    REMOTE_LEVEL,
    REMOTE_TOPIC_SPEC,
    TOPICS,
)
from tests.paths import REPO

__all__ = ["DOC", "SCHEMA_BLOCK", "contract_schemas", "regenerated"]

DOC = REPO / "docs" / "mqtt.md"
SCHEMA_BLOCK = re.compile(r"<!-- schema: (?P<name>[a-z/]+) -->\n```json\n(?P<body>.*?)\n```", re.S)


def contract_schemas() -> dict[str, dict[str, Any]]:
    """Every schema the page prints, by its block's name."""
    return {
        **{name: spec.schema for name, spec in TOPICS.items()},
        LEADERBOARD_LEVEL: LEADERBOARD_TOPIC.schema,
        REMOTE_LEVEL: REMOTE_TOPIC_SPEC.schema,
    }


def regenerated(text: str) -> str:
    """``text`` (the page) with every schema block printed from the contract."""
    schemas = contract_schemas()

    def block(match: re.Match[str]) -> str:
        body = json.dumps(schemas[match["name"]], indent=2)
        return f"<!-- schema: {match['name']} -->\n```json\n{body}\n```"

    return SCHEMA_BLOCK.sub(block, text)


if __name__ == "__main__":
    DOC.write_text(regenerated(DOC.read_text("utf-8")), "utf-8")
