// SPDX-License-Identifier: Apache-2.0
// client-go's side of tests/bench/bench_workqueue.cpp: the same four shapes.
package bench

import (
	"fmt"
	"math/rand"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/util/workqueue"
	testingclock "k8s.io/utils/clock/testing"
)

// (a) client-go's BenchmarkQueue, verbatim.
func BenchmarkQueue(b *testing.B) {
	keys := make([]string, 100)
	for idx := range keys {
		keys[idx] = fmt.Sprintf("key-%d", idx)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		q := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{})
		b.StartTimer()
		for j := 0; j < 100; j++ {
			q.Add(keys[j])
			key, _ := q.Get()
			q.Done(key)
		}
	}
}

// (b) 2 producers x 2 consumers over 10k keys with duplicates.
func BenchmarkParallelQueue(b *testing.B) {
	const n = 10000
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("namespace/object-%d", i)
	}
	rng := rand.New(rand.NewSource(7))
	sequences := make([][]int, 2)
	for p := range sequences {
		for i := 0; i < n; i++ {
			sequences[p] = append(sequences[p], rng.Intn(n))
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{})
		var consumers, producers sync.WaitGroup
		for c := 0; c < 2; c++ {
			consumers.Add(1)
			go func() {
				defer consumers.Done()
				for {
					item, shutdown := q.Get()
					if shutdown {
						return
					}
					q.Done(item)
				}
			}()
		}
		for p := 0; p < 2; p++ {
			producers.Add(1)
			go func(sequence []int) {
				defer producers.Done()
				for _, k := range sequence {
					q.Add(keys[k])
				}
			}(sequences[p])
		}
		producers.Wait()
		q.ShutDown()
		consumers.Wait()
	}
}

// (c) client-go's BenchmarkDelayingQueue_AddAfter, verbatim (run with -benchtime=200000x).
func BenchmarkDelayingQueue_AddAfter(b *testing.B) {
	fakeClock := testingclock.NewFakeClock(time.Now())
	q := workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{Clock: fakeClock})

	// Add items
	for n := 0; n < b.N; n++ {
		data := fmt.Sprintf("%d", n)
		q.AddAfter(data, time.Duration(rand.Int63n(int64(10*time.Minute))))
	}

	// Exercise item removal as well
	fakeClock.Step(11 * time.Minute)
	for n := 0; n < b.N; n++ {
		_, _ = q.Get()
	}
}

// (d) AddRateLimited with the default controller rate limiter, cycling over 1000 keys.
func BenchmarkAddRateLimited(b *testing.B) {
	keys := make([]string, 1000)
	for i := range keys {
		keys[i] = fmt.Sprintf("namespace/object-%d", i)
	}
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
	defer q.ShutDown()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q.AddRateLimited(keys[i%len(keys)])
	}
}
