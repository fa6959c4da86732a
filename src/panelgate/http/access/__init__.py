"""Who may use this gateway, decided in one place, in front of everything else.

`guard.AccessGuard` wraps the whole app (plain ASGI, before `GatewayFront`). It
classifies the path (`paths`, from the gateway's route table), never what the client claims, and applies, in
order: the Host allow-list (DNS rebinding), CORS preflight, same-origin JSON
writes and the body-size header, then the credential the route class takes —
a gateway key on gateway routes (`gateway_keys`), the login cookie or the
admin token everywhere else (`session`). `policy.AccessPolicy` is what the
settings say; refusals come back in the caller's API shape (`refusals`).
`host_header` reads the Host strictly; `throttle` counts `/login` tries in
the shared state; `proxies` says whose forwarded client address `serve`
lets uvicorn believe.
"""
