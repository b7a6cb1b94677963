#!/usr/bin/env python3
"""Loopback LLM server for tests and benchmarks: speaks OpenAI Chat Completions and Anthropic Messages.

Behaviour is chosen per request by the first path segment, so one server serves many tests:

    http://127.0.0.1:PORT/<scenario>/v1/chat/completions     (openai; OPENAI_BASE_URL=.../<scenario>/v1)
    http://127.0.0.1:PORT/<scenario>/v1/messages             (anthropic; ANTHROPIC_BASE_URL=.../<scenario>)

<scenario> is comma-separated key=value pairs:
    s=ok|slow|e429|date429|e500|cut|cutjson|badkey|html502|e400|empty|length|big|nul
    n=N     fail only the first N requests of this scenario id, then answer normally
    ra=S    Retry-After seconds for e429 (default 1)
    ms=M    delay before answering (any scenario; for s=slow only the first n requests)
    id=X    separates the counters of tests that use the same scenario
    reply=tool   first turn asks "search: ..." and "tool: ...", later turns answer with code
    mask=stars|dots|ellipsis|tail   how a 401 echoes a wrong key (OpenAI shape; default stars)
    usage=neg|huge|hugef|junk|none  absurd token counts in a successful reply

s=big answers with a reply of 17 MiB (past the client's 16 MiB cap); s=nul puts a NUL (\u0000)
inside the reply's code block.

The key the clients must send is --key (Authorization: Bearer / x-api-key). A wrong one gets 401 with
the provider's own message shape, echoing the key masked the way OpenAI does. Requests are logged as
JSON lines to --log, with headers reduced to what tests check: the key itself is never logged.
"""
import argparse
import email.utils
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DEFAULT_REPLY = """Here is a faster version.

```cuda
#include <cuda_runtime.h>
#include "kp_native.h"

__global__ void scale_kernel(const float *x, float *y, int64_t n)
{
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = 2.0f * x[i];
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
    int64_t n = in[0].numel;
    scale_kernel<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)stream>>>(
        (const float *)in[0].data, (float *)out[0].data, n);
    return (int)cudaGetLastError();
}
```
"""

TOOL_TURN = """I need to look at an example first.

search: cutlass epilogue fusion example
tool: occupancy
"""

counters = {}
lock = threading.Lock()


