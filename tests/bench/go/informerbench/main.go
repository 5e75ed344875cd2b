// SPDX-License-Identifier: Apache-2.0
// informerbench: client-go's side of tests/bench/bench_informer.cpp, and the tools that load
// and drive the cluster both sides are measured against. run_bench.py --qcm-informer runs it.
//
//	informerbench load    -kubeconfig K -namespace NS -kind configmaps|pods -count N
//	    creates the objects that are missing (named cm-00000... or pod-00000...), concurrently,
//	    and prints {"created":..,"seconds":..,"avgBytes":..} (avgBytes: JSON as served)
//	informerbench sync    -kubeconfig K -namespace NS -kind K -expect N
//	                      [-client typed|dynamic] [-protobuf|-json] [-trace] [-settle D]
//	    cold sync of one informer, with one handler; prints the figures as JSON
//	informerbench latency -kubeconfig K -namespace NS -expect N -updates M [-client ...]
//	    syncs a ConfigMap informer, prints READY, then records (now - data.ts) in its update
//	    handler for M updates and prints p50/p99 as JSON; -client watch uses a bare watch
//	    instead of an informer, -client raw reads the JSON watch stream without decoding it
//	informerbench update  -kubeconfig K -namespace NS -count N -updates M -rate R
//	    M merge patches at R per second over the N ConfigMaps, each setting data.ts to the
//	    wall-clock time (Unix ns) at which it is sent
//	informerbench floor   -kubeconfig K -namespace NS -kind K [-protobuf] [-trace]
//	    how long the server alone takes to send the whole collection, read as raw bytes over
//	    client-go's transport and not decoded: paged lists of 500 as an informer asks for them
//	    (resourceVersion 0, with and without gzip) and a WatchList stream up to its
//	    initial-events-end bookmark. A floor for any client's cold sync.
//	informerbench replay  -kubeconfig K -namespace NS
//	    a watch replay peer in front of the apiserver for latency at rates it cannot write
//	    (replay.go)
//
// Encoding: client-go v0.37's generated clients ask for protobuf first
// (application/vnd.kubernetes.protobuf,application/json) unless the config sets a content
// type, so -client typed receives protobuf by default; -json asks for JSON only, qcm's
// encoding. -trace prints each request's line and headers and the response's status and
// headers to stderr.
//
// Memory and CPU come from the process itself: VmRSS and VmHWM (peak RSS) in
// /proc/self/status, CPU time from getrusage. Client-side rate limiting is off (QPS < 0) on
// every client, as on the qcm side, so that the figures measure the informer, not a throttle.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "informerbench: "+format+"\n", args...)
	os.Exit(1)
}

type common struct {
	kubeconfig, namespace, kind, client string
	protobuf, json, trace               bool
}

// The flags of one command: the common ones, registered on a new set.
func (c *common) flags(command string) *flag.FlagSet {
	fs := flag.NewFlagSet(command, flag.ExitOnError)
	c.register(fs)
	return fs
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.kubeconfig, "kubeconfig", "", "kubeconfig file")
	fs.StringVar(&c.namespace, "namespace", "", "namespace")
	fs.StringVar(&c.kind, "kind", "configmaps", "configmaps or pods")
	fs.StringVar(&c.client, "client", "typed",
		"typed (clientset informers) or dynamic; latency also takes watch (no informer)")
	fs.BoolVar(&c.protobuf, "protobuf", false, "ask for protobuf (typed client only)")
	fs.BoolVar(&c.json, "json", false,
		"ask for JSON only (client-go's generated clients ask for protobuf first by default)")
	fs.BoolVar(&c.trace, "trace", false,
		"print each request and its response's status line and headers to stderr")
}

// tracer prints what goes over the wire, so that two clients' requests can be compared.
type tracer struct{ next http.RoundTripper }

