"""Signing in to providers (PKCE key, OAuth code + PKCE, device code, local) and renewing tokens."""
