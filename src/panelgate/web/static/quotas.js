// Quotas: the "Set a limit" dialog offers the models of the connection it was opened for (the button's
// data-fill names it), and says which connection that is. Sending it is app.js's data-api form.
"use strict";

(() => {
  function openLimit(event) {
    const { endpoint } = JSON.parse(event.detail.fill || "{}");
    document.getElementById("limit-where").textContent = `On ${endpoint}.`;
    for (const group of document.querySelectorAll("#limit-model optgroup")) {
      const theirs = group.dataset.endpoint === endpoint;
      group.hidden = !theirs;
      group.disabled = !theirs;
    }
    document.getElementById("limit-model").value = "";
  }

  document.addEventListener("DOMContentLoaded", () => {
    document.getElementById("limit-dialog").addEventListener("panelgate:open", openLimit);
  });
})();