func (t tracer) RoundTrip(request *http.Request) (*http.Response, error) {
	fmt.Fprintf(os.Stderr, "> %s %s\n", request.Method, request.URL)
	for name, values := range request.Header {
		if name != "Authorization" {
			fmt.Fprintf(os.Stderr, ">   %s: %s\n", name, strings.Join(values, ", "))
		}
	}
	response, err := t.next.RoundTrip(request)
	if err != nil {
		fmt.Fprintf(os.Stderr, "< error %v\n", err)
		return response, err
	}
	fmt.Fprintf(os.Stderr, "< %s %s\n", response.Proto, response.Status)
	for name, values := range response.Header {
		fmt.Fprintf(os.Stderr, "<   %s: %s\n", name, strings.Join(values, ", "))
	}
	return response, err
}

func (c *common) config() *rest.Config {
	config, err := clientcmd.BuildConfigFromFlags("", c.kubeconfig)
	if err != nil {
		fail("kubeconfig %s: %v", c.kubeconfig, err)
	}
	config.QPS = -1 // no client-side rate limit
	if c.trace {
		config.Wrap(func(next http.RoundTripper) http.RoundTripper { return tracer{next} })
	}
	if c.protobuf {
		if c.client != "typed" {
			fail("-protobuf needs -client typed")
		}
		config.ContentType = "application/vnd.kubernetes.protobuf"
		config.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	}
	if c.json {
		if c.protobuf {
			fail("-json and -protobuf exclude each other")
		}
		config.ContentType = "application/json"
		config.AcceptContentTypes = "application/json"
	}
	return config
}

func (c *common) gvr() schema.GroupVersionResource {
	switch c.kind {
	case "configmaps", "pods":
		return schema.GroupVersionResource{Version: "v1", Resource: c.kind}
	}
	fail("unknown -kind %q", c.kind)
	return schema.GroupVersionResource{}
}

// The informer the benchmark measures: the clientset's shared informer factory (typed) or
// the dynamic one (unstructured), for one namespace, without resync.
func (c *common) informer(stop <-chan struct{}) (cache.SharedIndexInformer, func()) {
	config := c.config()
	switch c.client {
	case "typed":
		clientset := kubernetes.NewForConfigOrDie(config)
		factory := informers.NewSharedInformerFactoryWithOptions(clientset, 0,
			informers.WithNamespace(c.namespace))
		var informer cache.SharedIndexInformer
		switch c.kind {
		case "configmaps":
			informer = factory.Core().V1().ConfigMaps().Informer()
		case "pods":
			informer = factory.Core().V1().Pods().Informer()
		default:
			c.gvr()
		}
		return informer, func() { factory.Start(stop) }
	case "dynamic":
		factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(
			dynamic.NewForConfigOrDie(config), 0, c.namespace, nil)
		informer := factory.ForResource(c.gvr()).Informer()
		return informer, func() { factory.Start(stop) }
	}
	fail("unknown -client %q", c.client)
	return nil, nil
}

// VmRSS and VmHWM of this process, in KiB.
func memory() (rss, hwm int64) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		fail("%v", err)
	}
	defer f.Close()
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		fields := strings.Fields(scanner.Text())
		if len(fields) < 2 {
			continue
		}
		value, _ := strconv.ParseInt(fields[1], 10, 64)
		switch fields[0] {
		case "VmRSS:":
			rss = value
		case "VmHWM:":
			hwm = value
		}
	}
	return
}

func cpuSeconds() float64 {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		fail("getrusage: %v", err)
	}
	return time.Duration(usage.Utime.Nano() + usage.Stime.Nano()).Seconds()
}

func printJSON(v interface{}) {
	out, err := json.Marshal(v)
	if err != nil {
		fail("%v", err)
	}
	fmt.Println(string(out))
}

func gzipReader(body []byte) (io.Reader, error) { return gzip.NewReader(bytes.NewReader(body)) }

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// ---- load ----------------------------------------------------------------------------------

const payloadAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// About 1 KB as served: 640 bytes of data plus metadata (uid, timestamps, managedFields...).
func configMap(namespace string, i int, rng *rand.Rand) *corev1.ConfigMap {
	payload := make([]byte, 640)
	for j := range payload {
		payload[j] = payloadAlphabet[rng.Intn(len(payloadAlphabet))]
	}
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("cm-%05d", i), Namespace: namespace,
			Labels: map[string]string{"app": "bench", "shard": strconv.Itoa(i % 16)},
		},
		Data: map[string]string{"payload": string(payload), "ts": "0"},
	}
}

// A Pod as a Deployment would make it, created straight through the API: nothing schedules
// it, so it stays Pending with the defaults the apiserver fills in.
func pod(namespace string, i int) *corev1.Pod {
	controller := true
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("pod-%05d", i), Namespace: namespace,
			Labels: map[string]string{"app": "nginx", "pod-template-hash": "7b88ccfd76",
				"shard": strconv.Itoa(i % 16)},
			Annotations: map[string]string{"example.com/revision": strconv.Itoa(i)},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet",
				Name: "nginx-deployment-7b88ccfd76", UID: "c9f927f9-8f7a-43c4-a100-b4bdf306dd93",
				Controller: &controller, BlockOwnerDeletion: &controller}},
		},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name: "nginx", Image: "nginx:1.14.2",
				Ports: []corev1.ContainerPort{{ContainerPort: 80, Protocol: corev1.ProtocolTCP}},
				Env: []corev1.EnvVar{{Name: "POD_INDEX", Value: strconv.Itoa(i)},
					{Name: "MODE", Value: "production"}},
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{
						corev1.ResourceCPU:    resource.MustParse("10m"),
						corev1.ResourceMemory: resource.MustParse("64Mi")},
					Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("128Mi")},
				},
				VolumeMounts: []corev1.VolumeMount{{Name: "cache", MountPath: "/var/cache/nginx"}},
			}},
			Volumes: []corev1.Volume{{Name: "cache",
				VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
		},
	}
}

func load(args []string) {
	var c common
	fs := c.flags("load")
	count := fs.Int("count", 10000, "objects")
	workers := fs.Int("workers", 32, "concurrent creates")
	fs.Parse(args)
	clientset := kubernetes.NewForConfigOrDie(c.config())
	ctx := context.Background()
	start := time.Now()

	_, err := clientset.CoreV1().Namespaces().Create(ctx,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: c.namespace}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		fail("namespace %s: %v", c.namespace, err)
	}
	// What is there already (a re-run creates only what is missing).
	existing := map[string]bool{}
	dyn := dynamic.NewForConfigOrDie(c.config()).Resource(c.gvr()).Namespace(c.namespace)
	options := metav1.ListOptions{Limit: 5000}
	for {
		list, err := dyn.List(ctx, options)
		if err != nil {
			fail("list: %v", err)
		}
		for _, item := range list.Items {
			existing[item.GetName()] = true
		}
		if options.Continue = list.GetContinue(); options.Continue == "" {
			break
		}
	}

	indices := make(chan int)
	var created atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < *workers; w++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(seed))
			for i := range indices {
				var err error
				for attempt := 0; attempt < 5; attempt++ {
					if c.kind == "pods" {
						_, err = clientset.CoreV1().Pods(c.namespace).Create(ctx, pod(c.namespace, i), metav1.CreateOptions{})
					} else {
						_, err = clientset.CoreV1().ConfigMaps(c.namespace).Create(ctx, configMap(c.namespace, i, rng), metav1.CreateOptions{})
					}
					if err == nil || apierrors.IsAlreadyExists(err) {
						break
					}
					time.Sleep(time.Duration(attempt+1) * 200 * time.Millisecond)
				}
				if err != nil && !apierrors.IsAlreadyExists(err) {
					fail("create %s %d: %v", c.kind, i, err)
				}
				created.Add(1)
			}
		}(int64(w + 1))
	}
	prefix := "cm"
	if c.kind == "pods" {
		prefix = "pod"
	}
	for i := 0; i < *count; i++ {
		if !existing[fmt.Sprintf("%s-%05d", prefix, i)] {
			indices <- i
		}
	}
	close(indices)
	wg.Wait()

	// The size of an object as the server sends it, over the first 200.
	list, err := dyn.List(ctx, metav1.ListOptions{Limit: 200})
	if err != nil {
		fail("list: %v", err)
	}
	total := 0
	for _, item := range list.Items {
		raw, _ := item.MarshalJSON()
		total += len(raw)
	}
	avg := 0
	if len(list.Items) > 0 {
		avg = total / len(list.Items)
	}
	printJSON(map[string]interface{}{"created": created.Load(), "seconds": time.Since(start).Seconds(),
		"avgBytes": avg})
}

