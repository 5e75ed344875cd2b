// SPDX-License-Identifier: Apache-2.0
// The client-go side of the conformance traces (../README.md describes the format).
// Reads a trace on stdin, runs it on k8s.io/client-go/util/workqueue with a fake clock, and
// prints one line per operation.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/client-go/util/workqueue"
	testingclock "k8s.io/utils/clock/testing"
)

func fail(line int, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "error: line %d: %s\n", line, fmt.Sprintf(format, args...))
	os.Exit(2)
}

// fakeBucket is client-go's TypedBucketRateLimiter on the fake clock: Reserve().Delay() is
// ReserveN(now, 1).DelayFrom(now) with now read from the wall clock.
type fakeBucket struct {
	limiter *rate.Limiter
	clock   *testingclock.FakeClock
}

func (b *fakeBucket) When(string) time.Duration {
	now := b.clock.Now()
	return b.limiter.ReserveN(now, 1).DelayFrom(now)
}
func (b *fakeBucket) NumRequeues(string) int { return 0 }
func (b *fakeBucket) Forget(string)          {}

// nextLine reads the trace's next operation, skipping blank lines and comments; a nil parser
// at the end.
func nextLine(in *bufio.Scanner, lineNumber *int) (string, *parser) {
	for in.Scan() {
		*lineNumber++
		line := strings.TrimSpace(in.Text())
		if line != "" && !strings.HasPrefix(line, "#") {
			return line, &parser{tokens: strings.Fields(line), line: *lineNumber}
		}
	}
	return "", nil
}

type parser struct {
	tokens []string
	pos    int
	line   int
}

func (p *parser) next() string {
	if p.pos >= len(p.tokens) {
		fail(p.line, "missing argument")
	}
	p.pos++
	return p.tokens[p.pos-1]
}

func (p *parser) integer() int64 {
	t := p.next()
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		fail(p.line, "not an integer: %s", t)
	}
	return v
}

func (p *parser) number() float64 {
	t := p.next()
	v, err := strconv.ParseFloat(t, 64)
	if err != nil {
		fail(p.line, "not a number: %s", t)
	}
	return v
}

func (p *parser) duration() time.Duration {
	t := p.next()
	units := []struct {
		suffix string
		scale  int64
	}{{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}, {"m", 60000000000}, {"h", 3600000000000}}
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			digits := strings.TrimSuffix(t, u.suffix)
			if v, err := strconv.ParseInt(digits, 10, 64); err == nil && digits != "" && digits[len(digits)-1] >= '0' && digits[len(digits)-1] <= '9' {
				return time.Duration(v * u.scale)
			}
		}
	}
	fail(p.line, "not a duration: %s", t)
	return 0
}

func (p *parser) limiter(clock *testingclock.FakeClock) workqueue.TypedRateLimiter[string] {
	switch kind := p.next(); kind {
	case "exponential":
		base := p.duration()
		max := p.duration()
		return workqueue.NewTypedItemExponentialFailureRateLimiter[string](base, max)
	case "fastslow":
		fast := p.duration()
		slow := p.duration()
		maxFast := int(p.integer())
		return workqueue.NewTypedItemFastSlowRateLimiter[string](fast, slow, maxFast)
	case "bucket":
		qps := p.number()
		burst := int(p.integer())
		return &fakeBucket{limiter: rate.NewLimiter(rate.Limit(qps), burst), clock: clock}
	case "maxof":
		n := p.integer()
		var all []workqueue.TypedRateLimiter[string]
		for i := int64(0); i < n; i++ {
			all = append(all, p.limiter(clock))
		}
		return workqueue.NewTypedMaxOfRateLimiter(all...)
	case "maxwait":
		max := p.duration()
		return workqueue.NewTypedWithMaxWaitRateLimiter(p.limiter(clock), max)
	case "default":
		// DefaultTypedControllerRateLimiter, with its bucket on the fake clock.
		return workqueue.NewTypedMaxOfRateLimiter(
			workqueue.NewTypedItemExponentialFailureRateLimiter[string](5*time.Millisecond, 1000*time.Second),
			&fakeBucket{limiter: rate.NewLimiter(rate.Limit(10), 100), clock: clock},
		)
	default:
		fail(p.line, "unknown limiter: %s", kind)
	}
	return nil
}

// settle waits until client-go's waitingLoop goroutine has taken every pending addAfter and
// is blocked in its select with nothing ready: only then is the queue's state final.
func settle(waitingForAddCh reflect.Value, shutDown bool) {
	if !waitingForAddCh.IsValid() {
		return
	}
	buf := make([]byte, 1<<20)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if waitingForAddCh.Len() == 0 && waitingLoopIdle(buf, shutDown) {
			return
		}
		if time.Now().After(deadline) {
			// A client-go that renamed or restructured waitingLoop would hang here.
			fmt.Fprintln(os.Stderr, "error: client-go's delaying queue did not settle in 30 s: "+
				"is its waitingLoop goroutine still named so?")
			os.Exit(3)
		}
		runtime.Gosched()
		time.Sleep(20 * time.Microsecond)
	}
}

