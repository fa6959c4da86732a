// Models: the "Show retired" toggle (kept for this tab, so it survives the reload after a change),
// and the parts of the model dialog that depend on its row: where the model is served, its health,
// and either Retire… (which opens the retire dialog) or Restore. Every change is a data-api form or
// data-action button (app.js). /models#model-<alias> opens that model's dialog.
"use strict";

(() => {
  const SHOW_RETIRED = "panelgate:show-retired";

  function showRetired(on) {
    document.getElementById("roster").classList.toggle("show-retired", on);
    sessionStorage.setItem(SHOW_RETIRED, on ? "yes" : "");
  }

  function openModel(event) {
    const model = JSON.parse(event.detail.fill || "{}");
    document.getElementById("model-where").textContent =
      `${model.current}: served as ${model.served_id} through ${model.endpoint}.`;
    // the store changes only models on the bench: a retired one offers Restore alone
    document.getElementById("model-form").hidden = model.retired;
    document.getElementById("model-on-bench").hidden = model.retired;
    document.getElementById("model-retired").hidden = !model.retired;
    document.getElementById("model-retired-note").textContent = model.retired_note || "";
    const restore = document.getElementById("restore-form");
    restore.dataset.alias = model.current;
    restore.querySelector(".form-error").textContent = "";
    document.getElementById("retire-open").dataset.fill = JSON.stringify({ alias: model.current });
    showHealth(model.current);
  }

  // the dialog shows the row's health chip and why, and "Check it now" probes that model (app.js data-action)
  function showHealth(alias) {
    const cell = editButton(alias)?.closest("tr").querySelector(".health-cell");
    const shown = document.getElementById("model-health");
    shown.replaceChildren(...(cell ? cell.cloneNode(true).childNodes : []));
    for (const part of shown.querySelectorAll("[id]")) part.removeAttribute("id");
    for (const part of shown.querySelectorAll("[aria-describedby]")) part.removeAttribute("aria-describedby");
    for (const why of shown.querySelectorAll(".why")) why.hidden = false;
    const probe = document.getElementById("probe-now");
    probe.dataset.action = `POST /api/health/${encodeURIComponent(alias)}/probe`;
    probe.disabled = false;
  }

  function editButton(alias) {
    return document.querySelector(`#roster button[data-model="${CSS.escape(alias)}"]`);
  }

  // /models#model-<alias> (from At a glance) opens that model's dialog, showing retired rows if need be
  function openFromAddress() {
    if (!location.hash.startsWith("#model-")) return;
    const button = editButton(decodeURIComponent(location.hash.slice("#model-".length)));
    if (!button) return;
    const toggle = document.getElementById("show-retired");
    if (toggle && button.closest("tr.retired") && !toggle.checked) {
      toggle.checked = true;
      showRetired(true);
    }
    button.click();
  }

  function openRetire(event) {
    const { alias } = JSON.parse(event.detail.fill || "{}");
    document.getElementById("retire-alias").textContent = alias || "";
  }

  document.addEventListener("DOMContentLoaded", () => {
    const toggle = document.getElementById("show-retired");
    if (toggle) {
      toggle.checked = sessionStorage.getItem(SHOW_RETIRED) === "yes";
      showRetired(toggle.checked);
      toggle.addEventListener("change", () => showRetired(toggle.checked));
    }
    document.getElementById("model-dialog").addEventListener("panelgate:open", openModel);
    document.getElementById("retire-dialog").addEventListener("panelgate:open", openRetire);
    // one dialog at a time: the model dialog closes as the retire dialog opens (app.js opens it next)
    document.getElementById("retire-open").addEventListener("click", () => {
      document.getElementById("model-dialog").close();
    });
    openFromAddress();
  });
})();
