"""The display tests run headless: SDL gets its dummy video and audio drivers
before anything starts pygame (SDL reads them when a subsystem starts)."""

from __future__ import annotations

import os

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ["SDL_AUDIODRIVER"] = "dummy"
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
