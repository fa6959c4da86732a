// The Discover page's Add buttons: queue the row's model (POST /api/discover/add), then follow it in the
// onboarding queue (GET /api/onboarding?batch=…) until it has ended, saying where it is in the row.
"use strict";

(() => {
  const FOLLOW_MS = 2000;
  const ENDED = ["done", "unavailable", "failed", "stopped"];
  const WORDS = {
    queued: "queued",
    running: "onboarding",
    stopping: "stopping",
    done: "on the bench",
    unavailable: "on the bench, did not answer",
    failed: "onboarding failed",
    stopped: "stopped",
  };

  function say(cell, item, batch) {
    const chip = document.createElement("span");
    chip.className = item.state === "done" ? "chip ok" : ENDED.includes(item.state) ? "chip error" : "chip";
    const progress = item.progress ? ` (${item.progress.done}/${item.progress.total})` : "";
    const step = item.state === "running" ? `: ${item.step}${progress}` : "";
    chip.textContent = `${WORDS[item.state] || item.state} as ${item.alias}${step}`;
    const details = document.createElement("a");
    details.href = item.model_id === null ? `/api/onboarding?batch=${encodeURIComponent(batch)}` : "/models";
    details.textContent = item.model_id === null ? "progress" : "see it on Models";
    const why = document.createElement("small");
    why.className = "muted";
    why.textContent = item.why ? ` ${item.why}` : "";
    cell.replaceChildren(chip, " ", details, why);
  }

  function follow(cell, batch) {
    panelgate.keepReading(FOLLOW_MS, async () => {
      if (!cell.isConnected || cell.dataset.ended) return;
      const shown = await panelgate.api("GET", `/api/onboarding?batch=${encodeURIComponent(batch)}`);
      const item = shown.items[0];
      if (!item) return;
      say(cell, item, batch);
      if (ENDED.includes(item.state)) cell.dataset.ended = item.state;
    });
  }

  async function add(button) {
    const cell = button.closest("td");
    button.disabled = true;
    try {
      const added = await panelgate.api("POST", "/api/discover/add", JSON.parse(button.dataset.add));
      say(cell, added.items[0], added.batch);
      panelgate.say(`${added.provider}/${added.model} queued as ${added.alias} through ${added.route.endpoint}.`);
      follow(cell, added.batch);
    } catch (failure) {
      panelgate.say(failure.message, true);
      button.disabled = false;
    }
  }

  document.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-add]");
    if (button) add(button);
  });
})();
