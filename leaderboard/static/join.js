// The phone's join page (templates/join.html): filters the names as the
// player types in the search box, and posts the join to
// /api/boards/{board}/join, then says how it went. No inline script (the
// Content-Security-Policy allows only this file).
"use strict";

(function () {
  const root = document.getElementById("join");
  const form = document.getElementById("join-form");
  const outcome = document.getElementById("outcome");
  const button = document.getElementById("join-button");
  const newName = document.getElementById("new-name");
  const search = document.getElementById("search");
  const linkCard = document.getElementById("link-card");
  if (!root || !form || !outcome || !button || !newName) {
    return;
  }

  function say(text, kind) {
    outcome.textContent = text;
    outcome.className = "outcome " + kind;
  }

  if (search) {
    search.addEventListener("input", function () {
      const wanted = search.value.trim().toLowerCase();
      document.querySelectorAll("#names li").forEach(function (item) {
        const name = item.textContent.trim().toLowerCase();
        item.hidden = wanted !== "" && !name.includes(wanted);
      });
    });
  }

  // Typing a new name unpicks a roster name, and picking one clears the field.
  newName.addEventListener("input", function () {
    if (newName.value.trim() !== "") {
      document.querySelectorAll('input[name="player"]').forEach(function (radio) {
        radio.checked = false;
      });
    }
  });
  document.querySelectorAll('input[name="player"]').forEach(function (radio) {
    radio.addEventListener("change", function () {
      newName.value = "";
    });
  });

  function chosenPlayer() {
    const typed = newName.value.trim();
    if (typed !== "") {
      return { name: typed };
    }
    const picked = document.querySelector('input[name="player"]:checked');
    return picked ? { id: Number(picked.value) } : null;
  }

  form.addEventListener("submit", async function (event) {
    event.preventDefault();
    const player = chosenPlayer();
    if (player === null) {
      say("Pick your name, or type a new one", "bad");
      return;
    }
    const board = root.dataset.board;
    const body = { code: root.dataset.code, player: player };
    if (linkCard && linkCard.checked) {
      body.link_card = true;
    }
    button.disabled = true;
    say("Joining…", "waiting");
    try {
      const response = await fetch("/api/boards/" + encodeURIComponent(board) + "/join", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      const answer = await response.json().catch(function () { return {}; });
      if (response.ok) {
        let text = "You're in: " + answer.player.name + " on board " + answer.board;
        if (answer.card_linked) {
          text += " (your card is linked)";
        }
        say(text, "good");
        form.hidden = true;
        return;
      }
      let detail = answer.detail;
      if (Array.isArray(detail)) {
        detail = detail.map(function (problem) { return problem.msg; }).join("; ");
      }
      say(detail || "The join was refused (" + response.status + ")", "bad");
    } catch (error) {
      say("The service cannot be reached: try again", "bad");
    }
    button.disabled = false;
  });
})();
