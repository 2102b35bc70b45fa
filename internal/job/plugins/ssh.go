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
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/binary"
	"encoding/pem"
	"fmt"
	"math/big"
	"strings"

	corev1 "k8s.io/api/core/v1"

	batchv1alpha1 "github.com/caldera-sh/caldera/api/batch/v1alpha1"
	"github.com/caldera-sh/caldera/internal/job/naming"
)

// Keys of the ssh plugin's Secret, also the file names under the key path.
const (
	// SSHPrivateKeyKey holds the private key, PEM-encoded PKCS#1.
	SSHPrivateKeyKey = "id_rsa"
	// SSHPublicKeyKey holds the public key in authorized_keys format.
	SSHPublicKeyKey = "id_rsa.pub"
	// SSHAuthorizedKeysKey holds the public key, so every pod accepts every other.
	SSHAuthorizedKeysKey = "authorized_keys"
	// SSHConfigKey holds the ssh client config: one Host block per pod.
	SSHConfigKey = "config"

	// SSHDefaultKeyPath is where the keys are mounted unless --ssh-key-file-path says otherwise.
	SSHDefaultKeyPath = "/root/.ssh"
	// SSHSubPath is the directory of the Secret volume that is mounted at the key path.
	SSHSubPath = ".ssh"
	// SSHDefaultPort is the port in the ssh config unless --ssh-port says otherwise.
	SSHDefaultPort = 22

	// sshKeyBits is the size of generated RSA keys.
	sshKeyBits = 2048
)

// sshPlugin lets the job's pods ssh to each other without a password: one key pair for the
// whole job, authorized in every pod, with an ssh config naming every pod.
type sshPlugin struct {
	keyPath    string
	privateKey string
	publicKey  string
	port       int
}

func newSSH(_ *batchv1alpha1.Job, args []string) (Plugin, error) {
	p := &sshPlugin{}
	f := newFlags(SSHPluginName, args)
	f.set.StringVar(&p.keyPath, "ssh-key-file-path", SSHDefaultKeyPath, "the directory the keys and ssh config are mounted at")
	f.set.StringVar(&p.privateKey, "ssh-private-key", "", "a private key to use instead of a generated one")
	f.set.StringVar(&p.publicKey, "ssh-public-key", "", "the public key of --ssh-private-key")
	f.set.IntVar(&p.port, "ssh-port", SSHDefaultPort, "the port written in the ssh config for every pod")
	if err := f.parse(); err != nil {
		return nil, err
	}
	if !strings.HasPrefix(p.keyPath, "/") || strings.Contains(p.keyPath, ":") {
		return nil, &Error{Plugin: SSHPluginName, Argument: f.arg("ssh-key-file-path"),
			Message: "must be an absolute path without ':'"}
	}
	if (p.privateKey == "") != (p.publicKey == "") {
		return nil, &Error{Plugin: SSHPluginName, Argument: "--ssh-private-key",
			Message: "--ssh-private-key and --ssh-public-key go together: give both or neither"}
	}
	if err := f.checkPort("ssh-port", p.port); err != nil {
		return nil, err
	}
	return p, nil
}

// Name returns ssh.
func (*sshPlugin) Name() string { return SSHPluginName }

// OnPodCreate mounts the Secret's files at the key path in every container: mode 0600 under
// /root/.ssh, 0644 elsewhere so that a non-root user can read them.
func (p *sshPlugin) OnPodCreate(pod *corev1.Pod, job *batchv1alpha1.Job) error {
	name := naming.SSHSecretName(job.Name)
	mode := int32(0o600)
	if p.keyPath != SSHDefaultKeyPath {
		mode = 0o644
	}
	items := make([]corev1.KeyToPath, 0, 4)
	for _, key := range []string{SSHPrivateKeyKey, SSHPublicKeyKey, SSHAuthorizedKeysKey, SSHConfigKey} {
		items = append(items, corev1.KeyToPath{Key: key, Path: SSHSubPath + "/" + key})
	}
	vol := corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
		SecretName:  name,
		Items:       items,
		DefaultMode: &mode,
	}}}
	if err := addVolume(SSHPluginName, pod, vol); err != nil {
		return err
	}
	for _, c := range allContainers(pod) {
		if err := addMount(SSHPluginName, c, corev1.VolumeMount{Name: name, MountPath: p.keyPath, SubPath: SSHSubPath}); err != nil {
			return err
		}
	}
	return nil
}

