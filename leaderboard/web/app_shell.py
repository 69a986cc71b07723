"""The installable web app: ``/manifest.webmanifest`` (name, colours,
standalone, start at the TV page), its icons (``/icons/{purpose}-{size}.png``,
drawn by :mod:`leaderboard.web.app_icons`, served from here: no CDN),
``/favicon.ico``, the service worker ``/sw.js`` (scope ``/``; the file is
``static/sw.js``) and ``/offline``, the app shell it keeps: a page saying
"Reconnecting" that tries the page again until the service answers. Every
page links the manifest and registers the worker (``templates/base.html``,
``static/app.js``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, Response

from leaderboard.web.app_icons import BACKGROUND, ICON_SIZES, Purpose, favicon_ico, icon_png
from leaderboard.web.pages import TEMPLATES

__all__ = [
    "APP_NAME",
    "MANIFEST_PATH",
    "OFFLINE_PATH",
    "SHORT_NAME",
    "WORKER_PATH",
    "icon_path",
    "manifest",
    "router",
]

APP_NAME = "Oche leaderboard"
SHORT_NAME = "Oche"
MANIFEST_PATH = "/manifest.webmanifest"
WORKER_PATH = "/sw.js"
OFFLINE_PATH = "/offline"
THEME_COLOUR = "#{:02x}{:02x}{:02x}".format(*BACKGROUND[:3])
"""The pages' background, so the installed app's title bar and splash match it."""
REVALIDATE = "no-cache"
"""The worker and the manifest: always asked again, so an update reaches every phone."""
KEEP_A_DAY = "public, max-age=86400"
"""Icons change only with a release."""
STATIC_DIR = Path(__file__).resolve().parent.parent / "static"
PURPOSES: tuple[Purpose, ...] = ("any", "maskable")

router = APIRouter(include_in_schema=False)


def icon_path(purpose: Purpose, size: int) -> str:
    """Where the icon of ``purpose`` and ``size`` is served."""
    return f"/icons/{purpose}-{size}.png"


def manifest() -> dict[str, Any]:
    """The web app manifest: installable (a name, standalone, a start URL in
    its scope, 192 and 512 px icons of both purposes)."""
    return {
        "name": APP_NAME,
        "short_name": SHORT_NAME,
        "description": "The venue's live boards, tables, records and player cards.",
        "id": "/",
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "background_color": THEME_COLOUR,
        "theme_color": THEME_COLOUR,
        "lang": "en",
        "icons": [
            {
                "src": icon_path(purpose, size),
                "sizes": f"{size}x{size}",
                "type": "image/png",
                "purpose": purpose,
            }
            for purpose in PURPOSES
            for size in ICON_SIZES
        ],
    }


@router.get(MANIFEST_PATH)
def manifest_file() -> Response:
    """The manifest, as ``application/manifest+json``."""
    body = json.dumps(manifest(), indent=1)
    return Response(
        body, media_type="application/manifest+json", headers={"Cache-Control": REVALIDATE}
    )


@router.get("/icons/{purpose}-{size:int}.png")
def icon_file(purpose: Purpose, size: int) -> Response:
    """An icon the manifest lists; any other size is a 404."""
    if size not in ICON_SIZES:
        raise HTTPException(
            404, f"no {size} px icon: the sizes are {', '.join(map(str, ICON_SIZES))}"
        )
    return Response(
        icon_png(size, purpose), media_type="image/png", headers={"Cache-Control": KEEP_A_DAY}
    )


@router.get("/favicon.ico")
def favicon() -> Response:
    """The tab's icon, which browsers ask for by themselves."""
    return Response(favicon_ico(), media_type="image/x-icon", headers={"Cache-Control": KEEP_A_DAY})


@router.get(WORKER_PATH)
def service_worker() -> Response:
    """The service worker, served from the root so its scope is every page."""
    script = (STATIC_DIR / "sw.js").read_bytes()
    headers = {"Cache-Control": REVALIDATE, "Service-Worker-Allowed": "/"}
    return Response(script, media_type="text/javascript", headers=headers)


@router.get(OFFLINE_PATH, response_class=HTMLResponse)
def offline_page(request: Request) -> HTMLResponse:
    """The app shell the worker keeps: shown in place of a page the service
    could not serve, it says "Reconnecting" and tries again by itself."""
    return TEMPLATES.TemplateResponse(request, "offline.html", {})