def parse_scenario(seg):
    sc = {"s": "ok"}
    for part in seg.split(","):
        if "=" in part:
            k, v = part.split("=", 1)
            sc[k] = v
    return sc


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "kp-llm-loopback/1"

    def log_message(self, fmt, *args):
        pass

    def send_json(self, code, obj, headers=()):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def error_body(self, provider, kind, message):
        if provider == "anthropic":
            return {"type": "error", "error": {"type": kind, "message": message}}
        return {"error": {"message": message, "type": kind, "code": None}}

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length)
        parts = self.path.strip("/").split("/")
        if len(parts) < 3 or parts[-2:] not in (["chat", "completions"], ["v1", "messages"]):
            self.send_json(404, {"error": {"message": "no such endpoint " + self.path}})
            return
        provider = "anthropic" if parts[-1] == "messages" else "openai"
        sc = parse_scenario(parts[0])
        key = sc.get("id", "") + "/" + sc["s"]
        with lock:
            counters[key] = counters.get(key, 0) + 1
            hit = counters[key]
        failing = "n" not in sc or hit <= int(sc["n"])
        if provider == "anthropic":
            sent_key = self.headers.get("x-api-key", "")
        else:
            auth = self.headers.get("Authorization", "")
            sent_key = auth[7:] if auth.startswith("Bearer ") else ""
        key_ok = sent_key == self.server.key
        try:
            req = json.loads(raw)
        except ValueError:
            req = None
        self.server.log_request_line({
            "path": self.path, "provider": provider, "scenario": sc["s"], "hit": hit,
            "key_ok": key_ok, "has_auth": bool(sent_key),
            "anthropic_version": self.headers.get("anthropic-version"),
            "expect": self.headers.get("Expect"),
            "body": req,
        })
        if "ms" in sc and (sc["s"] != "slow" or failing):
            time.sleep(int(sc["ms"]) / 1000.0)
        s = sc["s"] if failing else "ok"

        if s == "badkey" or (not key_ok and self.server.key):
            masked = "***"
            if len(sent_key) > 10:
                mask = sc.get("mask", "stars")
                if mask == "dots":
                    masked = sent_key[:6] + "..." + sent_key[-4:]
                elif mask == "ellipsis":
                    masked = sent_key[:6] + "\u2026" + sent_key[-4:]
                elif mask == "tail":
                    masked = "****" + sent_key[-4:]
                else:
                    masked = sent_key[:6] + "*" * 10 + sent_key[-4:]
            if provider == "anthropic":
                self.send_json(401, self.error_body(provider, "authentication_error", "invalid x-api-key"))
            else:
                self.send_json(401, self.error_body(
                    provider, "invalid_request_error",
                    "Incorrect API key provided: %s. You can find your API key at "
                    "https://platform.openai.com/account/api-keys." % masked))
            return
        if req is None:
            self.send_json(400, self.error_body(provider, "invalid_request_error", "body is not JSON"))
            return
        if s in ("e429", "date429"):
            ra = sc.get("ra", "1")
            if s == "date429":
                ra = email.utils.formatdate(time.time() + int(ra), usegmt=True)
            self.send_json(429, self.error_body(provider, "rate_limit_error", "Rate limit reached"),
                           [("Retry-After", ra)])
            return
        if s == "e500":
            self.send_json(500 if provider == "openai" else 529,
                           self.error_body(provider, "server_error", "The server had an error"))
            return
        if s == "e400":
            self.send_json(400, self.error_body(provider, "invalid_request_error",
                                                "This model's maximum context length is 8192 tokens"))
            return
        if s == "html502":
            body = b"<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"
            self.send_response(502)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return

        text = self.reply_text(req, provider, sc)
        finish = "stop"
        if s == "empty":
            text = ""
        if s == "length":
            text = text[: len(text) // 2]
            finish = "length"
        if s == "big":
            text = "x" * (17 << 20)
        if s == "nul":
            text = text.replace("__global__", "__glo\0bal__", 1)
        body = self.reply_body(provider, req, text, finish)
        usage = sc.get("usage")
        if usage:
            counts = {"neg": -5000, "huge": 10 ** 30, "hugef": 1e30, "junk": "many"}
            u = body.get("usage", {})
            for k in list(u):
                if usage == "none":
                    del u[k]
                else:
                    u[k] = counts[usage]
        data = json.dumps(body).encode()
        if s == "cut":
            # Promise the whole body, send half, hang up: the client sees a partial transfer.
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        if s == "cutjson":
            data = data[: len(data) // 2]
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def reply_text(self, req, provider, sc):
        msgs = req.get("messages", [])
        if sc.get("reply") == "tool":
            users = [m for m in msgs if m.get("role") == "user"]
            return TOOL_TURN if len(users) <= 1 else DEFAULT_REPLY
        return self.server.reply

    def reply_body(self, provider, req, text, finish):
        prompt_chars = sum(len(m.get("content", "")) for m in req.get("messages", []))
        prompt_chars += len(req.get("system", "")) if isinstance(req.get("system"), str) else 0
        pt, ct = prompt_chars // 4 + 1, len(text) // 4 + 1
        model = req.get("model", "")
        if provider == "anthropic":
            return {"id": "msg_loopback", "type": "message", "role": "assistant", "model": model,
                    "content": [{"type": "text", "text": text}],
                    "stop_reason": "max_tokens" if finish == "length" else "end_turn",
                    "usage": {"input_tokens": pt, "output_tokens": ct}}
        return {"id": "chatcmpl-loopback", "object": "chat.completion", "model": model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                             "finish_reason": finish}],
                "usage": {"prompt_tokens": pt, "completion_tokens": ct, "total_tokens": pt + ct}}


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def __init__(self, addr, key, reply, log):
        super().__init__(addr, Handler)
        self.key = key
        self.reply = reply
        self.log = open(log, "a") if log else None
        self.log_lock = threading.Lock()

    def handle_error(self, request, client_address):
        # A client that gave up (a test's time limit) closes its end: expected, not worth a traceback.
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)

    def log_request_line(self, obj):
        if self.log:
            with self.log_lock:
                self.log.write(json.dumps(obj, sort_keys=True) + "\n")
                self.log.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file", help="write the bound port here once listening")
    ap.add_argument("--key", default="", help="the key clients must send ('' accepts any)")
    ap.add_argument("--reply-file", help="answer with this text instead of the built-in reply")
    ap.add_argument("--log", help="append one JSON line per request")
    a = ap.parse_args()
    reply = DEFAULT_REPLY
    if a.reply_file:
        with open(a.reply_file) as f:
            reply = f.read()
    srv = Server(("127.0.0.1", a.port), a.key, reply, a.log)
    port = srv.server_address[1]
    if a.port_file:
        with open(a.port_file + ".tmp", "w") as f:
            f.write("%d\n" % port)
        import os
        os.rename(a.port_file + ".tmp", a.port_file)
    else:
        print(port, flush=True)
    try:
        srv.serve_forever(poll_interval=0.05)
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
