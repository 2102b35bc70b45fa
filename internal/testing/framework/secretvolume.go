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

package framework

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// SyncSecretVolume does for a process what the kubelet does for a pod that mounts the Secret
// namespace/name as a volume at dir: until ctx ends, it writes each key of the Secret, as it is
// now and whenever it changes, to a file of that name in dir. A Secret that does not exist yet
// (an optional volume) leaves dir as it is.
func (f *Framework) SyncSecretVolume(ctx context.Context, namespace, name, dir string) {
	go func() {
		ticker := time.NewTicker(Interval)
		defer ticker.Stop()
		for {
			secret := &corev1.Secret{}
			if err := f.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, secret); err == nil {
				writeSecretFiles(dir, secret.Data)
			}
			select {
			case <-ctx.Done():
				return
			case <-ticker.C:
			}
		}
	}()
}

// writeSecretFiles writes each changed key of data to dir, replacing the file at once.
func writeSecretFiles(dir string, data map[string][]byte) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return
	}
	for key, value := range data {
		path := filepath.Join(dir, key)
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, value) {
			continue
		}
		tmp := path + ".tmp"
		if os.WriteFile(tmp, value, 0o600) == nil {
			_ = os.Rename(tmp, path)
		}
	}
}
