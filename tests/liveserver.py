"""Helpers for the web tests: the application on a real HTTP server, and real requests.

The server is Werkzeug's threaded server on 127.0.0.1 and a free port, in a thread of the
test process; requests go through urllib, so every byte crosses a real socket.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from flask import Flask
from werkzeug.serving import make_server


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8")

    def json(self) -> Any:
        return json.loads(self.body)


@contextmanager
def serving(app: Flask) -> Iterator[str]:
    """Serve `app` on 127.0.0.1 at a free port; yield its base URL."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), name="web", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def fetch(
    url: str,
    data: bytes | None = None,
    headers: dict[str, str] | None = None,
    method: str | None = None,
) -> Reply:
    """One HTTP request; error statuses are returned, not raised."""
    request = urllib.request.Request(url, data=data, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return Reply(response.status, dict(response.headers), response.read())
    except urllib.error.HTTPError as error:
        with error:
            return Reply(error.code, dict(error.headers), error.read())


def sign(secret: str, body: bytes) -> str:
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def push_payload(full_name: str, clone_url: str, after: str, ref: str = "refs/heads/main") -> bytes:
    """A push event as GitHub and Gitea send it (the fields pamir reads, and some more)."""
    return json.dumps(
        {
            "ref": ref,
            "before": "0" * 40,
            "after": after,
            "created": False,
            "deleted": False,
            "forced": False,
            "compare": f"https://forge.example/{full_name}/compare",
            "commits": [{"id": after, "message": "a move", "added": [], "modified": []}],
            "repository": {
                "id": 1296269,
                "name": full_name.split("/")[1],
                "full_name": full_name,
                "private": True,
                "owner": {"login": full_name.split("/")[0], "id": 1},
                "html_url": f"https://forge.example/{full_name}",
                "clone_url": clone_url,
                "ssh_url": f"git@forge.example:{full_name}.git",
                "default_branch": "main",
            },
            "pusher": {"name": "alice", "email": "alice@example.org"},
            "sender": {"login": "alice", "id": 2},
        }
    ).encode()


def github_headers(
    secret: str | None, body: bytes, delivery: str, event: str = "push"
) -> dict[str, str]:
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "GitHub-Hookshot/044aadd",
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": delivery,
        "X-GitHub-Hook-ID": "292",
    }
    if secret is not None:
        headers["X-Hub-Signature-256"] = "sha256=" + sign(secret, body)
    return headers


def gitea_headers(
    secret: str | None, body: bytes, delivery: str, event: str = "push"
) -> dict[str, str]:
    headers = {
        "Content-Type": "application/json",
        "X-Gitea-Event": event,
        "X-Gitea-Event-Type": event,
        "X-Gitea-Delivery": delivery,
    }
    if secret is not None:
        headers["X-Gitea-Signature"] = sign(secret, body)
    return headers
