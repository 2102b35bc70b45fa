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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	testingclock "k8s.io/utils/clock/testing"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/scheduler/cache"
	st "github.com/caldera-sh/caldera/scheduler/internal/testing"
)

func TestWaits(t *testing.T) {
	const maxDelay = 30 * time.Second
	now := st.Epoch.Add(time.Minute)
	for _, tc := range []struct {
		name          string
		p             parking
		bindsUnderWay bool
		want          bool
	}{
		{name: "binds under way", p: parking{wanted: now.Add(-time.Second)}, bindsUnderWay: true, want: true},
		{name: "no bind under way", p: parking{wanted: now.Add(-time.Second)}},
		{name: "waits anyway, no bind under way", p: parking{wanted: now.Add(-time.Second), always: true}, want: true},
		{name: "waited long enough, binds under way", p: parking{wanted: now.Add(-maxDelay)}, bindsUnderWay: true},
		{name: "waits anyway, but waited long enough", p: parking{wanted: now.Add(-maxDelay), always: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := waits(tc.p, now, maxDelay, tc.bindsUnderWay); got != tc.want {
				t.Errorf("waits() = %v, want %v", got, tc.want)
			}
		})
	}
}

// A Completed status for a Volcano job's PodGroup waits even with no bind under way, since the
// job controller deletes that PodGroup when the job ends; once it has waited StatusMaxDelay it
// is written. Other statuses, and Completed ones of other PodGroups, go at once when no bind is
// under way.
func TestCompletedStatusOfAJobsPodGroupWaits(t *testing.T) {
	s := newOffline(t, cache.New([]string{st.SchedulerName}, schedulingv1beta1.DefaultQueue))
	clk := s.clock.(*testingclock.FakeClock)
	w := s.statuses
	job := st.MakePodGroup("ns", "job", 1).ControlledBy("batch.volcano.sh/v1alpha1", "Job", "j").Obj()
	running := st.MakePodGroup("ns", "running", 1).ControlledBy("batch.volcano.sh/v1alpha1", "Job", "r").Obj()
	plain := st.MakePodGroup("ns", "plain", 1).Obj()
	w.wantPodGroup(job, schedulingv1beta1.PodGroupStatus{Phase: schedulingv1beta1.PodGroupCompleted, Succeeded: 1}, nil, "", false)
	w.wantPodGroup(running, schedulingv1beta1.PodGroupStatus{Phase: schedulingv1beta1.PodGroupRunning, Running: 1}, nil, "", false)
	w.wantPodGroup(plain, schedulingv1beta1.PodGroupStatus{Phase: schedulingv1beta1.PodGroupCompleted, Succeeded: 1}, nil, "", false)

	deferred := func() map[string]bool {
		got := map[string]bool{}
		for _, name := range []string{"job", "running", "plain"} {
			_, got[name] = w.deferred(statusKey{namespace: "ns", name: name})
		}
		return got
	}
	if diff := cmp.Diff(map[string]bool{"job": true, "running": false, "plain": false}, deferred()); diff != "" {
		t.Errorf("no bind under way (-want +got):\n%s", diff)
	}
	k := statusKey{namespace: "ns", name: "job"}
	p, _ := w.deferred(k)
	w.park(k, p)
	// A write parked while binds were under way, which are over now.
	other := statusKey{namespace: "ns", name: "running"}
	w.park(other, parking{wanted: clk.Now()})
	w.unpark()
	if _, parked := w.parked[k]; !parked {
		t.Errorf("the Completed status of a job's PodGroup was let go with no bind under way")
	}
	if _, parked := w.parked[other]; parked || w.parkedForBinds != 0 {
		t.Errorf("a write that waited for binds is still parked with none under way (%d counted)", w.parkedForBinds)
	}

	clk.Step(s.opts.StatusMaxDelay)
	if diff := cmp.Diff(map[string]bool{"job": false, "running": false, "plain": false}, deferred()); diff != "" {
		t.Errorf("after StatusMaxDelay (-want +got):\n%s", diff)
	}
	w.unpark()
	if _, parked := w.parked[k]; parked {
		t.Errorf("the Completed status of a job's PodGroup is still parked after StatusMaxDelay")
	}
}
