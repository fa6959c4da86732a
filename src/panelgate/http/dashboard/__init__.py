"""What each dashboard page shows, read through the process's services: one module per page.

The pages in `web/` render; reading the store, the engine's health and
standings, the suite's desk, the scheduler and the key store happens here,
in the wiring room, so the web room never reaches past http to the rooms
beneath it.
"""
