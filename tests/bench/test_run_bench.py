#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# The runner's verdict on (b) pairs (run_bench.pair_verdict): "bounded" only where the pair's
# own inbox floor, run in slices between client-go's, proves the target out of reach; and the
# latency verdict (informerbench.judge_latency), and DeltaFifo (c)'s (deltafifobench).
import pathlib
import sys
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import benchruns  # noqa: E402
import deltafifobench  # noqa: E402
import informerbench  # noqa: E402
import latencyreplay  # noqa: E402
import run_bench  # noqa: E402

NEAR, FAR = 100, 400
MS = 1e6


def pair(q, g, inbox_floor, round_trips=(NEAR,) * 9, string_floor=2.5):
    return run_bench.Pair(list(round_trips), None if q is None else q * MS, g * MS,
                          None if inbox_floor is None else inbox_floor * MS,
                          2 * MS, 3 * MS, string_floor * MS, 1 * MS)


class PairVerdict(unittest.TestCase):
    def verdict(self, *args, **kwargs):
        return run_bench.pair_verdict(pair(*args, **kwargs), 1.5)

    def test_met_in_either_placement(self):
        self.assertEqual(self.verdict(4.0, 6.0, 2.5), "yes")
        self.assertEqual(self.verdict(4.0, 6.0, 5.9, (FAR,) * 9), "yes")

    def test_missed_where_the_floor_leaves_room_is_no(self):
        self.assertEqual(self.verdict(4.5, 6.0, 2.5), "NO")
        # reachable 7.5 / 4.0 = 1.9x: the floor does not bound this pair, far or not
        self.assertEqual(self.verdict(7.0, 7.5, 4.0, (FAR,) * 9), "NO")

    def test_bounded_by_its_inbox_floor(self):
        # reachable 7.5 / 6.0 = 1.25x < 1.5x, and qcm 7.5 / 7.0 >= 1.0x; the floor ran in the
        # same slices as client-go, so the placements need not be uniform
        for round_trips in [(FAR,) * 9, (NEAR, FAR) * 4 + (FAR,), (NEAR,) * 9]:
            self.assertEqual(self.verdict(7.0, 7.5, 6.0, round_trips), "bounded", round_trips)

    def test_the_string_floor_does_not_bound(self):
        # a one-lock floor at 1.25x client-go bounds nothing when the inbox floor leaves 1.9x
        self.assertEqual(self.verdict(7.0, 7.5, 4.0, (FAR,) * 9, string_floor=6.0), "NO")

    def test_bounded_pair_slower_than_client_go_is_no(self):
        self.assertEqual(self.verdict(8.0, 7.5, 6.0, (FAR,) * 9), "NO")

    def test_missing_side_is_no(self):
        self.assertEqual(self.verdict(7.0, 7.5, None, (FAR,) * 9), "NO")
        self.assertEqual(self.verdict(None, 7.5, 6.0, (FAR,) * 9), "NO")

    def test_far_round_trips_counts_the_measured_ones(self):
        self.assertEqual(benchruns.far_round_trips([NEAR, FAR, None, FAR]), (2, 3))
        self.assertEqual(benchruns.round_trip_columns([NEAR, FAR, None, FAR]),
                         (f"{NEAR}-{FAR}", "2 of 3"))
        self.assertEqual(benchruns.round_trip_columns([None, None]), (None, "0 of 0"))


def c_pair(q, g, floor, object_floor=3.0):
    return deltafifobench.CPair([NEAR] * 9, None if q is None else q * MS, g * MS,
                                None if floor is None else floor * MS, object_floor * MS)


class DeltaFifoCVerdict(unittest.TestCase):
    """(c): "bounded" only where the pair's integer floor (client-go's synchronisation) leaves
    less than 2x and qcm is within 1.1x of it."""

    def test_met(self):
        self.assertEqual(deltafifobench.c_pair_verdict(c_pair(1.5, 3.6, 2.7), 2.0), "yes")

    def test_bounded_by_the_integer_floor(self):
        # the floor leaves 3.6 / 2.7 = 1.33x; qcm 2.6 is under the floor
        self.assertEqual(deltafifobench.c_pair_verdict(c_pair(2.6, 3.6, 2.7), 2.0), "bounded")
        # within 1.1x of it, above it
        self.assertEqual(deltafifobench.c_pair_verdict(c_pair(2.95, 3.6, 2.7), 2.0), "bounded")

    def test_far_over_the_floor_is_no(self):
        self.assertEqual(deltafifobench.c_pair_verdict(c_pair(3.0, 3.6, 2.7), 2.0), "NO")

    def test_a_batching_floor_bounds_nothing(self):
        # threads on one vCPU: the floor hands over in batches and leaves 16x
        self.assertEqual(deltafifobench.c_pair_verdict(c_pair(2.6, 3.6, 0.22), 2.0), "NO")

    def test_missing_side_is_no(self):
        self.assertEqual(deltafifobench.c_pair_verdict(c_pair(None, 3.6, 2.7), 2.0), "NO")
        self.assertEqual(deltafifobench.c_pair_verdict(c_pair(2.6, 3.6, None), 2.0), "NO")

    def test_the_row_needs_every_pair(self):
        bounded, no, met = c_pair(2.6, 3.6, 2.7), c_pair(2.6, 3.6, 0.22), c_pair(1.5, 3.6, 2.7)
        self.assertEqual(deltafifobench.c_verdict([bounded, met], 1.5, 2.0), "bounded")
        self.assertEqual(deltafifobench.c_verdict([bounded, no], 1.4, 2.0), "NO")
        self.assertEqual(deltafifobench.c_verdict([bounded, no], 2.1, 2.0), "yes")
        self.assertEqual(deltafifobench.c_verdict([], 1.4, 2.0), "NO")


