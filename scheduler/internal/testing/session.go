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

package testing

import (
	"sort"
	"time"

	"github.com/go-logr/logr"

	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/framework"
	"github.com/caldera-sh/caldera/scheduler/snapshot"
)

// Recorder is a Dispatcher that records what sessions commit.
type Recorder struct {
	// Binds maps "namespace/pod" to the node it was bound to.
	Binds map[string]string
	// Evictions lists the evicted pods as "namespace/pod".
	Evictions []string
	// Nominations maps "namespace/pod" to the node promised to it.
	Nominations map[string]string
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder {
	return &Recorder{Binds: map[string]string{}, Nominations: map[string]string{}}
}

// Bind records binds.
func (r *Recorder) Bind(tasks []*api.TaskInfo) {
	for _, t := range tasks {
		r.Binds[t.Namespace+"/"+t.Name] = t.NodeName
	}
}

// Evict records an eviction.
func (r *Recorder) Evict(t *api.TaskInfo, _ string) {
	r.Evictions = append(r.Evictions, t.Namespace+"/"+t.Name)
	sort.Strings(r.Evictions)
}

// Nominate records a nomination.
func (r *Recorder) Nominate(t *api.TaskInfo, node string) {
	r.Nominations[t.Namespace+"/"+t.Name] = node
}

// Session opens a session on s with a configuration text, runs nothing, and returns it with the
// recorder that receives its commits.
func Session(tb TB, s *snapshot.Snapshot, reg framework.Registry, config string, now time.Time) (*framework.Session, *Recorder) {
	tb.Helper()
	cfg, err := framework.Load([]byte(config), reg)
	if err != nil {
		tb.Fatalf("loading the configuration: %v", err)
	}
	rec := NewRecorder()
	return framework.OpenSession(s, cfg, rec, "cycle-1", now, logr.Discard()), rec
}
