#!/usr/bin/env python3
# The credential door's test upstream (test_door.sh): HTTPS on 127.0.0.1
# with a certificate of the test's own CA.  Every request's x-api-key is
# appended to LOG.  Paths: /echo-key answers with the key in a header
# (X-Echo), /sse streams three events 300 ms apart (chunked, each with the
# upstream's send time), anything else answers "ok" and the body length.
#   door_up.py CERT KEY PORT LOG
import http.server, ssl, sys, time

cert, key, port, log = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]


class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # the upstream streams as it writes

    def note(self):
        with open(log, "a") as f:
            f.write("%s %s key=%s\n" % (self.command, self.path,
                                        self.headers.get("x-api-key", "")))

    def body(self):
        if self.headers.get("Transfer-Encoding") == "chunked":
            data = b""
            while True:
                n = int(self.rfile.readline().strip(), 16)
                if n == 0:
                    self.rfile.readline()
                    return data
                data += self.rfile.read(n)
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def answer(self, text, extra=()):
        b = text.encode()
        self.send_response(200)
        for k, v in extra:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(b)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(b)

    def do_GET(self):
        self.note()
        if self.path.startswith("/sse"):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Connection", "close")
            self.end_headers()
            for i in range(3):
                d = ("data: %d %.6f\n\n" % (i, time.time())).encode()
                self.wfile.write(b"%x\r\n%s\r\n" % (len(d), d))
                self.wfile.flush()
                time.sleep(0.3)
            self.wfile.write(b"0\r\n\r\n")
            return
        if self.path.startswith("/echo-key"):
            self.answer("echoed\n",
                        [("X-Echo", self.headers.get("x-api-key", ""))])
            return
        self.answer("ok\n")

    def do_POST(self):
        self.note()
        self.answer("ok %d\n" % len(self.body()))

    def log_message(self, *a):
        pass


s = http.server.ThreadingHTTPServer(("127.0.0.1", port), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
s.socket = ctx.wrap_socket(s.socket, server_side=True)
s.serve_forever()
