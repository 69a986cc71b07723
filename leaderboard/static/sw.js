// The leaderboard's service worker (served at /sw.js, scope /): keeps the
// app shell (the /offline page, the stylesheet, its script, the icons) and,
// when a page cannot be loaded because the service is out of reach, answers
// with that shell, which says "Reconnecting" and tries the page again by
// itself (static/offline.js). Pages always come from the network first, so
// nothing stale is ever shown as live; the API, the live streams and the
// admin views are never touched.
"use strict";

const SHELL_CACHE = "oche-shell-1";
const OFFLINE_PAGE = "/offline";
const SHELL = [
  OFFLINE_PAGE,
  "/static/leaderboard.css",
  "/static/offline.js",
  "/static/app.js",
  "/manifest.webmanifest",
  "/icons/any-192.png",
  "/favicon.ico",
];

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches.open(SHELL_CACHE)
      .then((cache) => cache.addAll(SHELL.map((path) => new Request(path, { cache: "reload" }))))
      .then(() => self.skipWaiting())
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((names) => Promise.all(
        names.filter((name) => name !== SHELL_CACHE).map((name) => caches.delete(name))
      ))
      .then(() => self.clients.claim())
  );
});

function passesBy(url) {
  return url.origin !== self.location.origin
    || url.pathname.startsWith("/api/")
    || url.pathname.startsWith("/admin/");
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (passesBy(url)) return;
  if (request.mode === "navigate") {
    event.respondWith(
      fetch(request).catch(() => caches.match(OFFLINE_PAGE).then((page) => page || Response.error()))
    );
    return;
  }
  if (SHELL.includes(url.pathname)) {
    // The network's copy when it answers (and kept for next time), else the kept one.
    event.respondWith(
      fetch(request)
        .then((response) => {
          if (response.ok) {
            const copy = response.clone();
            caches.open(SHELL_CACHE).then((cache) => cache.put(url.pathname, copy));
          }
          return response;
        })
        .catch(() => caches.match(url.pathname).then((kept) => kept || Response.error()))
    );
  }
});
