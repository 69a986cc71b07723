// The board page (templates/board.html): follows the board over
// /api/boards/{board}/live and swaps in /boards/{board}/view on each change;
// pairs this browser (a token per board in localStorage, #pair=CODE pairs at
// once) and posts the board's MQTT commands to /api/boards/{board}/command
// with it; tap a dart of the visit, then a bed on the drawn board, to correct
// it; the set-up panel builds a new_game (with a match format); a match's won
// leg and cork show in a banner from the board's events on the same stream.
// No framework, no inline script.
"use strict";

(function () {
  const root = document.getElementById("board-page");
  if (!root) {
    return;
  }
  const board = root.dataset.board;
  const api = "/api/boards/" + encodeURIComponent(board);
  const tokenKey = "oche.board." + board + ".pairing";
  const $ = function (id) { return document.getElementById(id); };
  const scoreboard = $("scoreboard");
  const dartboard = $("dartboard");
  const status = $("status");
  const turn = $("turn");
  const connection = $("connection");

  let live = null; // the board's last LiveBoard from the stream
  let picked = null; // the dart (1-based) picked for a correction
  let catalogue = null; // /api/games

  // --- the status line -----------------------------------------------------
  function say(text, kind) {
    status.textContent = text;
    status.className = "status " + (kind || "");
  }

  // --- pairing ---------------------------------------------------------------
  function pairing() {
    try {
      const stored = JSON.parse(localStorage.getItem(tokenKey) || "null");
      return stored && typeof stored.token === "string" ? stored : null;
    } catch (error) {
      return null;
    }
  }

  function showPairing() {
    const paired = pairing();
    $("paired-as").textContent = paired
      ? "Paired as " + paired.device.name
      : "Pair this device to control the board";
    $("pair-open").hidden = Boolean(paired);
    $("unpair").hidden = !paired;
    $("pair-note").hidden = Boolean(paired);
    root.classList.toggle("paired", Boolean(paired));
  }

  function forget(reason) {
    localStorage.removeItem(tokenKey);
    showPairing();
    if (reason) {
      say(reason, "bad");
    }
  }

  function defaultDeviceName() {
    const agent = navigator.userAgent;
    const system = /Android/.test(agent) ? "Android" : /iPhone|iPad/.test(agent) ? "iOS"
      : /Windows/.test(agent) ? "Windows" : /Mac OS/.test(agent) ? "Mac"
      : /Linux/.test(agent) ? "Linux" : "";
    const browser = /Firefox\//.test(agent) ? "Firefox" : /Edg\//.test(agent) ? "Edge"
      : /Chrom(e|ium)\//.test(agent) ? "Chrome" : /Safari\//.test(agent) ? "Safari" : "Browser";
    return system ? browser + " on " + system : browser;
  }

  function problem(answer, response) {
    let detail = answer && answer.detail;
    if (Array.isArray(detail)) {
      detail = detail.map(function (item) { return item.msg; }).join("; ");
    }
    return detail || "refused (" + response.status + " " + response.statusText + ")";
  }

  async function pair(code, name) {
    const outcome = $("pair-outcome");
    if (!/^[0-9]{6}$/.test(code)) {
      outcome.textContent = "The pairing code is the 6 digits on the board's screen";
      return false;
    }
    outcome.textContent = "Pairing…";
    $("pair-button").disabled = true;
    try {
      const response = await fetch(api + "/pair", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ code: code, name: name }),
      });
      const answer = await response.json().catch(function () { return {}; });
      if (response.ok && typeof answer.token === "string") {
        localStorage.setItem(tokenKey, JSON.stringify({ token: answer.token, device: answer.device }));
        showPairing();
        say("This device controls board " + board + " now", "good");
        loadRoster(); // the venue's players are for paired devices only
        return true;
      }
      outcome.textContent = "Not paired: " + problem(answer, response);
    } catch (error) {
      outcome.textContent = "The service cannot be reached: try again";
    } finally {
      $("pair-button").disabled = false;
    }
    return false;
  }

  function openPairDialog(code) {
    $("pair-code").value = code || "";
    if (!$("pair-name").value) {
      $("pair-name").value = defaultDeviceName();
    }
    $("pair-outcome").textContent = "";
    $("pair-dialog").showModal();
  }

  $("pair-open").addEventListener("click", function () { openPairDialog(""); });
  $("pair-cancel").addEventListener("click", function () { $("pair-dialog").close(); });
  $("pair-form").addEventListener("submit", async function (event) {
    event.preventDefault();
    const name = $("pair-name").value.trim() || defaultDeviceName();
    if (await pair($("pair-code").value.trim(), name)) {
      $("pair-dialog").close();
    }
  });

  $("unpair").addEventListener("click", async function () {
    const paired = pairing();
    if (!paired) {
      return;
    }
    try {
      await fetch(api + "/pairing", {
        method: "DELETE",
        headers: { Authorization: "Bearer " + paired.token },
      });
    } catch (error) {
      // Forgotten here whatever the service says: the operator can revoke it too.
    }
    forget("");
    say("This device no longer controls board " + board, "");
  });

  async function checkPairing() {
    const paired = pairing();
    if (!paired) {
      return;
    }
    try {
      const response = await fetch(api + "/pairing", {
        headers: { Authorization: "Bearer " + paired.token },
      });
      if (response.status === 401 || response.status === 403) {
        const answer = await response.json().catch(function () { return {}; });
        forget("This device is not paired any more: " + problem(answer, response));
      }
    } catch (error) {
      // Offline: keep the token, the stream's banner says so.
    }
  }

  // --- commands --------------------------------------------------------------
  const sentWords = {
    next: "NEXT", undo: "UNDO", bounce: "BOUNCE", miss: "MISS", rematch: "Rematch",
    end_game: "End game", new_game: "New game", correct: "Correction",
  };

  function authHeaders() {
    const paired = pairing();
    return paired ? { Authorization: "Bearer " + paired.token } : {};
  }

  async function send(command) {
    const headers = Object.assign({ "Content-Type": "application/json" }, authHeaders());
    const what = sentWords[command.command] || command.command;
    say(what + "…", "waiting");
    try {
      const response = await fetch(api + "/command", {
        method: "POST",
        headers: headers,
        body: JSON.stringify(command),
      });
      const answer = await response.json().catch(function () { return {}; });
      if (response.ok) {
        say(what + ": done", "good");
        return true;
      }
      const why = problem(answer, response);
      if (response.status === 401) {
        say(what + " refused: " + why + ". Pair this device to control the board", "bad");
      } else if (response.status === 403) {
        forget("");
        say(what + " refused: " + why + ". Pair this device again", "bad");
      } else {
        say(what + " refused: " + why, "bad");
      }
    } catch (error) {
      say(what + " not sent: the service cannot be reached", "bad");
    }
    return false;
  }

  document.querySelectorAll("button[data-command]").forEach(function (button) {
    button.addEventListener("click", function () {
      send({ command: button.dataset.command });
    });
  });

  $("end-open").addEventListener("click", function () { $("end-dialog").showModal(); });
  $("end-dialog").addEventListener("close", function () {
    if ($("end-dialog").returnValue === "end") {
      send({ command: "end_game" });
    }
    $("end-dialog").returnValue = "";
  });

  // --- the live scoreboard ---------------------------------------------------
  function visitDarts() {
    return Array.prototype.slice.call(scoreboard.querySelectorAll("button.dart[data-dart]"));
  }

  function bedOf(button) {
    return button.dataset.bed || button.textContent.trim();
  }

  function placeMarkers() {
    const markers = dartboard.querySelector("g.markers");
    if (!markers) {
      return;
    }
    while (markers.firstChild) {
      markers.removeChild(markers.firstChild);
    }
    const svg = "http://www.w3.org/2000/svg";
    visitDarts().forEach(function (button) {
      const bed = dartboard.querySelector('[data-bed="' + CSS.escape(bedOf(button)) + '"]');
      if (!bed || bed.dataset.x === undefined) {
        return; // a miss has no place on the board
      }
      const dot = document.createElementNS(svg, "circle");
      dot.setAttribute("cx", bed.dataset.x);
      dot.setAttribute("cy", bed.dataset.y);
      dot.setAttribute("r", "9");
      dot.setAttribute("class", "marker" + (button.dataset.dart === String(picked) ? " picked" : ""));
      markers.appendChild(dot);
      const label = document.createElementNS(svg, "text");
      label.setAttribute("x", bed.dataset.x);
      label.setAttribute("y", String(Number(bed.dataset.y) + 4));
      label.setAttribute("class", "marker-number");
      label.setAttribute("text-anchor", "middle");
      label.textContent = button.dataset.dart;
      markers.appendChild(label);
    });
  }

  function showPicked() {
    const darts = visitDarts();
    if (picked !== null && !darts.some(function (b) { return b.dataset.dart === String(picked); })) {
      picked = null; // that dart is gone (the visit ended, or was undone)
    }
    darts.forEach(function (button) {
      button.setAttribute("aria-pressed", button.dataset.dart === String(picked) ? "true" : "false");
    });
    root.classList.toggle("picking", picked !== null);
    placeMarkers();
  }

  function announceTurn() {
    const state = live && live.state;
    let text = "";
    if (live && live.availability === "offline") {
      text = "Board " + board + " is offline";
    } else if (state && state.call && state.call.players && !(state.game && !state.finished)) {
      text = "Next: " + state.call.players.map(function (p) { return p.name; }).join(" v ");
    } else if (!state || !state.game) {
      text = "No game on board " + board;
    } else if (state.finished) {
      const winner = state.players && state.players[state.winner];
      text = winner ? "Game over: " + winner.name + " won" : "Game over";
    } else if (state.players && state.players[state.current_player]) {
      text = state.players[state.current_player].name + " to throw";
    }
    if (turn.textContent !== text) {
      turn.textContent = text;
    }
  }

  let fetching = false;
  let again = false;
  async function refresh() {
    if (fetching) {
      again = true;
      return;
    }
    fetching = true;
    try {
      do {
        again = false;
        const response = await fetch("/boards/" + encodeURIComponent(board) + "/view", {
          cache: "no-store",
        });
        const html = await response.text();
        scoreboard.innerHTML = html;
        showPicked();
        const notHeard = $("not-heard");
        if (notHeard && response.ok) {
          notHeard.remove();
        }
      } while (again);
    } catch (error) {
      connection.hidden = false;
    } finally {
      fetching = false;
    }
  }

  function onBoard(event) {
    let data;
    try {
      data = JSON.parse(event.data);
    } catch (error) {
      return;
    }
    if (!data || data.board !== board) {
      return;
    }
    live = data;
    keepBanner(data.state);
    announceTurn();
    updateLobby();
    refresh();
  }

  function follow() {
    const stream = new EventSource(api + "/live");
    stream.addEventListener("open", function () {
      connection.hidden = true;
    });
    stream.addEventListener("error", function () {
      connection.hidden = false;
      if (stream.readyState === EventSource.CLOSED) {
        setTimeout(follow, 3000); // a refusal (503) closes it: try again later
      }
    });
    stream.addEventListener("state", onBoard);
    stream.addEventListener("availability", onBoard);
    stream.addEventListener("event", onEvent);
  }

  // --- a match: the won leg's (and the cork's) banner, from the board's events
  const ordinals = (root.dataset.ordinals || "").split(" ");
  const legWon = $("leg-won");
  let banner = null; // {leg} of a won leg's banner, {cork: true} of the cork's

  function sideName(player, team) {
    const state = (live && live.state) || {};
    const side = team !== null && team !== undefined && state.teams
      ? state.teams[team] : (state.players || [])[player];
    return side && side.name ? side.name : "Player " + (player + 1);
  }

  function showBanner(words, more, about) {
    $("leg-won-words").textContent = words;
    $("leg-won-score").textContent = more;
    legWon.hidden = false;
    banner = about;
  }

  function hideBanner() {
    legWon.hidden = true;
    banner = null;
  }

  function keepBanner(state) { // a banner goes once its leg is behind (or its cork thrown)
    const match = state && state.match;
    if (banner === null) {
      return;
    }
    if (!match || !state.game) {
      hideBanner();
    } else if (banner.cork ? (state.visit || []).length > 0 : match.leg !== banner.leg) {
      hideBanner();
    }
  }

  function onEvent(message) {
    let data;
    try {
      data = JSON.parse(message.data);
    } catch (error) {
      return;
    }
    const event = data && data.board === board ? data.event : null;
    if (!event) {
      return;
    }
    onAwardEvent(event);
    if (event.type === "leg_won" && Array.isArray(event.legs_won)) {
      const inSet = event.legs_won.reduce(function (sum, legs) { return sum + legs; }, 0);
      const words = event.match_won ? "Game shot, and the match"
        : event.set_won ? "Game shot, and the set"
        : "Game shot, and the " + (ordinals[inSet - 1] || inSet) + " leg";
      const legs = event.legs_won.join("-");
      const score = event.sets_won ? "Sets " + event.sets_won.join("-") + ", legs " + legs : "Legs " + legs;
      showBanner(words, sideName(event.player, event.team) + " · " + score, { leg: event.leg });
    } else if (event.type === "cork_won") {
      showBanner(sideName(event.player, null) + " wins the bull", "and throws first", { cork: true });
    } else if (event.type === "leg_started" && banner && !banner.cork) {
      hideBanner();
    }
  }

  // --- an award: "TON 80!" when its event arrives (a visit's awards together)
  const awardBox = $("award");
  let awardTitles = {};
  try {
    awardTitles = JSON.parse(root.dataset.awards || "{}");
  } catch (error) {
    awardTitles = {};
  }
  let shownAward = null; // {player, darts, at, titles} of the award on show
  let awardTimer = null;
  const AWARD_SECONDS = 8;

  function awardTitle(award) {
    if (awardTitles[award]) {
      return awardTitles[award];
    }
    const marks = /^([1-9])-mark$/.exec(award);
    return marks ? marks[1] + " MARKS" : String(award).replace(/[-_]/g, " ").toUpperCase();
  }

  function hideAward() {
    awardBox.hidden = true;
    shownAward = null;
    if (awardTimer !== null) {
      clearTimeout(awardTimer);
      awardTimer = null;
    }
  }

  function showAward(event) {
    const darts = Array.isArray(event.darts) ? event.darts.join(" ") : "";
    const title = awardTitle(event.award);
    const same = shownAward && shownAward.player === event.player && shownAward.darts === darts
      && Math.abs((event.at || 0) - shownAward.at) < 1;
    if (same) {
      if (shownAward.titles.indexOf(title) < 0) {
        shownAward.titles.push(title);
      }
    } else {
      shownAward = { player: event.player, darts: darts, at: event.at || 0, titles: [title] };
    }
    const name = event.name || sideName(event.player, null);
    const figure = typeof event.points === "number" ? " · " + event.points
      : typeof event.marks === "number" ? " · " + event.marks + " marks" : "";
    $("award-title").textContent = shownAward.titles.join(" + ");
    $("award-detail").textContent = name + " · " + darts + figure;
    awardBox.hidden = false;
    awardBox.classList.remove("award-pop");
    void awardBox.offsetWidth; // restart the animation
    awardBox.classList.add("award-pop");
    if (awardTimer !== null) {
      clearTimeout(awardTimer);
    }
    awardTimer = setTimeout(hideAward, AWARD_SECONDS * 1000);
  }

  function onAwardEvent(event) { // the next visit's first dart takes the award away
    if (event.type === "award" && event.award) {
      showAward(event);
    } else if (event.type === "dart" && shownAward && (event.at || 0) > shownAward.at) {
      hideAward();
    } else if (event.type === "game_started") {
      hideAward();
    }
  }

  // --- correcting a dart -----------------------------------------------------
  scoreboard.addEventListener("click", function (event) {
    const button = event.target.closest("button.dart[data-dart]");
    if (!button) {
      return;
    }
    const number = Number(button.dataset.dart);
    picked = picked === number ? null : number;
    showPicked();
    if (picked !== null) {
      say("Dart " + number + " (" + bedOf(button) + ") picked: now tap the bed it really hit", "");
    } else {
      say("", "");
    }
  });

  function bedPicked(bed) {
    if (picked === null) {
      say("To correct a dart, tap it in the visit first, then the bed it hit", "");
      return;
    }
    const dart = picked;
    picked = null;
    showPicked();
    send({ command: "correct", dart: dart, segment: bed.dataset.bed });
  }

  dartboard.addEventListener("click", function (event) {
    const bed = event.target.closest("[data-bed]");
    if (bed) {
      bedPicked(bed);
    }
  });
  dartboard.addEventListener("keydown", function (event) {
    const bed = event.target.closest("[data-bed]");
    if (bed && (event.key === "Enter" || event.key === " ")) {
      event.preventDefault();
      bedPicked(bed);
    }
  });

  // --- the set-up panel ------------------------------------------------------
  const chosen = []; // {name, cpu?} in throwing order

  function element(tag, attributes, text) {
    const made = document.createElement(tag);
    Object.keys(attributes || {}).forEach(function (key) { made.setAttribute(key, attributes[key]); });
    if (text !== undefined) {
      made.textContent = text;
    }
    return made;
  }

  function cpuText(player) {
    if (!player.cpu) {
      return player.name;
    }
    return typeof player.cpu === "number"
      ? player.name + " (CPU " + player.cpu + ")"
      : player.name + " (CPU, average " + player.cpu.average + ")";
  }

  function showChosen() {
    const list = $("setup-players");
    list.replaceChildren();
    chosen.forEach(function (player, index) {
      const item = element("li", {}, cpuText(player) + " ");
      const remove = element("button", {
        type: "button", class: "remove secondary", "aria-label": "Remove " + cpuText(player),
      }, "✕");
      remove.addEventListener("click", function () {
        chosen.splice(index, 1);
        showChosen();
      });
      item.appendChild(remove);
      list.appendChild(item);
    });
    $("players-hint").hidden = chosen.length > 0;
  }

  function addPlayer(player) {
    const taken = chosen.some(function (other) {
      return other.name.toLowerCase() === player.name.toLowerCase();
    });
    if (taken) {
      say(player.name + " is already playing", "bad");
      return false;
    }
    chosen.push(player);
    showChosen();
    say(cpuText(player) + " added", "");
    return true;
  }

  function updateLobby() {
    const lobby = (live && live.state && live.state.lobby && live.state.lobby.players) || [];
    const names = $("lobby-names");
    names.replaceChildren();
    lobby.forEach(function (player) {
      const button = element("button", { type: "button", class: "secondary lobby-player" }, player.name);
      button.addEventListener("click", function () { addPlayer({ name: player.name }); });
      names.appendChild(button);
      names.appendChild(document.createTextNode(" "));
    });
    $("lobby-add").hidden = lobby.length === 0;
  }

  function optionField(option) {
    const id = "option-" + option.name;
    const row = element("div", { class: "option" });
    let input;
    if (option.type === "bool") {
      input = element("input", { type: "checkbox", id: id });
      input.checked = Boolean(option.default);
      const label = element("label", { for: id });
      label.appendChild(input);
      label.appendChild(document.createTextNode(" " + option.name));
      row.appendChild(label);
    } else {
      row.appendChild(element("label", { for: id }, option.name));
      if (option.choices && option.choices.length) {
        input = element("select", { id: id });
        option.choices.forEach(function (choice) {
          const item = element("option", { value: String(choice) }, String(choice));
          item.selected = choice === option.default;
          input.appendChild(item);
        });
      } else {
        input = element("input", { id: id, type: option.type === "int" ? "number" : "text" });
        if (option.type === "int") {
          input.setAttribute("inputmode", "numeric");
          if (option.minimum !== null && option.minimum !== undefined) {
            input.setAttribute("min", String(option.minimum));
          }
          if (option.maximum !== null && option.maximum !== undefined) {
            input.setAttribute("max", String(option.maximum));
          }
        }
        input.value = String(option.default);
      }
      row.appendChild(input);
    }
    input.dataset.option = option.name;
    input.dataset.type = option.type;
    if (option.help) {
      const help = element("small", { id: id + "-help", class: "help" }, option.help);
      input.setAttribute("aria-describedby", id + "-help");
      row.appendChild(help);
    }
    return row;
  }

  function gameEntry() {
    const wanted = $("setup-game").value;
    return (catalogue.games || []).find(function (game) { return game.id === wanted; });
  }

  function showOptions() {
    const game = gameEntry();
    const fields = $("setup-options");
    fields.querySelectorAll(".option").forEach(function (row) { row.remove(); });
    $("game-summary").textContent = game ? [game.summary, game.lineup].filter(Boolean).join(" · ") : "";
    (game ? game.options : []).forEach(function (option) { fields.appendChild(optionField(option)); });
    fields.hidden = !game || game.options.length === 0;
  }

  async function loadSetup() {
    if (catalogue !== null) {
      return;
    }
    try {
      const response = await fetch("/api/games");
      if (!response.ok) {
        throw new Error(String(response.status));
      }
      catalogue = await response.json();
    } catch (error) {
      say("The list of games cannot be loaded: try again", "bad");
      return;
    }
    const select = $("setup-game");
    catalogue.games.forEach(function (game) {
      select.appendChild(element("option", { value: game.id }, game.name));
    });
    const playing = live && live.state && live.state.game;
    if (playing && catalogue.games.some(function (game) { return game.id === playing; })) {
      select.value = playing;
    }
    showOptions();
    const cpu = catalogue.cpu || { levels: [] };
    cpu.levels.forEach(function (level) {
      const label = "Level " + level.level + " (average " + Math.round(level.average) + ")";
      $("cpu-level").appendChild(element("option", { value: String(level.level) }, label));
    });
    if (cpu.levels.length) {
      $("cpu-level").value = String(cpu.levels[Math.floor(cpu.levels.length / 2)].level);
    }
    if (cpu.average_min !== undefined) {
      $("cpu-average").setAttribute("min", String(cpu.average_min));
      $("cpu-average").setAttribute("max", String(cpu.average_max));
      $("cpu-average").placeholder = cpu.average_min + "–" + cpu.average_max;
    }
    loadRoster();
  }

  async function loadRoster() {
    try {
      const response = await fetch(api + "/roster", { headers: authHeaders() });
      if (!response.ok) {
        return; // no roster for this board: guests only
      }
      const answer = await response.json();
      const players = Array.isArray(answer) ? answer : answer.players || [];
      const pick = $("roster-pick");
      players.forEach(function (player) {
        pick.appendChild(element("option", { value: player.name }, player.name));
      });
      $("roster-add").hidden = players.length === 0;
    } catch (error) {
      // The roster is a convenience: guests can still be typed.
    }
  }

  $("setup").addEventListener("toggle", function () {
    if ($("setup").open) {
      loadSetup();
    }
  });
  $("setup-game").addEventListener("change", showOptions);
  function showMatch() {
    const single = $("match-legs").value === "";
    $("setup-match").querySelectorAll(".match-more").forEach(function (row) { row.hidden = single; });
  }
  $("match-legs").addEventListener("change", showMatch);
  $("roster-button").addEventListener("click", function () {
    if ($("roster-pick").value) {
      addPlayer({ name: $("roster-pick").value });
    }
  });
  $("guest-button").addEventListener("click", function () {
    const name = $("guest-name").value.trim();
    if (!name) {
      say("Type the guest's name first", "bad");
      return;
    }
    if (addPlayer({ name: name })) {
      $("guest-name").value = "";
    }
  });
  $("guest-name").addEventListener("keydown", function (event) {
    if (event.key === "Enter") {
      event.preventDefault();
      $("guest-button").click();
    }
  });
  $("cpu-button").addEventListener("click", function () {
    const typed = $("cpu-average").value.trim();
    const cpu = typed !== "" ? { average: Number(typed) } : Number($("cpu-level").value);
    if (typeof cpu === "object" && !Number.isFinite(cpu.average)) {
      say("The computer's average is a number", "bad");
      return;
    }
    let name = "CPU";
    for (let n = 2; chosen.some(function (p) { return p.name === name; }); n += 1) {
      name = "CPU " + n;
    }
    if (addPlayer({ name: name, cpu: cpu })) {
      $("cpu-average").value = "";
    }
  });

  function optionValues() {
    const options = {};
    $("setup-options").querySelectorAll("[data-option]").forEach(function (input) {
      const type = input.dataset.type;
      if (type === "bool") {
        options[input.dataset.option] = input.checked;
      } else if (type === "int") {
        options[input.dataset.option] = Number(input.value);
      } else {
        options[input.dataset.option] = input.value;
      }
    });
    return options;
  }

  $("setup-form").addEventListener("submit", async function (event) {
    event.preventDefault();
    const game = gameEntry();
    if (!game) {
      say("Pick a game first", "bad");
      return;
    }
    const command = { command: "new_game", game: game.id, options: optionValues() };
    if ($("match-legs").value) {
      command.match = { legs: Number($("match-legs").value), starts: $("match-starts").value };
      if ($("match-sets").value) {
        command.match.sets = Number($("match-sets").value);
      }
      if ($("match-decider").value) {
        command.match.decider = $("match-decider").value;
      }
    }
    if (chosen.length) {
      if (chosen.length < game.sides_min) {
        say(game.name + " needs at least " + game.sides_min + " players", "bad");
        return;
      }
      command.players = chosen.map(function (player) {
        return player.cpu === undefined ? player.name : { name: player.name, cpu: player.cpu };
      });
    }
    if (await send(command)) {
      $("setup").open = false;
    }
  });

  // --- start -----------------------------------------------------------------
  showPairing();
  showPicked();
  showMatch();
  follow();
  checkPairing();
  function pairFromLink() {
    const wanted = /(?:^#|&)pair=([0-9]{6})(?:&|$)/.exec(location.hash);
    if (!wanted) {
      return;
    }
    history.replaceState(null, "", location.pathname + location.search);
    openPairDialog(wanted[1]);
    pair(wanted[1], $("pair-name").value.trim() || defaultDeviceName()).then(function (done) {
      if (done) {
        $("pair-dialog").close();
      }
    });
  }
  window.addEventListener("hashchange", pairFromLink);
  pairFromLink();
})();
