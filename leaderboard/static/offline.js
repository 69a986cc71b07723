// The offline page (templates/offline.html), shown by the service worker in
// place of a page the service could not serve: tries that page again, after
// 2 s and then at most every 30 s (and at once when the device says it is
// back online, or on "Try now"), and loads it as soon as the service answers.
"use strict";

(function () {
  const status = document.getElementById("retry-status");
  const button = document.getElementById("retry-now");
  // Opened as itself (not in place of another page): come back to the TV page.
  const wanted = location.pathname === "/offline" ? "/" : location.href;
  let delay = 2000;
  let timer = null;

  function say(text) {
    if (status) status.textContent = text;
  }

  async function attempt() {
    clearTimeout(timer);
    say("Reconnecting…");
    try {
      const response = await fetch(wanted, { cache: "no-store", credentials: "same-origin" });
      if (response.status < 500) {
        say("Connected: loading the page");
        location.replace(wanted);
        return;
      }
    } catch (error) {
      // Still out of reach: try again later.
    }
    const seconds = Math.round(delay / 1000);
    say("Reconnecting: the service is out of reach, next try in " + seconds + " s");
    timer = setTimeout(attempt, delay);
    delay = Math.min(delay * 2, 30000);
  }

  if (button) button.addEventListener("click", function () { delay = 2000; attempt(); });
  window.addEventListener("online", function () { delay = 2000; attempt(); });
  timer = setTimeout(attempt, delay);
})();
