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
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	"github.com/caldera-sh/caldera/internal/job/naming"
	jobspec "github.com/caldera-sh/caldera/internal/job/spec"
)

// jobListFilter narrows `vcctl job list` as Volcano's flags do.
type jobListFilter struct {
	// queue keeps the jobs of this queue (-q/--queue); empty keeps all.
	queue string
	// scheduler keeps the jobs of this scheduler name (-S/--scheduler); empty keeps all.
	scheduler string
	// selector keeps the jobs whose name contains it (--selector); empty keeps all.
	selector string
}

// filterJobs returns the jobs that pass the filter, sorted by namespace and name.
func filterJobs(jobs []batchv1alpha1.Job, f jobListFilter) []batchv1alpha1.Job {
	var out []batchv1alpha1.Job
	for i := range jobs {
		job := &jobs[i]
		if f.queue != "" && job.Spec.Queue != f.queue {
			continue
		}
		if f.scheduler != "" && job.Spec.SchedulerName != f.scheduler {
			continue
		}
		if f.selector != "" && !strings.Contains(job.Name, f.selector) {
			continue
		}
		out = append(out, *job)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// jobListHeader is the header of `vcctl job list`, Volcano's columns.
var jobListHeader = []string{"Name", "Creation", "Phase", "JobType", "Replicas", "Min", "Pending", "Running",
	"Succeeded", "Failed", "Unknown", "RetryCount"}

// jobListWidths are the widths Volcano's `vcctl job list` pads the columns after Name to.
var jobListWidths = []int{15, 12, 12, 12, 6, 10, 10, 12, 10, 12, 10}

// formatJobList renders `vcctl job list` exactly as Volcano's vcctl does, so that scripts
// parsing its output keep working: one row per job, every cell left-aligned and padded with
// spaces to its column's width (the last one too); Name is as wide as the longest name plus 3,
// and the leading Namespace column of --all-namespaces as wide as the longest namespace plus
// 3; the other widths are Volcano's fixed ones. No jobs print "No resources found".
func formatJobList(jobs []batchv1alpha1.Job, allNamespaces bool) string {
	if len(jobs) == 0 {
		return noResources
	}
	nameWidth, namespaceWidth := len(jobListHeader[0]), len("Namespace")
	for i := range jobs {
		nameWidth = max(nameWidth, len(jobs[i].Name))
		namespaceWidth = max(namespaceWidth, len(jobs[i].Namespace))
	}
	widths := append([]int{nameWidth + 3}, jobListWidths...)
	header := jobListHeader
	if allNamespaces {
		widths = append([]int{namespaceWidth + 3}, widths...)
		header = append([]string{"Namespace"}, header...)
	}
	var b strings.Builder
	writePadded(&b, widths, header)
	for i := range jobs {
		job := &jobs[i]
		jobType := job.Labels[batchv1alpha1.JobTypeKey]
		if jobType == "" {
			jobType = "Batch"
		}
		row := []string{
			job.Name,
			job.CreationTimestamp.Format("2006-01-02"),
			string(job.Status.State.Phase),
			jobType,
			itoa(totalReplicas(job)),
			itoa(job.Status.MinAvailable),
			itoa(job.Status.Pending),
			itoa(job.Status.Running),
			itoa(job.Status.Succeeded),
			itoa(job.Status.Failed),
			itoa(job.Status.Unknown),
			itoa(job.Status.RetryCount),
		}
		if allNamespaces {
			row = append([]string{job.Namespace}, row...)
		}
		writePadded(&b, widths, row)
	}
	return b.String()
}

func itoa(n int32) string { return strconv.FormatInt(int64(n), 10) }

func totalReplicas(job *batchv1alpha1.Job) int32 {
	var n int32
	for _, t := range job.Spec.Tasks {
		n += t.Replicas
	}
	return n
}

// field is one "Key: value" line of a description.
type field struct{ key, value string }

// formatFields renders fields as "Key:" padded to a common width, then the value, each line
// prefixed with indent.
func formatFields(indent string, fields []field) string {
	width := 0
	for _, f := range fields {
		width = max(width, len(f.key)+1)
	}
	var b strings.Builder
	for _, f := range fields {
		key := f.key + ":"
		b.WriteString(indent + key + strings.Repeat(" ", width-len(key)+2) + f.value)
		b.WriteByte('\n')
	}
	return b.String()
}

// indentLines prefixes every line of s with indent.
func indentLines(indent, s string) string {
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for _, line := range lines {
		if line != "" {
			b.WriteString(indent + line)
		}
	}
	return b.String()
}

// timeAndAge renders a time as RFC 3339 with its age, "<unknown>" when zero.
func timeAndAge(now time.Time, t metav1.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return t.UTC().Format(time.RFC3339) + " (" + age(now, t.Time) + " ago)"
}

// formatJobView renders `vcctl job view`: the job's spec in short, its status, its per-task pod
// counts, its conditions (Ready, Reconciling, Stalled, ...) with reasons and messages, and the
// events about it.
func formatJobView(job *batchv1alpha1.Job, events []corev1.Event, now time.Time) string {
	var b strings.Builder

	head := []field{
		{"Name", job.Name},
		{"Namespace", job.Namespace},
		{"Labels", orNone(formatMap(job.Labels))},
		{"Annotations", orNone(formatMap(job.Annotations))},
		{"Created", timeAndAge(now, job.CreationTimestamp)},
		{"Queue", orNone(job.Spec.Queue)},
		{"Scheduler", orNone(job.Spec.SchedulerName)},
		{"Min Available", itoa(job.Spec.MinAvailable)},
		{"Max Retry", itoa(job.Spec.MaxRetry)},
	}
	if job.Spec.PriorityClassName != "" {
		head = append(head, field{"Priority Class", job.Spec.PriorityClassName})
	}
	if job.Spec.Suspend != nil {
		head = append(head, field{"Suspend", strconv.FormatBool(*job.Spec.Suspend)})
	}
	if job.Spec.TTLSecondsAfterFinished != nil {
		head = append(head, field{"TTL After Finished", (time.Duration(*job.Spec.TTLSecondsAfterFinished) * time.Second).String()})
	}
	if len(job.Spec.Plugins) > 0 {
		head = append(head, field{"Plugins", formatPlugins(job.Spec.Plugins)})
	}
	if job.DeletionTimestamp != nil {
		head = append(head, field{"Deleting Since", timeAndAge(now, *job.DeletionTimestamp)})
	}
	b.WriteString(formatFields("", head))

	b.WriteString("Tasks:\n")
	taskRows := make([][]string, 0, len(job.Spec.Tasks))
	for i := range job.Spec.Tasks {
		t := &job.Spec.Tasks[i]
		minAvailable := jobspec.TaskMinAvailable(t)
		images, requests, limits := containerSummary(t.Template.Spec.Containers)
		taskRows = append(taskRows, []string{
			naming.TaskName(job.Spec.Tasks, i), itoa(t.Replicas), itoa(minAvailable), orNone(images), orNone(requests), orNone(limits),
		})
	}
	b.WriteString(indentLines("  ", formatTable([]string{"NAME", "REPLICAS", "MIN", "IMAGE", "REQUESTS", "LIMITS"}, taskRows)))

	st := &job.Status
	b.WriteString("Status:\n")
	status := []field{
		{"Phase", orNone(string(st.State.Phase))},
	}
	if st.State.Reason != "" {
		status = append(status, field{"Reason", st.State.Reason})
	}
	if st.State.Message != "" {
		status = append(status, field{"Message", st.State.Message})
	}
	status = append(status,
		field{"Last Transition", timeAndAge(now, st.State.LastTransitionTime)},
		field{"Min Available", itoa(st.MinAvailable)},
		field{"Pods", fmt.Sprintf("Pending %d, Running %d, Succeeded %d, Failed %d, Terminating %d, Unknown %d",
			st.Pending, st.Running, st.Succeeded, st.Failed, st.Terminating, st.Unknown)},
		field{"Retry Count", itoa(st.RetryCount)},
		field{"Version", itoa(st.Version)},
		field{"Generation", generationSummary(job.Generation, st.ObservedGeneration)},
	)
	if st.RunningDuration != nil {
		status = append(status, field{"Running Duration", st.RunningDuration.Duration.String()})
	}
	if len(st.ControlledResources) > 0 {
		status = append(status, field{"Controlled Resources", formatMap(st.ControlledResources)})
	}
	b.WriteString(formatFields("  ", status))

	if len(st.TaskStatusCount) > 0 {
		b.WriteString("Task Status:\n")
		tasks := make([]string, 0, len(st.TaskStatusCount))
		for name := range st.TaskStatusCount {
			tasks = append(tasks, name)
		}
		sort.Strings(tasks)
		rows := make([][]string, 0, len(tasks))
		for _, name := range tasks {
			phases := st.TaskStatusCount[name].Phase
			rows = append(rows, []string{name,
				itoa(phases[corev1.PodPending]), itoa(phases[corev1.PodRunning]), itoa(phases[corev1.PodSucceeded]),
				itoa(phases[corev1.PodFailed]), itoa(phases[corev1.PodUnknown])})
		}
		b.WriteString(indentLines("  ", formatTable([]string{"TASK", "PENDING", "RUNNING", "SUCCEEDED", "FAILED", "UNKNOWN"}, rows)))
	}

	if len(st.Conditions) == 0 {
		b.WriteString("Conditions:  <none>\n")
	} else {
		b.WriteString("Conditions:\n")
		rows := make([][]string, 0, len(st.Conditions))
		for _, c := range st.Conditions {
			rows = append(rows, []string{c.Type, string(c.Status), orNone(c.Reason), age(now, c.LastTransitionTime.Time),
				oneLine(c.Message)})
		}
		b.WriteString(indentLines("  ", formatTable([]string{"TYPE", "STATUS", "REASON", "AGE", "MESSAGE"}, rows)))
	}

	b.WriteString(formatEvents(events, now))
	return b.String()
}

// generationSummary says which spec generation the controller has taken up.
func generationSummary(generation, observed int64) string {
	switch {
	case observed == 0 && generation > 0:
		return fmt.Sprintf("%d (not yet observed by the controller)", generation)
	case observed < generation:
		return fmt.Sprintf("%d (observed %d: the controller has not yet taken up the latest spec)", generation, observed)
	default:
		return strconv.FormatInt(generation, 10)
	}
}

// formatPlugins renders job plugins as name[args] sorted by name.
func formatPlugins(plugins map[string][]string) string {
	names := make([]string, 0, len(plugins))
	for name := range plugins {
		names = append(names, name)
	}
	sort.Strings(names)
	parts := make([]string, 0, len(names))
	for _, name := range names {
		if args := plugins[name]; len(args) > 0 {
			parts = append(parts, name+"["+strings.Join(args, " ")+"]")
		} else {
			parts = append(parts, name)
		}
	}
	return strings.Join(parts, ", ")
}

// containerSummary gives the images of a task's containers and the sums of their requests and
// limits.
func containerSummary(containers []corev1.Container) (images, requests, limits string) {
	var imgs []string
	req, lim := corev1.ResourceList{}, corev1.ResourceList{}
	for _, c := range containers {
		imgs = append(imgs, c.Image)
		addResources(req, c.Resources.Requests)
		addResources(lim, c.Resources.Limits)
	}
	return strings.Join(imgs, ","), formatResources(req), formatResources(lim)
}

func addResources(into, from corev1.ResourceList) {
	for name, q := range from {
		sum := into[name]
		sum.Add(q)
		into[name] = sum
	}
}

// oneLine folds a multi-line message onto one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// formatEvents renders the events about an object, oldest first, as kubectl describe does.
func formatEvents(events []corev1.Event, now time.Time) string {
	if len(events) == 0 {
		return "Events:  <none>\n"
	}
	sorted := append([]corev1.Event(nil), events...)
	sort.SliceStable(sorted, func(i, j int) bool {
		return eventTime(&sorted[i]).Before(eventTime(&sorted[j]))
	})
	rows := make([][]string, 0, len(sorted))
	for i := range sorted {
		e := &sorted[i]
		when := age(now, eventTime(e))
		count := e.Count
		if e.Series != nil && e.Series.Count > count {
			count = e.Series.Count
		}
		if count > 1 {
			when = fmt.Sprintf("%s (x%d over %s)", when, count, age(now, eventFirstTime(e)))
		}
		rows = append(rows, []string{e.Type, e.Reason, when, eventSource(e), oneLine(e.Message)})
	}
	return "Events:\n" + indentLines("  ", formatTable([]string{"TYPE", "REASON", "AGE", "FROM", "MESSAGE"}, rows))
}

// eventTime is when an event last happened, whichever API wrote it.
func eventTime(e *corev1.Event) time.Time {
	switch {
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case e.Series != nil && !e.Series.LastObservedTime.IsZero():
		return e.Series.LastObservedTime.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	default:
		return e.CreationTimestamp.Time
	}
}

// eventFirstTime is when an event first happened.
func eventFirstTime(e *corev1.Event) time.Time {
	switch {
	case !e.FirstTimestamp.IsZero():
		return e.FirstTimestamp.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	default:
		return e.CreationTimestamp.Time
	}
}

// eventSource names who reported an event.
func eventSource(e *corev1.Event) string {
	component, host := e.Source.Component, e.Source.Host
	if component == "" {
		component = e.ReportingController
	}
	if host == "" {
		host = e.ReportingInstance
	}
	switch {
	case component == "":
		return "<unknown>"
	case host == "":
		return component
	default:
		return component + ", " + host
	}
}
