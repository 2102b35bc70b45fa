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

package scheduler

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/scheduler/cache"
	st "github.com/caldera-sh/caldera/scheduler/internal/testing"
)

// A PodGroup made anew under the name of one whose status was handed to the status workers (a
// restarted job's, which the job controller deletes and makes again) gets a status of its own:
// what was decided for the old one is neither taken as handed over for the new one nor written to
// it. Otherwise the new PodGroup is never admitted as far as the API shows, and its job, waiting
// for Inqueue to make its pods, waits for ever.
func TestRecreatedPodGroupGetsItsOwnStatus(t *testing.T) {
	c := cache.New([]string{st.SchedulerName}, schedulingv1beta1.DefaultQueue)
	c.AddQueue(st.MakeQueue("default", 1).Obj())
	c.AddNode(st.MakeNode("n", "4", "8Gi").Obj())
	old := st.MakePodGroup("ns", "pg", 1).Obj()
	c.AddPodGroup(old)
	s := newOffline(t, c)
	ctx := context.Background()
	key := statusKey{namespace: "ns", name: "pg"}
	handed := func() (types.UID, schedulingv1beta1.PodGroupPhase) {
		t.Helper()
		s.statuses.mu.Lock()
		defer s.statuses.mu.Unlock()
		w, ok := s.statuses.groups[key]
		if !ok {
			t.Fatalf("no status handed over for %v", key)
		}
		return w.uid, w.status.Phase
	}

	// The first cycle admits the PodGroup; the offline scheduler never writes, so the status
	// stays handed over and the stored one Pending, as while a write is on its way.
	s.RunOnce(ctx)
	uid, phase := handed()
	if diff := cmp.Diff([]any{old.UID, schedulingv1beta1.PodGroupInqueue}, []any{uid, phase}); diff != "" {
		t.Fatalf("first cycle (-want +got):\n%s", diff)
	}

	// The job restarts: its PodGroup goes and comes back with a new UID and no status, before
	// the next cycle.
	c.DeletePodGroup("ns", "pg")
	renewed := st.MakePodGroup("ns", "pg", 1).Obj()
	renewed.UID = "pg-renewed"
	renewed.Status = schedulingv1beta1.PodGroupStatus{}
	c.AddPodGroup(renewed)
	s.RunOnce(ctx)
	uid, phase = handed()
	if diff := cmp.Diff([]any{renewed.UID, schedulingv1beta1.PodGroupInqueue}, []any{uid, phase}); diff != "" {
		t.Errorf("after the PodGroup was made anew (-want +got):\n%s", diff)
	}
}
