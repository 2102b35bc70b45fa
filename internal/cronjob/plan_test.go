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

package cronjob

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
)

func makeCron(schedule string, policy batchv1alpha1.ConcurrencyPolicy) *batchv1alpha1.CronJob {
	return &batchv1alpha1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: "ns", UID: "cj-uid", CreationTimestamp: metav1.NewTime(at(0))},
		Spec: batchv1alpha1.CronJobSpec{
			Schedule:                   schedule,
			ConcurrencyPolicy:          policy,
			SuccessfulJobsHistoryLimit: ptr.To[int32](3),
			FailedJobsHistoryLimit:     ptr.To[int32](1),
			JobTemplate: batchv1alpha1.JobTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"team": "ml"}, Annotations: map[string]string{"note": "x"}},
				Spec:       batchv1alpha1.JobSpec{Queue: "default", Tasks: []batchv1alpha1.TaskSpec{{Name: "t", Replicas: 1}}},
			},
		},
	}
}

// run is a run of the CronJob scheduled at minute m, created then, in phase.
func run(m int, phase batchv1alpha1.JobPhase) *batchv1alpha1.Job {
	return &batchv1alpha1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: JobName("nightly", at(m)), Namespace: "ns", UID: types.UID("uid-" + JobName("", at(m))), CreationTimestamp: metav1.NewTime(at(m))},
		Status: batchv1alpha1.JobStatus{State: batchv1alpha1.JobState{
			Phase: phase, LastTransitionTime: metav1.NewTime(at(m).Add(30 * time.Second)),
		}},
	}
}

// summary is what a test compares of a Decision.
type summary struct {
	Active   []string
	Delete   []string
	Create   string
	LastRun  *time.Time
	LastGood *time.Time
	NextRun  time.Time
	Events   []string
}

func summarize(d Decision) summary {
	s := summary{NextRun: d.NextRun}
	for _, j := range d.Active {
		s.Active = append(s.Active, j.Name)
	}
	for _, del := range d.Delete {
		s.Delete = append(s.Delete, del.Reason+" "+del.Job.Name)
	}
	if d.Create != nil {
		s.Create = d.Create.Name
	}
	if d.LastScheduleTime != nil {
		tm := d.LastScheduleTime.UTC()
		s.LastRun = &tm
	}
	if d.LastSuccessfulTime != nil {
		tm := d.LastSuccessfulTime.UTC()
		s.LastGood = &tm
	}
	for _, e := range d.Events {
		s.Events = append(s.Events, e.Type+" "+e.Reason)
	}
	return s
}

