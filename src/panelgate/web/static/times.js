// Moments in the reader's own time zone. The server writes each as <time datetime="…" data-when="…"> in
// UTC; this shows the local clock time (with the date when it is not today, seconds when it is close)
// and, for data-when="relative", how far off it is: "14:06:00 (in 6 min)". Refreshed every 15 s, so a
// reset that has passed says so without a reload.
"use strict";

(() => {
  const REFRESH_MS = 15_000;
  const CLOSE_S = 600;

  const two = (n) => String(n).padStart(2, "0");

  function clock(at, now) {
    const close = Math.abs(at - now) < CLOSE_S * 1000;
    const time = `${two(at.getHours())}:${two(at.getMinutes())}${close ? `:${two(at.getSeconds())}` : ""}`;
    if (at.toDateString() === now.toDateString()) return time;
    return `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())} ${time}`;
  }

  function span(seconds) {
    if (seconds < 60) return `${seconds} s`;
    const minutes = Math.round(seconds / 60);
    if (minutes < 60) return `${minutes} min`;
    const hours = Math.floor(minutes / 60);
    if (hours < 48) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
    return `${Math.round(hours / 24)} days`;
  }

  function distance(at, now) {
    const seconds = Math.round((at - now) / 1000);
    if (seconds === 0) return "now";
    return seconds > 0 ? `in ${span(seconds)}` : `${span(-seconds)} ago`;
  }

  function show() {
    const now = new Date();
    for (const element of document.querySelectorAll("time[data-when]")) {
      const at = new Date(element.dateTime);
      if (Number.isNaN(at.getTime())) continue;
      const local = clock(at, now);
      element.textContent = element.dataset.when === "relative" ? `${local} (${distance(at, now)})` : local;
    }
  }

  document.addEventListener("panelgate:times", show); // moments a script has just put on the page
  document.addEventListener("DOMContentLoaded", () => {
    show();
    setInterval(show, REFRESH_MS);
  });
})();
