"""Whether a reply came from the model that was asked, or a provider swapped in another one.

Providers name the model that answered (OpenAI chat's `model`, Anthropic's
`model`, Gemini's `modelVersion`). That name rarely equals the id asked
character for character, and most differences are not swaps: `gpt-4o`
answers as its dated snapshot `gpt-4o-2024-08-06`, `mistral-large-latest` as
`mistral-large-2411`, a hub adds its provider prefix (`openai/gpt-4o`), a
Vertex id carries `@20240620`. So both names are reduced to the same form
first, and only a difference that survives is a swap:

- lower case, the last path segment only (`openai/gpt-4o` -> `gpt-4o`);
- a `:tag` dropped (`:free`, `:latest`);
- trailing date or version parts dropped, again and again: `-2024-08-06`,
  `-20241022`, `@20240620`, `-08-2024`, four-digit `-0613` / `-2411`,
  three-digit `-001`, and `-latest`.

Anything else differing (`gpt-4o` answered by `gpt-4o-mini`, a 70b asked and
an 8b answering) is a swap. A reply that names no model says nothing.
"""

from __future__ import annotations

import re

_VERSION_TAIL = re.compile(r"[-@](\d{4}-\d{2}-\d{2}|\d{2}-\d{4}|\d{8}|\d{3,4}|latest)$")
MAX_SHOWN = 200
"""A served name longer than this is cut: it is shown and stored, and a provider decides its length."""


def model_core(model_id: str) -> str:
    """The part of a model id that names the weights, without prefix, tag, date or version."""
    name = model_id.strip().lower().rsplit("/", 1)[-1].split(":", 1)[0]
    while (shorter := _VERSION_TAIL.sub("", name)) != name and shorter:
        name = shorter
    return name


def served_as(asked: str, answered: str) -> str | None:
    """The model that `answered` names when it is not `asked` (see the module's rule); None when it is
    the same model, or the reply named none."""
    said = answered.strip()
    if not said or said == asked or model_core(said) == model_core(asked):
        return None
    return said[:MAX_SHOWN]
