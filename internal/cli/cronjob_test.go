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

package cli

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
)

func TestFormatCronJobList(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	cron := func(ns, name, schedule string, tz *string, suspend bool, active int, last *time.Time) batchv1alpha1.CronJob {
		cj := batchv1alpha1.CronJob{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, CreationTimestamp: metav1.NewTime(now.Add(-2 * time.Hour))},
			Spec:       batchv1alpha1.CronJobSpec{Schedule: schedule, TimeZone: tz, Suspend: ptr.To(suspend)},
		}
		for range active {
			cj.Status.Active = append(cj.Status.Active, corev1.ObjectReference{Name: "run"})
		}
		if last != nil {
			cj.Status.LastScheduleTime = &metav1.Time{Time: *last}
		}
		return cj
	}
	items := []batchv1alpha1.CronJob{
		cron("b", "nightly", "0 2 * * *", ptr.To("Europe/Paris"), true, 0, nil),
		cron("a", "minutely", "* * * * *", nil, false, 2, ptr.To(now.Add(-30*time.Second))),
	}
	cases := []struct {
		name string
		all  bool
		want string
	}{
		{
			name: "one namespace",
			want: "" +
				"NAME       SCHEDULE    TIMEZONE       SUSPEND   ACTIVE   LAST SCHEDULE   AGE\n" +
				"minutely   * * * * *   <none>         false     2        30s             120m\n" +
				"nightly    0 2 * * *   Europe/Paris   true      0        <none>          120m\n",
		},
		{
			name: "all namespaces",
			all:  true,
			want: "" +
				"NAMESPACE   NAME       SCHEDULE    TIMEZONE       SUSPEND   ACTIVE   LAST SCHEDULE   AGE\n" +
				"a           minutely   * * * * *   <none>         false     2        30s             120m\n" +
				"b           nightly    0 2 * * *   Europe/Paris   true      0        <none>          120m\n",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, formatCronJobList(items, tc.all, now)); diff != "" {
				t.Errorf("formatCronJobList (-want +got):\n%s", diff)
			}
		})
	}
	if diff := cmp.Diff(noResources, formatCronJobList(nil, false, now)); diff != "" {
		t.Errorf("formatCronJobList(nil) (-want +got):\n%s", diff)
	}
}

func TestFormatCronJobDetail(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	cj := &batchv1alpha1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "nightly", CreationTimestamp: metav1.NewTime(now.Add(-time.Hour))},
		Spec: batchv1alpha1.CronJobSpec{
			Schedule: "0 * * * *", Suspend: ptr.To(false), ConcurrencyPolicy: batchv1alpha1.ForbidConcurrent,
			StartingDeadlineSeconds: ptr.To[int64](60), SuccessfulJobsHistoryLimit: ptr.To[int32](3), FailedJobsHistoryLimit: ptr.To[int32](1),
		},
		Status: batchv1alpha1.CronJobStatus{
			Active:             []corev1.ObjectReference{{Name: "nightly-29539320"}},
			LastScheduleTime:   &metav1.Time{Time: now.Add(-time.Minute)},
			LastSuccessfulTime: &metav1.Time{Time: now.Add(-61 * time.Minute)},
			Conditions: []metav1.Condition{{
				Type: "Ready", Status: metav1.ConditionTrue, Reason: "Scheduled", Message: "the schedule is in force; next run at 2026-03-01T13:00:00Z",
			}},
		},
	}
	want := "" +
		"NAME      SCHEDULE    TIMEZONE   SUSPEND   ACTIVE   LAST SCHEDULE   AGE\n" +
		"nightly   0 * * * *   <none>     false     1        60s             60m\n" +
		"\n" +
		"Concurrency Policy:  Forbid\n" +
		"Starting Deadline:   60s\n" +
		"History Limits:      3 successful, 1 failed\n" +
		"Active Jobs:         nightly-29539320\n" +
		"Last Successful:     2026-03-01T10:59:00Z (61m ago)\n" +
		"\n" +
		"Conditions:\n" +
		"  TYPE    STATUS   REASON      MESSAGE\n" +
		"  Ready   True     Scheduled   the schedule is in force; next run at 2026-03-01T13:00:00Z\n"
	if diff := cmp.Diff(want, formatCronJobDetail(cj, now)); diff != "" {
		t.Errorf("formatCronJobDetail (-want +got):\n%s", diff)
	}
}
