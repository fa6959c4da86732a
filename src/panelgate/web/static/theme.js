// Runs before the page paints: the chosen theme (cookie), or the browser's preference for "system".
(function () {
  const root = document.documentElement;
  const choice = root.dataset.themeChoice || "system";
  const dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  root.dataset.theme = choice === "system" ? (dark ? "dark" : "light") : choice;
})();
