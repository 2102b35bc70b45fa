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
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/job/naming"
)

func newJobWhyCommand(e *env) (*cobra.Command, *jobRef) {
	r := &jobRef{}
	cmd := &cobra.Command{
		Use:   "why [NAME]",
		Short: "Say in plain words why a job is not running or not finished",
		Long: "Say why a job is not running or not finished, from what the controllers and the scheduler\n" +
			"wrote: the job's conditions, its PodGroup's admission and Unschedulable condition, its\n" +
			"queue's state and share, the gang's shortfall per task, its pods' PodScheduled conditions\n" +
			"(the predicates that failed, on how many nodes), dependsOn waits, the SLA waiting time, and\n" +
			"failing or restarting pods. Each line says what to do next where something can be done.\n" +
			"Name the job with -N/--name or as the argument.",
		Example: "  vcctl job why -N train -n team-a\n  vcctl job why train -n team-a",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return fmt.Errorf("%s takes one job name, got %d: %s", cmd.CommandPath(), len(args), strings.Join(args, " "))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				if r.name != "" && r.name != args[0] {
					return fmt.Errorf("the job is named twice (-N %s and %s): name it once", r.name, args[0])
				}
				r.name = args[0]
			}
			if r.name == "" {
				return fmt.Errorf("job name is required to explain a job: pass it as the argument or with -N/--name")
			}
			if err := r.check("explain"); err != nil {
				return err
			}
			c, err := e.client()
			if err != nil {
				return err
			}
			in, err := e.gatherWhy(cmd.Context(), c, r)
			if err != nil {
				return err
			}
			_, err = io.WriteString(e.Out, strings.Join(explainJob(in), "\n")+"\n")
			return err
		},
	}
	r.bind(cmd)
	return cmd, r
}

// gatherWhy reads what `vcctl job why` explains: the job, its PodGroup, its queue, its pods and
// the events about them. Only the job must be readable; what else cannot be read is warned
// about and left out.
func (e *env) gatherWhy(ctx context.Context, c client.Client, r *jobRef) (whyInput, error) {
	job, err := r.get(ctx, c)
	if err != nil {
		return whyInput{}, err
	}
	in := whyInput{job: job, now: e.Clock.Now(), name: e.Name}
	warn := func(what string, err error) {
		fmt.Fprintf(e.ErrOut, "warning: %v\n", apiError(what, err, ""))
	}

	pg := &schedulingv1beta1.PodGroup{}
	switch err := c.Get(ctx, client.ObjectKey{Namespace: job.Namespace, Name: naming.PodGroupName(job.Name, job.UID)}, pg); {
	case err == nil:
		in.podGroup = pg
	case !apierrors.IsNotFound(err):
		warn("reading the job's PodGroup", err)
	}

	queue := &schedulingv1beta1.Queue{}
	switch err := c.Get(ctx, client.ObjectKey{Name: effectiveQueueName(job.Spec.Queue)}, queue); {
	case err == nil:
		in.queue = queue
	case !apierrors.IsNotFound(err):
		warn("reading the job's queue", err)
		// Unknown is not missing: say nothing about the queue rather than that it is gone.
		in.queue = &schedulingv1beta1.Queue{ObjectMeta: queue.ObjectMeta}
	}

	pods := &corev1.PodList{}
	if err := c.List(ctx, pods, client.InNamespace(job.Namespace), client.MatchingLabels{batchv1alpha1.JobNameKey: job.Name}); err != nil {
		warn("listing the job's pods", err)
	}
	for i := range pods.Items {
		if owned(&pods.Items[i], job.UID) {
			in.pods = append(in.pods, pods.Items[i])
		}
	}

	about := map[types.UID]bool{job.UID: true}
	if in.podGroup != nil {
		about[in.podGroup.UID] = true
	}
	for i := range in.pods {
		about[in.pods[i].UID] = true
	}
	events := &corev1.EventList{}
	if err := c.List(ctx, events, client.InNamespace(job.Namespace)); err != nil {
		warn("listing the events of the job's namespace", err)
	}
	for i := range events.Items {
		if about[events.Items[i].InvolvedObject.UID] {
			in.events = append(in.events, events.Items[i])
		}
	}
	return in, nil
}

// owned reports whether a pod is controlled by the job with uid (a pod of an older job of the
// same name is not).
func owned(pod *corev1.Pod, uid types.UID) bool {
	for _, ref := range pod.OwnerReferences {
		if ref.UID == uid {
			return true
		}
	}
	return false
}
