// The operator's tournament pages (templates/admin_tournaments.html and the
// admin view of templates/tournament.html): posts the create form as JSON to
// POST /api/tournaments, and a walkover button to
// POST /api/tournaments/{id}/matches/{match}/walkover, then says how it went.
// The browser sends the admin password (HTTP Basic) it was asked for. No
// inline script (the Content-Security-Policy allows only this file).
"use strict";

(function () {
  function lines(text) {
    return text.split("\n").map((line) => line.trim()).filter((line) => line !== "");
  }

  function options(text) {
    const found = {};
    for (const line of lines(text)) {
      const at = line.indexOf("=");
      if (at < 1) throw new Error("an option is KEY=VALUE, not " + JSON.stringify(line));
      found[line.slice(0, at).trim()] = line.slice(at + 1).trim();
    }
    return found;
  }

  async function post(url, body) {
    const response = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
      credentials: "same-origin",
    });
    const answer = await response.json().catch(() => ({}));
    if (!response.ok) {
      const detail = answer.detail;
      const text = typeof detail === "string" ? detail
        : Array.isArray(detail) ? detail.map((item) => item.msg).join("; ") : "HTTP " + response.status;
      throw new Error(text);
    }
    return answer;
  }

  const form = document.getElementById("tournament-form");
  const outcome = document.getElementById("create-outcome");
  if (form && outcome) {
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const data = new FormData(form);
      try {
        const sets = String(data.get("sets") || "").trim();
        const made = await post("/api/tournaments", {
          title: String(data.get("title") || "").trim() || null,
          format: data.get("format"),
          game: data.get("game"),
          options: options(String(data.get("options") || "")),
          legs: Number(data.get("legs")),
          sets: sets === "" ? null : Number(sets),
          boards: lines(String(data.get("boards") || "")),
          players: lines(String(data.get("players") || "")),
        });
        outcome.textContent = "Created tournament " + made.id;
        outcome.className = "outcome good";
        window.location.assign("/admin/tournaments/" + made.id);
      } catch (error) {
        outcome.textContent = "Not created: " + error.message;
        outcome.className = "outcome bad";
      }
    });
  }

  const said = document.getElementById("walkover-outcome");
  for (const button of document.querySelectorAll("button.walkover-button")) {
    button.addEventListener("click", async () => {
      const { tournament, match, winner } = button.dataset;
      if (!window.confirm(winner + " goes through " + match + " without play?")) return;
      try {
        await post("/api/tournaments/" + tournament + "/matches/" + encodeURIComponent(match) + "/walkover", { winner });
        window.location.reload();
      } catch (error) {
        if (said) said.textContent = "Not walked over: " + error.message;
      }
    });
  }
})();
