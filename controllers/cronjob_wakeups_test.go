/*
Copyright 2026 The Caldera Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package controllers

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	testingclock "k8s.io/utils/clock/testing"
)

// steppingClock moves its fake clock to `to` right after the first Now() it answers, as a
// test stepping the clock while a reconcile arms a wake-up would.
type steppingClock struct {
	*testingclock.FakeClock
	to      time.Time
	stepped bool
}

func (c *steppingClock) Now() time.Time {
	now := c.FakeClock.Now()
	if !c.stepped {
		c.stepped = true
		c.SetTime(c.to)
	}
	return now
}

func TestWakeupsFire(t *testing.T) {
	start := time.Date(2026, 1, 1, 10, 0, 1, 0, time.UTC)
	due := start.Add(59 * time.Second)
	key := types.NamespacedName{Namespace: "ns", Name: "cj"}
	cases := map[string]struct {
		clock func() clockStepper
	}{
		"the clock steps past the time after the wake-up is armed": {
			clock: func() clockStepper { return testingclock.NewFakeClock(start) },
		},
		"the clock steps past the time while the wake-up is being armed": {
			clock: func() clockStepper {
				return &steppingClock{FakeClock: testingclock.NewFakeClock(start), to: due.Add(time.Second)}
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			clk := tc.clock()
			w := newWakeups(clk)
			w.at(key, due)
			clk.SetTime(due.Add(time.Second))
			select {
			case ev := <-w.events:
				if got := (types.NamespacedName{Namespace: ev.Object.GetNamespace(), Name: ev.Object.GetName()}); got != key {
					t.Fatalf("woke %v, want %v", got, key)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("no wake-up for %v once the clock passed it", due)
			}
		})
	}
}

// clockStepper is a clock a test sets.
type clockStepper interface {
	clock.Clock
	SetTime(time.Time)
}
