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
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	busv1alpha1 "github.com/caldera-sh/caldera/api/bus/v1alpha1"
)

func newJobCommand(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "job",
		Short: "Run, list, view, explain, suspend, resume and delete jobs",
		Args:  noArgs("pick a subcommand: run, list, view, why, suspend, resume or delete"),
	}
	run, _ := newJobRunCommand(e)
	list, _ := newJobListCommand(e)
	view, _ := newJobViewCommand(e)
	why, _ := newJobWhyCommand(e)
	suspend, _ := newJobActionCommand(e, "suspend", busv1alpha1.AbortJobAction,
		"Abort a job: its running and pending pods are deleted and it stays Aborted until resumed",
		"Abort a job by creating an AbortJob Command that the job controller carries out: the job's\n"+
			"running and pending pods are deleted and the job stays Aborted until `vcctl job resume`.\n"+
			"For a job kept in Git, set spec.suspend: true in the manifest instead.")
	resume, _ := newJobActionCommand(e, "resume", busv1alpha1.ResumeJobAction,
		"Resume an aborted job",
		"Resume an aborted job by creating a ResumeJob Command that the job controller carries out.\n"+
			"For a job kept in Git, set spec.suspend: false in the manifest instead.")
	del, _ := newJobDeleteCommand(e)
	cmd.AddCommand(run, list, view, why, suspend, resume, del)
	return cmd
}

// objectRef are the flags naming one namespaced object: -N/--name and -n/--namespace.
type objectRef struct {
	name      string
	namespace string
}

// bind adds the flags; kind names the object in their help (e.g. "job", "CronJob").
func (r *objectRef) bind(cmd *cobra.Command, kind string) {
	cmd.Flags().StringVarP(&r.namespace, "namespace", "n", defaultNamespace, "the namespace of the "+kind)
	cmd.Flags().StringVarP(&r.name, "name", "N", "", "the name of the "+kind)
}

// check refuses an empty name or namespace; noun is the command's word for the kind (e.g.
// "cronjob"), kind the object's name (e.g. "CronJob") and verb what it is needed for.
func (r *objectRef) check(noun, kind, verb string) error {
	if r.name == "" {
		return fmt.Errorf("%s name is required to %s a %s: pass -N/--name", noun, verb, kind)
	}
	if r.namespace == "" {
		return fmt.Errorf("-n/--namespace is empty: name the namespace of the %s to %s (default is default)", kind, verb)
	}
	return nil
}

// jobRef are the flags naming one job.
type jobRef struct{ objectRef }

func (r *jobRef) bind(cmd *cobra.Command) { r.objectRef.bind(cmd, "job") }

// check refuses an empty name or namespace; verb says what the job is needed for.
func (r *jobRef) check(verb string) error { return r.objectRef.check("job", "job", verb) }

func (r *jobRef) notFound() string {
	return fmt.Sprintf("job %s/%s not found: check -N/--name and -n/--namespace (`vcctl job list -n %s` lists the jobs there)",
		r.namespace, r.name, r.namespace)
}

// get reads the job the flags name.
func (r *jobRef) get(ctx context.Context, c client.Client) (*batchv1alpha1.Job, error) {
	job := &batchv1alpha1.Job{}
	err := c.Get(ctx, client.ObjectKey{Namespace: r.namespace, Name: r.name}, job)
	if err != nil {
		return nil, apiError(fmt.Sprintf("reading job %s/%s", r.namespace, r.name), err, r.notFound())
	}
	return job, nil
}

