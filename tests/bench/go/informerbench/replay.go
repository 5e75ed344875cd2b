// SPDX-License-Identifier: Apache-2.0
// informerbench replay: a watch replay peer in front of the real kube-apiserver, for the
// latency runs at rates the apiserver and etcd cannot write on the benchmark machine (run 6:
// ~1,000 patches a second on two cores, while issue 15 asks for 5,000 events a second).
//
//	informerbench replay -kubeconfig K -namespace NS [-listen 127.0.0.1:0]
//	    prints "LISTENING <url> <token> <CA, base64 PEM>", then reads commands on stdin:
//	    "send M R W": waits (10 s at most) until W watches of the namespace's ConfigMaps are
//	    live, sends M MODIFIED events at R a second to every one of them, and prints
//	    {"updates":..,"seconds":..,"rate":..,"late":..,"watchers":..,"cut":..} (cut: watches
//	    dropped for falling 2^18 frames behind)
//
// Every request is a read of the real server, forwarded with K's credentials, except the
// live part of a watch of NS's ConfigMaps: the request goes to the apiserver too, its initial
// events (sendInitialEvents=true) and their bookmark are relayed as they come, and from then
// on (at once for a plain watch) the watch receives the replay's events instead of the
// server's. Each event is a ConfigMap of the namespace as the server sent it at start, with
// data.ts set to the Unix ns at which the event is made and a resourceVersion above the
// server's; it is encoded once and written to every watch, each from its own goroutine, with
// a flush when no more is queued (as the apiserver's watch handler flushes). So the latency a
// side records is its own event path, from the bytes on loopback to its handler, with the
// server's write path (etcd, the watch cache) taken out.
//
// The wire: JSON only (Accept is rewritten to application/json, so client-go's default typed
// informer decodes JSON here), HTTPS on loopback with a self-signed certificate made at start
// (Go's server offers HTTP/2, as the apiserver does). The listener takes only GETs that carry
// the bearer token it printed (a new random one each start), so it lends K's credentials to no
// one else on the machine (docs/security.md).
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	mrand "math/rand"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
)

// Frames a slow watch may have queued before it is cut off (more than a whole run's events at
// 20,000/s for 10 s, the throughput sweep's last step): a side that falls that far behind fails
// its run rather than stall the others.
const replayQueueFrames = 1 << 18

const (
	tsPlaceholder = "QCMREPLAYTS"
	rvPlaceholder = "QCMREPLAYRV"
)

type replayWatch struct {
	out    chan []byte
	cancel context.CancelFunc
}

type replayServer struct {
	upstream  *url.URL
	transport http.RoundTripper
	token     string
	path      string   // /api/v1/namespaces/NS/configmaps
	templates [][]byte // one MODIFIED frame per ConfigMap, with the two placeholders
	baseRV    int64

	mu      sync.Mutex
	watches map[*replayWatch]struct{}
}

func replay(args []string) {
	var c common
	fs := c.flags("replay")
	listen := fs.String("listen", "127.0.0.1:0", "address to listen on (loopback)")
	fs.Parse(args)
	config := c.config()
	transport, err := rest.TransportFor(config)
	if err != nil {
		fail("%v", err)
	}
	upstream, err := url.Parse(config.Host)
	if err != nil {
		fail("kubeconfig server %q: %v", config.Host, err)
	}
	key := make([]byte, 16)
	if _, err := rand.Read(key); err != nil {
		fail("token: %v", err)
	}
	s := &replayServer{upstream: upstream, transport: transport, token: hex.EncodeToString(key),
		path: "/api/v1/namespaces/" + c.namespace + "/configmaps", watches: map[*replayWatch]struct{}{}}
	s.snapshot(c.rawGetter("application/json"))

	listener, err := net.Listen("tcp", *listen)
	if err != nil {
		fail("listen %s: %v", *listen, err)
	}
	if !listener.Addr().(*net.TCPAddr).IP.IsLoopback() {
		fail("replay listens on loopback only, not %s", listener.Addr())
	}
	certificate, caPEM := replayCertificate()
	server := &http.Server{Handler: s, TLSConfig: &tls.Config{Certificates: []tls.Certificate{certificate}}}
	go func() { fail("serve: %v", server.ServeTLS(listener, "", "")) }()
	fmt.Printf("LISTENING https://%s %s %s\n", listener.Addr(), s.token,
		base64.StdEncoding.EncodeToString(caPEM))

	input := bufio.NewScanner(os.Stdin)
	for input.Scan() {
		var updates, watchers int
		var rate float64
		if n, _ := fmt.Sscanf(input.Text(), "send %d %g %d", &updates, &rate, &watchers); n != 3 ||
			updates <= 0 || rate <= 0 || watchers <= 0 {
			fail("replay: command %q: expected \"send UPDATES RATE WATCHERS\"", input.Text())
		}
		s.send(updates, rate, watchers)
	}
}

