"""panelgate: a self-hosted panel gateway for LLMs."""

__version__ = "0.1.0"
