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
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	flowv1alpha1 "github.com/caldera-sh/caldera/api/flow/v1alpha1"
)

// formatJobFlowList is the table of `vcctl jobflow list` and `get`, as Volcano's: Name,
// Namespace, Phase, Age.
func formatJobFlowList(flows []flowv1alpha1.JobFlow, now time.Time) string {
	if len(flows) == 0 {
		return noResources
	}
	rows := make([][]string, 0, len(flows))
	for _, jf := range flows {
		rows = append(rows, []string{jf.Name, jf.Namespace, string(jf.Status.State.Phase), age(now, jf.CreationTimestamp.Time)})
	}
	return formatTable([]string{"Name", "Namespace", "Phase", "Age"}, rows)
}

// formatJobTemplateList is the table of `vcctl jobtemplate list` and `get`, as Volcano's: Name,
// Namespace.
func formatJobTemplateList(templates []flowv1alpha1.JobTemplate) string {
	if len(templates) == 0 {
		return noResources
	}
	rows := make([][]string, 0, len(templates))
	for _, t := range templates {
		rows = append(rows, []string{t.Name, t.Namespace})
	}
	return formatTable([]string{"Name", "Namespace"}, rows)
}

// formatDetail prints objects for `describe` in format yaml or json, without managedFields and
// with apiVersion and kind set, separated by a blank line as Volcano's vcctl does.
func formatDetail(objs []client.Object, gvk func(client.Object), format string) (string, error) {
	if format != "yaml" && format != "json" {
		return "", fmt.Errorf("-o/--format %q: use yaml or json", format)
	}
	parts := make([]string, 0, len(objs))
	for _, o := range objs {
		o.SetManagedFields(nil)
		gvk(o)
		var out []byte
		var err error
		if format == "json" {
			out, err = json.MarshalIndent(o, "", "  ")
			out = append(out, '\n')
		} else {
			out, err = yaml.Marshal(o)
		}
		if err != nil {
			return "", err
		}
		parts = append(parts, string(out))
	}
	return strings.Join(parts, "\n"), nil
}

// flowObjectsFromManifest decodes the objects of kind (JobFlow or JobTemplate) in a YAML file of
// one or more documents; documents of other kinds are an error naming them. Objects without a
// namespace get defaultNamespace, as in Volcano.
func flowObjectsFromManifest(data []byte, source, kind string) ([]client.Object, error) {
	docs, err := splitDocuments(data)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", source, err)
	}
	var objs []client.Object
	for i, doc := range docs {
		var meta struct {
			Kind string `json:"kind"`
		}
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			return nil, fmt.Errorf("%s, document %d: %w", source, i+1, err)
		}
		if meta.Kind != kind {
			return nil, fmt.Errorf("%s, document %d: kind %q is not a %s", source, i+1, meta.Kind, kind)
		}
		var obj client.Object = &flowv1alpha1.JobFlow{}
		if kind == "JobTemplate" {
			obj = &flowv1alpha1.JobTemplate{}
		}
		if err := yaml.UnmarshalStrict(doc, obj); err != nil {
			return nil, fmt.Errorf("%s, document %d: %w", source, i+1, err)
		}
		if obj.GetNamespace() == "" {
			obj.SetNamespace(defaultNamespace)
		}
		objs = append(objs, obj)
	}
	if len(objs) == 0 {
		return nil, fmt.Errorf("%s holds no %s", source, kind)
	}
	return objs, nil
}

// setFlowGVK sets apiVersion and kind of a flow.volcano.sh object read through the client.
func setFlowGVK(o client.Object) {
	kind := "JobFlow"
	if _, ok := o.(*flowv1alpha1.JobTemplate); ok {
		kind = "JobTemplate"
	}
	o.GetObjectKind().SetGroupVersionKind(flowv1alpha1.GroupVersion.WithKind(kind))
}