func TestPlan(t *testing.T) {
	name := func(m int) string { return JobName("nightly", at(m)) }
	next := func(m int) time.Time { return at(m).Add(nextRunDelta) }
	cases := []struct {
		name   string
		cj     func() *batchv1alpha1.CronJob
		jobs   []*batchv1alpha1.Job
		now    time.Time
		want   summary
		wantTZ string
	}{
		{
			name: "not yet due",
			cj:   func() *batchv1alpha1.CronJob { return makeCron("* * * * *", batchv1alpha1.AllowConcurrent) },
			now:  at(0).Add(10 * time.Second),
			want: summary{NextRun: next(1)},
		},
		{
			name: "due: the run is created and recorded",
			cj:   func() *batchv1alpha1.CronJob { return makeCron("* * * * *", batchv1alpha1.AllowConcurrent) },
			now:  at(1).Add(time.Second),
			want: summary{Create: name(1), LastRun: ptr.To(at(1)), NextRun: next(2)},
		},
		{
			name: "the run exists already (a lost status write): no duplicate",
			cj:   func() *batchv1alpha1.CronJob { return makeCron("* * * * *", batchv1alpha1.AllowConcurrent) },
			jobs: []*batchv1alpha1.Job{run(1, batchv1alpha1.Running)},
			now:  at(1).Add(2 * time.Second),
			want: summary{Active: []string{name(1)}, LastRun: ptr.To(at(1)), NextRun: next(2)},
		},
		{
			name: "last schedule time reached: nothing due",
			cj: func() *batchv1alpha1.CronJob {
				cj := makeCron("* * * * *", batchv1alpha1.AllowConcurrent)
				cj.Status.LastScheduleTime = &metav1.Time{Time: at(1)}
				return cj
			},
			now:  at(1).Add(30 * time.Second),
			want: summary{LastRun: ptr.To(at(1)), NextRun: next(2)},
		},
		{
			name: "Allow: a second run beside the active one",
			cj: func() *batchv1alpha1.CronJob {
				cj := makeCron("* * * * *", batchv1alpha1.AllowConcurrent)
				cj.Status.LastScheduleTime = &metav1.Time{Time: at(1)}
				return cj
			},
			jobs: []*batchv1alpha1.Job{run(1, batchv1alpha1.Running)},
			now:  at(2),
			want: summary{Active: []string{name(1)}, Create: name(2), LastRun: ptr.To(at(2)), NextRun: next(3)},
		},
		{
			name: "Forbid: skipped while a run is active, last schedule time kept",
			cj: func() *batchv1alpha1.CronJob {
				cj := makeCron("* * * * *", batchv1alpha1.ForbidConcurrent)
				cj.Status.LastScheduleTime = &metav1.Time{Time: at(1)}
				return cj
			},
			jobs: []*batchv1alpha1.Job{run(1, batchv1alpha1.Running)},
			now:  at(2),
			want: summary{Active: []string{name(1)}, LastRun: ptr.To(at(1)), NextRun: next(3), Events: []string{"Normal JobAlreadyActive"}},
		},
		{
			name: "Forbid: the skipped run starts late once the active one has finished",
			cj: func() *batchv1alpha1.CronJob {
				cj := makeCron("* * * * *", batchv1alpha1.ForbidConcurrent)
				cj.Status.LastScheduleTime = &metav1.Time{Time: at(1)}
				return cj
			},
			jobs: []*batchv1alpha1.Job{run(1, batchv1alpha1.Completed)},
			now:  at(2).Add(20 * time.Second),
			want: summary{Create: name(2), LastRun: ptr.To(at(2)), LastGood: ptr.To(at(1).Add(30 * time.Second)), NextRun: next(3)},
		},
		{
			name: "Replace: the active run is deleted and the new one created",
			cj: func() *batchv1alpha1.CronJob {
				cj := makeCron("* * * * *", batchv1alpha1.ReplaceConcurrent)
				cj.Status.LastScheduleTime = &metav1.Time{Time: at(1)}
				return cj
			},
			jobs: []*batchv1alpha1.Job{run(1, batchv1alpha1.Pending)},
			now:  at(2),
			want: summary{Delete: []string{"ReplaceConcurrent " + name(1)}, Create: name(2), LastRun: ptr.To(at(2)), NextRun: next(3)},
		},
		{
			name: "Replace: a run being deleted is not active",
			cj: func() *batchv1alpha1.CronJob {
				cj := makeCron("* * * * *", batchv1alpha1.ReplaceConcurrent)
				cj.Status.LastScheduleTime = &metav1.Time{Time: at(2)}
				return cj
			},
			jobs: func() []*batchv1alpha1.Job {
				old := run(1, batchv1alpha1.Running)
				old.DeletionTimestamp = ptr.To(metav1.NewTime(at(2)))
				return []*batchv1alpha1.Job{old, run(2, batchv1alpha1.Running)}
			}(),
			now:  at(2).Add(time.Second),
			want: summary{Active: []string{name(2)}, LastRun: ptr.To(at(2)), NextRun: next(3)},
		},
		{
			name: "history: oldest finished runs beyond the limits are deleted, Terminated counts as failed",
			cj: func() *batchv1alpha1.CronJob {
				cj := makeCron("* * * * *", batchv1alpha1.AllowConcurrent)
				cj.Status.LastScheduleTime = &metav1.Time{Time: at(7)}
				return cj
			},
			jobs: []*batchv1alpha1.Job{
				run(6, batchv1alpha1.Completed), run(1, batchv1alpha1.Completed), run(3, batchv1alpha1.Completed),
				run(2, batchv1alpha1.Failed), run(4, batchv1alpha1.Completed), run(5, batchv1alpha1.Terminated),
				run(7, batchv1alpha1.Running),
			},
			now: at(7).Add(40 * time.Second),
			want: summary{
				Active:   []string{name(7)},
				Delete:   []string{"SuccessfulDelete " + name(1), "SuccessfulDelete " + name(2)},
				LastRun:  ptr.To(at(7)),
				LastGood: ptr.To(at(6).Add(30 * time.Second)),
				NextRun:  next(8),
			},
		},
		{
			name: "suspended: history is pruned, nothing is started, no wake-up",
			cj: func() *batchv1alpha1.CronJob {
				cj := makeCron("* * * * *", batchv1alpha1.AllowConcurrent)
				cj.Spec.Suspend = ptr.To(true)
				cj.Spec.FailedJobsHistoryLimit = ptr.To[int32](0)
				return cj
			},
			jobs: []*batchv1alpha1.Job{run(1, batchv1alpha1.Failed)},
			now:  at(5),
			want: summary{Delete: []string{"SuccessfulDelete " + name(1)}},
		},
		{
			name: "missed runs without a deadline: only the latest runs",
			cj:   func() *batchv1alpha1.CronJob { return makeCron("* * * * *", batchv1alpha1.AllowConcurrent) },
			now:  at(5).Add(time.Second),
			want: summary{Create: name(5), LastRun: ptr.To(at(5)), NextRun: next(6)},
		},
		{
			name: "too many missed runs: the latest runs, with a warning",
			cj:   func() *batchv1alpha1.CronJob { return makeCron("* * * * *", batchv1alpha1.AllowConcurrent) },
			now:  at(300),
			want: summary{Create: name(300), LastRun: ptr.To(at(300)), NextRun: next(301), Events: []string{"Warning TooManyMissedTimes"}},
		},
		{
			name: "missed beyond startingDeadlineSeconds: skipped",
			cj: func() *batchv1alpha1.CronJob {
				cj := makeCron("*/10 * * * *", batchv1alpha1.AllowConcurrent)
				cj.Spec.StartingDeadlineSeconds = ptr.To[int64](60)
				return cj
			},
			now:  at(12),
			want: summary{NextRun: next(20)},
		},
		{
			name: "missed within startingDeadlineSeconds: started late",
			cj: func() *batchv1alpha1.CronJob {
				cj := makeCron("*/10 * * * *", batchv1alpha1.AllowConcurrent)
				cj.Spec.StartingDeadlineSeconds = ptr.To[int64](180)
				return cj
			},
			now:  at(12),
			want: summary{Create: name(10), LastRun: ptr.To(at(10)), NextRun: next(20)},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cj := tc.cj()
			s := mustParse(t, cj.Spec.Schedule, nil)
			got := summarize(Plan(cj, tc.jobs, tc.now, &s))
			if got.NextRun.IsZero() {
				got.NextRun = time.Time{}
			} else {
				got.NextRun = got.NextRun.UTC()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Plan (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewJob(t *testing.T) {
	cj := makeCron("0 9 * * *", batchv1alpha1.AllowConcurrent)
	cj.Spec.JobTemplate.Finalizers = []string{"example.com/keep"}
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Skipf("no time zone database: %v", err)
	}
	scheduled := time.Date(2026, time.March, 3, 0, 0, 0, 0, time.UTC)
	got := NewJob(cj, scheduled, tokyo)
	want := &batchv1alpha1.Job{
		TypeMeta: metav1.TypeMeta{APIVersion: "batch.volcano.sh/v1alpha1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      JobName("nightly", scheduled),
			Namespace: "ns",
			Labels:    map[string]string{"team": "ml"},
			Annotations: map[string]string{
				"note":                                   "x",
				"volcano.sh/cronjob-scheduled-timestamp": "2026-03-03T09:00:00+09:00",
			},
			Finalizers: []string{"example.com/keep"},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "batch.volcano.sh/v1alpha1", Kind: "CronJob", Name: "nightly", UID: "cj-uid",
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
			}},
		},
		Spec: cj.Spec.JobTemplate.Spec,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NewJob (-want +got):\n%s", diff)
	}
	if got.Labels["team"] = "changed"; cj.Spec.JobTemplate.Labels["team"] != "ml" {
		t.Errorf("NewJob shares the template's labels")
	}
}

func TestSetConditions(t *testing.T) {
	now := at(3)
	type cond struct {
		Type, Status, Reason string
	}
	cases := []struct {
		name    string
		suspend bool
		err     error
		want    []cond
	}{
		{name: "scheduled", want: []cond{{"Ready", "True", "Scheduled"}}},
		{name: "suspended", suspend: true, want: []cond{{"Ready", "True", "Suspended"}}},
		{
			name: "invalid schedule",
			err:  &InvalidSpecError{Field: "spec.schedule", Reason: batchv1alpha1.InvalidScheduleReason, Message: "bad"},
			want: []cond{{"Stalled", "True", "InvalidSchedule"}, {"Ready", "False", "InvalidSchedule"}},
		},
		{
			name: "API error",
			err:  errors.New("etcd is down"),
			want: []cond{{"Reconciling", "True", "ReconcileError"}, {"Ready", "False", "ReconcileError"}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cj := makeCron("* * * * *", batchv1alpha1.AllowConcurrent)
			cj.Generation = 4
			cj.Spec.Suspend = ptr.To(tc.suspend)
			// Conditions left by an earlier reconcile are replaced.
			cj.Status.Conditions = []metav1.Condition{{Type: "Stalled", Status: "True", Reason: "InvalidTimeZone"}, {Type: "Reconciling", Status: "True"}}
			if tc.err == nil {
				cj.Status.Conditions = cj.Status.Conditions[1:]
			}
			SetConditions(cj, tc.err, at(4).Add(nextRunDelta), now)
			var got []cond
			for _, c := range cj.Status.Conditions {
				got = append(got, cond{c.Type, string(c.Status), c.Reason})
				if c.ObservedGeneration != 4 {
					t.Errorf("condition %s: observedGeneration %d, want 4", c.Type, c.ObservedGeneration)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("conditions (-want +got):\n%s", diff)
			}
		})
	}
	cj := makeCron("* * * * *", batchv1alpha1.AllowConcurrent)
	SetConditions(cj, nil, at(4).Add(nextRunDelta), now)
	if diff := cmp.Diff("the schedule is in force; next run at 2026-03-02T10:04:00Z", cj.Status.Conditions[0].Message); diff != "" {
		t.Errorf("Ready message (-want +got):\n%s", diff)
	}
}
