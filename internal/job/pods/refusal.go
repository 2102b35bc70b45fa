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

package pods

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	"github.com/caldera-sh/caldera/internal/job/naming"
)

// containerField matches the start of a pod field path inside a container, e.g.
// spec.containers[0].resources.requests[cpu].
var containerField = regexp.MustCompile(`^spec\.(containers|initContainers)\[(\d+)\]`)

// RefusalMessage says, in the job's terms, why the API server refused a pod of the job's task
// (task is its effective name, naming.TaskName): each cause's pod field path
// (spec.containers[0].resources.requests[cpu]) is given as the job's
// (spec.tasks[1].template.spec.containers[0].resources.requests[cpu]), with the task's and the
// container's names, so the message names what to fix in the job. status is the API server's
// refusal (nil or without causes: its message alone).
func RefusalMessage(job *batchv1alpha1.Job, task string, status *metav1.Status, fallback string) string {
	index := naming.TaskIndex(job.Spec.Tasks, task)
	if index < 0 || status == nil || status.Details == nil || len(status.Details.Causes) == 0 {
		return fallback
	}
	t := &job.Spec.Tasks[index]
	prefix := fmt.Sprintf("spec.tasks[%d].template.", index)
	var parts []string
	for _, c := range status.Details.Causes {
		where := fmt.Sprintf("task %s", task)
		field := c.Field
		if m := containerField.FindStringSubmatch(field); m != nil {
			i, _ := strconv.Atoi(m[2])
			containers := t.Template.Spec.Containers
			if m[1] == "initContainers" {
				containers = t.Template.Spec.InitContainers
			}
			if i < len(containers) {
				where += ", container " + containers[i].Name
			}
		}
		if field != "" {
			field = prefix + field
		}
		msg := c.Message
		if field != "" {
			msg = field + ": " + msg
		}
		parts = append(parts, where+": "+msg)
	}
	return strings.Join(parts, "; ")
}
