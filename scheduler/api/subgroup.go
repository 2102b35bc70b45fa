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

package api

import (
	"slices"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
)

// SubGroupPolicy is one entry of a PodGroup's subGroupPolicy, ready to match pods: a pod belongs
// to the first policy whose labelSelector matches it and whose matchLabelKeys it all carries
// (non-empty); its subgroup is the policy and those labels' values (a vcjob's partition: the
// task and volcano.sh/partition-id). A pod of no policy is in no subgroup. A subgroup is complete
// when Size of its pods are placed; the job is ready only when, for each policy, Min of its
// subgroups are complete (as Volcano's subJobs).
type SubGroupPolicy struct {
	// Name is the policy's name.
	Name string
	// Size is subGroupSize (1 when not given): the pods a subgroup needs placed together.
	Size int32
	// Min is minSubGroups: the complete subgroups the job needs.
	Min int32
	// NetworkTopology is the policy's: where each subgroup must be placed. Read only.
	NetworkTopology *schedulingv1beta1.NetworkTopologySpec

	selector labels.Selector
	keys     []string
}

// NewSubGroupPolicies reads a PodGroup's subGroupPolicy. A policy whose labelSelector cannot be
// read, or that names no matchLabelKeys, groups no pod (as in Volcano, such pods stay out of
// subgroups).
func NewSubGroupPolicies(specs []schedulingv1beta1.SubGroupPolicySpec) []SubGroupPolicy {
	if len(specs) == 0 {
		return nil
	}
	out := make([]SubGroupPolicy, 0, len(specs))
	for _, s := range specs {
		p := SubGroupPolicy{Name: s.Name, Size: 1, NetworkTopology: s.NetworkTopology, keys: s.MatchLabelKeys}
		if s.SubGroupSize != nil && *s.SubGroupSize > 0 {
			p.Size = *s.SubGroupSize
		}
		if s.MinSubGroups != nil {
			p.Min = *s.MinSubGroups
		}
		p.selector = labels.Everything()
		if s.LabelSelector != nil {
			sel, err := metav1.LabelSelectorAsSelector(s.LabelSelector)
			if err != nil {
				sel = labels.Nothing()
			}
			p.selector = sel
		}
		out = append(out, p)
	}
	return out
}

// SubGroup is a subgroup of a job: its policy (an index into the job's SubGroups) and key.
type SubGroup struct {
	// Policy is the index of the policy in the job's SubGroups.
	Policy int
	// Key is the policy's name and the pod's values of its matchLabelKeys, e.g. "worker/3".
	Key string
	// Index is the first value read as a number (a partition's id), or -1: subgroups are tried in
	// policy order, then by index, then by key.
	Index int
}

// SubGroupOf returns the subgroup a task belongs to, and false when it belongs to none.
func (j *JobInfo) SubGroupOf(t *TaskInfo) (SubGroup, bool) {
	if len(j.SubGroups) == 0 || t.Pod == nil {
		return SubGroup{}, false
	}
	set := labels.Set(t.Pod.Labels)
	for i := range j.SubGroups {
		p := &j.SubGroups[i]
		if len(p.keys) == 0 || !p.selector.Matches(set) {
			continue
		}
		values := make([]string, 0, len(p.keys))
		for _, k := range p.keys {
			v := t.Pod.Labels[k]
			if v == "" {
				break
			}
			values = append(values, v)
		}
		if len(values) < len(p.keys) {
			continue
		}
		index := -1
		if n, err := strconv.Atoi(values[0]); err == nil {
			index = n
		}
		return SubGroup{Policy: i, Key: p.Name + "/" + strings.Join(values, "/"), Index: index}, true
	}
	return SubGroup{}, false
}

// Less orders subgroups: by policy, then index, then key.
func (s SubGroup) Less(o SubGroup) bool {
	if s.Policy != o.Policy {
		return s.Policy < o.Policy
	}
	if s.Index != o.Index {
		return s.Index < o.Index
	}
	return s.Key < o.Key
}

// HasSubGroupMinimums reports whether a policy of the job asks for complete subgroups.
func (j *JobInfo) HasSubGroupMinimums() bool {
	return slices.ContainsFunc(j.SubGroups, func(p SubGroupPolicy) bool { return p.Min > 0 })
}

// SubGroupCounts counts, per subgroup, the job's tasks for which count returns true.
func (j *JobInfo) SubGroupCounts(count func(*TaskInfo) bool) map[SubGroup]int32 {
	out := map[SubGroup]int32{}
	for _, t := range j.Tasks {
		if !count(t) {
			continue
		}
		if sg, ok := j.SubGroupOf(t); ok {
			out[sg]++
		}
	}
	return out
}

// CompleteSubGroups returns, per policy, how many subgroups have at least the policy's Size in
// counts (see SubGroupCounts).
func (j *JobInfo) CompleteSubGroups(counts map[SubGroup]int32) []int32 {
	out := make([]int32, len(j.SubGroups))
	for sg, n := range counts {
		if n >= j.SubGroups[sg.Policy].Size {
			out[sg.Policy]++
		}
	}
	return out
}

// subGroupMinimumsMet reports whether each policy has its minSubGroups complete, counting the
// tasks placed (and, with countPipelined, promised a node).
func (j *JobInfo) subGroupMinimumsMet(countPipelined bool) bool {
	complete := j.CompleteSubGroups(j.SubGroupCounts(func(t *TaskInfo) bool {
		return AllocatedStatus(t.Status) || t.Status == Succeeded || (countPipelined && t.Status == Pipelined)
	}))
	for i, p := range j.SubGroups {
		if complete[i] < p.Min {
			return false
		}
	}
	return true
}

// HeldNodes returns, sorted, the nodes the job's placed pods (and those promised a node while
// its releasing resources are freed) are on; only those of subgroup in when it is not nil. A
// job held within a network domain grows, and gets replaced pods back, where these are.
func (j *JobInfo) HeldNodes(in *SubGroup) []string {
	var out []string
	for _, t := range j.Tasks {
		if t.NodeName == "" || !(AllocatedStatus(t.Status) || t.Status == Pipelined) {
			continue
		}
		if in != nil {
			if got, ok := j.SubGroupOf(t); !ok || got != *in {
				continue
			}
		}
		out = append(out, t.NodeName)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
