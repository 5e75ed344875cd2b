#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# The runner's verdict on (b) pairs (run_bench.pair_verdict): "bounded" only where the pair's
# own string floor, in the far placement throughout, proves the target out of reach.
import pathlib
import sys
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import run_bench  # noqa: E402

NEAR, FAR = 100, 400
MS = 1e6


def pair(q, g, string_floor, round_trips=(NEAR, NEAR, NEAR)):
    # (before, between, after, qcm, client-go, Queue<int>, raw keys, floor, string floor)
    return (*round_trips, q * MS, g * MS, 2 * MS, 3 * MS, 1 * MS,
            None if string_floor is None else string_floor * MS)


class PairVerdict(unittest.TestCase):
    def verdict(self, *args, **kwargs):
        return run_bench.pair_verdict(pair(*args, **kwargs), 1.5)

    def test_met_in_either_placement(self):
        self.assertEqual(self.verdict(4.0, 6.0, 2.5), "yes")
        self.assertEqual(self.verdict(4.0, 6.0, 5.9, (FAR, FAR, FAR)), "yes")

    def test_missed_near_is_no_whatever_the_floor(self):
        self.assertEqual(self.verdict(4.5, 6.0, 2.5), "NO")
        self.assertEqual(self.verdict(4.5, 6.0, 5.0), "NO")

    def test_far_pair_bounded_by_its_string_floor(self):
        # reachable 7.5 / 6.0 = 1.25x < 1.5x, and qcm 7.5 / 7.0 >= 1.0x
        self.assertEqual(self.verdict(7.0, 7.5, 6.0, (FAR, FAR, FAR)), "bounded")

    def test_far_pair_slower_than_client_go_is_no(self):
        self.assertEqual(self.verdict(8.0, 7.5, 6.0, (FAR, FAR, FAR)), "NO")

    def test_far_pair_whose_floor_leaves_room_is_no(self):
        # reachable 7.5 / 4.0 = 1.9x: the floor does not bound this pair
        self.assertEqual(self.verdict(7.0, 7.5, 4.0, (FAR, FAR, FAR)), "NO")

    def test_mixed_or_unmeasured_placement_is_no(self):
        for round_trips in [(NEAR, FAR, FAR), (FAR, FAR, NEAR), (FAR, None, FAR)]:
            self.assertEqual(self.verdict(7.0, 7.5, 6.0, round_trips), "NO", round_trips)

    def test_missing_side_is_no(self):
        self.assertEqual(self.verdict(7.0, 7.5, None, (FAR, FAR, FAR)), "NO")
        self.assertEqual(run_bench.pair_verdict((FAR, FAR, FAR, None, 7.5 * MS, 0, 0, 0, MS),
                                                1.5), "NO")


if __name__ == "__main__":
    unittest.main()
