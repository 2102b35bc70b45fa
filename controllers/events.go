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
	"context"
	"fmt"
	"hash/fnv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
)

// EventWriters is how many event writers the controllers' events go through.
const EventWriters = 8

// eventCacheEntries is how many recent events (and objects) the writers remember together, to
// aggregate repeated events and hold back floods: client-go's default for one broadcaster, shared
// out so that the writers together hold no more than one would.
const eventCacheEntries = 4096

// eventRecorders hands out the controllers' event recorders (core/v1 Events, as Volcano's
// controllers record them). One client-go broadcaster writes its events one at a time: under a
// burst of 1000 jobs on a busy API server each write took 30–80 ms, a job's Running and Completed
// events were written 20 s after the transitions they report, and a broadcaster drops what comes
// once 1000 events wait. Here the events go through EventWriters broadcasters, and every event of
// one object through the same one: an object's events keep their order and are aggregated and
// rate-limited as by a single broadcaster, and different objects' are written side by side.
type eventRecorders struct {
	broadcasters []record.EventBroadcaster
	scheme       *runtime.Scheme
}

// newEventRecorders starts the broadcasters, writing with a client of the manager's
// configuration and logging each event at V(1) in the manager's log, as controller-runtime's
// recorders do, and stops them once the manager stops.
func newEventRecorders(mgr ctrl.Manager) (*eventRecorders, error) {
	kube, err := kubernetes.NewForConfigAndClient(mgr.GetConfig(), mgr.GetHTTPClient())
	if err != nil {
		return nil, fmt.Errorf("creating the events client: %w", err)
	}
	sink := &typedcorev1.EventSinkImpl{Interface: kube.CoreV1().Events("")}
	log := mgr.GetLogger().WithName("events")
	e := &eventRecorders{scheme: mgr.GetScheme()}
	for range EventWriters {
		b := record.NewBroadcaster(record.WithCorrelatorOptions(record.CorrelatorOptions{LRUCacheSize: eventCacheEntries / EventWriters}))
		b.StartRecordingToSink(sink)
		b.StartEventWatcher(func(ev *corev1.Event) {
			log.V(1).Info(ev.Message, "type", ev.Type, "object", ev.InvolvedObject, "reason", ev.Reason)
		})
		e.broadcasters = append(e.broadcasters, b)
	}
	if err := mgr.Add(e); err != nil {
		e.shutdown()
		return nil, fmt.Errorf("adding the event writers: %w", err)
	}
	return e, nil
}

// eventWritersGrace is how long the broadcasters outlive the manager's stop: the manager stops
// runnables that need no leader before the controllers, which may still record events while
// they finish their work, for up to the manager's graceful shutdown timeout (30 s by default).
const eventWritersGrace = 30 * time.Second

// Start waits for the manager to stop, then stops the broadcasters eventWritersGrace later (or
// at once when the process ends first: events still waiting are then lost, as with any
// recorder).
func (e *eventRecorders) Start(ctx context.Context) error {
	<-ctx.Done()
	time.AfterFunc(eventWritersGrace, e.shutdown)
	return nil
}

// NeedLeaderElection is false: the broadcasters stop with the manager, leader or not.
func (e *eventRecorders) NeedLeaderElection() bool { return false }

func (e *eventRecorders) shutdown() {
	for _, b := range e.broadcasters {
		b.Shutdown()
	}
}

// For returns the recorder of events from the component source.
func (e *eventRecorders) For(source string) record.EventRecorder {
	r := &shardedRecorder{}
	for _, b := range e.broadcasters {
		r.shards = append(r.shards, b.NewRecorder(e.scheme, corev1.EventSource{Component: source}))
	}
	return r
}

// shardedRecorder records each object's events through one of its shards, always the same.
type shardedRecorder struct {
	shards []record.EventRecorder
}

var _ record.EventRecorder = &shardedRecorder{}

func (r *shardedRecorder) Event(object runtime.Object, eventtype, reason, message string) {
	r.shards[eventShard(object, len(r.shards))].Event(object, eventtype, reason, message)
}

func (r *shardedRecorder) Eventf(object runtime.Object, eventtype, reason, messageFmt string, args ...any) {
	r.shards[eventShard(object, len(r.shards))].Eventf(object, eventtype, reason, messageFmt, args...)
}

func (r *shardedRecorder) AnnotatedEventf(object runtime.Object, annotations map[string]string, eventtype, reason, messageFmt string, args ...any) {
	r.shards[eventShard(object, len(r.shards))].AnnotatedEventf(object, annotations, eventtype, reason, messageFmt, args...)
}

// eventShard is the shard of n an object's events go through: by its UID, or its namespace and
// name when it has none.
func eventShard(object runtime.Object, n int) int {
	if n <= 1 {
		return 0
	}
	m, err := meta.Accessor(object)
	if err != nil {
		return 0
	}
	h := fnv.New32a()
	if uid := m.GetUID(); uid != "" {
		_, _ = h.Write([]byte(uid))
	} else {
		_, _ = h.Write([]byte(m.GetNamespace() + "/" + m.GetName()))
	}
	return int(h.Sum32() % uint32(n))
}
