// The login page: app.js posts the token as JSON (its form has data-api="POST /login"); once the
// server accepts it, go where the visitor was headed (the server already kept `next` on this gateway).
"use strict";

document.addEventListener("panelgate:saved", (event) => {
  if (event.target.id === "login") location.assign(event.target.dataset.next || "/");
});