func waitingLoopIdle(buf []byte, shutDown bool) bool {
	n := runtime.Stack(buf, true)
	for _, g := range bytes.Split(buf[:n], []byte("\n\n")) {
		if !bytes.Contains(g, []byte(").waitingLoop(")) {
			continue
		}
		header := g[:bytes.IndexByte(g, '\n')]
		return bytes.Contains(header, []byte("[select"))
	}
	return shutDown // not started yet, or exited after shutdown
}

// waitingChannel digs the delaying queue's waitingForAddCh out of the queue, for settle.
func waitingChannel(q any) reflect.Value {
	v := reflect.ValueOf(q)
	for v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if f := v.FieldByName("waitingForAddCh"); f.IsValid() {
		return f
	}
	if f := v.FieldByName("TypedDelayingInterface"); f.IsValid() {
		return waitingChannel(f.Interface())
	}
	return reflect.Value{}
}

func main() {
	clock := testingclock.NewFakeClock(time.Unix(1700000000, 0))
	var (
		queue        workqueue.TypedInterface[string]
		delaying     workqueue.TypedDelayingInterface[string]
		rateLimiting workqueue.TypedRateLimitingInterface[string]
		limiter      workqueue.TypedRateLimiter[string]
		waitingCh    reflect.Value
	)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	var handedOut []string // items Get returned and Done has not taken back
	lineNumber := 0
	haveSubject := false
	for {
		line, p := nextLine(in, &lineNumber)
		if p == nil {
			break
		}
		op := p.next()
		result := "ok"
		needQueue := func() {
			if queue == nil {
				fail(lineNumber, "%s needs a queue", op)
			}
		}
		needRateLimited := func() {
			if rateLimiting == nil && limiter == nil {
				fail(lineNumber, "%s needs a rate limiter", op)
			}
		}
		if !haveSubject {
			haveSubject = true
			switch op {
			case "deltafifo":
				runDeltaFIFO(p, line, in, out, lineNumber)
				return
			case "queue":
				queue = workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Clock: clock})
			case "delaying":
				delaying = workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{Clock: clock})
				queue = delaying
			case "ratelimiting":
				rateLimiting = workqueue.NewTypedRateLimitingQueueWithConfig(p.limiter(clock),
					workqueue.TypedRateLimitingQueueConfig[string]{Clock: clock})
				delaying = rateLimiting
				queue = rateLimiting
			case "limiter":
				limiter = p.limiter(clock)
			default:
				fail(lineNumber, "the first line must name the subject, not %s", op)
			}
			if delaying != nil {
				waitingCh = waitingChannel(delaying)
				if !waitingCh.IsValid() {
					fail(lineNumber, "cannot find client-go's waitingForAddCh")
				}
			}
		} else {
			switch op {
			case "add":
				needQueue()
				queue.Add(p.next())
			case "get":
				needQueue()
				if queue.Len() == 0 && !queue.ShuttingDown() {
					result = "empty"
				} else if item, shutdown := queue.Get(); shutdown {
					result = "shutdown"
				} else {
					result = item
					handedOut = append(handedOut, item)
				}
			case "done":
				needQueue()
				item := p.next()
				if item == "^" {
					if len(handedOut) == 0 {
						result = "none"
					} else {
						result = handedOut[0]
						handedOut = handedOut[1:]
						queue.Done(result)
					}
				} else {
					for i, h := range handedOut {
						if h == item {
							handedOut = append(handedOut[:i], handedOut[i+1:]...)
							break
						}
					}
					queue.Done(item)
				}
			case "len":
				needQueue()
				result = strconv.Itoa(queue.Len())
			case "shutdown":
				needQueue()
				queue.ShutDown()
			case "shuttingdown":
				needQueue()
				result = strconv.FormatBool(queue.ShuttingDown())
			case "addafter":
				if delaying == nil {
					fail(lineNumber, "addafter needs a delaying queue")
				}
				item := p.next()
				delaying.AddAfter(item, p.duration())
			case "addratelimited":
				if rateLimiting == nil {
					fail(lineNumber, "addratelimited needs a rate-limiting queue")
				}
				rateLimiting.AddRateLimited(p.next())
			case "forget":
				needRateLimited()
				if rateLimiting != nil {
					rateLimiting.Forget(p.next())
				} else {
					limiter.Forget(p.next())
				}
			case "numrequeues":
				needRateLimited()
				item := p.next()
				if rateLimiting != nil {
					result = strconv.Itoa(rateLimiting.NumRequeues(item))
				} else {
					result = strconv.Itoa(limiter.NumRequeues(item))
				}
			case "when":
				if limiter == nil {
					fail(lineNumber, "when needs a bare limiter")
				}
				result = strconv.FormatInt(int64(limiter.When(p.next())), 10)
			case "advance":
				clock.Step(p.duration())
			default:
				fail(lineNumber, "unknown operation: %s", op)
			}
		}
		if p.pos != len(p.tokens) {
			fail(lineNumber, "unexpected argument: %s", p.tokens[p.pos])
		}
		settle(waitingCh, queue != nil && queue.ShuttingDown())
		fmt.Fprintf(out, "%s -> %s\n", line, result)
	}
}
