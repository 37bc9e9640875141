"""HTTP/2 scenarios against kgate with the hyper-h2 client library (Debian's python3-h2), over
one TLS connection with ALPN h2 and the admin client certificate, for tests/e2e/http2.t.

Usage: h2_client.py MODE HOST:PORT PKI_DIR [ARGS...]; prints what it saw, one "key value" per
line, and exits 0 when the mode's expectations held. Modes:
  watches N PATH READY NAME   N watch streams of PATH on one connection; once all answered 200
                              it touches READY, then waits until every stream has an event naming
                              NAME.
  slow COLLECTION N           a watch of COLLECTION whose stream window (16 KiB) is not reopened,
                              beside N creates of 2 KiB ConfigMaps in it and a LIST on the same
                              connection: they must all succeed while the watch is stalled; then
                              its window reopens and every event must come.
  goaway PATH READY           a watch of PATH and a GET answered, then a second GET sent and READY
                              touched (the caller stops the server): the GOAWAY (NO_ERROR) must
                              come, the watch end cleanly (END_STREAM, no reset), and the second
                              GET be answered unless the GOAWAY says it was never taken.
  spread N PATH               N GETs of PATH one after the other, on a new connection whenever the
                              server sent GOAWAY; prints the connections used; none may fail.
  refused PATH                one stream more than the server's SETTINGS_MAX_CONCURRENT_STREAMS,
                              each a watch of PATH: the extra one must be refused (its stream or
                              the connection ended with PROTOCOL_ERROR, or REFUSED_STREAM).
  reset PATH BODY             a POST of BODY (JSON) to PATH whose body is cut in half by a
                              RST_STREAM: the server must answer nothing for it.
"""

import os
import socket
import ssl
import sys
import time

import h2.config
import h2.connection
import h2.events
import h2.exceptions
import h2.settings
from hyperframe.frame import DataFrame, Frame, GoAwayFrame, HeadersFrame, RstStreamFrame

PROTOCOL_ERROR, REFUSED_STREAM = 1, 7


