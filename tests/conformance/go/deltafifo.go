// SPDX-License-Identifier: Apache-2.0
// The client-go side of the DeltaFifo traces (../README.md, "DeltaFifo traces"): runs a trace
// on k8s.io/client-go/tools/cache.DeltaFIFO with the informer's indexer as knownObjects.
package main

import (
	"bufio"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"
)

// sortedIndexer is the informer's indexer (NewIndexer with DeletionHandlingMetaNamespaceKeyFunc
// and the namespace index, as sharedIndexInformer builds it) listing its keys sorted. The
// indexer lists in Go map order, and DeltaFIFO takes from that list the order in which Resync
// and Replace queue new keys; sorting here makes client-go's output a function of the trace.
type sortedIndexer struct{ cache.Indexer }

func (s sortedIndexer) ListKeys() []string {
	keys := s.Indexer.ListKeys()
	sort.Strings(keys)
	return keys
}

// object parses "<namespace>/<name>@<resourceVersion>" or "<name>@<resourceVersion>".
func (p *parser) object() *unstructured.Unstructured {
	t := p.next()
	at := strings.LastIndexByte(t, '@')
	if at < 0 {
		fail(p.line, "not an object (key@resourceVersion): %s", t)
	}
	key, rv := t[:at], t[at+1:]
	ns, name := "", key
	if parts := strings.Split(key, "/"); len(parts) == 2 {
		ns, name = parts[0], parts[1]
	} else if len(parts) > 2 {
		fail(p.line, "not an object key: %s", key)
	}
	if name == "" || rv == "" {
		fail(p.line, "an object needs a name and a resourceVersion: %s", t)
	}
	u := &unstructured.Unstructured{Object: map[string]interface{}{"t": ""}}
	u.SetNamespace(ns)
	u.SetName(name)
	u.SetResourceVersion(rv)
	return u
}

func describeObject(obj interface{}) string {
	if obj == nil {
		return "nil"
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return fmt.Sprintf("unexpected(%T)", obj)
	}
	key, _ := cache.MetaNamespaceKeyFunc(u)
	s := key + "@" + u.GetResourceVersion()
	if t, _ := u.Object["t"].(string); t != "" {
		s += "+" + t
	}
	return s
}

func describeDeltas(deltas cache.Deltas) string {
	var out []string
	for _, d := range deltas {
		if t, ok := d.Object.(cache.DeletedFinalStateUnknown); ok {
			out = append(out, fmt.Sprintf("%s tombstone(%s:%s)", d.Type, t.Key, describeObject(t.Obj)))
		} else {
			out = append(out, fmt.Sprintf("%s %s", d.Type, describeObject(d.Object)))
		}
	}
	return strings.Join(out, ", ")
}

// transform appends "t" to the object's "t" field (so a second transformation would show),
// and fails for resourceVersion "bad".
func transform(obj interface{}) (interface{}, error) {
	u := obj.(*unstructured.Unstructured)
	if u.GetResourceVersion() == "bad" {
		return nil, errors.New("transform refuses resourceVersion bad")
	}
	t, _ := u.Object["t"].(string)
	u.Object["t"] = t + "t"
	return u, nil
}

// applyDeltas is what the informer's processDeltas does to its store (controller.go), without
// the handler calls.
func applyDeltas(store cache.Store, deltas cache.Deltas) error {
	for _, d := range deltas {
		switch d.Type {
		case cache.Sync, cache.Replaced, cache.Added, cache.Updated:
			if _, exists, err := store.Get(d.Object); err == nil && exists {
				if err := store.Update(d.Object); err != nil {
					return err
				}
			} else if err := store.Add(d.Object); err != nil {
				return err
			}
		case cache.Deleted:
			if err := store.Delete(d.Object); err != nil {
				return err
			}
		}
	}
	return nil
}

// queuedKeys reads the DeltaFIFO's queue: client-go has no accessor for it any more.
func queuedKeys(f *cache.DeltaFIFO, line int) []string {
	q := reflect.ValueOf(f).Elem().FieldByName("queue")
	if !q.IsValid() || q.Kind() != reflect.Slice {
		fail(line, "cannot find client-go's DeltaFIFO.queue")
	}
	keys := make([]string, q.Len())
	for i := range keys {
		keys[i] = q.Index(i).String()
	}
	return keys
}

