"""Model facts: what each model on the bench can take and do, and what it costs, each with its source.

Facts come from the model's endpoint listing, the public catalogs
(models.dev and OpenRouter's model list, fetched when reachable and read
from a cached file otherwise), what an upstream's refusal taught (only ever
tighter), and the person's overrides, which win. `merge` holds the order;
`Catalog` (in `desk`) is what the admin API, the scheduler and the app use.
"""
