// Settings: make a gateway key through POST /api/keys and show its text once (with Copy), and switch the
// theme at once, kept in a cookie so the server renders every page in it. Revoking is app.js's
// data-action button.
"use strict";

(() => {
  const YEAR_S = 365 * 24 * 3600;

  // ---- a new key ------------------------------------------------------------------------------

  function keyBody(form) {
    const body = panelgate.formBody(form);
    const scope = form.querySelector("input[name=scope]:checked");
    if (scope && scope.value === "some") {
      body.collections = [...form.querySelectorAll("input[name=collection]:checked")].map((box) => box.value);
      if (!body.collections.length) throw new Error("Tick at least one collection, or choose every collection.");
    }
    return body;
  }

  function syncScope(form) {
    const some = form.querySelector("input[name=scope][value=some]");
    for (const box of form.querySelectorAll("input[name=collection]")) box.disabled = !(some && some.checked);
  }

  async function create(event) {
    event.preventDefault();
    const form = event.target;
    const error = form.querySelector(".form-error");
    const button = form.querySelector("button[type=submit]");
    error.textContent = "";
    button.disabled = true;
    try {
      const made = await panelgate.api("POST", "/api/keys", keyBody(form));
      form.closest("dialog").close();
      show(made);
    } catch (failure) {
      error.textContent = failure.message;
    } finally {
      button.disabled = false;
    }
  }

  function show(made) {
    document.getElementById("new-key").textContent = made.key;
    document.getElementById("new-key-name").textContent = made.name;
    document.getElementById("copy-said").textContent = "";
    document.getElementById("key-made").showModal();
  }

  function forget() {
    // the text leaves the page with the dialog; the reloaded list shows the key by its hint only
    const name = document.getElementById("new-key-name").textContent;
    document.getElementById("new-key").textContent = "";
    panelgate.sayAfterReload(`Key “${name}” made; it is listed by its last four characters from now on.`);
  }

  async function copy() {
    const shown = document.getElementById("new-key");
    const said = document.getElementById("copy-said");
    try {
      await navigator.clipboard.writeText(shown.textContent);
      said.textContent = "Copied to the clipboard.";
    } catch (_) {
      // no clipboard here (a plain-http page on another machine, or permission refused): select it
      window.getSelection().selectAllChildren(shown);
      shown.focus();
      said.textContent = "Selected: press Ctrl+C (⌘C on a Mac) to copy it.";
    }
  }

  // ---- the theme ------------------------------------------------------------------------------

  function applyTheme(choice, cookie) {
    const root = document.documentElement;
    const dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
    root.dataset.themeChoice = choice;
    root.dataset.theme = choice === "system" ? (dark ? "dark" : "light") : choice;
    const secure = location.protocol === "https:" ? "; Secure" : "";
    document.cookie = `${cookie}=${choice}; Path=/; Max-Age=${YEAR_S}; SameSite=Strict${secure}`;
  }

  document.addEventListener("DOMContentLoaded", () => {
    const form = document.getElementById("key-form");
    const dialog = document.getElementById("key-dialog");
    form.addEventListener("submit", create);
    form.addEventListener("change", () => syncScope(form));
    dialog.addEventListener("panelgate:open", () => {
      form.reset();
      form.querySelector(".form-error").textContent = "";
      syncScope(form);
    });
    document.getElementById("copy-key").addEventListener("click", copy);
    document.getElementById("key-made").addEventListener("close", forget);

    const themes = document.getElementById("theme-choice");
    themes.addEventListener("change", (event) => {
      applyTheme(event.target.value, themes.dataset.cookie);
      panelgate.say(`Theme: ${event.target.value}.`);
    });
  });
})();
