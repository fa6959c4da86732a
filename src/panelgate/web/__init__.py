"""The dashboard: server-rendered pages (Jinja2) with a little plain JavaScript, on the gateway's port.

Pages read what they show from the store, the same reads the admin API
makes; every change a page makes goes through the admin API with `fetch`,
so the rules the CLI meets are the rules the dashboard meets. Every asset is
served by the app from `static/`: no CDN, works offline.
"""
