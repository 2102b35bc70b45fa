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
	"io"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
)

func newPodCommand(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "pod",
		Short: "List the pods of jobs",
		Args:  noArgs("pick a subcommand: list"),
	}
	list, _ := newPodListCommand(e)
	cmd.AddCommand(list)
	return cmd
}

// podListFlags are the flags of `vcctl pod list`.
type podListFlags struct {
	namespace     string
	allNamespaces bool
	filter        podListFilter
}

func newPodListCommand(e *env) (*cobra.Command, *podListFlags) {
	f := &podListFlags{}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the pods of jobs, of one job (-j) or of one queue (-q)",
		Args:  noArgs("filter with -n, --all-namespaces, -j or -q"),
		RunE: runE(func(ctx context.Context, _ *cobra.Command) error {
			c, err := e.client()
			if err != nil {
				return err
			}
			namespace := f.namespace
			if f.allNamespaces {
				namespace = ""
			}
			opts := []client.ListOption{client.InNamespace(namespace)}
			switch {
			case f.filter.job != "":
				opts = append(opts, client.MatchingLabels{batchv1alpha1.JobNameKey: f.filter.job})
			case f.filter.queue != "":
				// Pods of other workloads name their queue in an annotation: read them all.
			default:
				opts = append(opts, client.HasLabels{batchv1alpha1.JobNameKey})
			}
			pods := &corev1.PodList{}
			if err := c.List(ctx, pods, opts...); err != nil {
				return apiError("listing pods", err, "")
			}
			selected, err := selectPods(pods.Items, f.filter)
			if err != nil {
				return err
			}
			_, err = io.WriteString(e.Out, formatPodList(selected, f.allNamespaces, e.Clock.Now()))
			return err
		}),
	}
	flags := cmd.Flags()
	flags.StringVarP(&f.namespace, "namespace", "n", defaultNamespace, "the namespace of the pods")
	flags.BoolVar(&f.allNamespaces, "all-namespaces", false, "list the pods of all namespaces")
	flags.StringVarP(&f.filter.job, "job", "j", "", "list only the pods of this job")
	flags.StringVarP(&f.filter.queue, "queue", "q", "", "list only the pods of this queue")
	return cmd, f
}
