"""A minimal LSP client for the `entlc lsp` benchmarks (stdlib only): framed JSON over the
server's pipes, with the wall and processor time the server takes to answer."""
import json
import os
import subprocess
import time

ENTLC = os.environ.get("ENTLC", os.path.join(os.path.dirname(__file__), "..", ".build", "release", "entlc"))


class Server:
    def __init__(self):
        self.p = subprocess.Popen([ENTLC, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.id = 0
        self.used = 0.0

    def cpu(self):
        """Seconds of processor time the server has used so far (user and system, every thread;
        /proc counts in steps of 10 ms)."""
        with open(f"/proc/{self.p.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def send(self, obj):
        """Sends a message; the next `until` measures from here."""
        body = json.dumps(obj).encode()
        self.sent = (time.perf_counter(), self.cpu())
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()

    def receive_bytes(self):
        header = b""
        while not header.endswith(b"\r\n\r\n"):
            byte = self.p.stdout.read(1)
            if not byte:
                raise RuntimeError("the server closed its output")
            header += byte
        return self.p.stdout.read(int(header.split(b":")[1].split(b"\r")[0]))

    def receive(self):
        return json.loads(self.receive_bytes())

    def until(self, predicate):
        """Seconds from the last message sent until one satisfying `predicate` has been read
        (the client's parsing of that one not counted), and the message; the server's processor
        seconds meanwhile are left in `self.used`."""
        start, cpu = self.sent
        while True:
            body = self.receive_bytes()
            elapsed = time.perf_counter() - start
            m = json.loads(body)
            if predicate(m):
                self.used = self.cpu() - cpu
                return elapsed, m

    def request(self, method, params):
        """The result of a request and the seconds it took."""
        self.id += 1
        self.send({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params})
        seconds, m = self.until(lambda m: m.get("id") == self.id)
        if "error" in m:
            raise RuntimeError(f"{method}: {m['error']}")
        return m["result"], seconds

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def close(self):
        self.request("shutdown", None)
        self.notify("exit", None)
        self.p.wait()
