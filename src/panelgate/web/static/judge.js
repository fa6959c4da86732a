// The Judge view: one panel's seats side by side, each answer judged useful or not and one chosen best,
// from the mouse or the keyboard, saved at once with POST /api/verdicts; then on to the next panel owed
// a verdict (GET /api/panels?owed=true). "Best answer" is a pairwise verdict: the best seat's verdict
// names every other answered seat in `better_than`, and a seat chosen best before gets an empty list.
// Everything is built with DOM calls and textContent; the answers are the server's sanitized HTML.
"use strict";

(() => {
  const STATUS = { ok: "answered", empty: "answered with nothing", error: "failed" };
  const root = document.getElementById("judge");
  const OWED_READ = Number(root.dataset.owedRead);
  const note = document.getElementById("judge-note");
  const shown = document.getElementById("panel");
  const title = document.getElementById("panel-title");
  const seatList = document.getElementById("seats");
  const state = document.getElementById("panel-state");
  const place = document.getElementById("place");
  const keysDialog = document.getElementById("keys-dialog");
  const queue = []; // ids of the panels to go through, newest first
  let at = -1; // the shown panel's place in `queue`
  let panel = null; // the shown panel: its fields and `seats`, with each seat's current verdict
  let current = null; // the call id of the seat keys act on

  // ---- reading ---------------------------------------------------------------------------------------
  async function readOwed() {
    const reply = await panelgate.api("GET", `/api/panels?owed=true&limit=${OWED_READ}&answers=false`);
    const fresh = reply.panels.map((owed) => owed.id).filter((id) => !queue.includes(id));
    queue.push(...fresh);
    return fresh.length;
  }

  async function readPanel(id) {
    const reply = await panelgate.api("GET", `/api/panels/${encodeURIComponent(id)}`);
    return { ...reply.panel, seats: reply.seats };
  }

  async function answerInto(box, call) {
    try {
      const reply = await fetch(`/gateway/seats/${encodeURIComponent(call)}/answer`, {
        credentials: "same-origin", headers: { Accept: "text/html" },
      });
      const fragment = await reply.text();
      if (!(reply.headers.get("Content-Type") || "").startsWith("text/html")) {
        box.textContent = `Could not read the answer: the server answered ${reply.status} (logged out?).`;
        return;
      }
      // The one place this page inserts HTML: the answer rendered from markdown and sanitized on the
      // server (src/panelgate/web/answer_html.py), never text taken from the panels JSON.
      box.innerHTML = fragment;
    } catch (failure) {
      box.textContent = `Could not read the answer: ${failure.message}`;
    }
  }

  // ---- what a panel's verdicts say -------------------------------------------------------------------
  function judgeable(seat) {
    return seat.status === "ok" || seat.status === "empty";
  }

  function answeredSeats() {
    return panel.seats.filter(judgeable);
  }

  function isBest(seat) {
    const others = answeredSeats().filter((other) => other.call !== seat.call);
    const beaten = seat.verdict?.better_than ?? [];
    return others.length > 0 && others.every((other) => beaten.includes(other.call));
  }

  function isDone() {
    const answered = answeredSeats();
    return answered.every((seat) => seat.verdict) && (answered.length < 2 || answered.some(isBest));
  }

  function progress() {
    const answered = answeredSeats();
    const judged = answered.filter((seat) => seat.verdict).length;
    if (answered.length === 0) return "No seat of this panel answered: there is nothing to judge.";
    const best = answered.find(isBest);
    const bestWords = answered.length < 2 ? "" : best ? ` Best: seat ${number(best)}, ${best.alias}.`
      : " No best answer chosen yet (b).";
    return `${judged} of ${answered.length} answers judged.${bestWords}`;
  }

  function number(seat) {
    return panel.seats.indexOf(seat) + 1;
  }

  // ---- drawing ---------------------------------------------------------------------------------------
  function element(tag, className, text) {
    const made = document.createElement(tag);
    if (className) made.className = className;
    if (text !== undefined) made.textContent = text;
    return made;
  }

  function when(iso) {
    const day = new Date(iso);
    const two = (n) => String(n).padStart(2, "0");
    return `${day.getFullYear()}-${two(day.getMonth() + 1)}-${two(day.getDate())} `
      + `${two(day.getHours())}:${two(day.getMinutes())}:${two(day.getSeconds())}`;
  }

  function verdictButton(seat, what, words) {
    const button = element("button", "", words);
    button.type = "button";
    button.dataset.verdict = what;
    button.append(element("span", "sr-only", ` (seat ${number(seat)}, ${seat.alias})`));
    return button;
  }

  function seatItem(seat) {
    const n = number(seat);
    const item = element("li", `seat ${seat.status}`);
    item.dataset.call = seat.call;
    item.tabIndex = -1;
    item.setAttribute("aria-labelledby", `seat-${n}-title`);
    const head = element("div", "seat-head");
    const heading = element("h3", "", "");
    heading.id = `seat-${n}-title`;
    const badge = element("kbd", "seat-number", String(n));
    badge.setAttribute("aria-hidden", "true");
    heading.append(badge, element("span", "sr-only", `Seat ${n}: `), `${seat.label} · ${seat.alias}`);
    const asked = seat.attempts > 1 ? `, asked ${seat.attempts} times` : "";
    const status = `${STATUS[seat.status] ?? seat.status} in ${seat.seconds.toFixed(1)} s${asked}`;
    const said = element("span", `chip ${seat.status}`, status);
    head.append(heading, said);
    if (seat.served_as) head.append(element("span", "muted served-as", `answered as ${seat.served_as}`));
    const answer = element("div", "answer", "Reading the answer…");
    answer.setAttribute("role", "region");
    answer.setAttribute("aria-label", `Answer of seat ${n}, ${seat.alias}`);
    answer.tabIndex = 0;
    item.append(head, answer);
    if (judgeable(seat)) {
      const buttons = element("div", "verdict-buttons");
      buttons.setAttribute("role", "group");
      buttons.setAttribute("aria-label", `Verdict on seat ${n}, ${seat.alias}`);
      buttons.append(verdictButton(seat, "useful", "Useful"), verdictButton(seat, "not-useful", "Not useful"),
        verdictButton(seat, "best", "Best answer"));
      item.append(buttons, element("p", "seat-verdict muted"));
    } else {
      const why = "Not judged: a failure counts against the model's health, not its usefulness.";
      item.append(element("p", "muted", why));
    }
    answerInto(answer, seat.call);
    return item;
  }

  function drawVerdicts() {
    for (const item of seatList.children) {
      const seat = panel.seats.find((s) => s.call === item.dataset.call);
      item.classList.toggle("current", seat.call === current);
      if (!judgeable(seat)) continue;
      const verdict = seat.verdict;
      const best = isBest(seat);
      const press = (what, pressed) => item.querySelector(`[data-verdict="${what}"]`)
        .setAttribute("aria-pressed", String(pressed));
      press("useful", verdict?.useful === true);
      press("not-useful", verdict?.useful === false);
      press("best", best);
      item.classList.toggle("best", best);
      item.querySelector(".seat-verdict").textContent = !verdict ? "No verdict yet."
        : `Judged ${verdict.useful ? "useful" : "not useful"}${best ? ", and the best answer" : ""}.`;
    }
    state.textContent = progress();
  }

  function drawPlace() {
    place.textContent = queue.length ? `Panel ${at + 1} of ${queue.length}` : "";
  }

  function draw() {
    const about = [panel.shape, panel.reply, ...(panel.caller === "local" ? [] : [panel.caller]),
      ...(panel.owes_verdicts ? [] : ["owes no verdicts"]), panel.id];
    title.textContent = `bench/${panel.collection} · ${when(panel.at)}`;
    document.getElementById("panel-meta").textContent = about.join(" · ");
    document.getElementById("panel-prompt").textContent = panel.prompt_preview || "(no text in the prompt)";
    seatList.replaceChildren(...panel.seats.map(seatItem));
    shown.hidden = false;
    note.textContent = "";
    drawVerdicts();
    drawPlace();
  }

  async function show(index) {
    const id = queue[index];
    try {
      const read = await readPanel(id);
      at = index;
      panel = read;
      current = answeredSeats()[0]?.call ?? null;
      draw();
      history.replaceState(null, "", `/judge?panel=${encodeURIComponent(id)}`);
      const first = current && seatList.querySelector(`li[data-call="${CSS.escape(current)}"]`);
      (first || title).focus();
    } catch (failure) {
      panelgate.say(`Could not read the panel ${id}: ${failure.message}`, true);
    }
  }

  // ---- moving between panels -------------------------------------------------------------------------
  async function next() {
    if (at + 1 >= queue.length && !(await readMore())) {
      panelgate.say(queue.length ? "No more panels owe a verdict." : "No panel owes a verdict.");
      return;
    }
    await show(at + 1);
  }

  async function previous() {
    if (at <= 0) {
      panelgate.say("This is the first panel.");
      return;
    }
    await show(at - 1);
  }

  async function readMore() {
    try {
      return (await readOwed()) > 0;
    } catch (failure) {
      panelgate.say(`Could not read the panels owed a verdict: ${failure.message}`, true);
      return false;
    }
  }

  async function moveOn() {
    if (at + 1 < queue.length || (await readMore())) {
      panelgate.say("Panel judged: on to the next one.");
      await show(at + 1);
    } else {
      panelgate.say("Panel judged. No other panel owes a verdict now; press j to look again.");
    }
  }

  // ---- judging ---------------------------------------------------------------------------------------
  async function send(seat, body) {
    await panelgate.api("POST", "/api/verdicts", { call: seat.call, ...body });
    seat.verdict = {
      ...(seat.verdict ?? { note: "", real: [], false: [], better_than: [] }),
      ...body,
      at: new Date().toISOString(),
    };
  }

  async function judge(seat, what) {
    const judged = panel;
    const wasDone = isDone();
    try {
      if (what === "best") await chooseBest(seat);
      else await send(seat, { useful: what === "useful" });
    } catch (failure) {
      panelgate.say(`Not saved: ${failure.message}`, true);
      return;
    }
    // The judge moved to another panel meanwhile, or a save that finished first is moving on: the
    // "on to the next one" it said stays the last word rather than this save's.
    if (judged !== panel || judged.finished) return;
    drawVerdicts();
    const words = what === "best" ? "the best answer" : what === "useful" ? "useful" : "not useful";
    panelgate.say(`Saved: seat ${number(seat)}, ${seat.alias}, ${words}.`);
    if (!wasDone && isDone() && !judged.finished) {
      judged.finished = true; // one move on, however many saves finish it at once
      await moveOn();
    }
  }

  async function chooseBest(seat) {
    const others = answeredSeats().filter((other) => other.call !== seat.call);
    if (!others.length) throw new Error("no other seat answered, so there is nothing to compare it with");
    const formerBest = others.filter((other) => other.verdict?.better_than?.length);
    await send(seat, { useful: seat.verdict?.useful ?? true, better_than: others.map((other) => other.call) });
    for (const other of formerBest) await send(other, { useful: other.verdict.useful, better_than: [] });
  }

  function seatOf(node) {
    const item = node instanceof Element ? node.closest("li.seat") : null;
    return item && panel ? panel.seats.find((seat) => seat.call === item.dataset.call) : null;
  }

  function focusSeat(n) {
    const item = seatList.children[n - 1];
    if (!item) {
      panelgate.say(`This panel has ${seatList.children.length} seats.`);
      return;
    }
    current = item.dataset.call;
    drawVerdicts();
    item.focus();
  }

  function keyedSeat() {
    const focused = seatOf(document.activeElement);
    if (focused) return focused;
    return panel?.seats.find((seat) => seat.call === current) ?? null;
  }

  function judgeByKey(what) {
    const seat = keyedSeat();
    if (!seat) {
      panelgate.say("Choose a seat first: press its number.");
    } else if (!judgeable(seat)) {
      panelgate.say(`Seat ${number(seat)} failed: a failed seat is not judged.`, true);
    } else {
      judge(seat, what);
    }
  }

  const KEYS = {
    u: () => judgeByKey("useful"),
    n: () => judgeByKey("not-useful"),
    b: () => judgeByKey("best"),
    j: next,
    k: previous,
    ArrowRight: next,
    ArrowLeft: previous,
  };

  function typing(target) {
    return target instanceof Element && target.closest("input, textarea, select, [contenteditable]") !== null;
  }

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    if (event.key === "?") {
      event.preventDefault();
      if (keysDialog.open) keysDialog.close();
      else keysDialog.showModal();
      return;
    }
    if (document.querySelector("dialog[open]")) return;
    const inAnswer = event.target instanceof Element && event.target.closest(".answer") !== null;
    if (event.key.startsWith("Arrow") && inAnswer) return;
    if (/^[1-9]$/.test(event.key) && panel) {
      event.preventDefault();
      focusSeat(Number(event.key));
      return;
    }
    const action = KEYS[event.key];
    if (!action) return;
    event.preventDefault();
    action();
  });

  seatList.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-verdict]");
    const seat = button && seatOf(button);
    if (!seat) return;
    current = seat.call;
    judge(seat, button.dataset.verdict);
  });
  seatList.addEventListener("focusin", (event) => {
    const seat = seatOf(event.target);
    if (seat && seat.call !== current) {
      current = seat.call;
      drawVerdicts();
    }
  });
  document.getElementById("next").addEventListener("click", next);
  document.getElementById("previous").addEventListener("click", previous);

  // ---- the first panel -------------------------------------------------------------------------------
  async function start() {
    const asked = root.dataset.panel;
    try {
      await readOwed();
    } catch (failure) {
      note.textContent = `Could not read the panels owed a verdict (${failure.message}).`;
      return;
    }
    if (asked && !queue.includes(asked)) queue.unshift(asked);
    if (!queue.length) {
      note.textContent = "No panel owes a verdict: every answer of the panels asked is judged. "
        + "Ask a collection and its panel shows up here (press j to look again).";
      return;
    }
    await show(asked ? queue.indexOf(asked) : 0);
    if (panel || !asked) return;
    queue.splice(queue.indexOf(asked), 1); // not a recorded panel (show said so): the owed ones remain
    if (queue.length) await show(0);
    else note.textContent = "No panel owes a verdict.";
  }

  start();
})();
