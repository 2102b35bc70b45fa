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
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func cmRef(key string) corev1.EnvVar {
	return corev1.EnvVar{Name: key, ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: "train-svc"}, Key: key,
	}}}
}

func svcVolume() corev1.Volume {
	return corev1.Volume{Name: "train-svc", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
		LocalObjectReference: corev1.LocalObjectReference{Name: "train-svc"},
	}}}
}

func TestSvcOnPodCreate(t *testing.T) {
	job := testJob(task("ps", 1), task("mpi-worker", 2))
	mount := corev1.VolumeMount{Name: "train-svc", MountPath: "/etc/volcano"}
	hostEnv := []corev1.EnvVar{cmRef("VC_PS_HOSTS"), cmRef("VC_PS_NUM"), cmRef("VC_MPI_WORKER_HOSTS"), cmRef("VC_MPI_WORKER_NUM")}

	withSpec := func(pod *corev1.Pod, spec corev1.PodSpec) *corev1.Pod {
		pod.Spec = spec
		return pod
	}
	cases := []struct {
		name    string
		args    []string
		pod     func() *corev1.Pod
		want    func() *corev1.Pod
		wantErr string
	}{
		{
			name: "hostname, subdomain, host variables and mount in every container",
			pod:  func() *corev1.Pod { return testPod("mpi-worker", 1, true) },
			want: func() *corev1.Pod {
				return withSpec(testPod("mpi-worker", 1, true), corev1.PodSpec{
					Hostname:       "train-mpi-worker-1",
					Subdomain:      "train",
					Volumes:        []corev1.Volume{svcVolume()},
					InitContainers: []corev1.Container{{Name: "init", Image: "setup", Env: hostEnv, VolumeMounts: []corev1.VolumeMount{mount}}},
					Containers:     []corev1.Container{{Name: "main", Image: "app", Env: hostEnv, VolumeMounts: []corev1.VolumeMount{mount}}},
				})
			},
		},
		{
			name: "no host variables with --inject-hosts-env=false; template hostname kept",
			args: []string{"--inject-hosts-env=false"},
			pod: func() *corev1.Pod {
				p := testPod("ps", 0, false)
				p.Spec.Hostname = "param"
				p.Spec.Subdomain = "net"
				return p
			},
			want: func() *corev1.Pod {
				return withSpec(testPod("ps", 0, false), corev1.PodSpec{
					Hostname:   "param",
					Subdomain:  "net",
					Volumes:    []corev1.Volume{svcVolume()},
					Containers: []corev1.Container{{Name: "main", Image: "app", VolumeMounts: []corev1.VolumeMount{mount}}},
				})
			},
		},
		{
			name: "a pod name too long to be a hostname",
			pod: func() *corev1.Pod {
				p := testPod("ps", 0, false)
				p.Name = strings.Repeat("a", 60) + "-ps-0"
				return p
			},
			wantErr: `spec.plugins.svc: the pod name "` + strings.Repeat("a", 60) + `-ps-0" becomes its hostname, which must be a DNS label of at most 63 characters (must be no more than 63 characters); shorten the job name or the task name, or set hostname in the task's template`,
		},
		{
			name: "another mount at /etc/volcano",
			pod: func() *corev1.Pod {
				p := testPod("ps", 0, false)
				p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "cfg", MountPath: "/etc/volcano"}}
				return p
			},
			wantErr: `spec.plugins.svc: container "main" already mounts volume "cfg" at /etc/volcano; remove that mount from the task's template`,
		},
		{
			name: "another volume named like the ConfigMap",
			pod: func() *corev1.Pod {
				p := testPod("ps", 0, false)
				p.Spec.Volumes = []corev1.Volume{{Name: "train-svc"}}
				return p
			},
			wantErr: `spec.plugins.svc: the pod template already has a volume named "train-svc"; rename that volume in the task's template`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pod := tc.pod()
			err := mustNew(t, SvcPluginName, tc.args, job).OnPodCreate(pod, job)
			if tc.wantErr != "" {
				var perr *Error
				if !errors.As(err, &perr) {
					t.Fatalf("error %v is not an *Error", err)
				}
				if diff := cmp.Diff(tc.wantErr, err.Error()); diff != "" {
					t.Errorf("error (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want(), pod); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestSvcObjects(t *testing.T) {
	fixedHost := task("ps", 3)
	fixedHost.Template.Spec.Hostname = "param"
	job := testJob(fixedHost, task("mpi-worker", 3), task("idle", 0))
	selector := map[string]string{"volcano.sh/job-name": "train", "volcano.sh/job-namespace": "ns"}
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: wantLabels(), OwnerReferences: wantOwner()}
	}
	configMap := &corev1.ConfigMap{
		ObjectMeta: meta("train-svc"),
		Data: map[string]string{
			"ps.host":     "param.train",
			"VC_PS_HOSTS": "param.train",
			"VC_PS_NUM":   "1",
			"mpi_worker.host": "train-mpi-worker-0.train\n" +
				"train-mpi-worker-1.train\n" +
				"train-mpi-worker-2.train",
			"VC_MPI_WORKER_HOSTS": "train-mpi-worker-0.train,train-mpi-worker-1.train,train-mpi-worker-2.train",
			"VC_MPI_WORKER_NUM":   "3",
			"idle.host":           "",
			"VC_IDLE_HOSTS":       "",
			"VC_IDLE_NUM":         "0",
		},
	}
	service := func(publish bool) *corev1.Service {
		return &corev1.Service{
			ObjectMeta: meta("train"),
			Spec: corev1.ServiceSpec{
				ClusterIP:                "None",
				Selector:                 selector,
				PublishNotReadyAddresses: publish,
				Ports: []corev1.ServicePort{{
					Name: "placeholder-volcano", Port: 1, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(1),
				}},
			},
		}
	}
	policy := &networkingv1.NetworkPolicy{
		ObjectMeta: meta("train"),
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: selector},
			Ingress: []networkingv1.NetworkPolicyIngressRule{{
				From: []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: selector}}},
			}},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
		},
	}
	cases := []struct {
		name string
		args []string
		want Objects
	}{
		{
			name: "defaults",
			want: Objects{
				ConfigMaps:      []*corev1.ConfigMap{configMap},
				Services:        []*corev1.Service{service(false)},
				NetworkPolicies: []*networkingv1.NetworkPolicy{policy},
			},
		},
		{
			name: "publish not ready addresses, no network policy",
			args: []string{"--publish-not-ready-addresses", "--disable-network-policy=true"},
			want: Objects{
				ConfigMaps: []*corev1.ConfigMap{configMap},
				Services:   []*corev1.Service{service(true)},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := mustNew(t, SvcPluginName, tc.args, job).Objects(job, Existing{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestSvcHostsDataScales(t *testing.T) {
	job := testJob(task("worker", 1))
	before := SvcHostsData(job)
	job.Spec.Tasks[0].Replicas = 2
	after := SvcHostsData(job)
	want := []map[string]string{
		{"worker.host": "train-worker-0.train", "VC_WORKER_HOSTS": "train-worker-0.train", "VC_WORKER_NUM": "1"},
		{"worker.host": "train-worker-0.train\ntrain-worker-1.train", "VC_WORKER_HOSTS": "train-worker-0.train,train-worker-1.train", "VC_WORKER_NUM": "2"},
	}
	if diff := cmp.Diff(want, []map[string]string{before, after}); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestSvcHostsDataUnnamedTasks(t *testing.T) {
	job := testJob(task("", 1), task("", 2))
	want := map[string]string{
		"default0.host": "train-default0-0.train", "VC_DEFAULT0_HOSTS": "train-default0-0.train", "VC_DEFAULT0_NUM": "1",
		"default1.host":     "train-default1-0.train\ntrain-default1-1.train",
		"VC_DEFAULT1_HOSTS": "train-default1-0.train,train-default1-1.train", "VC_DEFAULT1_NUM": "2",
	}
	if diff := cmp.Diff(want, SvcHostsData(job)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("StrictHostKeyChecking no\nUserKnownHostsFile /dev/null\n"+
		"Host train-default0-0\n  HostName train-default0-0.train\n  Port 22\n"+
		"Host train-default1-0\n  HostName train-default1-0.train\n  Port 22\n"+
		"Host train-default1-1\n  HostName train-default1-1.train\n  Port 22\n", SSHConfig(job, 22)); diff != "" {
		t.Errorf("ssh config (-want +got):\n%s", diff)
	}
}
