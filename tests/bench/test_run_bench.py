#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# The runner's verdict on (b) pairs (run_bench.pair_verdict): "bounded" only where the pair's
# own inbox floor, run in slices between client-go's, proves the target out of reach.
import pathlib
import sys
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import benchruns  # noqa: E402
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


if __name__ == "__main__":
    unittest.main()
