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
	"k8s.io/utils/ptr"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
)

// epoch is a Monday at 10:00 UTC.
var epoch = time.Date(2026, time.March, 2, 10, 0, 0, 0, time.UTC)

func at(minutes int) time.Time { return epoch.Add(time.Duration(minutes) * time.Minute) }

func mustParse(t *testing.T, schedule string, tz *string) Schedule {
	t.Helper()
	s, err := ParseSchedule(&batchv1alpha1.CronJobSpec{Schedule: schedule, TimeZone: tz}, epoch)
	if err != nil {
		t.Fatalf("ParseSchedule(%q): %v", schedule, err)
	}
	return s
}

func TestParseSchedule(t *testing.T) {
	cases := []struct {
		name       string
		schedule   string
		tz         *string
		wantReason string
		wantField  string
	}{
		{name: "five fields", schedule: "*/5 * * * *"},
		{name: "descriptor", schedule: "@hourly"},
		{name: "every", schedule: "@every 90m"},
		{name: "time zone", schedule: "0 9 * * MON-FRI", tz: ptr.To("Europe/Paris")},
		{name: "six fields", schedule: "0 */5 * * * *", wantReason: batchv1alpha1.InvalidScheduleReason, wantField: "spec.schedule"},
		{name: "minute out of range", schedule: "61 * * * *", wantReason: batchv1alpha1.InvalidScheduleReason, wantField: "spec.schedule"},
		{name: "TZ in schedule", schedule: "TZ=UTC * * * * *", wantReason: batchv1alpha1.InvalidScheduleReason, wantField: "spec.schedule"},
		{name: "never fires", schedule: "0 0 31 2 *", wantReason: batchv1alpha1.InvalidScheduleReason, wantField: "spec.schedule"},
		{name: "unknown zone", schedule: "* * * * *", tz: ptr.To("Mars/Olympus"), wantReason: batchv1alpha1.InvalidTimeZoneReason, wantField: "spec.timeZone"},
		{name: "Local", schedule: "* * * * *", tz: ptr.To("Local"), wantReason: batchv1alpha1.InvalidTimeZoneReason, wantField: "spec.timeZone"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSchedule(&batchv1alpha1.CronJobSpec{Schedule: tc.schedule, TimeZone: tc.tz}, epoch)
			var invalid *InvalidSpecError
			errors.As(err, &invalid)
			var got [2]string
			if invalid != nil {
				got = [2]string{invalid.Reason, invalid.Field}
			} else if err != nil {
				t.Fatalf("error is not an InvalidSpecError: %v", err)
			}
			if diff := cmp.Diff([2]string{tc.wantReason, tc.wantField}, got); diff != "" {
				t.Errorf("reason and field (-want +got):\n%s", diff)
			}
		})
	}
}

func TestScheduleTimeZone(t *testing.T) {
	s := mustParse(t, "0 9 * * *", ptr.To("Asia/Tokyo"))
	// 09:00 in Tokyo is 00:00 UTC.
	got := s.Next(epoch).UTC()
	want := time.Date(2026, time.March, 3, 0, 0, 0, 0, time.UTC)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Next (-want +got):\n%s", diff)
	}
}

func TestMostRecent(t *testing.T) {
	tp := func(tm time.Time) *time.Time { return &tm }
	cases := []struct {
		name     string
		schedule string
		earliest time.Time
		now      time.Time
		want     Missed
	}{
		{name: "nothing due yet", schedule: "* * * * *", earliest: at(0), now: at(0).Add(30 * time.Second), want: Missed{}},
		{name: "one due", schedule: "* * * * *", earliest: at(0), now: at(1).Add(5 * time.Second), want: Missed{Latest: tp(at(1))}},
		{name: "exactly at the schedule time", schedule: "* * * * *", earliest: at(0), now: at(1), want: Missed{Latest: tp(at(1))}},
		{name: "several missed: the latest", schedule: "* * * * *", earliest: at(0), now: at(7).Add(time.Second), want: Missed{Latest: tp(at(7))}},
		{name: "too many missed", schedule: "* * * * *", earliest: at(0), now: at(500), want: Missed{Latest: tp(at(500)), TooMany: true}},
		{name: "a hundred is not too many", schedule: "* * * * *", earliest: at(0), now: at(100), want: Missed{Latest: tp(at(100))}},
		{
			// Weekdays at 09:00: from Friday 09:30 to Tuesday 08:00 the latest is Monday 09:00,
			// although the first interval (Fri -> Mon) is longer than the others.
			name: "irregular schedule", schedule: "0 9 * * 1-5",
			earliest: time.Date(2026, time.February, 27, 9, 30, 0, 0, time.UTC),
			now:      time.Date(2026, time.March, 17, 8, 0, 0, 0, time.UTC),
			want:     Missed{Latest: tp(time.Date(2026, time.March, 16, 9, 0, 0, 0, time.UTC))},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := MostRecent(mustParse(t, tc.schedule, nil), tc.earliest, tc.now)
			if got.Latest != nil {
				utc := got.Latest.UTC()
				got.Latest = &utc
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("MostRecent (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEarliest(t *testing.T) {
	cases := []struct {
		name     string
		last     *time.Time
		deadline *int64
		now      time.Time
		want     time.Time
	}{
		{name: "creation", now: at(10), want: at(0)},
		{name: "last schedule time", last: ptr.To(at(5)), now: at(10), want: at(5)},
		{name: "deadline later than the last schedule", last: ptr.To(at(5)), deadline: ptr.To[int64](60), now: at(10), want: at(9)},
		{name: "deadline earlier than the last schedule", last: ptr.To(at(5)), deadline: ptr.To[int64](600), now: at(10), want: at(5)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cj := &batchv1alpha1.CronJob{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(at(0))}}
			cj.Spec.StartingDeadlineSeconds = tc.deadline
			if tc.last != nil {
				cj.Status.LastScheduleTime = &metav1.Time{Time: *tc.last}
			}
			if diff := cmp.Diff(tc.want, Earliest(cj, tc.now)); diff != "" {
				t.Errorf("Earliest (-want +got):\n%s", diff)
			}
		})
	}
}

func TestJobName(t *testing.T) {
	got := JobName("nightly", time.Date(2026, time.March, 2, 10, 0, 0, 0, time.UTC))
	if diff := cmp.Diff("nightly-29540760", got); diff != "" {
		t.Errorf("JobName (-want +got):\n%s", diff)
	}
}