// ---- sync ----------------------------------------------------------------------------------

func syncCmd(args []string) {
	var c common
	fs := c.flags("sync")
	expect := fs.Int("expect", 0, "objects the namespace holds")
	timeout := fs.Duration("timeout", 5*time.Minute, "give up after")
	settle := fs.Duration("settle", 0, "measure the RSS again after this long idle (rssSteadyKiB)")
	fs.Parse(args)

	rssStart, _ := memory()
	stop := make(chan struct{})
	informer, start := c.informer(stop)
	var adds atomic.Int64
	allAdded := make(chan struct{})
	registration, err := informer.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj interface{}, isInInitialList bool) {
			if adds.Add(1) == int64(*expect) {
				close(allAdded)
			}
		},
	})
	if err != nil {
		fail("%v", err)
	}
	began := time.Now()
	start()
	deadline := time.After(*timeout)
	select {
	case <-informer.HasSyncedChecker().Done():
	case <-deadline:
		fail("no sync after %v", *timeout)
	}
	synced := time.Since(began)
	select {
	case <-registration.HasSyncedChecker().Done():
	case <-deadline:
		fail("the handler did not sync after %v", *timeout)
	}
	select {
	case <-allAdded:
	case <-deadline:
		fail("the handler saw %d adds of %d", adds.Load(), *expect)
	}
	handlerSynced := time.Since(began)
	rss, hwm := memory()
	cpu := cpuSeconds()
	if n := len(informer.GetStore().ListKeys()); n != *expect {
		fail("the cache holds %d objects, expected %d", n, *expect)
	}
	steady := int64(-1)
	if *settle > 0 {
		time.Sleep(*settle)
		steady, _ = memory()
	}
	close(stop)
	printJSON(map[string]interface{}{"syncMs": ms(synced), "handlerSyncMs": ms(handlerSynced),
		"objects": *expect, "rssStartKiB": rssStart, "rssKiB": rss, "peakRssKiB": hwm,
		"cpuSeconds": cpu, "rssSteadyKiB": steady})
}

// ---- latency -------------------------------------------------------------------------------

// One JSON watch event as it came off the wire (-client raw), not decoded.
type rawEvent []byte

var rawTimestamp = regexp.MustCompile(`"ts":"([0-9]+)"`)

func timestampOf(obj interface{}) (int64, bool) {
	var ts string
	switch o := obj.(type) {
	case rawEvent:
		m := rawTimestamp.FindSubmatch(o)
		if m == nil {
			return 0, false
		}
		ts = string(m[1])
	case *corev1.ConfigMap:
		ts = o.Data["ts"]
	case *unstructured.Unstructured:
		ts, _, _ = unstructured.NestedString(o.Object, "data", "ts")
	default:
		return 0, false
	}
	v, err := strconv.ParseInt(ts, 10, 64)
	return v, err == nil
}

func percentile(sorted []int64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p*float64(len(sorted)-1) + 0.5)
	return float64(sorted[i]) / 1e6
}

