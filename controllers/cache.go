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

package controllers

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	schedulingv1beta1 "github.com/caldera-sh/caldera/api/scheduling/v1beta1"
	"github.com/caldera-sh/caldera/internal/intern"
)

// JobObjectSelector selects the objects the job plugins make: those labelled with a job's name.
func JobObjectSelector() labels.Selector {
	req, err := labels.NewRequirement(batchv1alpha1.JobNameKey, selection.Exists, nil)
	if err != nil {
		panic(err) // a constant, valid key
	}
	return labels.NewSelector().Add(*req)
}

// CacheOptions are the manager's cache options the controllers need:
//   - Secrets and ConfigMaps are cached only when a job plugin made them (JobObjectSelector), so
//     the manager does not hold every Secret and ConfigMap of the cluster in memory; the
//     controllers read others, such as those made before the plugins labelled what they make,
//     from the API server.
//   - Pods, PodGroups and Jobs, the objects there are many of, are cached without their
//     managedFields, which nothing in the manager reads: about a fifth of a pod's memory. The
//     objects the plugins make keep theirs, which name the tool that owns one whose name a job
//     wants.
//   - They also share the strings they repeat (package intern): a job's pods hold its name,
//     queue, labels, image and node once between them, one copy of the resource lists their
//     containers ask for, and one of the tolerations, security context and small values the API
//     server gives every pod: 38% less of a pod's memory (BenchmarkPodMemory: 3.1 KB against 5.0).
//     Jobs share their templates' strings and resource lists, their plugins, policies and
//     conditions, and PodGroups their queue, minResources and conditions: 30% less of a job's
//     memory and 26% less of a PodGroup's (BenchmarkJobMemory: 5.8 KB against 8.2, and 1.4
//     KB against 1.9).
func CacheOptions() cache.Options {
	byJob := cache.ByObject{Label: JobObjectSelector()}
	strip := cache.TransformStripManagedFields()
	return cache.Options{ByObject: map[client.Object]cache.ByObject{
		&corev1.Secret{}:              byJob,
		&corev1.ConfigMap{}:           byJob,
		&corev1.Pod{}:                 {Transform: lean(strip, intern.Pod)},
		&schedulingv1beta1.PodGroup{}: {Transform: lean(strip, intern.PodGroup)},
		&batchv1alpha1.Job{}:          {Transform: lean(strip, intern.Job)},
	}}
}

// lean is the transform of cached objects of type T: strip, then their repeated strings interned.
func lean[T any](strip toolscache.TransformFunc, share func(*T)) toolscache.TransformFunc {
	return func(obj any) (any, error) {
		obj, err := strip(obj)
		if o, ok := obj.(*T); ok && err == nil {
			share(o)
		}
		return obj, err
	}
}
