// Endpoints › Connect: sign in to a provider and get an endpoint, without leaving the page.
//
// The dialog lists what GET /api/connect/providers offers; Connect starts a sign-in (POST
// /api/connect/{provider}). A key or OAuth sign-in opens the provider in a new tab (opened on the
// click itself, so no popup blocker stops it, then sent on once the gateway has the address); a
// device sign-in shows the code and where to enter it; a local one is done at once. The page then
// asks GET /api/connect/signins/{id} every second until the sign-in is connected, failed or expired,
// and on success puts the new endpoint's card in place by reading this page again (no reload).
"use strict";

(() => {
  const POLL_MS = 1000;
  const GRACE_MS = 60_000;
  const FLOWS = {
    key: "sign in in a new tab; the provider hands the gateway a key",
    oauth: "sign in in a new tab",
    device: "enter a code on any device",
    local: "on this machine, no sign-in",
  };
  const CLIENT_HINTS = {
    needed: () => "This provider has no built-in app: register one of your own with it (a public client that " +
      `returns to ${location.origin}/connect/callback) and paste its client id, or set it once as the ` +
      "provider's client_id in the providers file (PANELGATE_CONNECT_PROVIDERS).",
    yours: () => "Your own app's client id, from the providers file, is used. Type another to use that instead.",
    "built-in": () => "Empty: the gateway's built-in app. Type the client id of an app of your own to use it instead.",
  };
  let providers = [];
  let watching = 0; // the sign-in the dialog shows: a poll stops once another one starts, not when the dialog closes

  function element(tag, attributes = {}, ...children) {
    const made = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value);
    made.append(...children);
    return made;
  }

  const byId = (id) => document.getElementById(id);
  const pause = (ms) => new Promise((done) => setTimeout(done, ms));

  // The cards, the model dialog's endpoint list and the first-run banner, read again from this page.
  async function refreshCards() {
    const reply = await fetch(location.pathname, { credentials: "same-origin", headers: { Accept: "text/html" } });
    const fresh = new DOMParser().parseFromString(await reply.text(), "text/html");
    for (const selector of ["#endpoint-cards", "#new-model-endpoint", "main > .banner"]) {
      const now = document.querySelector(selector);
      const read = fresh.querySelector(selector);
      if (now && read) now.replaceChildren(...read.childNodes);
      else if (now) now.remove(); // every first step done: the banner goes
    }
    document.dispatchEvent(new Event("panelgate:times"));
  }

  // ---- the dialog: choosing a provider ------------------------------------------------------

  function providerChoice(provider) {
    const radio = element("input", { type: "radio", name: "provider", value: provider.name, required: "" });
    const about = [FLOWS[provider.flow] || provider.flow];
    if (provider.connected.length) about.push(`connected: ${provider.connected.join(", ")}`);
    return element("label", { class: "provider-choice" }, radio,
      element("span", {}, element("strong", {}, provider.label), element("small", { class: "muted" }, about.join(" · "))));
  }

  async function listProviders() {
    const box = byId("connect-form").querySelector(".providers");
    const legend = box.querySelector("legend");
    try {
      ({ providers } = await panelgate.api("GET", "/api/connect/providers"));
      box.replaceChildren(legend, ...providers.map(providerChoice));
      if (!providers.length) box.append(element("p", { class: "muted" }, "This gateway offers no provider to sign in to."));
    } catch (failure) {
      box.replaceChildren(legend, element("p", { class: "form-error", role: "alert" }, failure.message));
    }
    chosen();
  }

  function chosen() {
    const form = byId("connect-form");
    const name = form.elements.namedItem("provider")?.value;
    const provider = providers.find((item) => item.name === name);
    const client = byId("connect-client");
    client.hidden = !provider || !provider.client_id;
    const input = byId("connect-client-id");
    input.required = provider?.client_id === "needed";
    byId("connect-client-hint").textContent = CLIENT_HINTS[provider?.client_id]?.() || "";
    byId("connect-device").hidden = !provider || !provider.device || provider.flow === "device";
    return provider;
  }

  function openDialog() {
    const form = byId("connect-form");
    form.reset();
    form.hidden = false;
    form.querySelector(".form-error").textContent = "";
    byId("connect-progress").hidden = true;
    listProviders();
  }

  // ---- the dialog: a sign-in under way ------------------------------------------------------

  function startBody(form, provider) {
    const body = {};
    const endpoint = form.elements.namedItem("endpoint").value.trim();
    const clientId = byId("connect-client-id").value.trim();
    if (endpoint) body.endpoint = endpoint;
    if (clientId && !byId("connect-client").hidden) body.client_id = clientId;
    if (!byId("connect-device").hidden && form.elements.namedItem("device").checked) body.device = true;
    return body;
  }

  function showStarted(provider, started) {
    byId("connect-form").hidden = true;
    byId("connect-progress").hidden = false;
    byId("connect-progress-title").textContent = `Signing in to ${provider.label}`;
    byId("connect-said").classList.remove("form-error");
    const link = byId("connect-link");
    byId("connect-open").hidden = !started.url;
    if (started.url) link.href = started.url;
    byId("connect-code").hidden = !started.user_code;
    for (const button of byId("connect-code").querySelectorAll("button[data-words]")) button.textContent = button.dataset.words;
    if (started.user_code) {
      byId("connect-user-code").textContent = started.user_code;
      const verify = byId("connect-verify");
      verify.href = started.verification_uri;
      verify.textContent = started.verification_uri;
    }
  }

  function waitingWords(provider, started) {
    if (started.user_code) return `Waiting for the code to be entered at ${provider.label}…`;
    return `Waiting for you to sign in to ${provider.label} in the other tab…`;
  }

  function ended(signin) {
    if (signin.status === "connected") return [`Connected: ${signin.endpoint}.`, false];
    if (signin.status === "expired") return ["Not connected: the sign-in expired before it was finished. Start again.", true];
    const why = (signin.error || "the provider refused the sign-in").replace(/\.$/, "");
    return [`Not connected: ${why}.`, true];
  }

  async function finish(signin) {
    const [words, failed] = ended(signin);
    const said = byId("connect-said");
    said.textContent = words;
    said.classList.toggle("form-error", failed);
    byId("connect-open").hidden = true;
    byId("connect-code").hidden = true;
    try {
      if (!failed) await refreshCards(); // the new card is in place when the page says so
    } finally {
      panelgate.say(words, failed);
    }
  }

  // Until the sign-in ends; one the server cannot be asked about is given up a minute after it expires.
  async function follow(started, turn) {
    const giveUp = Date.parse(started.expires_at) + GRACE_MS;
    for (;;) {
      await pause(POLL_MS);
      if (turn !== watching) return;
      if (Date.now() > giveUp) return finish({ ...started, status: "expired" });
      let signin;
      try {
        signin = await panelgate.api("GET", `/api/connect/signins/${encodeURIComponent(started.signin)}`);
      } catch (failure) {
        byId("connect-said").textContent = `Could not ask how the sign-in stands: ${failure.message}. Asking again…`;
        continue;
      }
      if (turn !== watching) return;
      if (signin.status !== "pending") return finish(signin);
    }
  }

  async function start(event) {
    event.preventDefault();
    const form = event.target;
    const provider = chosen();
    const error = form.querySelector(".form-error");
    error.textContent = "";
    if (!provider) return void (error.textContent = "Choose a provider.");
    if (!form.reportValidity()) return;
    const body = startBody(form, provider);
    // opened now, while the click still counts, so a popup blocker lets it through
    const tab = ["key", "oauth"].includes(provider.flow) && !body.device ? window.open("", "_blank") : null;
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    let started;
    try {
      started = await panelgate.api("POST", `/api/connect/${encodeURIComponent(provider.name)}`, body);
    } catch (failure) {
      tab?.close();
      error.textContent = failure.message;
      return;
    } finally {
      button.disabled = false;
    }
    watching += 1;
    showStarted(provider, started);
    if (started.url && tab) {
      tab.opener = null;
      tab.location.href = started.url;
    } else {
      tab?.close();
    }
    if (started.status !== "pending") return finish(started);
    byId("connect-said").textContent = waitingWords(provider, started);
    follow(started, watching);
  }

  async function copy(button) {
    const source = byId(button.dataset.copy);
    const text = source.textContent.trim();
    try {
      await navigator.clipboard.writeText(text);
      button.dataset.words ||= button.textContent;
      button.textContent = "Copied";
    } catch (_) {
      getSelection().selectAllChildren(source); // no clipboard here: selected, for Ctrl+C
    }
  }

  document.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-copy]");
    if (button) copy(button);
  });

  document.addEventListener("DOMContentLoaded", () => {
    const dialog = byId("connect-dialog");
    dialog.addEventListener("panelgate:open", openDialog);
    const form = byId("connect-form");
    form.addEventListener("submit", start);
    form.addEventListener("change", (event) => { if (event.target.name === "provider") chosen(); });
  });
})();
