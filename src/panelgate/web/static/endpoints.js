// Endpoints: the key dialog (for which endpoint, removing a key after a confirm, the field emptied
// whenever the dialog closes), the message after adding one, and "What it serves": the endpoint's
// listing asked on demand, each id not on the bench with "Add to bench" (the shared model dialog).
// Every change is a data-api form or data-action button (app.js).
"use strict";

(() => {
  const FILTER_FROM = 12;

  function element(tag, attributes = {}, ...children) {
    const made = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value);
    made.append(...children);
    return made;
  }

  // ---- the key dialog -------------------------------------------------------------------------

  function openKey(event) {
    const { name, has_key: hasKey } = JSON.parse(event.detail.fill || "{}");
    document.getElementById("key-endpoint").textContent = name;
    const clear = document.getElementById("key-clear-form");
    clear.dataset.name = name;
    clear.hidden = !hasKey;
    clear.querySelector(".form-error").textContent = "";
  }

  function confirmClear(event) {
    const name = event.target.dataset.name;
    if (confirm(`Remove the key of ${name}? It is tried first: an endpoint that needs a key keeps it.`)) return;
    event.preventDefault();
    event.stopPropagation();
  }

  // ---- what it serves -------------------------------------------------------------------------

  function servedRow(endpoint, item) {
    const id = element("th", { scope: "row" }, element("code", {}, item.served_id));
    let state;
    if (item.on_bench.length) {
      state = element("td", {}, element("span", { class: "chip ok" }, `on the bench as ${item.on_bench.join(", ")}`));
    } else if (item.retired.length) {
      // restoring keeps its history and collections; a second model for the same id would not
      state = element("td", { class: "muted" }, `retired as ${item.retired.join(", ")}: restore it on `,
        element("a", { href: "/models" }, "Models"));
    } else {
      const add = element("button", { type: "button", "data-open": "new-model" },
        "Add", element("span", { class: "sr-only" }, ` ${item.served_id}`), " to bench");
      add.dataset.fill = JSON.stringify({ endpoint, served_id: item.served_id, alias: item.alias });
      state = element("td", {}, add);
    }
    const row = element("tr", {}, id, state);
    row.dataset.id = item.served_id.toLowerCase();
    row.classList.toggle("on-bench", item.on_bench.length > 0);
    return row;
  }

  function servedList(endpoint, listing) {
    const off = listing.served.filter((item) => !item.on_bench.length).length;
    const parts = [element("div", { class: "served-head" },
      element("h3", {}, `What ${endpoint} serves`),
      element("span", { class: "muted" }, `${listing.served.length} listed, ${off} not on the bench`))];
    if (!listing.served.length) {
      parts.push(element("p", { class: "muted" }, "Its listing is empty."));
    } else {
      const rows = listing.served.map((item) => servedRow(endpoint, item));
      if (rows.length >= FILTER_FROM) parts.push(filterBox(endpoint, rows));
      const head = element("tr", {}, element("th", { scope: "col" }, "Served id"),
        element("th", { scope: "col" }, "On the bench"));
      parts.push(element("div", { class: "table-wrap" },
        element("table", {}, element("thead", {}, head), element("tbody", {}, ...rows))));
    }
    if (listing.unlisted.length) {
      parts.push(element("p", { class: "muted" },
        `On the bench through ${endpoint} but not in its listing now: ${listing.unlisted.join(", ")}.`));
    }
    return parts;
  }

  function filterBox(endpoint, rows) {
    const input = element("input", { type: "search", autocomplete: "off", spellcheck: "false" });
    input.addEventListener("input", () => {
      const wanted = input.value.trim().toLowerCase();
      for (const row of rows) row.hidden = Boolean(wanted) && !row.dataset.id.includes(wanted);
    });
    return element("label", { class: "field served-filter" }, element("span", {}, `Find in what ${endpoint} serves`), input);
  }

  async function toggleServed(button) {
    const endpoint = button.dataset.served;
    const shown = document.getElementById(`served-${endpoint}`);
    if (button.getAttribute("aria-expanded") === "true") {
      shown.hidden = true;
      button.setAttribute("aria-expanded", "false");
      return;
    }
    button.disabled = true;
    shown.hidden = false;
    shown.replaceChildren(element("p", { class: "muted", role: "status" }, `Asking ${endpoint} for its listing…`));
    try {
      const listing = await panelgate.api("GET", `/api/endpoints/${encodeURIComponent(endpoint)}/served`);
      shown.replaceChildren(...servedList(endpoint, listing));
    } catch (failure) {
      shown.replaceChildren(element("p", { class: "form-error", role: "alert" }, failure.message));
    } finally {
      button.disabled = false;
      button.setAttribute("aria-expanded", "true");
    }
  }

  document.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-served]");
    if (button) toggleServed(button);
  });

  document.addEventListener("DOMContentLoaded", () => {
    const keyDialog = document.getElementById("key-dialog");
    keyDialog.addEventListener("panelgate:open", openKey);
    keyDialog.addEventListener("close", () => document.getElementById("key-form").reset());
    document.getElementById("key-clear-form").addEventListener("submit", confirmClear);
    const addDialog = document.getElementById("endpoint-dialog");
    addDialog.addEventListener("close", () => addDialog.querySelector("form").reset());
    addDialog.addEventListener("panelgate:saved", (event) => {
      const { endpoint, listed } = event.detail;
      event.target.dataset.said = `Endpoint ${endpoint.name} added: it lists ${listed.length} models.`;
    });
  });
})();
