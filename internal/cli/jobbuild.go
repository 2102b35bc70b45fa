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
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
)

// Defaults of `vcctl job run`, as Volcano's.
const (
	defaultNamespace = "default"
	defaultImage     = "busybox"
	defaultResources = "cpu=1000m,memory=100Mi"
	defaultScheduler = "volcano"
)

// jobRunFlags are the flags of `vcctl job run`.
type jobRunFlags struct {
	filename     string
	name         string
	namespace    string
	image        string
	minAvailable int32
	replicas     int32
	requests     string
	limits       string
	scheduler    string
	queue        string

	// changed holds the long names of the flags given on the command line.
	changed map[string]bool
}

// parseResourceList parses "<resource>=<quantity>,..." (the form of -R and -L) into a
// resource list; flag names the flag in errors. An empty spec is an empty list.
func parseResourceList(flag, spec string) (corev1.ResourceList, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return nil, nil
	}
	list := corev1.ResourceList{}
	for _, entry := range strings.Split(spec, ",") {
		name, value, ok := strings.Cut(strings.TrimSpace(entry), "=")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || name == "" || value == "" {
			return nil, fmt.Errorf("%s: %q is not <resource>=<quantity>: write for example %s", flag, entry, defaultResources)
		}
		if _, dup := list[corev1.ResourceName(name)]; dup {
			return nil, fmt.Errorf("%s: %s is given twice: give each resource once", flag, name)
		}
		if errs := validation.IsQualifiedName(name); len(errs) > 0 {
			return nil, fmt.Errorf("%s: %q is not a resource name (%s): use names such as cpu, memory or nvidia.com/gpu",
				flag, name, strings.Join(errs, "; "))
		}
		q, err := resource.ParseQuantity(value)
		if err != nil {
			return nil, fmt.Errorf("%s: %s=%s: the quantity is not valid (%v): write for example cpu=500m or memory=1Gi",
				flag, name, value, err)
		}
		if q.Sign() < 0 {
			return nil, fmt.Errorf("%s: %s=%s is negative: give a quantity of zero or more", flag, name, value)
		}
		list[corev1.ResourceName(name)] = q
	}
	return list, nil
}

// buildJobFromFlags builds the one-task job that `vcctl job run` makes without -f: its name and
// namespace, minAvailable, and one task of replicas pods running image with the given requests
// and limits.
func buildJobFromFlags(f jobRunFlags) (*batchv1alpha1.Job, error) {
	if f.name == "" {
		return nil, errors.New("job name is required: pass -N/--name, or -f/--filename with a job manifest")
	}
	if errs := validation.IsDNS1123Label(f.name); len(errs) > 0 {
		return nil, fmt.Errorf("-N/--name %q is not a valid job name here (%s): it also names the container, "+
			"so use lowercase letters, digits and '-', at most 63 characters", f.name, strings.Join(errs, "; "))
	}
	if f.namespace == "" {
		return nil, errors.New("-n/--namespace is empty: name the namespace of the job (default is default)")
	}
	if f.image == "" {
		return nil, errors.New("-i/--image is empty: name the container image, for example busybox")
	}
	if f.replicas < 0 {
		return nil, fmt.Errorf("-r/--replicas %d is negative: give the number of pods, 1 or more", f.replicas)
	}
	if f.minAvailable < 0 {
		return nil, fmt.Errorf("-m/--min %d is negative: give the gang size, 0 to %d", f.minAvailable, f.replicas)
	}
	if f.minAvailable > f.replicas {
		return nil, fmt.Errorf("-m/--min %d is greater than -r/--replicas %d: the gang cannot be larger than the job; "+
			"lower -m or raise -r", f.minAvailable, f.replicas)
	}
	requests, err := parseResourceList("-R/--requests", f.requests)
	if err != nil {
		return nil, err
	}
	limits, err := parseResourceList("-L/--limits", f.limits)
	if err != nil {
		return nil, err
	}
	for name, req := range requests {
		if limit, ok := limits[name]; ok && req.Cmp(limit) > 0 {
			return nil, fmt.Errorf("-R/--requests %s=%s is greater than -L/--limits %s=%s: a request must not exceed its limit",
				name, req.String(), name, limit.String())
		}
	}

	return &batchv1alpha1.Job{
		TypeMeta: metav1.TypeMeta{APIVersion: batchv1alpha1.GroupVersion.String(), Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      f.name,
			Namespace: f.namespace,
		},
		Spec: batchv1alpha1.JobSpec{
			MinAvailable:  f.minAvailable,
			SchedulerName: f.scheduler,
			Queue:         f.queue,
			Tasks: []batchv1alpha1.TaskSpec{{
				Replicas: f.replicas,
				Template: corev1.PodTemplateSpec{
					Spec: corev1.PodSpec{
						RestartPolicy: corev1.RestartPolicyNever,
						Containers: []corev1.Container{{
							Name:            f.name,
							Image:           f.image,
							ImagePullPolicy: corev1.PullIfNotPresent,
							Resources: corev1.ResourceRequirements{
								Requests: requests,
								Limits:   limits,
							},
						}},
					},
				},
			}},
		},
	}, nil
}