func newJobRunCommand(e *env) (*cobra.Command, *jobRunFlags) {
	f := &jobRunFlags{}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run a job from a YAML file (-f) or from flags",
		Long: "Run a job. With -f/--filename the job is read from a YAML or JSON manifest (- reads standard\n" +
			"input); otherwise vcctl builds a one-task job from the flags: -N name, -i image, -r replicas,\n" +
			"-m gang size, -R requests and -L limits of its container, -S scheduler, -q queue.",
		Example: "  vcctl job run -N demo -r 4 -m 4 -R cpu=500m,memory=256Mi -L cpu=1,memory=256Mi\n" +
			"  vcctl job run -f job.yaml -n team-a",
		Args: noArgs("name the job with -N/--name, or pass its manifest with -f/--filename"),
		RunE: runE(func(ctx context.Context, cmd *cobra.Command) error {
			f.changed = changedFlags(cmd, "namespace", "image", "min", "replicas", "requests", "limits", "scheduler", "queue")
			return e.runJob(ctx, f)
		}),
	}
	flags := cmd.Flags()
	flags.StringVarP(&f.filename, "filename", "f", "", "the YAML or JSON file of the job; - reads standard input")
	flags.StringVarP(&f.name, "name", "N", "", "the name of the job")
	flags.StringVarP(&f.namespace, "namespace", "n", defaultNamespace, "the namespace of the job")
	flags.StringVarP(&f.image, "image", "i", defaultImage, "the container image of the job")
	flags.Int32VarP(&f.minAvailable, "min", "m", 1, "the minimal number of pods of the job that must run together (gang size)")
	flags.Int32VarP(&f.replicas, "replicas", "r", 1, "the number of pods of the job")
	flags.StringVarP(&f.requests, "requests", "R", defaultResources, "the resource requests of the container, <resource>=<quantity>,...")
	flags.StringVarP(&f.limits, "limits", "L", defaultResources, "the resource limits of the container, <resource>=<quantity>,...")
	flags.StringVarP(&f.scheduler, "scheduler", "S", defaultScheduler, "the scheduler of the job's pods")
	flags.StringVarP(&f.queue, "queue", "q", "", "the queue of the job (default: the default queue)")
	return cmd, f
}

func (e *env) runJob(ctx context.Context, f *jobRunFlags) error {
	var (
		job *batchv1alpha1.Job
		err error
	)
	if f.filename != "" {
		data, source, rerr := e.readManifest(f.filename)
		if rerr != nil {
			return rerr
		}
		job, err = jobFromManifest(data, source, *f)
	} else {
		job, err = buildJobFromFlags(*f)
	}
	if err != nil {
		return err
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	name := job.Name
	if name == "" {
		name = job.GenerateName + "*"
	}
	if err := c.Create(ctx, job); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("job %s/%s already exists: choose another name (-N/--name), or delete it first "+
				"with `vcctl job delete -N %s -n %s`", job.Namespace, name, name, job.Namespace)
		}
		return apiError(fmt.Sprintf("creating job %s/%s", job.Namespace, name), err, "")
	}
	_, err = fmt.Fprintf(e.Out, "run job %s successfully\n", job.Name)
	return err
}

// readManifest reads the file of -f/--filename, or standard input for "-".
func (e *env) readManifest(filename string) (data []byte, source string, err error) {
	if filename == "-" {
		data, err = io.ReadAll(e.In)
		if err != nil {
			return nil, "", fmt.Errorf("reading the job from standard input (-f -): %w", err)
		}
		return data, "standard input", nil
	}
	data, err = os.ReadFile(filename)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, "", fmt.Errorf("-f/--filename %s: no such file: check the path", filename)
		}
		return nil, "", fmt.Errorf("reading -f/--filename %s: %w", filename, err)
	}
	return data, filename, nil
}

// jobListFlags are the flags of `vcctl job list`.
type jobListFlags struct {
	namespace     string
	allNamespaces bool
	filter        jobListFilter
}