class Conn:
    """One HTTP/2 connection, and per stream its status, body, end and reset."""

    def __init__(self, hostport, pki, window=1 << 20):
        host, port = hostport.rsplit(":", 1)
        ctx = ssl.create_default_context(cafile=os.path.join(pki, "ca.crt"))
        ctx.load_cert_chain(os.path.join(pki, "admin.crt"), os.path.join(pki, "admin.key"))
        ctx.set_alpn_protocols(["h2"])
        raw = socket.create_connection((host, int(port)), timeout=30)
        self.sock = ctx.wrap_socket(raw, server_hostname=host)
        if self.sock.selected_alpn_protocol() != "h2":
            sys.exit("server did not choose h2: %r" % self.sock.selected_alpn_protocol())
        self.authority = hostport
        cfg = h2.config.H2Configuration(client_side=True, header_encoding="utf-8")
        self.h2 = h2.connection.H2Connection(config=cfg)
        self.h2.initiate_connection()
        self.h2.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: window})
        self.h2.increment_flow_control_window(16 << 20)
        self.flush()
        self.status, self.body, self.ended, self.reset = {}, {}, set(), {}
        self.held = set()  # streams whose received data is not acknowledged
        self.goaway = None
        self.raw = None  # bytes not yet parsed, once frames are read without the library

    def flush(self):
        data = self.h2.data_to_send()
        if data:
            self.sock.sendall(data)

    def request(self, method, path, body=None, end=True):
        sid = self.h2.get_next_available_stream_id()
        headers = [(":method", method), (":path", path), (":scheme", "https"),
                   (":authority", self.authority)]
        if body is not None:
            headers += [("content-type", "application/json"), ("content-length", str(len(body)))]
        self.h2.send_headers(sid, headers, end_stream=body is None and end)
        self.body[sid] = b""
        self.flush()
        return sid

    def pump(self, until, timeout=30):
        """Read and handle frames until until() is true; False on timeout or a closed socket."""
        deadline = time.monotonic() + timeout
        while not until():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(1 << 16)
            except socket.timeout:
                return False
            if not data:
                return until()
            if self.raw is not None:
                self.raw_frames(data)
                continue
            try:
                events = self.h2.receive_data(data)
            except h2.exceptions.ProtocolError:
                return until()  # the library gives up on frames after a GOAWAY
            for ev in events:
                self.handle(ev)
            self.flush()
        return True

    def go_raw(self):
        """From now on read frames without the library, starting where it stopped: the bytes of
        a frame it has only begun to read are in its buffer."""
        self.raw = self.h2.incoming_buffer.data
        self.h2.incoming_buffer.data = b""

    def raw_frames(self, data):
        """Frames read without the library's connection state: hyper-h2 takes a GOAWAY for the
        end of everything, where the streams below its last id may still finish."""
        self.raw += data
        while len(self.raw) >= 9:
            frame, length = Frame.parse_frame_header(memoryview(self.raw[:9]))
            if len(self.raw) < 9 + length:
                return
            frame.parse_body(memoryview(self.raw[9:9 + length]))
            self.raw = self.raw[9 + length:]
            sid = frame.stream_id
            if isinstance(frame, HeadersFrame):
                self.status[sid] = dict(self.h2.decoder.decode(frame.data)).get(":status")
            elif isinstance(frame, DataFrame):
                self.body[sid] = self.body.get(sid, b"") + frame.data
            elif isinstance(frame, RstStreamFrame):
                self.reset[sid] = frame.error_code
            elif isinstance(frame, GoAwayFrame):
                self.goaway = frame
            if sid and "END_STREAM" in frame.flags:
                self.ended.add(sid)

    def handle(self, ev):
        if isinstance(ev, h2.events.ResponseReceived):
            self.status[ev.stream_id] = dict(ev.headers).get(":status")
        elif isinstance(ev, h2.events.DataReceived):
            self.body[ev.stream_id] = self.body.get(ev.stream_id, b"") + ev.data
            if ev.stream_id not in self.held:
                self.h2.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
        elif isinstance(ev, h2.events.StreamEnded):
            self.ended.add(ev.stream_id)
        elif isinstance(ev, h2.events.StreamReset):
            self.reset[ev.stream_id] = ev.error_code
        elif isinstance(ev, h2.events.ConnectionTerminated):
            self.goaway = ev


def touch(path):
    open(path, "w").close()


def report(**kv):
    for k, v in kv.items():
        print(k, v, flush=True)


def watches(c, n, path, ready, name):
    sids = [c.request("GET", path) for _ in range(int(n))]
    ok = c.pump(lambda: all(s in c.status for s in sids))
    report(answered=sum(1 for s in sids if c.status.get(s) == "200"))
    touch(ready)
    got = lambda: sum(1 for s in sids if name.encode() in c.body[s])
    c.pump(lambda: got() == len(sids), timeout=60)
    report(delivered=got(), reset=len(c.reset))
    return ok and got() == len(sids) and not c.reset


def slow(c, coll, n):
    watch = c.request("GET", coll + "?watch=1")
    c.held.add(watch)
    c.pump(lambda: watch in c.status)
    created = 0
    for i in range(int(n)):
        body = ('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"slow-%d"},'
                '"data":{"pad":"%s"}}' % (i, "x" * 2048)).encode()
        sid = c.request("POST", coll, body=body)
        c.h2.send_data(sid, body, end_stream=True)
        c.flush()
        if not c.pump(lambda: sid in c.ended or sid in c.reset) or c.status.get(sid) != "201":
            break
        created += 1
    listed = c.request("GET", coll)
    c.pump(lambda: listed in c.ended or listed in c.reset)
    stalled = len(c.body[watch])
    # Reopen the watch's window: every event must come.
    c.held.discard(watch)
    c.h2.acknowledge_received_data(stalled, watch)
    c.flush()
    got = lambda: c.body[watch].count(b'"type":"ADDED"')
    c.pump(lambda: got() >= int(n) or watch in c.ended or watch in c.reset, timeout=30)
    report(created=created, list_status=c.status.get(listed), stalled_bytes=stalled,
           events=got(), watch_reset=c.reset.get(watch))
    return (created == int(n) and c.status.get(listed) == "200" and stalled < 64 * 1024 and
            got() >= int(n) and watch not in c.reset)


