"""Where the tests find the repository's files, wherever the test module sits."""

from __future__ import annotations

from pathlib import Path

__all__ = ["REPO"]

REPO = Path(__file__).resolve().parent.parent
"""The repository's root: README.md, docs/, deploy/, udev/ ..."""
