"""A loopback OpenAI-compatible chat-completions endpoint for the LLM judge's tests: a real
``http.server`` on 127.0.0.1 in a thread, whose replies are chosen by text in the prompt (the
question, say) and which records every request.

Test modules load it by path (the tests are no package), with ``load_stub_server()`` as
written at the top of tests/answers/test_run.py::

    server = StubServer()
    server.reply_to("capital of Australia", "1\\t1\\t0\\tSydney is not Canberra.")
    server.reply_to("slow question", "1\\t1\\t1\\tok", delay=5)   # beyond the judge's timeout
    server.reply_to("broken question", "", status=500)
    server.reply_to("garbled question", b"not json")              # bytes: the body as given
    server.reply_to("flaky question", "", status=503, times=2)    # twice, then the next rule
    ...
    server.close()
"""

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Reply:
    """What the stub answers: a chat completion whose message is ``content`` (text), or
    ``content`` as the body when it is bytes; with HTTP ``status``, after ``delay`` seconds.
    ``raw`` replaces the whole HTTP response (status line included) with its bytes.
    ``gate``, a ``threading.Barrier``, holds the reply until that many requests wait at it
    (an HTTP 503 if they never do). ``headers`` are sent with it; ``times``, when set, is how
    many requests it answers before the rules after it take over."""

    content: str | bytes = "2\t2\t2\tThe two answers make the same two claims."
    status: int = 200
    delay: float = 0.0
    raw: bytes | None = None
    gate: threading.Barrier | None = None
    headers: dict = field(default_factory=dict)
    times: int | None = None


class StubServer:
    """The endpoint: ``url`` is its API base (``http://127.0.0.1:PORT/v1``); ``requests``
    lists (path, headers, body) of each request, body as decoded JSON."""

    def __init__(self):
        self.rules = []
        self.default = Reply()
        self.requests = []
        self.lock = threading.Lock()
        self.closing = threading.Event()  # wakes replies still waiting out their delay
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                stub.requests.append((self.path, dict(self.headers), body))
                # A chat completion's prompt, or the texts of an embeddings request.
                asked = body["messages"][0]["content"] if "messages" in body else "\n".join(body["input"])
                reply = stub.reply_for(asked)
                if reply.delay:
                    stub.closing.wait(reply.delay)
                status = reply.status
                if reply.gate is not None:
                    try:
                        reply.gate.wait()
                    except threading.BrokenBarrierError:
                        status = 503
                if reply.raw is not None:
                    self.wfile.write(reply.raw)
                    return
                payload = (
                    reply.content
                    if isinstance(reply.content, bytes)
                    else json.dumps(
                        {"choices": [{"message": {"role": "assistant", "content": reply.content}}]}
                    ).encode()
                )
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args):
                pass

        class Server(ThreadingHTTPServer):
            def handle_error(self, request, client_address):
                pass  # a client that gave up (a timeout) while a slow reply was still waiting

        self.server = Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()

    def reply_to(self, marker, content, **options):
        """Answer prompts that contain ``marker`` with ``Reply(content, **options)`` (the
        first rule that matches wins; other prompts get ``default``)."""
        self.rules.append((marker, Reply(content, **options)))

    def reply_for(self, prompt):
        """The reply to a prompt (a reply given ``times`` times already is passed over)."""
        with self.lock:
            for marker, reply in self.rules:
                if marker in prompt and reply.times != 0:
                    if reply.times is not None:
                        reply.times -= 1
                    return reply
        return self.default

    def prompts(self):
        """The prompt of each request received, in order."""
        return [body["messages"][0]["content"] for _, _, body in self.requests if "messages" in body]

    def close(self):
        """Stop serving and release the port."""
        self.closing.set()
        self.server.shutdown()
        self.server.server_close()
