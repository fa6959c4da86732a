"""Signing in to providers (PKCE key, OAuth code + PKCE, device code, local) and renewing tokens.

What other rooms use is re-exported here: the `ConnectDesk` the admin API
and the callback route drive, the `Renewer` the renewal job runs, and the
providers file's reader.
"""

from panelgate.connect.desk import CALLBACK_PATH, Ask, ConnectDesk, Started
from panelgate.connect.provider_calls import ProviderCalls, SigninRefused
from panelgate.connect.providers import Provider, ProviderFileError, load_providers
from panelgate.connect.renewal import RenewalReport, Renewer

__all__ = [
    "CALLBACK_PATH",
    "Ask",
    "ConnectDesk",
    "Provider",
    "ProviderCalls",
    "ProviderFileError",
    "RenewalReport",
    "Renewer",
    "SigninRefused",
    "Started",
    "load_providers",
]