class LatencyVerdict(unittest.TestCase):
    """informerbench.judge_latency: p50 <= 0.8x and p99 <= 1.0x client-go's, or 1.1x the raw
    watch's figure where the target lies below it."""

    def rows(self, qcm, client_go, raw):
        def runs(p50, p99):
            return [{"p50Ms": p50, "p99Ms": p99}]
        results = {"qcm": runs(*qcm), informerbench.TYPED_JSON: runs(*client_go),
                   informerbench.RAW[0]: runs(*raw)}
        return {row[1]: (row[2], row[5], row[7]) for row in
                informerbench.judge_latency("case", results, (informerbench.TYPED_JSON,))}

    def test_against_client_go_where_the_floor_leaves_room(self):
        rows = self.rows(qcm=(0.25, 2.0), client_go=(0.50, 2.0), raw=(0.10, 1.0))
        self.assertEqual(rows["latency p50"], (informerbench.TYPED_JSON, 0.5, "yes"))
        self.assertEqual(rows["latency p99"], (informerbench.TYPED_JSON, 1.0, "yes"))
        rows = self.rows(qcm=(0.45, 2.1), client_go=(0.50, 2.0), raw=(0.10, 1.0))
        self.assertEqual(rows["latency p50"][2], "NO")
        self.assertEqual(rows["latency p99"][2], "NO")

    def test_against_the_floor_where_the_target_lies_below_it(self):
        # 0.8 x 3.0 = 2.4 < the raw reader's 2.9: judged on 1.1x that floor
        rows = self.rows(qcm=(3.1, 9.0), client_go=(3.0, 10.0), raw=(2.9, 8.0))
        against, ratio, met = rows["latency p50"]
        self.assertTrue(against.startswith("raw watch floor"), against)
        self.assertAlmostEqual(ratio, 3.1 / 2.9)
        self.assertEqual(met, "yes")
        rows = self.rows(qcm=(3.3, 9.0), client_go=(3.0, 10.0), raw=(2.9, 8.0))
        self.assertEqual(rows["latency p50"][2], "NO")

    def test_client_go_at_or_under_the_floor_is_the_bound(self):
        # every side within noise of the raw reader (RESULTS.md run 23: the server's 37 ms):
        # the bound is the lower figure, client-go's, and the target 1.1x it
        rows = self.rows(qcm=(36.9, 114.1), client_go=(37.1, 112.1), raw=(37.5, 115.1))
        for metric, ratio in (("latency p50", 36.9 / 37.1), ("latency p99", 114.1 / 112.1)):
            against, got, met = rows[metric]
            self.assertIn("at the raw watch floor", against)
            self.assertAlmostEqual(got, ratio)
            self.assertEqual(met, "yes")
        rows = self.rows(qcm=(41.0, 114.1), client_go=(37.1, 112.1), raw=(37.5, 115.1))
        self.assertEqual(rows["latency p50"][2], "NO")


