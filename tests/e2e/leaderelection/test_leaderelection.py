#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""e2e: leader election on the real kube-apiserver, with le_candidate processes.

    test_leaderelection.py --binary path/to/le_candidate [--cluster DIR] [--only NAME]

The cluster is the CTest fixture's ($QCM_E2E_DIR). Short settings keep it quick: lease 3 s,
renew deadline 2 s, retry period 1 s. Scenarios (the issue's list):
  one_leader          3 candidates: exactly one leads, and keeps leading
  crash_failover      SIGKILL the leader: a new one within leaseDuration + 1.2 x retryPeriod
  graceful_failover   SIGTERM with release: a new one within 1.2 x retryPeriod
  kill_cycles         20 SIGKILL cycles; no two logged leading intervals overlap
  pause               SIGSTOP the leader past leaseDuration, SIGCONT: it steps down before any
                      leader work, no overlap
  partition           the leader reaches the apiserver through a TCP proxy that is cut: its term
                      ends within renewDeadline (and not before the last renewal's deadline)
  lock_types          leases, configmaps, endpoints, endpointsleases, configmapsleases: each
                      elects; kubectl shows the record on every object of the lock (both, for
                      the multi locks) in client-go's encoding (the annotation's JSON, the
                      Lease's spec); it renews, hands over (leaderTransitions + 1) and releases
                      (holder "", leaseDurationSeconds 1)
  interop             a mixed fleet on one Lease, qcm's le_candidate and client-go v0.37.2's
                      LeaderElector (le_candidate_go, go/): exactly one leads; 12 handovers,
                      alternately qcm -> client-go and client-go -> qcm, each by SIGKILL and by
                      SIGTERM with release, within bounds that depend on the successor's kind
                      (see INTEROP_BOUNDS); no logged intervals overlap; kubectl's watch of the
                      Lease shows leaseTransitions + 1 and a new acquireTime on each handover,
                      whichever implementation writes it, and neither changing on renewals
Every scenario also checks that leader work (WORK lines) happened only inside its terms.
The client-go candidate is built with the Go tool (--go, else go on PATH or /usr/local/go/bin)
and cached in ~/.cache/qcm/bin (lecluster.go_candidate); no Go tool fails the interop scenario.
"""
import argparse
import os
import pathlib
import re
import signal
import sys
import time
import traceback

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from lecluster import (Candidate, Cluster, LeaseWatch, go_candidate, leaders,  # noqa: E402
                       overlaps, wait_for, wait_for_leader, work_outside_terms)
from tcpproxy import TcpProxy  # noqa: E402

LEASE, RENEW, RETRY = 3, 2, 1
CRASH_BOUND = LEASE + 1.2 * RETRY
GRACEFUL_BOUND = 1.2 * RETRY


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


class Scenario:
    def __init__(self, binary, cluster, name, go=None):
        self.binary = binary
        self.go = go
        self.cluster = cluster
        self.ns = cluster.create_namespace(f"e2e-le-{name.replace('_', '-')}")
        self.lock_name = "qcm-e2e"
        self.candidates = []
        self.count = 0

    def spawn(self, **kwargs):
        self.count += 1
        kwargs.setdefault("lease", LEASE)
        kwargs.setdefault("renew", RENEW)
        kwargs.setdefault("retry", RETRY)
        binary = kwargs.pop("binary", self.binary)
        prefix = kwargs.pop("prefix", "cand")
        c = Candidate(binary, self.cluster, self.ns, kwargs.pop("name", self.lock_name),
                      f"{prefix}-{self.count}", **kwargs)
        self.candidates.append(c)
        check(wait_for(lambda: c.events("READY") or c.proc.poll() is not None, 10)
              and c.proc.poll() is None, f"{c.identity} did not start: {c.errors[-5:]}")
        return c

    def final_checks(self):
        bad = overlaps(self.candidates)
        check(not bad, f"leading intervals overlap: {bad}")
        for c in self.candidates:
            outside = work_outside_terms(c)
            check(not outside, f"{c.identity} did leader work outside its terms at {outside}")

    def close(self):
        for c in self.candidates:
            c.stop()
        self.cluster.kubectl("delete", "namespace", self.ns, "--wait=false", check=False)


def one_leader(s):
    cs = [s.spawn() for _ in range(3)]
    leader, _ = wait_for_leader(cs, 15)
    check(leader, "nobody leads")
    end = time.monotonic() + 3 * RETRY
    while time.monotonic() < end:
        check(leaders(cs) == [leader], f"leaders: {[c.identity for c in leaders(cs)]}")
        time.sleep(0.05)
    check(len(leader.events("WORK")) > 10, "the leader did no work")
    for c in cs:
        if c is not leader:
            check(not c.events("WORK"), f"{c.identity} worked without leading")
            check(wait_for(lambda c=c: any(f.get("id") == leader.identity
                                           for _, _, f in c.events("NEWLEADER")), 3),
                  f"{c.identity} never reported {leader.identity} as leader")
    holder = s.cluster.holder("leases", s.ns, s.lock_name)
    check(holder == [leader.identity], f"the Lease says {holder}, not {leader.identity}")


def crash_failover(s):
    cs = [s.spawn() for _ in range(3)]
    leader, _ = wait_for_leader(cs, 15)
    check(leader, "nobody leads")
    time.sleep(1.5)
    killed = leader.signal(signal.SIGKILL)
    new, started = wait_for_leader(cs, CRASH_BOUND + 5, exclude=[leader])
    check(new, "no new leader")
    took = started - killed
    print(f"    crash failover {took:.3f} s (bound {CRASH_BOUND:.1f} s)")
    check(took <= CRASH_BOUND, f"crash failover took {took:.3f} s > {CRASH_BOUND} s")


def graceful_failover(s):
    cs = [s.spawn(release=True) for _ in range(3)]
    leader, _ = wait_for_leader(cs, 15)
    check(leader, "nobody leads")
    time.sleep(1.5)
    term = leader.signal(signal.SIGTERM)
    new, started = wait_for_leader(cs, 10, exclude=[leader])
    check(new, "no new leader")
    took = started - term
    print(f"    graceful failover {took:.3f} s (bound {GRACEFUL_BOUND:.1f} s)")
    check(took <= GRACEFUL_BOUND, f"graceful failover took {took:.3f} s > {GRACEFUL_BOUND} s")
    check(leader.proc.wait(10) == 0, "the released leader did not exit 0")
    check(leader.events("FINISHED"), "the released leader did not finish")


def kill_cycles(s):
    cs = [s.spawn() for _ in range(3)]
    took = []
    for cycle in range(20):
        leader, _ = wait_for_leader(cs, 15)
        check(leader, f"cycle {cycle}: nobody leads")
        time.sleep(0.3)
        killed = leader.signal(signal.SIGKILL)
        cs.remove(leader)
        cs.append(s.spawn())
        new, started = wait_for_leader(cs, CRASH_BOUND + 5, exclude=[leader])
        check(new, f"cycle {cycle}: no new leader")
        took.append(started - killed)
        check(took[-1] <= CRASH_BOUND, f"cycle {cycle}: failover {took[-1]:.3f} s")
    print(f"    20 cycles: failover min {min(took):.3f} s, max {max(took):.3f} s")


def pause(s):
    cs = [s.spawn(mode="rejoin") for _ in range(3)]
    leader, _ = wait_for_leader(cs, 15)
    check(leader, "nobody leads")
    time.sleep(1.2)
    stopped = leader.signal(signal.SIGSTOP)
    new, started = wait_for_leader(cs, LEASE + 5, exclude=[leader])
    check(new, "nobody took over from the paused leader")
    time.sleep(max(0.0, stopped + LEASE + 1 - time.monotonic()))
    resumed = leader.signal(signal.SIGCONT)
    check(wait_for(lambda: len(leader.events("STOPPED")) >= 1, 5), "the paused leader never logged stepping down")
    time.sleep(2 * RETRY)
    after = [(t, e) for t, e, _ in leader.events() if t >= resumed]
    kinds = [e for _, e in after if e in ("STOPPED", "WORK", "STARTED")]
    print(f"    paused {resumed - stopped:.1f} s; after SIGCONT it logged {kinds[:4]}")
    check(kinds and kinds[0] == "STOPPED", f"after SIGCONT, leader events were {kinds[:5]}")
    end = int(leader.events("STOPPED")[0][2]["end"]) / 1e9
    check(end <= started, "the paused leader's term did not end before the new one began")
    for t, _, f in leader.events("WORK"):
        at = int(f["at"]) / 1e9
        check(at < end or at > resumed, f"work at {at} inside the pause")
    check(len(leaders(cs)) == 1, "not exactly one leader after the pause")


def partition(s):
    host, port = s.cluster.server.split("//")[1].rsplit(":", 1)
    proxy = TcpProxy((host, int(port))).start()
    try:
        leader = s.spawn(server=f"https://{host}:{proxy.port}")
        check(wait_for(leader.leading, 15), "the proxied candidate did not lead")
        others = [s.spawn() for _ in range(2)]
        time.sleep(2.5)
        check(leaders([leader] + others) == [leader], "the proxied candidate lost the lead early")
        cut = time.monotonic()
        proxy.cut()
        check(wait_for(lambda: leader.events("STOPPED"), RENEW + 3), "the cut leader never stepped down")
        t, _, fields = leader.events("STOPPED")[0]
        end = int(fields["end"]) / 1e9
        print(f"    term ended {end - cut:.3f} s after the cut, logged at {t - cut:.3f} s "
              f"(renewDeadline {RENEW} s)")
        # The term ends renewDeadline after the last renewal that succeeded, which was sent at
        # most retryPeriod (plus two round trips) before the cut: so not earlier than this, or
        # the leader stopped renewing, or gave up its term, before the deadline.
        check(end >= cut + RENEW - RETRY - 0.5,
              f"the term ended {end - cut:.3f} s after the cut, before the deadline of the last "
              f"renewal before it")
        # Stepping down within renewDeadline: every renewal that succeeded was sent before the
        # cut, so the term (the token's deadline, after which no WORK is logged: final_checks)
        # ends within renewDeadline of it. 50 ms for the cut to reach the proxy's threads.
        check(end <= cut + RENEW + 0.05,
              f"the term ended {end - cut:.3f} s after the cut, more than renewDeadline")
        # The elector notices (logs STOPPED) on its own deadline timer, a little later.
        check(t - cut <= RENEW + 0.3, f"stepping down was logged {t - cut:.3f} s after the cut")
        new, started = wait_for_leader(others, LEASE + 5)
        check(new, "nobody took over from the cut leader")
        check(started >= end, "the new leader started before the cut one ended")
    finally:
        proxy.close()


# client-go's json.Marshal of the annotation record (v0.23's LeaderElectionRecord: these keys in
# this order, metav1.Time as RFC 3339 in seconds, UTC), and a Lease's MicroTime.
ANNOTATION_RECORD = re.compile(
    r'^\{"holderIdentity":"(?P<holder>[^"]*)","leaseDurationSeconds":(?P<duration>\d+),'
    r'"acquireTime":(?P<acquire>"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"|null),'
    r'"renewTime":(?P<renew>"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"|null),'
    r'"leaderTransitions":(?P<transitions>\d+)\}$')
MICRO_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")


def check_records(s, lock, name, holder, duration, transitions):
    """Every object of the lock carries the record, in client-go's encoding, with these
    values; returns the records."""
    records = s.cluster.records(lock, s.ns, name)
    check(all(records), f"{lock}: an object has no record: {records}")
    for r in records:
        what = f"{lock}: the {r['kind']} record {r['raw']}"
        if r["kind"] == "Lease":
            check(all(MICRO_TIME.match(r[t] or "") for t in ("acquireTime", "renewTime")),
                  f"{what}: times are not MicroTime")
        else:
            check(ANNOTATION_RECORD.match(r["raw"]), f"{what}: not client-go's annotation form")
        check((r["holderIdentity"], r["leaseDurationSeconds"], r["leaderTransitions"])
              == (holder, duration, transitions),
              f"{what}: expected holder {holder!r}, leaseDurationSeconds {duration}, "
              f"leaderTransitions {transitions}")
    check(len({(r["acquireTime"] or "")[:19] for r in records}) == 1,
          f"{lock}: the objects' acquireTimes differ: {[r['acquireTime'] for r in records]}")
    return records


def lock_types(s):
    for lock in ["leases", "configmaps", "endpoints", "endpointsleases", "configmapsleases"]:
        name = f"lock-{lock}"
        a = s.spawn(lock=lock, name=name, release=True)
        b = s.spawn(lock=lock, name=name, release=True)
        first, _ = wait_for_leader([a, b], 15)
        check(first, f"{lock}: nobody leads")
        other = b if first is a else a
        # The record on every object (both, for the multi locks, checked with kubectl).
        check(wait_for(lambda: s.cluster.holder(lock, s.ns, name) == [first.identity] * len(
            s.cluster.holder(lock, s.ns, name)), 5),
            f"{lock}: the server says {s.cluster.holder(lock, s.ns, name)}, not {first.identity}")
        before = check_records(s, lock, name, first.identity, LEASE, 0)
        # The leader renews: renewTime moves on every object (seconds in the annotations).
        check(wait_for(lambda: all(r["renewTime"][:19] != old["renewTime"][:19] for r, old in zip(
            s.cluster.records(lock, s.ns, name), before)), 3 * RETRY + 1),
            f"{lock}: renewTime did not advance: {s.cluster.records(lock, s.ns, name)}")
        check(not other.events("STARTED"), f"{lock}: both lead")
        # Handover: the release, then the other one takes it, one more transition.
        first.signal(signal.SIGTERM)
        check(wait_for(other.leading, 5), f"{lock}: no handover")
        check(first.proc.wait(10) == 0, f"{lock}: the first leader did not stop cleanly")
        check(wait_for(lambda: set(s.cluster.holder(lock, s.ns, name)) == {other.identity}, 5),
              f"{lock}: after handover the server says {s.cluster.holder(lock, s.ns, name)}")
        check_records(s, lock, name, other.identity, LEASE, 1)
        # The last one releases: holder "", leaseDurationSeconds 1, transitions kept.
        other.signal(signal.SIGTERM)
        check(other.proc.wait(10) == 0, f"{lock}: did not stop cleanly")
        check_records(s, lock, name, "", 1, 1)
        print(f"    {lock}: elected, recorded on {len(before)} object(s) in client-go's form, "
              f"renewed, handed over, released")


# The interop scenario's failover bounds, by the successor's kind (whoever held the lease).
# A qcm successor watches the Lease: it sees a release at once and tries exactly when the lease
# it observed expires, so the bounds of the scenarios above hold. A client-go successor only
# polls, retryPeriod x [1, 2.2) after each try completes (wait.JitterUntil, JitterFactor 1.2,
# sliding), so:
#   SIGTERM  the release is seen at its next poll: < 2.2 x retryPeriod after the release.
#   SIGKILL  it sees the last renewal at its first poll after it, < 2.2 x retryPeriod later
#            (that poll's local time is its observedTime), the lease expires leaseDuration
#            after that, and it tries at its next poll, < 2.2 x retryPeriod later again:
#            < leaseDuration + 4.4 x retryPeriod after the last renewal, which was no later
#            than the kill. (The standbys have all observed the leader before the kill.)
# GO_SLACK covers what the polls' waits leave out: the tries themselves (a poll's wait starts
# when its try completes; a try is a get, and an update for the acquiring one), the release's
# own get and update, and the goroutine that logs STARTED.
GO_POLL = 2.2 * RETRY
GO_SLACK = 0.3
INTEROP_BOUNDS = {
    (signal.SIGKILL, "qcm"): CRASH_BOUND,
    (signal.SIGTERM, "qcm"): GRACEFUL_BOUND,
    (signal.SIGKILL, "client-go"): LEASE + 2 * GO_POLL + GO_SLACK,
    (signal.SIGTERM, "client-go"): GO_POLL + GO_SLACK,
}
INTEROP_CYCLES = 12


def interop(s):
    try:
        go_binary = go_candidate(s.go)
    except RuntimeError as error:
        raise Failure(str(error)) from None

    def spawn(kind):
        if kind == "qcm":
            return s.spawn(release=True, prefix="qcm", kind="qcm")
        return s.spawn(release=True, prefix="go", kind="client-go", binary=go_binary)

    def standbys(leader, kind=None):
        return [c for c in s.candidates
                if c.alive() and c is not leader and kind in (None, c.kind)]

    def settle(leader, what):
        """Every standby has observed `leader` (logged NEWLEADER with its identity)."""
        def unaware():
            return [c.identity for c in standbys(leader)
                    if not any(f.get("id") == leader.identity for _, _, f in c.events("NEWLEADER"))]
        check(wait_for(lambda: not unaware(), GO_POLL + 3),
              f"{what}: {unaware()} did not observe {leader.identity} as leader")

    def lease():
        return s.cluster.records("leases", s.ns, s.lock_name)[0]

    for kind in ("qcm", "client-go", "qcm", "client-go"):
        spawn(kind)
    leader, _ = wait_for_leader(s.candidates, 15)
    check(leader, "nobody leads")
    settle(leader, "start")
    end = time.monotonic() + 2 * RETRY
    while time.monotonic() < end:
        check(leaders(s.candidates) == [leader],
              f"leaders: {[c.identity for c in leaders(s.candidates)]}")
        time.sleep(0.05)
    check(wait_for(lambda: lease()["holderIdentity"] == leader.identity, 5),
          f"the Lease says {lease()['holderIdentity']!r}, not {leader.identity}")
    watch = LeaseWatch(s.cluster, s.ns, s.lock_name)
    try:
        check(wait_for(watch.versions, 10), "kubectl's watch of the Lease showed nothing")
        handovers = []  # (from kind, to kind, signal, failover s)
        signalled = {"qcm": 0, "client-go": 0}
        for cycle in range(INTEROP_CYCLES):
            # qcm -> client-go: client-go standbys only (a watching qcm standby would win).
            # client-go -> qcm: the fleet stays mixed, two qcm standbys and a client-go one.
            if leader.kind == "qcm":
                for c in standbys(leader, "qcm"):
                    c.stop()
                while len(standbys(leader, "client-go")) < 2:
                    spawn("client-go")
            else:
                while len(standbys(leader, "qcm")) < 2:
                    spawn("qcm")
                while len(standbys(leader, "client-go")) < 1:
                    spawn("client-go")
            what = f"cycle {cycle}"
            settle(leader, what)
            check(leaders(s.candidates) == [leader],
                  f"{what}: leaders: {[c.identity for c in leaders(s.candidates)]}")
            before = lease()
            check(before["holderIdentity"] == leader.identity,
                  f"{what}: the Lease says {before['holderIdentity']!r}, not {leader.identity}")
            # Each direction alternately by SIGKILL and by SIGTERM (a release).
            sig = signal.SIGKILL if signalled[leader.kind] % 2 == 0 else signal.SIGTERM
            signalled[leader.kind] += 1
            pool = standbys(leader)
            t = leader.signal(sig)
            new, started = wait_for_leader(pool, max(INTEROP_BOUNDS.values()) + 5)
            check(new, f"{what}: nobody took over from {leader.identity} ({sig.name})")
            took = started - t
            bound = INTEROP_BOUNDS[(sig, new.kind)]
            handovers.append((leader.kind, new.kind, sig, took))
            check(took <= bound, f"{what}: {leader.kind} -> {new.kind} by {sig.name} took "
                                 f"{took:.3f} s > {bound:.1f} s")
            check([c for c in leaders(s.candidates) if c is not leader] == [new],
                  f"{what}: leaders: {[c.identity for c in leaders(s.candidates)]}")
            if sig == signal.SIGTERM:
                check(leader.proc.wait(10) == 0, f"{what}: {leader.identity} did not exit 0")
                check(leader.events("FINISHED"), f"{what}: {leader.identity} did not finish")
            # kubectl: the new holder, one more transition, a new acquireTime.
            check(wait_for(lambda: lease()["holderIdentity"] == new.identity, 5),
                  f"{what}: the Lease says {lease()['holderIdentity']!r}, not {new.identity}")
            after = lease()
            check(after["leaderTransitions"] == before["leaderTransitions"] + 1,
                  f"{what}: leaseTransitions {before['leaderTransitions']} -> "
                  f"{after['leaderTransitions']} on {leader.kind} -> {new.kind}")
            check(after["acquireTime"] != before["acquireTime"],
                  f"{what}: acquireTime unchanged on {leader.kind} -> {new.kind}")
            leader = new
    finally:
        ended = watch.stop()
    check(ended is None, f"kubectl's watch of the Lease ended early: {ended}")

    directions = {(a, b, sig) for a, b, sig, _ in handovers}
    for a, b in (("qcm", "client-go"), ("client-go", "qcm")):
        for sig in (signal.SIGKILL, signal.SIGTERM):
            check((a, b, sig) in directions, f"no {a} -> {b} handover by {sig.name}: {handovers}")
    for (a, b, sig) in sorted(directions, key=str):
        took = [t for x, y, g, t in handovers if (x, y, g) == (a, b, sig)]
        print(f"    {a} -> {b} by {sig.name}: {len(took)}x, {min(took):.3f}-{max(took):.3f} s "
              f"(bound {INTEROP_BOUNDS[(sig, b)]:.1f} s)")

    # Every version of the Lease, whoever wrote it: a renewal keeps leaseTransitions and
    # acquireTime, a release keeps leaseTransitions (holder "", leaseDurationSeconds 1; both
    # implementations set acquireTime to the release's time), a new holder adds exactly one
    # transition and writes a new acquireTime.
    kinds = {c.identity: c.kind for c in s.candidates}
    versions = watch.versions()
    takeovers, releases, renewals = [], [], 0
    for (rv_a, a), (rv_b, b) in zip(versions, versions[1:]):
        holder_a, holder_b = a.get("holderIdentity", ""), b.get("holderIdentity", "")
        trans_a, trans_b = a.get("leaseTransitions", 0), b.get("leaseTransitions", 0)
        what = f"Lease version {rv_a} -> {rv_b}: {a} -> {b}"
        if holder_b and holder_b == holder_a:
            renewals += 1
            check(trans_b == trans_a and b.get("acquireTime") == a.get("acquireTime"),
                  f"{what}: a renewal by {kinds.get(holder_b)} changed leaseTransitions or "
                  f"acquireTime")
        elif not holder_b:
            check(holder_a and trans_b == trans_a and b.get("leaseDurationSeconds") == 1,
                  f"{what}: not a release")
            releases.append(kinds.get(holder_a))
        else:
            check(trans_b == trans_a + 1 and b.get("acquireTime") != a.get("acquireTime"),
                  f"{what}: {kinds.get(holder_b)} took over without one more transition and a "
                  f"new acquireTime")
            takeovers.append(kinds.get(holder_b))
    check(len(takeovers) == len(handovers),
          f"the Lease's watch shows {len(takeovers)} new holders, not {len(handovers)}")
    check(versions[-1][1].get("leaseTransitions", 0)
          == versions[0][1].get("leaseTransitions", 0) + len(handovers),
          "leaseTransitions did not grow by the number of handovers")
    for kind in ("qcm", "client-go"):
        check(kind in takeovers, f"no takeover written by {kind}: {takeovers}")
        check(kind in releases, f"no release written by {kind}: {releases}")
    print(f"    the Lease: {len(versions)} versions seen, {renewals} renewals, "
          f"{len(releases)} releases ({releases.count('qcm')} by qcm), {len(takeovers)} "
          f"takeovers ({takeovers.count('qcm')} by qcm), leaseTransitions "
          f"{versions[0][1].get('leaseTransitions')} -> {versions[-1][1].get('leaseTransitions')}")


SCENARIOS = [one_leader, crash_failover, graceful_failover, kill_cycles, pause, partition,
             lock_types, interop]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--cluster", default=os.environ.get("QCM_E2E_DIR"))
    parser.add_argument("--only", action="append")
    parser.add_argument("--go", help="the Go tool that builds the client-go candidate")
    args = parser.parse_args()
    if not args.cluster:
        sys.exit("no cluster: run through ctest (fixture e2e_cluster) or pass --cluster")
    cluster = Cluster(args.cluster)
    passed = failed = 0
    for scenario in SCENARIOS:
        if args.only and scenario.__name__ not in args.only:
            continue
        s = Scenario(args.binary, cluster, scenario.__name__, go=args.go)
        started = time.monotonic()
        try:
            scenario(s)
            s.final_checks()
            passed += 1
            print(f"PASS {scenario.__name__} ({time.monotonic() - started:.1f} s)", flush=True)
        except Exception as error:  # noqa: BLE001 - every failure is reported
            failed += 1
            print(f"FAIL {scenario.__name__}: {error}", flush=True)
            if not isinstance(error, Failure):
                traceback.print_exc()
            for c in s.candidates:
                for line in c.errors[-8:]:
                    print(f"    {c.identity} stderr: {line}")
        finally:
            s.close()
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
