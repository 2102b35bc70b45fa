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

package framework

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
)

// PolicyDir is the folder of the ValidatingAdmissionPolicies (and bindings) shipped with the CRDs.
func PolicyDir() string { return filepath.Join(RepoRoot(), "config", "policy") }

// ApplyPolicies applies, server-side, every object of the YAML files of PolicyDir but its
// kustomize files, under their unprefixed names. The API server enforces a policy a moment after
// it is applied: specs that need it wait with Eventually.
func ApplyPolicies(ctx context.Context, c client.Client) error {
	files, err := filepath.Glob(filepath.Join(PolicyDir(), "*.yaml"))
	if err != nil {
		return err
	}
	for _, file := range files {
		if base := filepath.Base(file); base == "kustomization.yaml" || base == "kustomizeconfig.yaml" {
			continue
		}
		data, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			obj := &unstructured.Unstructured{}
			if err := dec.Decode(&obj.Object); err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				return fmt.Errorf("reading %s: %w", file, err)
			}
			if len(obj.Object) == 0 {
				continue
			}
			if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner("caldera-test"), client.ForceOwnership); err != nil {
				return fmt.Errorf("applying %s %s from %s: %w", obj.GetKind(), obj.GetName(), file, err)
			}
		}
	}
	return nil
}

// DeleteQueue deletes the queue name as a user who has just deleted or finished its jobs must:
// the queue-deletion policy refuses while the queue's status still counts PodGroups that have not
// finished or pods it holds, and the scheduler writes that status a moment after the last of them
// goes. A refusal is retried until LongTimeout; the last one is returned if it does not give way.
// A missing queue is not an error.
func (f *Framework) DeleteQueue(ctx context.Context, name string) error {
	q := &schedulingv1beta1.Queue{}
	q.Name = name
	var last error
	err := wait.PollUntilContextTimeout(ctx, Interval, LongTimeout, true, func(ctx context.Context) (bool, error) {
		last = client.IgnoreNotFound(f.Client.Delete(ctx, q))
		if apierrors.IsForbidden(last) {
			return false, nil
		}
		return true, last
	})
	if last != nil {
		return fmt.Errorf("deleting queue %s: %w", name, last)
	}
	return err
}