// replayCertificate makes a self-signed serving certificate for 127.0.0.1, new each start
// (client-go's kubeconfig loader sends a token over TLS only). Returns it and its PEM.
func replayCertificate() (tls.Certificate, []byte) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		fail("replay: key: %v", err)
	}
	template := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "informerbench replay"},
		NotBefore: time.Now().Add(-time.Minute), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, IsCA: true,
		BasicConstraintsValid: true, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		fail("replay: certificate: %v", err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key},
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// snapshot reads the namespace's ConfigMaps once, as a WatchList stream, and makes each one's
// event template from the server's own frame: its ADDED made MODIFIED, its resourceVersion
// and data.ts (added where it has none) made placeholders. So the replayed frames are the
// server's bytes, field order included.
func (s *replayServer) snapshot(get func(query url.Values, gzip bool) (*http.Response, error)) {
	response, err := get(watchListQuery(), false)
	if err != nil || response.StatusCode != 200 {
		fail("replay: WatchList of %s: %v %v", s.path, err, response)
	}
	defer response.Body.Close()
	reader := bufio.NewReaderSize(response.Body, 1<<20)
	added := []byte(`{"type":"ADDED",`)
	for {
		line, err := reader.ReadSlice('\n')
		if err != nil {
			fail("replay: WatchList of %s ended before its bookmark: %v", s.path, err)
		}
		if isInitialEventsEnd(line) {
			m := resourceVersionField.FindSubmatch(line)
			if m == nil {
				fail("replay: the bookmark has no resourceVersion: %s", line)
			}
			s.baseRV, err = strconv.ParseInt(string(m[1]), 10, 64)
			if err != nil {
				fail("replay: bookmark resourceVersion %q: %v", m[1], err)
			}
			break
		}
		if !bytes.HasPrefix(line, added) {
			fail("replay: unexpected frame in the initial events: %.200s", line)
		}
		frame := append([]byte(`{"type":"MODIFIED",`), line[len(added):]...)
		if !resourceVersionField.Match(frame) {
			fail("replay: an object without resourceVersion: %.200s", line)
		}
		frame = replaceFirst(resourceVersionField, frame, `"resourceVersion":"`+rvPlaceholder+`"`)
		if tsField.Match(frame) {
			frame = replaceFirst(tsField, frame, `"ts":"`+tsPlaceholder+`"`)
		} else if i := bytes.Index(frame, []byte(`"data":{`)); i >= 0 {
			at := i + len(`"data":{`)
			frame = append(frame[:at:at], append([]byte(`"ts":"`+tsPlaceholder+`",`), frame[at:]...)...)
		} else {
			fail("replay: a ConfigMap without data: %.200s", line)
		}
		s.templates = append(s.templates, frame)
	}
	if len(s.templates) == 0 {
		fail("replay: %s holds no ConfigMaps", s.path)
	}
}

// isInitialEventsEnd: the JSON watch line is the bookmark that ends a WatchList's initial
// events.
func isInitialEventsEnd(line []byte) bool {
	return bytes.HasPrefix(line, []byte(`{"type":"BOOKMARK",`)) &&
		bytes.Contains(line, []byte(`"k8s.io/initial-events-end":"true"`))
}

var (
	resourceVersionField = regexp.MustCompile(`"resourceVersion":"([0-9]+)"`)
	tsField              = regexp.MustCompile(`"ts":"[0-9]*"`)
)

func replaceFirst(re *regexp.Regexp, b []byte, with string) []byte {
	loc := re.FindIndex(b)
	return append(append(append([]byte(nil), b[:loc[0]]...), with...), b[loc[1]:]...)
}

func (s *replayServer) upstreamURL(path, query string) string {
	u := *s.upstream
	u.Path = path
	u.RawQuery = query
	return u.String()
}

