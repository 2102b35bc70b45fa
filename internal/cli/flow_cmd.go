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
	"sigs.k8s.io/controller-runtime/pkg/client"

	flowv1alpha1 "github.com/caldera-sh/caldera/api/flow/v1alpha1"
)

// flowKind is what the jobflow and jobtemplate commands differ in.
type flowKind struct {
	// use is the command name: jobflow or jobtemplate.
	use string
	// kind is JobFlow or JobTemplate.
	kind string
	// newObj returns an empty object of the kind.
	newObj func() client.Object
	// list lists the objects of the kind in namespace ("" for all).
	list func(ctx context.Context, c client.Client, namespace string) ([]client.Object, error)
	// table formats objects as the list and get table.
	table func(objs []client.Object, e *env) string
	// allNamespaces is whether list takes --all-namespaces (Volcano's jobflow list does, its
	// jobtemplate list does not).
	allNamespaces bool
}

var jobFlowKind = flowKind{
	use: "jobflow", kind: "JobFlow", allNamespaces: true,
	newObj: func() client.Object { return &flowv1alpha1.JobFlow{} },
	list: func(ctx context.Context, c client.Client, namespace string) ([]client.Object, error) {
		l := &flowv1alpha1.JobFlowList{}
		if err := c.List(ctx, l, client.InNamespace(namespace)); err != nil {
			return nil, err
		}
		objs := make([]client.Object, len(l.Items))
		for i := range l.Items {
			objs[i] = &l.Items[i]
		}
		return objs, nil
	},
	table: func(objs []client.Object, e *env) string {
		flows := make([]flowv1alpha1.JobFlow, len(objs))
		for i, o := range objs {
			flows[i] = *o.(*flowv1alpha1.JobFlow)
		}
		return formatJobFlowList(flows, e.Clock.Now())
	},
}

var jobTemplateKind = flowKind{
	use: "jobtemplate", kind: "JobTemplate",
	newObj: func() client.Object { return &flowv1alpha1.JobTemplate{} },
	list: func(ctx context.Context, c client.Client, namespace string) ([]client.Object, error) {
		l := &flowv1alpha1.JobTemplateList{}
		if err := c.List(ctx, l, client.InNamespace(namespace)); err != nil {
			return nil, err
		}
		objs := make([]client.Object, len(l.Items))
		for i := range l.Items {
			objs[i] = &l.Items[i]
		}
		return objs, nil
	},
	table: func(objs []client.Object, _ *env) string {
		templates := make([]flowv1alpha1.JobTemplate, len(objs))
		for i, o := range objs {
			templates[i] = *o.(*flowv1alpha1.JobTemplate)
		}
		return formatJobTemplateList(templates)
	},
}

// flowFlags are the flags of the jobflow and jobtemplate subcommands, as Volcano's.
type flowFlags struct {
	file          string
	name          string
	namespace     string
	format        string
	allNamespaces bool
}

// newFlowCommand returns `vcctl jobflow` or `vcctl jobtemplate` with create, list, get, delete
// and describe.
func newFlowCommand(e *env, k flowKind) *cobra.Command {
	cmd := &cobra.Command{
		Use:   k.use,
		Short: fmt.Sprintf("Create, list, get, delete and describe %ss", k.kind),
		Args:  noArgs("pick a subcommand: create, list, get, delete or describe"),
	}
	for _, sub := range []func(*env, flowKind) *cobra.Command{flowCreate, flowList, flowGet, flowDelete, flowDescribe} {
		cmd.AddCommand(sub(e, k))
	}
	return cmd
}

func flowCreate(e *env, k flowKind) *cobra.Command {
	f := &flowFlags{}
	cmd := &cobra.Command{
		Use:   "create",
		Short: fmt.Sprintf("Create the %ss of a YAML file (-f)", k.kind),
		Args:  noArgs("name the file with -f"),
		RunE: runE(func(ctx context.Context, _ *cobra.Command) error {
			if f.file == "" {
				return fmt.Errorf("-f/--file is required: the YAML file of the %s", k.kind)
			}
			c, objs, err := e.flowObjects(f.file, k)
			if err != nil {
				return err
			}
			for _, o := range objs {
				if err := c.Create(ctx, o); err != nil {
					return apiError(fmt.Sprintf("creating %s %s/%s", k.kind, o.GetNamespace(), o.GetName()), err, "")
				}
				if _, err := fmt.Fprintf(e.Out, "Created %s: %s/%s\n", k.kind, o.GetNamespace(), o.GetName()); err != nil {
					return err
				}
			}
			return nil
		}),
	}
	cmd.Flags().StringVarP(&f.file, "file", "f", "", fmt.Sprintf("the path to the YAML file of the %s", k.kind))
	return cmd
}

func flowList(e *env, k flowKind) *cobra.Command {
	f := &flowFlags{}
	cmd := &cobra.Command{
		Use:   "list",
		Short: fmt.Sprintf("List %ss", k.kind),
		Args:  noArgs("filter with -n"),
		RunE: runE(func(ctx context.Context, _ *cobra.Command) error {
			c, err := e.client()
			if err != nil {
				return err
			}
			ns := f.namespace
			if f.allNamespaces {
				ns = ""
			}
			objs, err := k.list(ctx, c, ns)
			if err != nil {
				return apiError("listing "+k.kind+"s", err, "")
			}
			_, err = io.WriteString(e.Out, k.table(objs, e))
			return err
		}),
	}
	cmd.Flags().StringVarP(&f.namespace, "namespace", "n", defaultNamespace, fmt.Sprintf("the namespace of the %ss", k.kind))
	if k.allNamespaces {
		cmd.Flags().BoolVar(&f.allNamespaces, "all-namespaces", false, fmt.Sprintf("list the %ss of all namespaces", k.kind))
	}
	return cmd
}

