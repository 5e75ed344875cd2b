# SPDX-License-Identifier: Apache-2.0
"""A TCP proxy on loopback that can cut its traffic, for the partition test.

    proxy = TcpProxy(("127.0.0.1", apiserver_port)); proxy.start()
    ... point a client at https://127.0.0.1:{proxy.port} ...
    proxy.cut()      # a partition: bytes are swallowed, connections stay open (no RST, no FIN),
                     # new connections are accepted and then ignored, as a dropped route would
    proxy.heal()     # the route is back: the connections of before are closed (their streams
                     # lost bytes), and new ones are forwarded again
    proxy.close()

Only loopback addresses: it forwards to the test cluster's apiserver on this machine.
"""
import socket
import threading


class TcpProxy:
    def __init__(self, target, listen_host="127.0.0.1"):
        if not target[0].startswith("127.") and target[0] != "localhost":
            raise ValueError(f"tcpproxy forwards to loopback only, not {target[0]}")
        self.target = target
        self._server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._server.bind((listen_host, 0))
        self._server.listen(64)
        self.port = self._server.getsockname()[1]
        self._cut = threading.Event()
        self._closed = threading.Event()
        self._sockets = []
        self._lock = threading.Lock()

    def start(self):
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def cut(self):
        self._cut.set()

    def heal(self):
        # shutdown() first: it wakes a pump blocked in recv() and sends the FIN that close()
        # alone would not while another thread is in recv() on the socket.
        with self._lock:  # with _accept's check of the cut: no connection falls in between
            self._cut.clear()
            sockets, self._sockets = self._sockets, []
        for s in sockets:
            for end in (lambda: s.shutdown(socket.SHUT_RDWR), s.close):
                try:
                    end()
                except OSError:
                    pass

    def close(self):
        self._closed.set()
        self._server.close()
        with self._lock:
            for s in self._sockets:
                try:
                    s.close()
                except OSError:
                    pass

    def _track(self, s):
        with self._lock:
            self._sockets.append(s)

    def _accept(self):
        while not self._closed.is_set():
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            with self._lock:
                self._sockets.append(client)
                cut = self._cut.is_set()
            if cut:
                continue  # accepted, never answered
            try:
                upstream = socket.create_connection(self.target, timeout=5)
                upstream.settimeout(None)
            except OSError:
                client.close()
                continue
            self._track(upstream)
            threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client), daemon=True).start()

    def _pump(self, src, dst):
        while not self._closed.is_set():
            try:
                data = src.recv(65536)
            except OSError:
                break
            if not data:
                break
            if self._cut.is_set():
                continue  # swallowed
            try:
                dst.sendall(data)
            except OSError:
                break
        if not self._cut.is_set():
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
