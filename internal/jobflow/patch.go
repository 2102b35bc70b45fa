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

package jobflow

import (
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	flowv1alpha1 "github.com/caldera-sh/caldera/api/flow/v1alpha1"
	"github.com/caldera-sh/caldera/internal/job/naming"
)

// PatchSpec returns the template's spec with the flow's patch.jobSpec merged onto it as a
// strategic merge patch: objects and maps merge, tasks merge by name (an unnamed task by its
// effective name default<i>, naming.TaskName, which stays unwritten in the result) and, within
// a task's pod template, containers by name as kubectl patch does; other lists are replaced.
// The template's spec is not changed. The error (a patch that is not a JSON object or does not
// fit a Job spec) is a *SpecError naming the flow.
func PatchSpec(spec batchv1alpha1.JobSpec, f flowv1alpha1.Flow) (batchv1alpha1.JobSpec, error) {
	if f.Patch == nil || f.Patch.JobSpec == nil || len(f.Patch.JobSpec.Raw) == 0 {
		return *spec.DeepCopy(), nil
	}
	bad := func(err error) (batchv1alpha1.JobSpec, error) {
		return batchv1alpha1.JobSpec{}, &SpecError{Reason: flowv1alpha1.InvalidPatchReason,
			Message: fmt.Sprintf("flow %s: patch.jobSpec cannot be merged onto JobTemplate %s: %v", f.Name, f.Name, err)}
	}
	// The merge key of tasks is their name: an unnamed task takes its effective name for the
	// merge, so a patch can name it, and gives it back below.
	named := spec.DeepCopy()
	given := map[string]bool{}
	for i := range named.Tasks {
		if named.Tasks[i].Name == "" {
			named.Tasks[i].Name = naming.DefaultTaskName(i)
			given[named.Tasks[i].Name] = true
		}
	}
	original, err := json.Marshal(named)
	if err != nil {
		return bad(err)
	}
	merged, err := strategicpatch.StrategicMergePatch(original, f.Patch.JobSpec.Raw, batchv1alpha1.JobSpec{})
	if err != nil {
		return bad(err)
	}
	var out batchv1alpha1.JobSpec
	if err := json.Unmarshal(merged, &out); err != nil {
		return bad(err)
	}
	// A task named above is unnamed again where that gives it the same effective name: at the
	// same position. One the merge moved (a task the patch adds comes first) keeps its name.
	for i := range out.Tasks {
		if name := out.Tasks[i].Name; given[name] && name == naming.DefaultTaskName(i) {
			out.Tasks[i].Name = ""
		}
	}
	return out, nil
}

// NewJob returns the job of flow f made from its template, as Volcano makes it: named
// <jobflow>-<flow>, with the template's spec and the flow's patch, and the labels and
// annotations volcano.sh/createdByJobTemplate and volcano.sh/createdByJobFlow
// (<namespace>.<name>; the labels only when that is a valid label value). The caller sets the
// JobFlow as its controller.
func NewJob(jf *flowv1alpha1.JobFlow, f flowv1alpha1.Flow, tmpl *flowv1alpha1.JobTemplate) (*batchv1alpha1.Job, error) {
	spec, err := PatchSpec(tmpl.Spec, f)
	if err != nil {
		return nil, err
	}
	byTemplate := jf.Namespace + "." + tmpl.Name
	byFlow := jf.Namespace + "." + jf.Name
	job := &batchv1alpha1.Job{
		ObjectMeta: metav1.ObjectMeta{
			Name:      JobName(jf.Name, f.Name),
			Namespace: jf.Namespace,
			Annotations: map[string]string{
				flowv1alpha1.CreatedByJobTemplate: byTemplate,
				flowv1alpha1.CreatedByJobFlow:     byFlow,
			},
		},
		Spec: spec,
	}
	labels := map[string]string{}
	for k, v := range job.Annotations {
		if len(v) <= 63 {
			labels[k] = v
		}
	}
	if len(labels) > 0 {
		job.Labels = labels
	}
	return job, nil
}
