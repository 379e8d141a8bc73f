"""What the service delivers to, on loopback: a webhook receiver (`http.server` in a thread) that
records every request and verifies each with the `standardwebhooks` library as it arrives, and
an SMTP server (aiosmtpd) that keeps every message it is given."""

from __future__ import annotations

import contextlib
import email
import email.policy
import json
import threading
import time
from dataclasses import dataclass, field
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable

from aiosmtpd.controller import Controller
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

# How one path answers its n-th request (1-based): (status, extra headers, seconds to wait first).
Behaviour = Callable[[int], tuple[int, dict, float]]


def answer(status: int = 204, headers: dict | None = None, delay: float = 0.0) -> Behaviour:
    return lambda _n: (status, headers or {}, delay)


def fail_first(failures: int, status: int = 500) -> Behaviour:
    """`status` to the first `failures` requests, 200 afterwards."""
    return lambda n: (status if n <= failures else 200, {}, 0.0)


@dataclass
class Hit:
    """One request as the receiver got it."""

    path: str
    method: str
    headers: dict[str, str]
    body: bytes
    at: float
    # None when `Webhook(secret).verify(body, headers)` accepted it, else why not.
    verify_error: str | None
    status: int | None = None  # what the receiver answered (None: still waiting, or it failed)

    @property
    def webhook_id(self) -> str | None:
        return self.headers.get("webhook-id")

    def payload(self) -> dict:
        return json.loads(self.body)


class Receiver:
    """A webhook receiver on 127.0.0.1. Each path has a secret (to verify with) and a behaviour;
    `start()` may come late (the port is chosen at once, so a URL can point at it while it is
    down) and `stop()`/`start()` may repeat on the same port."""

    def __init__(self, name: str, port: int) -> None:
        self.name = name
        self.port = port
        self.hits: list[Hit] = []
        self.secrets: dict[str, str] = {}
        self.behaviours: dict[str, Behaviour] = {}
        self.cond = threading.Condition()
        self._server: ThreadingHTTPServer | None = None

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def expect(self, path: str, secret: str, behaviour: Behaviour | None = None) -> None:
        with self.cond:
            self.secrets[path] = secret
            self.behaviours[path] = behaviour or answer()

    def start(self) -> "Receiver":
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the http.server API
                receiver._handle(self)

            do_GET = do_PUT = do_DELETE = do_POST  # noqa: N815 - recorded too: nothing else may come

            def log_message(self, *_args) -> None:
                pass

        class Server(ThreadingHTTPServer):
            # The default backlog (5) overflows when a worker sends its pass of 50 at once: the
            # connections beyond it wait for SYN retries, and an attempt may then time out on the
            # service's side after the receiver got it (a legitimate duplicate, but not the test).
            request_queue_size = 1024

        server = Server(("127.0.0.1", self.port), Handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, name=f"receiver-{self.name}", daemon=True).start()
        self._server = server
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def _handle(self, req: BaseHTTPRequestHandler) -> None:
        length = int(req.headers.get("Content-Length") or 0)
        body = req.rfile.read(length) if length else b""
        headers = {k.lower(): v for k, v in req.headers.items()}
        path = req.path
        with self.cond:
            secret = self.secrets.get(path)
            behaviour = self.behaviours.get(path, answer(404))
        if secret is None:
            verify_error = "no secret registered for this path"
        else:
            try:
                Webhook(secret).verify(body, headers)
                verify_error = None
            except (WebhookVerificationError, ValueError) as e:
                verify_error = f"{type(e).__name__}: {e}"
        hit = Hit(path, req.command, headers, body, time.time(), verify_error)
        with self.cond:
            self.hits.append(hit)
            n = sum(1 for h in self.hits if h.path == path)
            self.cond.notify_all()
        status, extra, delay = behaviour(n)
        if delay:
            time.sleep(delay)
        # The client may be gone (killed mid-request): nothing to answer then.
        with contextlib.suppress(OSError):
            req.send_response(status)
            for k, v in extra.items():
                req.send_header(k, v)
            req.send_header("Content-Length", "0")
            req.end_headers()
            hit.status = status

    def on(self, path: str) -> list[Hit]:
        with self.cond:
            return [h for h in self.hits if h.path == path]

    def wait(self, path: str, pred: Callable[[list[Hit]], bool], timeout: float) -> list[Hit]:
        """The hits on `path` once `pred` holds for them, or as they are after `timeout`."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                hits = [h for h in self.hits if h.path == path]
                left = deadline - time.monotonic()
                if pred(hits) or left <= 0:
                    return hits
                self.cond.wait(min(left, 0.5))


@dataclass
class Mail:
    mail_from: str
    rcpt_tos: list[str]
    raw: bytes
    at: float = field(default_factory=time.time)

    def message(self) -> EmailMessage:
        return email.message_from_bytes(self.raw, policy=email.policy.default)  # type: ignore[return-value]


class Inbox:
    """An aiosmtpd server on 127.0.0.1:`port` (plain SMTP) keeping every message; it is its own
    handler. Stopped and started again on the same port for the SMTP-down fault."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.mails: list[Mail] = []
        self.cond = threading.Condition()
        self._controller: Controller | None = None

    async def handle_DATA(self, _server, _session, envelope) -> str:  # noqa: N802 - aiosmtpd's hook
        with self.cond:
            self.mails.append(Mail(envelope.mail_from, list(envelope.rcpt_tos), envelope.content))
            self.cond.notify_all()
        return "250 Message accepted for delivery"

    def start(self) -> "Inbox":
        self._controller = Controller(self, hostname="127.0.0.1", port=self.port)
        self._controller.start()
        return self

    def stop(self) -> None:
        if self._controller is not None:
            self._controller.stop()
            self._controller = None

    def to(self, address: str) -> list[Mail]:
        with self.cond:
            return [m for m in self.mails if address in m.rcpt_tos]

    def wait(self, address: str, count: int, timeout: float) -> list[Mail]:
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                mails = [m for m in self.mails if address in m.rcpt_tos]
                left = deadline - time.monotonic()
                if len(mails) >= count or left <= 0:
                    return mails
                self.cond.wait(min(left, 0.5))
