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
	"fmt"

	corev1 "k8s.io/api/core/v1"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	"github.com/caldera-sh/caldera/internal/job/naming"
)

// Names and defaults of the pytorch plugin.
const (
	// PytorchMasterAddrEnv is the domain name of the master's first pod.
	PytorchMasterAddrEnv = "MASTER_ADDR"
	// PytorchMasterPortEnv is the master's port.
	PytorchMasterPortEnv = "MASTER_PORT"
	// PytorchWorldSizeEnv is the number of processes: the master's and the workers' pods.
	PytorchWorldSizeEnv = "WORLD_SIZE"
	// PytorchRankEnv is the pod's rank: masters first, then workers, each in index order.
	PytorchRankEnv = "RANK"

	// PytorchDefaultPort is the master port unless --port says otherwise.
	PytorchDefaultPort = 23456
	// PytorchPortName is the name of the port opened on every container.
	PytorchPortName = "pytorchjob-port"
	// PytorchWaitContainerName is the name of the init container that waits for the master.
	PytorchWaitContainerName = "wait-for-master"
	// PytorchDefaultWaitImage is the image of the wait-for-master init container.
	PytorchDefaultWaitImage = "busybox:1.36.1"
	// PytorchDefaultWaitTimeout is how long, in seconds, a worker waits for the master.
	PytorchDefaultWaitTimeout = 300
)

// pytorchPlugin sets the variables of PyTorch's env:// rendezvous in every container of the
// master and worker tasks (named by --master and --worker), opens the master port, and can make
// workers wait for the master to listen before they start.
type pytorchPlugin struct {
	master, worker string
	port           int
	waitEnabled    bool
	waitTimeout    int
	waitImage      string
}

func newPytorch(job *batchv1alpha1.Job, args []string) (Plugin, error) {
	p := &pytorchPlugin{}
	f := newFlags(PytorchPluginName, args)
	f.set.StringVar(&p.master, "master", "master", "the task of the master")
	f.set.StringVar(&p.worker, "worker", "worker", "the task of the workers")
	f.set.IntVar(&p.port, "port", PytorchDefaultPort, "the port the master listens on")
	f.set.BoolVar(&p.waitEnabled, "wait-master-enabled", false, "make workers wait for the master with an init container")
	f.set.IntVar(&p.waitTimeout, "wait-master-timeout", PytorchDefaultWaitTimeout, "seconds a worker waits for the master")
	f.set.StringVar(&p.waitImage, "wait-master-image", PytorchDefaultWaitImage, "the image of the wait-for-master init container")
	if err := f.parse(); err != nil {
		return nil, err
	}
	if err := f.checkPort("port", p.port); err != nil {
		return nil, err
	}
	if p.waitTimeout < 1 {
		return nil, &Error{Plugin: PytorchPluginName, Argument: f.arg("wait-master-timeout"), Message: "must be a number of seconds of at least 1"}
	}
	if p.waitImage == "" {
		return nil, &Error{Plugin: PytorchPluginName, Argument: f.arg("wait-master-image"), Message: "must name an image with a shell"}
	}
	if err := f.checkTasks(job, "master", "worker"); err != nil {
		return nil, err
	}
	return p, nil
}

// Name returns pytorch.
func (*pytorchPlugin) Name() string { return PytorchPluginName }

// OnPodCreate sets MASTER_ADDR, MASTER_PORT and WORLD_SIZE in every container, RANK in those of
// the master and worker tasks, opens the port, and adds the wait-for-master init container to
// workers when asked. A job without the master task is left alone.
func (p *pytorchPlugin) OnPodCreate(pod *corev1.Pod, job *batchv1alpha1.Job) error {
	master := findTask(job, p.master)
	if master == nil {
		return nil
	}
	taskName, index, err := podTask(PytorchPluginName, pod, job)
	if err != nil {
		return err
	}
	masterAddr := naming.DomainName(job.Name, p.master, master, 0)
	worldSize := master.Replicas
	if worker := findTask(job, p.worker); worker != nil && worker != master {
		worldSize += worker.Replicas
	}
	env := []corev1.EnvVar{
		{Name: PytorchMasterAddrEnv, Value: masterAddr},
		{Name: PytorchMasterPortEnv, Value: itoa(p.port)},
		{Name: PytorchWorldSizeEnv, Value: itoa(int(worldSize))},
	}
	switch taskName {
	case p.master:
		env = append(env, corev1.EnvVar{Name: PytorchRankEnv, Value: itoa(index)})
	case p.worker:
		env = append(env, corev1.EnvVar{Name: PytorchRankEnv, Value: itoa(int(master.Replicas) + index)})
	}
	for _, c := range containers(pod) {
		addPort(c, PytorchPortName, p.port)
		setEnv(c, env...)
	}
	if p.waitEnabled && taskName == p.worker && taskName != p.master {
		p.addWaitContainer(pod, masterAddr)
	}
	return nil
}

// addWaitContainer appends the wait-for-master init container unless the pod has one.
func (p *pytorchPlugin) addWaitContainer(pod *corev1.Pod, masterAddr string) {
	for i := range pod.Spec.InitContainers {
		if pod.Spec.InitContainers[i].Name == PytorchWaitContainerName {
			return
		}
	}
	pod.Spec.InitContainers = append(pod.Spec.InitContainers, corev1.Container{
		Name:    PytorchWaitContainerName,
		Image:   p.waitImage,
		Command: []string{"sh", "-c", WaitForMasterScript(masterAddr, p.port, p.waitTimeout)},
	})
}

// WaitForMasterScript is the shell script of the wait-for-master init container: it polls the
// master's port every two seconds (with nc, else bash's /dev/tcp, else a DNS lookup) and fails
// once the timeout has passed.
func WaitForMasterScript(host string, port, timeoutSeconds int) string {
	return fmt.Sprintf(`host='%s'
port=%d
timeout=%d
echo "waiting up to ${timeout}s for the master at ${host}:${port}"
elapsed=0
while :; do
  if command -v nc >/dev/null 2>&1; then
    nc -z -w 2 "$host" "$port" >/dev/null 2>&1 && break
  elif command -v bash >/dev/null 2>&1; then
    bash -c "exec 3<>/dev/tcp/$host/$port" >/dev/null 2>&1 && break
  else
    nslookup "$host" >/dev/null 2>&1 && break
  fi
  if [ "$elapsed" -ge "$timeout" ]; then
    echo "the master at ${host}:${port} is not reachable after ${timeout}s" >&2
    exit 1
  fi
  sleep 2
  elapsed=$((elapsed + 2))
done
echo "the master at ${host}:${port} is reachable"
`, host, port, timeoutSeconds)
}

// Objects returns nothing: the hosts come from the svc plugin, which pytorch implies.
func (*pytorchPlugin) Objects(*batchv1alpha1.Job, Existing) (Objects, error) { return Objects{}, nil }
