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

package policy

import (
	"fmt"
	"sort"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/interpreter"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/clock"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
	"github.com/caldera-sh/caldera/internal/job/naming"
)

// PodCounts counts pods by state. A pod being deleted (deletionTimestamp set) that has not
// finished counts as terminating only; every other pod counts under its phase, and a phase
// other than Pending, Running, Succeeded or Failed counts as unknown.
type PodCounts struct {
	// Pending is the number of pending pods.
	Pending int32
	// Running is the number of running pods.
	Running int32
	// Succeeded is the number of succeeded pods.
	Succeeded int32
	// Failed is the number of failed pods.
	Failed int32
	// Terminating is the number of pods being deleted that have not finished.
	Terminating int32
	// Unknown is the number of pods in phase Unknown (or no known phase).
	Unknown int32
	// Restarts is the sum of the restart counts of the containers and init containers of the
	// pending and running pods: the figure a task's maxRetry is compared with.
	Restarts int32
}

// Counts are a job's pod counts: for the whole job and for each task, by task name.
type Counts struct {
	// Job counts all the pods of the job.
	Job PodCounts
	// Tasks counts the pods of each task, by task name (the volcano.sh/task-spec label).
	Tasks map[string]PodCounts
}

// counter accumulates Counts. It remembers the last task seen: pods listed by name come grouped
// by task, so most pods need no map lookup.
type counter struct {
	counts   Counts
	lastName string
	last     PodCounts
	haveLast bool
}

func (c *counter) add(pod *corev1.Pod) {
	name := PodTaskName(pod)
	if !c.haveLast || name != c.lastName {
		c.flush()
		c.lastName, c.last, c.haveLast = name, c.counts.Tasks[name], true
	}
	addPod(&c.counts.Job, pod)
	addPod(&c.last, pod)
}

func (c *counter) flush() {
	if c.haveLast && c.lastName != "" {
		c.counts.Tasks[c.lastName] = c.last
	}
}

func (c *counter) done() Counts {
	c.flush()
	c.haveLast = false
	return c.counts
}

func addPod(pc *PodCounts, pod *corev1.Pod) {
	phase := pod.Status.Phase
	if pod.DeletionTimestamp != nil && phase != corev1.PodSucceeded && phase != corev1.PodFailed {
		pc.Terminating++
		return
	}
	switch phase {
	case corev1.PodPending:
		pc.Pending++
	case corev1.PodRunning:
		pc.Running++
	case corev1.PodSucceeded:
		pc.Succeeded++
		return
	case corev1.PodFailed:
		pc.Failed++
		return
	default:
		pc.Unknown++
		return
	}
	for i := range pod.Status.ContainerStatuses {
		pc.Restarts += pod.Status.ContainerStatuses[i].RestartCount
	}
	for i := range pod.Status.InitContainerStatuses {
		pc.Restarts += pod.Status.InitContainerStatuses[i].RestartCount
	}
}

// CountPods counts a job's pods, for the job and per task.
func CountPods(pods []corev1.Pod) Counts {
	c := counter{counts: Counts{Tasks: make(map[string]PodCounts, 4)}}
	for i := range pods {
		c.add(&pods[i])
	}
	return c.done()
}

// CountPodPointers counts a job's pods, for the job and per task; nil entries are skipped.
func CountPodPointers(pods []*corev1.Pod) Counts {
	c := counter{counts: Counts{Tasks: make(map[string]PodCounts, 4)}}
	for _, p := range pods {
		if p != nil {
			c.add(p)
		}
	}
	return c.done()
}

// Elapsed is the value of the variable elapsed: the time from start (when the job started
// running) to the clock's now; 0 when start is zero or in the future.
func Elapsed(start time.Time, clk clock.PassiveClock) time.Duration {
	if start.IsZero() {
		return 0
	}
	d := clk.Since(start)
	if d < 0 {
		return 0
	}
	return d
}

