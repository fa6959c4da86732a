"""Real parts for tests: `upstream.FakeUpstream` is an OpenAI-compatible server on loopback."""
