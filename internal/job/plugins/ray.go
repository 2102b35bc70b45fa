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
	"k8s.io/apimachinery/pkg/util/intstr"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	"github.com/caldera-sh/caldera/internal/job/naming"
)

// Names and defaults of the ray plugin, as Volcano's.
const (
	// RayPluginName is the ray plugin: a Ray cluster of a head task and a worker task.
	RayPluginName = "ray"
	// RayDefaultPort is the port of the head's Global Control Store.
	RayDefaultPort = 6379
	// RayDefaultDashboardPort is the port of the Ray dashboard.
	RayDefaultDashboardPort = 8265
	// RayDefaultClientPort is the port of the Ray client server.
	RayDefaultClientPort = 10001
	// RayGCSPortName, RayDashboardPortName and RayClientPortName name the head container's ports
	// and the head Service's.
	RayGCSPortName       = "gcs"
	RayDashboardPortName = "dashboard"
	RayClientPortName    = "client-server"
)

// rayPlugin starts a Ray cluster: the head task's container (named by --headContainer) runs
// `ray start --head`, with the GCS, dashboard and client ports opened, and the worker task's
// container (--workerContainer) runs `ray start --address=<head>:<port>`; a Service named
// <job>-head-svc exposes the head's three ports.
type rayPlugin struct {
	head, headContainer, worker, workerContainer string
	port, dashboardPort, clientPort              int
}

func newRay(job *batchv1alpha1.Job, args []string) (Plugin, error) {
	p := &rayPlugin{}
	f := newFlags(RayPluginName, args)
	f.set.StringVar(&p.head, "head", "head", "the task of the Ray head")
	f.set.StringVar(&p.headContainer, "headContainer", "head", "the container of the head task that runs the head")
	f.set.StringVar(&p.worker, "worker", "worker", "the task of the Ray workers")
	f.set.StringVar(&p.workerContainer, "workerContainer", "worker", "the container of the worker task that runs a worker")
	f.set.IntVar(&p.port, "port", RayDefaultPort, "the port of the head's Global Control Store")
	f.set.IntVar(&p.dashboardPort, "dashboardPort", RayDefaultDashboardPort, "the port of the Ray dashboard")
	f.set.IntVar(&p.clientPort, "clientPort", RayDefaultClientPort, "the port of the Ray client server")
	if err := f.parse(); err != nil {
		return nil, err
	}
	for _, port := range [][2]any{{"port", p.port}, {"dashboardPort", p.dashboardPort}, {"clientPort", p.clientPort}} {
		if err := f.checkPort(port[0].(string), port[1].(int)); err != nil {
			return nil, err
		}
	}
	// Without its head task Volcano fails every pod of the job; here the job says why first.
	if err := f.checkTask(job, "head", true); err != nil {
		return nil, err
	}
	if err := f.checkTasks(job, "worker"); err != nil {
		return nil, err
	}
	return p, nil
}

// Name returns ray.
func (*rayPlugin) Name() string { return RayPluginName }

// OnPodCreate sets the head's and the workers' commands and opens the head's ports.
func (p *rayPlugin) OnPodCreate(pod *corev1.Pod, job *batchv1alpha1.Job) error {
	taskName, _, err := podTask(RayPluginName, pod, job)
	if err != nil {
		return err
	}
	head := findTask(job, p.head)
	for _, c := range containers(pod) {
		switch {
		case taskName == p.head && c.Name == p.headContainer:
			addPort(c, RayGCSPortName, p.port)
			addPort(c, RayDashboardPortName, p.dashboardPort)
			addPort(c, RayClientPortName, p.clientPort)
			c.Command = []string{"sh", "-c", fmt.Sprintf("ray start --head --block --dashboard-host=0.0.0.0 --port=%d --dashboard-port=%d --ray-client-server-port=%d",
				p.port, p.dashboardPort, p.clientPort)}
		case taskName == p.worker && c.Name == p.workerContainer:
			c.Command = []string{"sh", "-c", fmt.Sprintf("ray start --block --address=%s:%d", naming.DomainName(job.Name, p.head, head, 0), p.port)}
		}
	}
	return nil
}

// Objects returns the head Service.
func (p *rayPlugin) Objects(job *batchv1alpha1.Job, _ Existing) (Objects, error) {
	port := func(name string, n int) corev1.ServicePort {
		return corev1.ServicePort{Name: name, Port: int32(n), TargetPort: intstr.FromString(name), Protocol: corev1.ProtocolTCP}
	}
	svc := &corev1.Service{
		ObjectMeta: objectMeta(job, naming.RayHeadServiceName(job.Name)),
		Spec: corev1.ServiceSpec{
			Selector: map[string]string{
				batchv1alpha1.JobNameKey:      job.Name,
				batchv1alpha1.JobNamespaceKey: job.Namespace,
				batchv1alpha1.TaskSpecKey:     p.head,
			},
			Ports: []corev1.ServicePort{port(RayGCSPortName, p.port), port(RayDashboardPortName, p.dashboardPort), port(RayClientPortName, p.clientPort)},
		},
	}
	return Objects{Services: []*corev1.Service{svc}}, nil
}