def goaway(c, path, ready):
    watch = c.request("GET", path)
    c.pump(lambda: watch in c.status)
    c.go_raw()
    get = c.request("GET", path.split("?")[0])
    c.pump(lambda: get in c.status)
    get2 = c.request("GET", path.split("?")[0])
    touch(ready)
    c.pump(lambda: c.goaway is not None and watch in c.ended | set(c.reset) and
           get in c.ended | set(c.reset) and
           (get2 in c.ended | set(c.reset) or get2 > c.goaway.last_stream_id), timeout=60)
    report(goaway=c.goaway is not None,
           goaway_code=c.goaway.error_code if c.goaway else None,
           watch_ended=watch in c.ended, watch_reset=c.reset.get(watch),
           get_status=c.status.get(get), get_ended=get in c.ended,
           get2_status=c.status.get(get2), get2_reset=c.reset.get(get2))
    return (c.goaway is not None and c.goaway.error_code == 0 and watch in c.ended and
            watch not in c.reset and c.status.get(get) == "200" and get in c.ended and
            (c.status.get(get2) == "200" or get2 > c.goaway.last_stream_id))


def spread(hostport, pki, n, path):
    conns, failed, c = 0, 0, None
    for _ in range(int(n)):
        if c is None or c.goaway is not None:
            c = Conn(hostport, pki)
            conns += 1
        sid = c.request("GET", path)
        if not c.pump(lambda: sid in c.ended or sid in c.reset or c.goaway is not None) or \
                c.status.get(sid) != "200" or sid not in c.ended:
            failed += 1
    report(connections=conns, failed=failed)
    return failed == 0


def refused(c, path):
    c.pump(lambda: c.h2.remote_settings.max_concurrent_streams < 1 << 31)
    limit = c.h2.remote_settings.max_concurrent_streams
    # The library keeps to the server's limit; step past it to see what the server does.
    c.h2.remote_settings._settings[h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS].appendleft(
        limit + 1)
    sids = [c.request("GET", path) for _ in range(limit)]
    c.pump(lambda: all(s in c.status for s in sids))
    answered = sum(1 for s in sids if c.status.get(s) == "200")
    extra = c.request("GET", path)
    c.pump(lambda: extra in c.status or extra in c.reset or c.goaway is not None)
    # RFC 9113 5.1.2: a stream error (Go's server) or, as nghttp2 treats it, a connection
    # error; either way PROTOCOL_ERROR (or REFUSED_STREAM before the limit is acknowledged),
    # and the extra stream never served.
    goaway = c.goaway.error_code if c.goaway is not None else None
    report(limit=limit, answered=answered, extra_status=c.status.get(extra),
           extra_reset=c.reset.get(extra), goaway=goaway)
    return (answered == limit and extra not in c.status and
            (c.reset.get(extra) in (PROTOCOL_ERROR, REFUSED_STREAM) or goaway == PROTOCOL_ERROR))


def reset(c, path, body):
    data = body.encode()
    sid = c.request("POST", path, body=data)
    c.h2.send_data(sid, data[: len(data) // 2])
    c.h2.reset_stream(sid, error_code=8)  # CANCEL
    c.flush()
    # Anything the server sends for the stream after the reset is a failure.
    c.pump(lambda: False, timeout=2)
    report(status=c.status.get(sid))
    return sid not in c.status


def main():
    mode, hostport, pki, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    if mode == "spread":
        ok = spread(hostport, pki, *args)
    else:
        c = Conn(hostport, pki, window=16384 if mode == "slow" else 1 << 20)
        ok = {"watches": watches, "slow": slow, "goaway": goaway, "refused": refused,
              "reset": reset}[mode](c, *args)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
