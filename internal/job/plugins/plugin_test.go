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
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	"github.com/caldera-sh/caldera/internal/job/naming"
)

// testJob is a job "train" in namespace "ns" with the given tasks (name=replicas pairs).
func testJob(tasks ...batchv1alpha1.TaskSpec) *batchv1alpha1.Job {
	return &batchv1alpha1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "train", Namespace: "ns", UID: "uid-1"},
		Spec:       batchv1alpha1.JobSpec{Tasks: tasks},
	}
}

func task(name string, replicas int32) batchv1alpha1.TaskSpec {
	return batchv1alpha1.TaskSpec{Name: name, Replicas: replicas}
}

// testPod is the pod of a task at an index as the pod builder hands it to plugins: named, with
// the task annotations, one container "main" and, if init, one init container "init".
func testPod(taskName string, index int, init bool) *corev1.Pod {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:      naming.PodName("train", taskName, index),
			Namespace: "ns",
			Annotations: map[string]string{
				batchv1alpha1.TaskSpecKey: taskName,
				batchv1alpha1.TaskIndex:   strconv.Itoa(index),
			},
		},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "app"}}},
	}
	if init {
		pod.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "setup"}}
	}
	return pod
}

// wantLabels are the labels of every plugin object of the test job: the manager caches only
// Secrets and ConfigMaps that carry the job-name label.
func wantLabels() map[string]string {
	return map[string]string{"volcano.sh/job-name": "train", "volcano.sh/job-namespace": "ns"}
}

func wantOwner() []metav1.OwnerReference {
	return []metav1.OwnerReference{{
		APIVersion:         "batch.volcano.sh/v1alpha1",
		Kind:               "Job",
		Name:               "train",
		UID:                "uid-1",
		Controller:         ptr.To(true),
		BlockOwnerDeletion: ptr.To(true),
	}}
}

func mustNew(t *testing.T, name string, args []string, job *batchv1alpha1.Job) Plugin {
	t.Helper()
	p, _, err := New(name, args, job)
	if err != nil {
		t.Fatalf("New(%s, %q): %v", name, args, err)
	}
	return p
}

func TestEffectivePlugins(t *testing.T) {
	cases := []struct {
		name string
		spec map[string][]string
		want map[string][]string
	}{
		{name: "none", spec: nil, want: nil},
		{name: "env alone", spec: map[string][]string{"env": {}}, want: map[string][]string{"env": {}}},
		{
			name: "tensorflow implies svc",
			spec: map[string][]string{"tensorflow": {"--port=3333"}},
			want: map[string][]string{"tensorflow": {"--port=3333"}, "svc": {}},
		},
		{
			name: "pytorch implies svc",
			spec: map[string][]string{"pytorch": nil},
			want: map[string][]string{"pytorch": nil, "svc": {}},
		},
		{
			name: "mpi implies svc and ssh",
			spec: map[string][]string{"mpi": {"--master=head"}},
			want: map[string][]string{"mpi": {"--master=head"}, "svc": {}, "ssh": {}},
		},
		{
			name: "an implied plugin given in the spec keeps its arguments",
			spec: map[string][]string{"mpi": {}, "svc": {"--disable-network-policy"}},
			want: map[string][]string{"mpi": {}, "svc": {"--disable-network-policy"}, "ssh": {}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := cloneSpec(tc.spec)
			got := EffectivePlugins(tc.spec)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tc.spec); diff != "" {
				t.Errorf("spec changed (-before +after):\n%s", diff)
			}
		})
	}
}