// JobInput is the job-wide part of the variables: job, tasks and elapsed. Build it once per
// reconcile and derive one Input per event from it with ForEvent; the pod counts are computed
// at most once, and only when an expression reads them. A JobInput may be used from several
// goroutines. It keeps references to the job and pods it was given; they must not change while
// it is in use.
type JobInput struct {
	job     *batchv1alpha1.Job
	pods    []corev1.Pod
	podPtrs []*corev1.Pod
	elapsed ref.Val

	countsOnce sync.Once
	counts     Counts

	tasksOnce sync.Once
	tasks     ref.Val
	taskObjs  map[string]*object

	jobObj *object

	boundsOnce sync.Once
	fits       varBit
}

// fitting returns the job-wide variables (job, tasks, elapsed) that are within the size bounds
// the cost estimate assumes.
func (in *JobInput) fitting() varBit {
	in.boundsOnce.Do(func() {
		j := in.job
		in.fits = bitElapsed
		if len(j.Name) <= maxNameLen && len(j.Namespace) <= maxLabelNameLen &&
			len(j.Status.State.Phase) <= maxPhaseLen &&
			mapFits(j.Labels, maxMapEntries, maxLabelKeyLen, maxLabelNameLen) &&
			mapFits(j.Annotations, maxMapEntries, maxLabelKeyLen, maxAnnotationLen) {
			in.fits |= bitJob
		}
		tasksFit := len(j.Spec.Tasks) <= maxTasks
		for i := range j.Spec.Tasks {
			tasksFit = tasksFit && len(naming.TaskName(j.Spec.Tasks, i)) <= maxLabelNameLen
		}
		if tasksFit {
			in.fits |= bitTasks
		}
	})
	return in.fits
}

// The size checks compare byte lengths with bounds on characters: a string of n bytes has at
// most n characters, so a string that passes is within its bound.

func mapFits(m map[string]string, entries, keyMax, valueMax int) bool {
	if len(m) > entries {
		return false
	}
	for k, v := range m {
		if len(k) > keyMax || len(v) > valueMax {
			return false
		}
	}
	return true
}

func podFits(p *corev1.Pod) bool {
	st := &p.Status
	if len(p.Name) > maxNameLen || len(st.Phase) > maxPhaseLen || len(st.Reason) > maxReasonLen ||
		len(st.Message) > maxMessageLen || len(p.Spec.NodeName) > maxNameLen ||
		len(st.Conditions) > maxConditions {
		return false
	}
	for i := range st.Conditions {
		c := &st.Conditions[i]
		if len(c.Type) > maxConditionType || len(c.Status) > maxConditionValue ||
			len(c.Reason) > maxReasonLen || len(c.Message) > maxMessageLen {
			return false
		}
	}
	return containersFit(st.ContainerStatuses) && containersFit(st.InitContainerStatuses)
}

func containersFit(cs []corev1.ContainerStatus) bool {
	if len(cs) > maxContainers {
		return false
	}
	for i := range cs {
		c := &cs[i]
		if len(c.Name) > maxLabelNameLen || len(containerReason(c)) > maxReasonLen {
			return false
		}
		if t := c.LastTerminationState.Terminated; t != nil && len(t.Reason) > maxReasonLen {
			return false
		}
	}
	return true
}

// NewJobInput returns the job-wide variables of a job whose pods are pods, elapsed being the
// time since the job started running (see Elapsed). The pods are counted when an expression
// first needs a count.
func NewJobInput(job *batchv1alpha1.Job, pods []corev1.Pod, elapsed time.Duration) *JobInput {
	in := newJobInput(job, elapsed)
	in.pods = pods
	return in
}

// NewJobInputFromPodPointers is NewJobInput for pods held by pointer; nil entries are skipped.
func NewJobInputFromPodPointers(job *batchv1alpha1.Job, pods []*corev1.Pod, elapsed time.Duration) *JobInput {
	in := newJobInput(job, elapsed)
	in.podPtrs = pods
	return in
}

