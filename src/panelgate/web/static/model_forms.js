// The model dialogs the Models and Endpoints pages share (templates/_model_forms.html): after a
// save, the message names the model, e.g. "m4 is on the bench." (`data-said-model` on the form).
"use strict";

document.addEventListener("panelgate:saved", (event) => {
  const template = event.target.dataset.saidModel;
  const alias = event.detail && event.detail.model && event.detail.model.alias;
  if (template && alias) event.target.dataset.said = template.replace("{alias}", alias);
});
