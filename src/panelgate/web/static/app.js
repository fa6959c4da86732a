// The dashboard's shared behaviour. Pages are server-rendered; this file only sends forms to the
// admin API as JSON, opens and fills dialogs, confirms destructive actions, and says what happened.
//
//   <form data-api="PATCH /api/models/{alias}" data-after="reload">   send the fields as JSON
//     <input name="context_window" data-kind="int">                    int, number, bool, list, lines
//     <select name="merger" data-empty="blank">                         left empty: sends "" (null: null)
//   <button data-open="model-dialog" data-fill='{"alias": "m1"}'>       fill a dialog's form, open it
//   <button data-action="POST /api/models/m1/retire" data-confirm="…">  one request, after a confirm
//
// Live pages read again on a timer with `panelgate.keepReading(ms, read)`.
"use strict";

const panelgate = (() => {
  const SAID = "panelgate:said";

  async function api(method, path, body) {
    const options = { method, headers: { Accept: "application/json" }, credentials: "same-origin" };
    if (body !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    const reply = await fetch(path, options);
    const text = await reply.text();
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch (_) { data = text; }
    if (!reply.ok) {
      const error = data && data.error;
      const message = (error && (error.message || error)) || `the server answered ${reply.status}`;
      throw new Error(typeof message === "string" ? message : JSON.stringify(message));
    }
    return data;
  }

  function say(message, isError = false) {
    const status = document.getElementById("status");
    if (!status) return;
    status.textContent = message;
    status.classList.toggle("error", isError);
  }

  function sayAfterReload(message) {
    sessionStorage.setItem(SAID, message);
    location.reload();
  }

  // Call `read` every `everyMs` while the tab is visible, never two reads at once, and at once when the
  // tab shows again (a hidden tab reads nothing). The first read is `everyMs` away; `now()` reads at
  // once, or right after the read in flight so that what changed during it is read too. `read`
  // reports its own failures: the schedule goes on whatever it throws.
  function keepReading(everyMs, read) {
    let timer = null;
    let reading = false;
    let again = false;

    function schedule() {
      if (!document.hidden && timer === null) timer = setTimeout(now, everyMs);
    }

    async function now() {
      clearTimeout(timer);
      timer = null;
      if (reading) {
        again = true;
        return;
      }
      reading = true;
      try {
        await read();
      } catch (failure) {
        console.warn("a live read failed", failure);
      } finally {
        reading = false;
        if (again) {
          again = false;
          now();
        } else {
          schedule();
        }
      }
    }

    document.addEventListener("visibilitychange", () => {
      if (!document.hidden) {
        now();
        return;
      }
      clearTimeout(timer);
      timer = null;
    });
    schedule();
    return { now };
  }

  function fillPath(template, values) {
    return template.replace(/\{(\w+)\}/g, (_, name) => encodeURIComponent(values[name] ?? ""));
  }

  function valueOf(input) {
    const kind = input.dataset.kind || "text";
    if (input.type === "checkbox") return input.checked;
    const raw = input.value.trim();
    if (raw === "") return input.dataset.empty === "null" ? null : input.dataset.empty === "blank" ? "" : undefined;
    if (kind === "int") return Number.parseInt(raw, 10);
    if (kind === "number") return Number(raw);
    if (kind === "bool") return raw === "true";
    if (kind === "list") return raw.split(",").map((part) => part.trim()).filter(Boolean);
    if (kind === "lines") return raw.split("\n").map((part) => part.trim()).filter(Boolean);
    return input.type === "password" ? input.value : raw;
  }

  function formBody(form) {
    const body = {};
    for (const input of form.querySelectorAll("input[name], select[name], textarea[name]")) {
      if (input.disabled || input.dataset.send === "no") continue;
      if (input.type === "radio" && !input.checked) continue;
      const value = valueOf(input);
      if (value !== undefined) body[input.name] = value;
    }
    return body;
  }

  async function submit(event) {
    const form = event.target.closest("form[data-api]");
    if (!form) return;
    event.preventDefault();
    const [method, template] = form.dataset.api.split(" ");
    const error = form.querySelector(".form-error");
    const button = form.querySelector("button[type=submit]");
    if (error) error.textContent = "";
    if (button) button.disabled = true;
    try {
      const values = { ...form.dataset, ...formBody(form) };
      const result = await api(method, fillPath(template, values), formBody(form));
      form.dispatchEvent(new CustomEvent("panelgate:saved", { detail: result, bubbles: true }));
      const after = form.dataset.after || "reload";
      if (after === "reload") sayAfterReload(form.dataset.said || "Saved.");
      else if (after === "close") form.closest("dialog")?.close();
    } catch (failure) {
      if (error) error.textContent = failure.message;
      else say(failure.message, true);
    } finally {
      if (button) button.disabled = false;
    }
  }

  function fill(form, values) {
    for (const [name, value] of Object.entries(values)) {
      form.dataset[name] = typeof value === "string" ? value : JSON.stringify(value);
      const input = form.elements.namedItem(name);
      if (!input || input.type === "password") continue;
      if (input instanceof RadioNodeList) {
        for (const radio of input) radio.checked = radio.value === String(value);
      } else if (input.type === "checkbox") {
        input.checked = Boolean(value);
      } else {
        input.value = Array.isArray(value) ? value.join(input.dataset.kind === "lines" ? "\n" : ", ")
          : value ?? "";
      }
    }
  }

  function openDialog(button) {
    const dialog = document.getElementById(button.dataset.open);
    const form = dialog.querySelector("form[data-api]");
    if (form) {
      form.reset();
      const error = form.querySelector(".form-error");
      if (error) error.textContent = "";
      if (button.dataset.fill) fill(form, JSON.parse(button.dataset.fill));
    }
    dialog.dispatchEvent(new CustomEvent("panelgate:open", { detail: button.dataset }));
    dialog.showModal();
  }

  async function act(button) {
    if (button.dataset.confirm && !confirm(button.dataset.confirm)) return;
    const [method, path] = button.dataset.action.split(" ");
    button.disabled = true;
    try {
      await api(method, path, button.dataset.body ? JSON.parse(button.dataset.body) : undefined);
      sayAfterReload(button.dataset.said || "Done.");
    } catch (failure) {
      say(failure.message, true);
      button.disabled = false;
    }
  }

  async function logout() {
    await fetch("/logout", { method: "POST", credentials: "same-origin" });
    location.assign("/login");
  }

  function click(event) {
    const button = event.target.closest("button, a");
    if (!button) return;
    if (button.dataset.open) openDialog(button);
    else if (button.dataset.action) act(button);
    else if (button.hasAttribute("data-close")) button.closest("dialog")?.close();
    else if (button.hasAttribute("data-logout")) logout();
    else if (button.classList.contains("menu")) {
      const open = button.closest(".sidebar").classList.toggle("open");
      button.setAttribute("aria-expanded", String(open));
    } else return;
    if (button.tagName === "A") event.preventDefault();
  }

  document.addEventListener("submit", submit);
  document.addEventListener("click", click);
  document.addEventListener("DOMContentLoaded", () => {
    const said = sessionStorage.getItem(SAID);
    if (said) {
      sessionStorage.removeItem(SAID);
      say(said);
    }
  });

  return { api, say, sayAfterReload, fill, formBody, keepReading };
})();
