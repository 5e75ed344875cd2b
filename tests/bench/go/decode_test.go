// SPDX-License-Identifier: Apache-2.0
// client-go's side of tests/bench/bench_decode.cpp: the same bytes ($QCM_BENCH_DATA, written by
// gen_pods.py), decoded the way client-go decodes them.
package bench

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes/scheme"
	kjson "sigs.k8s.io/json"
)

func payload(b *testing.B, name string) []byte {
	dir := os.Getenv("QCM_BENCH_DATA")
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		b.Fatalf("run gen_pods.py and set QCM_BENCH_DATA: %v", err)
	}
	return data
}

// Typed: the clientset's deserializer (k8s.io/apimachinery's JSON serializer) into corev1;
// then `use` of each pod, when given.
func decodeListTyped(b *testing.B, use func(*testing.B, *corev1.Pod)) {
	data := payload(b, "podlist.json")
	decoder := scheme.Codecs.UniversalDeserializer()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		obj, _, err := decoder.Decode(data, nil, nil)
		if err != nil || len(obj.(*corev1.PodList).Items) != 1000 {
			b.Fatalf("decode: %v", err)
		}
		if use != nil {
			list := obj.(*corev1.PodList)
			for j := range list.Items {
				use(b, &list.Items[j])
			}
		}
	}
}

func BenchmarkDecodeListTyped(b *testing.B) {
	decodeListTyped(b, nil)
}

// Unstructured: the dynamic client's codec.
func BenchmarkDecodeListUnstructured(b *testing.B) {
	data := payload(b, "podlist.json")
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		obj, _, err := unstructured.UnstructuredJSONScheme.Decode(data, nil, nil)
		if err != nil || len(obj.(*unstructured.UnstructuredList).Items) != 1000 {
			b.Fatalf("decode: %v", err)
		}
	}
}

// A watch stream: each line is a metav1.WatchEvent (decoded as the JSON serializer does, with
// sigs.k8s.io/json) whose object is then decoded, as client-go's watch decoder does.
func decodeWatch(b *testing.B, data []byte, object func([]byte) error) {
	scanner := bufio.NewScanner(bytes.NewReader(data))
	scanner.Buffer(make([]byte, 1<<20), 1<<24)
	events := 0
	for scanner.Scan() {
		var event metav1.WatchEvent
		if err := kjson.UnmarshalCaseSensitivePreserveInts(scanner.Bytes(), &event); err != nil {
			b.Fatal(err)
		}
		if err := object(event.Object.Raw); err != nil {
			b.Fatal(err)
		}
		events++
	}
	if events != 1000 {
		b.Fatalf("%d events", events)
	}
}

// The watch stream decoded typed; then `use` of each pod, when given.
func decodeWatchTyped(b *testing.B, use func(*testing.B, *corev1.Pod)) {
	data := payload(b, "podwatch.jsonl")
	decoder := scheme.Codecs.UniversalDeserializer()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		decodeWatch(b, data, func(raw []byte) error {
			obj, _, err := decoder.Decode(raw, nil, nil)
			if err == nil && use != nil {
				use(b, obj.(*corev1.Pod))
			}
			return err
		})
	}
}

func BenchmarkDecodeWatchTyped(b *testing.B) {
	decodeWatchTyped(b, nil)
}

func BenchmarkDecodeWatchUnstructured(b *testing.B) {
	data := payload(b, "podwatch.jsonl")
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		decodeWatch(b, data, func(raw []byte) error {
			_, _, err := unstructured.UnstructuredJSONScheme.Decode(raw, nil, nil)
			return err
		})
	}
}

// The five reads bench_decode.cpp's TypedReads cases make of each pod: an image, a port, a
// resource limit, a node selector and a label.
func readFields(b *testing.B, pod *corev1.Pod) {
	c := &pod.Spec.Containers[0]
	limit := c.Resources.Limits[corev1.ResourceCPU]
	if c.Image == "" || c.Ports[0].ContainerPort != 80 || limit.IsZero() ||
		pod.Spec.NodeSelector["disktype"] == "" || pod.Labels["app"] == "" {
		b.Fatalf("pod %s lacks a field the case reads", pod.Name)
	}
}

func BenchmarkDecodeListTypedReads(b *testing.B) {
	decodeListTyped(b, readFields)
}

func BenchmarkDecodeWatchTypedReads(b *testing.B) {
	decodeWatchTyped(b, readFields)
}
