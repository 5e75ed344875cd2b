// SPDX-License-Identifier: Apache-2.0
// client-go's side of tests/bench/bench_deltafifo.cpp: the same three shapes on client-go's
// DeltaFIFO, with the same 1000 ConfigMaps decoded typed (*corev1.ConfigMap, what the
// clientset's informers queue) and unstructured (what the dynamic informers queue).
package bench

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"
)

const fifoObjects = 1000

// The JSON of ConfigMap i, byte for byte what bench_deltafifo.cpp decodes.
func deltaFifoObjectJSON(i int) []byte {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	payload := make([]byte, 640)
	for j := range payload {
		payload[j] = alphabet[(i*7+j*13)%62]
	}
	return []byte(fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-%05d","namespace":"bench",`+
		`"uid":"00000000-0000-4000-8000-%012d","resourceVersion":"%d",`+
		`"creationTimestamp":"2026-11-22T09:00:00Z","labels":{"app":"bench","shard":"%d"}},`+
		`"data":{"payload":"%s","ts":"0"}}`, i, i, 100000+i, i%16, payload))
}

func fifoObjectsOf(b *testing.B, unstructuredObjects bool) []interface{} {
	out := make([]interface{}, fifoObjects)
	for i := range out {
		data := deltaFifoObjectJSON(i)
		if unstructuredObjects {
			u := &unstructured.Unstructured{}
			if err := u.UnmarshalJSON(data); err != nil {
				b.Fatal(err)
			}
			out[i] = u
		} else {
			cm := &corev1.ConfigMap{}
			if err := json.Unmarshal(data, cm); err != nil {
				b.Fatal(err)
			}
			out[i] = cm
		}
	}
	return out
}

func newFifo() *cache.DeltaFIFO {
	return cache.NewDeltaFIFOWithOptions(cache.DeltaFIFOOptions{KeyFunction: cache.MetaNamespaceKeyFunc})
}

func popAll(b *testing.B, fifo *cache.DeltaFIFO, keys int) int {
	deltas := 0
	process := func(obj interface{}, _ bool) error {
		deltas += len(obj.(cache.Deltas))
		return nil
	}
	for i := 0; i < keys; i++ {
		if _, err := fifo.Pop(process); err != nil {
			b.Fatal(err)
		}
	}
	return deltas
}

// (a) add the 1000 objects, then pop the 1000 keys.
func benchmarkAddPop(b *testing.B, unstructuredObjects bool) {
	objects := fifoObjectsOf(b, unstructuredObjects)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		fifo := newFifo()
		for _, obj := range objects {
			if err := fifo.Add(obj); err != nil {
				b.Fatal(err)
			}
		}
		if popAll(b, fifo, fifoObjects) != fifoObjects {
			b.Fatal("wrong number of deltas")
		}
	}
}

func BenchmarkDeltaFIFOAddPop(b *testing.B)             { benchmarkAddPop(b, false) }
func BenchmarkDeltaFIFOAddPopUnstructured(b *testing.B) { benchmarkAddPop(b, true) }

// (b) per key: add, then 3 updates; then pop the 1000 keys, 4 deltas each.
func benchmarkUpdatesPop(b *testing.B, unstructuredObjects bool) {
	objects := fifoObjectsOf(b, unstructuredObjects)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		fifo := newFifo()
		for _, obj := range objects {
			fifo.Add(obj)
			for u := 0; u < 3; u++ {
				fifo.Update(obj)
			}
		}
		if popAll(b, fifo, fifoObjects) != 4*fifoObjects {
			b.Fatal("wrong number of deltas")
		}
	}
}

func BenchmarkDeltaFIFOUpdatesPop(b *testing.B)             { benchmarkUpdatesPop(b, false) }
func BenchmarkDeltaFIFOUpdatesPopUnstructured(b *testing.B) { benchmarkUpdatesPop(b, true) }

// (c) one goroutine adds the 1000 objects 10 times over while another pops until it has
// seen all 10,000 deltas.
func benchmarkProducerConsumer(b *testing.B, unstructuredObjects bool) {
	const rounds = 10
	objects := fifoObjectsOf(b, unstructuredObjects)
	pops := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		fifo := newFifo()
		var producer sync.WaitGroup
		producer.Add(1)
		go func() {
			defer producer.Done()
			for r := 0; r < rounds; r++ {
				for _, obj := range objects {
					fifo.Add(obj)
				}
			}
		}()
		deltas := 0
		process := func(obj interface{}, _ bool) error {
			deltas += len(obj.(cache.Deltas))
			return nil
		}
		for deltas < rounds*fifoObjects {
			if _, err := fifo.Pop(process); err != nil {
				b.Fatal(err)
			}
			pops++
		}
		producer.Wait()
	}
	b.ReportMetric(float64(pops)/float64(b.N), "pops/op")
}

func BenchmarkDeltaFIFOProducerConsumer(b *testing.B)             { benchmarkProducerConsumer(b, false) }
func BenchmarkDeltaFIFOProducerConsumerUnstructured(b *testing.B) { benchmarkProducerConsumer(b, true) }
