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
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
)

// queueCommandNamespace is where queue Commands are created: queues are cluster-scoped and
// Commands are namespaced, so Volcano's vcctl uses the default namespace.
const queueCommandNamespace = "default"

// jobActionCommand is the Command asking the job controller to take action on job: in the
// job's namespace, named <job>-<action in lower case>-<random>, owned by the job (so it goes
// with it) and targeting it.
func jobActionCommand(job *batchv1alpha1.Job, action busv1alpha1.Action) *busv1alpha1.Command {
	ref := metav1.NewControllerRef(job, batchv1alpha1.GroupVersion.WithKind("Job"))
	return &busv1alpha1.Command{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName:    job.Name + "-" + strings.ToLower(string(action)) + "-",
			Namespace:       job.Namespace,
			OwnerReferences: []metav1.OwnerReference{*ref},
		},
		Action:       string(action),
		TargetObject: ref,
	}
}

// queueActionCommand is the Command asking the queue controller to take action on queue: in
// the default namespace, named <queue>-<action in lower case>-<random>, owned by the queue and
// targeting it.
func queueActionCommand(queue *schedulingv1beta1.Queue, action busv1alpha1.Action) *busv1alpha1.Command {
	ref := metav1.NewControllerRef(queue, schedulingv1beta1.GroupVersion.WithKind("Queue"))
	return &busv1alpha1.Command{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName:    queue.Name + "-" + strings.ToLower(string(action)) + "-",
			Namespace:       queueCommandNamespace,
			OwnerReferences: []metav1.OwnerReference{*ref},
		},
		Action:       string(action),
		TargetObject: ref,
	}
}
