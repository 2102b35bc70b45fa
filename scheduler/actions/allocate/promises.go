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

package allocate

import (
	"fmt"
	"slices"
	"strings"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/scheduler/api"
	"github.com/caldera-sh/caldera/scheduler/framework"
)

// promises are what admitted jobs still need to reach their minimum. Admission (the enqueue
// action) counts an Inqueue job's minResources as taken, so that the jobs it admits can start;
// a job's elastic pods (those beyond its minAvailable) must not then take that room. Without
// this, of several jobs admitted together, the first whose pods exist would grow into the whole
// cluster before the others' pods are even made, and they would wait for it to finish.
type promises struct {
	need  map[api.JobID]api.Resource
	total api.Resource
}

func newPromises(ssn *framework.Session) *promises {
	p := &promises{need: map[api.JobID]api.Resource{}}
	for _, j := range ssn.Jobs {
		if need, ok := promiseOf(ssn, j); ok {
			p.need[j.UID] = need
			p.total.Add(&need)
		}
	}
	return p
}

// update recomputes what j still needs after it had its turn.
func (p *promises) update(ssn *framework.Session, j *api.JobInfo) {
	if old, ok := p.need[j.UID]; ok {
		p.total.Sub(&old)
		delete(p.need, j.UID)
	}
	if need, ok := promiseOf(ssn, j); ok {
		p.need[j.UID] = need
		p.total.Add(&need)
	}
}

// promiseOf is what j still needs: its minResources less what it holds, while it is admitted
// (Inqueue) and its gang is not met.
func promiseOf(ssn *framework.Session, j *api.JobInfo) (api.Resource, bool) {
	if j.Phase != schedulingv1beta1.PodGroupInqueue || j.MinResources == nil || !j.Schedulable() || ssn.JobReady(j) {
		return api.Resource{}, false
	}
	need := j.MinResources.Clone()
	need.SubFloor(&j.Allocated)
	return need, !need.IsEmpty()
}

// allows reports whether j, whose minimum is met, may place a further task of request req: the
// free room of the cluster's ready nodes, less req, still holds what the other admitted jobs
// need for their minimum. When it may not, held names those jobs.
func (p *promises) allows(ssn *framework.Session, j *api.JobInfo, req *api.Resource) (ok bool, held string) {
	if len(p.need) == 0 {
		return true, ""
	}
	others := p.total.Clone()
	if own, ok := p.need[j.UID]; ok {
		others.Sub(&own)
	}
	if others.IsEmpty() {
		return true, ""
	}
	var free api.Resource
	for _, n := range ssn.NodeList {
		if !n.Ready || n.Unschedulable {
			continue
		}
		idle := n.Idle()
		idle.SubFloor(&api.Resource{})
		free.Add(&idle)
	}
	free.Sub(req)
	if others.LessEqual(&free) {
		return true, ""
	}
	var names []string
	for id := range p.need {
		if id != j.UID {
			names = append(names, string(id))
		}
	}
	slices.Sort(names)
	if len(names) > 3 {
		names = append(names[:3], fmt.Sprintf("and %d more", len(names)-3))
	}
	return false, strings.Join(names, ", ")
}