// NewJobInputFromCounts is NewJobInput for a caller that has already counted the pods.
func NewJobInputFromCounts(job *batchv1alpha1.Job, counts Counts, elapsed time.Duration) *JobInput {
	in := newJobInput(job, elapsed)
	in.countsOnce.Do(func() { in.counts = counts })
	return in
}

func newJobInput(job *batchv1alpha1.Job, elapsed time.Duration) *JobInput {
	if job == nil {
		job = &batchv1alpha1.Job{}
	}
	in := &JobInput{job: job, elapsed: types.Duration{Duration: elapsed}}
	in.jobObj = jobType.newObject(in)
	return in
}

// Counts returns the pod counts of the job, counting the pods on first use.
func (in *JobInput) Counts() Counts {
	in.countsOnce.Do(func() {
		if in.podPtrs != nil {
			in.counts = CountPodPointers(in.podPtrs)
		} else {
			in.counts = CountPods(in.pods)
		}
	})
	return in.counts
}

// Pod returns the pod named name among the pods the input was built from, or nil.
func (in *JobInput) Pod(name string) *corev1.Pod {
	if name == "" {
		return nil
	}
	for i := range in.pods {
		if in.pods[i].Name == name {
			return &in.pods[i]
		}
	}
	for _, p := range in.podPtrs {
		if p != nil && p.Name == name {
			return p
		}
	}
	return nil
}

func (in *JobInput) buildTasks() {
	in.tasksOnce.Do(func() {
		counts := in.Counts()
		tasks := in.job.Spec.Tasks
		entries := make(map[ref.Val]ref.Val, len(tasks))
		in.taskObjs = make(map[string]*object, len(tasks))
		payloads := make([]taskPayload, len(tasks))
		for i := range tasks {
			name := naming.TaskName(tasks, i)
			payloads[i] = taskPayload{
				name:         name,
				replicas:     int64(tasks[i].Replicas),
				minAvailable: int64(taskMinAvailable(&tasks[i])),
				counts:       counts.Tasks[name],
			}
			obj := taskType.newObject(&payloads[i])
			entries[types.String(name)] = obj
			in.taskObjs[name] = obj
		}
		in.tasks = types.NewRefValMap(adapter, entries)
	})
}

func (in *JobInput) task(name string) *object {
	if name == "" {
		return emptyTask
	}
	in.buildTasks()
	if t, ok := in.taskObjs[name]; ok {
		return t
	}
	return taskType.newObject(&taskPayload{name: name})
}

var emptyTask = taskType.newObject(&taskPayload{})

// ForEvent returns the variables of one event: the event's name, and the task and pod it is
// about. task may be empty when pod is given (the pod's volcano.sh/task-spec label names it);
// both are empty for an event about the whole job. The result is meant for one goroutine.
func (in *JobInput) ForEvent(event busv1alpha1.Event, task string, pod *corev1.Pod) *Input {
	ev := &Input{job: in, event: types.String(event), taskName: task, pod: emptyPodObj}
	if pod != nil {
		ev.pod = podType.newObject(pod)
		if task == "" {
			ev.taskName = PodTaskName(pod)
		}
	}
	if len(event) <= maxEventLen {
		ev.fits |= bitEvent
	}
	if len(ev.taskName) <= maxLabelNameLen {
		ev.fits |= bitTask
	}
	if pod == nil || podFits(pod) {
		ev.fits |= bitPod
	}
	return ev
}

var emptyPodObj = podType.newObject(emptyPod)

// Input is the full set of variables for one event; it is the activation an Expression is
// evaluated against. Build it with JobInput.ForEvent.
type Input struct {
	job      *JobInput
	event    ref.Val
	taskName string
	task     ref.Val
	pod      ref.Val
	fits     varBit
}

// WithinBounds reports whether every variable is within the size bounds the compile-time cost
// estimate assumes: at most 64 labels, annotations, tasks and containers, 32 pod conditions,
// 256 KiB annotation values, and names, reasons and messages of ordinary length. An expression
// evaluated against such an input cannot cost more than its estimate.
func (in *Input) WithinBounds() bool {
	const all = bitJob | bitTasks | bitTask | bitPod | bitEvent | bitElapsed
	return in.fitting() == all
}

