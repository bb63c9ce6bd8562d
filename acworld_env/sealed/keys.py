"""The host's Ed25519 signing key: made on first use, kept 0600 in the round's state folder.

``cryptography`` is imported only here and in :mod:`.result` (``pip install 'acworld-env[server]'``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .commitment import SealedError

PRIVATE_FILE = "host_key.pem"
PUBLIC_FILE = "public_key.pem"


def _crypto() -> Any:
    try:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ed25519
    except ImportError:  # pragma: no cover  (a declared dependency of the dev and server extras)
        raise SealedError("the cryptography package is not installed; pip install 'acworld-env[server]'") from None
    return serialization, ed25519


def load_or_create_key(state_dir: Path) -> Any:
    """The host's private key from ``state_dir/host_key.pem``; generated (and ``public_key.pem`` written) when absent."""
    serialization, ed25519 = _crypto()
    private = state_dir / PRIVATE_FILE
    if private.exists():
        try:
            key = serialization.load_pem_private_key(private.read_bytes(), password=None)
        except (OSError, ValueError, TypeError) as exc:
            raise SealedError(f"cannot read the host key {private}: {type(exc).__name__}") from None
        if not isinstance(key, ed25519.Ed25519PrivateKey):
            raise SealedError(f"{private} is not an Ed25519 private key")
    else:
        key = ed25519.Ed25519PrivateKey.generate()
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
        state_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(private, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with open(fd, "wb") as fh:
            fh.write(pem)
    public = state_dir / PUBLIC_FILE
    pem_pub = public_pem(key)
    if not public.exists() or public.read_bytes() != pem_pub:
        public.write_bytes(pem_pub)
    return key


def public_pem(key: Any) -> bytes:
    """The PEM (SubjectPublicKeyInfo) of ``key``'s public half."""
    serialization, _ = _crypto()
    return key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def read_public_key(path: Path) -> Any:
    """An Ed25519 public key from a PEM file; a clear error when it is not one."""
    serialization, ed25519 = _crypto()
    try:
        key = serialization.load_pem_public_key(Path(path).read_bytes())
    except OSError as exc:
        raise SealedError(f"cannot read the public key {path}: {exc.strerror or type(exc).__name__}") from None
    except (ValueError, TypeError):
        raise SealedError(f"{path} is not a PEM public key") from None
    if not isinstance(key, ed25519.Ed25519PublicKey):
        raise SealedError(f"{path} is not an Ed25519 public key")
    return key


def key_id(pem: bytes) -> str:
    """A short fingerprint of a public key (SHA-256 of its PEM, 16 hex digits)."""
    import hashlib

    return hashlib.sha256(pem).hexdigest()[:16]
