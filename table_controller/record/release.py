"""A release's files, signed, and the daemon's comparison with them (docs/audit-chain.md, "The code
that runs"; NY 5321.18: the controller authenticates itself).

``table-controller audit release --key-file IT.key --out release.json`` writes the manifest of
the installed package: every ``.py``, ``.toml`` and ``.ini`` file of ``table_controller`` by its
relative path and SHA-256, and the package's code hash (record_watch.code_fingerprint, the one
each start chains), signed with an Ed25519 key the casino's IT holds (not the checkpoint key,
not on the table's machine). The signed bytes are the manifest's canonical JSON (keys sorted, no
spaces), UTF-8.

At start, with ``audit.release_manifest`` and ``audit.release_public_key`` configured, the
daemon checks the signature and compares every file: a signature that does not verify, a file
changed, added or missing is a ``code-changed`` finding. The table deals no round until a pit
user acknowledges the ``code-changed`` alert, which chains the record override of that finding
(record_watch.code_override); the hash is shown on the table page and in ``GET /api/table``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ..storage.checkpoints import load_public_key, public_key_hex
from .watch import PACKAGE_DIR, code_fingerprint

RELEASE_FORMAT: Final = "paigow-release-v1"
_SUFFIXES: Final = (".py", ".toml", ".ini")


def file_hashes(root: Path = PACKAGE_DIR) -> dict[str, str]:
    """Every file of the package the code hash covers, by relative path: its bytes' SHA-256."""
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.suffix in _SUFFIXES
    }


def manifest(root: Path = PACKAGE_DIR) -> dict[str, Any]:
    """The release's manifest (what is signed)."""
    digest, count = code_fingerprint(root)
    return {"format": RELEASE_FORMAT, "code_sha256": digest, "file_count": count, "files": file_hashes(root)}


def _signed_bytes(body: dict[str, Any]) -> bytes:
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def write_release(out: Path, key: Ed25519PrivateKey, root: Path = PACKAGE_DIR) -> dict[str, Any]:
    """Sign the manifest of ``root`` and write it to ``out`` (never over an existing file)."""
    body = manifest(root)
    signed = {
        "manifest": body,
        "signature": key.sign(_signed_bytes(body)).hex(),
        "public_key": public_key_hex(key),
    }
    with out.open("x", encoding="utf-8") as stream:
        json.dump(signed, stream, sort_keys=True, indent=1)
        stream.write("\n")
    return signed


@dataclass(frozen=True)
class ReleaseCheck:
    """The installed code against a signed manifest: ``problems`` empty when it is the release."""

    code_sha256: str
    release_sha256: str | None
    problems: tuple[str, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return not self.problems


def check_release(path: Path, public_key: str, root: Path = PACKAGE_DIR) -> ReleaseCheck:
    """Compare the installed package with the manifest at ``path`` signed by ``public_key``."""
    installed, _count = code_fingerprint(root)
    try:
        signed = json.loads(Path(path).read_text(encoding="utf-8"))
        body, signature = signed["manifest"], bytes.fromhex(signed["signature"])
        files = body["files"]
        if not isinstance(files, dict):
            raise TypeError("files is not a mapping")
    except (OSError, ValueError, KeyError, TypeError) as error:
        return ReleaseCheck(installed, None, (f"release manifest {path} cannot be read: {error}",))
    try:
        load_public_key(public_key).verify(signature, _signed_bytes(body))
    except Exception:
        return ReleaseCheck(
            installed,
            str(body.get("code_sha256")),
            (f"release manifest {path}: its signature does not verify with audit.release_public_key",),
        )
    now = file_hashes(root)
    problems = [f"{name}: {_what(name, now, files)}" for name in sorted(set(now) | set(files))]
    problems = [line for line in problems if not line.endswith(": same")]
    return ReleaseCheck(installed, str(body.get("code_sha256")), tuple(problems))


def _what(name: str, installed: dict[str, str], released: dict[str, Any]) -> str:
    if name not in installed:
        return "in the release, missing from the installed code"
    if name not in released:
        return "installed, not in the release (added)"
    return "same" if installed[name] == released[name] else "changed since the release"


__all__ = ["RELEASE_FORMAT", "ReleaseCheck", "check_release", "file_hashes", "manifest", "write_release"]