func newJobListCommand(e *env) (*cobra.Command, *jobListFlags) {
	f := &jobListFlags{}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List jobs with their phase and pod counts",
		Args:  noArgs("filter with -n, --all-namespaces, -q, -S or --selector"),
		RunE: runE(func(ctx context.Context, _ *cobra.Command) error {
			c, err := e.client()
			if err != nil {
				return err
			}
			namespace := f.namespace
			if f.allNamespaces {
				namespace = ""
			}
			list := &batchv1alpha1.JobList{}
			if err := c.List(ctx, list, client.InNamespace(namespace)); err != nil {
				return apiError("listing jobs", err, "")
			}
			_, err = io.WriteString(e.Out, formatJobList(filterJobs(list.Items, f.filter), f.allNamespaces))
			return err
		}),
	}
	flags := cmd.Flags()
	flags.StringVarP(&f.namespace, "namespace", "n", defaultNamespace, "the namespace of the jobs")
	flags.BoolVar(&f.allNamespaces, "all-namespaces", false, "list the jobs of all namespaces")
	flags.StringVarP(&f.filter.queue, "queue", "q", "", "list only the jobs of this queue")
	flags.StringVarP(&f.filter.scheduler, "scheduler", "S", "", "list only the jobs of this scheduler")
	flags.StringVar(&f.filter.selector, "selector", "", "list only the jobs whose name contains this text")
	return cmd, f
}

func newJobViewCommand(e *env) (*cobra.Command, *jobRef) {
	r := &jobRef{}
	cmd := &cobra.Command{
		Use:   "view",
		Short: "Show a job: spec, status, conditions with their reasons, and events",
		Args:  noArgs("name the job with -N/--name"),
		RunE: runE(func(ctx context.Context, _ *cobra.Command) error {
			if err := r.check("view"); err != nil {
				return err
			}
			c, err := e.client()
			if err != nil {
				return err
			}
			job, err := r.get(ctx, c)
			if err != nil {
				return err
			}
			events := &corev1.EventList{}
			if err := c.List(ctx, events, client.InNamespace(job.Namespace),
				client.MatchingFields{"involvedObject.uid": string(job.UID)}); err != nil {
				// The job is shown even when its events cannot be read.
				fmt.Fprintf(e.ErrOut, "warning: %v\n", apiError("listing the job's events", err, ""))
				events.Items = nil
			}
			_, err = io.WriteString(e.Out, formatJobView(job, events.Items, e.Clock.Now()))
			return err
		}),
	}
	r.bind(cmd)
	return cmd, r
}

// newJobActionCommand builds `vcctl job suspend` and `vcctl job resume`: each creates a Command
// with its action, targeting the job.
func newJobActionCommand(e *env, use string, action busv1alpha1.Action, short, long string) (*cobra.Command, *jobRef) {
	r := &jobRef{}
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Long:  long,
		Args:  noArgs("name the job with -N/--name"),
		RunE: runE(func(ctx context.Context, _ *cobra.Command) error {
			if err := r.check(use); err != nil {
				return err
			}
			c, err := e.client()
			if err != nil {
				return err
			}
			job, err := r.get(ctx, c)
			if err != nil {
				return err
			}
			command := jobActionCommand(job, action)
			if err := c.Create(ctx, command); err != nil {
				return apiError(fmt.Sprintf("creating the %s command for job %s/%s", action, job.Namespace, job.Name), err, "")
			}
			_, err = fmt.Fprintf(e.Out, "%s command %s/%s created for job %s/%s\n",
				action, command.Namespace, command.Name, job.Namespace, job.Name)
			return err
		}),
	}
	r.bind(cmd)
	return cmd, r
}

func newJobDeleteCommand(e *env) (*cobra.Command, *jobRef) {
	r := &jobRef{}
	cmd := &cobra.Command{
		Use:   "delete",
		Short: "Delete a job and, with it, its pods and PodGroup",
		Args:  noArgs("name the job with -N/--name"),
		RunE: runE(func(ctx context.Context, _ *cobra.Command) error {
			if err := r.check("delete"); err != nil {
				return err
			}
			c, err := e.client()
			if err != nil {
				return err
			}
			job := &batchv1alpha1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: r.namespace, Name: r.name}}
			if err := c.Delete(ctx, job); err != nil {
				return apiError(fmt.Sprintf("deleting job %s/%s", r.namespace, r.name), err, r.notFound())
			}
			_, err = fmt.Fprintf(e.Out, "delete job %s successfully\n", r.name)
			return err
		}),
	}
	r.bind(cmd)
	return cmd, r
}
