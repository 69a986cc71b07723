// Every page's app shell: registers the service worker (/sw.js), which keeps
// an offline page that says "Reconnecting" when the service is out of reach.
// Browsers offer it only on a secure origin (https, or localhost): elsewhere
// navigator.serviceWorker is missing and the pages work as plain pages.
"use strict";

(function () {
  if (!("serviceWorker" in navigator)) return;
  window.addEventListener("load", function () {
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(function (error) {
      console.warn("the offline page is not available:", error);
    });
  });
})();
