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
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	"github.com/caldera-sh/caldera/internal/job/naming"
)

const (
	// TFConfigEnv is the variable holding a TensorFlow pod's cluster and task, as JSON.
	TFConfigEnv = "TF_CONFIG"
	// TFDefaultPort is the port of every TensorFlow server unless --port says otherwise.
	TFDefaultPort = 2222
)

// TensorFlow roles, as they appear in TF_CONFIG.
const (
	tfPS        = "ps"
	tfWorker    = "worker"
	tfChief     = "chief"
	tfEvaluator = "evaluator"
)

// tensorflowPlugin sets TF_CONFIG in every container: the addresses of all servers by role, and
// the pod's own role and index. Each role is a task, named by --ps, --worker, --chief and
// --evaluator (by default the role's own name).
type tensorflowPlugin struct {
	ps, worker, chief, evaluator string
	port                         int

	// job is the job the plugin was built for, and cluster the JSON of its servers; computed
	// once because every pod of the job carries the same list.
	job     *batchv1alpha1.Job
	cluster []byte
}

func newTensorflow(job *batchv1alpha1.Job, args []string) (Plugin, error) {
	p := &tensorflowPlugin{}
	f := newFlags(TensorflowPluginName, args)
	f.set.StringVar(&p.ps, "ps", tfPS, "the task of the parameter servers")
	f.set.StringVar(&p.worker, "worker", tfWorker, "the task of the workers")
	f.set.StringVar(&p.chief, "chief", tfChief, "the task of the chief")
	f.set.StringVar(&p.evaluator, "evaluator", tfEvaluator, "the task of the evaluator")
	f.set.IntVar(&p.port, "port", TFDefaultPort, "the port every server listens on")
	if err := f.parse(); err != nil {
		return nil, err
	}
	if err := f.checkPort("port", p.port); err != nil {
		return nil, err
	}
	if err := f.checkTasks(job, "ps", "worker", "chief", "evaluator"); err != nil {
		return nil, err
	}
	cluster, err := json.Marshal(p.clusterOf(job))
	if err != nil {
		return nil, &Error{Plugin: TensorflowPluginName, Message: fmt.Sprintf("cannot encode %s: %v", TFConfigEnv, err)}
	}
	p.job, p.cluster = job, cluster
	return p, nil
}

// Name returns tensorflow.
func (*tensorflowPlugin) Name() string { return TensorflowPluginName }

// tfCluster lists the servers of each role as host:port.
type tfCluster struct {
	PS        []string `json:"ps,omitempty"`
	Worker    []string `json:"worker,omitempty"`
	Chief     []string `json:"chief,omitempty"`
	Evaluator []string `json:"evaluator,omitempty"`
}

// tfTask is the role and index of a pod.
type tfTask struct {
	Type  string `json:"type"`
	Index int    `json:"index"`
}

// OnPodCreate sets TF_CONFIG, unless the job is a single pod (which needs no cluster).
func (p *tensorflowPlugin) OnPodCreate(pod *corev1.Pod, job *batchv1alpha1.Job) error {
	if len(job.Spec.Tasks) == 1 && job.Spec.Tasks[0].Replicas == 1 {
		return nil
	}
	taskName, index, err := podTask(TensorflowPluginName, pod, job)
	if err != nil {
		return err
	}
	cluster := p.cluster
	if job != p.job {
		cluster, err = json.Marshal(p.clusterOf(job))
	}
	var own []byte
	if err == nil {
		own, err = json.Marshal(tfTask{Type: p.role(taskName), Index: index})
	}
	if err != nil {
		return &Error{Plugin: TensorflowPluginName, Message: fmt.Sprintf("cannot encode %s: %v", TFConfigEnv, err)}
	}
	// The JSON of tfConfig{Cluster, Task}, from the parts.
	value := `{"cluster":` + string(cluster) + `,"task":` + string(own) + `}`
	for _, c := range containers(pod) {
		setEnv(c, corev1.EnvVar{Name: TFConfigEnv, Value: value})
	}
	return nil
}

// clusterOf lists the servers of a job by role.
func (p *tensorflowPlugin) clusterOf(job *batchv1alpha1.Job) tfCluster {
	var c tfCluster
	for i := range job.Spec.Tasks {
		task, name := &job.Spec.Tasks[i], naming.TaskName(job.Spec.Tasks, i)
		hosts := make([]string, 0, task.Replicas)
		for r := range int(task.Replicas) {
			hosts = append(hosts, fmt.Sprintf("%s:%d", naming.DomainName(job.Name, name, task, r), p.port))
		}
		switch name {
		case p.ps:
			c.PS = hosts
		case p.worker:
			c.Worker = hosts
		case p.chief:
			c.Chief = hosts
		case p.evaluator:
			c.Evaluator = hosts
		}
	}
	return c
}

// role is the TensorFlow role of a task; a task that plays no role is its own type.
func (p *tensorflowPlugin) role(taskName string) string {
	switch taskName {
	case p.chief:
		return tfChief
	case p.worker:
		return tfWorker
	case p.ps:
		return tfPS
	case p.evaluator:
		return tfEvaluator
	}
	return taskName
}

// Objects returns nothing: the hosts come from the svc plugin, which tensorflow implies.
func (*tensorflowPlugin) Objects(*batchv1alpha1.Job, Existing) (Objects, error) {
	return Objects{}, nil
}
