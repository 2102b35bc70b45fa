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

package plugins

import (
	corev1 "k8s.io/api/core/v1"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	"github.com/caldera-sh/caldera/internal/job/naming"
)

// Environment variables of the env plugin.
const (
	// EnvVKTaskIndex holds the pod's index within its task (the older name).
	EnvVKTaskIndex = "VK_TASK_INDEX"
	// EnvVCTaskIndex holds the pod's index within its task.
	EnvVCTaskIndex = "VC_TASK_INDEX"
)

// envPlugin sets VK_TASK_INDEX and VC_TASK_INDEX in every container and init container.
// It takes no arguments.
type envPlugin struct{}

func newEnv(_ *batchv1alpha1.Job, args []string) (Plugin, error) {
	if err := newFlags(EnvPluginName, args).parse(); err != nil {
		return nil, err
	}
	return envPlugin{}, nil
}

// Name returns env.
func (envPlugin) Name() string { return EnvPluginName }

// OnPodCreate sets the index variables.
func (envPlugin) OnPodCreate(pod *corev1.Pod, _ *batchv1alpha1.Job) error {
	index, err := naming.PodIndex(pod)
	if err != nil {
		return &Error{Plugin: EnvPluginName, Message: err.Error()}
	}
	value := itoa(index)
	for _, c := range allContainers(pod) {
		setEnv(c, corev1.EnvVar{Name: EnvVKTaskIndex, Value: value}, corev1.EnvVar{Name: EnvVCTaskIndex, Value: value})
	}
	return nil
}

// Objects returns nothing: the env plugin needs no objects.
func (envPlugin) Objects(*batchv1alpha1.Job, Existing) (Objects, error) { return Objects{}, nil }
