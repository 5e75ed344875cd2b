#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the decode benchmark's payloads from ../shared/testdata/pod-nginx.json.

    gen_pods.py --out DIR [--count 1000] [--seed 1]

DIR/podlist.json      a PodList of COUNT pods, as a list response
DIR/podwatch.jsonl    the same pods as a watch stream: one {"type":"ADDED","object":...} per line
Every pod gets its own name, uid and resourceVersion, and a varying number of labels and
annotations of varying length, so sizes range from about 3 to 12 KB; each has a node selector
and resource limits, which the typed-reads cases read. Both benchmark sides decode exactly
these bytes.
"""
import argparse
import json
import pathlib
import random

HERE = pathlib.Path(__file__).resolve().parent
SOURCE = HERE.parent.parent.parent / "shared" / "testdata" / "pod-nginx.json"


def pods(count, seed):
    rng = random.Random(seed)
    base = json.loads(SOURCE.read_text())
    for i in range(count):
        pod = json.loads(json.dumps(base))
        meta = pod["metadata"]
        meta["name"] = f"nginx-{i:06d}-{rng.randrange(16**5):05x}"
        meta["uid"] = f"{rng.randrange(16**8):08x}-{rng.randrange(16**4):04x}-4{rng.randrange(16**3):03x}-8{rng.randrange(16**3):03x}-{rng.randrange(16**12):012x}"
        meta["resourceVersion"] = str(100000 + i)
        pod["spec"]["nodeSelector"] = {"disktype": rng.choice(["ssd", "hdd"])}
        pod["spec"]["containers"][0]["resources"]["limits"] = {"cpu": f"{rng.randrange(1, 4000)}m", "memory": "128Mi"}
        labels = meta.setdefault("labels", {})
        for k in range(rng.randrange(0, 12)):
            labels[f"example.com/label-{k}"] = "v" * rng.randrange(1, 40)
        annotations = meta.setdefault("annotations", {})
        for k in range(rng.randrange(0, 6)):
            annotations[f"example.com/note-{k}"] = "".join(rng.choice("abcdefghij ") for _ in range(rng.randrange(10, 1500)))
        yield pod


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=pathlib.Path, required=True)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    items = list(pods(args.count, args.seed))
    # Items of a list carry no apiVersion and kind, as the apiserver writes them.
    listed = [{k: v for k, v in pod.items() if k not in ("apiVersion", "kind")} for pod in items]
    (args.out / "podlist.json").write_text(json.dumps(
        {"kind": "PodList", "apiVersion": "v1", "metadata": {"resourceVersion": "200000"}, "items": listed},
        separators=(",", ":")))
    with open(args.out / "podwatch.jsonl", "w") as f:
        for pod in items:
            f.write(json.dumps({"type": "ADDED", "object": pod}, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
