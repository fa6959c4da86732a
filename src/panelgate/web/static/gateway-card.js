// The Gateway page: the last 30 panels, one chip per seat, kept live by reading GET /api/panels every
// 2 s while the tab is visible, each panel opening in the Judge view; the count of answers awaiting a
// verdict; and the seat dialog, which shows a seat's answer and records a verdict with POST /api/verdicts
// without reloading the page. Chips are built with DOM calls and textContent.
"use strict";

(() => {
  const POLL_MS = 2000;
  const STATUS = { ok: "answered", empty: "answered with nothing", error: "failed" };
  const list = document.getElementById("panels");
  const SHOWN = Number(list.dataset.shown);
  const note = document.getElementById("panels-note");
  const owedSaid = document.getElementById("owed-said");
  const owedJudge = document.getElementById("owed-judge");
  const dialog = document.getElementById("seat-dialog");
  const form = document.getElementById("verdict-form");
  const answer = document.getElementById("seat-answer");
  let panels = [];
  let drawn = ""; // the panels last drawn, as JSON: an unchanged poll leaves the page (and focus) alone
  let generation = 0; // bumped by every verdict saved here; a poll started before one is stale
  let openCall = null; // the call id of the seat in the dialog

  // ---- reading ---------------------------------------------------------------------------------------
  async function read() {
    const started = generation;
    try {
      const reply = await panelgate.api("GET", `/api/panels?limit=${SHOWN}&answers=false`);
      if (started === generation) {
        panels = reply.panels;
        draw();
      }
      note.textContent = panels.length ? "" : "No panels yet: ask a collection (Collections shows how, under “Ask it”) and it shows up here within seconds.";
    } catch (failure) {
      note.textContent = `Could not read the recent panels (${failure.message}); trying again.`;
    }
  }

  // ---- drawing ---------------------------------------------------------------------------------------
  function element(tag, className, text) {
    const made = document.createElement(tag);
    if (className) made.className = className;
    if (text !== undefined) made.textContent = text;
    return made;
  }

  function hiddenWords(text) {
    return element("span", "sr-only", text);
  }

  function answered(seat) {
    return seat.status === "ok" || seat.status === "empty";
  }

  function when(iso) {
    const at = new Date(iso);
    const two = (n) => String(n).padStart(2, "0");
    return `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())} `
      + `${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}`;
  }

  function seatChip(seat, owes) {
    const chip = element("button", `chip ${seat.status}`);
    chip.type = "button";
    chip.dataset.call = seat.call;
    const verdict = seat.verdict;
    if (verdict) {
      const mark = element("span", "mark", verdict.useful ? "✓" : "✗");
      mark.setAttribute("aria-hidden", "true");
      chip.append(mark);
    }
    chip.append(`${seat.label} · ${seat.alias}`);
    if (seat.served_as) chip.append(element("small", "served-as", ` answered as ${seat.served_as}`));
    const judged = verdict ? (verdict.useful ? ", judged useful" : ", judged not useful")
      : answered(seat) && owes ? ", verdict owed" : "";
    chip.append(hiddenWords(`, ${STATUS[seat.status] ?? seat.status}${judged}`));
    return chip;
  }

  function skippedChip(skip) {
    const chip = element("span", "chip skipped", `${skip.seat} · ${skip.alias}`);
    chip.title = `Not asked: ${skip.why}`;
    chip.append(hiddenWords(`, not asked: ${skip.why}`));
    return chip;
  }

  function panelItem(panel) {
    const item = element("li", "panel");
    const head = element("div", "panel-head");
    const time = element("time", "", when(panel.at));
    time.dateTime = panel.at;
    const about = [panel.shape, panel.reply, ...(panel.caller === "local" ? [] : [panel.caller]),
      ...(panel.owes_verdicts ? [] : ["owes no verdicts"])];
    const judge = element("a", "judge", "Judge");
    judge.href = `/judge?panel=${encodeURIComponent(panel.id)}`;
    judge.append(hiddenWords(` the panel of ${when(panel.at)}, bench/${panel.collection}`));
    head.append(time, element("strong", "", `bench/${panel.collection}`),
      element("span", "muted", about.join(" · ")), judge);
    const prompt = element("p", "prompt", panel.prompt_preview || "(no text in the prompt)");
    const chips = element("div", "chips");
    chips.append(...panel.seats.map((seat) => seatChip(seat, panel.owes_verdicts)), ...panel.skipped.map(skippedChip));
    item.append(head, prompt, chips);
    return item;
  }

  function draw() {
    const now = JSON.stringify(panels);
    if (now === drawn) return;
    drawn = now;
    // Redrawing replaces the chips and links: the one that had focus gets it back.
    const focused = list.contains(document.activeElement) ? document.activeElement : null;
    list.replaceChildren(...panels.map(panelItem));
    // A panel that owes no verdicts (a chat UI's background task, say) adds nothing to the count.
    const owing = panels.filter((panel) => panel.owes_verdicts);
    sayOwed(owing.flatMap((panel) => panel.seats).filter((s) => answered(s) && !s.verdict).length);
    if (focused?.dataset.call) focusChip(focused.dataset.call);
    else if (focused) list.querySelector(`a[href="${CSS.escape(focused.getAttribute("href"))}"]`)?.focus();
  }

  function sayOwed(count) {
    owedSaid.textContent = count === 0 ? "No answer here awaits a verdict."
      : count === 1 ? "1 answer awaits a verdict —" : `${count} answers await a verdict —`;
    owedJudge.hidden = count === 0;
  }

  function focusChip(call) {
    list.querySelector(`button[data-call="${CSS.escape(call)}"]`)?.focus();
  }

  function findSeat(call) {
    for (const panel of panels) {
      const seat = panel.seats.find((s) => s.call === call);
      if (seat) return { panel, seat };
    }
    return null;
  }

  // ---- the seat dialog -------------------------------------------------------------------------------
  function openSeat(call) {
    const found = findSeat(call);
    if (!found) return;
    const { panel, seat } = found;
    openCall = call;
    document.getElementById("seat-dialog-title").textContent = `${seat.label} · ${seat.alias}`;
    document.getElementById("seat-meta").textContent =
      `bench/${panel.collection} · ${STATUS[seat.status] ?? seat.status} in ${seat.seconds.toFixed(1)} s · call ${seat.call}`;
    answer.textContent = "Reading the answer…";
    form.reset();
    form.querySelector(".form-error").textContent = "";
    form.hidden = !answered(seat);
    document.getElementById("seat-failed").hidden = answered(seat);
    if (seat.verdict) {
      const fields = form.elements;
      fields.useful.value = seat.verdict.useful ? "yes" : "no";
      fields.note.value = seat.verdict.note;
      fields.real.value = seat.verdict.real.join("\n");
      fields.false.value = seat.verdict.false.join("\n");
    }
    dialog.showModal();
    showAnswer(call);
  }

  async function showAnswer(call) {
    try {
      const reply = await fetch(`/gateway/seats/${encodeURIComponent(call)}/answer`, {
        credentials: "same-origin", headers: { Accept: "text/html" },
      });
      const fragment = await reply.text();
      if (call !== openCall) return; // another seat was opened meanwhile
      if (!(reply.headers.get("Content-Type") || "").startsWith("text/html")) {
        answer.textContent = `Could not read the answer: the server answered ${reply.status} (logged out?).`;
        return;
      }
      // The one place this page inserts HTML: the fragment is the answer rendered from markdown and
      // sanitized on the server (src/panelgate/web/answer_html.py: raw HTML escaped, links only
      // http(s)/mailto, no styles or event handlers), never text taken from the panels JSON.
      answer.innerHTML = fragment;
    } catch (failure) {
      if (call === openCall) answer.textContent = `Could not read the answer: ${failure.message}`;
    }
  }

  function lines(text) {
    return text.split("\n").map((line) => line.trim()).filter(Boolean);
  }

  async function saveVerdict(event) {
    event.preventDefault();
    const fields = form.elements;
    const call = openCall;
    const verdict = {
      useful: fields.useful.value === "yes",
      note: fields.note.value.trim(),
      real: lines(fields.real.value),
      false: lines(fields.false.value),
    };
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      await panelgate.api("POST", "/api/verdicts", { call, ...verdict });
      generation += 1;
      const found = findSeat(call);
      if (found) found.seat.verdict = { ...verdict, at: new Date().toISOString(), actor: "" };
      draw();
      dialog.close();
      focusChip(call);
      if (found) {
        const { seat } = found;
        panelgate.say(`Verdict saved: ${seat.label} · ${seat.alias} was ${verdict.useful ? "" : "not "}useful.`);
      }
    } catch (failure) {
      form.querySelector(".form-error").textContent = failure.message;
    } finally {
      button.disabled = false;
    }
  }

  list.addEventListener("click", (event) => {
    const chip = event.target.closest("button[data-call]");
    if (chip) openSeat(chip.dataset.call);
  });
  dialog.addEventListener("close", () => {
    const call = openCall;
    openCall = null;
    if (call) focusChip(call);
  });
  form.addEventListener("submit", saveVerdict);
  panelgate.keepReading(POLL_MS, read).now();
})();
