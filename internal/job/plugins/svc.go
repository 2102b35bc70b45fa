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
	"maps"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	"github.com/caldera-sh/caldera/internal/job/naming"
)

// Names of the svc plugin.
const (
	// SvcMountPath is where the svc plugin's ConfigMap is mounted in every container.
	SvcMountPath = "/etc/volcano"
	// SvcPlaceholderPortName is the name of the headless Service's only port.
	SvcPlaceholderPortName = "placeholder-volcano"
)

// SvcHostsFileKey is the ConfigMap key (and file under /etc/volcano) listing a task's hosts, one
// per line: <task>.host, with '-' in the task name replaced by '_'.
func SvcHostsFileKey(taskName string) string { return naming.TaskKey(taskName) + ".host" }

// SvcHostsEnv is the variable (and ConfigMap key) listing a task's hosts, comma-separated:
// VC_<TASK>_HOSTS.
func SvcHostsEnv(taskName string) string { return "VC_" + naming.TaskEnvKey(taskName) + "_HOSTS" }

// SvcNumEnv is the variable (and ConfigMap key) holding the number of a task's hosts:
// VC_<TASK>_NUM.
func SvcNumEnv(taskName string) string { return "VC_" + naming.TaskEnvKey(taskName) + "_NUM" }

// svcPlugin gives the job's pods stable DNS names through a headless Service, and tells every
// pod the hosts of every task through a ConfigMap mounted at /etc/volcano and environment
// variables.
type svcPlugin struct {
	// publishNotReadyAddresses publishes pods' DNS records before they are ready.
	publishNotReadyAddresses bool
	// disableNetworkPolicy skips the NetworkPolicy that admits only the job's pods.
	disableNetworkPolicy bool
	// injectHostsEnv sets VC_<TASK>_HOSTS and VC_<TASK>_NUM in every container.
	injectHostsEnv bool
}

func newSvc(_ *batchv1alpha1.Job, args []string) (Plugin, error) {
	p := &svcPlugin{injectHostsEnv: true}
	f := newFlags(SvcPluginName, args)
	f.set.BoolVar(&p.publishNotReadyAddresses, "publish-not-ready-addresses", false,
		"publish the DNS records of pods that are not ready")
	f.set.BoolVar(&p.disableNetworkPolicy, "disable-network-policy", false,
		"do not create the NetworkPolicy that admits only the job's pods")
	f.set.BoolVar(&p.injectHostsEnv, "inject-hosts-env", true,
		"set VC_<TASK>_HOSTS and VC_<TASK>_NUM in every container")
	if err := f.parse(); err != nil {
		return nil, err
	}
	return p, nil
}

// Name returns svc.
func (*svcPlugin) Name() string { return SvcPluginName }

// OnPodCreate sets the pod's hostname and subdomain, mounts the host lists, and sets the host
// variables.
func (p *svcPlugin) OnPodCreate(pod *corev1.Pod, job *batchv1alpha1.Job) error {
	if pod.Spec.Hostname == "" {
		if errs := validation.IsDNS1123Label(pod.Name); len(errs) > 0 {
			return &Error{Plugin: SvcPluginName, Message: fmt.Sprintf(
				"the pod name %q becomes its hostname, which must be a DNS label of at most 63 characters (%s); shorten the job name or the task name, or set hostname in the task's template",
				pod.Name, strings.Join(errs, "; "))}
		}
		pod.Spec.Hostname = pod.Name
	}
	if pod.Spec.Subdomain == "" {
		if errs := validation.IsDNS1123Label(job.Name); len(errs) > 0 {
			return &Error{Plugin: SvcPluginName, Message: fmt.Sprintf(
				"the job name %q becomes its pods' subdomain, which must be a DNS label of at most 63 characters (%s); shorten the job name",
				job.Name, strings.Join(errs, "; "))}
		}
		pod.Spec.Subdomain = naming.ServiceName(job.Name)
	}

	cmName := naming.SvcConfigMapName(job.Name)
	var env []corev1.EnvVar
	if p.injectHostsEnv {
		for i := range job.Spec.Tasks {
			name := naming.TaskName(job.Spec.Tasks, i)
			for _, key := range []string{SvcHostsEnv(name), SvcNumEnv(name)} {
				env = append(env, corev1.EnvVar{Name: key, ValueFrom: &corev1.EnvVarSource{
					ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
						LocalObjectReference: corev1.LocalObjectReference{Name: cmName},
						Key:                  key,
					},
				}})
			}
		}
	}

	vol := corev1.Volume{Name: cmName, VolumeSource: corev1.VolumeSource{
		ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cmName}},
	}}
	if err := addVolume(SvcPluginName, pod, vol); err != nil {
		return err
	}
	for _, c := range allContainers(pod) {
		setEnv(c, env...)
		if err := addMount(SvcPluginName, c, corev1.VolumeMount{Name: cmName, MountPath: SvcMountPath}); err != nil {
			return err
		}
	}
	return nil
}

// Objects returns the ConfigMap of host lists, the headless Service and, unless disabled, the
// NetworkPolicy.
func (p *svcPlugin) Objects(job *batchv1alpha1.Job, _ Existing) (Objects, error) {
	selector := map[string]string{
		batchv1alpha1.JobNameKey:      job.Name,
		batchv1alpha1.JobNamespaceKey: job.Namespace,
	}
	out := Objects{
		ConfigMaps: []*corev1.ConfigMap{{
			ObjectMeta: objectMeta(job, naming.SvcConfigMapName(job.Name)),
			Data:       SvcHostsData(job),
		}},
		Services: []*corev1.Service{{
			ObjectMeta: objectMeta(job, naming.ServiceName(job.Name)),
			Spec: corev1.ServiceSpec{
				ClusterIP:                corev1.ClusterIPNone,
				Selector:                 selector,
				PublishNotReadyAddresses: p.publishNotReadyAddresses,
				Ports: []corev1.ServicePort{{
					Name:       SvcPlaceholderPortName,
					Port:       1,
					Protocol:   corev1.ProtocolTCP,
					TargetPort: intstr.FromInt32(1),
				}},
			},
		}},
	}
	if !p.disableNetworkPolicy {
		out.NetworkPolicies = []*networkingv1.NetworkPolicy{{
			ObjectMeta: objectMeta(job, naming.NetworkPolicyName(job.Name)),
			Spec: networkingv1.NetworkPolicySpec{
				PodSelector: metav1.LabelSelector{MatchLabels: selector},
				Ingress: []networkingv1.NetworkPolicyIngressRule{{
					From: []networkingv1.NetworkPolicyPeer{{
						PodSelector: &metav1.LabelSelector{MatchLabels: maps.Clone(selector)},
					}},
				}},
				PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
			},
		}}
	}
	return out, nil
}

// SvcHostsData is the content of the svc plugin's ConfigMap: per task, <task>.host (hosts one
// per line), VC_<TASK>_HOSTS (comma-separated) and VC_<TASK>_NUM (their number).
func SvcHostsData(job *batchv1alpha1.Job) map[string]string {
	data := make(map[string]string, 3*len(job.Spec.Tasks))
	for i := range job.Spec.Tasks {
		name := naming.TaskName(job.Spec.Tasks, i)
		hosts := naming.TaskHosts(job.Name, name, &job.Spec.Tasks[i])
		data[SvcHostsFileKey(name)] = strings.Join(hosts, "\n")
		data[SvcHostsEnv(name)] = strings.Join(hosts, ",")
		data[SvcNumEnv(name)] = itoa(len(hosts))
	}
	return data
}