func flowGet(e *env, k flowKind) *cobra.Command {
	f := &flowFlags{}
	cmd := &cobra.Command{
		Use:   "get",
		Short: fmt.Sprintf("Show one %s (-N)", k.kind),
		Args:  noArgs("name it with -N"),
		RunE: runE(func(ctx context.Context, _ *cobra.Command) error {
			o, err := e.getFlowObject(ctx, k, f)
			if err != nil {
				return err
			}
			_, err = io.WriteString(e.Out, k.table([]client.Object{o}, e))
			return err
		}),
	}
	f.bindName(cmd, k)
	return cmd
}

func flowDelete(e *env, k flowKind) *cobra.Command {
	f := &flowFlags{}
	cmd := &cobra.Command{
		Use:   "delete",
		Short: fmt.Sprintf("Delete a %s (-N) or the %ss of a YAML file (-f)", k.kind, k.kind),
		Args:  noArgs("name it with -N, or give its file with -f"),
		RunE: runE(func(ctx context.Context, _ *cobra.Command) error {
			var c client.Client
			var objs []client.Object
			var err error
			switch {
			case f.file != "":
				c, objs, err = e.flowObjects(f.file, k)
			case f.name != "":
				var o client.Object
				o, err = e.getFlowObject(ctx, k, f)
				objs = []client.Object{o}
				if err == nil {
					c, err = e.client()
				}
			default:
				err = fmt.Errorf("name the %s with -N/--name, or give its file with -f/--file", k.kind)
			}
			if err != nil {
				return err
			}
			for _, o := range objs {
				if err := c.Delete(ctx, o); err != nil {
					return apiError(fmt.Sprintf("deleting %s %s/%s", k.kind, o.GetNamespace(), o.GetName()), err,
						fmt.Sprintf("%s %s/%s not found", k.kind, o.GetNamespace(), o.GetName()))
				}
				if _, err := fmt.Fprintf(e.Out, "Deleted %s: %s/%s\n", k.kind, o.GetNamespace(), o.GetName()); err != nil {
					return err
				}
			}
			return nil
		}),
	}
	f.bindName(cmd, k)
	cmd.Flags().StringVarP(&f.file, "file", "f", "", fmt.Sprintf("the path to the YAML file of the %ss to delete", k.kind))
	return cmd
}

func flowDescribe(e *env, k flowKind) *cobra.Command {
	f := &flowFlags{}
	cmd := &cobra.Command{
		Use:   "describe",
		Short: fmt.Sprintf("Print a %s (-N), or all of a namespace, as YAML or JSON", k.kind),
		Args:  noArgs("name it with -N, or leave -N out for all of the namespace"),
		RunE: runE(func(ctx context.Context, _ *cobra.Command) error {
			var objs []client.Object
			if f.name != "" {
				o, err := e.getFlowObject(ctx, k, f)
				if err != nil {
					return err
				}
				objs = []client.Object{o}
			} else {
				c, err := e.client()
				if err != nil {
					return err
				}
				if objs, err = k.list(ctx, c, f.namespace); err != nil {
					return apiError("listing "+k.kind+"s", err, "")
				}
			}
			out, err := formatDetail(objs, setFlowGVK, f.format)
			if err != nil {
				return err
			}
			_, err = io.WriteString(e.Out, out)
			return err
		}),
	}
	f.bindName(cmd, k)
	cmd.Flags().StringVarP(&f.format, "format", "o", "yaml", "the output format: yaml or json")
	return cmd
}

// bindName adds -N/--name and -n/--namespace.
func (f *flowFlags) bindName(cmd *cobra.Command, k flowKind) {
	cmd.Flags().StringVarP(&f.name, "name", "N", "", fmt.Sprintf("the name of the %s", k.kind))
	cmd.Flags().StringVarP(&f.namespace, "namespace", "n", defaultNamespace, fmt.Sprintf("the namespace of the %s", k.kind))
}

// getFlowObject reads the object -N/-n name.
func (e *env) getFlowObject(ctx context.Context, k flowKind, f *flowFlags) (client.Object, error) {
	if f.name == "" {
		return nil, fmt.Errorf("-N/--name is required: the name of the %s", k.kind)
	}
	c, err := e.client()
	if err != nil {
		return nil, err
	}
	o := k.newObj()
	if err := c.Get(ctx, client.ObjectKey{Namespace: f.namespace, Name: f.name}, o); err != nil {
		return nil, apiError(fmt.Sprintf("reading %s %s/%s", k.kind, f.namespace, f.name), err,
			fmt.Sprintf("%s %s/%s not found: check -N and -n, or list them with `vcctl %s list`", k.kind, f.namespace, f.name, k.use))
	}
	return o, nil
}

// flowObjects reads the objects of a file for create and delete, and a client.
func (e *env) flowObjects(file string, k flowKind) (client.Client, []client.Object, error) {
	data, source, err := e.readManifest(file)
	if err != nil {
		return nil, nil, err
	}
	objs, err := flowObjectsFromManifest(data, source, k.kind)
	if err != nil {
		return nil, nil, err
	}
	c, err := e.client()
	return c, objs, err
}
