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

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
)

func newCronJobCommand(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "cronjob",
		Aliases: []string{"cronvcjob"},
		Short:   "List, get, suspend and resume CronJobs",
		Args:    noArgs("pick a subcommand: list, get, suspend or resume"),
	}
	list, _ := newCronJobListCommand(e)
	get, _ := newCronJobGetCommand(e)
	suspend, _ := newCronJobSuspendCommand(e, true)
	resume, _ := newCronJobSuspendCommand(e, false)
	cmd.AddCommand(list, get, suspend, resume)
	return cmd
}

// cronJobRef are the flags naming one CronJob, as for jobs.
type cronJobRef struct{ objectRef }

func (r *cronJobRef) bind(cmd *cobra.Command) { r.objectRef.bind(cmd, "CronJob") }

func (r *cronJobRef) check(verb string) error { return r.objectRef.check("cronjob", "CronJob", verb) }

func (r *cronJobRef) get(ctx context.Context, c client.Client) (*batchv1alpha1.CronJob, error) {
	cj := &batchv1alpha1.CronJob{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: r.namespace, Name: r.name}, cj); err != nil {
		return nil, apiError(fmt.Sprintf("reading cronjob %s/%s", r.namespace, r.name), err,
			fmt.Sprintf("cronjob %s/%s not found: check -N/--name and -n/--namespace (`vcctl cronjob list -n %s` lists the CronJobs there)",
				r.namespace, r.name, r.namespace))
	}
	return cj, nil
}

// cronJobListFlags are the flags of `vcctl cronjob list`.
type cronJobListFlags struct {
	namespace     string
	allNamespaces bool
}

func newCronJobListCommand(e *env) (*cobra.Command, *cronJobListFlags) {
	f := &cronJobListFlags{}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List CronJobs with their schedule, active runs and last schedule time",
		Args:  noArgs("filter with -n or --all-namespaces"),
		RunE: runE(func(ctx context.Context, _ *cobra.Command) error {
			c, err := e.client()
			if err != nil {
				return err
			}
			namespace := f.namespace
			if f.allNamespaces {
				namespace = ""
			}
			list := &batchv1alpha1.CronJobList{}
			if err := c.List(ctx, list, client.InNamespace(namespace)); err != nil {
				return apiError("listing cronjobs", err, "")
			}
			_, err = io.WriteString(e.Out, formatCronJobList(list.Items, f.allNamespaces, e.Clock.Now()))
			return err
		}),
	}
	cmd.Flags().StringVarP(&f.namespace, "namespace", "n", defaultNamespace, "the namespace of the CronJobs")
	cmd.Flags().BoolVar(&f.allNamespaces, "all-namespaces", false, "list the CronJobs of all namespaces")
	return cmd, f
}

func newCronJobGetCommand(e *env) (*cobra.Command, *cronJobRef) {
	r := &cronJobRef{}
	cmd := &cobra.Command{
		Use:   "get",
		Short: "Show a CronJob: schedule, policies, active runs and conditions",
		Args:  noArgs("name the CronJob with -N/--name"),
		RunE: runE(func(ctx context.Context, _ *cobra.Command) error {
			if err := r.check("get"); err != nil {
				return err
			}
			c, err := e.client()
			if err != nil {
				return err
			}
			cj, err := r.get(ctx, c)
			if err != nil {
				return err
			}
			_, err = io.WriteString(e.Out, formatCronJobDetail(cj, e.Clock.Now()))
			return err
		}),
	}
	r.bind(cmd)
	return cmd, r
}

// cronJobSuspendFlags are the flags of `vcctl cronjob suspend|resume`.
type cronJobSuspendFlags struct {
	cronJobRef
	// force lets vcctl change a spec.suspend that Git (a GitOps tool) or another field manager
	// keeps.
	force bool
}

func newCronJobSuspendCommand(e *env, suspend bool) (*cobra.Command, *cronJobSuspendFlags) {
	f := &cronJobSuspendFlags{}
	use, short := "resume", "Resume a CronJob: runs start again at its schedule times"
	if suspend {
		use, short = "suspend", "Suspend a CronJob: no run starts until it is resumed; active runs go on"
	}
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Long: short + ".\n\nvcctl server-side applies spec.suspend as field manager vcctl. It refuses a CronJob\n" +
			"whose spec.suspend Git keeps: one carrying Argo CD's or Flux's tracking metadata, or whose\n" +
			"spec.suspend another field manager wrote. Change spec.suspend in Git instead, or pass --force\n" +
			"to change it anyway until the next sync sets it back.",
		Example: "  vcctl cronjob " + use + " -N nightly -n team-a",
		Args:    noArgs("name the CronJob with -N/--name"),
		RunE: runE(func(ctx context.Context, _ *cobra.Command) error {
			if err := f.check(use); err != nil {
				return err
			}
			c, err := e.client()
			if err != nil {
				return err
			}
			return e.setCronJobSuspend(ctx, c, &f.cronJobRef, suspend, f.force)
		}),
	}
	f.bind(cmd)
	cmd.Flags().BoolVar(&f.force, "force", false, "change spec.suspend even if Git (Argo CD, Flux) or another "+
		"field manager keeps it; the next sync sets it back")
	return cmd, f
}

// setCronJobSuspend sets a CronJob's spec.suspend with server-side apply as field manager vcctl.
// It refuses when others keep the field (suspendOwners) unless force is set; then it takes the
// field from them and warns that Git will revert it. The apply carries the resourceVersion that
// was checked, so a CronJob changed or deleted meanwhile is neither overwritten nor created.
func (e *env) setCronJobSuspend(ctx context.Context, c client.Client, r *cronJobRef, suspend, force bool) error {
	cj, err := r.get(ctx, c)
	if err != nil {
		return err
	}
	key := r.namespace + "/" + r.name
	owners := suspendOwners(cj)
	if len(owners) > 0 && !force {
		return ownedFieldError("cronjob "+key, "spec.suspend", owners)
	}
	apply := &unstructured.Unstructured{}
	apply.SetAPIVersion(batchv1alpha1.GroupVersion.String())
	apply.SetKind("CronJob")
	apply.SetNamespace(r.namespace)
	apply.SetName(r.name)
	apply.SetResourceVersion(cj.ResourceVersion)
	if err := unstructured.SetNestedField(apply.Object, suspend, "spec", "suspend"); err != nil {
		return err
	}
	verb := "resume"
	if suspend {
		verb = "suspend"
	}
	err = c.Apply(ctx, client.ApplyConfigurationFromUnstructured(apply), client.FieldOwner(FieldManager), client.ForceOwnership)
	if err != nil {
		if apierrors.IsConflict(err) {
			return fmt.Errorf("%s cronjob %s: it changed while vcctl checked who keeps spec.suspend (%v): run the command again", verb, key, err)
		}
		return apiError(verb+" cronjob "+key, err, "cronjob "+key+" not found")
	}
	if len(owners) > 0 {
		if _, err := io.WriteString(e.ErrOut, forcedFieldWarning("cronjob "+key, "spec.suspend", owners)); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintf(e.Out, "%s cronjob %s successfully\n", verb, key)
	return err
}
