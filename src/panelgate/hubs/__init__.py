"""Hub adapters: telling a LiteLLM proxy, Open WebUI or CLI Proxy API to serve one more model."""
