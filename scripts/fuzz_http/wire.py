"""HTTP/1.1 over a raw socket: send exactly the bytes given, read one reply with a deadline."""
import socket
import time


class NoAnswer(Exception):
    """The server closed the connection (or reset it) before a complete reply."""


class Hang(Exception):
    """No complete reply head within the deadline."""


class Reply:
    __slots__ = ("status", "headers", "body", "streamed")

    def __init__(self, status, headers, body, streamed):
        self.status, self.headers, self.body, self.streamed = status, headers, body, streamed

    def header(self, name):
        return self.headers.get(name.lower())

    def json(self):
        import json
        try:
            return json.loads(self.body)
        except ValueError:
            return None


class Connection:
    """One keep-alive connection to 127.0.0.1:`port`; reconnects after the server closed it.

    Streamed replies (`text/event-stream`) are read up to their head, then the connection is
    closed: their body never ends. Other bodies are read whole (Content-Length or chunked).
    """

    def __init__(self, port, deadline_seconds):
        self.port, self.deadline = port, deadline_seconds
        self.sock, self.buffer = None, b""

    def close(self):
        if self.sock is not None:
            try:
                self.sock.close()
            except OSError:
                pass
        self.sock, self.buffer = None, b""

    def exchange(self, raw, method):
        """Sends `raw` (a whole request) and returns its `Reply`; raises `NoAnswer` or `Hang`."""
        if self.sock is None:
            self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=self.deadline)
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        end = time.monotonic() + self.deadline
        try:
            self.sock.sendall(raw)
        except (BrokenPipeError, ConnectionResetError):
            # The server may answer early (413) and close while we still send: read that reply.
            pass
        except socket.timeout:
            self.close()
            raise Hang("sending the request took longer than the deadline")
        try:
            return self._read_reply(method, end)
        except (NoAnswer, Hang):
            self.close()
            raise

    def _receive(self, end):
        remaining = end - time.monotonic()
        if remaining <= 0:
            raise Hang("no complete reply within the deadline")
        self.sock.settimeout(remaining)
        try:
            chunk = self.sock.recv(262144)
        except socket.timeout:
            raise Hang("no complete reply within the deadline")
        except (ConnectionResetError, OSError) as error:
            raise NoAnswer(str(error))
        if not chunk:
            raise NoAnswer("connection closed")
        self.buffer += chunk

    def _until(self, marker, end):
        start = 0
        while True:
            index = self.buffer.find(marker, start)
            if index >= 0:
                return index
            start = max(0, len(self.buffer) - len(marker) + 1)
            self._receive(end)

    def _take(self, count, end):
        while len(self.buffer) < count:
            self._receive(end)
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def _read_reply(self, method, end):
        head_end = self._until(b"\r\n\r\n", end)
        head = self.buffer[:head_end].decode("latin-1")
        self.buffer = self.buffer[head_end + 4:]
        lines = head.split("\r\n")
        parts = lines[0].split(" ", 2)
        if len(parts) < 2 or not parts[1].isdigit():
            raise NoAnswer("malformed status line: " + lines[0][:100])
        status = int(parts[1])
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if (headers.get("content-type") or "").startswith("text/event-stream"):
            self.close()
            return Reply(status, headers, b"", True)
        body = b""
        if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
            pass
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            chunks = []
            while True:
                line_end = self._until(b"\r\n", end)
                size_text = self.buffer[:line_end].split(b";")[0].strip()
                self.buffer = self.buffer[line_end + 2:]
                try:
                    size = int(size_text, 16)
                except ValueError:
                    raise NoAnswer("malformed chunk size")
                data = self._take(size + 2, end)
                if size == 0:
                    # Trailers end with an empty line; MHD sends none, so CRLF was just read.
                    break
                chunks.append(data[:size])
            body = b"".join(chunks)
        elif "content-length" in headers:
            body = self._take(int(headers["content-length"]), end)
        else:
            # Neither: the body runs to the end of the connection.
            while True:
                try:
                    self._receive(end)
                except NoAnswer:
                    break
            body, self.buffer = self.buffer, b""
            self.close()
        if headers.get("connection", "").lower() == "close":
            self.close()
        return Reply(status, headers, body, False)


def build(method, target, headers, body):
    """The bytes of a request: `headers` is a list of (name, value) pairs, sent as given."""
    lines = [f"{method} {target} HTTP/1.1", "Host: 127.0.0.1"]
    lines += [f"{name}: {value}" for name, value in headers]
    if body is not None and not any(name.lower() in ("content-length", "transfer-encoding") for name, _ in headers):
        lines.append(f"Content-Length: {len(body)}")
    head = ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8", "surrogateescape")
    return head + (body or b"")