// flagsBuildingJob are the long names of the `job run` flags that shape a job built from flags;
// with -f the job comes from the file, so they must not be given.
var flagsBuildingJob = []struct{ long, short string }{
	{"image", "i"}, {"min", "m"}, {"replicas", "r"}, {"requests", "R"}, {"limits", "L"}, {"scheduler", "S"}, {"queue", "q"},
}

// jobFromManifest reads the job of `vcctl job run -f`: one batch.volcano.sh/v1alpha1 Job in YAML
// or JSON, with unknown fields refused. -N and -n fill in a name or namespace the manifest leaves
// out and must agree with those it gives. source names the file in errors.
func jobFromManifest(data []byte, source string, f jobRunFlags) (*batchv1alpha1.Job, error) {
	for _, fl := range flagsBuildingJob {
		if f.changed[fl.long] {
			return nil, fmt.Errorf("-%s/--%s cannot be used with -f/--filename: the job comes from %s; edit the file instead",
				fl.short, fl.long, source)
		}
	}
	docs, err := splitDocuments(data)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", source, err)
	}
	switch len(docs) {
	case 0:
		return nil, fmt.Errorf("%s holds no job: write a batch.volcano.sh/v1alpha1 Job in it", source)
	case 1:
	default:
		return nil, fmt.Errorf("%s holds %d documents: vcctl job run creates one job, so keep one Job in the file", source, len(docs))
	}
	var meta metav1.TypeMeta
	if err := yaml.Unmarshal(docs[0], &meta); err != nil {
		return nil, fmt.Errorf("%s is not a YAML or JSON object: %w", source, err)
	}
	if meta.Kind != "" && meta.Kind != "Job" || meta.APIVersion != "" && meta.APIVersion != batchv1alpha1.GroupVersion.String() {
		return nil, fmt.Errorf("%s holds a %s %s, not a Job: vcctl job run creates apiVersion: %s, kind: Job",
			source, meta.APIVersion, meta.Kind, batchv1alpha1.GroupVersion.String())
	}
	job := &batchv1alpha1.Job{}
	if err := yaml.UnmarshalStrict(docs[0], job); err != nil {
		return nil, fmt.Errorf("%s is not a valid Job: %w", source, err)
	}
	job.APIVersion, job.Kind = batchv1alpha1.GroupVersion.String(), "Job"

	switch {
	case job.Name == "" && job.GenerateName == "" && f.name == "":
		return nil, fmt.Errorf("the job in %s has no name: set metadata.name in the file or pass -N/--name", source)
	case job.Name == "":
		job.Name = f.name
	case f.name != "" && f.name != job.Name:
		return nil, fmt.Errorf("-N/--name %s does not match metadata.name %s in %s: drop -N or make them agree",
			f.name, job.Name, source)
	}
	switch {
	case job.Namespace == "":
		job.Namespace = f.namespace
	case f.changed["namespace"] && f.namespace != job.Namespace:
		return nil, fmt.Errorf("-n/--namespace %s does not match metadata.namespace %s in %s: drop -n or make them agree",
			f.namespace, job.Namespace, source)
	}
	if job.Namespace == "" {
		return nil, errors.New("-n/--namespace is empty: name the namespace of the job (default is default)")
	}
	// Fields the API server owns are not taken from a file, which may have been saved from a
	// live object.
	job.ResourceVersion, job.UID, job.CreationTimestamp, job.Generation = "", "", metav1.Time{}, 0
	job.ManagedFields = nil
	job.Status = batchv1alpha1.JobStatus{}
	return job, nil
}

// splitDocuments splits a YAML stream into its non-empty documents.
func splitDocuments(data []byte) ([][]byte, error) {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs [][]byte
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(stripComments(doc))) > 0 {
			docs = append(docs, doc)
		}
	}
}

// stripComments drops YAML comment lines, so a document of comments alone counts as empty.
func stripComments(doc []byte) []byte {
	var out [][]byte
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] != '#' {
			out = append(out, line)
		}
	}
	return bytes.Join(out, []byte("\n"))
}