class QtFloorVerdict(unittest.TestCase):
    """judge_latency's second bound: where 1.1x the Qt floor's ratio (in rounds of its own,
    against the client-go beside it) is over the target, the target is 1.1x that ratio."""

    def rows(self, qcm, client_go, floor, beside):
        def runs(p50, p99):
            return [{"p50Ms": p50, "p99Ms": p99}]
        results = {"qcm": runs(*qcm), informerbench.TYPED_JSON: runs(*client_go),
                   informerbench.RAW[0]: runs(0.05, 0.5), informerbench.QT_FLOOR[0]: runs(*floor),
                   informerbench.beside_floor(informerbench.TYPED_JSON): runs(*beside)}
        return {row[1]: (row[2], row[5], row[6], row[7]) for row in
                informerbench.judge_latency("case", results, (informerbench.TYPED_JSON,))}

    def test_a_floor_that_meets_the_target_changes_nothing(self):
        # the floor at 0.5x and 0.8x its client-go: qcm is held to 0.8x and 1.0x
        rows = self.rows(qcm=(0.45, 1.1), client_go=(0.50, 1.0), floor=(0.2, 0.8),
                         beside=(0.4, 1.0))
        self.assertEqual(rows["latency p50"], (informerbench.TYPED_JSON, 0.9, 0.8, "NO"))
        self.assertEqual(rows["latency p99"], (informerbench.TYPED_JSON, 1.1, 1.0, "NO"))

    def test_a_floor_over_the_target_sets_1_1x_its_ratio(self):
        # the floor at 0.85x its client-go's p50 (its own rounds): reachable 0.935x
        rows = self.rows(qcm=(0.46, 1.0), client_go=(0.50, 1.0), floor=(0.34, 0.9),
                         beside=(0.40, 1.0))
        against, ratio, target, met = rows["latency p50"]
        self.assertIn("Qt floor 0.85x", against)
        self.assertAlmostEqual(ratio, 0.92)
        self.assertAlmostEqual(target, 1.1 * 0.85)
        self.assertEqual(met, "yes")
        # p99: the floor at 0.9x meets 1.0x, so qcm's 1.0x is judged on 1.0x
        self.assertEqual(rows["latency p99"], (informerbench.TYPED_JSON, 1.0, 1.0, "yes"))
        rows = self.rows(qcm=(0.48, 1.3), client_go=(0.50, 1.0), floor=(0.34, 1.2),
                         beside=(0.40, 1.0))
        self.assertEqual(rows["latency p50"][3], "NO")  # 0.96x > 0.935x
        self.assertEqual(rows["latency p99"][3], "yes")  # 1.3x <= 1.1 x 1.2x
        self.assertAlmostEqual(rows["latency p99"][2], 1.32)

    def test_a_floor_just_under_the_target_sets_1_1x_its_ratio(self):
        # the floor at 0.79x its client-go's p50: 1.1x that (0.869x) is over 0.8x, so qcm's
        # 0.83x is judged on 0.869x, as it would be with the floor at 0.81x (0.891x)
        rows = self.rows(qcm=(0.415, 1.0), client_go=(0.50, 1.0), floor=(0.316, 0.9),
                         beside=(0.40, 1.0))
        against, ratio, target, met = rows["latency p50"]
        self.assertIn("Qt floor 0.79x", against)
        self.assertAlmostEqual(target, 1.1 * 0.79)
        self.assertEqual(met, "yes")
        rows = self.rows(qcm=(0.45, 1.0), client_go=(0.50, 1.0), floor=(0.316, 0.9),
                         beside=(0.40, 1.0))
        self.assertEqual(rows["latency p50"][3], "NO")  # 0.9x > 0.869x
        # p99: 1.1 x 0.9x = 0.99x is under 1.0x, so the target stays 1.0x
        self.assertEqual(rows["latency p99"], (informerbench.TYPED_JSON, 1.0, 1.0, "yes"))

    def test_the_floor_is_ignored_without_its_own_client_go(self):
        rows = self.rows(qcm=(0.46, 1.0), client_go=(0.50, 1.0), floor=(0.34, 0.9),
                         beside=(0.40, 1.0))
        self.assertIn("Qt floor", rows["latency p50"][0])
        results = {"qcm": [{"p50Ms": 0.46, "p99Ms": 1.0}],
                   informerbench.TYPED_JSON: [{"p50Ms": 0.5, "p99Ms": 1.0}],
                   informerbench.RAW[0]: [{"p50Ms": 0.05, "p99Ms": 0.5}],
                   informerbench.QT_FLOOR[0]: [{"p50Ms": 0.34, "p99Ms": 0.9}]}
        row = informerbench.judge_latency("case", results, (informerbench.TYPED_JSON,))[0]
        self.assertEqual((row[2], row[7]), (informerbench.TYPED_JSON, "NO"))


class FloorRounds(unittest.TestCase):
    """latencyreplay.with_floor_rounds: the floor in qcm's place, in a round of its own, first
    every other call; the floor round's other sides relabelled."""

    def test_alternates_and_relabels(self):
        calls = []

        def together(order):
            calls.append([side[0] for side in order])
            return {side[0]: len(calls) for side in order}
        both = latencyreplay.with_floor_rounds(together)
        order = latencyreplay.SIDES_REPLAY
        first = both(order)
        second = both(list(reversed(order)))
        qcm, floor = "qcm", informerbench.QT_FLOOR[0]
        self.assertEqual([qcm in c for c in calls], [True, False, False, True])
        self.assertTrue(all(floor not in c or qcm not in c for c in calls))
        self.assertEqual(calls[1], [floor] + [s[0] for s in order[1:]])
        beside = informerbench.beside_floor(informerbench.TYPED_JSON)
        self.assertEqual((first[qcm], first[informerbench.TYPED_JSON], first[floor],
                          first[beside]), (1, 1, 2, 2))
        self.assertEqual((second[floor], second[beside], second[qcm]), (3, 3, 4))
        self.assertEqual(sorted(first), sorted(s[0] for s in latencyreplay.SIDES_REPLAY
                                               + latencyreplay.SIDES_BESIDE_FLOOR))


if __name__ == "__main__":
    unittest.main()
