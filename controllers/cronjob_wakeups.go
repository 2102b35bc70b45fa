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
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/event"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
)

// wakeups enqueues a CronJob at its next schedule time, on the injected clock: a fake clock
// stepped by a test fires them as the real clock does in production (a workqueue's
// RequeueAfter always waits in real time). One timer per CronJob.
type wakeups struct {
	clk    clock.Clock
	events chan event.GenericEvent

	mu     sync.Mutex
	timers map[types.NamespacedName]wakeup
}

type wakeup struct {
	at    time.Time
	timer clock.Timer
	stop  chan struct{}
}

func newWakeups(clk clock.Clock) *wakeups {
	return &wakeups{clk: clk, events: make(chan event.GenericEvent), timers: map[types.NamespacedName]wakeup{}}
}

// at arms the CronJob's wake-up at t, replacing an earlier one at another time.
func (w *wakeups) at(key types.NamespacedName, t time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if cur, ok := w.timers[key]; ok {
		if cur.at.Equal(t) {
			return
		}
		cur.timer.Stop()
		close(cur.stop)
	}
	wait := t.Sub(w.clk.Now())
	if wait <= 0 {
		// Already due (the clock moved on while the reconcile that asked for it ran): a timer
		// of a fake clock would wait for the next step, a real one fires at once; fire now.
		delete(w.timers, key)
		go w.fire(key, t)
		return
	}
	wu := wakeup{at: t, timer: w.clk.NewTimer(wait), stop: make(chan struct{})}
	if !w.clk.Now().Before(t) {
		// The clock stepped past t between reading it and arming the timer, which then
		// waits for a later time than t: fire now.
		wu.timer.Stop()
		delete(w.timers, key)
		go w.fire(key, t)
		return
	}
	w.timers[key] = wu
	go func() {
		select {
		case <-wu.timer.C():
			w.fire(key, t)
		case <-wu.stop:
		}
	}()
}

// fire enqueues the CronJob.
func (w *wakeups) fire(key types.NamespacedName, t time.Time) {
	w.mu.Lock()
	if cur, ok := w.timers[key]; ok && cur.at.Equal(t) {
		delete(w.timers, key)
	}
	w.mu.Unlock()
	w.events <- event.GenericEvent{Object: &batchv1alpha1.CronJob{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}}
}

// cancel drops the CronJob's wake-up.
func (w *wakeups) cancel(key types.NamespacedName) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if cur, ok := w.timers[key]; ok {
		cur.timer.Stop()
		close(cur.stop)
		delete(w.timers, key)
	}
}