func (s *replayServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	given := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	if subtle.ConstantTimeCompare([]byte(given), []byte(s.token)) != 1 {
		http.Error(w, "replay: no valid bearer token", http.StatusUnauthorized)
		return
	}
	if r.Method != "GET" {
		http.Error(w, "replay: only GET", http.StatusMethodNotAllowed)
		return
	}
	r.Header.Del("Authorization")
	r.Header.Set("Accept", "application/json")
	query := r.URL.Query()
	if r.URL.Path == s.path && (query.Get("watch") == "1" || query.Get("watch") == "true") {
		s.serveWatch(w, r, query.Get("sendInitialEvents") == "true")
		return
	}
	proxy := &httputil.ReverseProxy{
		Transport:     s.transport,
		FlushInterval: -1,
		Rewrite: func(p *httputil.ProxyRequest) {
			p.SetURL(s.upstream)
			p.Out.Host = s.upstream.Host
		},
	}
	proxy.ServeHTTP(w, r)
}

// serveWatch opens the same watch on the apiserver, relays its initial events up to the
// initial-events-end bookmark (when asked for), then registers the watch for the replay's
// events; the server's later frames are read and dropped.
func (s *replayServer) serveWatch(w http.ResponseWriter, r *http.Request, initialEvents bool) {
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	request, _ := http.NewRequestWithContext(ctx, "GET", s.upstreamURL(r.URL.Path, r.URL.RawQuery), nil)
	request.Header = r.Header.Clone()
	response, err := s.transport.RoundTrip(request)
	if err != nil {
		http.Error(w, "replay: upstream: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer response.Body.Close()
	if response.StatusCode != 200 {
		for name, values := range response.Header {
			w.Header()[name] = values
		}
		w.WriteHeader(response.StatusCode)
		bufio.NewReader(response.Body).WriteTo(w)
		return
	}
	watch := &replayWatch{out: make(chan []byte, replayQueueFrames), cancel: cancel}
	defer s.unregister(watch)
	if !initialEvents {
		s.register(watch)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(200)
	flusher := w.(http.Flusher)
	flusher.Flush()

	go func() {
		defer cancel()
		reader := bufio.NewReaderSize(response.Body, 1<<20)
		live := !initialEvents
		for {
			line, err := reader.ReadSlice('\n')
			if err != nil {
				return // the server ended the watch (or the request ended): end it downstream
			}
			if live {
				continue
			}
			watch.out <- append([]byte(nil), line...)
			if isInitialEventsEnd(line) {
				s.register(watch)
				live = true
			}
		}
	}()
	for {
		select {
		case frame := <-watch.out:
			if _, err := w.Write(frame); err != nil {
				return
			}
			if len(watch.out) == 0 {
				flusher.Flush()
			}
		case <-ctx.Done():
			return // the client left, the server ended the watch, or send cut it off
		}
	}
}

func (s *replayServer) register(watch *replayWatch) {
	s.mu.Lock()
	s.watches[watch] = struct{}{}
	s.mu.Unlock()
}

func (s *replayServer) unregister(watch *replayWatch) {
	s.mu.Lock()
	delete(s.watches, watch)
	s.mu.Unlock()
}

func (s *replayServer) live() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.watches)
}

// send makes the events, paced by the clock (event k is due at start + k/rate), over every
// ConfigMap once in random order, then again in another.
func (s *replayServer) send(updates int, rate float64, watchers int) {
	for deadline := time.Now().Add(10 * time.Second); s.live() < watchers; {
		if time.Now().After(deadline) {
			fail("replay: %d live watches after 10 s, expected %d", s.live(), watchers)
		}
		time.Sleep(10 * time.Millisecond)
	}
	rng := mrand.New(mrand.NewSource(time.Now().UnixNano()))
	var order []int
	start := time.Now()
	late, cut := 0, 0
	for k := 0; k < updates; k++ {
		if len(order) == 0 {
			order = rng.Perm(len(s.templates))
		}
		i := order[0]
		order = order[1:]
		due := start.Add(time.Duration(float64(k) / rate * float64(time.Second)))
		if wait := time.Until(due); wait > 0 {
			time.Sleep(wait)
		} else if wait < -50*time.Millisecond {
			late++
		}
		s.baseRV++
		frame := bytes.Replace(s.templates[i], []byte(rvPlaceholder),
			[]byte(strconv.FormatInt(s.baseRV, 10)), 1)
		frame = bytes.Replace(frame, []byte(tsPlaceholder),
			[]byte(strconv.FormatInt(time.Now().UnixNano(), 10)), 1)
		s.mu.Lock()
		for watch := range s.watches {
			select {
			case watch.out <- frame:
			default:
				cut++
				delete(s.watches, watch)
				watch.cancel()
			}
		}
		s.mu.Unlock()
	}
	elapsed := time.Since(start).Seconds()
	printJSON(map[string]interface{}{"updates": updates, "seconds": elapsed,
		"rate": float64(updates) / elapsed, "late": late, "watchers": s.live(), "cut": cut})
}