func latency(args []string) {
	var c common
	fs := c.flags("latency")
	expect := fs.Int("expect", 0, "objects the namespace holds")
	updates := fs.Int("updates", 0, "updates to wait for")
	timeout := fs.Duration("timeout", 5*time.Minute, "give up after")
	fs.Parse(args)
	if c.kind != "configmaps" {
		fail("latency measures ConfigMaps")
	}

	var mu sync.Mutex
	samples := make([]int64, 0, *updates)
	done := make(chan struct{})
	var readyAt atomic.Int64
	record := func(obj interface{}) {
		now := time.Now().UnixNano()
		ts, ok := timestampOf(obj)
		if !ok || ts < readyAt.Load() {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if len(samples) < *updates {
			samples = append(samples, now-ts)
			if len(samples) == *updates {
				close(done)
			}
		}
	}
	stop := make(chan struct{})
	deadline := time.After(*timeout)
	if c.client == "raw" {
		// No decoding at all: the JSON watch stream read line by line (the server frames each
		// event with a newline), the timestamp found by a byte search. The floor that the
		// apiserver, etcd and the transport set for any JSON client.
		rawWatch(&c, *expect, record)
	} else if c.client == "watch" {
		// No informer: a bare watch of the clientset, from the version of a list (the floor
		// that apiserver, etcd and decoding set for any informer).
		configMaps := kubernetes.NewForConfigOrDie(c.config()).CoreV1().ConfigMaps(c.namespace)
		list, err := configMaps.List(context.Background(), metav1.ListOptions{Limit: 1})
		if err != nil {
			fail("list: %v", err)
		}
		n := len(list.Items)
		if list.RemainingItemCount != nil {
			n += int(*list.RemainingItemCount)
		}
		if n != *expect {
			fail("the namespace holds %d objects, expected %d", n, *expect)
		}
		watcher, err := configMaps.Watch(context.Background(),
			metav1.ListOptions{ResourceVersion: list.ResourceVersion})
		if err != nil {
			fail("watch: %v", err)
		}
		go func() {
			for event := range watcher.ResultChan() {
				if event.Type == "MODIFIED" {
					record(event.Object)
				}
			}
		}()
	} else {
		informer, start := c.informer(stop)
		registration, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
			UpdateFunc: func(_, newObj interface{}) { record(newObj) },
		})
		if err != nil {
			fail("%v", err)
		}
		start()
		select {
		case <-registration.HasSyncedChecker().Done():
		case <-deadline:
			fail("no sync after %v", *timeout)
		}
		if n := len(informer.GetStore().ListKeys()); n != *expect {
			fail("the cache holds %d objects, expected %d", n, *expect)
		}
	}
	readyAt.Store(time.Now().UnixNano())
	cpuBefore := cpuSeconds()
	fmt.Println("READY")
	select {
	case <-done:
	case <-deadline:
		mu.Lock()
		fail("saw %d updates of %d", len(samples), *updates)
	}
	cpu := cpuSeconds() - cpuBefore
	close(stop)
	mu.Lock()
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	_, hwm := memory()
	printJSON(map[string]interface{}{"count": len(samples), "p50Ms": percentile(samples, 0.50),
		"p90Ms": percentile(samples, 0.90), "p99Ms": percentile(samples, 0.99),
		"maxMs": percentile(samples, 1), "cpuSeconds": cpu, "peakRssKiB": hwm})
}

// A GET of the namespace's collection over client-go's transport, its body left as it comes
// (with gzip, compressed: the header set by hand keeps Go's transport from inflating it).
func (c *common) rawGetter(accept string) func(query url.Values, gzip bool) (*http.Response, error) {
	config := c.config()
	transport, err := rest.TransportFor(config)
	if err != nil {
		fail("%v", err)
	}
	base := strings.TrimRight(config.Host, "/") + "/api/v1/namespaces/" + c.namespace + "/" + c.kind
	return func(query url.Values, gzip bool) (*http.Response, error) {
		request, _ := http.NewRequest("GET", base+"?"+query.Encode(), nil)
		request.Header.Set("Accept", accept)
		if gzip {
			request.Header.Set("Accept-Encoding", "gzip")
		}
		return transport.RoundTrip(request)
	}
}

