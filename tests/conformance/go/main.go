package main

import (
	_ "golang.org/x/time/rate"
	_ "k8s.io/client-go/util/workqueue"
	_ "k8s.io/utils/clock/testing"
)

func main() {}