// Objects returns the Secret <job>-ssh. Its key pair is, in order of preference: the one given
// by --ssh-private-key and --ssh-public-key; the one in the existing Secret; a new RSA-2048 pair.
// The ssh config is written afresh each time, so pods added by a scale-up find every host.
func (p *sshPlugin) Objects(job *batchv1alpha1.Job, existing Existing) (Objects, error) {
	name := naming.SSHSecretName(job.Name)
	var private, public []byte
	switch old := existing.Secrets[name]; {
	case p.privateKey != "":
		private, public = []byte(p.privateKey), []byte(p.publicKey)
	case old != nil && len(old.Data[SSHPrivateKeyKey]) > 0 && len(old.Data[SSHPublicKeyKey]) > 0:
		private, public = old.Data[SSHPrivateKeyKey], old.Data[SSHPublicKeyKey]
	default:
		var err error
		if private, public, err = generateSSHKeyPair(); err != nil {
			return Objects{}, &Error{Plugin: SSHPluginName, Message: "cannot generate a key pair: " + err.Error()}
		}
	}
	secret := &corev1.Secret{
		ObjectMeta: objectMeta(job, name),
		Type:       corev1.SecretTypeOpaque,
		Data: map[string][]byte{
			SSHPrivateKeyKey:     clone(private),
			SSHPublicKeyKey:      clone(public),
			SSHAuthorizedKeysKey: clone(public),
			SSHConfigKey:         []byte(SSHConfig(job, p.port)),
		},
	}
	return Objects{Secrets: []*corev1.Secret{secret}}, nil
}

// SSHConfig is the ssh client config of a job: no host key checking, and a Host block per pod
// naming its domain name and the ssh port.
func SSHConfig(job *batchv1alpha1.Job, port int) string {
	var b strings.Builder
	b.WriteString("StrictHostKeyChecking no\nUserKnownHostsFile /dev/null\n")
	for i := range job.Spec.Tasks {
		task, name := &job.Spec.Tasks[i], naming.TaskName(job.Spec.Tasks, i)
		for index := range int(task.Replicas) {
			host := naming.Hostname(job.Name, name, task, index)
			fmt.Fprintf(&b, "Host %s\n  HostName %s\n  Port %d\n", host, naming.DomainName(job.Name, name, task, index), port)
			if task.Template.Spec.Hostname != "" {
				// Every pod of the task has this hostname.
				break
			}
		}
	}
	return b.String()
}

// generateSSHKeyPair makes an RSA-2048 key pair: the private key PEM-encoded in PKCS#1, the public
// key as an authorized_keys line.
func generateSSHKeyPair() (private, public []byte, err error) {
	key, err := rsa.GenerateKey(rand.Reader, sshKeyBits)
	if err != nil {
		return nil, nil, err
	}
	private = pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	return private, authorizedKey(&key.PublicKey), nil
}

// authorizedKey writes an RSA public key as an authorized_keys line: "ssh-rsa <base64>\n", the
// base64 of the SSH wire format (RFC 4253 section 6.6): the string "ssh-rsa", then e and n as mpints.
func authorizedKey(pub *rsa.PublicKey) []byte {
	var wire []byte
	wire = appendSSHString(wire, []byte("ssh-rsa"))
	wire = appendSSHString(wire, mpint(big.NewInt(int64(pub.E))))
	wire = appendSSHString(wire, mpint(pub.N))
	return []byte("ssh-rsa " + base64.StdEncoding.EncodeToString(wire) + "\n")
}

// appendSSHString appends a length-prefixed byte string.
func appendSSHString(b, s []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// mpint is the two's complement big-endian form of a non-negative integer, with a leading zero
// byte when the high bit is set (RFC 4251 section 5).
func mpint(n *big.Int) []byte {
	b := n.Bytes()
	if len(b) > 0 && b[0]&0x80 != 0 {
		b = append([]byte{0}, b...)
	}
	return b
}

func clone(b []byte) []byte { return append([]byte(nil), b...) }
