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

// Package cronjob holds the decisions of the CronJob controller as pure functions: when runs are
// due, which are missed, what the concurrency policy does, which finished runs are pruned, how
// runs are named and built, and the CronJob's conditions. They follow the Kubernetes CronJob
// controller, as Volcano's does.
package cronjob

import (
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
)

// tooManyMissed is the number of missed schedule times above which only the latest is run and
// a TooManyMissedTimes warning is recorded, as in Kubernetes.
const tooManyMissed = 100

// InvalidSpecError is bad input in a CronJob's spec: the field, the condition reason and a
// message that says what to fix. It is not retried until the spec changes.
type InvalidSpecError struct {
	// Field is the JSON path of the field, for example spec.schedule.
	Field string
	// Reason is the condition reason: InvalidSchedule or InvalidTimeZone.
	Reason string
	// Message says what is wrong and how to fix it.
	Message string
}

func (e *InvalidSpecError) Error() string { return e.Message }

// Schedule is a parsed schedule and the time zone it is read in.
type Schedule struct {
	cron.Schedule
	// Location is spec.timeZone, or UTC.
	Location *time.Location
}

// ParseSchedule parses spec.schedule in spec.timeZone with the standard cron parser (five fields
// or a descriptor). A schedule that never fires (the 31st of February) is refused too.
func ParseSchedule(spec *batchv1alpha1.CronJobSpec, now time.Time) (Schedule, error) {
	loc := time.UTC
	if spec.TimeZone != nil {
		l, err := loadLocation(*spec.TimeZone)
		if err != nil {
			return Schedule{}, &InvalidSpecError{
				Field:  "spec.timeZone",
				Reason: batchv1alpha1.InvalidTimeZoneReason,
				Message: fmt.Sprintf("spec.timeZone %q is not a time zone: %v; give an IANA time zone name such as Europe/Paris or UTC",
					*spec.TimeZone, err),
			}
		}
		loc = l
	}
	invalid := func(why string) error {
		return &InvalidSpecError{
			Field:  "spec.schedule",
			Reason: batchv1alpha1.InvalidScheduleReason,
			Message: fmt.Sprintf("spec.schedule %q %s; give five fields (minute hour day-of-month month day-of-week, for example '*/5 * * * *') or a descriptor such as @hourly",
				spec.Schedule, why),
		}
	}
	if strings.Contains(spec.Schedule, "TZ") {
		return Schedule{}, invalid("contains TZ or CRON_TZ: set the time zone in spec.timeZone instead")
	}
	sched, err := cron.ParseStandard(spec.Schedule)
	if err != nil {
		return Schedule{}, invalid(fmt.Sprintf("is not a valid cron expression: %v", err))
	}
	s := Schedule{Schedule: sched, Location: loc}
	if s.Next(now).IsZero() {
		return Schedule{}, invalid("never fires (no such date)")
	}
	return s, nil
}

// loadLocation loads an IANA time zone; Local is refused, since it depends on the controller's
// host.
func loadLocation(name string) (*time.Location, error) {
	if strings.EqualFold(name, "Local") {
		return nil, fmt.Errorf("the Local zone depends on the controller's host")
	}
	return time.LoadLocation(name)
}

// Next is the first schedule time after t, read in the schedule's time zone; zero when there is
// none within five years.
func (s Schedule) Next(t time.Time) time.Time {
	return s.Schedule.Next(t.In(s.Location))
}

// Missed is the outcome of looking for schedule times that are due.
type Missed struct {
	// Latest is the latest schedule time in (earliest, now], nil when none.
	Latest *time.Time
	// TooMany is true when more than 100 schedule times were missed.
	TooMany bool
}

// MostRecent finds the latest schedule time after earliest and not after now, and whether more
// than 100 were missed. The count is estimated from the first interval, as in Kubernetes, so a
// clock off by years costs no more than a few steps.
func MostRecent(s Schedule, earliest, now time.Time) Missed {
	t1 := s.Next(earliest)
	if t1.IsZero() || t1.After(now) {
		return Missed{}
	}
	t2 := s.Next(t1)
	if t2.IsZero() || t2.After(now) {
		return Missed{Latest: &t1}
	}
	interval := t2.Sub(t1)
	count := int64(now.Sub(t1)/interval) + 1
	// Start a few intervals before now and walk forward; for irregular schedules (weekdays
	// only, month ends) a window of two intervals may hold no schedule time, so widen it.
	var latest time.Time
	for back := int64(2); latest.IsZero(); back *= 2 {
		from := t1
		if count > back {
			from = t1.Add(time.Duration(count-back) * interval)
		}
		for t := s.Next(from); !t.IsZero() && !t.After(now); t = s.Next(t) {
			latest = t
		}
		if !from.After(t1) {
			break
		}
	}
	if latest.IsZero() {
		latest = t1
	}
	return Missed{Latest: &latest, TooMany: count > tooManyMissed}
}

// Earliest is the time after which schedule times count as due: the last schedule time (or the
// CronJob's creation), moved up to now - startingDeadlineSeconds when that is later.
func Earliest(cj *batchv1alpha1.CronJob, now time.Time) time.Time {
	earliest := cj.CreationTimestamp.Time
	if cj.Status.LastScheduleTime != nil {
		earliest = cj.Status.LastScheduleTime.Time
	}
	if d := cj.Spec.StartingDeadlineSeconds; d != nil {
		if deadline := now.Add(-time.Duration(*d) * time.Second); deadline.After(earliest) {
			earliest = deadline
		}
	}
	return earliest
}

// JobName is the name of the run for a schedule time: <cronjob>-<minutes since the epoch>, so a
// schedule time has one run whatever the number of reconciles or restarts.
func JobName(cronJobName string, scheduled time.Time) string {
	return fmt.Sprintf("%s-%d", cronJobName, scheduled.Unix()/60)
}