func errorOr(err error) string {
	if err != nil {
		return "error"
	}
	return "ok"
}

func orNone(words []string) string {
	if len(words) == 0 {
		return "none"
	}
	return strings.Join(words, " ")
}

func runDeltaFIFO(subject *parser, subjectLine string, in *bufio.Scanner, out *bufio.Writer, lineNumber int) {
	options := cache.DeltaFIFOOptions{KeyFunction: cache.MetaNamespaceKeyFunc}
	var known cache.Indexer
	for subject.pos < len(subject.tokens) {
		switch option := subject.next(); option {
		case "known":
			known = cache.NewIndexer(cache.DeletionHandlingMetaNamespaceKeyFunc,
				cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
			options.KnownObjects = sortedIndexer{known}
		case "replaced":
			options.EmitDeltaTypeReplaced = true
		case "transform":
			options.Transformer = transform
		default:
			fail(lineNumber, "unknown deltafifo option: %s", option)
		}
	}
	fmt.Fprintf(out, "%s -> ok\n", subjectLine)
	f := cache.NewDeltaFIFOWithOptions(options)

	for {
		line, p := nextLine(in, &lineNumber)
		if p == nil {
			return
		}
		op := p.next()
		needKnown := func() {
			if known == nil {
				fail(lineNumber, "%s needs a known store (deltafifo known)", op)
			}
		}
		result := "ok"
		switch op {
		case "add":
			result = errorOr(f.Add(p.object()))
		case "update":
			result = errorOr(f.Update(p.object()))
		case "delete":
			result = errorOr(f.Delete(p.object()))
		case "replace":
			list := []interface{}{}
			for p.pos < len(p.tokens) {
				list = append(list, p.object())
			}
			result = errorOr(f.Replace(list, ""))
		case "resync":
			result = errorOr(f.Resync())
		case "pop":
			fails := false
			if p.pos < len(p.tokens) {
				if p.next() != "fail" {
					fail(lineNumber, "pop takes only \"fail\"")
				}
				fails = true
			}
			if len(queuedKeys(f, lineNumber)) == 0 && !f.IsClosed() {
				result = "empty" // Pop would block
				break
			}
			seen := ""
			_, err := f.Pop(func(obj interface{}, isInInitialList bool) error {
				deltas := obj.(cache.Deltas)
				seen = fmt.Sprintf("%s; initial=%t", describeDeltas(deltas), isInInitialList)
				if fails {
					return errors.New("process fails")
				}
				if known != nil {
					return applyDeltas(known, deltas)
				}
				return nil
			})
			switch {
			case errors.Is(err, cache.ErrFIFOClosed):
				result = "closed"
			case err != nil:
				result = seen + "; error"
			default:
				result = seen
			}
		case "hassynced":
			result = fmt.Sprint(f.HasSynced())
		case "close":
			f.Close()
		case "isclosed":
			result = fmt.Sprint(f.IsClosed())
		case "keys":
			result = orNone(queuedKeys(f, lineNumber))
		case "known":
			needKnown()
			var objects []string
			for _, obj := range known.List() {
				objects = append(objects, describeObject(obj))
			}
			sort.Strings(objects)
			result = orNone(objects)
		case "store":
			needKnown()
			obj := p.object()
			if _, exists, _ := known.Get(obj); exists {
				result = errorOr(known.Update(obj))
			} else {
				result = errorOr(known.Add(obj))
			}
		case "unstore":
			needKnown()
			key := p.next()
			if obj, exists, _ := known.GetByKey(key); exists {
				result = errorOr(known.Delete(obj))
			} else {
				result = "absent"
			}
		default:
			fail(lineNumber, "unknown deltafifo operation: %s", op)
		}
		if p.pos != len(p.tokens) {
			fail(lineNumber, "unexpected argument: %s", p.tokens[p.pos])
		}
		fmt.Fprintf(out, "%s -> %s\n", line, result)
	}
}
