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
)

// Names of the hcclrank plugin, as Volcano's.
const (
	// HCCLRankPluginName is the hcclrank plugin: each pod's rank in an HCCL (Ascend) collective.
	HCCLRankPluginName = "hcclrank"
	// HCCLRankAnnotation is the pod annotation holding the rank, which Ascend's device plugin reads.
	HCCLRankAnnotation = "hccl/rankIndex"
)

// hcclrankPlugin annotates each pod of the master and worker tasks (named by --master and
// --worker) with its rank: the RANK its containers already set, else masters first, then
// workers, each in index order. A pod that carries the annotation keeps it.
type hcclrankPlugin struct {
	master, worker string
}

func newHCCLRank(job *batchv1alpha1.Job, args []string) (Plugin, error) {
	p := &hcclrankPlugin{}
	f := newFlags(HCCLRankPluginName, args)
	f.set.StringVar(&p.master, "master", "master", "the task of the masters")
	f.set.StringVar(&p.worker, "worker", "worker", "the task of the workers")
	if err := f.parse(); err != nil {
		return nil, err
	}
	if err := f.checkTasks(job, "master", "worker"); err != nil {
		return nil, err
	}
	return p, nil
}

// Name returns hcclrank.
func (*hcclrankPlugin) Name() string { return HCCLRankPluginName }

// OnPodCreate sets the hccl/rankIndex annotation.
func (p *hcclrankPlugin) OnPodCreate(pod *corev1.Pod, job *batchv1alpha1.Job) error {
	if pod.Annotations[HCCLRankAnnotation] != "" {
		return nil
	}
	rank := ""
	for _, c := range containers(pod) {
		for _, e := range c.Env {
			if e.Name == PytorchRankEnv && e.Value != "" && rank == "" {
				rank = e.Value
			}
		}
	}
	if rank == "" {
		taskName, index, err := podTask(HCCLRankPluginName, pod, job)
		if err != nil {
			return err
		}
		switch taskName {
		case p.master:
			rank = itoa(index)
		case p.worker:
			masters := 0
			if m := findTask(job, p.master); m != nil {
				masters = int(m.Replicas)
			}
			rank = itoa(masters + index)
		default:
			return nil
		}
	}
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[HCCLRankAnnotation] = rank
	return nil
}

// Objects returns nothing.
func (*hcclrankPlugin) Objects(*batchv1alpha1.Job, Existing) (Objects, error) { return Objects{}, nil }
