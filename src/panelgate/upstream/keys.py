"""Where provider secrets live: the environment first, else a private key file.

Secrets never enter the database, the audit table or a log. An endpoint names
its key (`key_name`); the secret is `PANELGATE_KEY_<NAME>` (upper-cased, every
character that cannot be in an environment variable name turned into `_`) or,
failing that, an entry in the JSON key file `{name: secret}` in the data
folder. The environment wins so an operator can override a stored key
without touching the file.

The file is written atomically (a private temporary file, then `os.replace`)
with mode 0600, so a crash never leaves half a file and no other user can
read it. A file someone loosened is still read (refusing would take every
endpoint down at once) but a warning names it, and the next write makes it
private again.

`get` runs before every upstream call, so the parsed file is kept until its
modification time, size or inode changes (a renewed token has the same size
as the old one, and may be written within the same clock tick).
"""

from __future__ import annotations

import fcntl
import logging
import os
import re
import stat
import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

import orjson

from panelgate.core.files import write_atomically

log = logging.getLogger(__name__)

ENV_PREFIX = "PANELGATE_KEY_"
_NOT_ENV_CHARS = re.compile(r"[^A-Z0-9_]")


def env_name(key_name: str) -> str:
    """The environment variable that holds `key_name`'s secret."""
    return ENV_PREFIX + _NOT_ENV_CHARS.sub("_", key_name.upper())


class KeyFileError(Exception):
    """The key file exists but cannot be used as it is."""


class KeyStore:
    def __init__(self, key_file: Path, environ: Mapping[str, str] = os.environ) -> None:
        self.key_file = key_file
        self._environ = environ
        self._lock = threading.Lock()
        self._cached_stamp: tuple[int, int, int] | None = None
        self._cached: dict[str, str] = {}

    def get(self, key_name: str) -> str | None:
        """The secret for `key_name`, or None when neither place has one."""
        from_env = self._environ.get(env_name(key_name))
        if from_env:
            return from_env
        return self._read().get(key_name)

    def get_each(self, key_names: Iterable[str]) -> dict[str, str]:
        """`{key name: secret}` for those found, the file checked once for all (an endpoint's key and
        its header values are read together before every call)."""
        found: dict[str, str] = {}
        stored: dict[str, str] | None = None
        for key_name in key_names:
            secret = self._environ.get(env_name(key_name))
            if not secret:
                stored = self._read() if stored is None else stored
                secret = stored.get(key_name)
            if secret:
                found[key_name] = secret
        return found

    def source(self, key_name: str) -> Literal["env", "file"] | None:
        """Where `get` would find the secret, without revealing it."""
        if self._environ.get(env_name(key_name)):
            return "env"
        return "file" if key_name in self._read() else None

    def set(self, key_name: str, secret: str) -> None:
        """Store `secret` in the key file (the environment, if set, still wins on `get`)."""
        if not key_name.strip():
            raise ValueError("a key needs a name")
        if not secret or secret != secret.strip() or "\n" in secret:
            raise ValueError(f"the secret for key `{key_name}` is empty or has surrounding whitespace")
        with self._changing():
            keys = dict(self._read())
            keys[key_name] = secret
            self._write(keys)

    def remove(self, key_name: str) -> bool:
        """Drop `key_name` from the key file; False when it was not there."""
        with self._changing():
            keys = dict(self._read())
            if keys.pop(key_name, None) is None:
                return False
            self._write(keys)
            return True

    @contextmanager
    def _changing(self) -> Iterator[None]:
        """One change at a time, across threads and across the processes sharing the data folder.

        A change reads the file, edits it and replaces it: two at once (a
        sign-in landing in one process while another renews a token) would
        lose one. A lock file beside the key file (`flock`, released when the
        process dies) orders them; the file itself is replaced, so it cannot
        be what is locked.
        """
        with self._lock:
            self.key_file.parent.mkdir(parents=True, exist_ok=True)
            descriptor = os.open(
                self.key_file.with_name(self.key_file.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600
            )
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX)
                self._cached_stamp = None  # another process may have changed it since it was read
                yield
            finally:
                os.close(descriptor)

    def _read(self) -> dict[str, str]:
        try:
            info = self.key_file.stat()
        except FileNotFoundError:
            return {}
        stamp = (info.st_mtime_ns, info.st_size, info.st_ino)  # a rewrite is a new file: same size, same tick
        if stamp == self._cached_stamp:
            return self._cached
        if info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
            log.warning(
                "key file %s can be read by other users; run `chmod 600` on it "
                "(the next key change makes it private again)",
                self.key_file,
            )
        try:
            loaded = orjson.loads(self.key_file.read_bytes())
        except orjson.JSONDecodeError as exc:
            raise KeyFileError(f"key file {self.key_file} is not valid JSON (line {exc.lineno})") from None
        if not isinstance(loaded, dict) or not all(
            isinstance(name, str) and isinstance(value, str) for name, value in loaded.items()
        ):
            raise KeyFileError(f"key file {self.key_file} must be a JSON object of name → secret strings")
        self._cached, self._cached_stamp = loaded, stamp
        return loaded

    def _write(self, keys: dict[str, str]) -> None:
        body = orjson.dumps(keys, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
        write_atomically(self.key_file, body, durable=True)
        self._cached_stamp = None
