// The Activity page kept live: while the tab is visible, reads the page again every 10 s and swaps in
// its charts, so every drawing is the server's (web/activity_svg.py) and nothing is drawn twice.
// DOMParser builds the fetched page inert (no script in it runs); only the charts' block is taken.
"use strict";

(() => {
  const EVERY_MS = 10000;
  const charts = document.getElementById("activity-charts");
  let failed = false;

  async function refresh() {
    try {
      const reply = await fetch(window.location.pathname, { headers: { Accept: "text/html" }, credentials: "same-origin" });
      if (!reply.ok) throw new Error(`HTTP ${reply.status}`);
      const page = new DOMParser().parseFromString(await reply.text(), "text/html");
      const fresh = page.getElementById("activity-charts");
      if (fresh && fresh.innerHTML !== charts.innerHTML) charts.replaceChildren(...fresh.childNodes);
      if (failed) panelgate.say("");
      failed = false;
    } catch (failure) {
      failed = true;
      panelgate.say(`Could not read the activity (${failure.message}); trying again.`, true);
    }
  }

  panelgate.keepReading(EVERY_MS, refresh);
})();
