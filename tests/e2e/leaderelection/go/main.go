// SPDX-License-Identifier: Apache-2.0
// le_candidate_go: le_candidate's client-go twin, for the interoperability scenario of the
// leader-election e2e test (a mixed fleet of qcm and client-go candidates on one Lease).
//
// client-go v0.37.2's leaderelection.RunOrDie with a LeaseLock (v0.37 has no other lock),
// configured as le_candidate: the same flags, and the same lines on stdout:
//
//	<t> READY id=<identity>
//	<t> STARTED term=<n>
//	<t> WORK term=<n> at=<t0>       leader work, every --work-ms while the context of
//	                                OnStartedLeading is not done; t0 is read before the check
//	<t> STOPPED term=<n> end=<t1>   t1: when that context was seen done (the term's end:
//	                                no WORK after it)
//	<t> NEWLEADER id=<identity>     client-go's OnNewLeader (also "" after a release)
//	<t> SIGTERM
//	<t> FINISHED
//
// Every <t> is CLOCK_MONOTONIC in nanoseconds, read with clock_gettime as le_candidate's
// steady_clock reads it, so the test compares the logs of both kinds of candidate and its own
// time.monotonic(). (Go's time.Now() carries a monotonic reading of its own, relative to the
// process start, so it cannot be compared across processes.)
//
// SIGTERM cancels RunOrDie's context (client-go cancels OnStartedLeading's context at once, then
// releases the lock with --release) and exits 0 once RunOrDie returned. A lost lease ends
// RunOrDie too: FINISHED, exit 1, as kube-controller-manager dies then.
//
//	le_candidate_go --kubeconfig F [--server URL] --namespace NS --name N [--lock leases]
//	                [--identity ID] [--lease 15] [--renew 10] [--retry 2] [--release]
//	                [--mode runordie] [--no-watch] [--work-ms 50]
//
// client-go has no other mode than RunOrDie and never watches the lock, so --mode takes only
// runordie and --no-watch changes nothing; other lock types are refused by resourcelock.New.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

var logMutex sync.Mutex

// monoNs is CLOCK_MONOTONIC in nanoseconds, as steady_clock and Python's time.monotonic().
func monoNs() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		fail("clock_gettime(CLOCK_MONOTONIC): %v", err)
	}
	return ts.Nano()
}

func logLine(format string, args ...any) {
	logMutex.Lock()
	defer logMutex.Unlock()
	// os.Stdout is unbuffered: one write per line, as le_candidate's fflush.
	fmt.Fprintf(os.Stdout, "%d %s\n", monoNs(), fmt.Sprintf(format, args...))
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "le_candidate_go: "+format+"\n", args...)
	os.Exit(2)
}

func seconds(value, option string) time.Duration {
	s, err := strconv.ParseFloat(value, 64)
	if err != nil || s <= 0 {
		fail("--%s: not a positive number of seconds: %s", option, value)
	}
	return time.Duration(s * float64(time.Second))
}

// term is one term's state, shared by the callbacks (client-go runs OnStartedLeading in a
// goroutine of its own, and OnStoppedLeading on Run's).
type term struct {
	n     int
	ended chan struct{} // closed once endNs is set
	endNs int64
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "Kubeconfig file.")
	server := flag.String("server", "", "Override the server URL.")
	namespace := flag.String("namespace", "", "Lock namespace.")
	name := flag.String("name", "", "Lock name.")
	lockType := flag.String("lock", resourcelock.LeasesResourceLock, "Lock type.")
	identity := flag.String("identity", "", "Identity.")
	lease := flag.String("lease", "15", "leaseDuration, s.")
	renew := flag.String("renew", "10", "renewDeadline, s.")
	retry := flag.String("retry", "2", "retryPeriod, s.")
	release := flag.Bool("release", false, "releaseOnCancel.")
	mode := flag.String("mode", "runordie", "runordie (client-go has no other).")
	flag.Bool("no-watch", false, "Accepted for le_candidate's flags: client-go always polls.")
	workMs := flag.Int("work-ms", 50, "Leader work interval, ms.")
	flag.Parse()
	if flag.NArg() > 0 {
		fail("unexpected arguments: %v", flag.Args())
	}
	for option, value := range map[string]string{"kubeconfig": *kubeconfig, "namespace": *namespace, "name": *name} {
		if value == "" {
			fail("--%s is required", option)
		}
	}
	if *mode != "runordie" {
		fail("--mode: client-go's LeaderElector has only runordie, not %s", *mode)
	}
	if *workMs <= 0 {
		fail("--work-ms: not a positive number of milliseconds: %d", *workMs)
	}
	if *identity == "" {
		// kube-controller-manager's default identity.
		host, err := os.Hostname()
		if err != nil {
			fail("hostname: %v", err)
		}
		*identity = host + "_" + string(uuid.NewUUID())
	}

	restConfig, err := clientcmd.BuildConfigFromFlags(*server, *kubeconfig)
	if err != nil {
		fail("%s: %v", *kubeconfig, err)
	}
	restConfig.QPS = 50
	restConfig.Burst = 100
	renewDeadline := seconds(*renew, "renew")
	// Requests time out at max(renewDeadline / 2, 1 s), as le_candidate's.
	lock, err := resourcelock.NewFromKubeconfig(*lockType, *namespace, *name,
		resourcelock.ResourceLockConfig{Identity: *identity}, restConfig, renewDeadline)
	if err != nil {
		fail("--lock: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM)
	signalled := make(chan struct{})
	go func() {
		<-signals
		logLine("SIGTERM")
		close(signalled)
		cancel()
	}()

	var mu sync.Mutex
	var terms int
	var current *term
	stopped := false
	config := leaderelection.LeaderElectionConfig{
		Lock:            lock,
		LeaseDuration:   seconds(*lease, "lease"),
		RenewDeadline:   renewDeadline,
		RetryPeriod:     seconds(*retry, "retry"),
		ReleaseOnCancel: *release,
		Name:            *name,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(leaderCtx context.Context) {
				mu.Lock()
				if stopped {
					// Run ended before this goroutine ran: the term was over before any work.
					mu.Unlock()
					fmt.Fprintln(os.Stderr, "le_candidate_go: the term ended before OnStartedLeading ran")
					return
				}
				terms++
				t := &term{n: terms, ended: make(chan struct{})}
				current = t
				logLine("STARTED term=%d", t.n)
				mu.Unlock()
				go func() {
					<-leaderCtx.Done()
					t.endNs = monoNs()
					close(t.ended)
				}()
				// The leader's work: check the context before each piece.
				for {
					at := monoNs() // before the check
					if leaderCtx.Err() != nil {
						return
					}
					logLine("WORK term=%d at=%d", t.n, at)
					time.Sleep(time.Duration(*workMs) * time.Millisecond)
				}
			},
			OnStoppedLeading: func() {
				mu.Lock()
				stopped = true
				t := current
				current = nil
				mu.Unlock()
				if t == nil { // a run that never led
					return
				}
				<-t.ended // Run cancelled the context before calling this
				logLine("STOPPED term=%d end=%d", t.n, t.endNs)
			},
			OnNewLeader: func(id string) { logLine("NEWLEADER id=%s", id) },
		},
	}
	// NewLeaderElector validates the config as RunOrDie does, but reports instead of panicking.
	if _, err := leaderelection.NewLeaderElector(config); err != nil {
		fail("%v", err)
	}

	logLine("READY id=%s", *identity)
	leaderelection.RunOrDie(ctx, config)
	logLine("FINISHED")
	select {
	case <-signalled:
		os.Exit(0)
	default:
		os.Exit(1) // the lease was lost
	}
}
