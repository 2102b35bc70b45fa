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
	"bytes"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/binary"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
)

func sshVolume(mode int32) corev1.Volume {
	return corev1.Volume{Name: "train-ssh", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
		SecretName: "train-ssh",
		Items: []corev1.KeyToPath{
			{Key: "id_rsa", Path: ".ssh/id_rsa"},
			{Key: "id_rsa.pub", Path: ".ssh/id_rsa.pub"},
			{Key: "authorized_keys", Path: ".ssh/authorized_keys"},
			{Key: "config", Path: ".ssh/config"},
		},
		DefaultMode: ptr.To(mode),
	}}}
}

func TestSSHOnPodCreate(t *testing.T) {
	job := testJob(task("master", 1), task("worker", 2))
	cases := []struct {
		name      string
		args      []string
		wantVol   corev1.Volume
		wantMount corev1.VolumeMount
	}{
		{
			name:      "default path, mode 0600",
			wantVol:   sshVolume(0o600),
			wantMount: corev1.VolumeMount{Name: "train-ssh", MountPath: "/root/.ssh", SubPath: ".ssh"},
		},
		{
			name:      "another path, mode 0644",
			args:      []string{"--ssh-key-file-path=/home/mpi/.ssh"},
			wantVol:   sshVolume(0o644),
			wantMount: corev1.VolumeMount{Name: "train-ssh", MountPath: "/home/mpi/.ssh", SubPath: ".ssh"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pod := testPod("worker", 0, true)
			if err := mustNew(t, SSHPluginName, tc.args, job).OnPodCreate(pod, job); err != nil {
				t.Fatal(err)
			}
			want := testPod("worker", 0, true)
			want.Spec.Volumes = []corev1.Volume{tc.wantVol}
			want.Spec.InitContainers[0].VolumeMounts = []corev1.VolumeMount{tc.wantMount}
			want.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{tc.wantMount}
			if diff := cmp.Diff(want, pod); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestSSHConfig(t *testing.T) {
	fixed := task("ps", 2)
	fixed.Template.Spec.Hostname = "param"
	fixed.Template.Spec.Subdomain = "net"
	cases := []struct {
		name string
		port int
		want string
	}{
		{
			name: "a block per pod",
			port: 22,
			want: "StrictHostKeyChecking no\nUserKnownHostsFile /dev/null\n" +
				"Host train-master-0\n  HostName train-master-0.train\n  Port 22\n" +
				"Host train-worker-0\n  HostName train-worker-0.train\n  Port 22\n" +
				"Host train-worker-1\n  HostName train-worker-1.train\n  Port 22\n",
		},
		{
			name: "template hostname once, other port",
			port: 2222,
			want: "StrictHostKeyChecking no\nUserKnownHostsFile /dev/null\n" +
				"Host param\n  HostName param.net\n  Port 2222\n" +
				"Host train-master-0\n  HostName train-master-0.train\n  Port 2222\n",
		},
	}
	jobs := []*batchv1alpha1.Job{
		testJob(task("master", 1), task("worker", 2)),
		testJob(fixed, task("master", 1)),
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, SSHConfig(jobs[i], tc.port)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// parseAuthorizedKey reads an "ssh-rsa <base64>\n" line back into a public key.
func parseAuthorizedKey(t *testing.T, line []byte) *rsa.PublicKey {
	t.Helper()
	s := string(line)
	if !strings.HasPrefix(s, "ssh-rsa ") || !strings.HasSuffix(s, "\n") {
		t.Fatalf("authorized key %q is not an ssh-rsa line", s)
	}
	wire, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(strings.TrimPrefix(s, "ssh-rsa "), "\n"))
	if err != nil {
		t.Fatal(err)
	}
	var fields [][]byte
	for len(wire) > 0 {
		n := binary.BigEndian.Uint32(wire)
		fields = append(fields, wire[4:4+n])
		wire = wire[4+n:]
	}
	if len(fields) != 3 || string(fields[0]) != "ssh-rsa" {
		t.Fatalf("wire format has fields %q", fields)
	}
	if fields[2][0] != 0 {
		t.Errorf("modulus mpint has no leading zero byte though its high bit is set")
	}
	return &rsa.PublicKey{E: int(new(big.Int).SetBytes(fields[1]).Int64()), N: new(big.Int).SetBytes(fields[2])}
}

func TestSSHObjects(t *testing.T) {
	job := testJob(task("master", 1), task("worker", 1))
	config := "StrictHostKeyChecking no\nUserKnownHostsFile /dev/null\n" +
		"Host train-master-0\n  HostName train-master-0.train\n  Port 22\n" +
		"Host train-worker-0\n  HostName train-worker-0.train\n  Port 22\n"
	meta := metav1.ObjectMeta{Name: "train-ssh", Namespace: "ns", Labels: wantLabels(), OwnerReferences: wantOwner()}

	t.Run("generated key pair", func(t *testing.T) {
		objs, err := mustNew(t, SSHPluginName, nil, job).Objects(job, Existing{})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(1, len(objs.Secrets)); diff != "" {
			t.Fatalf("secrets (-want +got):\n%s", diff)
		}
		s := objs.Secrets[0]
		if diff := cmp.Diff(meta, s.ObjectMeta); diff != "" {
			t.Errorf("metadata (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(corev1.SecretTypeOpaque, s.Type); diff != "" {
			t.Errorf("type (-want +got):\n%s", diff)
		}
		block, rest := pem.Decode(s.Data["id_rsa"])
		if block == nil || len(rest) != 0 || block.Type != "RSA PRIVATE KEY" {
			t.Fatalf("id_rsa is not one PEM block of type RSA PRIVATE KEY: %q", s.Data["id_rsa"])
		}
		key, err := x509.ParsePKCS1PrivateKey(block.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(2048, key.N.BitLen()); diff != "" {
			t.Errorf("key size (-want +got):\n%s", diff)
		}
		pub := parseAuthorizedKey(t, s.Data["id_rsa.pub"])
		if !pub.Equal(&key.PublicKey) {
			t.Errorf("id_rsa.pub is not the public key of id_rsa")
		}
		if diff := cmp.Diff(s.Data["id_rsa.pub"], s.Data["authorized_keys"]); diff != "" {
			t.Errorf("authorized_keys (-id_rsa.pub +authorized_keys):\n%s", diff)
		}
		if diff := cmp.Diff(config, string(s.Data["config"])); diff != "" {
			t.Errorf("config (-want +got):\n%s", diff)
		}

		// A second reconcile that finds this Secret keeps its key pair; a scale-up refreshes the config.
		scaled := testJob(task("master", 1), task("worker", 2))
		again, err := mustNew(t, SSHPluginName, nil, scaled).Objects(scaled, Existing{Secrets: map[string]*corev1.Secret{"train-ssh": s}})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string][]byte{
			"id_rsa":          s.Data["id_rsa"],
			"id_rsa.pub":      s.Data["id_rsa.pub"],
			"authorized_keys": s.Data["id_rsa.pub"],
			"config":          []byte(config + "Host train-worker-1\n  HostName train-worker-1.train\n  Port 22\n"),
		}
		if diff := cmp.Diff(want, again.Secrets[0].Data); diff != "" {
			t.Errorf("data after reconcile (-want +got):\n%s", diff)
		}
	})

	cases := []struct {
		name     string
		args     []string
		existing map[string]*corev1.Secret
		want     map[string][]byte
	}{
		{
			name: "user-supplied key pair wins over an existing one",
			args: []string{"--ssh-private-key=PRIVATE", "--ssh-public-key=ssh-rsa PUBLIC", "--ssh-port=2022"},
			existing: map[string]*corev1.Secret{"train-ssh": {Data: map[string][]byte{
				"id_rsa": []byte("OLD"), "id_rsa.pub": []byte("OLDPUB"),
			}}},
			want: map[string][]byte{
				"id_rsa":          []byte("PRIVATE"),
				"id_rsa.pub":      []byte("ssh-rsa PUBLIC"),
				"authorized_keys": []byte("ssh-rsa PUBLIC"),
				"config":          []byte(strings.ReplaceAll(config, "Port 22", "Port 2022")),
			},
		},
		{
			name: "existing key pair kept",
			existing: map[string]*corev1.Secret{"train-ssh": {Data: map[string][]byte{
				"id_rsa": []byte("OLD"), "id_rsa.pub": []byte("OLDPUB"), "authorized_keys": []byte("stale"), "config": []byte("stale"),
			}}},
			want: map[string][]byte{
				"id_rsa":          []byte("OLD"),
				"id_rsa.pub":      []byte("OLDPUB"),
				"authorized_keys": []byte("OLDPUB"),
				"config":          []byte(config),
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := mustNew(t, SSHPluginName, tc.args, job).Objects(job, Existing{Secrets: tc.existing})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, objs.Secrets[0].Data); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestAuthorizedKeyShortModulus(t *testing.T) {
	// A modulus whose high bit is clear is written without a leading zero byte.
	pub := &rsa.PublicKey{E: 65537, N: big.NewInt(0x7f01)}
	line := authorizedKey(pub)
	wire, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(strings.TrimPrefix(string(line), "ssh-rsa "), "\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{0, 0, 0, 7, 's', 's', 'h', '-', 'r', 's', 'a', 0, 0, 0, 3, 1, 0, 1, 0, 0, 0, 2, 0x7f, 0x01}
	if !bytes.Equal(want, wire) {
		t.Errorf("wire format = %v, want %v", wire, want)
	}
}
