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
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
)

// formatCronJobList renders CronJobs with kubectl's CronJob columns: NAME, SCHEDULE, TIMEZONE,
// SUSPEND, ACTIVE, LAST SCHEDULE, AGE; NAMESPACE first with allNamespaces.
func formatCronJobList(items []batchv1alpha1.CronJob, allNamespaces bool, now time.Time) string {
	if len(items) == 0 {
		return noResources
	}
	sorted := slices.Clone(items)
	slices.SortFunc(sorted, func(a, b batchv1alpha1.CronJob) int {
		if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	header := []string{"NAME", "SCHEDULE", "TIMEZONE", "SUSPEND", "ACTIVE", "LAST SCHEDULE", "AGE"}
	if allNamespaces {
		header = append([]string{"NAMESPACE"}, header...)
	}
	rows := make([][]string, 0, len(sorted))
	for _, cj := range sorted {
		row := cronJobRow(&cj, now)
		if allNamespaces {
			row = append([]string{cj.Namespace}, row...)
		}
		rows = append(rows, row)
	}
	return formatTable(header, rows)
}

func cronJobRow(cj *batchv1alpha1.CronJob, now time.Time) []string {
	tz := "<none>"
	if cj.Spec.TimeZone != nil {
		tz = *cj.Spec.TimeZone
	}
	last := "<none>"
	if cj.Status.LastScheduleTime != nil {
		last = age(now, cj.Status.LastScheduleTime.Time)
	}
	return []string{
		cj.Name,
		cj.Spec.Schedule,
		tz,
		strconv.FormatBool(cj.Spec.Suspend != nil && *cj.Spec.Suspend),
		strconv.Itoa(len(cj.Status.Active)),
		last,
		age(now, cj.CreationTimestamp.Time),
	}
}

// formatCronJobDetail renders one CronJob: its row of the list, its active runs, its last
// successful run and its conditions.
func formatCronJobDetail(cj *batchv1alpha1.CronJob, now time.Time) string {
	var b strings.Builder
	b.WriteString(formatCronJobList([]batchv1alpha1.CronJob{*cj}, false, now))
	active := make([]string, 0, len(cj.Status.Active))
	for _, ref := range cj.Status.Active {
		active = append(active, ref.Name)
	}
	fmt.Fprintf(&b, "\nConcurrency Policy:  %s\n", orNone(string(cj.Spec.ConcurrencyPolicy)))
	deadline := "<none>"
	if d := cj.Spec.StartingDeadlineSeconds; d != nil {
		deadline = strconv.FormatInt(*d, 10) + "s"
	}
	fmt.Fprintf(&b, "Starting Deadline:   %s\n", deadline)
	fmt.Fprintf(&b, "History Limits:      %s successful, %s failed\n",
		limitString(cj.Spec.SuccessfulJobsHistoryLimit), limitString(cj.Spec.FailedJobsHistoryLimit))
	fmt.Fprintf(&b, "Active Jobs:         %s\n", orNone(strings.Join(active, ",")))
	lastSuccess := "<none>"
	if t := cj.Status.LastSuccessfulTime; t != nil {
		lastSuccess = fmt.Sprintf("%s (%s ago)", t.UTC().Format(time.RFC3339), age(now, t.Time))
	}
	fmt.Fprintf(&b, "Last Successful:     %s\n", lastSuccess)
	b.WriteString("\nConditions:\n")
	if len(cj.Status.Conditions) == 0 {
		b.WriteString("  <none>\n")
		return b.String()
	}
	rows := make([][]string, 0, len(cj.Status.Conditions))
	for _, c := range cj.Status.Conditions {
		rows = append(rows, []string{c.Type, string(c.Status), c.Reason, c.Message})
	}
	for _, line := range strings.SplitAfter(formatTable([]string{"TYPE", "STATUS", "REASON", "MESSAGE"}, rows), "\n") {
		if line != "" {
			b.WriteString("  " + line)
		}
	}
	return b.String()
}

func limitString(limit *int32) string {
	if limit == nil {
		return "<none>"
	}
	return strconv.Itoa(int(*limit))
}

// suspendOwners returns who other than vcctl keeps a CronJob's spec.suspend: the GitOps tools
// that track it, then the other field managers that server-side applied spec.suspend. Managers
// that wrote it by update (kubectl create or edit, client-side apply) are not counted: every
// one that creates a CronJob owns spec.suspend through the schema's default (false).
func suspendOwners(cj metav1.Object) []specOwner {
	const field = "spec.suspend"
	applied := &metav1.ObjectMeta{}
	for _, entry := range cj.GetManagedFields() {
		if entry.Operation == metav1.ManagedFieldsOperationApply {
			applied.ManagedFields = append(applied.ManagedFields, entry)
		}
	}
	return append(gitOpsOwners(cj, field), fieldManagers(applied, []string{"spec", "suspend"}, field)...)
}
