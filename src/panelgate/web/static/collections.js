// Collections page: the collection editor (members found by alias or served id, the other fields, saved
// through PUT/PATCH /api/collections/{name}) and the "Ask it" box (which collection, copy buttons).
// The recent panels and the seat dialog are on the Gateway page (gateway-card.js).
"use strict";

(() => {
  const dialog = document.getElementById("collection-dialog");
  const form = document.getElementById("collection-form");
  const data = JSON.parse(document.getElementById("editor-data").textContent);
  const title = document.getElementById("collection-dialog-title");
  const error = form.querySelector(".form-error");
  const search = document.getElementById("member-search");
  const picker = document.getElementById("member-picker");
  const noMatch = document.getElementById("no-match");
  const chosenList = document.getElementById("chosen-members");
  const chosenEmpty = document.getElementById("chosen-empty");
  const shadowsField = document.getElementById("shadows-field");
  let editing = null; // the stored collection being edited, or null while making a new one
  let chosen = []; // member aliases, in the order they sit

  function showChosen() {
    chosenList.replaceChildren(...chosen.map((alias) => {
      const item = document.createElement("li");
      item.textContent = alias;
      return item;
    }));
    chosenEmpty.hidden = chosen.length > 0;
    for (const box of picker?.querySelectorAll("input[type=checkbox]") ?? []) {
      box.checked = chosen.includes(box.value);
    }
  }

  function filterModels() {
    if (!picker) return;
    const words = search.value.trim().toLowerCase();
    let shown = 0;
    for (const item of picker.children) {
      item.hidden = Boolean(words) && !item.dataset.search.includes(words);
      if (!item.hidden) shown += 1;
    }
    noMatch.hidden = shown > 0;
  }

  function showShadows() {
    const route = form.elements.reply.value === "route";
    shadowsField.hidden = !route;
    form.elements.shadows.disabled = !route;
  }

  function open(name) {
    form.reset();
    error.textContent = "";
    editing = name ? data.collections[name] : null;
    title.textContent = editing ? `Edit bench/${editing.name}` : "New collection";
    const fields = form.elements;
    fields.name.readOnly = Boolean(editing);
    if (editing) {
      fields.name.value = editing.name;
      fields.shape.value = editing.shape ?? "";
      fields.reply.value = editing.reply;
      fields.merger.value = editing.merger;
      fields.shadows.value = String(editing.shadows);
      fields.offered_tools.value = editing.offered_tools;
      fields.verdicts_owed.value = editing.verdicts_owed;
      fields.description.value = editing.description;
      fields.tags.value = editing.tags.join(", ");
    }
    chosen = editing ? [...editing.members] : [];
    if (search) search.value = "";
    filterModels();
    showChosen();
    showShadows();
    dialog.showModal();
  }

  function fieldsOf() {
    const fields = form.elements;
    const body = {
      members: chosen,
      shape: fields.shape.value || null,
      description: fields.description.value.trim(),
      tags: fields.tags.value.split(",").map((tag) => tag.trim()).filter(Boolean),
      reply: fields.reply.value,
      merger: fields.merger.value,
      offered_tools: fields.offered_tools.value,
      verdicts_owed: fields.verdicts_owed.value,
    };
    if (body.reply === "route") body.shadows = Number.parseInt(fields.shadows.value || "0", 10);
    return body;
  }

  function changedFields(body) {
    // An edit sends only what differs from the stored collection, so nothing else is touched.
    return Object.fromEntries(
      Object.entries(body).filter(([field, value]) => JSON.stringify(value) !== JSON.stringify(editing[field])),
    );
  }

  async function save(event) {
    event.preventDefault();
    error.textContent = "";
    const name = editing ? editing.name : form.elements.name.value.trim();
    if (!editing && data.collections[name]) {
      error.textContent = `bench/${name} exists already; edit it from the list instead.`;
      return;
    }
    if (!chosen.length) {
      error.textContent = "Choose at least one member.";
      search?.focus();
      return;
    }
    const path = `/api/collections/${encodeURIComponent(name)}`;
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      if (editing) {
        const changes = changedFields(fieldsOf());
        if (!Object.keys(changes).length) {
          dialog.close();
          panelgate.say("Nothing changed.");
          return;
        }
        await panelgate.api("PATCH", path, changes);
      } else {
        await panelgate.api("PUT", path, fieldsOf());
      }
      panelgate.sayAfterReload(`Collection bench/${name} saved.`);
    } catch (failure) {
      error.textContent = failure.message;
    } finally {
      button.disabled = false;
    }
  }

  picker?.addEventListener("change", (event) => {
    const box = event.target;
    chosen = box.checked ? [...chosen.filter((alias) => alias !== box.value), box.value]
      : chosen.filter((alias) => alias !== box.value);
    showChosen();
  });
  search?.addEventListener("input", filterModels);
  search?.addEventListener("keydown", (event) => {
    if (event.key === "Enter") event.preventDefault(); // Enter in the search box must not save
  });
  form.elements.reply.addEventListener("change", showShadows);
  form.addEventListener("submit", save);
  document.addEventListener("click", (event) => {
    const button = event.target.closest("button");
    if (!button) return;
    if (button.hasAttribute("data-new-collection")) open(null);
    else if (button.dataset.edit) open(button.dataset.edit);
    else if (button.dataset.copy) copy(button);
  });

  // ---- Ask it ----------------------------------------------------------------------------------------
  const askChoice = document.getElementById("ask-collection");
  askChoice?.addEventListener("change", () => {
    for (const group of document.querySelectorAll(".snippets[data-collection]")) {
      group.hidden = group.dataset.collection !== askChoice.value;
    }
  });

  async function copy(button) {
    const text = document.getElementById(button.dataset.copy).textContent;
    try {
      await navigator.clipboard.writeText(text);
      panelgate.say("Copied.");
    } catch (_) {
      panelgate.say("The browser would not copy it: select the text and copy it by hand.", true);
    }
  }
})();
