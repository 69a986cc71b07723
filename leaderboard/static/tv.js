// The bar's TV page: rotates between its slides and keeps them live from
// /api/live (Server-Sent Events). A new result re-fetches the tables and
// records (/tv/rankings), a board's state or availability the boards (/tv/boards):
// both are rendered by the server, so this script never builds a table itself.
// The boards slide shows every live board: its cards shrink until all fit, and
// when even the smallest readable cards do not (a phone), they are paged.
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
    fitBoards();
  }

  // --- the boards slide: shrink the cards to fit, page them if they cannot ---
  const MIN_FONT_PX = 14; // the smallest card text worth showing
  const PAGE_SECONDS = 8;
  let pages = []; // [first, end) card indices of each page
  let page = 0;

  function boardsGrid() {
    return slides.querySelector('.slide.active[data-slide="boards"] .boards');
  }

  function overflows(grid) {
    return grid.scrollHeight > grid.clientHeight + 1 || grid.scrollWidth > grid.clientWidth + 1;
  }

  function showPage(grid, index) {
    const cards = Array.from(grid.querySelectorAll("article.board"));
    page = pages.length ? index % pages.length : 0;
    const [first, end] = pages[page] || [0, cards.length];
    cards.forEach((card, at) => { card.hidden = at < first || at >= end; });
    const label = grid.parentElement.querySelector(".boards-page");
    if (label) label.textContent = pages.length > 1 ? (page + 1) + " of " + pages.length : "";
  }

  function fitBoards() {
    const grid = boardsGrid();
    if (!grid) return;
    const cards = Array.from(grid.querySelectorAll("article.board"));
    for (const card of cards) card.hidden = false;
    let scale = 1;
    grid.style.setProperty("--board-scale", scale);
    const base = parseFloat(getComputedStyle(grid).fontSize) || 16;
    const smallest = Math.min(1, MIN_FONT_PX / base);
    while (overflows(grid) && scale > smallest) {
      scale = Math.max(smallest, scale * 0.92);
      grid.style.setProperty("--board-scale", scale);
    }
    pages = [];
    if (overflows(grid)) {
      // greedy pages: as many cards as fit, in order
      let first = 0;
      while (first < cards.length) {
        cards.forEach((card, at) => { card.hidden = at < first; });
        let end = cards.length;
        while (end > first + 1 && overflows(grid)) {
          end -= 1;
          cards[end].hidden = true;
        }
        pages.push([first, end]);
        first = end;
      }
    }
    showPage(grid, pages.length > 1 ? page : 0);
  }

  setInterval(() => {
    const grid = boardsGrid();
    if (grid && pages.length > 1) showPage(grid, page + 1);
  }, PAGE_SECONDS * 1000);
  window.addEventListener("resize", fitBoards);

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
