// The Record page kept live: reads GET /api/record every 2 s while the tab is visible and, when the
// reading changed, redraws the standings, the verdicts per day, the next explorer seats and the newest
// verdicts (with the sources seen, for the "Verdicts from" filter). Everything
// is built with DOM calls and textContent (the pictures with createElementNS), drawing what the server
// drew first: the sizes and formulas are src/panelgate/web/estimate_svg.py's, the words
// templates/record.html's and pages/record.py's. A change there is a change here.
"use strict";

(() => {
  const POLL_MS = 2000;
  const SVG = "http://www.w3.org/2000/svg";
  const ESTIMATE = { width: 200, height: 18, pad: 7 };
  const TIMELINE = { width: 600, height: 160, left: 34, right: 22, top: 12, bottom: 26, labelEvery: 7, barShare: 0.7 };
  const form = document.getElementById("record-filter");
  const select = document.getElementById("record-collection");
  const sourceSelect = document.getElementById("record-source");
  const newest = document.getElementById("verdicts-body");
  const standings = document.getElementById("standings-body");
  const dayBars = document.getElementById("timeline-bars");
  const total = document.getElementById("timeline-total");
  const explorers = document.getElementById("explorers-body");
  const shape = form.dataset.shape;
  let collection = form.dataset.collection;
  let source = form.dataset.source;
  let drawn = ""; // the reading last drawn, as JSON: an unchanged poll leaves the page alone
  let failed = false;

  // ---- reading ---------------------------------------------------------------------------------------
  function address() {
    const query = new URLSearchParams();
    if (collection) query.set("collection", collection);
    if (shape) query.set("shape", shape);
    if (source) query.set("source", source);
    return query.toString();
  }

  async function read() {
    const asked = address();
    try {
      const record = await panelgate.api("GET", `/api/record?${asked}`);
      if (asked === address()) draw(record);
      if (failed) panelgate.say("");
      failed = false;
    } catch (failure) {
      failed = true;
      panelgate.say(`Could not read the record (${failure.message}); trying again.`, true);
    }
  }
  const reader = panelgate.keepReading(POLL_MS, read); // a collection chosen mid-read is read right after

  // ---- words and numbers, as the server writes them --------------------------------------------------
  function percent(share) {
    return `${Math.round(share * 100)}%`;
  }

  function hundredths(value) {
    return (Math.round(value * 100) / 100).toFixed(2);
  }

  function tenth(value) {
    return Math.round(value * 10) / 10;
  }

  function plural(count, word) {
    return `${count} ${word}${count === 1 ? "" : "s"}`;
  }

  function seatsLine(preview, name) {
    const where = name ? ` of bench/${name}` : "";
    if (preview.seats === 0) {
      return `A panel${where} has no explorer seat now (the gateway limits on Collections set how many); `
        + "this is the order they would be filled in.";
    }
    const said = `${plural(preview.seats, "explorer seat")} a panel${where}; every candidate sits at least once in ${preview.floor} panels.`;
    return said + (preview.rule === "stalest" ? " The gateway seats them stalest first." : "");
  }

  // ---- drawing ---------------------------------------------------------------------------------------
  function element(tag, className, text) {
    const made = document.createElement(tag);
    if (className) made.className = className;
    if (text !== undefined) made.textContent = text;
    return made;
  }

  function picture(tag, attributes = {}, text = undefined) {
    const made = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, String(value));
    if (text !== undefined) made.textContent = text;
    return made;
  }

  function shareX(share) {
    return tenth(ESTIMATE.pad + Math.min(1, Math.max(0, share)) * (ESTIMATE.width - 2 * ESTIMATE.pad));
  }

  function estimateBar(row) {
    const { width, height } = ESTIMATE;
    const bar = picture("svg", { class: "estimate", viewBox: `0 0 ${width} ${height}`, width, height, role: "img" });
    const words = `${row.alias}: ${percent(row.mean)} useful, 90% interval ${percent(row.low)} to `
      + `${percent(row.high)}, ${plural(row.judged, "verdict")}`
      + (row.suite ? `, ${plural(row.suite, "suite result")}` : "");
    bar.append(picture("title", {}, words), picture("line", { class: "track", x1: shareX(0), y1: 9, x2: shareX(1), y2: 9 }));
    for (const n of [1, 2, 3]) bar.append(picture("line", { class: "grid", x1: shareX(n / 4), y1: 3, x2: shareX(n / 4), y2: 15 }));
    const low = shareX(row.low);
    bar.append(
      picture("rect", { class: "band", x: low, y: 4, width: tenth(shareX(row.high) - low), height: 10, rx: 3 }),
      picture("circle", { class: "dot", cx: shareX(row.mean), cy: 9, r: 5 }),
    );
    return bar;
  }

  function strengthCell(strength) {
    const cell = element("td", "pairwise");
    if (!strength) {
      cell.append(element("span", "muted", "none"));
      return cell;
    }
    const range = `strength ${hundredths(strength.value)} (${hundredths(strength.low)} to ${hundredths(strength.high)})`;
    cell.append(`${percent(strength.winChance)} `, element("small", "muted", range));
    return cell;
  }

  function standingRow(row, rank, pairwise) {
    const line = element("tr");
    line.dataset.alias = row.alias;
    const name = element("th", "", row.alias);
    name.scope = "row";
    const estimate = element("td", "estimate-cell");
    estimate.append(estimateBar(row));
    const useful = element("td", "useful", `${percent(row.mean)} `);
    useful.append(element("small", "muted", `${percent(row.low)}–${percent(row.high)}`));
    line.append(element("td", "rank", String(rank)), name, estimate, useful, element("td", "judged", String(row.judged)));
    if (pairwise) line.append(strengthCell(row.strength));
    return line;
  }

  function shapeStandings(name, rows) {
    const pairwise = rows.some((row) => row.strength);
    const section = element("section", "shape-standings");
    section.id = `shape-${name}`;
    section.setAttribute("aria-labelledby", `shape-${name}-title`);
    const title = element("h3", "", name);
    title.id = `shape-${name}-title`;
    const heads = element("tr");
    const columns = ["#", "Model", "Estimate and 90% interval", "Useful", "Verdicts"];
    for (const column of pairwise ? [...columns, "Beats an average model"] : columns) {
      const head = element("th", "", column);
      head.scope = "col";
      heads.append(head);
    }
    const thead = element("thead");
    thead.append(heads);
    const tbody = element("tbody");
    tbody.append(...rows.map((row, index) => standingRow(row, index + 1, pairwise)));
    const table = element("table", "standings");
    table.append(element("caption", "sr-only", `Models on ${name}, best estimate first`), thead, tbody);
    const wrap = element("div", "table-wrap");
    wrap.append(table);
    section.append(title, wrap);
    return section;
  }

  function noVerdicts(name) {
    const note = element("p", "card", `No verdicts yet${name ? ` on bench/${name}` : ""}. The record fills as answers are judged: on the `);
    note.id = "no-verdicts";
    const judge = element("a", "", "Judge view");
    judge.href = "/judge";
    note.append(judge, ", with ", element("code", "", "panelgate verdict CALL --useful"), " (or ",
      element("code", "", "--not-useful"), "), or with the MCP tool ", element("code", "", "verdict"),
      ". Each verdict moves its model's estimate here within seconds.");
    return note;
  }

  // A redraw replaces each shape's table; where a person had scrolled one sideways (a phone), the new one
  // opens at the same place rather than jumping back to its first column.
  function sidewaysScrolls() {
    const scrolled = new Map();
    for (const wrap of standings.querySelectorAll(".shape-standings .table-wrap")) {
      if (wrap.scrollLeft) scrolled.set(wrap.parentElement.id, wrap.scrollLeft);
    }
    return scrolled;
  }

  function drawStandings(record) {
    const shapes = Object.entries(record.standings);
    const scrolled = sidewaysScrolls();
    if (!shapes.length) standings.replaceChildren(noVerdicts(record.collection));
    else standings.replaceChildren(...shapes.map(([name, rows]) => shapeStandings(name, rows)));
    for (const [id, left] of scrolled) {
      const wrap = document.getElementById(id)?.querySelector(".table-wrap");
      if (wrap) wrap.scrollLeft = left;
    }
  }

  function scaleTop(most) {
    for (let step = 1; ; step *= 10) {
      for (const nice of [1, 2, 5]) if (nice * step >= most) return nice * step;
    }
  }

  function drawTimeline(timeline) {
    const { days } = timeline;
    const most = scaleTop(Math.max(0, ...days.map((day) => day.useful + day.not_useful)));
    const { left, top, width: full, height } = TIMELINE;
    const right = full - TIMELINE.right;
    const bottom = height - TIMELINE.bottom;
    const middle = tenth((top + bottom) / 2);
    const step = (right - left) / Math.max(1, days.length);
    const barWidth = step * TIMELINE.barShare;
    const y = (count) => tenth(bottom - (count / most) * (bottom - top));
    const parts = [
      picture("line", { class: "grid", x1: left, y1: top, x2: right, y2: top }),
      picture("line", { class: "grid", x1: left, y1: middle, x2: right, y2: middle }),
      picture("line", { class: "axis", x1: left, y1: bottom, x2: right, y2: bottom }),
      picture("text", { class: "tick", x: left - 6, y: top + 4, "text-anchor": "end" }, String(most)),
      picture("text", { class: "tick", x: left - 6, y: bottom + 4, "text-anchor": "end" }, "0"),
    ];
    days.forEach((day, index) => {
      const x = tenth(left + index * step + (step - barWidth) / 2);
      const bar = picture("g", { class: "day" });
      bar.append(picture("title", {}, `${day.day}: ${day.useful} useful, ${day.not_useful} not useful`));
      const usefulTop = y(day.useful);
      const allTop = y(day.useful + day.not_useful);
      if (bottom - usefulTop > 0) {
        bar.append(picture("rect", { class: "useful", x, y: usefulTop, width: tenth(barWidth), height: tenth(bottom - usefulTop) }));
      }
      if (usefulTop - allTop > 0) {
        bar.append(picture("rect", { class: "not-useful", x, y: allTop, width: tenth(barWidth), height: tenth(usefulTop - allTop) }));
      }
      if ((days.length - 1 - index) % TIMELINE.labelEvery === 0) {
        const at = { class: "tick", x: x + tenth(barWidth) / 2, y: height - 8, "text-anchor": "middle" };
        bar.append(picture("text", at, day.day.slice(5)));
      }
      parts.push(bar);
    });
    dayBars.replaceChildren(...parts);
    const judged = timeline.useful + timeline.not_useful;
    total.textContent = `${judged} verdicts in the last ${days.length} days: ${timeline.useful} useful, ${timeline.not_useful} not useful.`;
  }

  function candidateItem(candidate) {
    const item = element("li", candidate.next_panel ? "candidate next" : "candidate");
    item.dataset.alias = candidate.alias;
    item.append(element("strong", "", candidate.alias));
    if (candidate.next_panel) item.append(" ", element("span", "chip ok", "next panel"));
    item.append(" ", element("span", "why", candidate.why));
    return item;
  }

  function shapeExplorers(name, preview, collectionName) {
    const section = element("section", "card shape-explorers");
    section.id = `explore-${name}`;
    section.setAttribute("aria-labelledby", `explore-${name}-title`);
    const title = element("h3", "", name);
    title.id = `explore-${name}-title`;
    section.append(title, element("p", "muted", seatsLine(preview, collectionName)));
    if (preview.candidates.length) {
      const order = element("ol", "candidates");
      order.append(...preview.candidates.map(candidateItem));
      section.append(order);
    } else {
      section.append(element("p", "", `No candidate: every model that could explore on ${name} is a member, `
        + "retired, ad hoc, unavailable or of a role this shape does not seat."));
    }
    return section;
  }

  function verdictRow(verdict) {
    const line = element("tr");
    line.dataset.call = verdict.call;
    const call = element("th");
    call.scope = "row";
    call.append(element("code", "", verdict.call));
    const actor = element("td", "", verdict.actor);
    actor.dataset.label = "by";
    const source = element("td", "source", verdict.source || "not said");
    source.dataset.label = "from";
    line.append(
      call,
      element("td", "", verdict.alias),
      element("td", "", verdict.useful ? "useful" : "not useful"),
      actor,
      source,
      element("td", "when", verdict.at.slice(0, 16).replace("T", " ")),
    );
    return line;
  }

  function drawVerdicts(record) {
    if (!record.verdicts.length) {
      const from = record.source ? ` from ${record.source}` : "";
      const on = record.collection ? ` on bench/${record.collection}` : "";
      const empty = element("p", "card", `No verdicts${from}${on} yet.`);
      empty.id = "no-listed-verdicts";
      newest.replaceChildren(empty);
      return;
    }
    const heads = element("tr");
    for (const column of ["Call", "Model", "Verdict", "By", "Source", "When (UTC)"]) {
      const head = element("th", "", column);
      head.scope = "col";
      heads.append(head);
    }
    const thead = element("thead");
    thead.append(heads);
    const tbody = element("tbody");
    tbody.append(...record.verdicts.map(verdictRow));
    const table = element("table", "verdicts");
    const caption = `Newest verdicts${record.source ? ` from ${record.source}` : ""}, newest first`;
    table.append(element("caption", "sr-only", caption), thead, tbody);
    const wrap = element("div", "table-wrap");
    wrap.append(table);
    newest.replaceChildren(wrap);
  }

  // A source seen for the first time joins the choices; the one chosen stays chosen.
  function drawSources(sources) {
    const shown = [...sourceSelect.options].slice(1).map((option) => option.value);
    if (shown.join() === sources.join()) return;
    const all = sourceSelect.options[0];
    const options = sources.map((name) => {
      const option = element("option", "", name);
      option.value = name;
      option.selected = name === source;
      return option;
    });
    sourceSelect.replaceChildren(all, ...options);
  }

  function draw(record) {
    const now = JSON.stringify(record);
    if (now === drawn) return;
    drawn = now;
    drawStandings(record);
    drawTimeline(record.timeline);
    explorers.replaceChildren(
      ...Object.entries(record.explorers).map(([name, preview]) => shapeExplorers(name, preview, record.collection)),
    );
    drawSources(record.sources);
    drawVerdicts(record);
  }

  // ---- choosing a collection -------------------------------------------------------------------------
  document.getElementById("record-show").hidden = true; // a choice redraws at once
  form.addEventListener("submit", (event) => event.preventDefault());
  function chosen() {
    collection = select.value;
    source = sourceSelect.value;
    const query = address();
    history.replaceState(null, "", query ? `/record?${query}` : "/record");
    document.getElementById("record-note")?.remove();
    reader.now();
  }
  select.addEventListener("change", chosen);
  sourceSelect.addEventListener("change", chosen);
  reader.now();
})();
