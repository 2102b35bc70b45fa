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
	"strings"

	corev1 "k8s.io/api/core/v1"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	"github.com/caldera-sh/caldera/internal/job/naming"
)

// Names and defaults of the mpi plugin.
const (
	// MPIHostEnv lists the workers' domain names, comma-separated, in the master's containers.
	MPIHostEnv = "MPI_HOST"
	// MPIDefaultPort is the ssh port opened on every container unless --port says otherwise.
	MPIDefaultPort = 22
	// MPIPortName is the name of that port.
	MPIPortName = "mpijob-port"
)

// mpiPlugin opens the ssh port on every container and gives the master (task --master) the list
// of workers (task --worker) in MPI_HOST. It implies svc (host names) and ssh (keys).
type mpiPlugin struct {
	master, worker string
	port           int
}

func newMPI(job *batchv1alpha1.Job, args []string) (Plugin, error) {
	p := &mpiPlugin{}
	f := newFlags(MPIPluginName, args)
	f.set.StringVar(&p.master, "master", "master", "the task of the master")
	f.set.StringVar(&p.worker, "worker", "worker", "the task of the workers")
	f.set.IntVar(&p.port, "port", MPIDefaultPort, "the ssh port opened on every container")
	if err := f.parse(); err != nil {
		return nil, err
	}
	if err := f.checkPort("port", p.port); err != nil {
		return nil, err
	}
	if err := f.checkTasks(job, "master", "worker"); err != nil {
		return nil, err
	}
	return p, nil
}

// Name returns mpi.
func (*mpiPlugin) Name() string { return MPIPluginName }

// OnPodCreate opens the port on every container and init container and, in the master's pods,
// sets MPI_HOST when the job has the worker task.
func (p *mpiPlugin) OnPodCreate(pod *corev1.Pod, job *batchv1alpha1.Job) error {
	var env []corev1.EnvVar
	if name, ok := naming.PodTaskName(pod); ok && name == p.master {
		if worker := findTask(job, p.worker); worker != nil {
			env = append(env, corev1.EnvVar{Name: MPIHostEnv, Value: strings.Join(naming.TaskHosts(job.Name, p.worker, worker), ",")})
		}
	}
	for _, c := range allContainers(pod) {
		addPort(c, MPIPortName, p.port)
		setEnv(c, env...)
	}
	return nil
}

// Objects returns nothing: the svc and ssh plugins, which mpi implies, make the objects.
func (*mpiPlugin) Objects(*batchv1alpha1.Job, Existing) (Objects, error) { return Objects{}, nil }
