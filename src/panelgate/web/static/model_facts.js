// The model dialog's "Facts and their sources": GET /api/models/{alias}/facts when the dialog opens, one
// row per fact with the value the gateway uses, where it comes from (and what a value set by hand
// replaced), and what the other sources say. A free model the price watch held because it turned paid
// shows why, with "Allow it to cost money" (POST /api/models/{alias}/allow-paid, app.js data-action).
"use strict";

(() => {
  const FACT_NAMES = {
    context_window: "Context window",
    max_output: "Max output",
    vision: "Sees images",
    tools: "Calls tools",
    structured_output: "Structured output",
    reasoning: "Reasoning",
    price: "Price",
    limits: "Rate limits",
  };
  const SOURCE_NAMES = {
    listing: "the endpoint's listing",
    "models.dev": "models.dev",
    openrouter: "OpenRouter's list",
    learned: "learned from an error",
    override: "set by hand",
  };
  const LIMIT_WORDS = {
    rpm: "requests a minute",
    rpd: "requests a day",
    tpm: "tokens a minute",
    tpd: "tokens a day",
  };
  let asked = 0;

  function price(value) {
    if (value.input === 0 && value.output === 0) return "free";
    return `$${value.input} in / $${value.output} out per million tokens`;
  }

  function limits(value) {
    const parts = Object.entries(value).filter(([, n]) => n !== null && n !== undefined)
      .map(([name, n]) => `${n.toLocaleString("en")} ${LIMIT_WORDS[name] || name}`);
    return parts.length ? parts.join(", ") : "none stated";
  }

  function shown(fact, value) {
    if (value === null || value === undefined) return "not known";
    if (typeof value === "boolean") return value ? "yes" : "no";
    if (typeof value === "number") return fact.endsWith("_window") || fact === "max_output"
      ? `${value.toLocaleString("en")} tokens` : value.toLocaleString("en");
    if (fact === "price") return price(value);
    if (fact === "limits") return limits(value);
    return JSON.stringify(value);
  }

  function element(tag, className, text) {
    const made = document.createElement(tag);
    if (className) made.className = className;
    if (text !== undefined) made.textContent = text;
    return made;
  }

  function sourceCell(fact) {
    const cell = element("td");
    if (!fact.source) {
      cell.append(element("span", "muted", "no source knows it"));
      return cell;
    }
    cell.append(element("span", "source", SOURCE_NAMES[fact.source] || fact.source));
    const chosen = fact.known.find((word) => word.source === fact.source);
    if (chosen && chosen.evidence) cell.append(element("small", "muted", chosen.evidence));
    if (fact.overridden) {
      const was = SOURCE_NAMES[fact.overridden.source] || fact.overridden.source;
      cell.append(element("small", "", `replaces ${shown(fact.name, fact.overridden.value)} from ${was}`));
    }
    for (const word of fact.known) {
      if (word.source === fact.source) continue;
      if (fact.overridden && word.source === fact.overridden.source) continue;
      const said = `${SOURCE_NAMES[word.source] || word.source} says ${shown(fact.name, word.value)}`;
      cell.append(element("small", "muted", said));
    }
    return cell;
  }

  function row(fact) {
    const line = element("tr");
    line.dataset.fact = fact.name;
    const name = element("th", "", FACT_NAMES[fact.name] || fact.name);
    name.scope = "row";
    line.append(name, element("td", fact.value === null ? "muted" : "", shown(fact.name, fact.value)), sourceCell(fact));
    return line;
  }

  function showHold(alias, hold) {
    const box = document.getElementById("paid-hold");
    box.hidden = !hold || hold.state !== "held";
    if (box.hidden) return;
    const cost = hold.price ? price(hold.price) : "a price";
    document.getElementById("paid-hold-said").textContent =
      `Held since ${new Date(hold.since).toLocaleString()}: it was free and ${hold.source} now prices it at ${cost}. ` +
      "It is not called until you allow it.";
    document.getElementById("allow-paid").dataset.action = `POST /api/models/${encodeURIComponent(alias)}/allow-paid`;
  }

  async function showFacts(event) {
    const { current } = JSON.parse(event.detail.fill || "{}");
    const said = document.getElementById("facts-said");
    const wrap = document.getElementById("facts-wrap");
    const ticket = ++asked;
    said.textContent = "Reading its facts…";
    wrap.hidden = true;
    showHold(current, null);
    try {
      const found = await panelgate.api("GET", `/api/models/${encodeURIComponent(current)}/facts`);
      if (ticket !== asked) return;  // another model's dialog opened meanwhile
      document.querySelector("#facts-table tbody").replaceChildren(...found.facts.map(row));
      const matched = Object.entries(found.matched || {}).map(([source, entry]) => `${source}: ${entry}`);
      said.textContent = matched.length ? `Matched in the public catalogs as ${matched.join("; ")}.`
        : "Not found in the public catalogs.";
      wrap.hidden = false;
      showHold(current, found.paid_hold);
    } catch (failure) {
      if (ticket === asked) said.textContent = `Its facts could not be read: ${failure.message}`;
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    document.getElementById("model-dialog").addEventListener("panelgate:open", showFacts);
  });
})();