// The query of a WatchList stream, as client-go's reflector asks for one: the initial events,
// then a bookmark annotated k8s.io/initial-events-end.
func watchListQuery() url.Values {
	return url.Values{"watch": {"1"}, "sendInitialEvents": {"true"}, "allowWatchBookmarks": {"true"},
		"resourceVersionMatch": {"NotOlderThan"}, "timeoutSeconds": {"600"}}
}

// The raw watch of -client raw: a list of one for the version and the count, then the watch
// from that version, each MODIFIED line handed to record as a rawEvent.
func rawWatch(c *common, expect int, record func(obj interface{})) {
	raw := c.rawGetter("application/json")
	get := func(query url.Values) *http.Response {
		response, err := raw(query, false)
		if err != nil || response.StatusCode != 200 {
			fail("raw watch: %v %v", err, response)
		}
		return response
	}
	response := get(url.Values{"limit": {"1"}})
	var list struct {
		Metadata struct {
			ResourceVersion    string `json:"resourceVersion"`
			RemainingItemCount *int   `json:"remainingItemCount"`
		} `json:"metadata"`
		Items []json.RawMessage `json:"items"`
	}
	err := json.NewDecoder(response.Body).Decode(&list)
	response.Body.Close()
	if err != nil {
		fail("list: %v", err)
	}
	n := len(list.Items)
	if list.Metadata.RemainingItemCount != nil {
		n += *list.Metadata.RemainingItemCount
	}
	if n != expect {
		fail("the namespace holds %d objects, expected %d", n, expect)
	}
	response = get(url.Values{"watch": {"1"}, "resourceVersion": {list.Metadata.ResourceVersion},
		"timeoutSeconds": {"3600"}})
	go func() {
		reader := bufio.NewReaderSize(response.Body, 1<<20)
		modified := []byte(`"type":"MODIFIED"`)
		for {
			line, err := reader.ReadSlice('\n')
			if bytes.Contains(line, modified) {
				record(rawEvent(line))
			}
			if err == bufio.ErrBufferFull {
				fail("a watch event over 1 MiB")
			}
			if err != nil {
				return
			}
		}
	}()
}

// ---- update --------------------------------------------------------------------------------

func update(args []string) {
	var c common
	fs := c.flags("update")
	count := fs.Int("count", 10000, "ConfigMaps cm-00000... to spread the updates over")
	updates := fs.Int("updates", 5000, "updates to send")
	rate := fs.Float64("rate", 500, "updates per second")
	workers := fs.Int("workers", 32, "concurrent requests")
	fs.Parse(args)
	clientset := kubernetes.NewForConfigOrDie(c.config())
	configMaps := clientset.CoreV1().ConfigMaps(c.namespace)
	ctx := context.Background()

	// Every object once in random order, then again in another: spread over all of them.
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	targets := make(chan int, *updates)
	for len(targets) < *updates {
		for _, i := range rng.Perm(*count) {
			if len(targets) == *updates {
				break
			}
			targets <- i
		}
	}
	close(targets)

	ticks := make(chan int)
	var failures atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < *workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range ticks {
				patch := fmt.Sprintf(`{"data":{"ts":"%d"}}`, time.Now().UnixNano())
				if _, err := configMaps.Patch(ctx, fmt.Sprintf("cm-%05d", i), types.MergePatchType,
					[]byte(patch), metav1.PatchOptions{}); err != nil {
					failures.Add(1)
					fmt.Fprintf(os.Stderr, "informerbench: patch cm-%05d: %v\n", i, err)
				}
			}
		}()
	}
	// Paced by the clock, not by a ticker: update k is due at start + k/rate.
	start := time.Now()
	late := 0
	for k := 0; ; k++ {
		i, ok := <-targets
		if !ok {
			break
		}
		due := start.Add(time.Duration(float64(k) / *rate * float64(time.Second)))
		if wait := time.Until(due); wait > 0 {
			time.Sleep(wait)
		} else if wait < -50*time.Millisecond {
			late++
		}
		ticks <- i
	}
	close(ticks)
	wg.Wait()
	elapsed := time.Since(start).Seconds()
	printJSON(map[string]interface{}{"updates": *updates, "seconds": elapsed,
		"rate": float64(*updates) / elapsed, "late": late, "failures": failures.Load()})
	if failures.Load() > 0 {
		os.Exit(1)
	}
}