func cloneSpec(m map[string][]string) map[string][]string {
	if m == nil {
		return nil
	}
	out := map[string][]string{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

func TestNewErrors(t *testing.T) {
	job := testJob(task("master", 1), task("worker", 2))
	cases := []struct {
		name   string
		plugin string
		args   []string
		want   *Error
	}{
		{
			name:   "unknown plugin",
			plugin: "horovod",
			want:   &Error{Plugin: "horovod", Message: "unknown plugin; the known plugins are env, hcclrank, mpi, pytorch, ray, ssh, svc, tensorflow: remove it or correct its name"},
		},
		{
			name:   "svc bad bool",
			plugin: "svc",
			args:   []string{"--disable-network-policy=maybe"},
			want: &Error{Plugin: "svc", Argument: "--disable-network-policy=maybe",
				Message: `invalid boolean value "maybe" for -disable-network-policy: parse error; the plugin's arguments are --disable-network-policy, --inject-hosts-env, --publish-not-ready-addresses`},
		},
		{
			name:   "svc positional argument",
			plugin: "svc",
			args:   []string{"--publish-not-ready-addresses", "true"},
			want:   &Error{Plugin: "svc", Argument: "true", Message: "is not a flag: write arguments as --name=value"},
		},
		{
			name:   "pytorch port not a number, flag and value apart",
			plugin: "pytorch",
			args:   []string{"--master=master", "--port", "abc"},
			want: &Error{Plugin: "pytorch", Argument: "--port abc",
				Message: `invalid value "abc" for flag -port: parse error; the plugin's arguments are --master, --port, --wait-master-enabled, --wait-master-image, --wait-master-timeout, --worker`},
		},
		{
			name:   "pytorch port out of range",
			plugin: "pytorch",
			args:   []string{"--port=70000"},
			want:   &Error{Plugin: "pytorch", Argument: "--port=70000", Message: "must be a port number from 1 to 65535"},
		},
		{
			name:   "pytorch wait timeout",
			plugin: "pytorch",
			args:   []string{"--wait-master-enabled", "--wait-master-timeout=0"},
			want:   &Error{Plugin: "pytorch", Argument: "--wait-master-timeout=0", Message: "must be a number of seconds of at least 1"},
		},
		{
			name:   "pytorch master names no task",
			plugin: "pytorch",
			args:   []string{"--master=head"},
			want:   &Error{Plugin: "pytorch", Argument: "--master=head", Message: `the job has no task "head"; name one of its tasks (master, worker)`},
		},
		{
			name:   "tensorflow ps names no task",
			plugin: "tensorflow",
			args:   []string{"--ps=params"},
			want:   &Error{Plugin: "tensorflow", Argument: "--ps=params", Message: `the job has no task "params"; name one of its tasks (master, worker)`},
		},
		{
			name:   "tensorflow port zero",
			plugin: "tensorflow",
			args:   []string{"--port=0"},
			want:   &Error{Plugin: "tensorflow", Argument: "--port=0", Message: "must be a port number from 1 to 65535"},
		},
		{
			name:   "mpi worker names no task",
			plugin: "mpi",
			args:   []string{"--worker=workers"},
			want:   &Error{Plugin: "mpi", Argument: "--worker=workers", Message: `the job has no task "workers"; name one of its tasks (master, worker)`},
		},
		{
			name:   "ssh private key without public key",
			plugin: "ssh",
			args:   []string{"--ssh-private-key=abc"},
			want:   &Error{Plugin: "ssh", Argument: "--ssh-private-key", Message: "--ssh-private-key and --ssh-public-key go together: give both or neither"},
		},
		{
			name:   "ssh relative key path",
			plugin: "ssh",
			args:   []string{"--ssh-key-file-path=home/.ssh"},
			want:   &Error{Plugin: "ssh", Argument: "--ssh-key-file-path=home/.ssh", Message: "must be an absolute path without ':'"},
		},
		{
			name:   "ssh port",
			plugin: "ssh",
			args:   []string{"--ssh-port=-1"},
			want:   &Error{Plugin: "ssh", Argument: "--ssh-port=-1", Message: "must be a port number from 1 to 65535"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := New(tc.plugin, tc.args, job)
			var got *Error
			if !errors.As(err, &got) {
				t.Fatalf("New(%s, %q) = %v, want *Error", tc.plugin, tc.args, err)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.IgnoreUnexported(Error{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewIgnoresArgumentsVolcanoIgnores(t *testing.T) {
	job := testJob(task("master", 1), task("worker", 2))
	cases := []struct {
		name     string
		plugin   string
		args     []string
		want     string
		warnings []string
	}{
		{
			name: "ssh --no-root, as Volcano's e2e passes it", plugin: "ssh", args: []string{"--no-root"}, want: "ssh",
			warnings: []string{`spec.plugins.ssh: argument "--no-root" flag provided but not defined: -no-root; the plugin's arguments are ` +
				`--ssh-key-file-path, --ssh-port, --ssh-private-key, --ssh-public-key; it and the arguments after it (1 in all) are ignored, as Volcano ignores them`},
		},
		{
			name: "env takes no arguments", plugin: "env", args: []string{"--index=1", "--x"}, want: "env",
			warnings: []string{`spec.plugins.env: argument "--index=1" flag provided but not defined: -index; this plugin takes no arguments; ` +
				`it and the arguments after it (2 in all) are ignored, as Volcano ignores them`},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, warnings, err := New(tc.plugin, tc.args, job)
			if err != nil {
				t.Fatalf("New = %v", err)
			}
			if p.Name() != tc.want {
				t.Errorf("plugin %s, want %s", p.Name(), tc.want)
			}
			if diff := cmp.Diff(tc.warnings, warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
	// The flags before the unknown one take effect; a bad value of a known flag is still an error.
	p, _, err := New(SSHPluginName, []string{"--ssh-port=2222", "--no-root"}, job)
	if err != nil || p.(*sshPlugin).port != 2222 {
		t.Errorf("New(ssh --ssh-port=2222 --no-root) = %+v, %v; want port 2222", p, err)
	}
	if _, _, err := New(SSHPluginName, []string{"--no-root", "--ssh-port=0"}, job); err != nil {
		t.Errorf("an argument after an ignored one is ignored too, got %v", err)
	}
}

func TestErrorString(t *testing.T) {
	cases := []struct {
		name string
		err  *Error
		want string
	}{
		{"with argument", &Error{Plugin: "svc", Argument: "--x", Message: "bad"}, `spec.plugins.svc: argument "--x": bad`},
		{"without argument", &Error{Plugin: "ray", Message: "unknown plugin"}, "spec.plugins.ray: unknown plugin"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.err.Error()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestForJob(t *testing.T) {
	cases := []struct {
		name      string
		plugins   map[string][]string
		wantNames []string
		wantErr   string
	}{
		{name: "none", wantNames: []string{}},
		{name: "sorted with implied", plugins: map[string][]string{"mpi": nil, "env": nil}, wantNames: []string{"env", "mpi", "ssh", "svc"}},
		{
			name:    "errors of all plugins",
			plugins: map[string][]string{"horovod": nil, "svc": {"--disable-network-policy=maybe"}, "env": nil},
			wantErr: "spec.plugins.horovod: unknown plugin; the known plugins are env, hcclrank, mpi, pytorch, ray, ssh, svc, tensorflow: remove it or correct its name\n" +
				`spec.plugins.svc: argument "--disable-network-policy=maybe": invalid boolean value "maybe" for -disable-network-policy: parse error; the plugin's arguments are --disable-network-policy, --inject-hosts-env, --publish-not-ready-addresses`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			job := testJob(task("master", 1), task("worker", 2))
			job.Spec.Plugins = tc.plugins
			plugins, _, err := ForJob(job)
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if diff := cmp.Diff(tc.wantErr, gotErr); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if err != nil {
				return
			}
			names := []string{}
			for _, p := range plugins {
				names = append(names, p.Name())
			}
			if diff := cmp.Diff(tc.wantNames, names); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestOnPodCreateTwice checks that every plugin leaves a pod as one call does when called twice.
func TestOnPodCreateTwice(t *testing.T) {
	job := testJob(task("master", 1), task("worker", 2))
	job.Spec.Plugins = map[string][]string{"env": nil, "mpi": nil, "pytorch": {"--wait-master-enabled"}, "tensorflow": nil}
	plugins, _, err := ForJob(job)
	if err != nil {
		t.Fatal(err)
	}
	once := testPod("worker", 1, true)
	twice := testPod("worker", 1, true)
	for _, p := range plugins {
		if err := p.OnPodCreate(once, job); err != nil {
			t.Fatalf("%s: %v", p.Name(), err)
		}
		for range 2 {
			if err := p.OnPodCreate(twice, job); err != nil {
				t.Fatalf("%s: %v", p.Name(), err)
			}
		}
	}
	if diff := cmp.Diff(once, twice); diff != "" {
		t.Errorf("(-once +twice):\n%s", diff)
	}
}

func TestDesiredObjects(t *testing.T) {
	job := testJob(task("master", 1), task("worker", 2))
	job.Spec.Plugins = map[string][]string{"mpi": nil, "svc": {"--disable-network-policy"}}
	plugins, _, err := ForJob(job)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := DesiredObjects(plugins, job, Existing{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, o := range objs.ConfigMaps {
		got["ConfigMap"] = append(got["ConfigMap"], o.Name)
	}
	for _, o := range objs.Services {
		got["Service"] = append(got["Service"], o.Name)
	}
	for _, o := range objs.NetworkPolicies {
		got["NetworkPolicy"] = append(got["NetworkPolicy"], o.Name)
	}
	for _, o := range objs.Secrets {
		got["Secret"] = append(got["Secret"], o.Name)
	}
	want := map[string][]string{"ConfigMap": {"train-svc"}, "Service": {"train"}, "Secret": {"train-ssh"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestErrorsDoNotRepeatLongValues(t *testing.T) {
	key := "-----BEGIN RSA PRIVATE KEY-----" + strings.Repeat("A", 100)
	job := testJob(task("master", 1))
	cases := []struct {
		name string
		args []string
		want string
	}{
		{name: "misspelt flag with a key", args: []string{"--ssh-privat-key=" + key}, want: "--ssh-privat-key=<131 characters>"},
		{name: "stray key", args: []string{"--ssh-port=22", key}, want: "<131 characters>"},
		{name: "short value shown", args: []string{"--ssh-prt=22"}, want: "--ssh-prt=22"},
		{name: "key with newlines as a bool", args: []string{"--ssh-port=" + strings.Repeat("AAAA\n", 20)}, want: "--ssh-port=<100 characters>"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// A misspelt flag is a warning (ignored, as in Volcano), anything else an error.
			_, warnings, err := New(SSHPluginName, tc.args, job)
			text := strings.Join(warnings, "\n")
			var got *Error
			if errors.As(err, &got) {
				text = err.Error()
				if diff := cmp.Diff(tc.want, got.Argument); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			} else if !strings.Contains(text, strconv.Quote(tc.want)) {
				t.Errorf("warnings %q do not name the argument as %q", warnings, tc.want)
			}
			if strings.Contains(text, strings.Repeat("A", 100)) {
				t.Errorf("the message repeats the key: %s", text)
			}
		})
	}
}
