"""``oche udev``: placeholder until its implementation lands."""

from __future__ import annotations

import argparse

__all__ = ["add_parser"]


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Not available yet."""
