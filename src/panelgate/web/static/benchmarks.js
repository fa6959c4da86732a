// Benchmarks: a heatmap result opens the answer behind it (what it found, missed and invented, and its
// text), read from /api/suite/answers. The tables and the chart are the server's; they need no script.
"use strict";

(() => {
  function scoreLines(answer) {
    const lines = [];
    if (!answer.counted) lines.push(["Does not count", answer.why_not]);
    for (const [word, labels] of [["Found", answer.found], ["Missed", answer.missed], ["Invented", answer.invented]]) {
      if (labels.length) lines.push([word, labels.join(", ")]);
    }
    return lines.map(([word, text]) => {
      const term = document.createElement("dt");
      term.textContent = word;
      const detail = document.createElement("dd");
      detail.textContent = text;
      return [term, detail];
    }).flat();
  }

  async function openAnswer(event) {
    const { model, task } = event.detail;
    const what = document.getElementById("answer-what");
    const score = document.getElementById("answer-score");
    const text = document.getElementById("answer-text");
    document.getElementById("answer-dialog-title").textContent = `${model} on ${task}`;
    what.textContent = "Reading the answer…";
    score.replaceChildren();
    text.textContent = "";
    const query = new URLSearchParams({ model, task });
    try {
      const found = await panelgate.api("GET", `/api/suite/answers?${query}`);
      const answer = found.answers[0];
      if (!answer) {
        what.textContent = "No answer on record for the task as it is now.";
        return;
      }
      const asked = new Date(answer.asked_at).toLocaleString();
      what.textContent = `Asked ${asked} · ${answer.status} · ${answer.seconds} s`;
      score.replaceChildren(...scoreLines(answer));
      text.textContent = answer.answer || answer.error || "(no text)";
    } catch (failure) {
      what.textContent = `The answer could not be read: ${failure.message}`;
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    document.getElementById("answer-dialog")?.addEventListener("panelgate:open", openAnswer);
  });
})();