// fitting returns the variables that are within the size bounds.
func (in *Input) fitting() varBit {
	return in.fits | in.job.fitting()
}

// measure returns the actual sizes of the variables in vars, in the form of the size bounds.
func (in *Input) measure(vars varBit) map[string]*shape {
	out := make(map[string]*shape, len(varBits))
	for name, bit := range varBits {
		if vars&bit == 0 {
			continue
		}
		v, _ := in.ResolveName(name)
		if rv, ok := v.(ref.Val); ok {
			out[name] = measure(rv)
		}
	}
	return out
}

// measure returns the size of a value: the length of a string, the number of items or entries
// of a list or map with the largest sizes of its items, keys and values, and the sizes of the
// string, list and map fields of an object.
func measure(v ref.Val) *shape {
	switch t := v.(type) {
	case types.String:
		return &shape{max: uint64(utf8.RuneCountInString(string(t)))}
	case *object:
		s := &shape{fields: make(map[string]*shape, len(t.t.fields))}
		for _, f := range t.t.fields {
			if f.shape != nil {
				s.fields[f.name] = measure(f.get(t.payload))
			}
		}
		return s
	case traits.Mapper:
		s := &shape{max: uint64(t.Size().(types.Int))}
		for it := t.Iterator(); it.HasNext() == types.True; {
			k := it.Next()
			s.key = widest(s.key, measure(k))
			s.elem = widest(s.elem, measure(t.Get(k)))
		}
		return s
	case traits.Lister:
		s := &shape{max: uint64(t.Size().(types.Int))}
		for it := t.Iterator(); it.HasNext() == types.True; {
			s.elem = widest(s.elem, measure(it.Next()))
		}
		return s
	}
	return nil
}

// widest merges two shapes into one that bounds both.
func widest(a, b *shape) *shape {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	out := &shape{max: max(a.max, b.max), key: widest(a.key, b.key), elem: widest(a.elem, b.elem)}
	if a.fields != nil || b.fields != nil {
		out.fields = make(map[string]*shape, len(a.fields))
		for k, v := range a.fields {
			out.fields[k] = v
		}
		for k, v := range b.fields {
			out.fields[k] = widest(out.fields[k], v)
		}
	}
	return out
}

// oversize lists, by path, the sizes in actual that are above their bound, at most limit of them.
func oversize(path string, actual, bound *shape, limit int) []string {
	if actual == nil || bound == nil || limit <= 0 {
		return nil
	}
	var out []string
	if bound.max > 0 && actual.max > bound.max {
		unit := "characters"
		if actual.elem != nil || bound.elem != nil {
			unit = "entries"
		}
		out = append(out, fmt.Sprintf("%s has %d %s (%d assumed)", path, actual.max, unit, bound.max))
	}
	names := make([]string, 0, len(actual.fields))
	for k := range actual.fields {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		out = append(out, oversize(path+"."+k, actual.fields[k], bound.fields[k], limit-len(out))...)
	}
	out = append(out, oversize(path+" keys", actual.key, bound.key, limit-len(out))...)
	out = append(out, oversize(path+" items", actual.elem, bound.elem, limit-len(out))...)
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

var _ interpreter.Activation = (*Input)(nil)

// ResolveName implements the CEL activation: it returns the value of a variable.
func (in *Input) ResolveName(name string) (any, bool) {
	switch name {
	case VarJob:
		return in.job.jobObj, true
	case VarTasks:
		in.job.buildTasks()
		return in.job.tasks, true
	case VarTask:
		if in.task == nil {
			in.task = in.job.task(in.taskName)
		}
		return in.task, true
	case VarPod:
		return in.pod, true
	case VarEvent:
		return in.event, true
	case VarElapsed:
		return in.job.elapsed, true
	}
	return nil, false
}

// Parent implements the CEL activation; an Input has none.
func (in *Input) Parent() interpreter.Activation {
	return nil
}