// ---- floor ---------------------------------------------------------------------------------

var continuePattern = regexp.MustCompile(`"continue":"([^"]*)"`)

func floor(args []string) {
	var c common
	fs := c.flags("floor")
	fs.Parse(args)
	accept := "application/json"
	if c.protobuf {
		accept = "application/vnd.kubernetes.protobuf"
	}
	get := c.rawGetter(accept)
	// Paged lists: the body is read whole; only the continue token is looked for (JSON).
	list := func(gzip bool) (time.Duration, int64) {
		if c.protobuf {
			return 0, 0
		}
		start := time.Now()
		var total int64
		token := ""
		for {
			query := url.Values{"limit": {"500"}}
			if token == "" {
				query.Set("resourceVersion", "0")
			} else {
				query.Set("continue", token)
			}
			response, err := get(query, gzip)
			if err != nil {
				fail("list: %v", err)
			}
			body, err := io.ReadAll(response.Body)
			response.Body.Close()
			if err != nil || response.StatusCode != 200 {
				fail("list: %d %v", response.StatusCode, err)
			}
			total += int64(len(body))
			head := body
			if gzip && response.Header.Get("Content-Encoding") == "gzip" {
				// The token is in the first bytes: inflate only those.
				reader, err := gzipReader(body)
				if err != nil {
					fail("gzip: %v", err)
				}
				head = make([]byte, 4096)
				n, _ := io.ReadFull(reader, head)
				head = head[:n]
			} else if len(head) > 4096 {
				head = head[:4096]
			}
			m := continuePattern.FindSubmatch(head)
			if m == nil || len(m[1]) == 0 {
				break
			}
			token = string(m[1])
		}
		return time.Since(start), total
	}
	listMs, listBytes := list(false)
	gzipMs, gzipBytes := list(true)
	// WatchList: read the stream until the initial-events-end bookmark (JSON lines, or the
	// annotation's bytes inside a protobuf frame).
	start := time.Now()
	response, err := get(watchListQuery(), false)
	if err != nil || response.StatusCode != 200 {
		fail("watchlist: %v", err)
	}
	marker := []byte("k8s.io/initial-events-end")
	buffer := make([]byte, 1<<20)
	var watchBytes int64
	var tail []byte
	for {
		n, err := response.Body.Read(buffer)
		watchBytes += int64(n)
		window := append(tail, buffer[:n]...)
		if bytes.Contains(window, marker) {
			break
		}
		if len(window) > len(marker) {
			tail = append([]byte(nil), window[len(window)-len(marker):]...)
		} else {
			tail = window
		}
		if err != nil {
			fail("watchlist ended before its bookmark: %v", err)
		}
	}
	watchMs := time.Since(start)
	response.Body.Close()
	printJSON(map[string]interface{}{"listMs": ms(listMs), "listBytes": listBytes,
		"listGzipMs": ms(gzipMs), "listGzipBytes": gzipBytes, "watchListMs": ms(watchMs),
		"watchListBytes": watchBytes})
}

func main() {
	if len(os.Args) < 2 {
		fail("usage: informerbench load|sync|latency|update|floor|replay [flags]")
	}
	commands := map[string]func([]string){"load": load, "sync": syncCmd, "latency": latency,
		"update": update, "floor": floor, "replay": replay}
	command, ok := commands[os.Args[1]]
	if !ok {
		fail("unknown command %q", os.Args[1])
	}
	command(os.Args[2:])
}
