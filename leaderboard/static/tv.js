// The bar's TV page: rotates between its slides and keeps them live from
// /api/live (Server-Sent Events). A new result re-fetches the tables and
// records (/tv/rankings), a board's state or availability the boards (/tv/boards):
// both are rendered by the server, so this script never builds a table itself.
"use strict";

(function () {
  const slides = document.getElementById("slides");
  const venue = slides.dataset.venue;
  const rotateSeconds = Number(slides.dataset.rotate) || 0;
  const gameNames = JSON.parse(document.getElementById("game-names").textContent);
  const query = venue ? "?venue=" + encodeURIComponent(venue) : "";
  let current = null; // data-slide of the slide on screen

  function allSlides() {
    return Array.from(slides.querySelectorAll(".slide"));
  }

  function show(key) {
    const list = allSlides();
    if (list.length === 0) return;
    const found = list.find((slide) => slide.dataset.slide === key) || list[0];
    for (const slide of list) slide.classList.toggle("active", slide === found);
    current = found.dataset.slide;
  }

  function next() {
    const list = allSlides();
    if (list.length === 0) return;
    const index = list.findIndex((slide) => slide.dataset.slide === current);
    show(list[(index + 1) % list.length].dataset.slide);
  }

  function setConnection(text, ok) {
    const element = document.getElementById("connection");
    element.textContent = text;
    element.classList.toggle("ok", ok);
  }

  // Re-fetch one server-rendered fragment into its container, at most one
  // request in flight per container; a change during a request fetches again.
  const refreshers = {};
  function refresher(containerId, url) {
    let running = false;
    let again = false;
    return async function refresh() {
      if (running) { again = true; return; }
      running = true;
      try {
        do {
          again = false;
          const response = await fetch(url, { cache: "no-store" });
          if (!response.ok) throw new Error(url + ": HTTP " + response.status);
          document.getElementById(containerId).innerHTML = await response.text();
          show(current);
        } while (again);
      } catch (error) {
        setConnection("update failed, retrying", false);
        setTimeout(refresh, 3000);
      } finally {
        running = false;
      }
    };
  }
  refreshers.rankings = refresher("ranking-slides", "/tv/rankings" + query);
  refreshers.boards = refresher("board-slides", "/tv/boards" + query);

  function announce(result) {
    const game = gameNames[result.game] || result.game;
    const who = result.winner_name ? result.winner_name + " won" : "Draw in";
    document.getElementById("latest").textContent = who + " " + game + " on " + result.board;
  }

  function connect() {
    const source = new EventSource("/api/live" + query);
    source.onopen = () => setConnection("live", true);
    source.onerror = () => setConnection("reconnecting", false); // EventSource retries by itself
    source.addEventListener("result", (event) => {
      announce(JSON.parse(event.data));
      refreshers.rankings();
    });
    source.addEventListener("leaderboard", () => refreshers.rankings());
    source.addEventListener("state", () => refreshers.boards());
    source.addEventListener("availability", () => refreshers.boards());
    window.addEventListener("pagehide", () => source.close());
  }

  function tick() {
    const now = new Date();
    document.getElementById("clock").textContent =
      now.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", hour12: false });
  }

  show(slides.dataset.start || null);
  tick();
  setInterval(tick, 10000);
  if (rotateSeconds > 0) setInterval(next, Math.max(rotateSeconds, 2) * 1000);
  connect();
})();
